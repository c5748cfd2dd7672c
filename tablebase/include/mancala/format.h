// Tablebase file format: one file per class, values in independent zstd blocks.
//
// Layout of a file (all integers little-endian):
//
//   offset      size  field
//   0           8     magic "MANCALTB"
//   8           4     format version (kFormatVersion)
//   12          4     H = length of the header archive
//   16          H     TableHeader as a Boost.Serialization text archive
//   16+H        4     CRC-32 of bytes [0, 16+H)
//   20+H        ...   blocks: block b is bytes [20+H+offsets[b], 20+H+offsets[b+1]),
//                     a zstd frame (with its content checksum) holding the values of
//                     positions [b*B, min((b+1)*B, positions)) of the class, B =
//                     block_positions, each value `value_width` bytes (1: int8
//                     margin; 2: int16 win/loss encoding of types.h).
//   ...         S     reachable-set tables only (subset_size > 0): the sorted full
//                     ranks of the positions the table holds (ClassIndex subset), as
//                     LEB128 varints of their differences, zstd-compressed; S =
//                     subset_bytes, CRC-32 subset_crc
//   end of file = 20+H+offsets.back()+S  (a shorter or longer file is corrupt)
//
// Position i of the class is the one with ClassIndex rank i (index_version names
// the ranking of enumerate/index.h). Each block also has a CRC-32 of its
// compressed bytes in the header, so verify and probe detect a flipped byte
// without trusting zstd alone.
//
// Worked example: oware, 2 seeds in play: 78 positions (C(13,11) - C(7,11)), one
// block of 78 bytes compressed to ~30; file name oware.2.0000000000000000.mtb.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mancala/index.h"
#include "mancala/variant.h"

namespace mancala {

constexpr char kMagic[8] = {'M', 'A', 'N', 'C', 'A', 'L', 'T', 'B'};
constexpr std::uint32_t kFormatVersion = 2;  // 2: reachable-set position lists
constexpr std::uint32_t kIndexVersion = 1;
constexpr std::uint32_t kDefaultBlockPositions = 1u << 16;

struct TableHeader {
  std::string variant;           // canonical variant name, e.g. "kalah:6:empty"
  std::uint32_t kind = 0;        // GameKind
  std::uint32_t pits = 0;
  std::uint64_t state = 0;       // ClassKey::state
  std::uint32_t seeds = 0;       // ClassKey::seeds
  std::uint32_t index_version = kIndexVersion;
  std::int32_t filter_from = 0, filter_to = 0;
  std::uint64_t positions = 0;
  std::uint32_t value_width = 1;
  std::uint32_t block_positions = kDefaultBlockPositions;
  std::vector<std::uint64_t> block_offsets;  // blocks + 1 entries, from the start of the blocks
  std::vector<std::uint32_t> block_crc;
  std::string generator;         // program and version that wrote the file
  std::uint64_t subset_size = 0; // reachable-set tables: positions held (= positions)
  std::uint64_t subset_bytes = 0;
  std::uint32_t subset_crc = 0;

  ClassKey key() const { return ClassKey{state, static_cast<int>(seeds)}; }
  std::size_t blocks() const { return block_crc.size(); }

  template <class Archive>
  void serialize(Archive& ar, unsigned /*version*/) {
    ar & variant & kind & pits & state & seeds & index_version & filter_from & filter_to & positions & value_width &
        block_positions & block_offsets & block_crc & generator & subset_size & subset_bytes & subset_crc;
  }
};

struct TableError {
  enum Code { Io, Corrupt, Mismatch, NotFound, BadPosition, Internal };
  Code code;
  std::string message;
};

// "oware.12.0000000000000000.mtb"
std::string table_file_name(const std::string& variant, const ClassKey& key);

std::uint32_t crc32(const void* data, std::size_t n);

// Writes a table atomically: a temporary file in the same folder, flushed and
// synced, then renamed over `path`. A killed writer leaves no file named `path`.
std::expected<void, TableError> write_table(const std::filesystem::path& path, const Variant& v, const ClassKey& key,
                                            const std::vector<std::uint8_t>& value_bytes, int value_width,
                                            int zstd_level = 9, const std::vector<Index>* subset = nullptr);

// A table file open for reading. Thread-safe: blocks are decompressed on demand into
// a small cache under a mutex.
class TableFile {
 public:
  static std::expected<std::shared_ptr<TableFile>, TableError> open(const std::filesystem::path& path);

  const TableHeader& header() const { return header_; }
  const std::filesystem::path& path() const { return path_; }
  std::expected<Value, TableError> value(Index i) const;
  // Every value, checking every block checksum.
  std::expected<std::vector<std::uint8_t>, TableError> read_all() const;
  // The values of block b alone (positions [b B, (b+1) B)), checked as read_all does.
  std::expected<std::vector<std::uint8_t>, TableError> read_block(std::size_t b) const { return block(b); }
  // Checks that the header matches a variant (name, pits, kind, index) and its key.
  std::expected<void, TableError> check_against(const Variant& v) const;
  // The sorted full ranks of a reachable-set table (null for a whole class).
  std::expected<std::shared_ptr<const std::vector<Index>>, TableError> subset() const;
  // The class index of the table's positions (with its subset), built once.
  std::expected<std::shared_ptr<const ClassIndex>, TableError> index(const Variant& v) const;

 private:
  std::expected<std::vector<std::uint8_t>, TableError> block(std::size_t b) const;

  std::filesystem::path path_;
  TableHeader header_;
  std::uint64_t data_start_ = 0;
  mutable std::mutex mu_;
  mutable std::vector<std::pair<std::size_t, std::shared_ptr<const std::vector<std::uint8_t>>>> cache_;
  mutable std::shared_ptr<const ClassIndex> index_;
};

}  // namespace mancala
