# Empty dependencies file for mancala_enumerate.
# This may be replaced when dependencies are built.
