file(REMOVE_RECURSE
  "CMakeFiles/mancala_search.dir/src/search.cpp.o"
  "CMakeFiles/mancala_search.dir/src/search.cpp.o.d"
  "libmancala_search.a"
  "libmancala_search.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/mancala_search.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
