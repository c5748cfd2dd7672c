#include "mancala/temp_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

namespace mancala {

namespace {
std::unexpected<Error> sys_error(const std::string& what) { return fail_with(Error::Io, what + ": " + std::strerror(errno)); }
constexpr std::size_t kChunk = std::size_t{1} << 26;  // one system call at most
}  // namespace

Result<std::unique_ptr<TempFile>> TempFile::create(const std::filesystem::path& dir, std::string name) {
  static std::atomic<unsigned> counter{0};
  const auto path = dir / (".mtb-spill." + std::to_string(::getpid()) + "." + std::to_string(counter++));
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return sys_error(path.string() + ": cannot create a spill file for " + name);
  ::unlink(path.c_str());  // the data lives as long as the descriptor
  return std::unique_ptr<TempFile>(new TempFile(fd, std::move(name)));
}

TempFile::~TempFile() { ::close(fd_); }

Result<void> TempFile::write(std::uint64_t at, std::span<const std::byte> bytes) const {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t w = ::pwrite(fd_, bytes.data() + done, std::min(bytes.size() - done, kChunk), static_cast<off_t>(at + done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return sys_error(name_ + ": cannot write the spill file");
    done += static_cast<std::size_t>(w);
  }
  return {};
}

Result<void> TempFile::read(std::uint64_t at, std::span<std::byte> bytes) const {
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t r = ::pread(fd_, bytes.data() + got, std::min(bytes.size() - got, kChunk), static_cast<off_t>(at + got));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) return fail_with(Error::Io, name_ + ": the spill file is short");
    if (r < 0) return sys_error(name_ + ": cannot read the spill file");
    got += static_cast<std::size_t>(r);
  }
  return {};
}

}  // namespace mancala
