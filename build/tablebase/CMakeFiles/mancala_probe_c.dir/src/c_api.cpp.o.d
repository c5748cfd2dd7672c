tablebase/CMakeFiles/mancala_probe_c.dir/src/c_api.cpp.o: \
 /work/main/tablebase/src/c_api.cpp /usr/include/stdc-predef.h
