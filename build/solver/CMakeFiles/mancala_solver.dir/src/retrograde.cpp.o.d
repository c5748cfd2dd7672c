solver/CMakeFiles/mancala_solver.dir/src/retrograde.cpp.o: \
 /work/main/solver/src/retrograde.cpp /usr/include/stdc-predef.h
