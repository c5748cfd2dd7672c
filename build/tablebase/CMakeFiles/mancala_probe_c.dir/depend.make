# Empty dependencies file for mancala_probe_c.
# This may be replaced when dependencies are built.
