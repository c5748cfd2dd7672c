// Edits the bytes of a table file (format version 7, format.h) and recomputes its
// checksums, as a hostile writer would: the regression tests craft their files with
// it, and the table fuzzer's mutator keeps mutated files past the checksums.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mancala/format.h"

namespace mancala::table_bytes {

// Offsets of the fixed header fields (format.h).
enum Field : std::size_t {
  kVersion = 8, kHeaderBytes = 12, kKind = 16, kPits = 20, kState = 24, kSeeds = 32, kIndexVersion = 36,
  kFilterFrom = 40, kFilterTo = 44, kPositions = 48, kValueWidth = 56, kUnitPositions = 60, kUnitsPerBlock = 64,
  kListCrc = 68, kListSize = 72, kListBytes = 80, kVariantBytes = 88, kGeneratorBytes = 90, kContent = 92,
  kBlocks = 96, kCodeBytes = 100
};

inline std::uint64_t get(const std::vector<std::uint8_t>& b, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | b[at + static_cast<std::size_t>(i)];
  return v;
}
inline void put(std::vector<std::uint8_t>& b, std::size_t at, int bytes, std::uint64_t v) {
  for (int i = 0; i < bytes; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
}
inline std::uint32_t get32(const std::vector<std::uint8_t>& b, std::size_t at) { return static_cast<std::uint32_t>(get(b, at, 4)); }
inline std::uint64_t get64(const std::vector<std::uint8_t>& b, std::size_t at) { return get(b, at, 8); }
inline void put32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) { put(b, at, 4, v); }
inline void put64(std::vector<std::uint8_t>& b, std::size_t at, std::uint64_t v) { put(b, at, 8, v); }

// Where the variable parts are, from the (possibly edited) fields.
struct Layout {
  std::size_t header = 0;   // H
  std::size_t code = 0;     // the code
  std::size_t offsets = 0;  // first block offset (H + 4)
  std::size_t crcs = 0;     // first block CRC
  std::uint64_t blocks = 0;
  std::size_t data = 0;     // D
};
inline bool layout(const std::vector<std::uint8_t>& b, Layout& l) {
  if (b.size() < kFixedHeaderBytes + 4) return false;
  l.header = get32(b, kHeaderBytes);
  l.blocks = get32(b, kBlocks);
  l.code = kFixedHeaderBytes + get(b, kVariantBytes, 2) + get(b, kGeneratorBytes, 2);
  l.offsets = l.header + 4;
  l.crcs = l.offsets + 8 * (l.blocks + 1);
  l.data = l.crcs + 4 * l.blocks;
  return l.header >= kFixedHeaderBytes && l.header + 4 <= b.size() && l.data <= b.size();
}

// Recomputes every checksum the fields let it find: each block's, the position
// list's, then the header's. False when the header does not fit the bytes.
inline bool fix_checksums(std::vector<std::uint8_t>& b) {
  Layout l;
  if (!layout(b, l)) {
    // Still fix the header CRC if its place is inside the bytes.
    const std::size_t h = b.size() >= 16 ? get32(b, kHeaderBytes) : 0;
    if (h >= 16 && h + 4 <= b.size()) put32(b, h, crc32(b.data(), h));
    return false;
  }
  for (std::uint64_t k = 0; k < l.blocks; ++k) {
    const std::uint64_t from = get64(b, l.offsets + 8 * k), to = get64(b, l.offsets + 8 * (k + 1));
    if (from <= to && to <= b.size() - l.data)
      put32(b, l.crcs + 4 * k, crc32(b.data() + l.data + from, static_cast<std::size_t>(to - from)));
  }
  const std::uint64_t list_at = get64(b, l.offsets + 8 * l.blocks), list_bytes = get64(b, kListBytes);
  if (list_at <= b.size() - l.data && list_bytes <= b.size() - l.data - list_at)
    put32(b, kListCrc, crc32(b.data() + l.data + list_at, static_cast<std::size_t>(list_bytes)));
  put32(b, l.header, crc32(b.data(), l.header));
  return true;
}

}  // namespace mancala::table_bytes
