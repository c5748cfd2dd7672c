// Oware / Awari with Romein & Bal's rules (docs/rules/oware.md).
#pragma once

#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "mancala/rules/sowing.h"
#include "mancala/variant.h"

namespace mancala {

class Oware final : public Variant {
 public:
  static constexpr int kPits = 12;
  static constexpr int kRow = 6;

  VariantId id() const override { return VariantId::Oware; }
  std::string name() const override { return "oware"; }
  int pits() const override { return kPits; }
  int total_seeds() const override { return 48; }
  Position start(int per_pit = 0) const override;
  void children(const Position& p, std::vector<Child>& out) const override;
  Value terminal_value(const Position& p) const override;
  // No marks or flags on this board: the fast forms of the generic functions.
  Position rotate(const Position& p) const override { return rotate_plain(p, kPits); }
  ClassKey class_of(const Position& p) const override { return ClassKey{0, seeds(p)}; }
  // The seeds on the board, p.seeds_in(0, kPits): one sum of absolute differences over
  // the 16 bytes of pits 0..15 with 12..15 masked (exact for any bytes; a loop of 12
  // additions had been 5 % of a full probe).
  static int seeds(const Position& p) {
#if defined(__SSE2__)
    static_assert(kMaxPits >= 16);
    __m128i v;
    std::memcpy(&v, p.pits.data(), sizeof v);
    v = _mm_and_si128(v, _mm_setr_epi32(-1, -1, -1, 0));
    const __m128i s = _mm_sad_epu8(v, _mm_setzero_si128());
    return _mm_cvtsi128_si32(s) + _mm_cvtsi128_si32(_mm_unpackhi_epi64(s, s));
#else
    return p.seeds_in(0, kPits);
#endif
  }
  // Reachable positions: the side that just moved (North, after the turn round)
  // has at least one empty pit (the start position excepted).
  IndexFilter index_filter(const ClassKey&) const override { return {kRow, kPits}; }

  Parents in_class_parents(const Position& p, std::vector<Position>& out) const override;
  bool has_unmoves() const override { return true; }
  int max_moves() const override { return pits() / 2; }  // a pit of the mover's side

  // Sows South's pit `pit` (non-empty) and captures; returns the capture.
  static int play(Position& p, int pit);
};

}  // namespace mancala
