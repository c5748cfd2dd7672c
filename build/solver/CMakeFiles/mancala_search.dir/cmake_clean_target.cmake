file(REMOVE_RECURSE
  "libmancala_search.a"
)
