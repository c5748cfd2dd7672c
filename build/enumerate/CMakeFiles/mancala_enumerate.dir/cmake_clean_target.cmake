file(REMOVE_RECURSE
  "libmancala_enumerate.a"
)
