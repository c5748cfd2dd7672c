# Empty dependencies file for mancala_solver.
# This may be replaced when dependencies are built.
