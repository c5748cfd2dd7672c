file(REMOVE_RECURSE
  "CMakeFiles/mancala_probe.dir/src/format.cpp.o"
  "CMakeFiles/mancala_probe.dir/src/format.cpp.o.d"
  "CMakeFiles/mancala_probe.dir/src/probe.cpp.o"
  "CMakeFiles/mancala_probe.dir/src/probe.cpp.o.d"
  "libmancala_probe.a"
  "libmancala_probe.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/mancala_probe.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
