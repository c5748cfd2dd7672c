file(REMOVE_RECURSE
  "CMakeFiles/mancala_probe_c.dir/src/c_api.cpp.o"
  "CMakeFiles/mancala_probe_c.dir/src/c_api.cpp.o.d"
  "libmancala_probe_c.a"
  "libmancala_probe_c.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/mancala_probe_c.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
