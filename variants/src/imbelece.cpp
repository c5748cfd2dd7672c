// STUB: rules not implemented yet (see issues 4 and 5).
#include "mancala/rules/imbelece.h"

namespace mancala {

Position Imbelece::start(int per_pit) const {
  Position p;
  for (int i = 0; i < pits(); ++i) p.pits[static_cast<std::size_t>(i)] = static_cast<Seeds>(per_pit ? per_pit : 4);
  return p;
}
void Imbelece::children(const Position&, std::vector<Child>& out) const { out.clear(); }
Value Imbelece::terminal_value(const Position&) const { return 0; }
std::string Imbelece::check(const Position& p) const { return Variant::check(p); }

}  // namespace mancala
