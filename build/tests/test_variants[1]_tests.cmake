add_test([=[Notation.RoundTripStart]=]  /work/main/build/tests/test_variants [==[--gtest_filter=Notation.RoundTripStart]==] --gtest_also_run_disabled_tests)
set_tests_properties([=[Notation.RoundTripStart]=]  PROPERTIES WORKING_DIRECTORY /work/main/build/tests SKIP_REGULAR_EXPRESSION [==[\[  SKIPPED \]]==] TIMEOUT 600)
set(  test_variants_TESTS Notation.RoundTripStart)
