// The manifest of a distributed run (format in cluster.h).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>

#include "mancala/cluster.h"

namespace mancala::cluster {

namespace fs = std::filesystem;

fs::path manifest_path(const fs::path& dir, const std::string& variant) {
  std::string v = variant;
  for (char& c : v)
    if (c == ':') c = '_';
  return dir / (v + ".manifest");
}

namespace {
// A whole word of hex digits (no sign, no prefix), or nothing.
template <class T>
std::optional<T> parse_hex(std::string_view s) {
  T x = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), x, 16);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return x;
}

// NotFound when the file does not exist, else Io; with the system's reason.
std::unexpected<Error> open_error(const fs::path& path) {
  const int e = errno;
  return fail_with(e == ENOENT ? Error::NotFound : Error::Io, path.string() + ": cannot open: " + std::strerror(e));
}

std::string hex32(std::uint32_t x) {
  char b[9];
  std::snprintf(b, sizeof b, "%08x", x);
  return b;
}
std::string hex64(std::uint64_t x) {
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(x));
  return b;
}
}  // namespace

Result<std::uint32_t> file_crc32(const fs::path& path) {
  // A MiB at a time (the whole file read into a growing vector had cost rank 0 about
  // three times the file: Oware's 35 MiB file of 20 seeds, 40 MiB over the bound).
  std::ifstream in(path, std::ios::binary);
  if (!in) return open_error(path);
  std::vector<char> piece(std::size_t{1} << 20);
  std::uint32_t crc = 0;  // of no bytes
  while (in) {
    in.read(piece.data(), static_cast<std::streamsize>(piece.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got) crc = crc32_combine(crc, crc32(piece.data(), got), got);
  }
  if (in.bad()) return fail_with(Error::Io, path.string() + ": cannot read");
  return crc;
}

Result<void> write_manifest(const fs::path& path, const Manifest& m) {
  std::ostringstream s;
  s << "mancala-tb-mpi manifest 1\n"
    << "variant " << m.variant << "\n"
    << "max_seeds " << m.max_seeds << "\n"
    << "ranks " << m.ranks << "\n"
    << "classes " << m.classes << "\n";
  for (const ManifestClass& c : m.done) {
    s << "class " << c.number << " seeds " << c.key.seeds << " state " << hex64(c.key.state) << " positions "
      << c.positions << " file " << c.file << " file_bytes " << c.file_bytes << " file_crc32 " << hex32(c.file_crc32)
      << " values_crc32 " << hex32(c.values_crc32) << " source " << c.source;
    if (!c.slices.empty()) {
      s << " slices ";
      for (std::size_t i = 0; i < c.slices.size(); ++i) {
        const auto& sl = c.slices[i];
        s << (i ? "," : "") << sl.rank << ":" << sl.begin << "-" << sl.end << ":" << hex32(sl.crc32);
      }
    }
    s << "\n";
  }
  if (m.complete) s << "complete\n";
  const std::string text = s.str();
  // Atomic: temporary, fsync, rename (a killed job leaves the previous manifest).
  const fs::path tmp = path.string() + ".tmp." + std::to_string(getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return fail_with(Error::Io, tmp.string() + ": cannot create: " + std::strerror(errno));
  std::size_t off = 0;
  while (off < text.size()) {
    const ssize_t w = ::write(fd, text.data() + off, text.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const std::string err = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      return fail_with(Error::Io, tmp.string() + ": cannot write: " + err);
    }
    off += static_cast<std::size_t>(w);
  }
  // A full disk may only show at fsync or close: both results count.
  if (::fsync(fd) != 0) {
    const std::string err = std::strerror(errno);
    ::close(fd);
    ::unlink(tmp.c_str());
    return fail_with(Error::Io, tmp.string() + ": cannot sync: " + err);
  }
  if (::close(fd) != 0) {
    const std::string err = std::strerror(errno);
    ::unlink(tmp.c_str());
    return fail_with(Error::Io, tmp.string() + ": cannot close: " + err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string err = std::strerror(errno);
    ::unlink(tmp.c_str());
    return fail_with(Error::Io, path.string() + ": cannot rename into place: " + err);
  }
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return fail_with(Error::Io, dir.string() + ": cannot open the folder to sync it: " + std::strerror(errno));
  const bool synced = ::fsync(dfd) == 0;
  const std::string err = std::strerror(errno);
  if (::close(dfd) != 0 || !synced) return fail_with(Error::Io, dir.string() + ": cannot sync the folder: " + err);
  return {};
}

Result<Manifest> read_manifest(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return open_error(path);
  Manifest m;
  std::string line;
  if (!std::getline(in, line) || line != "mancala-tb-mpi manifest 1")
    return fail_with(Error::Corrupt, path.string() + ": not a mancala-tb-mpi manifest (version 1)");
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::istringstream ls(line);
    std::string word;
    ls >> word;
    auto bad = [&] { return fail_with(Error::Corrupt, path.string() + ": line " + std::to_string(number + 1) + " is malformed"); };
    if (word == "variant") ls >> m.variant;
    else if (word == "max_seeds") ls >> m.max_seeds;
    else if (word == "ranks") ls >> m.ranks;
    else if (word == "classes") ls >> m.classes;
    else if (word == "complete") m.complete = true;
    else if (word == "class") {
      ManifestClass c;
      std::string k, state, fcrc, vcrc;
      ls >> c.number;
      while (ls >> k) {
        if (k == "seeds") ls >> c.key.seeds;
        else if (k == "state") ls >> state;
        else if (k == "positions") ls >> c.positions;
        else if (k == "file") ls >> c.file;
        else if (k == "file_bytes") ls >> c.file_bytes;
        else if (k == "file_crc32") ls >> fcrc;
        else if (k == "values_crc32") ls >> vcrc;
        else if (k == "source") ls >> c.source;
        else if (k == "slices") {
          std::string all;
          ls >> all;
          std::istringstream ss(all);
          std::string one;
          while (std::getline(ss, one, ',')) {
            ManifestClass::Slice sl{};
            char crc[9] = {};
            if (std::sscanf(one.c_str(), "%d:%lu-%lu:%8s", &sl.rank, &sl.begin, &sl.end, crc) != 4) return bad();
            const auto sc = parse_hex<std::uint32_t>(crc);
            if (!sc) return bad();
            sl.crc32 = *sc;
            c.slices.push_back(sl);
          }
        } else return bad();
      }
      const auto st = parse_hex<std::uint64_t>(state);
      const auto fc = parse_hex<std::uint32_t>(fcrc);
      const auto vc = parse_hex<std::uint32_t>(vcrc);
      if (!st || !fc || !vc) return bad();
      c.key.state = *st;
      c.file_crc32 = *fc;
      c.values_crc32 = *vc;
      m.done.push_back(std::move(c));
    } else if (!word.empty()) return bad();
  }
  return m;
}

// CRC-32 is reflected with polynomial 0xEDB88320: crc(A B) = crc(A) x^(8 |B|) + crc(B)
// modulo the polynomial (the pre- and post-inversions cancel), and x^(8 |B|) is made of
// the squares x^(2^k).
namespace {
std::uint32_t mul_mod_p(std::uint32_t a, std::uint32_t b) {  // a b modulo P, bit 31 = x^0
  std::uint32_t p = 0;
  for (std::uint32_t m = 1u << 31; m; m >>= 1) {
    if (a & m) p ^= b;
    b = b & 1 ? (b >> 1) ^ 0xEDB88320u : b >> 1;
  }
  return p;
}
}  // namespace

std::uint32_t crc32_combine(std::uint32_t a, std::uint32_t b, std::uint64_t b_bytes) {
  std::uint32_t x = 1u << 31;  // x^0
  std::uint32_t square = 1u << 30;  // x^(2^k), from x^1
  for (std::uint64_t e = 8 * b_bytes; e; e >>= 1) {
    if (e & 1) x = mul_mod_p(x, square);
    square = mul_mod_p(square, square);
  }
  return mul_mod_p(x, a) ^ b;
}

}  // namespace mancala::cluster
