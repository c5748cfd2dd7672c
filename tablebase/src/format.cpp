#include "mancala/format.h"

#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <boost/archive/text_iarchive.hpp>
#include <boost/archive/text_oarchive.hpp>
#include <boost/crc.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "mancala/version.h"

namespace mancala {

namespace fs = std::filesystem;

std::uint32_t crc32(const void* data, std::size_t n) {
  boost::crc_32_type c;
  c.process_bytes(data, n);
  return c.checksum();
}

std::string table_file_name(const std::string& variant, const ClassKey& key) {
  std::string v = variant;
  for (char& c : v)
    if (c == ':') c = '_';
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(key.state));
  return v + "." + std::to_string(key.seeds) + "." + hex + ".mtb";
}

namespace {

void put32(std::string& s, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) s += static_cast<char>((v >> (8 * i)) & 0xFF);
}
std::uint32_t get32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 | static_cast<std::uint32_t>(p[2]) << 16 |
         static_cast<std::uint32_t>(p[3]) << 24;
}

TableError io_error(const fs::path& p, const std::string& what) {
  return TableError{TableError::Io, p.string() + ": " + what + ": " + std::strerror(errno)};
}

}  // namespace

std::expected<void, TableError> write_table(const fs::path& path, const Variant& v, const ClassKey& key,
                                            const std::vector<std::uint8_t>& value_bytes, int value_width,
                                            int zstd_level, const std::vector<Index>* subset) {
  TableHeader h;
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

  // Compress the blocks.
  std::string blocks;
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  if (!cctx) return std::unexpected(TableError{TableError::Internal, "zstd: out of memory"});
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, zstd_level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  const std::size_t block_bytes = static_cast<std::size_t>(h.block_positions) * static_cast<std::size_t>(value_width);
  std::vector<char> buf(ZSTD_compressBound(block_bytes));
  h.block_offsets.push_back(0);
  for (std::size_t at = 0; at < value_bytes.size() || (at == 0 && value_bytes.empty()); at += block_bytes) {
    if (value_bytes.empty()) break;
    const std::size_t len = std::min(block_bytes, value_bytes.size() - at);
    const std::size_t got = ZSTD_compress2(cctx, buf.data(), buf.size(), value_bytes.data() + at, len);
    if (ZSTD_isError(got)) {
      ZSTD_freeCCtx(cctx);
      return std::unexpected(TableError{TableError::Internal, std::string("zstd: ") + ZSTD_getErrorName(got)});
    }
    h.block_crc.push_back(crc32(buf.data(), got));
    blocks.append(buf.data(), got);
    h.block_offsets.push_back(blocks.size());
  }
  std::string subset_data;
  if (subset) {
    std::string raw;
    Index prev = 0;
    for (const Index r : *subset) {
      Index d = r - prev;
      prev = r;
      do {
        raw += static_cast<char>((d & 0x7F) | (d > 0x7F ? 0x80 : 0));
        d >>= 7;
      } while (d);
    }
    std::vector<char> out(ZSTD_compressBound(raw.size()));
    const std::size_t got = ZSTD_compress2(cctx, out.data(), out.size(), raw.data(), raw.size());
    if (ZSTD_isError(got)) {
      ZSTD_freeCCtx(cctx);
      return std::unexpected(TableError{TableError::Internal, std::string("zstd: ") + ZSTD_getErrorName(got)});
    }
    subset_data.assign(out.data(), got);
    h.subset_size = subset->size();
    h.subset_bytes = got;
    h.subset_crc = crc32(subset_data.data(), subset_data.size());
  }
  ZSTD_freeCCtx(cctx);

  std::ostringstream archive;
  {
    boost::archive::text_oarchive oa(archive, boost::archive::no_header);
    oa << h;
  }
  const std::string hdr = archive.str();
  std::string head(kMagic, 8);
  put32(head, kFormatVersion);
  put32(head, static_cast<std::uint32_t>(hdr.size()));
  head += hdr;
  put32(head, crc32(head.data(), head.size()));

  // Atomic write: temporary, fsync, rename, fsync the folder.
  const fs::path tmp = path.string() + ".tmp." + std::to_string(getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return std::unexpected(io_error(tmp, "cannot create"));
  auto write_all = [&](const std::string& s) {
    std::size_t off = 0;
    while (off < s.size()) {
      const ssize_t w = ::write(fd, s.data() + off, s.size() - off);
      if (w <= 0) return false;
      off += static_cast<std::size_t>(w);
    }
    return true;
  };
  if (!write_all(head) || !write_all(blocks) || !write_all(subset_data) || ::fsync(fd) != 0) {
    auto err = io_error(tmp, "cannot write");
    ::close(fd);
    ::unlink(tmp.c_str());
    return std::unexpected(err);
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    auto err = io_error(path, "cannot rename into place");
    ::unlink(tmp.c_str());
    return std::unexpected(err);
  }
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return {};
}

std::expected<std::shared_ptr<TableFile>, TableError> TableFile::open(const fs::path& path) {
  auto corrupt = [&](const std::string& what) {
    return std::unexpected(TableError{TableError::Corrupt, path.string() + ": " + what});
  };
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::unexpected(TableError{TableError::NotFound, path.string() + ": cannot open: " + std::strerror(errno)});
  unsigned char pre[16];
  if (!in.read(reinterpret_cast<char*>(pre), 16)) return corrupt("truncated (shorter than the 16-byte preamble)");
  if (std::memcmp(pre, kMagic, 8) != 0) return corrupt("not a mancala table (bad magic)");
  const std::uint32_t version = get32(pre + 8);
  if (version != kFormatVersion)
    return corrupt("format version " + std::to_string(version) + ", this program reads version " + std::to_string(kFormatVersion));
  const std::uint32_t hlen = get32(pre + 12);
  if (hlen > (64u << 20)) return corrupt("header length " + std::to_string(hlen) + " is implausible");
  std::string head(reinterpret_cast<char*>(pre), 16);
  head.resize(16 + hlen);
  unsigned char crcb[4];
  if (!in.read(head.data() + 16, hlen) || !in.read(reinterpret_cast<char*>(crcb), 4)) return corrupt("truncated header");
  if (crc32(head.data(), head.size()) != get32(crcb)) return corrupt("header checksum mismatch");
  auto t = std::make_shared<TableFile>();
  t->path_ = path;
  try {
    std::istringstream hs(head.substr(16));
    boost::archive::text_iarchive ia(hs, boost::archive::no_header);
    ia >> t->header_;
  } catch (const std::exception& e) {
    return corrupt(std::string("unreadable header: ") + e.what());
  }
  const TableHeader& h = t->header_;
  if (h.block_offsets.size() != h.block_crc.size() + 1 || h.value_width < 1 || h.value_width > 2 || h.block_positions == 0)
    return corrupt("inconsistent header");
  const std::uint64_t want_blocks = (h.positions + h.block_positions - 1) / h.block_positions;
  if (want_blocks != h.blocks()) return corrupt("block count does not match the position count");
  t->data_start_ = 20 + hlen;
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return std::unexpected(TableError{TableError::Io, path.string() + ": " + ec.message()});
  const std::uint64_t want = t->data_start_ + h.block_offsets.back() + h.subset_bytes;
  if (h.subset_size != 0 && h.subset_size != h.positions) return corrupt("subset size does not match the position count");
  if (size < want) return corrupt("truncated: " + std::to_string(size) + " bytes, header says " + std::to_string(want));
  if (size > want) return corrupt("trailing bytes: " + std::to_string(size) + " bytes, header says " + std::to_string(want));
  return t;
}

std::expected<std::vector<std::uint8_t>, TableError> TableFile::block(std::size_t b) const {
  const TableHeader& h = header_;
  const std::uint64_t off = data_start_ + h.block_offsets[b];
  const std::uint64_t len = h.block_offsets[b + 1] - h.block_offsets[b];
  std::ifstream in(path_, std::ios::binary);
  std::vector<char> comp(len);
  if (!in || !in.seekg(static_cast<std::streamoff>(off)) || !in.read(comp.data(), static_cast<std::streamsize>(len)))
    return std::unexpected(TableError{TableError::Io, path_.string() + ": cannot read block " + std::to_string(b)});
  if (crc32(comp.data(), comp.size()) != h.block_crc[b])
    return std::unexpected(TableError{TableError::Corrupt, path_.string() + ": block " + std::to_string(b) + " checksum mismatch"});
  const std::uint64_t first = static_cast<std::uint64_t>(b) * h.block_positions;
  const std::uint64_t count = std::min<std::uint64_t>(h.block_positions, h.positions - first);
  std::vector<std::uint8_t> out(static_cast<std::size_t>(count * h.value_width));
  const std::size_t got = ZSTD_decompress(out.data(), out.size(), comp.data(), comp.size());
  if (ZSTD_isError(got) || got != out.size())
    return std::unexpected(TableError{TableError::Corrupt, path_.string() + ": block " + std::to_string(b) + " does not decompress"});
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
  all.reserve(static_cast<std::size_t>(header_.positions * header_.value_width));
  for (std::size_t b = 0; b < header_.blocks(); ++b) {
    auto blk = block(b);
    if (!blk) return std::unexpected(blk.error());
    all.insert(all.end(), blk->begin(), blk->end());
  }
  return all;
}

std::expected<void, TableError> TableFile::check_against(const Variant& v) const {
  const TableHeader& h = header_;
  auto mismatch = [&](const std::string& what) {
    return std::unexpected(TableError{TableError::Mismatch, path_.string() + ": " + what});
  };
  if (h.variant != v.name()) return mismatch("holds variant '" + h.variant + "', expected '" + v.name() + "'");
  if (h.pits != static_cast<std::uint32_t>(v.pits()) || h.kind != static_cast<std::uint32_t>(v.kind()))
    return mismatch("board or value kind differ from " + v.name());
  if (h.index_version != kIndexVersion) return mismatch("index version " + std::to_string(h.index_version) + " is not supported");
  const ClassIndex idx(v, h.key());
  const IndexFilter f = v.index_filter(h.key());
  if ((h.subset_size ? idx.size() < h.positions : idx.size() != h.positions) || f.zero_from != h.filter_from ||
      f.zero_to != h.filter_to)
    return mismatch("class " + to_string(h.key(), v.pits()) + " should hold " + std::to_string(idx.size()) +
                    " positions, the file says " + std::to_string(h.positions));
  const std::uint32_t width = v.kind() == GameKind::Score ? 1 : 2;
  if (h.value_width != width) return mismatch("value width differs");
  return {};
}

std::expected<std::shared_ptr<const std::vector<Index>>, TableError> TableFile::subset() const {
  const TableHeader& h = header_;
  if (h.subset_size == 0) return std::shared_ptr<const std::vector<Index>>();
  auto bad = [&](const std::string& what) {
    return std::unexpected(TableError{TableError::Corrupt, path_.string() + ": position list " + what});
  };
  std::ifstream in(path_, std::ios::binary);
  std::vector<char> comp(h.subset_bytes);
  if (!in || !in.seekg(static_cast<std::streamoff>(data_start_ + h.block_offsets.back())) ||
      !in.read(comp.data(), static_cast<std::streamsize>(comp.size())))
    return std::unexpected(TableError{TableError::Io, path_.string() + ": cannot read the position list"});
  if (crc32(comp.data(), comp.size()) != h.subset_crc) return bad("checksum mismatch");
  const unsigned long long raw_size = ZSTD_getFrameContentSize(comp.data(), comp.size());
  if (raw_size == ZSTD_CONTENTSIZE_ERROR || raw_size == ZSTD_CONTENTSIZE_UNKNOWN || raw_size > (1ull << 40)) return bad("is unreadable");
  std::vector<unsigned char> raw(raw_size);
  const std::size_t got = ZSTD_decompress(raw.data(), raw.size(), comp.data(), comp.size());
  if (ZSTD_isError(got) || got != raw.size()) return bad("does not decompress");
  auto out = std::make_shared<std::vector<Index>>();
  out->reserve(h.subset_size);
  Index prev = 0, d = 0;
  int shift = 0;
  for (unsigned char c : raw) {
    d |= static_cast<Index>(c & 0x7F) << shift;
    shift += 7;
    if (c & 0x80) continue;
    prev += d;
    out->push_back(prev);
    d = 0;
    shift = 0;
  }
  if (out->size() != h.subset_size) return bad("has the wrong length");
  return std::shared_ptr<const std::vector<Index>>(std::move(out));
}

std::expected<std::shared_ptr<const ClassIndex>, TableError> TableFile::index(const Variant& v) const {
  {
    std::lock_guard lock(mu_);
    if (index_) return index_;
  }
  auto sub = subset();
  if (!sub) return std::unexpected(sub.error());
  auto idx = std::make_shared<const ClassIndex>(v, header_.key(), *sub);
  std::lock_guard lock(mu_);
  if (!index_) index_ = idx;
  return index_;
}

}  // namespace mancala
