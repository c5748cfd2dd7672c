// Solved values of classes, kept in memory: one byte per position for score games,
// two for win/loss games (Value encoding of types.h).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "mancala/index.h"

namespace mancala {

class ClassValues {
 public:
  ClassValues(ClassIndex index, GameKind kind)
      : index_(std::move(index)), width_(kind == GameKind::Score ? 1 : 2),
        bytes_(static_cast<std::size_t>(index_.size()) * static_cast<std::size_t>(width_)) {}

  const ClassIndex& index() const { return index_; }
  int width() const { return width_; }
  Index size() const { return index_.size(); }
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
