// Writing table files (format.h's layout): the Huffman code of a table, its blocks,
// the atomic replace and the folder lock. Generation only (table_writer.h).
#include "mancala/table_writer.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

#include "mancala/version.h"

namespace mancala {

namespace fs = std::filesystem;

std::string encode_position_list(const std::vector<Index>& ranks) {
  std::string raw;
  Index prev = 0;
  for (const Index r : ranks) {
    Index d = r - prev;
    prev = r;
    do {
      raw += static_cast<char>((d & 0x7F) | (d > 0x7F ? 0x80 : 0));
      d >>= 7;
    } while (d);
  }
  return raw;
}

namespace {

TableError io_error(const fs::path& p, const std::string& what, int err = errno) {
  return TableError{TableError::Io, p.string() + ": " + what + ": " + std::strerror(err)};
}

// Writes all of `s` to fd.
bool write_all(int fd, const std::string& s) {
  std::size_t off = 0;
  while (off < s.size()) {
    const ssize_t w = ::write(fd, s.data() + off, s.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = EIO;
      return false;
    }
    off += static_cast<std::size_t>(w);
  }
  return true;
}

// ---- The code of a table (format.h): k-value tuples, canonical Huffman --------

// A map from a tuple (its k entries packed in a u64, entry j at bits 8 W j) to a
// count or a symbol number: open addressing, no allocation per entry.
class TupleMap {
 public:
  TupleMap() { slots_.resize(1u << 10); }
  std::uint64_t& operator[](std::uint64_t key) {
    for (std::size_t i = slot(key);; i = (i + 1) & (slots_.size() - 1)) {
      Slot& s = slots_[i];
      if (!s.used) {
        if (2 * (used_ + 1) > slots_.size()) {
          grow();
          return (*this)[key];
        }
        s = Slot{key, 0, true};
        ++used_;
        return s.count;
      }
      if (s.key == key) return s.count;
    }
  }
  // The number of a key that is present.
  std::uint64_t get(std::uint64_t key) const {
    std::size_t i = slot(key);
    while (slots_[i].key != key || !slots_[i].used) i = (i + 1) & (slots_.size() - 1);
    return slots_[i].count;
  }
  std::size_t size() const { return used_; }
  template <class F>
  void each(F f) const {
    for (const Slot& s : slots_)
      if (s.used) f(s.key, s.count);
  }

 private:
  struct Slot {
    std::uint64_t key = 0, count = 0;
    bool used = false;
  };
  std::size_t slot(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 40) & (slots_.size() - 1);
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    used_ = 0;
    for (const Slot& s : old)
      if (s.used) (*this)[s.key] = s.count;
  }
  std::vector<Slot> slots_;
  std::size_t used_ = 0;
};

// The entries of a range of a table's values (W bytes each) and their tuples: the
// values, or with `shifted` (W = 1) each value less its unit's shift (unit_shift), the
// numbers a shifted code codes.
struct Entries {
  explicit Entries(const ValueRange& range, bool shift = false, const std::uint8_t* known_shifts = nullptr)
      : r(range), shifted(shift), shifts(known_shifts) {}
  const ValueRange& r;
  bool shifted = false;
  const std::uint8_t* shifts = nullptr;  // when known: the shift of the range's unit u at shifts[u - r.first / U]
  std::uint64_t value(std::uint64_t i) const {
    if (i >= r.total) i = r.total - 1;  // the last tuple is padded with the last value
    const std::uint8_t* p = r.bytes + (i - r.first) * r.width;
    return r.width == 1 ? p[0] : static_cast<std::uint64_t>(p[0] | p[1] << 8);
  }
  std::uint64_t at(std::uint64_t i) const {
    if (!shifted) return value(i);
    return static_cast<std::uint8_t>(value(i) - unit_shift(std::min(i, r.total - 1) / kDefaultUnitPositions));
  }
  // f(i - p0, at(i)) for the entries [p0, end) of one unit (p0 its first position, end
  // at most a unit past it, the last tuple's padding included): the shift found once.
  template <class F>
  void each(std::uint64_t p0, std::uint64_t end, F&& f) const {
    const std::uint64_t p1 = std::min(end, r.total);
    const std::uint8_t* b = r.bytes + (p0 - r.first) * r.width;
    if (r.width == 1) {
      const std::uint8_t s = shifted ? unit_shift(p0 / kDefaultUnitPositions) : 0;
      for (std::uint64_t i = 0; i < p1 - p0; ++i) f(i, static_cast<std::uint8_t>(b[i] - s));
    } else {
      for (std::uint64_t i = 0; i < p1 - p0; ++i) f(i, static_cast<std::uint64_t>(b[2 * i] | b[2 * i + 1] << 8));
    }
    if (p1 < end) {
      const std::uint64_t last = at(r.total - 1);
      for (std::uint64_t i = p1; i < end; ++i) f(i - p0, last);
    }
  }
  // num[i] = ((at(p0 + i) - lo) mod 256) / 2^g for the entries [p0, end) of one unit
  // (W = 1, end at most a unit past p0, as each()): the numbers of a DenseValues whose
  // values are the V bytes lo, lo + 2^g, .. (mod 256). False: a value it does not
  // number (not lo mod 2^g, or past the V). A loop that vectorizes (each() looks every
  // value up in a table).
  bool offset_numbers(std::uint64_t p0, std::uint64_t end, std::uint8_t lo, unsigned g, std::uint32_t V,
                      std::uint32_t* num) const {
    const std::uint64_t p1 = std::min(end, r.total);
    const std::uint8_t* b = r.bytes + (p0 - r.first);
    const auto off = static_cast<std::uint8_t>((shifted ? unit_shift(p0 / kDefaultUnitPositions) : 0) + lo);
    const std::uint32_t odd = (1u << g) - 1;
    std::uint32_t over = 0;
    for (std::uint64_t i = 0; i < p1 - p0; ++i) {
      const std::uint32_t x = static_cast<std::uint8_t>(b[i] - off);
      num[i] = x >> g;
      over |= (x & odd) | static_cast<std::uint32_t>((x >> g) >= V);
    }
    if (p1 < end) {
      const std::uint32_t x = static_cast<std::uint8_t>(at(r.total - 1) - lo);
      for (std::uint64_t i = p1; i < end; ++i) num[i - p0] = x >> g;
      over |= (x & odd) | static_cast<std::uint32_t>((x >> g) >= V);
    }
    return over == 0;
  }
  std::uint64_t tuple(std::uint64_t t, std::uint32_t k) const {
    std::uint64_t key = 0;
    for (std::uint32_t j = 0; j < k; ++j) key |= at(t * k + j) << (8 * r.width * j);
    return key;
  }
  // The shift of unit u (W = 1, its positions in the range): the lower median of its
  // margins, moved as little as needed for every margin less it to fit an int8 (the
  // margins span at most 254: there is room). The lower median is the least x with
  // more than (n - 1) / 2 of the n margins at most x, found by bisection over [least,
  // largest margin]: a few counts over the unit, which vectorize (a histogram's
  // increments wait for each other when margins repeat).
  std::uint8_t unit_shift(std::uint64_t u) const {
    if (shifts) return shifts[u - r.first / kDefaultUnitPositions];
    if (u != shift_unit_) {
      const std::uint64_t p0 = u * kDefaultUnitPositions, p1 = std::min(p0 + kDefaultUnitPositions, r.total);
      const auto* m = reinterpret_cast<const std::int8_t*>(r.bytes + (p0 - r.first));
      const int n = static_cast<int>(p1 - p0);
      int lo = 127, hi = -128;
      for (int i = 0; i < n; ++i) {
        lo = std::min<int>(lo, m[i]);
        hi = std::max<int>(hi, m[i]);
      }
      int median = lo;
      for (int top = hi; median < top;) {
        const int mid = (median + top) >> 1;
        int at_most = 0;
        for (int i = 0; i < n; ++i) at_most += m[i] <= mid;
        if (at_most > (n - 1) / 2) top = mid;
        else median = mid + 1;
      }
      shift_ = static_cast<std::uint8_t>(std::clamp(median, hi - 127, lo + 128));
      shift_unit_ = u;
    }
    return shift_;
  }

 private:
  mutable std::uint64_t shift_unit_ = ~0ull;  // the unit whose shift is shift_
  mutable std::uint8_t shift_ = 0;
};

// Dense numbers of the values of a table (or of a range of it): the V values present,
// numbered 0..V-1 in ascending order, so that a tuple of k values is one number below
// V^k (entry j times V^j), and a symbol of parse_unit (the tuple, and j of a run of 2^j
// tuples) one number below V^k J: the index of a plain array of counts or symbol
// numbers, in place of TupleMap's probes, wherever V^k J is small.
class DenseValues {
 public:
  // The values of the units of the range's bytes that `counted(p0)` says (p0: a
  // unit's first position), and the table's last value, which pads its last tuple (it
  // lies in the range when the range ends the table).
  template <class Counted>
  DenseValues(const Entries& e, std::uint32_t unit, Counted&& counted) {
    const ValueRange& r = e.r;
    std::vector<std::uint8_t> seen(std::size_t{1} << (8 * r.width));
    for (std::uint64_t p0 = r.first; p0 < r.first + r.count; p0 += unit) {
      if (!counted(p0)) continue;
      const std::uint64_t p1 = std::min(p0 + unit, r.first + r.count);
      e.each(p0, p1, [&](std::uint64_t, std::uint64_t v) { seen[v] = 1; });
    }
    if (r.count > 0 && r.first + r.count == r.total) seen[e.at(r.total - 1)] = 1;
    number_values(seen);
  }
  // The values of a code's symbols (TableCoder::Code::symbols: k values each).
  DenseValues(const std::vector<std::uint64_t>& symbols, std::uint32_t k, std::uint32_t width) {
    std::vector<std::uint8_t> seen(std::size_t{1} << (8 * width));
    const std::uint64_t mask = (std::uint64_t{1} << (8 * width)) - 1;
    for (const std::uint64_t s : symbols)
      for (std::uint32_t j = 0; j < k; ++j) seen[(s >> (8 * width * j)) & mask] = true;
    number_values(seen);
  }
  // V^k J for tuples of k values with runs of up to 2^(J-1) tuples (J = 1: no runs),
  // or 0 when it exceeds `limit`.
  std::uint64_t span(std::uint32_t k, std::uint32_t runs_j, std::uint64_t limit) const {
    std::uint64_t s = runs_j;
    for (std::uint32_t j = 0; j < k; ++j)
      if ((s *= values_.size()) > limit) return 0;
    return s;
  }
  // The number of a value (kAbsent: not present).
  std::uint32_t number(std::uint64_t value) const { return number_[value]; }
  // The symbol key of parse_unit (tuple, j at bit 56) of a dense symbol number.
  std::uint64_t key(std::uint64_t n, std::uint32_t k, std::uint32_t width) const {
    std::uint64_t key = 0;
    for (std::uint32_t j = 0; j < k; ++j, n /= values_.size()) key |= values_[n % values_.size()] << (8 * width * j);
    return key | n << 56;
  }
  std::uint64_t count() const { return values_.size(); }
  // For 1-byte values that are the bytes lo, lo + 2^g, .., lo + (V - 1) 2^g (mod 256),
  // with no gap (g = 0 or 1): lo, and then number(v) = ((v - lo) mod 256) / 2^g
  // (Entries::offset_numbers); else -1.
  int offset() const { return offset_; }
  unsigned step_bits() const { return step_bits_; }
  static constexpr std::uint32_t kAbsent = ~0u;

 private:
  // The values in ascending order; or 1-byte values in steps of 1 or 2 without a gap
  // (modulo 256), from the first of that run on. Example: Kalah's margins of a class of
  // 5 seeds, -5, -3, .., 5 (a margin has the parity of the seeds), are the bytes 251,
  // 253, 255, 1, 3, 5: lo = 251, g = 1, numbers 0..5.
  void number_values(const std::vector<std::uint8_t>& seen) {
    const std::size_t size = seen.size();
    number_.assign(size, kAbsent);
    auto take = [&](std::size_t v) {
      number_[v] = static_cast<std::uint32_t>(values_.size());
      values_.push_back(v);
    };
    if (size == 256) find_run(seen);
    if (offset_ >= 0) {
      const std::size_t step = std::size_t{1} << step_bits_;
      for (std::size_t i = 0; i < size / step && seen[(offset_ + i * step) % size]; ++i) take((offset_ + i * step) % size);
    } else {
      for (std::size_t v = 0; v < size; ++v)
        if (seen[v]) take(v);
    }
    if (values_.empty()) values_.push_back(0);
  }
  // offset_ and step_bits_ where the present bytes are one run in steps of 1, else of 2.
  void find_run(const std::vector<std::uint8_t>& seen) {
    const std::size_t size = seen.size();
    for (const unsigned g : {0u, 1u}) {
      const std::size_t step = std::size_t{1} << g;
      std::size_t residue = size, starts = 0, first = 0;
      bool one_class = true;
      for (std::size_t v = 0; v < size; ++v) {
        if (!seen[v]) continue;
        if (residue == size) residue = v % step;
        one_class &= v % step == residue;
        if (!seen[(v + size - step) % size]) ++starts, first = v;  // a run starts at v
      }
      if (residue == size || !one_class || starts > 1) continue;
      offset_ = static_cast<int>(starts == 1 ? first : residue);  // no start: the whole circle
      step_bits_ = g;
      return;
    }
  }
  std::vector<std::uint32_t> number_;  // value -> number (kAbsent: not present)
  std::vector<std::uint64_t> values_;  // number -> value
  int offset_ = -1;
  unsigned step_bits_ = 0;
};

// Code lengths of a Huffman code for `freq` (every count >= 1), none longer than
// `limit`: the counts are halved (kept >= 1) until the longest code fits. Ties are
// broken by symbol number, so the lengths depend on the counts alone.
std::vector<std::uint8_t> huffman_lengths(const std::vector<std::uint64_t>& freq, unsigned limit) {
  const std::size_t m = freq.size();
  if (m == 1) return {0};
  for (unsigned shift = 0;; ++shift) {
    std::vector<std::uint64_t> w(2 * m - 1);
    for (std::size_t i = 0; i < m; ++i) w[i] = std::max<std::uint64_t>(1, freq[i] >> shift);
    std::vector<std::size_t> leaves(m);
    for (std::size_t i = 0; i < m; ++i) leaves[i] = i;
    std::stable_sort(leaves.begin(), leaves.end(), [&](std::size_t a, std::size_t b) { return w[a] < w[b]; });
    std::vector<std::size_t> parent(2 * m - 1, 0);
    std::size_t li = 0, ni = m, next = m;  // two queues: leaves by weight, internal nodes by creation
    auto pop = [&]() {
      if (li < m && (ni >= next || w[leaves[li]] <= w[ni])) return leaves[li++];
      return ni++;
    };
    for (; next < 2 * m - 1; ++next) {
      const std::size_t a = pop(), b = pop();
      w[next] = w[a] + w[b];
      parent[a] = parent[b] = next;
    }
    std::vector<unsigned> depth(2 * m - 1, 0);
    for (std::size_t i = 2 * m - 2; i-- > 0;) depth[i] = depth[parent[i]] + 1;
    unsigned longest = 0;
    for (std::size_t i = 0; i < m; ++i) longest = std::max(longest, depth[i]);
    if (longest <= limit) {
      std::vector<std::uint8_t> len(m);
      for (std::size_t i = 0; i < m; ++i) len[i] = static_cast<std::uint8_t>(depth[i]);
      return len;
    }
  }
}

// Bits of the code for these counts (the estimate that picks k). Codes are at most
// kMaxCodeBits long: the reader finds those past 12 bits in two steps (format.cpp); a
// limit of 12 had cost Oware's shifted pairs 0.2 bits a position.
std::uint64_t coded_bits(const std::vector<std::uint64_t>& freq, unsigned limit) {
  if (freq.empty()) return 0;
  const auto len = huffman_lengths(freq, limit);
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < freq.size(); ++i) bits += freq[i] * len[i];
  return bits;
}

// The symbols of the positions [p0, p1) of one unit, in order: tuples of k entries,
// and with `runs` a tuple repeated r = 2^j times (r as large as the run allows, r k <=
// the unit's positions) as one symbol. emit(tuple(t), j) for each: tuple(t) is the
// t-th tuple of the table as a number (Entries::tuple, or its DenseValues number).
// Symbol key: the tuple, j at bit 56.
// A run of r equal tuples is emitted as the powers of two of r, the largest first
// (r = 13: runs of 8, 4, 1): each tuple is made once (p0 starts a unit, so the unit
// holds at most unit / k <= kDefaultUnitPositions tuples and no run is longer).
template <class Tuple, class Emit>
void parse_tuples(Tuple&& tuple, std::uint32_t k, bool runs, std::uint64_t p0, std::uint64_t p1, std::uint32_t unit,
                  Emit&& emit) {
  const std::uint64_t t0 = p0 / k, n = (p1 + k - 1) / k - t0;
  if (!runs) {
    for (std::uint64_t t = 0; t < n; ++t) emit(tuple(t0 + t), 0u);
    return;
  }
  assert(n <= unit / k && unit <= kDefaultUnitPositions);
  (void)unit;
  // The runs' first tuples as the bits of a word, then a run a step (the lengths of
  // runs vary at random: a loop over each run's tuples mispredicted its end).
  std::uint64_t keys[kDefaultUnitPositions], starts = 1;
  keys[0] = tuple(t0);
  for (std::uint64_t t = 1; t < n; ++t) {
    keys[t] = tuple(t0 + t);
    starts |= static_cast<std::uint64_t>(keys[t] != keys[t - 1]) << t;
  }
  while (starts) {
    const auto t = static_cast<std::uint64_t>(std::countr_zero(starts));
    starts &= starts - 1;
    const std::uint64_t end = starts ? static_cast<std::uint64_t>(std::countr_zero(starts)) : n;
    for (std::uint64_t rest = end - t; rest > 0;) {
      const unsigned j = static_cast<unsigned>(std::bit_width(rest) - 1);
      emit(keys[t], j);
      rest -= std::uint64_t{1} << j;
    }
  }
}
template <class Emit>
void parse_unit(const Entries& e, std::uint32_t k, bool runs, std::uint64_t p0, std::uint64_t p1, std::uint32_t unit,
                Emit&& emit) {
  parse_tuples([&](std::uint64_t t) { return e.tuple(t, k); }, k, runs, p0, p1, unit,
               [&](std::uint64_t key, unsigned j) { emit(key | static_cast<std::uint64_t>(j) << 56); });
}
// The same with DenseValues' numbers: emit(n) with n the symbol's dense number (tuple
// number + j V^k). p0 is a unit's first position, unit <= kDefaultUnitPositions.
// False (nothing emitted): a value that `d` does not number.
template <class Emit>
bool parse_dense_unit(const Entries& e, const DenseValues& d, std::uint32_t k, bool runs, std::uint64_t p0,
                      std::uint64_t p1, std::uint32_t unit, Emit&& emit) {
  std::uint32_t num[kDefaultUnitPositions];  // the unit's entries' numbers (its last tuple padded: Entries::at)
  const std::uint64_t end = (p1 + k - 1) / k * k;
  bool absent = end - p0 > kDefaultUnitPositions;
  if (absent) return false;
  if (d.offset() >= 0 && e.r.width == 1)
    absent = !e.offset_numbers(p0, end, static_cast<std::uint8_t>(d.offset()), d.step_bits(),
                               static_cast<std::uint32_t>(d.count()), num);
  else
    e.each(p0, end, [&](std::uint64_t i, std::uint64_t v) { absent |= (num[i] = d.number(v)) == DenseValues::kAbsent; });
  if (absent) return false;
  const std::uint64_t V = d.count();
  std::uint64_t vk = 1;
  for (std::uint32_t j = 0; j < k; ++j) vk *= V;
  parse_tuples(
      [&](std::uint64_t t) {
        const std::uint32_t* x = num + (t * k - p0);
        std::uint64_t n = 0;
        for (std::uint32_t j = k; j-- > 0;) n = n * V + x[j];
        return n;
      },
      k, runs, p0, p1, unit, [&](std::uint64_t n, unsigned j) { emit(n + j * vk); });
  return true;
}
// The largest dense span (DenseValues::span) counted or coded by a plain array: 4 MiB
// of u32 counts or symbol numbers.
constexpr std::uint64_t kDenseSpan = std::uint64_t{1} << 20;
// The J of DenseValues::span for a shape: runs of up to unit / k tuples.
std::uint32_t run_lengths(std::uint32_t k, bool runs, std::uint32_t unit) {
  return runs ? static_cast<std::uint32_t>(std::bit_width(unit / k)) : 1;
}

// A way to cut a table into symbols: k values a tuple, runs or not, each unit's
// margins less its shift or not.
struct Shape {
  std::uint32_t k = 1;
  bool runs = false;
  bool shifted = false;
};

// Tables of at least this many positions try shapes with runs only: of the 179 files
// of 16,384 positions or more of the small set (results/checksums/small.sha256), values
// and distances, every one chose runs, and each round not counted is a pass over the
// table's values.
constexpr std::uint64_t kRunsOnlyFrom = std::uint64_t{1} << 16;

// The shapes a table of W-byte values may take, in the order they are tried: k = 1,
// 2, 4, 8 (k W <= 8 bytes, k <= the unit), each without and with runs (runs: k W <= 6;
// from kRunsOnlyFrom positions on, with runs only). For margins (W = 1) one more round
// tries the best of them with unit shifts (TableCoder::add_counts): every shape twice
// had made generation a quarter slower.
std::vector<Shape> candidate_shapes(std::uint32_t width, std::uint32_t unit, std::uint64_t positions) {
  std::vector<Shape> out;
  for (std::uint32_t k = 1; k <= 8 && k * width <= 8 && k <= unit; k *= 2)
    for (const bool runs : {false, true})
      if ((!runs || k * width <= 6) && (runs || positions < kRunsOnlyFrom)) out.push_back(Shape{k, runs});
  return out;
}

// The base of a block's unit shifts (format.h): the lower median of its n shifts (n
// at most kDefaultUnitsPerBlock) as int8s.
std::uint8_t shift_base(const std::uint8_t* shifts, std::size_t n) {
  std::int8_t s[kDefaultUnitsPerBlock];
  for (std::size_t u = 0; u < n; ++u) s[u] = static_cast<std::int8_t>(shifts[u]);
  std::nth_element(s, s + (n - 1) / 2, s + n);
  return static_cast<std::uint8_t>(s[(n - 1) / 2]);
}

// Tables above this many positions choose their shape from every 16th unit.
constexpr std::uint64_t kSampleAbove = std::uint64_t{1} << 22;

}  // namespace

// One counting round's counts: a map per shape counted; a map of more than kMaxSymbols
// symbols is dropped and marked `over` (the shape cannot be coded).
struct SymbolCounts::Parts {
  struct Part {
    TupleMap map;
    bool over = false;
  };
  std::vector<Part> parts;
};

SymbolCounts::SymbolCounts() : parts_(std::make_unique<Parts>()) {}
SymbolCounts::SymbolCounts(SymbolCounts&&) noexcept = default;
SymbolCounts& SymbolCounts::operator=(SymbolCounts&&) noexcept = default;
SymbolCounts::~SymbolCounts() = default;

namespace {
void add_to(SymbolCounts::Parts::Part& to, std::uint64_t key, std::uint64_t n) {
  if (to.over) return;
  to.map[key] += n;
  if (to.map.size() > kMaxSymbols) {
    to.over = true;
    to.map = TupleMap();
  }
}
}  // namespace

void SymbolCounts::add(const SymbolCounts& o) {
  if (parts_->parts.size() < o.parts_->parts.size()) parts_->parts.resize(o.parts_->parts.size());
  for (std::size_t i = 0; i < o.parts_->parts.size(); ++i) {
    auto& to = parts_->parts[i];
    const auto& from = o.parts_->parts[i];
    if (from.over) {
      to.over = true;
      to.map = TupleMap();
    }
    from.map.each([&](std::uint64_t key, std::uint64_t n) { add_to(to, key, n); });
  }
}

// Layout: u32 parts; each part: u8 over, u64 symbols, then (u64 key, u64 count) each,
// keys ascending.
std::string SymbolCounts::to_bytes() const {
  std::string s;
  put32(s, static_cast<std::uint32_t>(parts_->parts.size()));
  for (const auto& p : parts_->parts) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> e;
    p.map.each([&](std::uint64_t key, std::uint64_t n) { e.emplace_back(key, n); });
    std::sort(e.begin(), e.end());
    s += static_cast<char>(p.over ? 1 : 0);
    put64(s, e.size());
    for (const auto& [key, n] : e) {
      put64(s, key);
      put64(s, n);
    }
  }
  return s;
}

std::expected<SymbolCounts, Error> SymbolCounts::from_bytes(const std::string& bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t n = bytes.size();
  auto bad = [] { return std::unexpected(Error{Error::Corrupt, "malformed symbol counts"}); };
  if (n < 4) return bad();
  const std::uint32_t parts = get32(p);
  std::size_t at = 4;
  SymbolCounts c;
  if (parts > 64) return bad();
  c.parts_->parts.resize(parts);
  for (auto& part : c.parts_->parts) {
    if (n - at < 9) return bad();
    part.over = p[at] != 0;
    const std::uint64_t m = get64(p + at + 1);
    at += 9;
    if (m > kMaxSymbols || (n - at) / 16 < m) return bad();
    for (std::uint64_t i = 0; i < m; ++i, at += 16) part.map[get64(p + at)] += get64(p + at + 8);
  }
  if (at != n) return bad();
  return c;
}

// The chosen code: symbol keys ascending, their lengths and canonical codes.
struct TableCoder::Code {
  std::vector<Shape> shapes;  // what this round counts
  bool sample = false;        // this round counts every 16th unit only
  std::vector<Shape> candidates;  // the shapes tried, a round each
  std::size_t next = 0;           // the candidate this round counts
  std::uint64_t best = ~0ull;     // the least estimated size so far, its shape and counts
  TupleMap best_counts;
  Shape shape;
  std::unique_ptr<DenseValues> seen;  // the exact round of a sampled table: the values of the sample's symbols
  // The unit shifts of the last range a round counted whole with a shifted shape, found
  // once for the round's passes and for encode_block, and that range.
  std::vector<std::uint8_t> shifts;
  ValueRange shifts_range;
  const std::uint8_t* shifts_of(const ValueRange& r) const {
    const ValueRange& k = shifts_range;
    return r.bytes == k.bytes && r.first == k.first && r.count == k.count && r.total == k.total && !shifts.empty()
               ? shifts.data()
               : nullptr;
  }
  std::vector<std::uint64_t> symbols;  // symbol keys (parse_unit), ascending
  std::vector<std::uint8_t> lengths;
  std::vector<std::uint32_t> codes;
  // A shifted shape's counts of the differences d of the units' shifts from their
  // blocks' bases (format.h), with the round that chose it; then its shift code: the
  // differences present, ascending, their lengths and codes, and each difference's
  // place among them.
  TupleMap best_deltas;
  std::vector<std::uint8_t> deltas, delta_lengths;
  std::vector<std::uint32_t> delta_codes;
  std::array<std::uint16_t, 256> delta_symbol{};
  TupleMap number;  // symbol key -> symbol number
  // The same by a plain array where the symbols' values allow (DenseValues; empty
  // else): dense symbol number -> symbol number.
  std::unique_ptr<DenseValues> dense;
  std::vector<std::uint32_t> dense_number;
};

TableCoder::TableCoder(std::uint64_t positions, std::uint32_t width)
    : positions_(positions), width_(width), code_(std::make_unique<Code>()) {
  // The first rounds count the candidate shapes, one a round (every 16th unit of a
  // large table: one shape's counts in memory at a time, as the ranks sum them); a
  // last round (large tables only) the chosen shape's symbols exactly.
  code_->candidates = candidate_shapes(width, unit_positions(), positions);
  code_->shapes = {code_->candidates[0]};
  code_->sample = positions > kSampleAbove;
}
TableCoder::TableCoder(TableCoder&&) noexcept = default;
TableCoder::~TableCoder() = default;

bool TableCoder::done() const { return code_->shapes.empty(); }

SymbolCounts TableCoder::count(const ValueRange& r) const {
  SymbolCounts out;
  const std::uint32_t unit = unit_positions();
  auto counted = [&](std::uint64_t p0) { return !code_->sample || (p0 / unit) % 16 == 0; };
  for (const Shape& s : code_->shapes) {
    if (s.shifted && !code_->sample && r.count > 0 && !code_->shifts_of(r)) {
      const Entries plain{r, true};
      code_->shifts.resize(static_cast<std::size_t>((r.count + unit - 1) / unit));
      for (std::size_t u = 0; u < code_->shifts.size(); ++u) code_->shifts[u] = plain.unit_shift(r.first / unit + u);
      code_->shifts_range = r;
    }
    const Entries e{r, s.shifted, s.shifted && !code_->sample ? code_->shifts_of(r) : nullptr};
    SymbolCounts::Parts::Part part;
    // A plain array of counts where the shape's symbols are few enough (and no larger
    // than a few times the range: a small range clears a small array), TupleMap else;
    // both count a symbol repeated at once.
    auto span_of = [&](const DenseValues& d) {
      return r.count < 0xFFFFFFFFull
                 ? d.span(s.k, run_lengths(s.k, s.runs, unit), std::min(kDenseSpan, std::max<std::uint64_t>(4096, 4 * r.count)))
                 : 0;
    };
    // The counts of the units p0 that `take(p0)` says by their symbols' keys (parse_unit,
    // TupleMap): a symbol repeated is added once.
    auto key_counts = [&](auto&& take) {
      std::uint64_t last = 0, repeats = 0;  // the symbol counted last, not yet added
      for (std::uint64_t p0 = r.first; p0 < r.first + r.count && !part.over; p0 += unit) {
        if (!take(p0)) continue;
        parse_unit(e, s.k, s.runs, p0, std::min<std::uint64_t>(p0 + unit, positions_), unit, [&](std::uint64_t key) {
          if (repeats > 0 && key == last) {
            ++repeats;
            return;
          }
          if (repeats > 0) add_to(part, last, repeats);
          last = key;
          repeats = 1;
        });
      }
      if (repeats > 0) add_to(part, last, repeats);
    };
    // The counts by the numbers of `d`; a unit holding a value that `d` does not number
    // is counted by its keys instead (the same counts: a symbol's key is what d.key()
    // gives its number).
    auto dense_counts = [&](const DenseValues& d, std::uint64_t span) {
      std::vector<std::uint32_t> counts(static_cast<std::size_t>(span));
      std::vector<std::uint64_t> missed;  // the units with such a value
      for (std::uint64_t p0 = r.first; p0 < r.first + r.count; p0 += unit) {
        if (!counted(p0)) continue;
        if (!parse_dense_unit(e, d, s.k, s.runs, p0, std::min<std::uint64_t>(p0 + unit, positions_), unit,
                              [&](std::uint64_t n) { ++counts[static_cast<std::size_t>(n)]; }))
          missed.push_back(p0);
      }
      for (std::size_t n = 0; n < counts.size() && !part.over; ++n)
        if (counts[n] > 0) add_to(part, d.key(n, s.k, width_), counts[n]);
      std::size_t next = 0;
      key_counts([&](std::uint64_t p0) { return next < missed.size() && missed[next] == p0 && ++next; });
    };
    // The exact round of a sampled table numbers the values its sample saw (a pass over
    // the table fewer); a unit holding another value is counted by its keys.
    if (const std::uint64_t span = !code_->sample && code_->seen ? span_of(*code_->seen) : 0; span > 0) {
      dense_counts(*code_->seen, span);
    } else {
      const DenseValues dense(e, unit, counted);
      if (const std::uint64_t all = span_of(dense); all > 0) dense_counts(dense, all);  // every value numbered
      else key_counts(counted);
    }
    out.parts_->parts.push_back(std::move(part));
    // A shifted shape counted whole: the differences of its shifts from their blocks'
    // bases too, a part after the shape's (the range starts a block: its blocks are whole).
    if (s.shifted && !code_->sample) {
      SymbolCounts::Parts::Part deltas;
      std::array<std::uint64_t, 256> n{};
      if (const std::uint8_t* shifts = code_->shifts_of(r)) {
        const std::uint64_t units = (r.count + unit - 1) / unit, per_block = block_positions() / unit;
        for (std::uint64_t u0 = 0; u0 < units; u0 += per_block) {
          const std::uint64_t u1 = std::min(units, u0 + per_block);
          const std::uint8_t base = shift_base(shifts + u0, static_cast<std::size_t>(u1 - u0));
          for (std::uint64_t u = u0; u < u1; ++u) ++n[static_cast<std::uint8_t>(shifts[u] - base)];
        }
      }
      for (std::size_t d = 0; d < n.size(); ++d)
        if (n[d] > 0) add_to(deltas, d, n[d]);
      out.parts_->parts.push_back(std::move(deltas));
    }
  }
  return out;
}

std::expected<void, TableError> TableCoder::add_counts(const SymbolCounts& whole) {
  Code& c = *code_;
  const auto& parts = whole.parts_->parts;
  const bool deltas = c.shapes.size() == 1 && c.shapes[0].shifted && !c.sample;  // count() adds their part
  if (parts.size() != c.shapes.size() + (deltas ? 1 : 0))
    return std::unexpected(TableError{TableError::Internal, "symbol counts of another round"});
  const TupleMap* counts = nullptr;
  if (round_ == 0) {
    // The shape whose estimated size, code table included, is least (ties: the first
    // tried).
    if (!parts[0].over) {
      std::vector<std::pair<std::uint64_t, std::uint64_t>> e;
      parts[0].map.each([&](std::uint64_t key, std::uint64_t n) { e.emplace_back(key, n); });
      std::sort(e.begin(), e.end());
      std::vector<std::uint64_t> freq;
      for (const auto& kn : e) freq.push_back(kn.second);
      // A shifted shape pays its shift codes, a base a block and the shift code's table
      // (counted whole), or about 4 bits a unit counted (sampled: every 16th unit, whose
      // blocks' bases are not known).
      const std::uint64_t units = (positions_ + unit_positions() - 1) / unit_positions();
      std::uint64_t shift_bits = 0;
      if (deltas) {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> d;
        parts[1].map.each([&](std::uint64_t key, std::uint64_t n) { d.emplace_back(key, n); });
        std::sort(d.begin(), d.end());
        std::vector<std::uint64_t> dfreq;
        for (const auto& kn : d) dfreq.push_back(kn.second);
        shift_bits = coded_bits(dfreq, kMaxShiftBits) + 8 * (blocks() + 3 + 2 * dfreq.size());
      } else if (c.shapes[0].shifted) {
        shift_bits = 4 * ((units + 15) / 16);
      }
      const std::uint64_t bits = coded_bits(freq, kMaxCodeBits) + 8 * e.size() * (2 + c.shapes[0].k * width_) + shift_bits;
      if (bits < c.best) {
        c.best = bits;
        c.shape = c.shapes[0];
        c.best_counts = parts[0].map;
        if (deltas) c.best_deltas = parts[1].map;
      }
    }
    if (++c.next == c.candidates.size() && width_ == 1 && c.best != ~0ull && !c.candidates.back().shifted)
      c.candidates.push_back(Shape{c.shape.k, c.shape.runs, true});  // the best so far, shifted, once
    if (c.next < c.candidates.size()) {
      c.shapes = {c.candidates[c.next]};
      return {};
    }
    if (c.best == ~0ull)
      return std::unexpected(TableError{TableError::Internal, "more than " + std::to_string(kMaxSymbols) + " distinct values"});
    ++round_;
    if (c.sample) {  // the exact counts of the chosen shape next, by the values the sample saw
      c.shapes = {c.shape};
      c.sample = false;
      std::vector<std::uint64_t> keys;
      c.best_counts.each([&](std::uint64_t key, std::uint64_t) { keys.push_back(key); });
      c.seen = std::make_unique<DenseValues>(keys, c.shape.k, width_);
      c.best_counts = TupleMap();
      return {};
    }
    counts = &c.best_counts;
  } else {
    if (parts[0].over)
      return std::unexpected(TableError{TableError::Internal, "more than " + std::to_string(kMaxSymbols) + " symbols"});
    counts = &parts[0].map;
    if (deltas) c.best_deltas = parts[1].map;
  }
  if (c.shape.shifted) {  // the shift code: the differences present (one at least), ascending
    c.best_deltas.each([&](std::uint64_t d, std::uint64_t) { c.deltas.push_back(static_cast<std::uint8_t>(d)); });
    if (c.deltas.empty()) c.deltas.push_back(0);  // an empty table
    std::sort(c.deltas.begin(), c.deltas.end());
    std::vector<std::uint64_t> dfreq;
    for (std::size_t i = 0; i < c.deltas.size(); ++i) {
      dfreq.push_back(std::max<std::uint64_t>(1, c.best_deltas.size() ? c.best_deltas.get(c.deltas[i]) : 0));
      c.delta_symbol[c.deltas[i]] = static_cast<std::uint16_t>(i);
    }
    c.delta_lengths = huffman_lengths(dfreq, kMaxShiftBits);
    c.delta_codes = canonical_codes(c.delta_lengths);
    c.best_deltas = TupleMap();
  }
  c.shapes.clear();
  c.seen.reset();
  counts->each([&](std::uint64_t key, std::uint64_t) { c.symbols.push_back(key); });
  if (c.symbols.empty()) c.symbols.push_back(0);  // an empty table: one symbol, never used
  std::sort(c.symbols.begin(), c.symbols.end());
  std::vector<std::uint64_t> freq(c.symbols.size());
  for (std::size_t s = 0; s < c.symbols.size(); ++s) {
    freq[s] = std::max<std::uint64_t>(1, counts->size() ? counts->get(c.symbols[s]) : 0);
    c.number[c.symbols[s]] = s;
  }
  c.dense = std::make_unique<DenseValues>(c.symbols, c.shape.k, width_);
  if (const std::uint64_t span = c.dense->span(c.shape.k, run_lengths(c.shape.k, c.shape.runs, unit_positions()), kDenseSpan)) {
    c.dense_number.assign(static_cast<std::size_t>(span), DenseValues::kAbsent);  // a symbol the table does not hold
    const std::uint64_t V = c.dense->count(), mask = (std::uint64_t{1} << (8 * width_)) - 1;
    std::uint64_t vk = 1;
    for (std::uint32_t j = 0; j < c.shape.k; ++j) vk *= V;
    for (std::size_t s = 0; s < c.symbols.size(); ++s) {
      std::uint64_t n = 0;
      for (std::uint32_t j = c.shape.k; j-- > 0;) n = n * V + c.dense->number((c.symbols[s] >> (8 * width_ * j)) & mask);
      if (c.shape.runs) n += (c.symbols[s] >> 56) * vk;  // k W <= 6 bytes with runs: j above the tuple
      c.dense_number[static_cast<std::size_t>(n)] = static_cast<std::uint32_t>(s);
    }
  }
  c.lengths = huffman_lengths(freq, kMaxCodeBits);
  c.codes = canonical_codes(c.lengths);
  return {};
}

void TableCoder::describe(TableHeader& h) const {
  const Code& c = *code_;
  h.unit_positions = unit_positions();
  h.block_positions = static_cast<std::uint32_t>(block_positions());
  h.block_count = blocks();
  h.tuple = c.shape.k;
  h.unit_shifts = c.shape.shifted;
  h.code_lengths = c.lengths;
  h.shift_lengths = c.delta_lengths;
  h.shift_deltas = c.deltas;
  h.symbol_runs.clear();
  h.symbol_values.clear();
  for (const std::uint64_t s : c.symbols) {
    h.symbol_runs.push_back(c.shape.runs ? static_cast<std::uint8_t>(s >> 56) : 0);  // k W = 8 bytes: no runs, no j
    for (std::uint32_t j = 0; j < c.shape.k; ++j) h.symbol_values.push_back(static_cast<std::uint16_t>(s >> (8 * width_ * j)));
  }
}

// Block b of the layout in format.h: the lengths of its units 0..n-2, with shifts the
// block's base, then its units (each its shift code first in a shifted code, then its
// codes).
std::expected<std::string, TableError> TableCoder::encode_block(const ValueRange& r, std::uint64_t b) const {
  const Code& c = *code_;
  const Entries e{r, c.shape.shifted, c.shape.shifted ? c.shifts_of(r) : nullptr};
  const std::uint64_t unit = unit_positions();
  const std::uint64_t first = b * block_positions();
  const std::uint64_t count = std::min<std::uint64_t>(block_positions(), positions_ - first);
  const std::uint64_t units = (count + unit - 1) / unit;
  if (units == 0) return std::string();
  // The block in place: the lengths first (and the base), then each unit's bytes
  // written through a 64-bit buffer, 4 bytes at a time (a unit holds at most a shift
  // code and U codes of kMaxCodeBits bits, and up to 3 bytes of the last store are
  // written over).
  // (The room is not cleared first: every byte kept is written, and a block's room,
  // about 8 KiB, cleared and cut back to its few hundred bytes had been a memset a block.)
  const std::size_t most_unit = (kMaxShiftBits + unit * kMaxCodeBits + 7) / 8;
  std::string out;
  std::optional<TableError> failed;
  out.resize_and_overwrite(static_cast<std::size_t>(units + units * most_unit + 4), [&](char* room, std::size_t) -> std::size_t {
    auto fail = [&](TableError why) -> std::size_t {
      failed = std::move(why);
      return 0;
    };
    auto* const head = reinterpret_cast<std::uint8_t*>(room);
    std::uint8_t* at = head + (units - 1);
    std::uint8_t shifts[kDefaultUnitsPerBlock];
    if (c.shape.shifted) {
      for (std::uint64_t u = 0; u < units; ++u) shifts[u] = e.unit_shift((first + u * unit) / unit);
      *at++ = shift_base(shifts, static_cast<std::size_t>(units));
    }
    for (std::uint64_t u = 0; u < units; ++u) {
      std::uint8_t* const unit_at = at;
      const std::uint64_t p0 = first + u * unit;
      const std::uint64_t p1 = std::min<std::uint64_t>(p0 + unit, positions_);
      std::uint64_t acc = 0;  // the last `bits` bits not yet written, in its low bits
      unsigned bits = 0;
      auto put_code = [&](unsigned length, std::uint32_t code) {
        acc = acc << length | code;
        if ((bits += length) >= 32) {
          bits -= 32;
          const auto w = static_cast<std::uint32_t>(acc >> bits);
          at[0] = static_cast<std::uint8_t>(w >> 24);
          at[1] = static_cast<std::uint8_t>(w >> 16);
          at[2] = static_cast<std::uint8_t>(w >> 8);
          at[3] = static_cast<std::uint8_t>(w);
          at += 4;
        }
      };
      auto put = [&](std::size_t s) { put_code(c.lengths[s], c.codes[s]); };
      if (c.shape.shifted) {
        const std::size_t d = c.delta_symbol[static_cast<std::uint8_t>(shifts[u] - head[units - 1])];
        if (c.deltas[d] != static_cast<std::uint8_t>(shifts[u] - head[units - 1]))
          return fail(TableError{TableError::Internal, "a unit shift the code was not counted with"});
        put_code(c.delta_lengths[d], c.delta_codes[d]);
      }
      if (!c.dense_number.empty()) {
        bool unknown = false;  // a value or symbol the counts did not hold
        unknown |= !parse_dense_unit(e, *c.dense, c.shape.k, c.shape.runs, p0, p1, static_cast<std::uint32_t>(unit),
                                     [&](std::uint64_t n) {
                                       const std::uint32_t s = c.dense_number[static_cast<std::size_t>(n)];
                                       unknown |= s == DenseValues::kAbsent;
                                       if (s != DenseValues::kAbsent) put(s);
                                     });
        if (unknown) return fail(TableError{TableError::Internal, "a value the code was not counted with"});
      } else {
        parse_unit(e, c.shape.k, c.shape.runs, p0, p1, static_cast<std::uint32_t>(unit),
                   [&](std::uint64_t key) { put(static_cast<std::size_t>(c.number.get(key))); });
      }
      for (; bits >= 8; bits -= 8) *at++ = static_cast<std::uint8_t>(acc >> (bits - 8));
      if (bits > 0) *at++ = static_cast<std::uint8_t>(acc << (8 - bits));
      if (u + 1 < units) {
        if (at - unit_at > 0xFF) return fail(TableError{TableError::Internal, "a unit of more than 255 bytes"});
        head[u] = static_cast<std::uint8_t>(at - unit_at);
      }
    }
    return static_cast<std::size_t>(at - head);
  });
  if (failed) return std::unexpected(std::move(*failed));
  return out;
}

namespace {

// The header bytes [0, H) of the layout in format.h (the code included).
std::string encode_header(const TableHeader& h) {
  std::string code;
  code += static_cast<char>(h.tuple);
  std::uint8_t longest = 0;
  for (const std::uint8_t l : h.code_lengths) longest = std::max(longest, l);
  code += static_cast<char>(longest);
  put16(code, static_cast<std::uint16_t>(h.code_lengths.size()));
  code += static_cast<char>(h.unit_shifts ? 1 : 0);
  for (const std::uint8_t l : h.code_lengths) code += static_cast<char>(l);
  for (const std::uint8_t j : h.symbol_runs) code += static_cast<char>(j);
  for (const std::uint16_t x : h.symbol_values) {
    if (h.value_width == 1) code += static_cast<char>(x);
    else put16(code, x);
  }
  if (h.unit_shifts) {
    std::uint8_t longest_shift = 0;
    for (const std::uint8_t l : h.shift_lengths) longest_shift = std::max(longest_shift, l);
    code += static_cast<char>(longest_shift);
    put16(code, static_cast<std::uint16_t>(h.shift_lengths.size()));
    for (const std::uint8_t l : h.shift_lengths) code += static_cast<char>(l);
    for (const std::uint8_t d : h.shift_deltas) code += static_cast<char>(d);
  }
  std::string s(kMagic, 8);
  put32(s, kFormatVersion);
  put32(s, static_cast<std::uint32_t>(kFixedHeaderBytes + h.variant.size() + h.generator.size() + code.size()));
  put32(s, h.kind);
  put32(s, h.pits);
  put64(s, h.state);
  put32(s, h.seeds);
  put32(s, h.index_version);
  put32(s, static_cast<std::uint32_t>(h.filter_from));
  put32(s, static_cast<std::uint32_t>(h.filter_to));
  put64(s, h.positions);
  put32(s, h.value_width);
  put32(s, h.unit_positions);
  put32(s, h.block_positions / h.unit_positions);
  put32(s, h.subset_crc);
  put64(s, h.subset_size);
  put64(s, h.subset_bytes);
  put16(s, static_cast<std::uint16_t>(h.variant.size()));
  put16(s, static_cast<std::uint16_t>(h.generator.size()));
  put32(s, static_cast<std::uint32_t>(h.content));
  put32(s, static_cast<std::uint32_t>(h.block_count));
  put32(s, static_cast<std::uint32_t>(code.size()));
  s += h.variant;
  s += h.generator;
  s += code;
  return s;
}

}  // namespace

TableHeader table_header(const Variant& v, const ClassKey& key, std::uint64_t positions, int value_width,
                         TableContent content) {
  TableHeader h;
  h.variant = v.name();
  h.kind = static_cast<std::uint32_t>(v.kind());
  h.pits = static_cast<std::uint32_t>(v.pits());
  h.state = key.state;
  h.seeds = static_cast<std::uint32_t>(key.seeds);
  const IndexFilter f = v.index_filter(key);
  h.filter_from = f.zero_from;
  h.filter_to = f.zero_to;
  h.value_width = static_cast<std::uint32_t>(value_width);
  h.positions = positions;
  h.content = content;
  h.generator = "mancala-tb " MANCALA_VERSION_STRING;
  return h;
}

std::string table_head(const TableHeader& h) {
  std::string head = encode_header(h);
  put32(head, crc32(head.data(), head.size()));
  return head;
}

std::expected<std::string, TableError> position_list_part(const std::vector<Index>& ranks, int zstd_level,
                                                         TableHeader& h) {
  const std::string raw = encode_position_list(ranks);
  std::string out(ZSTD_compressBound(raw.size()), '\0');
  const std::size_t got = ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), zstd_level);
  if (ZSTD_isError(got)) return std::unexpected(TableError{TableError::Internal, std::string("zstd: ") + ZSTD_getErrorName(got)});
  out.resize(got);
  h.subset_size = ranks.size();
  h.subset_bytes = got;
  h.subset_crc = crc32(out.data(), got);
  return out;
}

std::expected<void, TableError> encode_blocks(const TableCoder& coder, const ValueRange& r, std::uint64_t b0,
                                              std::uint64_t b1, int threads, const BlockSink& take) {
  // The blocks are coded a window at a time (kWindow per thread, each thread taking
  // the next block of the window), then handed over in order: the same bytes as one
  // thread, the window only in memory.
  const std::uint64_t T = static_cast<std::uint64_t>(std::max(threads, 1));
  constexpr std::uint64_t kWindow = 64;
  const std::uint64_t window = kWindow * T;
  std::vector<std::expected<std::string, TableError>> buf(static_cast<std::size_t>(std::min(window, std::max<std::uint64_t>(b1 - b0, 1))));
  for (std::uint64_t w0 = b0; w0 < b1; w0 += window) {
    const std::uint64_t w1 = std::min(b1, w0 + window);
    std::atomic<std::uint64_t> next{w0};
    auto coder_thread = [&] {
      for (std::uint64_t b; (b = next.fetch_add(1, std::memory_order_relaxed)) < w1;) buf[b - w0] = coder.encode_block(r, b);
    };
    {
      std::vector<std::jthread> helpers;
      for (std::uint64_t t = 1; t < std::min(T, w1 - w0); ++t) helpers.emplace_back(coder_thread);
      coder_thread();
    }  // joined
    for (std::uint64_t b = w0; b < w1; ++b) {
      auto& bytes = buf[b - w0];
      if (!bytes) return std::unexpected(bytes.error());
      if (auto t = take(b, *bytes, crc32(bytes->data(), bytes->size())); !t) return t;
    }
  }
  return {};
}

std::expected<void, TableError> write_table(const fs::path& path, const Variant& v, const ClassKey& key,
                                            const std::vector<std::uint8_t>& value_bytes, int value_width,
                                            int zstd_level, const std::vector<Index>* subset, int threads,
                                            TableContent content) {
  TableHeader h = table_header(v, key, value_bytes.size() / static_cast<std::size_t>(value_width), value_width, content);
  if (h.variant.empty() || h.variant.size() > kMaxNameBytes)
    return std::unexpected(TableError{TableError::Internal, "variant name '" + h.variant + "' does not fit a table header"});
  const ValueRange all{value_bytes.data(), 0, h.positions, h.positions, h.value_width};
  TableCoder coder(h.positions, h.value_width);
  while (!coder.done())
    if (auto a = coder.add_counts(coder.count(all)); !a) return a;
  coder.describe(h);
  if (h.block_count > 0xFFFFFFFFull) return std::unexpected(TableError{TableError::Internal, "too many blocks for a table"});
  const std::size_t blocks = static_cast<std::size_t>(h.block_count);
  std::vector<std::uint64_t> offsets(blocks + 1, 0);
  std::vector<std::uint32_t> crcs(blocks, 0);
  const TableLayout layout{table_head(h).size(), blocks};

  return replace_file(path, [&](int fd, const FileSink& write) -> std::expected<void, TableError> {
    if (auto w = write(std::string(layout.data_at(), '\0')); !w) return w;
    // The blocks go to the file a MiB at a time (a write a block of a few hundred bytes
    // had been 55,204 system calls for Kalah(6) up to 20 seeds).
    std::uint64_t written = 0;
    std::string pending;
    constexpr std::size_t kFlushBytes = std::size_t{1} << 20;
    auto coded = encode_blocks(coder, all, 0, blocks, threads,
                               [&](std::uint64_t b, const std::string& bytes, std::uint32_t crc) -> std::expected<void, TableError> {
                                 pending += bytes;
                                 if (pending.size() >= kFlushBytes) {
                                   if (auto w = write(pending); !w) return w;
                                   pending.clear();
                                 }
                                 written += bytes.size();
                                 offsets[b + 1] = written;
                                 crcs[b] = crc;
                                 return {};
                               });
    if (!coded) return coded;
    if (!pending.empty())
      if (auto w = write(pending); !w) return w;
    if (subset) {
      auto list = position_list_part(*subset, zstd_level, h);
      if (!list) return std::unexpected(list.error());
      if (auto w = write(*list); !w) return w;
    }
    if (auto w = write(std::string(8, '\0')); !w) return w;
    std::string head = table_head(h);
    for (const std::uint64_t o : offsets) put64(head, o);
    for (const std::uint32_t c : crcs) put32(head, c);
    if (head.size() != layout.data_at()) return std::unexpected(TableError{TableError::Internal, "table header size changed while writing"});
    if (::lseek(fd, 0, SEEK_SET) != 0) return std::unexpected(io_error(path, "cannot seek back to the header while writing"));
    return write(head);
  });
}

std::expected<void, Error> write_at(int fd, const fs::path& name, const void* bytes, std::size_t n, std::uint64_t at) {
  const auto* p = static_cast<const char*>(bytes);
  for (std::size_t done = 0; done < n;) {
    const ssize_t w = ::pwrite(fd, p + done, std::min<std::size_t>(n - done, std::size_t{1} << 30), static_cast<off_t>(at + done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return std::unexpected(io_error(name, "cannot write", w == 0 ? EIO : errno));
    done += static_cast<std::size_t>(w);
  }
  return {};
}

std::expected<PendingFile, Error> PendingFile::create(const fs::path& path) {
  const fs::path tmp = path.string() + ".tmp." + std::to_string(getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return std::unexpected(io_error(tmp, "cannot create"));
  return PendingFile(fd, path, tmp);
}

PendingFile::~PendingFile() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(tmp_.c_str());
}

std::expected<void, Error> PendingFile::commit() {
  // Atomic write: fsync, close, rename, fsync the folder; every result checked (a
  // full disk may only show at fsync or close).
  const int fd = std::exchange(fd_, -1);
  if (::fsync(fd) != 0) {
    auto err = io_error(tmp_, "cannot write");
    ::close(fd);
    ::unlink(tmp_.c_str());
    return std::unexpected(err);
  }
  if (::close(fd) != 0) {
    auto err = io_error(tmp_, "cannot close");
    ::unlink(tmp_.c_str());
    return std::unexpected(err);
  }
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    auto err = io_error(path_, "cannot rename into place");
    ::unlink(tmp_.c_str());
    return std::unexpected(err);
  }
  const fs::path dir = path_.has_parent_path() ? path_.parent_path() : fs::path(".");
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return std::unexpected(io_error(dir, "cannot open the folder to sync it"));
  if (::fsync(dfd) != 0) {
    auto err = io_error(dir, "cannot sync the folder");
    ::close(dfd);
    return std::unexpected(err);
  }
  if (::close(dfd) != 0) return std::unexpected(io_error(dir, "cannot close the folder"));
  return {};
}

std::expected<void, Error> replace_file(const fs::path& path,
                                        const std::function<std::expected<void, Error>(int, const FileSink&)>& fill) {
  auto file = PendingFile::create(path);
  if (!file) return std::unexpected(file.error());
  const FileSink sink = [&](const std::string& bytes) -> std::expected<void, Error> {
    if (!write_all(file->fd(), bytes)) return std::unexpected(io_error(file->temporary(), "cannot write"));
    return {};
  };
  if (auto filled = fill(file->fd(), sink); !filled) return filled;  // the destructor removes the temporary
  return file->commit();
}

// ---- Folder lock --------------------------------------------------------------

std::expected<FolderLock, TableError> FolderLock::acquire(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return std::unexpected(TableError{TableError::Io, dir.string() + ": cannot create folder: " + ec.message()});
  const fs::path path = dir / kLockFileName;
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return std::unexpected(io_error(path, "cannot create the lock file"));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      char pid[32] = {};
      const ssize_t r = ::pread(fd, pid, sizeof pid - 1, 0);
      ::close(fd);
      if (err != EWOULDBLOCK) return std::unexpected(io_error(path, "cannot lock", err));
      std::string owner = r > 0 ? std::string(pid, static_cast<std::size_t>(r)) : std::string();
      while (!owner.empty() && (owner.back() == '\n' || owner.back() == ' ')) owner.pop_back();
      return std::unexpected(TableError{TableError::Io, dir.string() + ": in use by another generate" +
                                                            (owner.empty() ? std::string() : " (process " + owner + ")") +
                                                            " (lock file " + path.string() + ")"});
    }
    // The previous owner may have removed the file between our open and flock:
    // then we hold a lock on a file no one else sees; start again.
    struct stat a {}, b {};
    if (::fstat(fd, &a) != 0 || ::stat(path.c_str(), &b) != 0 || a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
      ::close(fd);
      continue;
    }
    const std::string pid = std::to_string(getpid()) + "\n";
    if (::ftruncate(fd, 0) != 0 || !write_all(fd, pid)) {
      auto err = io_error(path, "cannot write the lock file");
      ::close(fd);
      return std::unexpected(err);
    }
    return FolderLock(fd, path);
  }
  return std::unexpected(TableError{TableError::Io, path.string() + ": the lock file keeps changing"});
}

FolderLock::~FolderLock() {
  if (fd_ < 0) return;
  // Remove while still locked, so a waiting process that opened this file notices
  // (its inode check fails) and takes a fresh one.
  ::unlink(path_.c_str());
  ::close(fd_);
}

}  // namespace mancala
