// STUB: rules not implemented yet (see issues 4 and 5).
#include "mancala/rules/kotu_baendum.h"

namespace mancala {

Position KotuBaendum::start(int per_pit) const {
  Position p;
  for (int i = 0; i < pits(); ++i) p.pits[static_cast<std::size_t>(i)] = static_cast<Seeds>(per_pit ? per_pit : 4);
  return p;
}
void KotuBaendum::children(const Position&, std::vector<Child>& out) const { out.clear(); }
Value KotuBaendum::terminal_value(const Position&) const { return 0; }
std::string KotuBaendum::check(const Position& p) const { return Variant::check(p); }
std::vector<ClassKey> KotuBaendum::classes(int n) const { return Variant::classes(n); }

}  // namespace mancala
