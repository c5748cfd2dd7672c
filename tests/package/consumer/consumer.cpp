// C++ consumer of the installed library (mancala::probe): prints the value of a position.
//   consumer_cxx DIR "oware 1,0,0,2,0,0/0,1,0,0,1,0 S"
#include <cstdio>

#include "mancala/notation.h"
#include "mancala/probe.h"
#include "mancala/version.h"

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  auto tb = mancala::Tablebase::open(argv[1]);
  if (!tb) return std::fprintf(stderr, "%s\n", tb.error().message.c_str()), 1;
  auto pp = mancala::parse_position(argv[2]);
  if (!pp) return std::fprintf(stderr, "%s\n", pp.error().message.c_str()), 1;
  auto r = (*tb)->probe(*pp->variant, pp->position);
  if (!r) return std::fprintf(stderr, "%s\n", r.error().message.c_str()), 1;
  std::printf("%d %zu %s\n", r->value, r->moves.size(), MANCALA_VERSION_STRING);
  return 0;
}
