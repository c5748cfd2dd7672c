// A scratch file for data that does not fit in a memory budget: created in a folder
// and unlinked at once, so its data goes with the process, even one killed. Written
// and read at byte offsets (pwrite / pread: any thread, no shared position). The
// kernel's page cache keeps what it can of it, outside the process's resident set.
//
// Used by the lower classes paged out of a generation (tablebase/lower_store.h) and
// by the sweeps' kept ranks of the first sweep (class_solver.h, "Kept ranks").
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "mancala/error.h"

namespace mancala {

class TempFile {
 public:
  // A new empty file in `dir`; `name` says what it holds in error messages.
  // Errors: Io (the folder cannot take a file).
  static Result<std::unique_ptr<TempFile>> create(const std::filesystem::path& dir, std::string name);
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  // Errors: Io with the system's reason (e.g. the disk is full; a short read).
  Result<void> write(std::uint64_t at, std::span<const std::byte> bytes) const;
  Result<void> read(std::uint64_t at, std::span<std::byte> bytes) const;
  const std::string& name() const { return name_; }

 private:
  TempFile(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}
  int fd_;
  std::string name_;
};

}  // namespace mancala
