file(REMOVE_RECURSE
  "CMakeFiles/mancala_generate.dir/src/generate.cpp.o"
  "CMakeFiles/mancala_generate.dir/src/generate.cpp.o.d"
  "CMakeFiles/mancala_generate.dir/src/verify.cpp.o"
  "CMakeFiles/mancala_generate.dir/src/verify.cpp.o.d"
  "libmancala_generate.a"
  "libmancala_generate.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/mancala_generate.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
