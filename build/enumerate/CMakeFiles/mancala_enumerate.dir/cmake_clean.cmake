file(REMOVE_RECURSE
  "CMakeFiles/mancala_enumerate.dir/src/index.cpp.o"
  "CMakeFiles/mancala_enumerate.dir/src/index.cpp.o.d"
  "libmancala_enumerate.a"
  "libmancala_enumerate.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/mancala_enumerate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
