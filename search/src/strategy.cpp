// Strategy proofs for win/loss games (see strategy.h).
#include "mancala/strategy.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

namespace mancala {

namespace {

using Clock = std::chrono::steady_clock;

// A position and whether the defender is to move, in 128 bits.
// Layout, from bit 0: per pit its seeds as that many 1 bits and a 0 bit; then 2 bits of
// Mark per pit; then the 8 flag bits; then 1 bit "defender to move".
// Example (Imbelece, 16 pits, 1 seed each, first move, defender to move): bits 0..31
// are 16 times "10", bits 32..63 the 16 marks (0), bits 64..71 the flags (kFirstMove),
// bit 72 = 1.
struct Key {
  std::uint64_t w[2] = {0, 0};
  friend bool operator==(const Key&, const Key&) = default;
};

class KeyCodec {
 public:
  explicit KeyCodec(int pits) : pits_(pits) {}

  // False when the position needs more than 128 bits.
  bool encode(const Position& p, bool defender, Key& k) const {
    k = Key{};
    int at = 0;
    for (int i = 0; i < pits_; ++i) {
      const int s = p.pits[static_cast<std::size_t>(i)];
      if (at + s + 1 > 128) return false;
      for (int j = 0; j < s; ++j) set(k, at++);
      ++at;
    }
    if (at + 2 * pits_ + 9 > 128) return false;
    for (int i = 0; i < pits_; ++i, at += 2) put(k, at, static_cast<unsigned>(p.marks[static_cast<std::size_t>(i)]), 2);
    put(k, at, p.flags, 8);
    at += 8;
    if (defender) set(k, at);
    return true;
  }

  Position decode(const Key& k, bool& defender) const {
    Position p;
    int at = 0;
    for (int i = 0; i < pits_; ++i) {
      int s = 0;
      while (get(k, at)) ++s, ++at;
      ++at;
      p.pits[static_cast<std::size_t>(i)] = static_cast<Seeds>(s);
    }
    for (int i = 0; i < pits_; ++i, at += 2)
      p.marks[static_cast<std::size_t>(i)] = static_cast<Mark>(get(k, at) | (get(k, at + 1) << 1));
    for (int b = 0; b < 8; ++b) p.flags = static_cast<std::uint8_t>(p.flags | (get(k, at + b) << b));
    defender = get(k, at + 8) != 0;
    return p;
  }

 private:
  static void set(Key& k, int at) { k.w[at >> 6] |= 1ull << (at & 63); }
  static unsigned get(const Key& k, int at) { return static_cast<unsigned>((k.w[at >> 6] >> (at & 63)) & 1u); }
  static void put(Key& k, int at, unsigned bits, int n) {
    for (int b = 0; b < n; ++b)
      if ((bits >> b) & 1u) set(k, at + b);
  }
  int pits_;
};

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

struct FreeDeleter {
  void operator()(void* p) const noexcept { std::free(p); }
};

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
enum : std::uint8_t { kExpanded = 1, kAttr = 2, kDefender = 4, kQueued = 8, kSeen = 16 };
// keys 16 + head 4 + chosen 4 + state 1 + 1.5 hash slots of 4 + about 2 parent links of 8
constexpr std::uint64_t kBytesPerPosition = 16 + 4 + 4 + 1 + 6 + 16;

class SafetyGame {
 public:
  SafetyGame(VariantPtr v, SafetyOptions o) : v_(std::move(v)), opt_(std::move(o)), codec_(v_->pits()) {
    cap_ = std::clamp<std::uint64_t>(opt_.memory_bytes / kBytesPerPosition, 1024, kNone - 1);
    std::uint64_t slots = 1;
    while (slots < cap_ + cap_ / 2) slots <<= 1;
    mask_ = slots - 1;
    // calloc: the pages of the slot array are touched only when used.
    slots_.reset(static_cast<std::uint32_t*>(std::calloc(slots, sizeof(std::uint32_t))));
    if (!slots_) fail(Error::OutOfMemory, "out of memory for the strategy proof's hash slots");
    keys_.reserve(std::min<std::uint64_t>(cap_, 1u << 20));
    start_ = Clock::now();
  }

  // Errors come back from the loop below through error_ (set once, then every step
  // returns): no exceptions for control flow.
  Result<SafetyResult> run(const Position& p, bool defender_is_mover) {
    if (error_) return std::unexpected(*error_);
    Key k;
    if (!codec_.encode(p, defender_is_mover, k)) return std::unexpected(too_many_seeds());
    bool created = false;
    const std::uint32_t root = find_or_create(k, created);
    if (root == kNone) return std::unexpected(*error_);
    if (defender_is_mover) state_[root] = kDefender;
    queue(root);
    while (!(state_[root] & kAttr) && !error_) {
      if (!rechoose_.empty()) {
        const std::uint32_t u = rechoose_.back();
        rechoose_.pop_back();
        if ((state_[u] & kAttr) || !(state_[chosen_[u]] & kAttr)) continue;
        bool defender = false;
        const Position pos = codec_.decode(keys_[u], defender);
        v_->children(pos, kids_);
        choose(u);
        ++rechosen_;
        continue;
      }
      if (pending_.empty()) break;
      const std::uint32_t u = pending_.back();
      pending_.pop_back();
      state_[u] = static_cast<std::uint8_t>(state_[u] & ~kQueued);
      if (state_[u] & kExpanded) continue;
      if (u != root && !wanted(u)) {  // queued again if a new parent wants it
        ++skipped_;
        continue;
      }
      expand(u);
    }
    if (error_) return std::unexpected(*error_);
    SafetyResult r;
    r.outcome = (state_[root] & kAttr) ? SafetyResult::Lost : SafetyResult::Safe;
    if (r.outcome == SafetyResult::Safe) {
      const auto certificate = check_certificate(root);
      if (!certificate) return fail_with(Error::Internal, "internal error: the strategy proof's certificate did not check");
      r.certificate = *certificate;
    }
    r.positions = keys_.size();
    r.expanded = expanded_;
    r.rechosen = rechosen_;
    r.attractor = attractor_;
    r.skipped = skipped_;
    r.seconds = seconds();
    return r;
  }

 private:
  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  void fail(Error::Code code, std::string message) {
    if (!error_) error_ = Error{code, std::move(message)};
  }
  static Error too_many_seeds() {
    return Error{Error::BadPosition, "too many seeds for the strategy proof's 128-bit key"};
  }

  std::uint32_t find(const Key& k) const {
    for (std::uint64_t h = hash(k) & mask_;; h = (h + 1) & mask_) {
      const std::uint32_t s = slots_.get()[h];
      if (s == 0) return kNone;
      if (keys_[s - 1] == k) return s - 1;
    }
  }

  std::uint32_t find_or_create(const Key& k, bool& created) {
    std::uint64_t h = hash(k) & mask_;
    for (;; h = (h + 1) & mask_) {
      const std::uint32_t s = slots_.get()[h];
      if (s == 0) break;
      if (keys_[s - 1] == k) {
        created = false;
        return s - 1;
      }
    }
    if (keys_.size() >= cap_ || bytes() > opt_.memory_bytes) {
      fail(Error::TableTooSmall, "the strategy proof outgrew its memory");
      return kNone;
    }
    const auto id = static_cast<std::uint32_t>(keys_.size());
    keys_.push_back(k);
    head_.push_back(kNone);
    chosen_.push_back(kNone);
    state_.push_back(0);  // the caller sets kDefender
    slots_.get()[h] = id + 1;
    created = true;
    return id;
  }

  std::uint64_t bytes() const {
    return keys_.capacity() * (sizeof(Key) + 9) + (mask_ + 1) * 4 + eparent_.capacity() * 8 +
           (pending_.capacity() + rechoose_.capacity()) * 4;
  }

  static std::uint64_t hash(const Key& k) { return mix(k.w[0] ^ mix(k.w[1] + 0x9e3779b97f4a7c15ull)); }

  void link(std::uint32_t child, std::uint32_t parent) {
    eparent_.push_back(parent);
    enext_.push_back(head_[child]);
    head_[child] = static_cast<std::uint32_t>(eparent_.size() - 1);
  }

  // Whether some parent still needs u: an attacker parent not in A, or a defender
  // parent whose strategy move leads to u. A position reached only from positions
  // already lost for the defender, or from strategy moves since made again, is left
  // unexpanded (a later link queues it again).
  bool wanted(std::uint32_t u) const {
    for (std::uint32_t e = head_[u]; e != kNone; e = enext_[e]) {
      const std::uint32_t p = eparent_[e];
      if (state_[p] & kAttr) continue;
      if (!(state_[p] & kDefender) || chosen_[p] == u) return true;
    }
    return false;
  }

  void queue(std::uint32_t id) {
    if (state_[id] & (kExpanded | kQueued)) return;
    state_[id] |= kQueued;
    pending_.push_back(id);
  }

  void enter_attr(std::uint32_t x) {
    state_[x] |= kAttr;
    ++attractor_;
    work_.push_back(x);
    while (!work_.empty()) {
      const std::uint32_t y = work_.back();
      work_.pop_back();
      for (std::uint32_t e = head_[y]; e != kNone; e = enext_[e]) {
        const std::uint32_t p = eparent_[e];
        if (state_[p] & kAttr) continue;
        if (state_[p] & kDefender) {
          if (chosen_[p] == y) rechoose_.push_back(p);  // its strategy move is lost now
        } else {
          state_[p] |= kAttr;  // the attacker has a winning move
          ++attractor_;
          work_.push_back(p);
        }
      }
    }
  }

  void expand(std::uint32_t u) {
    if (!tick()) return;
    bool defender = false;
    const Position pos = codec_.decode(keys_[u], defender);
    v_->children(pos, kids_);
    state_[u] |= kExpanded;
    ++expanded_;
    if (defender) {
      choose(u);
      return;
    }
    for (const Child& c : kids_) {  // the attacker: every move
      const std::uint32_t id = child_id(c, false);
      if (id == kNone) return;  // error_ is set
      link(id, u);
      if (state_[id] & kAttr) {
        enter_attr(u);
        return;
      }
      queue(id);
    }
  }

  // The defender position u (kids_ = its moves) picks its strategy move: a move into
  // a position of the graph not in A, else the new position leaving the attacker the
  // fewest moves. No move left outside A: u enters A.
  void choose(std::uint32_t u) {
    int best = -1;
    int best_score = std::numeric_limits<int>::max();
    for (std::size_t i = 0; i < kids_.size(); ++i) {
      const Child& c = kids_[i];
      Key k;
      if (!codec_.encode(c.next, c.same_side, k)) {
        error_ = too_many_seeds();
        return;
      }
      const std::uint32_t id = find(k);
      int score = 0;
      if (id != kNone) {
        if (state_[id] & kAttr) continue;
        score = (state_[id] & kExpanded) ? 0 : 1;
      } else {
        v_->children(c.next, probe_);
        score = 2 + static_cast<int>(probe_.size());
      }
      if (score < best_score) {
        best_score = score;
        best = static_cast<int>(i);
      }
    }
    if (best < 0) {
      enter_attr(u);
      return;
    }
    const std::uint32_t id = child_id(kids_[static_cast<std::size_t>(best)], true);
    if (id == kNone) return;  // error_ is set
    chosen_[u] = id;
    link(id, u);
    queue(id);
  }

  // The node of a child of a position whose mover is (defender_moves ? defender : attacker).
  std::uint32_t child_id(const Child& c, bool defender_moves) {
    const bool defender_next = c.same_side ? defender_moves : !defender_moves;
    Key k;
    if (!codec_.encode(c.next, defender_next, k)) {
      if (!error_) error_ = too_many_seeds();
      return kNone;
    }
    bool created = false;
    const std::uint32_t id = find_or_create(k, created);
    if (created && id != kNone) state_[id] = defender_next ? kDefender : 0;
    return id;
  }

  // False once the budget is spent (error_ set); polled every 2^20 expansions.
  bool tick() {
    if ((expanded_ & 0xFFFFF) != 0) return true;
    if (auto stop = opt_.budget.stop_code()) {
      if (*stop == Error::Cancelled) fail(Error::Cancelled, "strategy proof: cancelled");
      else fail(Error::Limit, "the time limit stopped the strategy proof");
      return false;
    }
    const double s = seconds();
    if (opt_.progress) opt_.progress(SafetyProgress{keys_.size(), expanded_, pending_.size(), attractor_, rechosen_, s});
    return true;
  }

  // Walks the certificate from the root with the rules: every position reached by the
  // strategy's moves and all attacker moves is expanded, outside A, and closed.
  // The certificate's size, or nothing when it does not check (a bug).
  std::optional<std::uint64_t> check_certificate(std::uint32_t root) {
    std::uint64_t n = 0;
    std::vector<std::uint32_t> stack = {root};
    std::vector<Child> kids;
    while (!stack.empty()) {
      const std::uint32_t u = stack.back();
      stack.pop_back();
      if (state_[u] & kSeen) continue;
      state_[u] |= kSeen;
      ++n;
      if ((state_[u] & kAttr) || !(state_[u] & kExpanded)) return std::nullopt;
      bool defender = false;
      const Position pos = codec_.decode(keys_[u], defender);
      v_->children(pos, kids);
      if (defender) {
        bool legal = false;
        for (const Child& c : kids) {
          Key k;
          legal = legal || (codec_.encode(c.next, c.same_side, k) && find(k) == chosen_[u]);
        }
        if (!legal) return std::nullopt;
        stack.push_back(chosen_[u]);
      } else {
        for (const Child& c : kids) {
          Key k;
          if (!codec_.encode(c.next, !c.same_side, k)) return std::nullopt;
          const std::uint32_t id = find(k);
          if (id == kNone) return std::nullopt;
          stack.push_back(id);
        }
      }
    }
    return n;
  }

  VariantPtr v_;
  SafetyOptions opt_;
  KeyCodec codec_;
  std::uint64_t cap_ = 0, mask_ = 0;
  std::unique_ptr<std::uint32_t, FreeDeleter> slots_;
  std::vector<Key> keys_;
  std::vector<std::uint32_t> head_, chosen_;
  std::vector<std::uint8_t> state_;
  std::vector<std::uint32_t> eparent_, enext_;
  std::vector<std::uint32_t> pending_, rechoose_, work_;
  std::vector<Child> kids_, probe_;
  std::optional<Error> error_;
  std::uint64_t expanded_ = 0, rechosen_ = 0, attractor_ = 0, skipped_ = 0;
  Clock::time_point start_;
};

}  // namespace

std::expected<SafetyResult, SearchError> prove_safe(VariantPtr v, const Position& p, bool defender_is_mover,
                                                   SafetyOptions options) {
  if (v->kind() != GameKind::WinLoss)
    return std::unexpected(SearchError{SearchError::BadPosition, v->name() + " is scored by seeds, not won or lost"});
  if (const std::string e = v->check(p); !e.empty()) return std::unexpected(SearchError{SearchError::BadPosition, e});
  if (v->pits() + v->total_seeds() + 2 * v->pits() + 9 > 128)
    return std::unexpected(SearchError{SearchError::BadPosition,
                                       v->name() + ": too many pits and seeds for the strategy proof's 128-bit key"});
  try {
    SafetyGame game(v, std::move(options));
    return game.run(p, defender_is_mover);
  } catch (const std::bad_alloc&) {  // the allocator's own exception (the graph's vectors)
    return fail_with(Error::OutOfMemory, "out of memory in the strategy proof");
  }
}

std::expected<WinLossDecision, SearchError> decide_win_loss(VariantPtr v, const Position& p, SafetyOptions options) {
  WinLossDecision d;
  auto mover = prove_safe(v, p, true, options);
  if (!mover) return std::unexpected(mover.error());
  d.mover = *mover;
  if (mover->outcome == SafetyResult::Lost) {
    d.outcome = WinLossDecision::Loss;
    return d;
  }
  auto opponent = prove_safe(v, p, false, options);
  if (!opponent) return std::unexpected(opponent.error());
  d.opponent = *opponent;
  d.outcome = opponent->outcome == SafetyResult::Lost ? WinLossDecision::Win : WinLossDecision::Draw;
  return d;
}

}  // namespace mancala
