# Empty dependencies file for mancala_probe.
# This may be replaced when dependencies are built.
