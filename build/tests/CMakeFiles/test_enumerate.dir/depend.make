# Empty dependencies file for test_enumerate.
# This may be replaced when dependencies are built.
