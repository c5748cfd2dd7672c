// Which games have distance tables (solver/include/mancala/distances.h, .mtz files).
#pragma once

#include "mancala/variant.h"

namespace mancala {

// Score games whose in-class moves can repeat a position. Kalah's never do and its
// game is finite, so any value-optimal play realises its value; Imbelece's win/loss
// values hold their plies.
inline bool has_distance_tables(const Variant& v) { return v.kind() == GameKind::Score && !v.in_class_acyclic(); }

}  // namespace mancala
