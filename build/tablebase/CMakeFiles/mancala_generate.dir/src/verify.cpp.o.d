tablebase/CMakeFiles/mancala_generate.dir/src/verify.cpp.o: \
 /work/main/tablebase/src/verify.cpp /usr/include/stdc-predef.h
