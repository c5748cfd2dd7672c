// The ghosts of the sweeps on several ranks (class_solver.h): which positions of one
// owner's slice a rank reads, and where each one's code is among those it received.
//
// A set of offsets in [0, size) of a slice, held as whichever of two forms is smaller:
//
//   bitmap: one bit an offset, and before each 64-bit word the count of the bits set
//           in the words before it (u32): 12 bytes a 64 offsets of the slice, 0.1875
//           bytes an offset whatever the count;
//   list:   the offsets in increasing order, 4 bytes each.
//
// Worked example: size 130, offsets {1, 3, 64, 129}. Bitmap: words (0b1010,
// 1 (bit 0), 2 (bit 1)), counts (0, 2, 3): 3 x 12 = 36 bytes; list: 16 bytes: the list
// is kept. index_of(64) = 2 (the bitmap would say counts[1] + popcount(word 1 below
// bit 0) = 2 + 0). The same set with 40 offsets takes 160 bytes as a list: the bitmap.
// Kotu-baendum's 20 M-position class on 2 ranks: about 5 M ghosts a rank of a 10 M
// slice, 1.9 MB as a bitmap against 20 MB as a list.
//
// index_of is the place of the ghost's code in the codes its owner sends each sweep,
// which are in increasing order of offset (for_each). The wire form (to_wire,
// from_wire) is the same two forms behind a tag word; a set received from another
// rank is checked (offsets in the slice, increasing, a bitmap of the slice's length)
// and refused with std::runtime_error otherwise.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace mancala::core {

class GhostSet {
 public:
  using Offset = std::uint32_t;

  // Bits of a slice being filled by threads (sweep 0): set() is atomic.
  class Builder {
   public:
    explicit Builder(std::uint64_t size = 0) : size_(size), bits_(words(size), 0) {}
    void set(Offset off) {
      std::atomic_ref<std::uint64_t>(bits_[off / 64]).fetch_or(std::uint64_t{1} << (off % 64), std::memory_order_relaxed);
    }
    std::uint64_t bytes() const { return bits_.capacity() * sizeof(std::uint64_t); }
    GhostSet finish() && { return GhostSet(size_, std::move(bits_)); }

   private:
    std::uint64_t size_;
    std::vector<std::uint64_t> bits_;
  };

  GhostSet() = default;
  // From a bitmap of words(size) words (bits at or past size clear).
  GhostSet(std::uint64_t size, std::vector<std::uint64_t> bits) : size_(size) {
    std::uint64_t count = 0;
    for (std::uint64_t w : bits) count += static_cast<std::uint64_t>(std::popcount(w));
    count_ = count;
    if (count * sizeof(Offset) <= bitmap_bytes(size)) {
      list_.reserve(static_cast<std::size_t>(count));
      for (std::size_t i = 0; i < bits.size(); ++i)
        for (std::uint64_t b = bits[i]; b; b &= b - 1)
          list_.push_back(static_cast<Offset>(i * 64 + static_cast<std::size_t>(std::countr_zero(b))));
    } else {
      bits_ = std::move(bits);
      before_.resize(bits_.size());
      std::uint32_t c = 0;
      for (std::size_t i = 0; i < bits_.size(); ++i) {
        before_[i] = c;
        c += static_cast<std::uint32_t>(std::popcount(bits_[i]));
      }
    }
  }

  std::uint64_t size() const { return size_; }    // the slice's length
  std::uint64_t count() const { return count_; }  // offsets in the set
  bool is_bitmap() const { return !bits_.empty(); }
  std::uint64_t bytes() const {
    return list_.capacity() * sizeof(Offset) + bits_.capacity() * sizeof(std::uint64_t) +
           before_.capacity() * sizeof(std::uint32_t);
  }
  // The place of `off` (which the set holds) among the set's offsets in order.
  std::size_t index_of(Offset off) const {
    if (!bits_.empty()) {
      const std::uint64_t w = bits_[off / 64], below = w & ((std::uint64_t{1} << (off % 64)) - 1);
      return before_[off / 64] + static_cast<std::size_t>(std::popcount(below));
    }
    return static_cast<std::size_t>(std::lower_bound(list_.begin(), list_.end(), off) - list_.begin());
  }
  // f(offset) for every offset of the set in increasing order.
  template <class F>
  void for_each(F&& f) const {
    if (!bits_.empty()) {
      for (std::size_t i = 0; i < bits_.size(); ++i)
        for (std::uint64_t b = bits_[i]; b; b &= b - 1)
          f(static_cast<Offset>(i * 64 + static_cast<std::size_t>(std::countr_zero(b))));
    } else {
      for (Offset o : list_) f(o);
    }
  }

  // The wire form: tag 0 and the list, or tag 1 and each bitmap word as two u32 (low first).
  std::vector<Offset> to_wire() const {
    std::vector<Offset> out;
    if (bits_.empty()) {
      out.reserve(list_.size() + 1);
      out.push_back(0);
      out.insert(out.end(), list_.begin(), list_.end());
    } else {
      out.reserve(2 * bits_.size() + 1);
      out.push_back(1);
      for (std::uint64_t w : bits_) {
        out.push_back(static_cast<Offset>(w));
        out.push_back(static_cast<Offset>(w >> 32));
      }
    }
    return out;
  }
  static GhostSet from_wire(const std::vector<Offset>& in, std::uint64_t size) {
    if (in.empty() || in[0] == 0) {  // a list: kept as it came (its sender chose it by the same rule)
      GhostSet g;
      g.size_ = size;
      for (std::size_t i = 1; i < in.size(); ++i)
        if (in[i] >= size || (i > 1 && in[i] <= in[i - 1]))
          throw std::runtime_error("a ghost list from another rank is out of its slice or out of order");
      if (!in.empty()) g.list_.assign(in.begin() + 1, in.end());
      g.count_ = g.list_.size();
      return g;
    }
    std::vector<std::uint64_t> bits(words(size), 0);
    if (in[0] != 1 || in.size() != 2 * bits.size() + 1)
      throw std::runtime_error("a ghost set from another rank has an unknown form or length");
    for (std::size_t i = 0; i < bits.size(); ++i) bits[i] = in[2 * i + 1] | (std::uint64_t{in[2 * i + 2]} << 32);
    if (size % 64 && !bits.empty() && (bits.back() >> (size % 64)))
      throw std::runtime_error("a ghost bitmap from another rank reaches past its slice");
    return GhostSet(size, std::move(bits));
  }

  static std::uint64_t words(std::uint64_t size) { return (size + 63) / 64; }
  static std::uint64_t bitmap_bytes(std::uint64_t size) { return words(size) * (sizeof(std::uint64_t) + sizeof(std::uint32_t)); }

 private:
  std::uint64_t size_ = 0, count_ = 0;
  std::vector<Offset> list_;
  std::vector<std::uint64_t> bits_;
  std::vector<std::uint32_t> before_;
};

}  // namespace mancala::core
