// Solved values of classes: one byte per position for score games, two for win/loss
// games (Value encoding of types.h). A class is kept whole in memory, or (generate
// --memory-mb: tablebase/include/mancala/lower_store.h) read a block at a time from
// its table file through a bounded cache ("paged").
#pragma once

#include <cstdint>
#include <expected>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "mancala/error.h"
#include "mancala/index.h"

namespace mancala {

// Positions [first, first + count) of a paged class, `width` bytes each. The block
// stays valid while a ValueBlock holds it, even once its cache has dropped it.
struct ValueBlock {
  Index first = 0, count = 0;
  std::shared_ptr<const std::vector<std::uint8_t>> bytes;
};
// Where a paged class reads its values from (a table file through a block cache).
class ValuePages {
 public:
  virtual ~ValuePages() = default;
  // The block holding position i (< the class size), or why it cannot be read (Io: a
  // failed or short read; Corrupt: a damaged block, checksum, size, zstd frame).
  virtual Result<ValueBlock> block(Index i) const = 0;
};

class ClassValues {
 public:
  ClassValues(ClassIndex index, GameKind kind)
      : index_(std::move(index)), width_(kind == GameKind::Score ? 1 : 2),
        bytes_(static_cast<std::size_t>(index_.size()) * static_cast<std::size_t>(width_)) {}
  // Takes the value bytes (index.size() * width of them) without a zeroed copy first.
  ClassValues(ClassIndex index, GameKind kind, std::vector<std::uint8_t> bytes)
      : index_(std::move(index)), width_(kind == GameKind::Score ? 1 : 2), bytes_(std::move(bytes)) {}
  // A paged class: no bytes in memory, values read through `pages`.
  ClassValues(ClassIndex index, GameKind kind, std::shared_ptr<const ValuePages> pages)
      : index_(std::move(index)), width_(kind == GameKind::Score ? 1 : 2), pages_(std::move(pages)) {}

  const ClassIndex& index() const { return index_; }
  int width() const { return width_; }
  Index size() const { return index_.size(); }
  // Whole in memory (bytes() holds every value); else paged (pages()).
  bool whole() const { return !pages_; }
  const ValuePages* pages() const { return pages_.get(); }
  // The value of position i of a whole class (get) or of any class (read).
  Result<Value> read(Index i) const {
    if (!pages_) return get(i);
    auto b = pages_->block(i);
    if (!b) return std::unexpected(b.error());
    const std::uint8_t* at = b->bytes->data() + static_cast<std::size_t>(i - b->first) * static_cast<std::size_t>(width_);
    return width_ == 1 ? Value{static_cast<std::int8_t>(at[0])} : static_cast<Value>(static_cast<std::uint16_t>(at[0] | (at[1] << 8)));
  }
  Value get(Index i) const {
    if (width_ == 1) return static_cast<std::int8_t>(bytes_[static_cast<std::size_t>(i)]);
    const std::size_t at = static_cast<std::size_t>(i) * 2;
    return static_cast<Value>(static_cast<std::uint16_t>(bytes_[at] | (bytes_[at + 1] << 8)));
  }
  void set(Index i, Value v) {
    if (width_ == 1) {
      bytes_[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(static_cast<std::int8_t>(v));
      return;
    }
    const std::size_t at = static_cast<std::size_t>(i) * 2;
    const auto u = static_cast<std::uint16_t>(v);
    bytes_[at] = static_cast<std::uint8_t>(u & 0xFF);
    bytes_[at + 1] = static_cast<std::uint8_t>(u >> 8);
  }
  // Raw little-endian value bytes (the table files store exactly these).
  std::vector<std::uint8_t>& bytes() { return bytes_; }
  const std::vector<std::uint8_t>& bytes() const { return bytes_; }

 private:
  ClassIndex index_;
  int width_;
  std::vector<std::uint8_t> bytes_;
  std::shared_ptr<const ValuePages> pages_;
};

// The classes solved so far, by key.
class SolvedClasses {
 public:
  void add(std::shared_ptr<const ClassValues> c) { map_[c->index().key()] = std::move(c); }
  const ClassValues* find(const ClassKey& k) const {
    const auto it = map_.find(k);
    return it == map_.end() ? nullptr : it->second.get();
  }
  std::size_t size() const { return map_.size(); }
  std::uint64_t positions() const {
    std::uint64_t n = 0;
    for (const auto& [k, v] : map_) n += v->size();
    return n;
  }

 private:
  std::unordered_map<ClassKey, std::shared_ptr<const ClassValues>, ClassKeyHash> map_;
};

}  // namespace mancala
