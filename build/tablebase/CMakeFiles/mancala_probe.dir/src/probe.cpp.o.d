tablebase/CMakeFiles/mancala_probe.dir/src/probe.cpp.o: \
 /work/main/tablebase/src/probe.cpp /usr/include/stdc-predef.h
