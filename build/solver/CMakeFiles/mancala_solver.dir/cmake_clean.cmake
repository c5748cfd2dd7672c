file(REMOVE_RECURSE
  "CMakeFiles/mancala_solver.dir/src/retrograde.cpp.o"
  "CMakeFiles/mancala_solver.dir/src/retrograde.cpp.o.d"
  "libmancala_solver.a"
  "libmancala_solver.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/mancala_solver.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
