// Writing table files: generation only, never installed with the probe library (an
// engine links the reader of format.h alone). The layout is format.h's.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
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

// Writes a table atomically (replace_file). `value_bytes` holds W = value_width bytes
// a position; `content` says whether they are values or distances (format.h). The
// blocks are coded by up to `threads` threads (the file's bytes do not depend on it);
// `zstd_level` compresses the position list of a reachable-set table.
std::expected<void, TableError> write_table(const std::filesystem::path& path, const Variant& v, const ClassKey& key,
                                            const std::vector<std::uint8_t>& value_bytes, int value_width,
                                            int zstd_level = 9, const std::vector<Index>* subset = nullptr, int threads = 1,
                                            TableContent content = TableContent::Values);

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
