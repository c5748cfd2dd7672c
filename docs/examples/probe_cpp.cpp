// Prints the value and the ranked moves of one position with the C++ API.
// usage: probe_cpp DIR "VARIANT PITS SIDE [FLAGS]"
#include <cstdio>

#include "mancala/notation.h"
#include "mancala/probe.h"

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  auto tb = mancala::Tablebase::open(argv[1]);
  if (!tb) return std::fprintf(stderr, "%s\n", tb.error().message.c_str()), 1;
  auto pos = mancala::parse_position(argv[2]);  // normalised: side to move as South
  if (!pos) return std::fprintf(stderr, "%s\n", pos.error().message.c_str()), 1;
  const mancala::Variant& v = *pos->variant;
  auto r = (*tb)->probe(v, pos->position);
  if (!r) return std::fprintf(stderr, "%s\n", r.error().message.c_str()), 1;
  std::printf("value %s\n", mancala::value_text(v.kind(), r->value).c_str());
  for (const mancala::MoveValue& m : r->moves)
    std::printf("move %s: value %s, gains %d/%d\n", v.move_name(m.move).c_str(),
                mancala::value_text(v.kind(), m.value).c_str(), m.child.gain_mover, m.child.gain_opponent);
  return 0;
}
