#include "mancala/format.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <boost/crc.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <thread>

#include "mancala/version.h"

namespace mancala {

namespace fs = std::filesystem;

std::uint32_t crc32(const void* data, std::size_t n) {
  boost::crc_32_type c;
  c.process_bytes(data, n);
  return c.checksum();
}

std::string table_file_name(const std::string& variant, const ClassKey& key, TableContent content) {
  std::string v = variant;
  for (char& c : v)
    if (c == ':') c = '_';
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(key.state));
  return v + "." + std::to_string(key.seeds) + "." + hex + (content == TableContent::Distances ? ".mtz" : ".mtb");
}

std::string check_class_key(const Variant& v, const ClassKey& key) {
  const int pits = v.pits();
  if (key.seeds < 0 || key.seeds > v.total_seeds())
    return "a class of " + std::to_string(key.seeds) + " seeds, " + v.name() + " has " + std::to_string(v.total_seeds());
  const int jeppe = static_cast<int>((key.state >> 56) & 31u) - 1;
  if (jeppe >= pits) return "a class state with jeppe " + std::to_string(jeppe) + " beyond the " + std::to_string(pits) + " pits";
  const Position skeleton = skeleton_of(key, pits);
  if (pack_state(skeleton, pits) != key.state) return "a class state with bits no position has";
  if (key.state != 0 && v.turned_state(skeleton) < key.state) return "a class state that is not the canonical orientation";
  return {};
}

namespace {

bool parse_decimal(std::string_view s, int max_digits, std::uint64_t& out) {
  if (s.empty() || static_cast<int>(s.size()) > max_digits || (s.size() > 1 && s[0] == '0')) return false;
  out = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    out = out * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return true;
}

bool parse_hex16(std::string_view s, std::uint64_t& out) {
  if (s.size() != 16) return false;
  out = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else return false;
    out = out << 4 | static_cast<std::uint64_t>(d);
  }
  return true;
}

}  // namespace

Result<TableName> parse_table_file_name(const std::string& name) {
  auto bad = [&](const std::string& why) { return fail_with(Error::InvalidArgument, name + ": " + why); };
  constexpr std::string_view ext = ".mtb";
  const bool distances = name.ends_with(".mtz");
  if (name.size() <= ext.size() || (!distances && !name.ends_with(ext)))
    return bad("not a table file name (VARIANT.SEEDS.STATE.mtb)");
  const TableContent content = distances ? TableContent::Distances : TableContent::Values;
  const std::string_view stem = std::string_view(name).substr(0, name.size() - ext.size());
  const auto d2 = stem.rfind('.');
  const auto d1 = d2 == std::string_view::npos || d2 == 0 ? std::string_view::npos : stem.rfind('.', d2 - 1);
  if (d1 == std::string_view::npos || d1 == 0) return bad("not a table file name (VARIANT.SEEDS.STATE.mtb)");
  std::uint64_t seeds = 0, state = 0;
  if (!parse_decimal(stem.substr(d1 + 1, d2 - d1 - 1), 10, seeds) || seeds > static_cast<std::uint64_t>(INT32_MAX))
    return bad("the seed count is not a decimal number below 2^31");
  if (!parse_hex16(stem.substr(d2 + 1), state)) return bad("the class state is not 16 lower-case hex digits");
  std::string spec(stem.substr(0, d1));
  for (char& c : spec)
    if (c == '_') c = ':';
  auto v = make_variant(spec);
  if (!v) return bad("unknown variant '" + spec + "'");
  const ClassKey key{state, static_cast<int>(seeds)};
  if (table_file_name((*v)->name(), key, content) != name) return bad("not the canonical name of variant " + (*v)->name());
  if (const std::string why = check_class_key(**v, key); !why.empty()) return bad("names " + why);
  if (distances && !has_distance_tables(**v)) return bad("distances of a variant that has none");
  return TableName{*v, key, content};
}

// ---- Position lists --------------------------------------------------------

std::string encode_position_list(const std::vector<Index>& ranks) {
  std::string raw;
  Index prev = 0;
  for (const Index r : ranks) {
    Index d = r - prev;
    prev = r;
    do {
      raw += static_cast<char>((d & 0x7F) | (d > 0x7F ? 0x80 : 0));
      d >>= 7;
    } while (d);
  }
  return raw;
}

namespace {

// Incremental decoder of a position list (bytes may arrive in pieces).
class PositionListDecoder {
 public:
  PositionListDecoder(std::uint64_t count, Index full_size) : count_(count), full_size_(full_size) {
    out_.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(count, 1u << 20)));
  }
  // Empty string while fine, else the first problem.
  std::string feed(const unsigned char* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      const unsigned c = p[i];
      if (shift_ == 63 && c > 1) return "holds a number of more than 64 bits";
      d_ |= static_cast<Index>(c & 0x7F) << shift_;
      if (c & 0x80) {
        shift_ += 7;
        continue;
      }
      if (c == 0 && shift_ > 0) return "holds a number with a superfluous zero byte";
      if (std::string why = take(d_); !why.empty()) return why;
      d_ = 0;
      shift_ = 0;
    }
    return {};
  }
  std::string finish() {
    if (shift_ != 0) return "ends inside a number";
    if (out_.size() != count_)
      return "holds " + std::to_string(out_.size()) + " positions, the header says " + std::to_string(count_);
    return {};
  }
  std::vector<Index>& ranks() { return out_; }

 private:
  std::string take(Index d) {
    Index r = d;
    if (!out_.empty()) {
      if (d == 0) return "is not strictly increasing (rank " + std::to_string(out_.back()) + " twice)";
      if (d > std::numeric_limits<Index>::max() - out_.back()) return "holds a rank of more than 64 bits";
      r = out_.back() + d;
    }
    if (r >= full_size_)
      return "holds rank " + std::to_string(r) + ", outside the class (" + std::to_string(full_size_) + " positions)";
    if (out_.size() >= count_) return "holds more than the " + std::to_string(count_) + " positions the header says";
    out_.push_back(r);
    return {};
  }

  std::uint64_t count_;
  Index full_size_;
  std::vector<Index> out_;
  Index d_ = 0;
  int shift_ = 0;
};

}  // namespace

Result<std::vector<Index>> decode_position_list(const unsigned char* data, std::size_t n, std::uint64_t count,
                                               Index full_size) {
  PositionListDecoder dec(count, full_size);
  if (std::string why = dec.feed(data, n); !why.empty()) return fail_with(Error::Corrupt, "the position list " + why);
  if (std::string why = dec.finish(); !why.empty()) return fail_with(Error::Corrupt, "the position list " + why);
  return std::move(dec.ranks());
}

// ---- Writing ----------------------------------------------------------------

void put16(std::string& s, std::uint16_t v) {
  for (int i = 0; i < 2; ++i) s += static_cast<char>((v >> (8 * i)) & 0xFF);
}
void put32(std::string& s, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) s += static_cast<char>((v >> (8 * i)) & 0xFF);
}
void put64(std::string& s, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) s += static_cast<char>((v >> (8 * i)) & 0xFF);
}
std::uint16_t get16(const unsigned char* p) { return static_cast<std::uint16_t>(p[0] | p[1] << 8); }
std::uint32_t get32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 | static_cast<std::uint32_t>(p[2]) << 16 |
         static_cast<std::uint32_t>(p[3]) << 24;
}
std::uint64_t get64(const unsigned char* p) {
  return static_cast<std::uint64_t>(get32(p)) | static_cast<std::uint64_t>(get32(p + 4)) << 32;
}

namespace {

TableError io_error(const fs::path& p, const std::string& what, int err = errno) {
  return TableError{TableError::Io, p.string() + ": " + what + ": " + std::strerror(err)};
}

// The header bytes [0, H) of the layout in format.h.
std::string encode_header(const TableHeader& h) {
  std::string s(kMagic, 8);
  put32(s, kFormatVersion);
  const std::uint64_t n = h.blocks();
  put32(s, static_cast<std::uint32_t>(kFixedHeaderBytes + h.variant.size() + h.generator.size() + 12 * n + 8));
  put32(s, h.kind);
  put32(s, h.pits);
  put64(s, h.state);
  put32(s, h.seeds);
  put32(s, h.index_version);
  put32(s, static_cast<std::uint32_t>(h.filter_from));
  put32(s, static_cast<std::uint32_t>(h.filter_to));
  put64(s, h.positions);
  put32(s, h.value_width);
  put32(s, h.block_positions);
  put32(s, static_cast<std::uint32_t>(n));
  put32(s, h.subset_crc);
  put64(s, h.subset_size);
  put64(s, h.subset_bytes);
  put16(s, static_cast<std::uint16_t>(h.variant.size()));
  put16(s, static_cast<std::uint16_t>(h.generator.size()));
  put32(s, static_cast<std::uint32_t>(h.content));
  s += h.variant;
  s += h.generator;
  for (const std::uint64_t o : h.block_offsets) put64(s, o);
  for (const std::uint32_t c : h.block_crc) put32(s, c);
  return s;
}

// Writes all of `s` to fd.
bool write_all(int fd, const std::string& s) {
  std::size_t off = 0;
  while (off < s.size()) {
    const ssize_t w = ::write(fd, s.data() + off, s.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = EIO;
      return false;
    }
    off += static_cast<std::size_t>(w);
  }
  return true;
}

}  // namespace

std::expected<void, TableError> write_table(const fs::path& path, const Variant& v, const ClassKey& key,
                                            const std::vector<std::uint8_t>& value_bytes, int value_width,
                                            int zstd_level, const std::vector<Index>* subset, int threads,
                                            TableContent content) {
  TableHeader h;
  h.content = content;
  h.variant = v.name();
  h.kind = static_cast<std::uint32_t>(v.kind());
  h.pits = static_cast<std::uint32_t>(v.pits());
  h.state = key.state;
  h.seeds = static_cast<std::uint32_t>(key.seeds);
  const IndexFilter f = v.index_filter(key);
  h.filter_from = f.zero_from;
  h.filter_to = f.zero_to;
  h.value_width = static_cast<std::uint32_t>(value_width);
  h.positions = value_bytes.size() / static_cast<std::size_t>(value_width);
  h.generator = "mancala-tb " MANCALA_VERSION_STRING;
  if (h.variant.empty() || h.variant.size() > kMaxNameBytes)
    return std::unexpected(TableError{TableError::Internal, "variant name '" + h.variant + "' does not fit a table header"});

  // The blocks are compressed and written one at a time (the compressed table is
  // never whole in memory: generate writes its largest class while that class's
  // values and the lower classes are in memory), after room for the header, whose
  // size the block count fixes; the header, with the offsets and CRCs, goes last.
  const std::size_t block_bytes = static_cast<std::size_t>(h.block_positions) * static_cast<std::size_t>(value_width);
  const std::size_t blocks = (value_bytes.size() + block_bytes - 1) / block_bytes;
  h.block_offsets.assign(blocks + 1, 0);
  h.block_crc.assign(blocks, 0);
  const std::size_t head_bytes = encode_header(h).size() + 4;  // + its CRC
  // One compression context per thread; the blocks are compressed a window at a time
  // (kWindow per thread, each thread taking the next block of the window), then
  // written in order: the same bytes as one thread, the compressed window only in
  // memory (2 threads: 16 blocks, 2 MiB).
  const std::size_t T = static_cast<std::size_t>(std::max(threads, 1));
  constexpr std::size_t kWindow = 8;
  struct FreeCCtx {
    void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
  };
  std::vector<std::unique_ptr<ZSTD_CCtx, FreeCCtx>> cctxs(T);
  for (auto& c : cctxs) {
    c.reset(ZSTD_createCCtx());
    if (!c) return std::unexpected(TableError{TableError::OutOfMemory, "zstd: out of memory"});
    ZSTD_CCtx_setParameter(c.get(), ZSTD_c_compressionLevel, zstd_level);
    ZSTD_CCtx_setParameter(c.get(), ZSTD_c_checksumFlag, 1);
  }
  ZSTD_CCtx* cctx = cctxs[0].get();
  const std::size_t window = T == 1 ? 1 : kWindow * T;
  std::vector<std::vector<char>> buf(std::min(window, std::max<std::size_t>(blocks, 1)),
                                     std::vector<char>(ZSTD_compressBound(block_bytes)));
  std::vector<std::size_t> got(buf.size());

  return replace_file(path, [&](int fd, const FileSink& write) -> std::expected<void, TableError> {
    auto zstd_fail = [](std::size_t code) -> std::expected<void, TableError> {
      return std::unexpected(TableError{TableError::Internal, std::string("zstd: ") + ZSTD_getErrorName(code)});
    };
    if (auto w = write(std::string(head_bytes, '\0')); !w) return w;
    std::uint64_t written = 0;
    for (std::size_t w0 = 0; w0 < blocks; w0 += window) {
      const std::size_t w1 = std::min(blocks, w0 + window);
      std::atomic<std::size_t> next{w0};
      auto compress = [&](ZSTD_CCtx* c) {
        for (std::size_t k; (k = next.fetch_add(1, std::memory_order_relaxed)) < w1;) {
          const std::size_t at = k * block_bytes, len = std::min(block_bytes, value_bytes.size() - at);
          std::vector<char>& out = buf[k - w0];
          got[k - w0] = ZSTD_compress2(c, out.data(), out.size(), value_bytes.data() + at, len);
          if (!ZSTD_isError(got[k - w0])) h.block_crc[k] = crc32(out.data(), got[k - w0]);
        }
      };
      {
        std::vector<std::jthread> helpers;
        for (std::size_t t = 1; t < std::min(T, w1 - w0); ++t) helpers.emplace_back(compress, cctxs[t].get());
        compress(cctx);
      }  // joined
      for (std::size_t k = w0; k < w1; ++k) {
        if (ZSTD_isError(got[k - w0])) return zstd_fail(got[k - w0]);
        if (auto w = write(std::string(buf[k - w0].data(), got[k - w0])); !w) return w;
        written += got[k - w0];
        h.block_offsets[k + 1] = written;
      }
    }
    if (subset) {
      const std::string raw = encode_position_list(*subset);
      std::vector<char> out(ZSTD_compressBound(raw.size()));
      const std::size_t got_list = ZSTD_compress2(cctx, out.data(), out.size(), raw.data(), raw.size());
      if (ZSTD_isError(got_list)) return zstd_fail(got_list);
      h.subset_size = subset->size();
      h.subset_bytes = got_list;
      h.subset_crc = crc32(out.data(), got_list);
      if (auto w = write(std::string(out.data(), got_list)); !w) return w;
    }
    cctxs.clear();
    cctx = nullptr;
    std::string head = encode_header(h);
    put32(head, crc32(head.data(), head.size()));
    if (head.size() != head_bytes) return std::unexpected(TableError{TableError::Internal, "table header size changed while writing"});
    if (::lseek(fd, 0, SEEK_SET) != 0) return std::unexpected(io_error(path, "cannot seek back to the header while writing"));
    return write(head);
  });
}

std::expected<void, Error> replace_file(const fs::path& path,
                                        const std::function<std::expected<void, Error>(int, const FileSink&)>& fill) {
  // Atomic write: temporary, write, fsync, close, rename, fsync the folder; every
  // result checked (a full disk may only show at fsync or close).
  const fs::path tmp = path.string() + ".tmp." + std::to_string(getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return std::unexpected(io_error(tmp, "cannot create"));
  const FileSink sink = [&](const std::string& bytes) -> std::expected<void, Error> {
    if (!write_all(fd, bytes)) return std::unexpected(io_error(tmp, "cannot write"));
    return {};
  };
  auto filled = fill(fd, sink);
  if (filled && ::fsync(fd) != 0) filled = std::unexpected(io_error(tmp, "cannot write"));
  if (!filled) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return filled;
  }
  if (::close(fd) != 0) {
    auto err = io_error(tmp, "cannot close");
    ::unlink(tmp.c_str());
    return std::unexpected(err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    auto err = io_error(path, "cannot rename into place");
    ::unlink(tmp.c_str());
    return std::unexpected(err);
  }
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return std::unexpected(io_error(dir, "cannot open the folder to sync it"));
  if (::fsync(dfd) != 0) {
    auto err = io_error(dir, "cannot sync the folder");
    ::close(dfd);
    return std::unexpected(err);
  }
  if (::close(dfd) != 0) return std::unexpected(io_error(dir, "cannot close the folder"));
  return {};
}

// ---- Reading ----------------------------------------------------------------

namespace {

// Reads exactly n bytes at `offset` of `path` (false with errno on failure; a short
// file gives EIO).
bool read_at(const fs::path& path, std::uint64_t offset, void* out, std::size_t n) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, static_cast<char*>(out) + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      const int err = r == 0 ? EIO : errno;
      ::close(fd);
      errno = err;
      return false;
    }
    got += static_cast<std::size_t>(r);
  }
  ::close(fd);  // read-only: nothing to lose
  return true;
}

bool printable(const std::string& s) {
  for (const char c : s)
    if (c < 0x20 || c > 0x7E) return false;
  return true;
}

}  // namespace

std::expected<std::shared_ptr<TableFile>, TableError> TableFile::open(const fs::path& path) {
  auto corrupt = [&](const std::string& what) {
    return std::unexpected(TableError{TableError::Corrupt, path.string() + ": " + what});
  };
  // O_NONBLOCK: a FIFO or device named like a table must not block the open (a FIFO
  // waits for a writer); it is refused below as not a regular file.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    return std::unexpected(TableError{err == ENOENT ? TableError::NotFound : TableError::Io,
                                      path.string() + ": cannot open: " + std::strerror(err)});
  }
  struct stat st {};
  const bool stat_ok = ::fstat(fd, &st) == 0;
  const int stat_err = errno;
  ::close(fd);
  if (!stat_ok) return std::unexpected(io_error(path, "cannot stat", stat_err));
  if (!S_ISREG(st.st_mode)) return std::unexpected(TableError{TableError::Io, path.string() + ": not a regular file"});
  const std::uint64_t size = static_cast<std::uint64_t>(st.st_size);

  // Magic and version first: an old file gets a clear message whatever follows.
  unsigned char fixed[kFixedHeaderBytes];
  if (size < 16) return corrupt("truncated (" + std::to_string(size) + " bytes, shorter than the 16-byte preamble)");
  if (!read_at(path, 0, fixed, 16)) return std::unexpected(io_error(path, "cannot read"));
  if (std::memcmp(fixed, kMagic, 8) != 0) return corrupt("not a mancala table (bad magic)");
  const std::uint32_t version = get32(fixed + 8);
  if (version < kFormatVersion)
    return corrupt("made by an older format version " + std::to_string(version) + "; regenerate (this program reads version " +
                   std::to_string(kFormatVersion) + ")");
  if (version > kFormatVersion)
    return corrupt("made by a newer format version " + std::to_string(version) + "; this program reads version " +
                   std::to_string(kFormatVersion));
  if (size < kFixedHeaderBytes + 4) return corrupt("truncated (" + std::to_string(size) + " bytes, shorter than a header)");
  if (!read_at(path, 0, fixed, kFixedHeaderBytes)) return std::unexpected(io_error(path, "cannot read"));

  // Every field of the fixed part, checked before anything is allocated.
  auto t = std::make_shared<TableFile>();
  t->path_ = path;
  TableHeader& h = t->header_;
  const std::uint64_t hlen = get32(fixed + 12);
  h.kind = get32(fixed + 16);
  h.pits = get32(fixed + 20);
  h.state = get64(fixed + 24);
  h.seeds = get32(fixed + 32);
  h.index_version = get32(fixed + 36);
  h.filter_from = static_cast<std::int32_t>(get32(fixed + 40));
  h.filter_to = static_cast<std::int32_t>(get32(fixed + 44));
  h.positions = get64(fixed + 48);
  h.value_width = get32(fixed + 56);
  h.block_positions = get32(fixed + 60);
  const std::uint64_t n = get32(fixed + 64);
  h.subset_crc = get32(fixed + 68);
  h.subset_size = get64(fixed + 72);
  h.subset_bytes = get64(fixed + 80);
  const std::uint32_t vlen = get16(fixed + 88), glen = get16(fixed + 90);
  const std::uint32_t content = get32(fixed + 92);
  if (content > static_cast<std::uint32_t>(TableContent::Distances))
    return corrupt("content " + std::to_string(content) + " (0 values, 1 distances)");
  h.content = static_cast<TableContent>(content);
  if (vlen == 0 || vlen > kMaxNameBytes || glen > kMaxNameBytes) return corrupt("implausible name lengths in the header");
  if (h.value_width != 1 && h.value_width != 2) return corrupt("value width " + std::to_string(h.value_width) + " (1 or 2)");
  if (h.block_positions == 0 || h.block_positions > kMaxBlockPositions)
    return corrupt("block size of " + std::to_string(h.block_positions) + " positions");
  const std::uint64_t want_blocks = h.positions / h.block_positions + (h.positions % h.block_positions != 0);
  if (n != want_blocks)
    return corrupt(std::to_string(n) + " blocks for " + std::to_string(h.positions) + " positions of " +
                   std::to_string(h.block_positions) + " a block");
  if (h.subset_size != 0 && h.subset_size != h.positions) return corrupt("position-list length differs from the position count");
  if ((h.subset_size == 0) != (h.subset_bytes == 0)) return corrupt("position-list length and bytes disagree");
  const std::uint64_t want_hlen = kFixedHeaderBytes + vlen + glen + 12 * n + 8;  // n < 2^32: no overflow
  if (hlen != want_hlen) return corrupt("header length " + std::to_string(hlen) + ", the fields give " + std::to_string(want_hlen));
  if (hlen + 4 > size) return corrupt("truncated: " + std::to_string(size) + " bytes, the header alone needs " + std::to_string(hlen + 4));

  // The variable part (its size is now bounded by the file size) and the checksum.
  std::vector<unsigned char> head(static_cast<std::size_t>(hlen) + 4);
  if (!read_at(path, 0, head.data(), head.size())) return std::unexpected(io_error(path, "cannot read the header"));
  if (crc32(head.data(), static_cast<std::size_t>(hlen)) != get32(head.data() + hlen)) return corrupt("header checksum mismatch");
  const unsigned char* p = head.data() + kFixedHeaderBytes;
  h.variant.assign(reinterpret_cast<const char*>(p), vlen);
  p += vlen;
  h.generator.assign(reinterpret_cast<const char*>(p), glen);
  p += glen;
  if (!printable(h.variant) || !printable(h.generator)) return corrupt("unprintable names in the header");
  h.block_offsets.resize(static_cast<std::size_t>(n) + 1);
  for (auto& o : h.block_offsets) {
    o = get64(p);
    p += 8;
  }
  h.block_crc.resize(static_cast<std::size_t>(n));
  for (auto& c : h.block_crc) {
    c = get32(p);
    p += 4;
  }
  if (h.block_offsets[0] != 0) return corrupt("the first block does not start at offset 0");
  for (std::size_t b = 0; b < n; ++b)
    if (h.block_offsets[b + 1] <= h.block_offsets[b]) return corrupt("block offsets not increasing at block " + std::to_string(b));
  t->data_start_ = hlen + 4;
  const std::uint64_t room = size - t->data_start_;
  if (h.block_offsets.back() > room || h.subset_bytes > room - h.block_offsets.back())
    return corrupt("truncated: " + std::to_string(size) + " bytes, the header needs more");
  if (h.block_offsets.back() + h.subset_bytes != room)
    return corrupt("trailing bytes: " + std::to_string(size) + " bytes, the header says " +
                   std::to_string(t->data_start_ + h.block_offsets.back() + h.subset_bytes));
  return t;
}

std::expected<std::shared_ptr<TableFile>, TableError> TableFile::open(const fs::path& path, const Variant& v,
                                                                      const ClassKey& key, TableContent content) {
  auto t = open(path);
  if (!t) return t;
  if ((*t)->header().content != content)
    return std::unexpected(TableError{TableError::Mismatch, path.string() + ": holds " +
                                                                ((*t)->header().content == TableContent::Distances ? "distances" : "values") +
                                                                ", expected " + (content == TableContent::Distances ? "distances" : "values")});
  if (auto ok = (*t)->check_against(v, key); !ok) return std::unexpected(ok.error());
  return t;
}

std::expected<void, TableError> TableFile::check_against(const Variant& v, const ClassKey& key) const {
  const TableHeader& h = header_;
  auto mismatch = [&](const std::string& what) {
    return std::unexpected(TableError{TableError::Mismatch, path_.string() + ": " + what});
  };
  if (h.variant != v.name()) return mismatch("holds variant '" + h.variant + "', expected '" + v.name() + "'");
  if (h.pits != static_cast<std::uint32_t>(v.pits()) || h.kind != static_cast<std::uint32_t>(v.kind()))
    return mismatch("board or value kind differ from " + v.name());
  if (h.index_version != kIndexVersion) return mismatch("index version " + std::to_string(h.index_version) + " is not supported");
  if (const std::string why = check_class_key(v, key); !why.empty()) return mismatch("expected " + why);
  if (h.seeds != static_cast<std::uint32_t>(key.seeds) || h.state != key.state)
    return mismatch("holds another class than its name says (" + std::to_string(h.seeds) + " seeds, state " +
                    std::to_string(h.state) + ")");
  // The key is a plausible class of v: its index is small to build.
  const ClassIndex idx(v, key);
  const IndexFilter f = v.index_filter(key);
  if ((h.subset_size ? idx.size() < h.positions : idx.size() != h.positions) || f.zero_from != h.filter_from ||
      f.zero_to != h.filter_to)
    return mismatch("class " + to_string(key, v.pits()) + " should hold " + std::to_string(idx.size()) +
                    " positions, the file says " + std::to_string(h.positions));
  const bool distances = h.content == TableContent::Distances;
  if (distances && !has_distance_tables(v)) return mismatch("holds distances, which " + v.name() + " has none of");
  const std::uint32_t width = v.kind() == GameKind::Score && !distances ? 1 : 2;
  if (h.value_width != width) return mismatch("value width differs");
  return {};
}

std::expected<void, TableError> TableFile::check_against(const Variant& v) const {
  const TableHeader& h = header_;
  if (h.seeds > static_cast<std::uint32_t>(v.total_seeds()))
    return std::unexpected(TableError{TableError::Mismatch, path_.string() + ": a class of " + std::to_string(h.seeds) +
                                                                " seeds, " + v.name() + " has " + std::to_string(v.total_seeds())});
  return check_against(v, ClassKey{h.state, static_cast<int>(h.seeds)});
}

std::expected<std::vector<std::uint8_t>, TableError> TableFile::block(std::size_t b) const {
  const TableHeader& h = header_;
  auto corrupt = [&](const std::string& what) {
    return std::unexpected(TableError{TableError::Corrupt, path_.string() + ": block " + std::to_string(b) + " " + what});
  };
  const std::uint64_t off = data_start_ + h.block_offsets[b];
  const std::uint64_t len = h.block_offsets[b + 1] - h.block_offsets[b];  // > 0, within the file (open)
  std::vector<char> comp(static_cast<std::size_t>(len));
  if (!read_at(path_, off, comp.data(), comp.size())) return std::unexpected(io_error(path_, "cannot read block " + std::to_string(b)));
  if (crc32(comp.data(), comp.size()) != h.block_crc[b]) return corrupt("checksum mismatch");
  const std::uint64_t first = static_cast<std::uint64_t>(b) * h.block_positions;
  const std::uint64_t count = std::min<std::uint64_t>(h.block_positions, h.positions - first);
  const std::uint64_t bytes = count * h.value_width;  // <= 2^25
  if (ZSTD_getFrameContentSize(comp.data(), comp.size()) != bytes) return corrupt("does not hold its positions");
  std::vector<std::uint8_t> out(static_cast<std::size_t>(bytes));
  const std::size_t got = ZSTD_decompress(out.data(), out.size(), comp.data(), comp.size());
  if (ZSTD_isError(got) || got != out.size()) return corrupt("does not decompress");
  return out;
}

std::expected<Value, TableError> TableFile::value(Index i) const {
  const TableHeader& h = header_;
  if (i >= h.positions) return std::unexpected(TableError{TableError::BadPosition, "index out of range"});
  const std::size_t b = static_cast<std::size_t>(i / h.block_positions);
  std::shared_ptr<const std::vector<std::uint8_t>> data;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, d] : cache_)
      if (id == b) data = d;
  }
  if (!data) {
    auto blk = block(b);
    if (!blk) return std::unexpected(blk.error());
    data = std::make_shared<const std::vector<std::uint8_t>>(std::move(*blk));
    std::lock_guard lock(mu_);
    if (cache_.size() >= 8) cache_.erase(cache_.begin());
    cache_.emplace_back(b, data);
  }
  const std::size_t at = static_cast<std::size_t>(i % h.block_positions) * h.value_width;
  if (h.value_width == 1) return static_cast<Value>(static_cast<std::int8_t>((*data)[at]));
  return static_cast<Value>(static_cast<std::uint16_t>((*data)[at] | ((*data)[at + 1] << 8)));
}

std::expected<std::vector<std::uint8_t>, TableError> TableFile::read_all() const {
  std::vector<std::uint8_t> all;
  // Reserve what a plausible compression ratio allows; a file that claims more
  // grows the vector only as far as its blocks really decompress.
  std::error_code ec;
  const std::uint64_t file_bytes = fs::file_size(path_, ec);
  all.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(header_.positions * header_.value_width, ec ? 0 : 64 * file_bytes)));
  for (std::size_t b = 0; b < header_.blocks(); ++b) {
    auto blk = block(b);
    if (!blk) return std::unexpected(blk.error());
    all.insert(all.end(), blk->begin(), blk->end());
  }
  return all;
}

std::expected<std::shared_ptr<const std::vector<Index>>, TableError> TableFile::position_list(Index full_size) const {
  const TableHeader& h = header_;
  if (h.subset_size == 0) return std::shared_ptr<const std::vector<Index>>();
  auto bad = [&](const std::string& what) {
    return std::unexpected(TableError{TableError::Corrupt, path_.string() + ": position list " + what});
  };
  std::vector<char> comp(static_cast<std::size_t>(h.subset_bytes));  // within the file (open)
  if (!read_at(path_, data_start_ + h.block_offsets.back(), comp.data(), comp.size()))
    return std::unexpected(io_error(path_, "cannot read the position list"));
  if (crc32(comp.data(), comp.size()) != h.subset_crc) return bad("checksum mismatch");
  // Streamed: memory grows with the positions really decoded, whatever the frame claims.
  ZSTD_DStream* ds = ZSTD_createDStream();
  if (!ds) return std::unexpected(TableError{TableError::OutOfMemory, "zstd: out of memory"});
  PositionListDecoder dec(h.subset_size, full_size);
  std::vector<unsigned char> chunk(1u << 16);
  ZSTD_inBuffer in{comp.data(), comp.size(), 0};
  std::string why;
  std::size_t ret = 1;
  while (why.empty()) {
    ZSTD_outBuffer out{chunk.data(), chunk.size(), 0};
    ret = ZSTD_decompressStream(ds, &out, &in);
    if (ZSTD_isError(ret)) {
      why = "does not decompress";
      break;
    }
    why = dec.feed(chunk.data(), out.pos);
    if (ret == 0 || (in.pos == in.size && out.pos < out.size)) break;
  }
  ZSTD_freeDStream(ds);
  if (!why.empty()) return bad(why);
  if (ret != 0 || in.pos != in.size) return bad("is not one complete zstd frame");
  if (why = dec.finish(); !why.empty()) return bad(why);
  return std::make_shared<const std::vector<Index>>(std::move(dec.ranks()));
}

std::expected<std::shared_ptr<const ClassIndex>, TableError> TableFile::index(const Variant& v) const {
  {
    std::lock_guard lock(mu_);
    if (index_) return index_;
  }
  if (auto ok = check_against(v); !ok) return std::unexpected(ok.error());
  const ClassKey key = header_.key();
  std::shared_ptr<const std::vector<Index>> list;
  if (header_.subset_size) {
    auto sub = position_list(ClassIndex(v, key).full_size());
    if (!sub) return std::unexpected(sub.error());
    list = *sub;
  }
  auto idx = std::make_shared<const ClassIndex>(v, key, list);
  std::lock_guard lock(mu_);
  if (!index_) index_ = idx;
  return index_;
}

// ---- Folder lock --------------------------------------------------------------

std::expected<FolderLock, TableError> FolderLock::acquire(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return std::unexpected(TableError{TableError::Io, dir.string() + ": cannot create folder: " + ec.message()});
  const fs::path path = dir / kLockFileName;
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return std::unexpected(io_error(path, "cannot create the lock file"));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      char pid[32] = {};
      const ssize_t r = ::pread(fd, pid, sizeof pid - 1, 0);
      ::close(fd);
      if (err != EWOULDBLOCK) return std::unexpected(io_error(path, "cannot lock", err));
      std::string owner = r > 0 ? std::string(pid, static_cast<std::size_t>(r)) : std::string();
      while (!owner.empty() && (owner.back() == '\n' || owner.back() == ' ')) owner.pop_back();
      return std::unexpected(TableError{TableError::Io, dir.string() + ": in use by another generate" +
                                                            (owner.empty() ? std::string() : " (process " + owner + ")") +
                                                            " (lock file " + path.string() + ")"});
    }
    // The previous owner may have removed the file between our open and flock:
    // then we hold a lock on a file no one else sees; start again.
    struct stat a {}, b {};
    if (::fstat(fd, &a) != 0 || ::stat(path.c_str(), &b) != 0 || a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
      ::close(fd);
      continue;
    }
    const std::string pid = std::to_string(getpid()) + "\n";
    if (::ftruncate(fd, 0) != 0 || !write_all(fd, pid)) {
      auto err = io_error(path, "cannot write the lock file");
      ::close(fd);
      return std::unexpected(err);
    }
    return FolderLock(fd, path);
  }
  return std::unexpected(TableError{TableError::Io, path.string() + ": the lock file keeps changing"});
}

FolderLock::~FolderLock() {
  if (fd_ < 0) return;
  // Remove while still locked, so a waiting process that opened this file notices
  // (its inode check fails) and takes a fresh one.
  ::unlink(path_.c_str());
  ::close(fd_);
}

}  // namespace mancala
