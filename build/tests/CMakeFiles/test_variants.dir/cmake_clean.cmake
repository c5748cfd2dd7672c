file(REMOVE_RECURSE
  "CMakeFiles/test_variants.dir/variants/test_notation.cpp.o"
  "CMakeFiles/test_variants.dir/variants/test_notation.cpp.o.d"
  "test_variants"
  "test_variants.pdb"
  "test_variants[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_variants.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
