file(REMOVE_RECURSE
  "libmancala_variants.a"
)
