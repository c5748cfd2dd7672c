// libFuzzer target: the position notation (parse_position / format_position) and the
// class index of every position it accepts.
//
// Invariants for every text that parses: writing the position and parsing the text
// again gives the same variant, position and side, and writing that gives the same
// text; the one-pass reading of a plain board, where it reads, gives the same position
// and side; a tabled position of an indexable class ranks and unranks to itself.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "mancala/index.h"
#include "mancala/notation.h"

namespace {
void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_notation: invariant broken: %s\n", what);
    std::abort();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 512) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto p = mancala::parse_position(text);
  if (!p) {
    check(!p.error().message.empty() && p.error().code == mancala::Error::BadPosition, "an error has a message and the code BadPosition");
    return 0;
  }
  const mancala::Variant& v = *p->variant;
  // The one-pass reading of a plain board (mtb_value's shortest way) agrees where it reads.
  if (const std::size_t space = text.find(' '); space != std::string_view::npos) {
    mancala::Position a;
    mancala::Side side = mancala::Side::South;
    if (mancala::parse_plain_board(v, text.substr(space), a, side)) {
      check(side == p->side, "plain board: same side");
      check((side == mancala::Side::South ? a : v.rotate(a)) == p->position, "plain board: same position");
    }
  }
  const std::string written = mancala::format_position(v, p->position, p->side);
  auto q = mancala::parse_position(written);
  check(q.has_value(), "written position parses");
  check(q->variant->name() == v.name(), "same variant");
  check(q->position == p->position, "same position");
  check(q->side == p->side, "same side");
  check(mancala::format_position(v, q->position, q->side) == written, "same text");
  if (v.tabled(p->position)) {
    const mancala::ClassKey key = v.class_of(p->position);
    const mancala::ClassIndex idx(v, key);
    if (idx.contains(p->position)) {
      const mancala::Index r = idx.rank(p->position);
      check(r < idx.size(), "rank in range");
      check(idx.unrank(r) == p->position, "unrank(rank(p)) == p");
    }
  }
  return 0;
}
