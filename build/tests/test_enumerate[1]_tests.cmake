add_test([=[Index.WorkedExample]=]  /work/main/build/tests/test_enumerate [==[--gtest_filter=Index.WorkedExample]==] --gtest_also_run_disabled_tests)
set_tests_properties([=[Index.WorkedExample]=]  PROPERTIES WORKING_DIRECTORY /work/main/build/tests SKIP_REGULAR_EXPRESSION [==[\[  SKIPPED \]]==] TIMEOUT 600)
set(  test_enumerate_TESTS Index.WorkedExample)
