file(REMOVE_RECURSE
  "libmancala_probe_c.a"
)
