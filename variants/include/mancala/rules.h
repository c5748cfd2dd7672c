// Every rule type, and the one runtime switch that picks a hot-path template
// instance for a variant:
//
//   with_rules(variant, [&](const auto& rules) { solve_class(rules, ...); });
//
// `rules` has the concrete final type, so its calls are not virtual.
#pragma once

#include <stdexcept>

#include "mancala/rules/cenne.h"
#include "mancala/rules/djenon_aboure.h"
#include "mancala/rules/enkeshui.h"
#include "mancala/rules/imbelece.h"
#include "mancala/rules/kalah.h"
#include "mancala/rules/kotu_baendum.h"
#include "mancala/rules/oware.h"

namespace mancala {

template <class F>
decltype(auto) with_rules(const Variant& v, F&& f) {
  switch (v.id()) {
    case VariantId::DjenonAboure: return f(static_cast<const DjenonAboure&>(v));
    case VariantId::KotuBaendum: return f(static_cast<const KotuBaendum&>(v));
    case VariantId::Cenne: return f(static_cast<const Cenne&>(v));
    case VariantId::Enkeshui: return f(static_cast<const Enkeshui&>(v));
    case VariantId::Imbelece: return f(static_cast<const Imbelece&>(v));
    case VariantId::Oware: return f(static_cast<const Oware&>(v));
    case VariantId::Kalah: return f(static_cast<const Kalah&>(v));
  }
  throw std::logic_error("with_rules: unknown variant id");
}

}  // namespace mancala
