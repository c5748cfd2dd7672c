# Empty dependencies file for mancala_generate.
# This may be replaced when dependencies are built.
