// Writing table files: generation only, never installed with the probe library (an
// engine links the reader of format.h alone). The layout is format.h's.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mancala/format.h"

namespace mancala {

// The position list of a reachable-set table (format.h), before compression.
std::string encode_position_list(const std::vector<Index>& ranks);

// Replaces `path` atomically: `fill` writes the content of a temporary file in the same
// folder, through `write` (bytes at the current offset; an Io error naming the file) or
// its descriptor (to seek); then the file is synced, closed and renamed over `path`,
// and the folder synced, every result checked. A failed or killed writer leaves `path`
// as it was. Errors: Io, or what `fill` returned. (Tables, search.h's table files.)
using FileSink = std::function<std::expected<void, Error>(const std::string& bytes)>;
std::expected<void, Error> replace_file(const std::filesystem::path& path,
                                        const std::function<std::expected<void, Error>(int fd, const FileSink& write)>& fill);

// A temporary file beside `path` (`path`.tmp.PID) that replaces `path` atomically
// when committed: synced, closed, renamed over `path`, the folder synced, every
// result checked. Removed if never committed. replace_file is create, fill, commit;
// a writer that fills it from several processes (mancala-tb-mpi: every rank writes its
// blocks with pwrite on a shared file system) opens temporary() itself.
class PendingFile {
 public:
  PendingFile(PendingFile&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)), tmp_(std::move(o.tmp_)) { o.fd_ = -1; }
  PendingFile& operator=(PendingFile&&) = delete;
  PendingFile(const PendingFile&) = delete;
  ~PendingFile();
  // Errors: Io.
  static std::expected<PendingFile, Error> create(const std::filesystem::path& path);
  int fd() const { return fd_; }
  const std::filesystem::path& temporary() const { return tmp_; }
  // Errors: Io (the file is removed and `path` left as it was).
  std::expected<void, Error> commit();

 private:
  PendingFile(int fd, std::filesystem::path path, std::filesystem::path tmp)
      : fd_(fd), path_(std::move(path)), tmp_(std::move(tmp)) {}
  int fd_ = -1;
  std::filesystem::path path_, tmp_;
};
// Writes `bytes` at offset `at` of `fd` (pwrite until done). Errors: Io, naming `name`.
std::expected<void, Error> write_at(int fd, const std::filesystem::path& name, const void* bytes, std::size_t n,
                                    std::uint64_t at);

// Writes a table atomically (replace_file). `value_bytes` holds W = value_width bytes
// a position; `content` says whether they are values or distances (format.h). The
// blocks are coded by up to `threads` threads (the file's bytes do not depend on it);
// `zstd_level` compresses the position list of a reachable-set table.
std::expected<void, TableError> write_table(const std::filesystem::path& path, const Variant& v, const ClassKey& key,
                                            const std::vector<std::uint8_t>& value_bytes, int value_width,
                                            int zstd_level = 9, const std::vector<Index>* subset = nullptr, int threads = 1,
                                            TableContent content = TableContent::Values);

// ---- The stages of write_table ----------------------------------------------------
// write_table is these stages run in one process; `mancala-tb-mpi` runs the same
// stages over its ranks, each on its own blocks, and so writes the same bytes
// (cluster/README.md "Writing"):
//
//   1. the code: while !coder.done(), every part of the table is counted
//      (coder.count), the counts are summed over the parts (SymbolCounts::add) and
//      given back (coder.add_counts);
//   2. the blocks: coder.encode_block(range, b) for each block b, its CRC crc32 of
//      its bytes, its offset the sum of the sizes of the blocks before it;
//   3. the rest: table_head (the bytes [0, H + 4): header, code, header CRC), the
//      block offsets and CRCs at TableLayout's places, the position list of a
//      reachable-set table (position_list_part) after the blocks, 8 zero bytes.

// The values (W bytes each) of positions [first, first + count) of a table of `total`
// positions: the whole table, or one process's part of it.
struct ValueRange {
  const std::uint8_t* bytes = nullptr;
  std::uint64_t first = 0, count = 0, total = 0;
  std::uint32_t width = 1;
};

// The symbol counts of one counting round of a TableCoder over some units of a table;
// counts of disjoint parts add up to the whole table's. to_bytes / from_bytes carry
// them between processes.
class SymbolCounts {
 public:
  SymbolCounts();
  SymbolCounts(SymbolCounts&&) noexcept;
  SymbolCounts& operator=(SymbolCounts&&) noexcept;
  ~SymbolCounts();
  void add(const SymbolCounts& o);
  std::string to_bytes() const;
  // Errors: Corrupt (not what to_bytes makes).
  static std::expected<SymbolCounts, Error> from_bytes(const std::string& bytes);
  struct Parts;  // table_writer.cpp's

 private:
  friend class TableCoder;
  std::unique_ptr<Parts> parts_;
};

// The code of one table (format.h: tuples of k values, runs, canonical Huffman),
// chosen from the counts of its values over one or more counting rounds; then the
// coder of its blocks. Every process that holds the same summed counts builds the
// same code.
class TableCoder {
 public:
  TableCoder(std::uint64_t positions, std::uint32_t width);
  TableCoder(TableCoder&&) noexcept;
  ~TableCoder();
  std::uint64_t positions() const { return positions_; }
  std::uint32_t unit_positions() const { return kDefaultUnitPositions; }
  std::uint64_t block_positions() const { return std::uint64_t{kDefaultUnitPositions} * kDefaultUnitsPerBlock; }
  std::uint64_t blocks() const { return (positions_ + block_positions() - 1) / block_positions(); }
  // Whether the code is chosen (else another counting round is due).
  bool done() const;
  // This round's counts of the units of `r` (r.first a multiple of unit_positions(); r
  // ends at a unit's end or at the table's; r.total = positions()).
  SymbolCounts count(const ValueRange& r) const;
  // The round's counts summed over the whole table. Errors: Internal (more symbols
  // than a code may have).
  std::expected<void, TableError> add_counts(const SymbolCounts& whole);
  // Once done(): the code's fields of the header (tuple, code lengths, runs, symbols).
  void describe(TableHeader& h) const;
  // Once done(): block b's bytes; `r` holds every position of the block (and the
  // table's last position when b is the last block). Errors: Internal.
  std::expected<std::string, TableError> encode_block(const ValueRange& r, std::uint64_t b) const;

 private:
  struct Code;
  std::uint64_t positions_;
  std::uint32_t width_;
  int round_ = 0;
  std::unique_ptr<Code> code_;
};

// Blocks [b0, b1) of a done `coder` (their positions in `r`), coded by up to `threads`
// threads a window at a time and handed to `take` in order, each with its CRC (the
// bytes do not depend on `threads`). Errors: encode_block's, or take's.
using BlockSink = std::function<std::expected<void, TableError>(std::uint64_t b, const std::string& bytes, std::uint32_t crc)>;
std::expected<void, TableError> encode_blocks(const TableCoder& coder, const ValueRange& r, std::uint64_t b0,
                                              std::uint64_t b1, int threads, const BlockSink& take);

// The header of a table of class `key` of `v` (every field but the code's, which
// TableCoder::describe fills, and the position list's, which position_list_part's
// caller fills).
TableHeader table_header(const Variant& v, const ClassKey& key, std::uint64_t positions, int value_width,
                         TableContent content);
// The bytes [0, H + 4) of a table: the header, its code and the header CRC.
std::string table_head(const TableHeader& h);
// Where the parts of a table file go (format.h): the block offsets o_0..o_N (8 bytes
// each), their CRCs (4 bytes each), then the blocks from data_at() (= D).
struct TableLayout {
  std::uint64_t head_bytes = 0;  // H + 4
  std::uint64_t blocks = 0;      // N
  std::uint64_t offsets_at() const { return head_bytes; }
  std::uint64_t crcs_at() const { return offsets_at() + 8 * (blocks + 1); }
  std::uint64_t data_at() const { return crcs_at() + 4 * blocks; }
};
// The position list of a reachable-set table, compressed (`zstd_level`), and the
// header fields it sets (subset_size, subset_bytes, subset_crc). Errors: Internal.
std::expected<std::string, TableError> position_list_part(const std::vector<Index>& ranks, int zstd_level,
                                                         TableHeader& h);

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
