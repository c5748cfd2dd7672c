// The transposition table in a file (layout in search.h), and the checks before a
// search that will write one.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <vector>

#include "mancala/format.h"
#include "mancala/table_writer.h"
#include "search_tt.h"

namespace mancala::search_detail {

namespace {

constexpr char kTableFileMagic[8] = {'M', 'T', 'B', 'S', 'E', 'A', 'R', 'C'};
constexpr std::uint32_t kTableFileVersion = 1;
constexpr std::size_t kTableFileChunk = 65536;  // entries a chunk (1 MiB), each with its CRC-32

std::uint32_t crc_of(const std::string& s) { return crc32(s.data(), s.size()); }
std::uint32_t le32(const std::string& s, std::size_t at) { return get32(reinterpret_cast<const unsigned char*>(s.data() + at)); }
std::uint64_t le64(const std::string& s, std::size_t at) { return get64(reinterpret_cast<const unsigned char*>(s.data() + at)); }

// Temporaries `file`.tmp.PID of replace_file whose process is gone (a save cut by
// SIGKILL or a power loss): removed. A live process's temporary is left alone.
std::uint64_t remove_stale_temporaries(const std::filesystem::path& file) {
  namespace fs = std::filesystem;
  const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
  const std::string prefix = file.filename().string() + ".tmp.";
  std::uint64_t removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(prefix) || name.size() == prefix.size() || name.size() > prefix.size() + 9) continue;
    const std::string digits = name.substr(prefix.size());
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(digits));
    if (pid == ::getpid() || pid <= 0 || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    std::error_code rm;
    if (fs::remove(it->path(), rm)) ++removed;
  }
  return removed;
}

}  // namespace

Result<std::uint64_t> check_table_file(const std::filesystem::path& file) {
  namespace fs = std::filesystem;
  const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return std::unexpected(Error{Error::Io, file.string() + ": its folder " + dir.string() + " does not exist"});
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return std::unexpected(Error{Error::Io, file.string() + ": cannot write in its folder " + dir.string() + ": " + std::strerror(errno)});
  if (fs::is_directory(file, ec)) return std::unexpected(Error{Error::Io, file.string() + ": is a folder"});
  return remove_stale_temporaries(file);
}

Result<std::uint64_t> save_table_file(const TranspositionTable& tt, const std::filesystem::path& file,
                                      const std::string& name, std::uint64_t start_key) {
  remove_stale_temporaries(file);
  // The header, whose size the name fixes, goes last (with the count of entries), in
  // one pass over the table: room for it first, then the chunks.
  auto header = [&](std::uint64_t n) {
    std::string head(kTableFileMagic, sizeof kTableFileMagic);
    put32(head, kTableFileVersion);
    put32(head, static_cast<std::uint32_t>(name.size()));
    head += name;
    put64(head, start_key);
    put64(head, n);
    put32(head, crc_of(head));
    return head;
  };
  std::uint64_t n = 0;
  auto written = replace_file(file, [&](int fd, const FileSink& write) -> Result<void> {
    if (auto w = write(std::string(header(0).size(), '\0')); !w) return w;
    std::string chunk;
    std::uint64_t in_chunk = 0;
    Result<void> status;
    auto flush = [&] {
      if (in_chunk == 0 || !status) return;
      put32(chunk, crc_of(chunk));
      status = write(chunk);
      chunk.clear();
      in_chunk = 0;
    };
    tt.for_each([&](std::uint64_t key, std::uint64_t data) {
      put64(chunk, key);
      put64(chunk, data);
      ++n;
      if (++in_chunk == kTableFileChunk) flush();
    });
    flush();
    if (!status) return status;
    if (::lseek(fd, 0, SEEK_SET) != 0)
      return std::unexpected(Error{Error::Io, file.string() + ": cannot seek back to the header while writing"});
    return write(header(n));
  });
  if (!written) return std::unexpected(written.error());
  return n;
}

Result<std::uint64_t> load_table_file(TranspositionTable& tt, const std::filesystem::path& file,
                                      const std::string& variant_name, std::uint64_t start_key, int max_abs) {
  const std::string where = file.string() + ": ";
  auto corrupt = [&](const std::string& why) { return std::unexpected(Error{Error::Corrupt, where + why}); };
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(file, ec);
  if (ec) return std::unexpected(Error{Error::Io, where + "cannot read: " + ec.message()});
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::unexpected(Error{Error::Io, where + "cannot open"});
  auto read = [&](std::size_t bytes) -> std::optional<std::string> {
    std::string b(bytes, '\0');
    if (!in.read(b.data(), static_cast<std::streamsize>(bytes))) return std::nullopt;
    return b;
  };
  // Header: magic, version and the name's length first, then the rest it fixes.
  constexpr std::size_t kFixed = sizeof kTableFileMagic + 8;
  auto fixed = size >= kFixed ? read(kFixed) : std::nullopt;
  if (!fixed) return corrupt("too short for a transposition table file (" + std::to_string(size) + " bytes)");
  if (std::memcmp(fixed->data(), kTableFileMagic, sizeof kTableFileMagic) != 0)
    return corrupt("not a transposition table file of the search (its first bytes)");
  const std::uint64_t version = le32(*fixed, 8), name_bytes = le32(*fixed, 12);
  if (version != kTableFileVersion)
    return std::unexpected(Error{Error::Mismatch, where + "format version " + std::to_string(version) + ", this build reads " +
                                                    std::to_string(kTableFileVersion)});
  if (name_bytes > 64 || size < kFixed + name_bytes + 20) return corrupt("header cut short or a variant name of " + std::to_string(name_bytes) + " bytes");
  auto rest = read(name_bytes + 20);
  if (!rest) return corrupt("cannot read the header");
  const std::string head = *fixed + *rest;
  if (le32(head, head.size() - 4) != crc32(head.data(), head.size() - 4)) return corrupt("header checksum");
  const std::string name = rest->substr(0, name_bytes);
  if (name != variant_name)
    return std::unexpected(Error{Error::Mismatch, where + "a table of " + name + ", not " + variant_name});
  if (le64(*rest, name_bytes) != start_key)
    return std::unexpected(Error{Error::Mismatch, where + "written by a build that hashes positions otherwise"});
  const std::uint64_t n = le64(*rest, name_bytes + 8);
  const std::uint64_t chunks = (n + kTableFileChunk - 1) / kTableFileChunk;
  if (n > (size / 16) || size != head.size() + n * 16 + chunks * 4)
    return corrupt(std::to_string(n) + " entries do not fill its " + std::to_string(size) + " bytes");
  // Entries, a chunk at a time (each checked before any of it is used).
  std::vector<std::pair<std::uint64_t, TTData>> entries;
  std::uint64_t left = n, stored = 0;
  while (left > 0) {
    const std::size_t m = static_cast<std::size_t>(std::min<std::uint64_t>(left, kTableFileChunk));
    auto chunk = read(m * 16 + 4);
    if (!chunk) return corrupt("cut short in its entries");
    if (le32(*chunk, m * 16) != crc32(chunk->data(), m * 16)) return corrupt("entry checksum");
    entries.clear();
    for (std::size_t i = 0; i < m; ++i) {
      const std::uint64_t data = le64(*chunk, 16 * i + 8);
      const TTData t = TTData::unpack(data);
      if (data == 0 || t.lo > t.hi || t.lo < -max_abs || t.hi > max_abs) return corrupt("an entry with impossible bounds");
      entries.emplace_back(le64(*chunk, 16 * i), t);
    }
    for (const auto& [key, t] : entries) tt.store(key, t);
    stored += m;
    left -= m;
  }
  return stored;
}

}  // namespace mancala::search_detail
