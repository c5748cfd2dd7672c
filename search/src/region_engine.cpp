// The region engine's factory (the engine itself is in region_engine.h: the cyclic
// engine derives from it).
#include "region_engine.h"

namespace mancala::search_detail {

std::unique_ptr<Engine> make_region_engine() { return std::make_unique<RegionEngine>(); }

}  // namespace mancala::search_detail
