tablebase/CMakeFiles/mancala_probe.dir/src/format.cpp.o: \
 /work/main/tablebase/src/format.cpp /usr/include/stdc-predef.h
