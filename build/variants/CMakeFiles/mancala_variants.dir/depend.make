# Empty dependencies file for mancala_variants.
# This may be replaced when dependencies are built.
