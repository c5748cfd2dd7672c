tablebase/CMakeFiles/mancala_generate.dir/src/generate.cpp.o: \
 /work/main/tablebase/src/generate.cpp /usr/include/stdc-predef.h
