// Position notation (docs/notation.md):  VARIANT PITS SIDE [FLAGS]
//   djenon-aboure 4,4,4,4,4,4/4,4,4,4,4,4 S
//   kotu-baendum 0,1,1,0,0,0,0/0S,1,0,2,1,0,1 N
//   cenne:7:7 3,3,3,3,3,3,3/3,3,3,3,3,3,3 N atappe
#pragma once

#include <expected>
#include <string>
#include <string_view>

#include "mancala/variant.h"

namespace mancala {

struct ParsedPosition {
  VariantPtr variant;
  Position position;  // normalised: side to move as South
  Side side = Side::South;  // the side to move as written
};

// Parses a whole position; every malformed input (an unknown variant included) fails
// with BadPosition and a one-line message.
Result<ParsedPosition> parse_position(std::string_view text);

// A parsed position whose variant is borrowed from the calling thread's cache of
// variants: valid until the thread's next parse. What a probe from text needs, without
// a shared pointer's atomic counts (a quarter of a parse).
struct PositionRef {
  const Variant* variant = nullptr;
  Position position;  // normalised: side to move as South
  Side side = Side::South;
};
// parse_position, borrowing the variant (the same checks and messages).
Result<PositionRef> parse_position_ref(std::string_view text);
// Parses PITS SIDE [FLAGS] for a known variant (errors: BadPosition).
Result<ParsedPosition> parse_position(const VariantPtr& v, std::string_view rest);
// The common case of PITS SIDE in one pass, for a known variant: plain numbers of one to
// three digits (no marks), one space, S or N, then nothing but blanks, into `absolute`
// (South at the bottom, as written) and `side`. False on anything else (marks, flags,
// other spacing, an error to name), which parse_position reads the same way; no check
// of the position against the rules (Variant::check). Example (oware):
// " 1,0,1,2,0,1/2,1,1,0,3,1 S" gives pits 1,0,1,2,0,1,2,1,1,0,3,1, South.
bool parse_plain_board(const Variant& v, std::string_view rest, Position& absolute, Side& side);

// Writes a normalised position as seen with `side` to move.
std::string format_position(const Variant& v, const Position& normalised, Side side);
// Only the PITS part (absolute orientation).
std::string format_pits(const Variant& v, const Position& absolute);

}  // namespace mancala
