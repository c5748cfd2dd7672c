file(REMOVE_RECURSE
  "CMakeFiles/test_enumerate.dir/enumerate/test_index.cpp.o"
  "CMakeFiles/test_enumerate.dir/enumerate/test_index.cpp.o.d"
  "test_enumerate"
  "test_enumerate.pdb"
  "test_enumerate[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/test_enumerate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
