
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/tools/mancala-tb/cli.cpp" "tools/CMakeFiles/mancala-tb.dir/mancala-tb/cli.cpp.o" "gcc" "tools/CMakeFiles/mancala-tb.dir/mancala-tb/cli.cpp.o.d"
  "/work/main/tools/mancala-tb/cmd_play.cpp" "tools/CMakeFiles/mancala-tb.dir/mancala-tb/cmd_play.cpp.o" "gcc" "tools/CMakeFiles/mancala-tb.dir/mancala-tb/cmd_play.cpp.o.d"
  "/work/main/tools/mancala-tb/cmd_rules.cpp" "tools/CMakeFiles/mancala-tb.dir/mancala-tb/cmd_rules.cpp.o" "gcc" "tools/CMakeFiles/mancala-tb.dir/mancala-tb/cmd_rules.cpp.o.d"
  "/work/main/tools/mancala-tb/cmd_solve.cpp" "tools/CMakeFiles/mancala-tb.dir/mancala-tb/cmd_solve.cpp.o" "gcc" "tools/CMakeFiles/mancala-tb.dir/mancala-tb/cmd_solve.cpp.o.d"
  "/work/main/tools/mancala-tb/cmd_tables.cpp" "tools/CMakeFiles/mancala-tb.dir/mancala-tb/cmd_tables.cpp.o" "gcc" "tools/CMakeFiles/mancala-tb.dir/mancala-tb/cmd_tables.cpp.o.d"
  "/work/main/tools/mancala-tb/main.cpp" "tools/CMakeFiles/mancala-tb.dir/mancala-tb/main.cpp.o" "gcc" "tools/CMakeFiles/mancala-tb.dir/mancala-tb/main.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build/tablebase/CMakeFiles/mancala_generate.dir/DependInfo.cmake"
  "/work/main/build/tablebase/CMakeFiles/mancala_probe.dir/DependInfo.cmake"
  "/work/main/build/solver/CMakeFiles/mancala_search.dir/DependInfo.cmake"
  "/work/main/build/solver/CMakeFiles/mancala_solver.dir/DependInfo.cmake"
  "/work/main/build/enumerate/CMakeFiles/mancala_enumerate.dir/DependInfo.cmake"
  "/work/main/build/variants/CMakeFiles/mancala_variants.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
