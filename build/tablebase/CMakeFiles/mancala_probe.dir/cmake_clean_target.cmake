file(REMOVE_RECURSE
  "libmancala_probe.a"
)
