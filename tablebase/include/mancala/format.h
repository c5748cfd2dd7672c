// Tablebase file format: one file per class, values in independent zstd blocks.
//
// A table file is input from outside (shared folders, downloads, other clusters):
// the reader checks every count and offset against the file size, and the header
// against the variant and the class the file name gives, before it allocates or
// indexes anything (see TableFile::open). No general-purpose deserializer reads it.
//
// Layout (format version 3; every integer little-endian, no padding):
//
//   offset    size    field
//   0         8       magic "MANCALTB"
//   8         4       format version (kFormatVersion)
//   12        4       H: header bytes, = 96 + V + G + 12 N + 8 (the header CRC is at H)
//   16        4       value kind (GameKind: 0 score, 1 win/loss)
//   20        4       pits on the circuit
//   24        8       class state (ClassKey::state)
//   32        4       class seeds (ClassKey::seeds)
//   36        4       index version (kIndexVersion: ClassIndex ranking of index.h)
//   40        4       index filter zero_from (int32)
//   44        4       index filter zero_to (int32)
//   48        8       positions in the table
//   56        4       value width W: 1 (int8 margin) or 2 (int16 win/loss, types.h)
//   60        4       block positions B, 1 <= B <= kMaxBlockPositions
//   64        4       blocks N = ceil(positions / B)
//   68        4       CRC-32 of the position list (0 without one)
//   72        8       position-list length (reachable-set tables: = positions; else 0)
//   80        8       S: position-list bytes (compressed)
//   88        2       V: variant name bytes, 1 <= V <= kMaxNameBytes
//   90        2       G: generator bytes, G <= kMaxNameBytes
//   92        4       content (TableContent): 0 values, 1 distances (distances.h:
//                     value width 2, unsigned plies; score games with cycles only)
//   96        V       variant name, e.g. "kalah:6:empty" (printable ASCII)
//   96+V      G       generator, e.g. "mancala-tb 0.1.0" (printable ASCII)
//   96+V+G    8(N+1)  block offsets o_0 = 0 < o_1 < ... < o_N, from the first block
//   ...       4N      CRC-32 of each compressed block
//   H         4       CRC-32 of bytes [0, H)
//   H+4       o_N     blocks: block b is bytes [H+4+o_b, H+4+o_{b+1}), one zstd frame
//                     (with its content checksum) holding the values of positions
//                     [b B, min((b+1) B, positions)), W bytes each
//   H+4+o_N   S       reachable-set tables only: the position list (below)
//   end of file = H + 4 + o_N + S   (a shorter or longer file is corrupt)
//
// Position i of the table is the one with ClassIndex rank i. A reachable-set table
// (`generate --from`) holds the positions of its class reachable from a root: its
// position list is their full ranks r_0 < r_1 < ... < r_{n-1} < full class size,
// written as the LEB128 varints (7 bits a byte, low first, high bit = more; at
// most 10 bytes, no superfluous zero byte) of r_0, r_1 - r_0, ..., r_{n-1} - r_{n-2},
// zstd-compressed. Every difference after the first is at least 1.
//
// Worked example: oware, 2 seeds in play: 78 positions, one block (N = 1) of 78
// bytes compressed to ~30; V = 5 ("oware"), G = 16, H = 96 + 5 + 16 + 12 + 8 = 137;
// the file is oware.2.0000000000000000.mtb, 141 + ~30 bytes.
//
// Files of format versions 1 and 2 (a Boost text archive as header) are refused
// with "made by an older format version N; regenerate".
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "mancala/distance_tables.h"
#include "mancala/error.h"
#include "mancala/index.h"
#include "mancala/variant.h"

namespace mancala {

constexpr char kMagic[8] = {'M', 'A', 'N', 'C', 'A', 'L', 'T', 'B'};
constexpr std::uint32_t kFormatVersion = 3;  // 2: reachable-set position lists; 3: binary header
constexpr std::uint32_t kIndexVersion = 1;
constexpr std::uint32_t kDefaultBlockPositions = 1u << 16;
constexpr std::uint32_t kMaxBlockPositions = 1u << 24;  // a block decompresses to at most 32 MiB
constexpr std::uint32_t kMaxNameBytes = 64;
constexpr std::uint32_t kFixedHeaderBytes = 96;

// What a table file holds: the values of its positions (VARIANT.SEEDS.STATE.mtb), or
// their distances to the next exit along value-optimal moves (distances.h; the same
// name with .mtz, value width 2: unsigned 16-bit plies).
enum class TableContent : std::uint32_t { Values = 0, Distances = 1 };

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
  TableContent content = TableContent::Values;

  // Only meaningful once the header has been checked against a variant (seeds fits).
  ClassKey key() const { return ClassKey{state, static_cast<int>(seeds)}; }
  std::size_t blocks() const { return block_crc.size(); }
};

// The library's one error type (mancala/error.h); the table code uses Io, Corrupt,
// Mismatch, NotFound, BadPosition and Internal.
using TableError = Error;

// "oware.12.0000000000000000.mtb" (values), "oware.12.0000000000000000.mtz" (distances)
std::string table_file_name(const std::string& variant, const ClassKey& key,
                            TableContent content = TableContent::Values);

// The inverse of table_file_name for a file name (no folder): the variant spec (':'
// restored) and the class, or InvalidArgument saying why the name is impossible: not of the form
// VARIANT.SEEDS.STATE.mtb or .mtz (decimal seeds, 16 lower-case hex digits), an unknown or
// non-canonical variant, or a class that variant cannot have (check_class_key).
struct TableName {
  VariantPtr variant;
  ClassKey key;
  TableContent content = TableContent::Values;
};
Result<TableName> parse_table_file_name(const std::string& name);

// Empty when `key` can be a class of `v`: 0 <= seeds <= total seeds, a state whose
// marks, flags and jeppe round-trip (skeleton_of / pack_state) and that is the
// canonical (smaller) orientation; else what is wrong. Cheap: builds no index.
std::string check_class_key(const Variant& v, const ClassKey& key);

std::uint32_t crc32(const void* data, std::size_t n);
// Little-endian fields: appended to a string, read from bytes (the layouts here and
// search.h's table file).
void put16(std::string& s, std::uint16_t v);
void put32(std::string& s, std::uint32_t v);
void put64(std::string& s, std::uint64_t v);
std::uint16_t get16(const unsigned char* p);
std::uint32_t get32(const unsigned char* p);
std::uint64_t get64(const unsigned char* p);

// The position list of a reachable-set table (layout above): encode, and decode with
// every check (varint length and minimality, strictly increasing ranks below
// `full_size`, exactly `count` of them, nothing left over); a bad list is Corrupt.
std::string encode_position_list(const std::vector<Index>& ranks);
Result<std::vector<Index>> decode_position_list(const unsigned char* data, std::size_t n, std::uint64_t count,
                                               Index full_size);

// Replaces `path` atomically: `fill` writes the content of a temporary file in the same
// folder, through `write` (bytes at the current offset; an Io error naming the file) or
// its descriptor (to seek); then the file is synced, closed and renamed over `path`,
// and the folder synced, every result checked. A failed or killed writer leaves `path`
// as it was. Errors: Io, or what `fill` returned. (Tables, search.h's table files.)
using FileSink = std::function<std::expected<void, Error>(const std::string& bytes)>;
std::expected<void, Error> replace_file(const std::filesystem::path& path,
                                        const std::function<std::expected<void, Error>(int fd, const FileSink& write)>& fill);

// Writes a table atomically: a temporary file in the same folder, written, synced
// and closed (each result checked), renamed over `path`, folder synced. A killed
// writer leaves no file named `path`. The blocks are compressed by up to `threads`
// threads (the file's bytes do not depend on it).
std::expected<void, TableError> write_table(const std::filesystem::path& path, const Variant& v, const ClassKey& key,
                                            const std::vector<std::uint8_t>& value_bytes, int value_width,
                                            int zstd_level = 9, const std::vector<Index>* subset = nullptr,
                                            int threads = 1, TableContent content = TableContent::Values);

// A table file open for reading. Thread-safe: blocks are decompressed on demand into
// a small cache under a mutex.
class TableFile {
 public:
  // Reads and checks the header: magic, version, every field's range, the header
  // checksum, the block offsets and the file size. Values and the position list are
  // read later (each checked by its own checksum).
  static std::expected<std::shared_ptr<TableFile>, TableError> open(const std::filesystem::path& path);
  // open() plus check_against(v, key): the way to open the file that should hold
  // class `key` of `v` (the key its name gives).
  // `content`: what the file must hold (a distance file opened as values, or the
  // reverse, is a Mismatch).
  static std::expected<std::shared_ptr<TableFile>, TableError> open(const std::filesystem::path& path,
                                                                     const Variant& v, const ClassKey& key,
                                                                     TableContent content = TableContent::Values);

  const TableHeader& header() const { return header_; }
  const std::filesystem::path& path() const { return path_; }
  std::expected<Value, TableError> value(Index i) const;
  // Every value, checking every block checksum.
  std::expected<std::vector<std::uint8_t>, TableError> read_all() const;
  // The values of block b alone (positions [b B, (b+1) B)), checked as read_all does.
  std::expected<std::vector<std::uint8_t>, TableError> read_block(std::size_t b) const { return block(b); }
  // Checks that the header matches a variant (name, pits, kind, index version, value
  // width, filter) and the class `key` (state, seeds, and a position count that
  // class can hold). The key is checked with check_class_key before any index is built.
  std::expected<void, TableError> check_against(const Variant& v, const ClassKey& key) const;
  // The same with the class the header names.
  std::expected<void, TableError> check_against(const Variant& v) const;
  // The class index of the table's positions (with its checked position list),
  // built once. Checks the header against `v` first.
  std::expected<std::shared_ptr<const ClassIndex>, TableError> index(const Variant& v) const;

 private:
  std::expected<std::vector<std::uint8_t>, TableError> block(std::size_t b) const;
  std::expected<std::shared_ptr<const std::vector<Index>>, TableError> position_list(Index full_size) const;

  std::filesystem::path path_;
  TableHeader header_;
  std::uint64_t data_start_ = 0;
  mutable std::mutex mu_;
  mutable std::vector<std::pair<std::size_t, std::shared_ptr<const std::vector<std::uint8_t>>>> cache_;
  mutable std::shared_ptr<const ClassIndex> index_;
};

// An exclusive lock on a table folder for one writer (`generate`, `mancala-tb-mpi
// generate`): DIR/mancala-tb.lock holding the owner's pid, locked with flock(2), so
// a killed owner releases it at once. Released (and the file removed) when the
// FolderLock is destroyed. Readers (probe, verify, info) take no lock.
class FolderLock {
 public:
  FolderLock(FolderLock&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }
  FolderLock& operator=(FolderLock&&) = delete;
  FolderLock(const FolderLock&) = delete;
  ~FolderLock();
  const std::filesystem::path& path() const { return path_; }

  // Creates `dir` if needed and locks it; fails at once (Io) if another process
  // holds the lock, naming it.
  static std::expected<FolderLock, TableError> acquire(const std::filesystem::path& dir);

 private:
  FolderLock(int fd, std::filesystem::path p) : fd_(fd), path_(std::move(p)) {}
  int fd_ = -1;
  std::filesystem::path path_;
};
constexpr const char* kLockFileName = "mancala-tb.lock";

}  // namespace mancala
