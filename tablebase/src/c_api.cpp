// The C API: every entry point catches everything; errors become codes and a
// per-thread message.
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "mancala/mancala_probe.h"
#include "mancala/notation.h"
#include "mancala/probe.h"
#include "mancala/turn.h"
#include "mancala/version.h"

#include <array>
#include <bit>
#include <atomic>
#include <mutex>
#include <span>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

struct mtb_tables {
  std::shared_ptr<mancala::Tablebase> tb;
  // Variants named by mtb_variant (up to MTB_MAX_VARIANTS of them), or by the first word
  // of mtb_value's texts (up to kWords words): appended under mu, read without a lock
  // below count.
  static constexpr int kWords = 16;
  static constexpr std::size_t kSlots = MTB_MAX_VARIANTS + kWords;
  std::mutex mu;
  std::array<mancala::VariantPtr, kSlots> variants;
  // Their files in the folder, found once (the handle never refreshes the folder).
  std::array<const mancala::Tablebase::VariantTables*, kSlots> files{};
  // North to move given as numbers (mtb_value_pits), the pits as South sees them:
  // x[i] = pits[north[i]] (the variant's rotate, found once), where rotate keeps a
  // position without marks or flags free of them (north_plain); and the pits.
  std::array<std::array<std::uint8_t, mancala::kMaxPits>, kSlots> north{};
  std::array<bool, kSlots> north_plain{};
  // r where north[i] = (i + r) mod P (every game here: a board turned round by half),
  // else -1: North's empty pits are South's turned by r (short_value).
  std::array<int, kSlots> north_turn{};
  std::array<int, kSlots> pits{};
  std::array<mancala::GameKind, kSlots> kinds{};
  // The names of the plain sowing moves (Move bits below 32: a pit alone), made once
  // (a full probe named each of its moves anew: 3 % of its time), each as the first
  // MTB_MOVE_NAME bytes of a C move's name, padded with NULs (copied whole).
  // Null where a name would not fit (the move's name is then made at each probe).
  using SowNames = std::array<std::array<char, MTB_MOVE_NAME>, 32>;
  std::array<SowNames, kSlots> sow_names{};
  std::array<const SowNames*, kSlots> sow_names_if_short{};
  std::array<bool, kSlots> named{};  // named by mtb_variant (named_count of them)
  int named_count = 0;                // under mu
  std::atomic<int> count{0};
  // The first words of mtb_value's texts seen on this handle, each with its variant's
  // slot (-1: none left): mtb_value's shortest way reads such a word by comparing bytes
  // and a board of numbers after it by mtb_value_pits' ways. Appended under mu, read
  // without a lock below word_count; a word that names no variant is not kept.
  struct Word {
    std::array<char, 32> text{};
    std::size_t size = 0;
    int variant = -1;
  };
  std::array<Word, kWords> words{};
  std::atomic<int> word_count{0};
};

namespace {

thread_local std::string g_last_error;

mtb_error fail(mtb_error e, std::string msg) {
  g_last_error = std::move(msg);
  return e;
}

// The library's Error codes as the C API's (documented in mancala_probe.h).
mtb_error from_table_error(const mancala::Error& e) {
  using mancala::Error;
  switch (e.code) {
    case Error::InvalidArgument: return fail(MTB_ERR_ARGUMENT, e.message);
    case Error::BadPosition: return fail(MTB_ERR_POSITION, e.message);
    case Error::NotFound:
    case Error::MissingTable: return fail(MTB_ERR_NOT_FOUND, e.message);
    case Error::Corrupt:
    case Error::Mismatch: return fail(MTB_ERR_CORRUPT, e.message);
    case Error::Io: return fail(MTB_ERR_IO, e.message);
    case Error::TableTooSmall:
    case Error::Limit:
    case Error::Cancelled:
    case Error::OutOfMemory:
    case Error::Internal: break;
  }
  return fail(MTB_ERR_INTERNAL, e.message);
}

int c_value(mancala::GameKind k, mancala::Value v) {
  if (k == mancala::GameKind::Score) return v;
  return v > 0 ? 1 : v < 0 ? -1 : 0;
}

// Plies to the end of a win/loss game; a margin has no length: 0 (mancala_probe.h).
int c_plies(mancala::GameKind k, mancala::Value v) { return k == mancala::GameKind::Score ? 0 : mancala::plies_of(v); }

// The variant numbered `variant` by mtb_variant on this handle, or null (an
// MTB_ERR_ARGUMENT message set).
const mancala::Variant* variant_of(mtb_tables* tb, int variant, const char* fn) {
  if (variant < 0 || variant >= tb->count.load(std::memory_order_acquire)) {
    fail(MTB_ERR_ARGUMENT, std::string(fn) + ": not a variant of mtb_variant");
    return nullptr;
  }
  return tb->variants[static_cast<std::size_t>(variant)].get();
}

// A position given as numbers (mtb_value_pits) as a Position with South to move.
mtb_error position_of(const mancala::Variant& v, const int* pits, const int* marks, int side, const char* where,
                      mancala::Position& p) {
  if (side != 0 && side != 1) return fail(MTB_ERR_ARGUMENT, std::string(where) + "side must be 0 (South) or 1 (North)");
  p = mancala::Position{};
  const int n = v.pits();
  if (!marks) {  // an engine's board of numbers: every pit checked at once (no branch a pit)
    unsigned all = 0;  // a count outside 0..255 sets a bit above them
    for (int i = 0; i < n; ++i) {
      all |= static_cast<unsigned>(pits[i]);
      p.pits[static_cast<std::size_t>(i)] = static_cast<mancala::Seeds>(pits[i]);
    }
    if (all <= 255) {
      if (side == 1) p = v.rotate(p);
      return MTB_OK;
    }
  }
  for (int i = 0; i < n; ++i) {  // with marks, or to name the pit out of range
    if (pits[i] < 0 || pits[i] > 255)
      return fail(MTB_ERR_POSITION, std::string(where) + "pit " + std::to_string(i) + " holds " + std::to_string(pits[i]) + " seeds");
    p.pits[static_cast<std::size_t>(i)] = static_cast<mancala::Seeds>(pits[i]);
    if (marks) {
      if (marks[i] < 0 || marks[i] > 3)
        return fail(MTB_ERR_POSITION, std::string(where) + "pit " + std::to_string(i) + " has mark " + std::to_string(marks[i]));
      p.marks[static_cast<std::size_t>(i)] = static_cast<mancala::Mark>(marks[i]);
    }
  }
  if (marks)
    if (std::string err = v.check(p); !err.empty()) return fail(MTB_ERR_POSITION, where + err);
  if (side == 1) p = v.rotate(p);
  return MTB_OK;
}

// After the table refused position p with `e`: a position the tables do not index
// itself (a first move, Oware's start) is valued by its moves; else the error.
mtb_error value_by_moves(mtb_tables* tb, const mancala::Variant& v, const mancala::Position& p, const mancala::Error& e,
                         const char* where, int* value, int* plies) {
  if (e.code != mancala::TableError::BadPosition && e.code != mancala::TableError::NotFound) return from_table_error(e);
  if (std::string err = v.check(p); !err.empty()) return fail(MTB_ERR_POSITION, where + err);
  if (e.code == mancala::TableError::NotFound) return from_table_error(e);
  auto pr = tb->tb->probe(v, p);
  if (!pr) return from_table_error(pr.error());
  *value = c_value(v.kind(), pr->value);
  if (plies) *plies = c_plies(v.kind(), pr->value);
  return MTB_OK;
}

// Copies a string with its NUL into a fixed field; false if it does not fit.
template <std::size_t N>
bool put_text(char (&field)[N], const std::string& text) {
  if (text.size() >= N) return false;
  std::memcpy(field, text.c_str(), text.size() + 1);
  return true;
}

// One legal move as the C API's turn (mancala_probe.h, mtb_turn): the position after
// it, the gains, and whether the game is over after it with what the end adds.
mtb_error fill_turn(const mancala::ParsedPosition& pp, const mancala::Child& c, mtb_turn& t) {
  using namespace mancala;
  const Variant& v = *pp.variant;
  std::memset(&t, 0, sizeof t);
  const Side next_side = c.same_side ? pp.side : opposite(pp.side);
  if (!put_text(t.move, v.move_name(c.move)) ||
      (!c.game_over && !put_text(t.position, format_position(v, c.next, next_side))))
    return fail(MTB_ERR_INTERNAL, "a move name or a position is longer than the C API's fields");
  t.gain_mover = c.gain_mover;
  t.gain_opponent = c.gain_opponent;
  t.same_side = c.same_side ? 1 : 0;
  if (const std::optional<Value> worth = value_if_over(v, c)) {
    // What the move is worth, less what its gains already hold (score games).
    t.game_over = 1;
    t.end_value = c_value(v.kind(), *worth) - (v.kind() == GameKind::Score ? c.gain_mover - c.gain_opponent : 0);
  }
  return MTB_OK;
}

template <class F>
mtb_error guarded(F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return fail(MTB_ERR_INTERNAL, "out of memory");
  } catch (const std::exception& e) {
    return fail(MTB_ERR_INTERNAL, e.what());
  } catch (...) {
    return fail(MTB_ERR_INTERNAL, "unknown error");
  }
}

constexpr mtb_move kNoMove{};
constexpr mtb_ranked_move kNoRankedMove{};

// *out zeroed but its moves (probe_into writes those it lists whole).
void zero_result(mtb_result* out) {
  std::memset(out, 0, offsetof(mtb_result, moves));
  out->distances = 0;
  out->distance = 0;
}

// A full probe of p (South to move) into *out and, capacity >= 0, moves[0..*count):
// the body of mtb_probe, mtb_probe_moves and mtb_probe_pits (fn names the call in
// messages; sow_names, if not null, the names of v's plain sowing moves).
mtb_error probe_into(mtb_tables* tb, const mancala::Variant& v, const mancala::Tablebase::VariantTables* files,
                     const mancala::Position& p, const char* fn, mtb_result* out, mtb_ranked_move* moves, int capacity,
                     int* count, const mtb_tables::SowNames* sow_names = nullptr) {
  // Kept by the thread, their lists keep their room: no allocation a probe. Found from
  // the thread pointer (initial-exec: no call to __tls_get_addr, about 70 instructions
  // a probe; a few hundred bytes of the static TLS that glibc keeps for libraries
  // loaded later, as ctypes loads this one).
  [[gnu::tls_model("initial-exec")]] thread_local struct {
    mancala::ProbeResult result;
    mancala::Tablebase::Scratch scratch;
  } kept;
  mancala::ProbeResult* r = &kept.result;
  if (auto ok = tb->tb->probe(v, files, p, kept.result, kept.scratch); !ok) return from_table_error(ok.error());
  out->kind = v.kind() == mancala::GameKind::Score ? MTB_SCORE : MTB_WIN_LOSS;
  out->value = c_value(v.kind(), r->value);
  out->plies = c_plies(v.kind(), r->value);
  out->distances = r->distances ? 1 : 0;
  out->distance = r->distance;
  // The numbers of a move, the same in both forms of the moves.
  auto numbers = [&](const mancala::MoveValue& m, auto& cm) {
    cm.value = c_value(v.kind(), m.value);
    cm.gain_mover = m.child.gain_mover;
    cm.gain_opponent = m.child.gain_opponent;
    cm.distance = m.distance;
  };
  // Each move's name made once, for both forms; each move written whole (the caller
  // zeroed the result but its moves: 3 KiB of them). With too little room, only
  // out's moves, then the error.
  const std::size_t n = r->moves.size();
  const bool whole = capacity >= 0 && n <= static_cast<std::size_t>(capacity);
  for (std::size_t k = 0; k < n; ++k) {
    const mancala::MoveValue& m = r->moves[k];
    if (sow_names && m.move.bits() < 32) {  // a name made once, copied whole with its padding
      const char* name = (*sow_names)[m.move.bits()].data();
      if (k < MTB_MAX_MOVES) {
        mtb_move& cm = out->moves[out->move_count++];
        std::memcpy(cm.name, name, MTB_MOVE_NAME);
        numbers(m, cm);
      }
      if (whole) {
        mtb_ranked_move& cm = moves[k];
        static_assert(MTB_MOVE_TEXT > MTB_MOVE_NAME);
        std::memcpy(cm.move, name, MTB_MOVE_NAME);
        std::memset(cm.move + MTB_MOVE_NAME, 0, MTB_MOVE_TEXT - MTB_MOVE_NAME);
        numbers(m, cm);
      }
      continue;
    }
    const std::string name = v.move_name(m.move);
    if (k < MTB_MAX_MOVES) {
      mtb_move& cm = out->moves[out->move_count++];
      std::memcpy(&cm, &kNoMove, sizeof cm);  // moves of vectors (a memset's `rep stos` took 3 % of a probe)
      std::memcpy(cm.name, name.data(), std::min<std::size_t>(name.size(), MTB_MOVE_NAME - 1));
      numbers(m, cm);
    }
    if (whole) {
      mtb_ranked_move& cm = moves[k];
      std::memcpy(&cm, &kNoRankedMove, sizeof cm);
      if (!put_text(cm.move, name)) return fail(MTB_ERR_INTERNAL, std::string(fn) + ": a move name beyond MTB_MOVE_TEXT");
      numbers(m, cm);
    }
  }
  if (capacity < 0) return MTB_OK;
  *count = static_cast<int>(n);
  if (!whole)
    return fail(MTB_ERR_ARGUMENT, std::string(fn) + ": " + std::to_string(n) + " moves, room for " + std::to_string(capacity));
  return MTB_OK;
}

// mtb_value_pits' short way (Tablebase::plain_value): a board without marks, the pits
// as South sees them checked and summed in one pass, no Position made; nothing in it
// throws or allocates, so it runs before guarded(). False: the general way answers
// (or says why). An engine's hottest call: its instructions are kept few, so that one
// call's read from memory overlaps the next call's work (the processor's window holds
// a few hundred instructions). Loaded values are ranked from the ints where they lie
// (Tablebase::loaded_plain_value: no copy; kP, the pits when compiled, 12, unrolls its
// loops; North's pits read through north[]); else the pits are copied as bytes.
#if defined(__SSE2__)
constexpr bool kSse2 = true;
#else
constexpr bool kSse2 = false;
#endif
#if defined(__SSE2__)
// A board of 12 pits by three vectors of four: the OR of the counts (a count outside
// 0..255 sets a bit above them), their sum, and bit j set where pit j is empty.
struct Board12 {
  unsigned all;
  int seeds;
  unsigned empty;
};
// The same of 12 counts of one byte each, read in one vector of 16 bytes (the caller's
// array has at least 16: text_value's Position holds kMaxPits = 24).
[[gnu::always_inline]] inline Board12 board_12(const mancala::Seeds* pits) {
  static_assert(mancala::kMaxPits >= 16);
  const __m128i zero = _mm_setzero_si128();
  const __m128i a = _mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(pits)),
                                  _mm_set_epi32(0, -1, -1, -1));  // pits 0..11
  const __m128i sums = _mm_sad_epu8(a, zero);  // the two halves' sums in words 0 and 4
  return {0u, _mm_cvtsi128_si32(sums) + _mm_extract_epi16(sums, 4),
          static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(a, zero))) & 0xFFFu};
}
[[gnu::always_inline]] inline Board12 board_12(const int* pits) {
  const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(pits));
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(pits + 4));
  const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(pits + 8));
  __m128i o = _mm_or_si128(_mm_or_si128(a, b), c), t = _mm_add_epi32(_mm_add_epi32(a, b), c);
  o = _mm_or_si128(o, _mm_srli_si128(o, 8));
  t = _mm_add_epi32(t, _mm_srli_si128(t, 8));
  const __m128i zero = _mm_setzero_si128();
  const __m128i ab = _mm_packs_epi32(_mm_cmpeq_epi32(a, zero), _mm_cmpeq_epi32(b, zero));
  return {static_cast<unsigned>(_mm_cvtsi128_si32(_mm_or_si128(o, _mm_srli_si128(o, 4)))),
          _mm_cvtsi128_si32(_mm_add_epi32(t, _mm_srli_si128(t, 4))),
          static_cast<unsigned>(_mm_movemask_epi8(_mm_packs_epi16(ab, _mm_packs_epi32(_mm_cmpeq_epi32(c, zero), zero))))};
}
#endif
// The counts `pits` as numbers of an engine (int) or as text parses them (Seeds: a
// Position's array, at least 16 bytes readable).
template <int kP, class Count = int>
bool short_value_of(mtb_tables* tb, std::size_t k, const Count* pits, int side, int* value, int* plies) {
  const int P = kP ? kP : tb->pits[k];
  const std::uint8_t* from = tb->north[k].data();
  unsigned all = 0;    // a count outside 0..255 sets a bit above them
  int seeds = 0;       // the same sum and bits in either order
  unsigned empty = 0;  // bit j: pit j (South's or North's order) is empty
  bool found = false;  // empty found
  constexpr bool vector = kP == 12 && kSse2;
  if constexpr (vector) {  // three vectors of four pits (or one of 16 bytes): sum, bits and the empty ones
#if defined(__SSE2__)
    const Board12 x = board_12(pits);
    all = x.all;
    seeds = x.seeds;
    empty = x.empty;
    found = true;
    if (side) {  // North's pit j is South's pit j + r: bit j + r moves to bit j
      const int r = tb->north_turn[k];
      if (r > 0) empty = ((empty >> r) | (empty << (12 - r))) & 0xFFFu;
      found = r >= 0;
    }
#endif
  } else {
    for (int i = 0; i < P; ++i) {
      all |= static_cast<unsigned>(pits[i]);
      seeds += static_cast<int>(pits[i]);
    }
  }
  if (!found)
    for (int j = 0; j < P && j < 32; ++j) empty |= static_cast<unsigned>(pits[side ? from[j] : j] == 0) << j;
  if (all > 255) return false;
  const auto* files = tb->files[k];
  mancala::Value r = 0;
  if (!(side ? mancala::Tablebase::loaded_plain_value<kP>(files, [pits, from](int j) { return pits[from[j]]; }, empty, seeds, r)
             : mancala::Tablebase::loaded_plain_value<kP>(files, [pits](int j) { return pits[j]; }, empty, seeds, r))) {
    mancala::Seeds x[mancala::kMaxPits];
    for (int i = 0; i < P; ++i) x[i] = static_cast<mancala::Seeds>(pits[side ? from[i] : i]);
    if (!tb->tb->plain_value(files, x, seeds, r)) return false;
  }
  const mancala::GameKind kind = tb->kinds[k];
  *value = c_value(kind, r);
  if (plies) *plies = c_plies(kind, r);
  return true;
}
template <class Count>
inline bool short_value(mtb_tables* tb, int variant, const Count* pits, int side, int* value, int* plies) {
  if (!tb || !pits || !value || (side != 0 && side != 1) || variant < 0 || variant >= tb->count.load(std::memory_order_acquire))
    return false;
  const auto k = static_cast<std::size_t>(variant);
  if (side == 1 && !tb->north_plain[k]) return false;
  return tb->pits[k] == 12 ? short_value_of<12>(tb, k, pits, side, value, plies) : short_value_of<0>(tb, k, pits, side, value, plies);
}

// The slot of variant v on the handle, under tb->mu: the one that holds it, else a new
// one, filled (the files, North's pits, the move names), then published by count.
// `named`: for mtb_variant, which may name up to MTB_MAX_VARIANTS variants whatever the
// words of mtb_value took. -1 where no slot is left.
int slot_of(mtb_tables* tb, const mancala::VariantPtr& v, bool named) {
  const int n = tb->count.load(std::memory_order_relaxed);
  int id = 0;
  while (id < n && tb->variants[static_cast<std::size_t>(id)]->name() != v->name()) ++id;
  if (id == n && n == static_cast<int>(mtb_tables::kSlots)) return -1;
  const auto k = static_cast<std::size_t>(id);
  if (named && !(id < n && tb->named[k]) && tb->named_count == MTB_MAX_VARIANTS) return -1;
  if (id == n) {
    tb->variants[k] = v;
    tb->files[k] = tb->tb->files_of(*v);
    // Where rotate takes each pit: pits numbered 1..P, turned round.
    const int P = v->pits();
    mancala::Position q;
    for (int i = 0; i < P; ++i) q.pits[static_cast<std::size_t>(i)] = static_cast<mancala::Seeds>(i + 1);
    const mancala::Position r = v->rotate(q);
    bool plain = r.flags == 0 && r.jeppe == -1 && !r.has_marks(P);
    for (int i = 0; i < P && plain; ++i) {
      const int from = r.pits[static_cast<std::size_t>(i)] - 1;
      plain = from >= 0 && from < P;
      tb->north[k][static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(plain ? from : 0);
    }
    tb->north_plain[k] = plain;
    int turn = plain ? tb->north[k][0] : -1;
    for (int i = 0; i < P && turn >= 0; ++i)
      if (tb->north[k][static_cast<std::size_t>(i)] != (i + turn) % P) turn = -1;
    tb->north_turn[k] = turn;
    tb->pits[k] = P;
    tb->kinds[k] = v->kind();
    bool short_names = true;
    for (int i = 0; i < 32; ++i) {
      const std::string sow = v->move_name(mancala::Move::sow(i));  // "0".."31" in every game
      short_names = short_names && sow.size() < MTB_MOVE_NAME;
      std::memcpy(tb->sow_names[k][static_cast<std::size_t>(i)].data(), sow.data(),
                  std::min<std::size_t>(sow.size(), MTB_MOVE_NAME - 1));
    }
    tb->sow_names_if_short[k] = short_names ? &tb->sow_names[k] : nullptr;
    tb->count.store(n + 1, std::memory_order_release);
  }
  if (named && !tb->named[k]) {
    tb->named[k] = true;
    ++tb->named_count;
  }
  return id;
}

// The slot of the variant that the first word of a text names (`size` bytes at `word`),
// kept as one of the handle's words: -1 where the word names no variant, no word or
// slot is left, or memory runs out (mtb_value then goes the general way, which says why).
int word_slot(mtb_tables* tb, const char* word, std::size_t size) noexcept {
  try {
    auto v = mancala::make_variant(std::string_view(word, size));
    if (!v) return -1;
    std::lock_guard lock(tb->mu);
    const int words = tb->word_count.load(std::memory_order_relaxed);
    for (int k = 0; k < words; ++k) {  // another thread kept it meanwhile
      const mtb_tables::Word& w = tb->words[static_cast<std::size_t>(k)];
      if (w.size == size && std::memcmp(w.text.data(), word, size) == 0) return w.variant;
    }
    if (words == mtb_tables::kWords) return -1;
    mtb_tables::Word& w = tb->words[static_cast<std::size_t>(words)];
    std::memcpy(w.text.data(), word, size);
    w.size = size;
    w.variant = slot_of(tb, *v, false);
    tb->word_count.store(words + 1, std::memory_order_release);
    return w.variant;
  } catch (...) {
    return -1;
  }
}

// mtb_value's shortest way: a text "VARIANT PITS S|N" whose first word is one of the
// handle's words and whose pits are plain numbers (parse_plain_board) is the board of
// numbers of mtb_value_pits (South's pits as written, and the side): no variant built
// or looked up by name, no Position normalised, the value by mtb_value_pits' shortest
// ways. True with the value; false where it does not answer (mtb_value's general way
// then answers the same, or says why).
bool text_value(mtb_tables* tb, const char* text, int* value, int* plies) noexcept {
  std::size_t n = 0;  // the first word
  while (n < 32 && text[n] != ' ' && text[n] != '\0') ++n;
  if (n == 0 || n == 32 || text[n] != ' ') return false;
  int id = -1;
  const int words = tb->word_count.load(std::memory_order_acquire);
  bool seen = false;
  for (int k = 0; k < words && !seen; ++k) {
    const mtb_tables::Word& w = tb->words[static_cast<std::size_t>(k)];
    if (w.size == n && std::memcmp(w.text.data(), text, n) == 0) {
      seen = true;
      id = w.variant;
    }
  }
  if (!seen && words < mtb_tables::kWords) id = word_slot(tb, text, n);
  if (id < 0) return false;
  const auto k = static_cast<std::size_t>(id);
  mancala::Position a;
  mancala::Side side = mancala::Side::South;
  if (!mancala::parse_plain_board(*tb->variants[k], std::string_view(text + n), a, side)) return false;
  // mtb_value_pits' short way with the parsed counts as they are (no board of ints)
  return short_value(tb, id, a.pits.data(), side == mancala::Side::North, value, plies);
}

}  // namespace

extern "C" {

const char* mtb_version(void) { return MANCALA_VERSION_STRING; }

const char* mtb_error_string(mtb_error e) {
  switch (e) {
    case MTB_OK: return "ok";
    case MTB_ERR_ARGUMENT: return "bad argument";
    case MTB_ERR_POSITION: return "bad position";
    case MTB_ERR_NOT_FOUND: return "not found";
    case MTB_ERR_CORRUPT: return "corrupt table";
    case MTB_ERR_IO: return "i/o error";
    case MTB_ERR_INTERNAL: return "internal error";
    case MTB_ERR_MOVE: return "illegal move";
  }
  return "unknown error code";
}

const char* mtb_last_error(const mtb_tables*) { return g_last_error.c_str(); }

mtb_error mtb_open(const char* dir, mtb_tables** out) {
  return guarded([&] {
    if (!dir || !out) return fail(MTB_ERR_ARGUMENT, "mtb_open: NULL argument");
    *out = nullptr;
    auto tb = mancala::Tablebase::open(dir);
    if (!tb) return from_table_error(tb.error());
    *out = new mtb_tables;
    (*out)->tb = *tb;
    return MTB_OK;
  });
}

void mtb_close(mtb_tables* tb) {
  try {
    delete tb;
  } catch (...) {
  }
}

mtb_error mtb_probe(mtb_tables* tb, const char* position, mtb_result* out) {
  return mtb_probe_moves(tb, position, out, nullptr, -1, nullptr);
}

// capacity -1: mtb_probe (no whole moves asked).
mtb_error mtb_probe_moves(mtb_tables* tb, const char* position, mtb_result* out, mtb_ranked_move* moves, int capacity,
                          int* count) {
  const char* fn = capacity < 0 ? "mtb_probe" : "mtb_probe_moves";
  return guarded([&] {
    if (!tb || !position || !out || (capacity >= 0 && !count) || (capacity > 0 && !moves))
      return fail(MTB_ERR_ARGUMENT, std::string(fn) + ": NULL argument");
    zero_result(out);
    auto pp = mancala::parse_position_ref(position);
    if (!pp) return fail(MTB_ERR_POSITION, pp.error().message);
    return probe_into(tb, *pp->variant, tb->tb->files_of(*pp->variant), pp->position, fn, out, moves, capacity, count);
  });
}

mtb_error mtb_probe_pits(mtb_tables* tb, int variant, const int* pits, const int* marks, int side, mtb_result* out,
                         mtb_ranked_move* moves, int capacity, int* count) {
  return guarded([&] {
    if (!tb || !pits || !out || capacity < 0 || !count || (capacity > 0 && !moves))
      return fail(MTB_ERR_ARGUMENT, capacity < 0 ? "mtb_probe_pits: capacity " + std::to_string(capacity) + " below 0"
                                                 : std::string("mtb_probe_pits: NULL argument"));
    zero_result(out);
    const mancala::Variant* v = variant_of(tb, variant, "mtb_probe_pits");
    if (!v) return MTB_ERR_ARGUMENT;
    mancala::Position p;
    if (mtb_error e = position_of(*v, pits, marks, side, "mtb_probe_pits: ", p); e != MTB_OK) return e;
    return probe_into(tb, *v, tb->files[static_cast<std::size_t>(variant)], p, "mtb_probe_pits", out, moves, capacity,
                      count, tb->sow_names_if_short[static_cast<std::size_t>(variant)]);
  });
}

mtb_error mtb_value(mtb_tables* tb, const char* position, int* value, int* plies) {
  if (tb && position && value && text_value(tb, position, value, plies)) return MTB_OK;
  return guarded([&] {
    if (!tb || !position || !value) return fail(MTB_ERR_ARGUMENT, "mtb_value: NULL argument");
    auto pp = mancala::parse_position_ref(position);
    if (!pp) return fail(MTB_ERR_POSITION, pp.error().message);
    const auto& v = *pp->variant;
    auto r = tb->tb->value(v, pp->position);
    if (!r) {
      // Not indexed itself (a first move, Oware's start): value it from its moves.
      if (r.error().code != mancala::TableError::BadPosition) return from_table_error(r.error());
      auto pr = tb->tb->probe(v, pp->position);
      if (!pr) return from_table_error(pr.error());
      r = pr->value;
    }
    *value = c_value(v.kind(), *r);
    if (plies) *plies = c_plies(v.kind(), *r);
    return MTB_OK;
  });
}

mtb_error mtb_moves(const char* position, mtb_turn* turns, int capacity, int* count) {
  return guarded([&] {
    if (!position || !count || capacity < 0 || (!turns && capacity > 0))
      return fail(MTB_ERR_ARGUMENT, "mtb_moves: NULL argument or negative capacity");
    *count = 0;
    auto pp = mancala::parse_position(position);
    if (!pp) return fail(MTB_ERR_POSITION, pp.error().message);
    std::vector<mancala::Child> kids;
    pp->variant->children(pp->position, kids);
    if (kids.size() > static_cast<std::size_t>(INT_MAX)) return fail(MTB_ERR_INTERNAL, "mtb_moves: too many moves");
    *count = static_cast<int>(kids.size());
    if (!turns) return MTB_OK;  // the count only
    if (*count > capacity)
      return fail(MTB_ERR_ARGUMENT, "mtb_moves: " + std::to_string(*count) + " legal moves, room for " +
                                        std::to_string(capacity));
    for (std::size_t i = 0; i < kids.size(); ++i)
      if (const mtb_error e = fill_turn(*pp, kids[i], turns[i]); e != MTB_OK) return e;
    return MTB_OK;
  });
}

mtb_error mtb_variant(mtb_tables* tb, const char* name, int* variant, int* pits) {
  return guarded([&] {
    if (!tb || !name || !variant) return fail(MTB_ERR_ARGUMENT, "mtb_variant: NULL argument");
    auto v = mancala::make_variant(name);
    if (!v) return fail(MTB_ERR_ARGUMENT, v.error().message);
    std::lock_guard lock(tb->mu);
    const int id = slot_of(tb, *v, true);
    if (id < 0) return fail(MTB_ERR_ARGUMENT, "mtb_variant: more than MTB_MAX_VARIANTS variants");
    *variant = id;
    if (pits) *pits = tb->variants[static_cast<std::size_t>(id)]->pits();
    return MTB_OK;
  });
}

mtb_error mtb_play(const char* position, const char* move, mtb_turn* out) {
  return guarded([&] {
    if (!position || !move || !out) return fail(MTB_ERR_ARGUMENT, "mtb_play: NULL argument");
    auto pp = mancala::parse_position(position);
    if (!pp) return fail(MTB_ERR_POSITION, pp.error().message);
    const mancala::Variant& v = *pp->variant;
    std::vector<mancala::Child> kids;
    v.children(pp->position, kids);
    for (const mancala::Child& c : kids)
      if (v.move_name(c.move) == move) return fill_turn(*pp, c, *out);
    if (kids.empty()) return fail(MTB_ERR_MOVE, std::string("mtb_play: the game is over in ") + position);
    return fail(MTB_ERR_MOVE, std::string("mtb_play: '") + move + "' is not a legal move of " + position);
  });
}

namespace {
// mtb_value_pits' general way, apart: the short way's caller sets up no frame for it.
[[gnu::noinline]] mtb_error value_pits_general(mtb_tables* tb, int variant, const int* pits, const int* marks, int side,
                                               int* value, int* plies) {
  return guarded([&] {
    if (!tb || !pits || !value) return fail(MTB_ERR_ARGUMENT, "mtb_value_pits: NULL argument");
    const mancala::Variant* v = variant_of(tb, variant, "mtb_value_pits");
    if (!v) return MTB_ERR_ARGUMENT;
    mancala::Position p;
    if (mtb_error e = position_of(*v, pits, marks, side, "mtb_value_pits: ", p); e != MTB_OK) return e;
    const auto k = static_cast<std::size_t>(variant);
    auto r = tb->tb->value(*v, tb->files[k], p);
    if (!r) return value_by_moves(tb, *v, p, r.error(), "mtb_value_pits: ", value, plies);
    *value = c_value(v->kind(), *r);
    if (plies) *plies = c_plies(v->kind(), *r);
    return MTB_OK;
  });
}
// Every way of mtb_value_pits but the shortest (below), apart: the shortest sets up no
// frame for them.
[[gnu::noinline]] mtb_error value_pits_short_or_general(mtb_tables* tb, int variant, const int* pits, const int* marks,
                                                        int side, int* value, int* plies) {
  if (!marks && short_value(tb, variant, pits, side, value, plies)) return MTB_OK;
  return value_pits_general(tb, variant, pits, marks, side, value, plies);
}

#if defined(__SSE2__)
// mtb_value_pits' shortest way: a board of 12 pits whose class is loaded, South's pits
// or North's (kNorth: the board turned by half, North's pit j is pits[(j + 6) % 12]).
// The sum, the range check and the empty pits by board_12, then the loaded value
// (LoadedPlain::value<12>, the read every loaded way shares: the rank's rows at a
// fixed stride, one load a pit): 142 instructions a call (callgrind, results/probe.md,
// session 38), where short_value takes about 180, so that more calls fit in the
// processor's window and their reads from memory overlap (session 36). False where it does
// not answer (short_value then answers, or says why): the same rank, the same value.
extern "C++" {  // (a template, inside extern "C")
template <bool kNorth>
[[gnu::always_inline]] inline bool value_of_12(const mancala::Tablebase::LoadedPlain& lp, const int* pits,
                                               mancala::GameKind kind, int* value, int* plies) {
  const Board12 x = board_12(pits);
  if (x.all > 255) return false;  // (all <= 255: no pit below 0)
  unsigned empty = x.empty;
  if constexpr (kNorth) empty = ((empty >> 6) | (empty << 6)) & 0xFFFu;
  mancala::Value v;
  if (!lp.value<12>([pits](int j) { return pits[kNorth ? (j + 6) % 12 : j]; }, empty, x.seeds, v)) return false;
  *value = c_value(kind, v);
  if (plies) *plies = c_plies(kind, v);
  return true;
}
}
#endif


}  // namespace

mtb_error mtb_value_pits(mtb_tables* tb, int variant, const int* pits, const int* marks, int side, int* value, int* plies) {
#if defined(__SSE2__)
  if (!marks && tb && pits && value && variant >= 0 && variant < tb->count.load(std::memory_order_acquire)) {
    const auto k = static_cast<std::size_t>(variant);
    const auto* files = tb->files[k];
    const mancala::Tablebase::LoadedPlain* lp = files ? files->loaded_plain.load(std::memory_order_acquire) : nullptr;
    if (lp && lp->rank->unrolls(12)) {
      const mancala::GameKind kind = tb->kinds[k];
      if (side == 0 ? value_of_12<false>(*lp, pits, kind, value, plies)
                    : side == 1 && tb->north_turn[k] == 6 && value_of_12<true>(*lp, pits, kind, value, plies))
        return MTB_OK;
    }
  }
#endif
  return value_pits_short_or_general(tb, variant, pits, marks, side, value, plies);
}

mtb_error mtb_load(mtb_tables* tb, int variant, size_t max_bytes, size_t* bytes, int* left) {
  return guarded([&] {
    if (!tb) return fail(MTB_ERR_ARGUMENT, "mtb_load: NULL argument");
    const mancala::Variant* v = variant_of(tb, variant, "mtb_load");
    if (!v) return MTB_ERR_ARGUMENT;
    auto r = tb->tb->load(*v, max_bytes);
    if (!r) return from_table_error(r.error());
    if (bytes) *bytes = r->bytes;
    if (left) *left = r->left;
    return MTB_OK;
  });
}

mtb_error mtb_values_pits(mtb_tables* tb, int variant, int count, const int* pits, const int* marks, const int* sides,
                          int* values, int* plies) {
  return guarded([&] {
    if (!tb || (count > 0 && (!pits || !values))) return fail(MTB_ERR_ARGUMENT, "mtb_values_pits: NULL argument");
    if (count < 0) return fail(MTB_ERR_ARGUMENT, "mtb_values_pits: count " + std::to_string(count) + " below 0");
    const mancala::Variant* v = variant_of(tb, variant, "mtb_values_pits");
    if (!v) return MTB_ERR_ARGUMENT;
    const std::size_t P = static_cast<std::size_t>(v->pits());
    // A group at a time: the positions in numbers become Positions, then one batch.
    constexpr std::size_t kGroup = 4 * mancala::Tablebase::kBatch;
    std::array<mancala::Position, kGroup> ps;
    std::array<mancala::Value, kGroup> out;
    for (std::size_t g = 0; g < static_cast<std::size_t>(count); g += kGroup) {
      const std::size_t n = std::min(kGroup, static_cast<std::size_t>(count) - g);
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t at = g + k;
        if (mtb_error e = position_of(*v, pits + at * P, marks ? marks + at * P : nullptr, sides ? sides[at] : 0, "", ps[k]);
            e != MTB_OK)
          return fail(e, "mtb_values_pits: position " + std::to_string(at) + ": " + g_last_error);
      }
      for (std::size_t done = 0; done < n;) {
        std::size_t failed = n;
        auto ok = tb->tb->values(*v, std::span(ps).subspan(done, n - done), std::span(out).subspan(done), &failed);
        const std::size_t upto = ok ? n : done + failed;
        for (std::size_t k = done; k < upto; ++k) {
          values[g + k] = c_value(v->kind(), out[k]);
          if (plies) plies[g + k] = c_plies(v->kind(), out[k]);
        }
        if (ok) break;
        // Not indexed itself (a first move, Oware's start): by its moves, then go on.
        if (mtb_error e = value_by_moves(tb, *v, ps[upto], ok.error(), "", values + g + upto,
                                         plies ? plies + g + upto : nullptr);
            e != MTB_OK)
          return fail(e, "mtb_values_pits: position " + std::to_string(g + upto) + ": " + g_last_error);
        done = upto + 1;
      }
    }
    return MTB_OK;
  });
}

}  // extern "C"
