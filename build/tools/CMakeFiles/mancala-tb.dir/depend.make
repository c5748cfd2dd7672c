# Empty dependencies file for mancala-tb.
# This may be replaced when dependencies are built.
