# CMake generated Testfile for 
# Source directory: /work/main/tests
# Build directory: /work/main/build/tests
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
include("/work/main/build/tests/test_variants[1]_include.cmake")
include("/work/main/build/tests/test_enumerate[1]_include.cmake")
