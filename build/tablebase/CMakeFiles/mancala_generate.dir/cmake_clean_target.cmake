file(REMOVE_RECURSE
  "libmancala_generate.a"
)
