# Empty dependencies file for mancala_search.
# This may be replaced when dependencies are built.
