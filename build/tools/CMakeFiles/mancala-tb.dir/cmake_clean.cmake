file(REMOVE_RECURSE
  "CMakeFiles/mancala-tb.dir/mancala-tb/cli.cpp.o"
  "CMakeFiles/mancala-tb.dir/mancala-tb/cli.cpp.o.d"
  "CMakeFiles/mancala-tb.dir/mancala-tb/cmd_play.cpp.o"
  "CMakeFiles/mancala-tb.dir/mancala-tb/cmd_play.cpp.o.d"
  "CMakeFiles/mancala-tb.dir/mancala-tb/cmd_rules.cpp.o"
  "CMakeFiles/mancala-tb.dir/mancala-tb/cmd_rules.cpp.o.d"
  "CMakeFiles/mancala-tb.dir/mancala-tb/cmd_solve.cpp.o"
  "CMakeFiles/mancala-tb.dir/mancala-tb/cmd_solve.cpp.o.d"
  "CMakeFiles/mancala-tb.dir/mancala-tb/cmd_tables.cpp.o"
  "CMakeFiles/mancala-tb.dir/mancala-tb/cmd_tables.cpp.o.d"
  "CMakeFiles/mancala-tb.dir/mancala-tb/main.cpp.o"
  "CMakeFiles/mancala-tb.dir/mancala-tb/main.cpp.o.d"
  "mancala-tb"
  "mancala-tb.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/mancala-tb.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
