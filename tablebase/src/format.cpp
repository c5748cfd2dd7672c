#include "mancala/format.h"

#include "mancala/distance_tables.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <algorithm>
#include <bit>
#include <cstdlib>
#include <memory>

namespace mancala {

namespace fs = std::filesystem;

// zlib's CRC-32 (the same polynomial and bits as Boost.CRC's crc_32_type, which wrote
// the files before; about 10x faster than its byte-at-a-time loop: the first probe of
// each block checks the block's CRC). zlib takes lengths in uInt: long runs in pieces.
std::uint32_t crc32(const void* data, std::size_t n) {
  uLong c = ::crc32(0L, Z_NULL, 0);
  const auto* p = static_cast<const Bytef*>(data);
  for (constexpr std::size_t kPiece = std::size_t{1} << 30; n > 0;) {
    const std::size_t k = std::min(n, kPiece);
    c = ::crc32(c, p, static_cast<uInt>(k));
    p += k;
    n -= k;
  }
  return static_cast<std::uint32_t>(c);
}

std::string table_file_name(const std::string& variant, const ClassKey& key, TableContent content) {
  std::string v = variant;
  for (char& c : v)
    if (c == ':') c = '_';
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(key.state));
  return v + "." + std::to_string(key.seeds) + "." + hex + (content == TableContent::Values ? ".mtb" : ".mtz");
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
  const std::string_view ext = name.ends_with(".mtz") ? ".mtz" : ".mtb";
  const TableContent content = ext == ".mtz" ? TableContent::Distances : TableContent::Values;
  if (name.size() <= ext.size() || !name.ends_with(ext)) return bad("not a table file name (VARIANT.SEEDS.STATE.mtb)");
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
  if (content == TableContent::Distances && !has_distance_tables(**v)) return bad("distances of a variant that has none");
  return TableName{*v, key, content};
}

// ---- Position lists --------------------------------------------------------

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

// ---- Little-endian fields ----------------------------------------------------

void put16(std::string& s, std::uint16_t v) {
  for (int i = 0; i < 2; ++i) s += static_cast<char>((v >> (8 * i)) & 0xFF);
}
void put32(std::string& s, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) s += static_cast<char>((v >> (8 * i)) & 0xFF);
}
void put64(std::string& s, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) s += static_cast<char>((v >> (8 * i)) & 0xFF);
}
// ---- Reading ----------------------------------------------------------------

namespace {

TableError io_error(const fs::path& p, const std::string& what, int err = errno) {
  return TableError{TableError::Io, p.string() + ": " + what + ": " + std::strerror(err)};
}

bool printable(const std::string& s) {
  for (const char c : s)
    if (c < 0x20 || c > 0x7E) return false;
  return true;
}

FileIdentity identity_of(const struct stat& st) {
  return FileIdentity{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
                      static_cast<std::uint64_t>(st.st_size),
                      static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

// The 8 bytes at p, most significant first.
inline std::uint64_t load_be64(const unsigned char* p) {
  std::uint64_t x;
  std::memcpy(&x, p, 8);
  return __builtin_bswap64(x);
}

}  // namespace

namespace {
// Empty when `lengths` are a complete prefix code of codes up to `longest` bits (each
// 1..longest, Kraft's equality; a lone symbol has length 0 and no bits); else why not,
// naming the code `what` ("code", "shift code").
std::string prefix_code_error(const std::vector<std::uint8_t>& lengths, std::uint32_t longest, const std::string& what) {
  const bool lone = lengths.size() == 1;
  std::uint64_t kraft = 0;
  for (const std::uint8_t l : lengths) {
    if (l > longest || (l == 0) != lone) return "a " + what + " length of " + std::to_string(l) + " bits";
    if (!lone) kraft += 1ull << (longest - l);
  }
  if (!lone && kraft != 1ull << longest) return "the " + what + " lengths are not a complete prefix code";
  return {};
}
}  // namespace

std::vector<std::uint32_t> canonical_codes(const std::vector<std::uint8_t>& lengths) {
  std::vector<std::uint32_t> order(lengths.size()), codes(lengths.size(), 0);
  for (std::uint32_t s = 0; s < order.size(); ++s) order[s] = s;
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return lengths[a] < lengths[b]; });
  std::uint32_t code = 0, len = order.empty() ? 0 : lengths[order[0]];
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::uint32_t l = lengths[order[i]];
    if (i > 0) code = (code + 1) << (l - len);
    len = l;
    codes[order[i]] = code;
  }
  return codes;
}

Result<FileIdentity> file_identity(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    return std::unexpected(TableError{err == ENOENT ? TableError::NotFound : TableError::Io,
                                      path.string() + ": cannot stat: " + std::strerror(err)});
  }
  if (!S_ISREG(st.st_mode)) return std::unexpected(TableError{TableError::Io, path.string() + ": not a regular file"});
  return identity_of(st);
}

TableFile::~TableFile() {
  if (map_) ::munmap(const_cast<unsigned char*>(map_), map_bytes_);
  if (const unsigned char* r = loaded_.load()) ::munmap(const_cast<unsigned char*>(r), loaded_bytes_.load());
}

std::size_t TableFile::heap_bytes() const {
  std::size_t n = sizeof *this + decode_.size() * 8 + walk_.size() * 4 + block_starts_.size() * 4 + multi_bytes() + header_.symbol_values.size() * 2 +
                  2 * header_.code_lengths.size() + shift_decode_.size() * 2 + 2 * header_.shift_lengths.size() +
                  (header_.blocks() + 63) / 64 * 8 + loaded_bytes();
  std::lock_guard lock(mu_);
  if (index_ && index_->subset()) n += index_->subset()->size() * sizeof(Index);
  return n;
}

std::expected<std::shared_ptr<TableFile>, TableError> TableFile::open(const fs::path& path) {
  auto corrupt = [&](const std::string& what) {
    return std::unexpected(TableError{TableError::Corrupt, path.string() + ": " + what});
  };
  // Never block: a FIFO, a device or a folder is refused by its type before it is
  // opened, and the open itself does not wait (O_NONBLOCK); the type is checked
  // again on the descriptor (the name may have changed in between).
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    return std::unexpected(TableError{err == ENOENT ? TableError::NotFound : TableError::Io,
                                      path.string() + ": cannot open: " + std::strerror(err)});
  }
  if (!S_ISREG(st.st_mode)) return std::unexpected(TableError{TableError::Io, path.string() + ": not a regular file"});
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
    return std::unexpected(TableError{err == ENOENT ? TableError::NotFound : TableError::Io,
                                      path.string() + ": cannot open: " + std::strerror(err)});
  }
  const bool stat_ok = ::fstat(fd, &st) == 0;
  const int stat_err = errno;
  if (!stat_ok || !S_ISREG(st.st_mode)) {
    ::close(fd);
    if (!stat_ok) return std::unexpected(io_error(path, "cannot stat", stat_err));
    return std::unexpected(TableError{TableError::Io, path.string() + ": not a regular file"});
  }
  const std::uint64_t size = static_cast<std::uint64_t>(st.st_size);
  auto t = std::make_shared<TableFile>();
  t->path_ = path;
  t->identity_ = identity_of(st);
  if (size >= 16) {
    void* m = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      return std::unexpected(io_error(path, "cannot map", err));
    }
    t->map_ = static_cast<const unsigned char*>(m);
    t->map_bytes_ = static_cast<std::size_t>(size);
  }
  ::close(fd);  // the mapping stays
  const unsigned char* const f = t->map_;

  // Magic and version first: an old file gets a clear message whatever follows.
  if (size < 16) return corrupt("truncated (" + std::to_string(size) + " bytes, shorter than the 16-byte preamble)");
  if (std::memcmp(f, kMagic, 8) != 0) return corrupt("not a mancala table (bad magic)");
  const std::uint32_t version = get32(f + 8);
  if (version < kFormatVersion)
    return corrupt("made by an older format version " + std::to_string(version) + "; regenerate (this program reads version " +
                   std::to_string(kFormatVersion) + ")");
  if (version > kFormatVersion)
    return corrupt("made by a newer format version " + std::to_string(version) + "; this program reads version " +
                   std::to_string(kFormatVersion));
  if (size < kFixedHeaderBytes + 4) return corrupt("truncated (" + std::to_string(size) + " bytes, shorter than a header)");

  // Every field of the fixed part, checked before anything is allocated.
  TableHeader& h = t->header_;
  const std::uint64_t hlen = get32(f + 12);
  h.kind = get32(f + 16);
  h.pits = get32(f + 20);
  h.state = get64(f + 24);
  h.seeds = get32(f + 32);
  h.index_version = get32(f + 36);
  h.filter_from = static_cast<std::int32_t>(get32(f + 40));
  h.filter_to = static_cast<std::int32_t>(get32(f + 44));
  h.positions = get64(f + 48);
  h.value_width = get32(f + 56);
  h.unit_positions = get32(f + 60);
  const std::uint32_t per_block = get32(f + 64);
  h.subset_crc = get32(f + 68);
  h.subset_size = get64(f + 72);
  h.subset_bytes = get64(f + 80);
  const std::uint32_t vlen = get16(f + 88), glen = get16(f + 90);
  const std::uint32_t content = get32(f + 92);
  h.block_count = get32(f + 96);
  const std::uint64_t clen = get32(f + 100);
  if (content > 1) return corrupt("content " + std::to_string(content) + " (0 values, 1 distances)");
  h.content = static_cast<TableContent>(content);
  if (h.kind > 1) return corrupt("value kind " + std::to_string(h.kind));
  if (vlen == 0 || vlen > kMaxNameBytes || glen > kMaxNameBytes) return corrupt("implausible name lengths in the header");
  const std::uint32_t want_width = h.content == TableContent::Distances || h.kind == 1 ? 2 : 1;
  if (h.value_width != want_width)
    return corrupt("value width " + std::to_string(h.value_width) + " (this kind and content have " + std::to_string(want_width) + ")");
  auto pow2 = [](std::uint32_t x) { return x != 0 && (x & (x - 1)) == 0; };
  if (!pow2(h.unit_positions) || h.unit_positions > kMaxUnitPositions || !pow2(per_block) ||
      static_cast<std::uint64_t>(h.unit_positions) * per_block > kMaxBlockPositions)
    return corrupt("units of " + std::to_string(h.unit_positions) + " positions, " + std::to_string(per_block) + " a block");
  h.block_positions = h.unit_positions * per_block;
  const std::uint64_t n = h.block_count;
  const std::uint64_t want_blocks = h.positions / h.block_positions + (h.positions % h.block_positions != 0);
  if (n != want_blocks)
    return corrupt(std::to_string(n) + " blocks for " + std::to_string(h.positions) + " positions of " +
                   std::to_string(h.block_positions) + " a block");
  if (h.subset_size != 0 && h.subset_size != h.positions) return corrupt("position-list length differs from the position count");
  if ((h.subset_size == 0) != (h.subset_bytes == 0)) return corrupt("position-list length and bytes disagree");
  const std::uint64_t want_hlen = kFixedHeaderBytes + vlen + glen + clen;  // < 2^33: no overflow
  if (hlen != want_hlen) return corrupt("header length " + std::to_string(hlen) + ", the fields give " + std::to_string(want_hlen));
  const std::uint64_t data_start = hlen + 12 * n + 12;  // D
  if (data_start + 8 > size)
    return corrupt("truncated: " + std::to_string(size) + " bytes, the header alone needs " + std::to_string(data_start + 8));
  if (crc32(f, static_cast<std::size_t>(hlen)) != get32(f + hlen)) return corrupt("header checksum mismatch");

  // The variable part (its size is now bounded by the file size).
  const unsigned char* p = f + kFixedHeaderBytes;
  h.variant.assign(reinterpret_cast<const char*>(p), vlen);
  p += vlen;
  h.generator.assign(reinterpret_cast<const char*>(p), glen);
  p += glen;
  if (!printable(h.variant) || !printable(h.generator)) return corrupt("unprintable names in the header");

  // The code: k, L, M, the lengths (Kraft's equality), the values.
  if (clen < 5) return corrupt("a code of " + std::to_string(clen) + " bytes");
  h.tuple = p[0];
  const std::uint32_t longest = p[1], m = get16(p + 2);
  if (p[4] > 1) return corrupt("unit shifts " + std::to_string(p[4]) + " (0 none, 1 a shift a unit)");
  h.unit_shifts = p[4] == 1;
  if (h.unit_shifts && h.value_width != 1) return corrupt("unit shifts in a table of " + std::to_string(h.value_width) + "-byte values");
  if (!pow2(h.tuple) || h.tuple > 8 || h.tuple > h.unit_positions) return corrupt("tuples of " + std::to_string(h.tuple) + " values");
  if (m == 0 || longest > kMaxCodeBits || (longest == 0) != (m == 1)) return corrupt("a code of " + std::to_string(m) + " symbols up to " + std::to_string(longest) + " bits");
  const std::uint64_t value_code = 5 + 2 * static_cast<std::uint64_t>(m) + static_cast<std::uint64_t>(m) * h.tuple * h.value_width;
  if (h.unit_shifts ? clen < value_code + 3 : clen != value_code) return corrupt("the code's length does not fit its symbols");
  h.code_lengths.assign(p + 5, p + 5 + m);
  if (const std::string why = prefix_code_error(h.code_lengths, longest, "code"); !why.empty()) return corrupt(why);
  p += 5 + m;
  h.symbol_runs.assign(p, p + m);
  for (const std::uint8_t j : h.symbol_runs)
    if (j > 12 || (std::uint64_t{h.tuple} << j) > h.unit_positions) return corrupt("a symbol of 2^" + std::to_string(j) + " tuples");
  p += m;
  h.symbol_values.resize(static_cast<std::size_t>(m) * h.tuple);
  for (auto& x : h.symbol_values) {
    x = h.value_width == 1 ? *p : get16(p);
    p += h.value_width;
  }
  // The shift code (S = 1): Ls, Ms, the lengths (Kraft's equality), the differences
  // ascending; its table, 2^Ls entries, made here (a canonical code as the value code).
  if (h.unit_shifts) {
    const std::uint32_t ls = p[0], ms = get16(p + 1);
    if (ms == 0 || ms > 256 || ls > kMaxShiftBits || (ls == 0) != (ms == 1))
      return corrupt("a shift code of " + std::to_string(ms) + " symbols up to " + std::to_string(ls) + " bits");
    if (clen != value_code + 3 + 2 * static_cast<std::uint64_t>(ms)) return corrupt("the code's length does not fit its shift code");
    h.shift_lengths.assign(p + 3, p + 3 + ms);
    h.shift_deltas.assign(p + 3 + ms, p + 3 + 2 * ms);
    if (const std::string why = prefix_code_error(h.shift_lengths, ls, "shift code"); !why.empty()) return corrupt(why);
    for (std::uint32_t i = 1; i < ms; ++i)
      if (h.shift_deltas[i] <= h.shift_deltas[i - 1]) return corrupt("shift differences not increasing");
    t->shift_bits_ = ls;
    t->shift_decode_.assign(std::size_t{1} << ls, 0);
    const std::vector<std::uint32_t> codes = canonical_codes(h.shift_lengths);
    for (std::uint32_t x = 0; x < ms; ++x) {
      const std::uint32_t l = h.shift_lengths[x];
      for (std::size_t w = std::size_t{codes[x]} << (ls - l); w < std::size_t{codes[x] + 1} << (ls - l); ++w)
        t->shift_decode_[w] = static_cast<std::uint16_t>(h.shift_deltas[x] | l << 8);
    }
    p += 3 + 2 * ms;
  }
  // Every value in range for the class: a decoded value never needs a check (with
  // shifts, the values are differences: each decoded margin is checked, shifted()).
  t->margin_bound_ = static_cast<int>(std::min<std::uint32_t>(h.seeds, 127));
  for (const std::uint16_t x : h.symbol_values) {
    if (h.content == TableContent::Distances || h.unit_shifts) break;
    if (h.kind == 0) {
      const int margin = static_cast<std::int8_t>(x);
      if (std::abs(margin) > static_cast<int>(std::min<std::uint32_t>(h.seeds, 127)))
        return corrupt("a margin of " + std::to_string(margin) + " with " + std::to_string(h.seeds) + " seeds in play");
    } else {
      const Value v = static_cast<Value>(x);
      if (v > kWinValue || v < -kWinValue) return corrupt("a win/loss value of " + std::to_string(v) + " (a depth below 0)");
    }
  }

  // Offsets: the first 0, increasing, the last with the position list and the zeros
  // ending the file exactly.
  t->data_start_ = data_start;
  t->offsets_at_ = hlen + 4;
  const unsigned char* offs = f + hlen + 4;
  if (get64(offs) != 0) return corrupt("the first block does not start at offset 0");
  const std::uint64_t end = get64(offs + 8 * n), room = size - data_start - 8;
  if (end > room || h.subset_bytes > room - end) return corrupt("truncated: " + std::to_string(size) + " bytes, the header needs more");
  if (end + h.subset_bytes != room)
    return corrupt("trailing bytes: " + std::to_string(size) + " bytes, the header says " +
                   std::to_string(data_start + end + h.subset_bytes + 8));
  if (get64(f + size - 8) != 0) return corrupt("the file does not end with 8 zero bytes");
  for (std::uint64_t b = 0; b < n; ++b)  // 8 bytes a block of B positions: a pass of ~0.2 % of the file
    if (get64(offs + 8 * (b + 1)) < get64(offs + 8 * b)) return corrupt("block offsets decreasing at block " + std::to_string(b));
  if (end <= UINT32_MAX) {
    t->block_starts_.resize(n + 1);
    for (std::uint64_t b = 0; b <= n; ++b) t->block_starts_[b] = static_cast<std::uint32_t>(get64(offs + 8 * b));
  }

  // The decode table: for each window of T bits, the first code's symbol and length,
  // and how many whole codes (and bits) the window holds (T at most kFastCodeBits).
  // Codes longer than T (up to kMaxCodeBits) are found in two steps: the window of
  // their first T bits points to a sub-table of 2^(L - T) entries, read by the bits
  // after it; such codes are rare (the writer gives long codes to rare symbols), and
  // the tables stay 32 KiB (and walk_, below, 24 KiB).
  t->unit_shift_ = static_cast<std::uint32_t>(std::countr_zero(h.unit_positions));
  t->block_shift_ = static_cast<std::uint32_t>(std::countr_zero(h.block_positions));
  t->tuple_shift_ = static_cast<std::uint32_t>(std::countr_zero(h.tuple));
  if (m > 1) {
    const std::uint32_t T = std::max<std::uint32_t>(std::min<std::uint32_t>(longest, kFastCodeBits), 11);
    const std::uint32_t sub = longest > T ? longest - T : 0;
    t->table_bits_ = T;
    t->long_bits_ = sub;
    std::vector<std::uint64_t> first(std::size_t{1} << T), longer;
    std::vector<std::uint32_t> order(m);
    for (std::uint32_t s = 0; s < m; ++s) order[s] = s;
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return h.code_lengths[a] < h.code_lengths[b]; });
    const std::vector<std::uint32_t> codes = canonical_codes(h.code_lengths);
    std::size_t last_prefix = ~std::size_t{0};
    for (std::uint32_t i = 0; i < m; ++i) {  // in code order: a prefix's long codes come together
      const std::uint32_t s = order[i], l = h.code_lengths[s], code = codes[s];
      const std::uint64_t span = std::uint64_t{h.tuple} << h.symbol_runs[s];
      const std::uint64_t e = s | std::uint64_t{l} << 16 | span << 21;
      if (l <= T) {
        const std::size_t lo = static_cast<std::size_t>(code) << (T - l), hi = static_cast<std::size_t>(code + 1) << (T - l);
        for (std::size_t w = lo; w < hi; ++w) first[w] = e;
        continue;
      }
      // A long code: its sub-table, made when the first code of its prefix comes (the
      // codes increase: a prefix's long codes come together); the prefix's entry holds
      // the sub-table's number, length 0 marking it.
      const std::size_t prefix = code >> (l - T);
      if (prefix != last_prefix) {
        last_prefix = prefix;
        first[prefix] = longer.size() >> sub;
        longer.resize(longer.size() + (std::size_t{1} << sub));
      }
      const std::size_t base = static_cast<std::size_t>(first[prefix]) << sub;
      const std::uint32_t low = code & ((1u << (l - T)) - 1);
      for (std::size_t w = std::size_t{low} << (longest - l); w < std::size_t{low + 1} << (longest - l); ++w)
        longer[base + w] = e;
    }
    // After the 2^T decode entries, the sub-tables of the long codes.
    t->decode_.resize(first.size() + longer.size());
    t->long_at_ = first.size();
    std::copy(longer.begin(), longer.end(), t->decode_.begin() + static_cast<std::ptrdiff_t>(t->long_at_));
    // Apart, what entry() walks (walk_, 24 KiB at T = 12 where decode_ and the skip
    // table took 40): the skip table, 2^T u16, the bits (low 5) and positions (high 11,
    // at most 2047) of the whole codes of each window; then decode_'s entries in 32 bits
    // (walk_lookup), its 2^T first and its sub-tables.
    t->walk_.assign(first.size() / 2 + first.size() + longer.size(), 0);
    auto* skip = reinterpret_cast<std::uint16_t*>(t->walk_.data());
    auto compact = [](std::uint64_t e) {  // bits 0-20 kept, the positions (a power of two) as their log2
      const std::uint64_t span = (e >> 21) & 0xFFFF;
      return static_cast<std::uint32_t>((e & 0x1FFFFF) | (span ? std::countr_zero(span) : 0) << 21);
    };
    std::transform(first.begin(), first.end(), t->walk_.begin() + static_cast<std::ptrdiff_t>(first.size() / 2), compact);
    std::transform(longer.begin(), longer.end(),
                   t->walk_.begin() + static_cast<std::ptrdiff_t>(first.size() / 2 + first.size()), compact);
    const std::size_t mask = first.size() - 1;
    for (std::size_t w = 0; w < first.size(); ++w) {
      std::uint64_t used = 0, covered = 0, skip_used = 0, skip_covered = 0;
      for (;;) {
        const std::uint64_t e = first[(w << used) & mask], l = (e >> 16) & 31, span = (e >> 21) & 0xFFFF;
        if (l == 0 || used + l > T || covered + span > 0xFFFF) break;  // l = 0: a long code
        used += l;
        covered += span;
        if (covered <= 2047) skip_used = used, skip_covered = covered;
      }
      t->decode_[w] = first[w] | used << 37 | covered << 42;
      skip[w] = static_cast<std::uint16_t>(skip_used | skip_covered << 5);
    }
  }
  t->checked_.reset(new std::atomic<std::uint64_t>[(n + 63) / 64]());
  return t;
}

std::expected<std::shared_ptr<TableFile>, TableError> TableFile::open(const fs::path& path, const Variant& v,
                                                                      const ClassKey& key, TableContent content) {
  auto t = open(path);
  if (!t) return t;
  if ((*t)->header_.content != content)
    return std::unexpected(TableError{TableError::Mismatch, path.string() + ": holds " +
                                                                (content == TableContent::Values ? "distances, expected values"
                                                                                                 : "values, expected distances")});
  if (auto ok = (*t)->check_against(v, key); !ok) return std::unexpected(ok.error());
  auto idx = (*t)->index(v);
  if (!idx) return std::unexpected(idx.error());
  (*t)->ready_index_ = idx->get();
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

// Block b's offsets, checksum and unit lengths, once: then a bit remembers it.
std::expected<void, TableError> TableFile::check_block(std::size_t b) const {
  const TableHeader& h = header_;
  auto corrupt = [&](const std::string& what) {
    return std::unexpected(TableError{TableError::Corrupt, path_.string() + ": block " + std::to_string(b) + " " + what});
  };
  const unsigned char* offs = map_ + offsets_at_;
  const auto [o0, o1] = block_bytes(b);  // increasing (open)
  const std::uint64_t crc_at = 8 * (h.blocks() + 1) + 4 * b;
  if (crc32(map_ + data_start_ + o0, static_cast<std::size_t>(o1 - o0)) != get32(offs + crc_at)) return corrupt("checksum mismatch");
  const std::uint64_t count = std::min<std::uint64_t>(h.block_positions, h.positions - static_cast<std::uint64_t>(b) * h.block_positions);
  const std::uint64_t units = (count + h.unit_positions - 1) / h.unit_positions;
  const std::uint64_t head = units - 1 + (h.unit_shifts ? 1 : 0);  // the lengths and the base
  if (o1 - o0 < head) return corrupt("is shorter than its unit lengths");
  const std::uint64_t data = o1 - o0 - head;
  const unsigned char* lengths = map_ + data_start_ + o0;
  // The units end inside the block (a unit's own bits are checked as it is decoded).
  std::uint64_t end = 0;
  for (std::uint64_t u = 0; u + 1 < units; ++u) end += lengths[u];
  if (end > data) return corrupt("has units that end past it");
  checked_[b / 64].fetch_or(1ull << (b % 64), std::memory_order_release);
  return {};
}

std::expected<std::uint16_t, TableError> TableFile::shifted(std::uint16_t raw, int shift, std::size_t b,
                                                           std::uint32_t u) const {
  if (!header_.unit_shifts) return raw;
  const int margin = static_cast<std::int8_t>(raw) + shift;
  if (margin > margin_bound_ || margin < -margin_bound_)
    return std::unexpected(TableError{TableError::Corrupt, path_.string() + ": block " + std::to_string(b) + " unit " +
                                                               std::to_string(u) + " holds a margin of " +
                                                               std::to_string(margin) + " with " +
                                                               std::to_string(header_.seeds) + " seeds in play"});
  return static_cast<std::uint8_t>(margin);
}

TableError TableFile::short_unit(std::size_t b, std::size_t u) const {
  return TableError{TableError::Corrupt,
                    path_.string() + ": block " + std::to_string(b) + " unit " + std::to_string(u) + " ends before its positions"};
}

std::expected<std::uint16_t, TableError> TableFile::entry(Index i) const {
  const TableHeader& h = header_;
  if (i >= h.positions) return std::unexpected(TableError{TableError::BadPosition, "index out of range"});
  if (const unsigned char* r = loaded_.load(std::memory_order_acquire)) return loaded_entry(r, i);
  const std::size_t b = static_cast<std::size_t>(i >> block_shift_);
  if (!((checked_[b / 64].load(std::memory_order_acquire) >> (b % 64)) & 1))
    if (auto ok = check_block(b); !ok) return std::unexpected(ok.error());
  const std::uint32_t j = static_cast<std::uint32_t>(i & (h.unit_positions - 1));
  if (decode_.empty() && !h.unit_shifts) return h.symbol_values[j & (h.tuple - 1)];  // one symbol: no bits
  const UnitPlace p = place(i);  // the block is checked: its units end inside it
  const std::uint32_t u = p.u;
  const unsigned char* data = p.block + p.codes_at;
  // Where the unit's codes most likely lie: their read starts now, beside that of the
  // unit's start, instead of after it. (A prefetch here, in the page of the block's
  // start, made single probes a third faster; the batch's stages load instead: see
  // prefetch().) Three lines: the guess's, the next (a unit's codes straddle two lines
  // as often as not) and the one before. Over 400,000 random probes of Oware up to 20
  // seeds, the unit's start and the code of the position fell in the guess's line or
  // the next in 85.3 % (and the unit started in the line before in 13.6 %: its first
  // read then waited for memory after the lengths had come, a second miss in a row);
  // with the line before, in 98.9 %. Values read in place, alternated runs: faster in
  // 10 of 14 rounds, by 3-36 %, even in the others (results/probe.md, session 40). A
  // prefetch before the block stays inside the mapped file's header: it never faults.
  const unsigned char* guessed = data + guess(p);
  __builtin_prefetch(guessed);
  __builtin_prefetch(guessed + 64);
  __builtin_prefetch(guessed - 64);
  const std::uint64_t start = unit_start(p.block, u);
  const std::uint64_t end = u + 1 < p.units ? start + p.block[u] : p.bytes - p.codes_at;
  std::uint64_t bit = start * 8;
  const std::uint64_t end_bit = end * 8;
  // The unit's first 64 bits (it starts on a byte): its shift code, then its codes.
  std::uint64_t buf = load_be64(data + start);
  std::uint32_t avail = 64;
  int shift = 0;
  if (h.unit_shifts) {
    std::uint32_t used = 0;
    shift = unit_shift(buf, data, used);
    bit += used;
    buf <<= used;
    avail -= used;
    if (bit > end_bit) return std::unexpected(short_unit(b, u));
  }
  if (decode_.empty()) return shifted(h.symbol_values[j & (h.tuple - 1)], shift, b, u);
  const std::uint32_t T = table_bits_, drop = 64 - T;
  // Skip the symbols before position j, from a 64-bit buffer of the next bits
  // (refilled from the bytes when fewer than 16 remain: one dependent load a window):
  // whole windows of codes through the skip table while they end before j, else one
  // code (a long one, or one of the window that holds j) through the decode table, up
  // to the symbol that covers j. Past the unit's end is Corrupt (the file's 8 zero
  // bytes keep every load inside it).
  const std::uint16_t* skip = reinterpret_cast<const std::uint16_t*>(walk_.data());
  std::uint32_t at = 0;
  for (;;) {
    if (avail < kMaxCodeBits) {
      if (bit > end_bit) break;
      buf = load_be64(data + (bit >> 3)) << (bit & 7);
      avail = 64 - static_cast<std::uint32_t>(bit & 7);
    }
    const std::uint32_t s = skip[buf >> drop], n = s >> 5;
    std::uint32_t used = s & 31;
    if (n == 0 || at + n > j) {
      const std::uint32_t e = walk_lookup(buf);
      const std::uint32_t span = 1u << ((e >> 21) & 31);
      used = static_cast<std::uint32_t>((e >> 16) & 31);
      if (bit + used > end_bit) break;
      if (at + span > j) return shifted(h.symbol_values[(e & 0xFFFF) * h.tuple + ((j - at) & (h.tuple - 1))], shift, b, u);
      at += span;
    } else {
      at += n;
    }
    buf <<= used;
    avail -= used;
    bit += used;
  }
  return std::unexpected(short_unit(b, u));
}

std::expected<void, TableError> TableFile::decode_unit(std::size_t b, std::size_t u, std::uint16_t* out) const {
  // Every position of the unit: entry() walks the unit again for each, so decode here
  // tuple by tuple.
  const TableHeader& h = header_;
  const std::uint64_t first = (static_cast<std::uint64_t>(b) << block_shift_) + (static_cast<std::uint64_t>(u) << unit_shift_);
  const std::uint64_t count = std::min<std::uint64_t>(h.unit_positions, h.positions - first);
  if (decode_.empty() && !h.unit_shifts) {
    for (std::uint64_t j = 0; j < count; ++j) out[j] = h.symbol_values[j & (h.tuple - 1)];
    return {};
  }
  const UnitPlace p = place(first);  // the block is checked (read_block_into)
  const unsigned char* data = p.block + p.codes_at;
  const std::uint64_t start = unit_start(p.block, static_cast<std::uint32_t>(u));
  const std::uint64_t end = u + 1 < p.units ? start + p.block[u] : p.bytes - p.codes_at;
  std::uint64_t bit = start * 8;
  int shift = 0;
  if (h.unit_shifts) {
    std::uint32_t used = 0;
    shift = unit_shift(load_be64(data + start), data, used);
    bit += used;
    if (bit > end * 8) return std::unexpected(short_unit(b, u));
  }
  for (std::uint64_t j = 0; j < count && decode_.empty(); ++j) out[j] = h.symbol_values[j & (h.tuple - 1)];
  for (std::uint64_t j = 0; j < count && !decode_.empty();) {
    const std::uint64_t e = lookup(load_be64(data + (bit >> 3)) << (bit & 7));
    bit += (e >> 16) & 31;
    if (bit > end * 8) return std::unexpected(short_unit(b, u));
    const std::uint16_t* vals = &h.symbol_values[(e & 0xFFFF) * h.tuple];
    const std::uint64_t span = (e >> 21) & 0xFFFF;
    for (std::uint64_t x = 0; x < span && j < count; ++x, ++j) out[j] = vals[x & (h.tuple - 1)];
  }
  // With shifts, the symbols' values plus the unit's shift: the margins, checked
  // together (one pass after the decode, so that an unshifted table decodes as before;
  // a call of shifted() a value had cost the search a twentieth of its time).
  if (h.unit_shifts) {
    int lo = 0, hi = 0;
    for (std::uint64_t j = 0; j < count; ++j) {
      const int m = static_cast<std::int8_t>(out[j]) + shift;
      lo = std::min(lo, m);
      hi = std::max(hi, m);
      out[j] = static_cast<std::uint8_t>(m);
    }
    if (hi > margin_bound_ || lo < -margin_bound_)
      for (std::uint64_t j = 0;; ++j)  // the first margin out of range, named as shifted() names it
        if (auto v = shifted(static_cast<std::uint8_t>(out[j] - shift), shift, b, static_cast<std::uint32_t>(u)); !v)
          return std::unexpected(v.error());
  }
  return {};
}

void TableFile::build_multi() const {
  // For read_bytes_block (W = 1, with a code; made on its first call, as only block
  // reads use it): each symbol's tuple repeated to 8 bytes (k divides 8), and for each
  // window of kMultiBits bits the values of its whole codes while they cover at most 8
  // positions (several codes a lookup: a unit's codes are a chain of dependent loads
  // otherwise), with their bits and positions (0: the first code is longer, or covers
  // more than 8). Worked example: Oware's 2-seed table (format.h: codes -2 "0", 0 "10",
  // +2 "11", k = 1, no runs): the window 0110 0000 000 holds "0" "11" "0" "0" "0" "0"
  // "0" "0" (8 codes, 9 bits, 8 positions): bytes FE 02 FE FE FE FE FE FE, 9 bits.
  const TableHeader& h = header_;
  const std::size_t m = h.code_lengths.size();
  const std::uint32_t T = table_bits_;
  pattern_.assign(m, 0);
  for (std::size_t s = 0; s < m; ++s)
    for (std::size_t x = 0; x < 8; ++x)
      pattern_[s] |= std::uint64_t{static_cast<std::uint8_t>(h.symbol_values[s * h.tuple + (x & (h.tuple - 1))])} << (8 * x);
  multi_.assign(std::size_t{1} << kMultiBits, 0);
  multi_meta_.assign(std::size_t{1} << kMultiBits, 0);
  for (std::uint64_t w = 0; w < (std::uint64_t{1} << kMultiBits); ++w) {
    const std::uint64_t window = w << (64 - kMultiBits);
    std::uint64_t used = 0, covered = 0, bytes = 0;
    for (;;) {  // decode_'s first 2^T entries: bits 0-36 the window's first code
      const std::uint64_t e = decode_[(window << used) >> (64 - T)], l = (e >> 16) & 31, span = (e >> 21) & 0xFFFF;
      if (l == 0 || used + l > kMultiBits || covered + span > 8) break;
      for (std::uint64_t x = 0; x < span; ++x, ++covered)
        bytes |= std::uint64_t{static_cast<std::uint8_t>(h.symbol_values[(e & 0xFFFF) * h.tuple + (x & (h.tuple - 1))])}
                 << (8 * covered);
      used += l;
    }
    multi_[w] = bytes;
    multi_meta_[w] = static_cast<std::uint16_t>(used | covered << 8);
  }
}

std::expected<void, TableError> TableFile::read_bytes_block(std::size_t b, std::uint64_t count, std::uint8_t* dst) const {
  const TableHeader& h = header_;
  const UnitPlace p = place(static_cast<std::uint64_t>(b) << block_shift_);  // the block is checked
  const unsigned char* data = p.block + p.codes_at;
  const std::uint64_t *codes = decode_.data(), *multi = multi_.data(), *patterns = pattern_.data();
  const std::uint16_t* meta = multi_meta_.data();
  const std::uint32_t T = table_bits_;
  std::uint64_t start = 0;  // unit u's start: the lengths before it, added as the walk goes
  for (std::uint32_t u = 0; u < p.units; ++u) {
    const std::uint64_t end = u + 1 < p.units ? start + p.block[u] : p.bytes - p.codes_at;
    const std::uint64_t n = std::min<std::uint64_t>(h.unit_positions, count - (static_cast<std::uint64_t>(u) << unit_shift_));
    std::uint8_t* d = dst + (static_cast<std::uint64_t>(u) << unit_shift_);
    std::uint64_t bit = start * 8;
    const std::uint64_t end_bit = end * 8;
    int shift = 0;
    if (h.unit_shifts) {  // past end_bit: the first code fails
      std::uint32_t used = 0;
      shift = unit_shift(load_be64(data + start), data, used);
      bit += used;
    }
    // Stores of 8 bytes: what passes the unit's end is written over by the next unit
    // (or is the caller's slack). A symbol starts on a tuple, so its pattern lines up.
    // The next bits wait in a 64-bit buffer, refilled when fewer than a longest code
    // remain (the loads leave the chain of lookups); the tables are read through local
    // pointers (a byte store may alias any member).
    std::uint64_t buf = load_be64(data + (bit >> 3)) << (bit & 7);
    std::uint64_t avail = 64 - (bit & 7);
    for (std::uint64_t j = 0; j < n;) {
      if (avail < kMaxCodeBits) {
        buf = load_be64(data + (bit >> 3)) << (bit & 7);
        avail = 64 - (bit & 7);
      }
      const std::uint64_t w = buf >> (64 - kMultiBits), mm = meta[w];
      const std::uint64_t used = mm & 0xFF, covered = mm >> 8;
      if (covered != 0 && j + covered <= n && bit + used <= end_bit) {  // whole codes inside the unit
        std::memcpy(d + j, multi + w, 8);
        j += covered;
        bit += used;
        buf <<= used;
        avail -= used;
        continue;
      }
      std::uint64_t e = codes[buf >> (64 - T)];
      if (((e >> 16) & 31) == 0) [[unlikely]]  // a longer code: its sub-table (lookup())
        e = codes[long_at_ + ((e & 0xFFFF) << long_bits_) + ((buf << T) >> (64 - long_bits_))];
      const std::uint64_t l = (e >> 16) & 31;
      bit += l;
      if (bit > end_bit) return std::unexpected(short_unit(b, u));
      buf <<= l;
      avail -= l;
      const std::uint64_t span = (e >> 21) & 0xFFFF, pattern = patterns[e & 0xFFFF];
      for (std::uint64_t x = 0; x < span; x += 8) std::memcpy(d + j + x, &pattern, 8);
      j += span;
    }
    if (h.unit_shifts) {
      // The margins: the values plus the shift, checked together (the least and largest
      // value first, a pass that vectorizes); decode_unit names the first out of range.
      int lo = 127, hi = -128;
      for (std::uint64_t j = 0; j < n; ++j) {
        lo = std::min<int>(lo, static_cast<std::int8_t>(d[j]));
        hi = std::max<int>(hi, static_cast<std::int8_t>(d[j]));
      }
      if (lo + shift < -margin_bound_ || hi + shift > margin_bound_) {
        std::uint16_t unit[kMaxUnitPositions];
        if (auto ok = decode_unit(b, u, unit); !ok) return std::unexpected(ok.error());
      }
      const auto add = static_cast<std::uint8_t>(shift);
      for (std::uint64_t j = 0; j < n; ++j) d[j] = static_cast<std::uint8_t>(d[j] + add);
    }
    start = end;
  }
  return {};
}

std::expected<void, TableError> TableFile::read_block_into(std::size_t b, std::vector<std::uint8_t>& out) const {
  const TableHeader& h = header_;
  if (b >= h.blocks()) return std::unexpected(TableError{TableError::BadPosition, "block out of range"});
  const std::uint64_t count = std::min<std::uint64_t>(h.block_positions, h.positions - (static_cast<std::uint64_t>(b) << block_shift_));
  // The block's room made at once and filled in place (it grew a byte at a time: the
  // search reads thousands of blocks).
  const std::size_t before = out.size(), bytes = static_cast<std::size_t>(count) * h.value_width;
  out.resize(before + bytes + kBlockSlack);
  auto ok = decode_block(b, count, out.data() + before);
  out.resize(ok ? before + bytes : before);
  return ok;
}

std::expected<void, TableError> TableFile::decode_block(std::size_t b, std::uint64_t count, std::uint8_t* dst) const {
  if (!((checked_[b / 64].load(std::memory_order_acquire) >> (b % 64)) & 1))  // its CRC is checked once
    if (auto ok = check_block(b); !ok) return std::unexpected(ok.error());
  const std::size_t w = header_.value_width;
  if (w == 1 && !decode_.empty()) {  // the whole block in one walk of its units
    std::call_once(multi_once_, [this] { build_multi(); });
    return read_bytes_block(b, count, dst);
  }
  std::uint16_t unit[kMaxUnitPositions];
  for (std::size_t u = 0; (static_cast<std::uint64_t>(u) << unit_shift_) < count; ++u) {
    if (auto ok = decode_unit(b, u, unit); !ok) return std::unexpected(ok.error());
    const std::uint64_t n = std::min<std::uint64_t>(header_.unit_positions, count - (static_cast<std::uint64_t>(u) << unit_shift_));
    if (w == 1)
      for (std::uint64_t j = 0; j < n; ++j) *dst++ = static_cast<std::uint8_t>(unit[j]);
    else
      for (std::uint64_t j = 0; j < n; ++j) {
        *dst++ = static_cast<std::uint8_t>(unit[j]);
        *dst++ = static_cast<std::uint8_t>(unit[j] >> 8);
      }
  }
  return {};
}

std::expected<std::size_t, TableError> TableFile::load() const {
  std::lock_guard lock(load_mu_);
  if (const std::size_t n = loaded_bytes()) return n;
  if (load_error_) return std::unexpected(*load_error_);  // a damaged block stays damaged
  const TableHeader& h = header_;
  const std::size_t room = bytes_to_load();
  void* m = ::mmap(nullptr, room, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    return std::unexpected(TableError{TableError::OutOfMemory, path_.string() + ": cannot take " + std::to_string(room >> 20) +
                                                                   " MiB to load its values: " + std::strerror(errno)});
  ::madvise(m, room, MADV_HUGEPAGE);  // random reads: fewer TLB misses (a hint; refused is fine)
  struct Unmap {  // given back on every way out but success (an error, an exception)
    void* p;
    std::size_t n;
    ~Unmap() {
      if (p) ::munmap(p, n);
    }
  } held{m, room};
  auto* dst = static_cast<std::uint8_t*>(m);
  // Blocks in order: the slack one writes over is the next one's room.
  for (std::size_t b = 0; b < h.blocks(); ++b) {
    const std::uint64_t first = static_cast<std::uint64_t>(b) << block_shift_;
    const std::uint64_t count = std::min<std::uint64_t>(h.block_positions, h.positions - first);
    if (auto ok = decode_block(b, count, dst + first * h.value_width); !ok) {
      load_error_ = ok.error();
      load_failed_.store(true, std::memory_order_release);
      return std::unexpected(ok.error());
    }
  }
  held.p = nullptr;
  loaded_bytes_.store(room, std::memory_order_release);
  loaded_.store(dst, std::memory_order_release);
  return room;
}

std::expected<std::vector<std::uint8_t>, TableError> TableFile::read_block(std::size_t b) const {
  std::vector<std::uint8_t> out;
  if (auto ok = read_block_into(b, out); !ok) return std::unexpected(ok.error());
  return out;
}

std::expected<std::vector<std::uint8_t>, TableError> TableFile::read_all() const {
  const TableHeader& h = header_;
  std::vector<std::uint8_t> all;
  all.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(h.positions * h.value_width, 64 * static_cast<std::uint64_t>(map_bytes_))));
  for (std::size_t b = 0; b < h.blocks(); ++b)
    if (auto ok = read_block_into(b, all); !ok) return std::unexpected(ok.error());
  return all;
}

std::expected<std::shared_ptr<const std::vector<Index>>, TableError> TableFile::position_list(Index full_size) const {
  const TableHeader& h = header_;
  if (h.subset_size == 0) return std::shared_ptr<const std::vector<Index>>();
  auto bad = [&](const std::string& what) {
    return std::unexpected(TableError{TableError::Corrupt, path_.string() + ": position list " + what});
  };
  const unsigned char* offs = map_ + offsets_at_;
  const unsigned char* comp = map_ + data_start_ + get64(offs + 8 * h.blocks());  // within the file (open)
  const std::size_t comp_bytes = static_cast<std::size_t>(h.subset_bytes);
  if (crc32(comp, comp_bytes) != h.subset_crc) return bad("checksum mismatch");
  // Streamed: memory grows with the positions really decoded, whatever the frame claims.
  ZSTD_DStream* ds = ZSTD_createDStream();
  if (!ds) return std::unexpected(TableError{TableError::OutOfMemory, "zstd: out of memory"});
  PositionListDecoder dec(h.subset_size, full_size);
  std::vector<unsigned char> chunk(1u << 16);
  ZSTD_inBuffer in{comp, comp_bytes, 0};
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
}  // namespace mancala
