solver/CMakeFiles/mancala_search.dir/src/search.cpp.o: \
 /work/main/solver/src/search.cpp /usr/include/stdc-predef.h
