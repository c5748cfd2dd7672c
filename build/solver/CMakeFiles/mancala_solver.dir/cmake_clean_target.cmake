file(REMOVE_RECURSE
  "libmancala_solver.a"
)
