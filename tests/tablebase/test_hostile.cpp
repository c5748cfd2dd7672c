// Table files from a hostile or broken disk (issue 15): every file here is crafted
// by the test (fields edited, checksums recomputed) and must give a clean error,
// never a crash, a hang, a huge allocation or a value other than the intact table's.
#include <cstring>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <limits>
#include <numeric>
#include <thread>
#include <tuple>

#include <sys/stat.h>

#include "mancala/table_writer.h"
#include "mancala/mancala_probe.h"
#include "mancala/notation.h"
#include "mancala/probe.h"
#include "tablebase/support.h"
#include "tablebase/table_bytes.h"

using namespace mancala;
using namespace mancala::test;
namespace tb = mancala::table_bytes;

namespace {

std::vector<std::uint8_t> read_bytes(const fs::path& p) {
  const auto c = slurp(p);
  return std::vector<std::uint8_t>(c.begin(), c.end());
}
void write_bytes(const fs::path& p, const std::vector<std::uint8_t>& b) {
  spit(p, std::vector<char>(b.begin(), b.end()));
}

// Opens `f` as class `key` of `v` the three ways a reader does (header, then the
// index, then every value); returns the first error, or nothing if all succeed.
std::optional<TableError> first_error(const fs::path& f, const Variant& v, const ClassKey& key) {
  auto t = TableFile::open(f, v, key);
  if (!t) return t.error();
  auto idx = (*t)->index(v);
  if (!idx) return idx.error();
  auto all = (*t)->read_all();
  if (!all) return all.error();
  return std::nullopt;
}

// A reachable-set table of Oware class 6 holding every 3rd position, with values
// that are their ranks mod 7; returns the file and fills `list` with its ranks.
fs::path subset_table(const fs::path& dir, std::vector<Index>& list) {
  const VariantPtr v = variant("oware");
  const ClassKey key{0, 6};
  const ClassIndex full(*v, key);
  list.clear();
  for (Index r = 0; r < full.size(); r += 3) list.push_back(r);
  std::vector<std::uint8_t> values(list.size());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::uint8_t>(i % 7);
  const fs::path f = dir / table_file_name(v->name(), key);
  EXPECT_TRUE(write_table(f, *v, key, values, 1, 9, &list));
  return f;
}

// Replaces the position list of a reachable-set table by `raw` (varint bytes,
// compressed here), fixing the header's length field and checksums.
void replace_list(const fs::path& f, const std::string& raw) {
  auto b = read_bytes(f);
  tb::Layout l;
  ASSERT_TRUE(tb::layout(b, l));
  const std::uint64_t list_at = l.data + tb::get64(b, l.offsets + 8 * l.blocks);
  b.resize(static_cast<std::size_t>(list_at));
  std::vector<std::uint8_t> comp(ZSTD_compressBound(raw.size()));
  const std::size_t got = ZSTD_compress(comp.data(), comp.size(), raw.data(), raw.size(), 3);
  ASSERT_FALSE(ZSTD_isError(got));
  b.insert(b.end(), comp.begin(), comp.begin() + static_cast<long>(got));
  b.resize(b.size() + 8, 0);  // the zeros that end a table file
  tb::put64(b, tb::kListBytes, got);
  tb::fix_checksums(b);
  write_bytes(f, b);
}

std::string varint(Index d) {
  std::string s;
  do {
    s += static_cast<char>((d & 0x7F) | (d > 0x7F ? 0x80 : 0));
    d >>= 7;
  } while (d);
  return s;
}

}  // namespace

TEST(Hostile, CraftedFilesKeepTheirChecksums) {
  // The crafting helper itself: a file with recomputed checksums of an unchanged
  // header is byte-identical, and an edited one opens as far as its fields allow.
  TempDir d;
  gen("oware", 5, d.path);
  const fs::path f = d.path / table_file_name("oware", ClassKey{0, 5});
  auto b = read_bytes(f);
  auto same = b;
  ASSERT_TRUE(tb::fix_checksums(same));
  EXPECT_EQ(same, b);
}

TEST(Hostile, OldAndNewerFormatVersionsAreRefusedClearly) {
  TempDir d;
  gen("oware", 4, d.path);
  const fs::path f = d.path / table_file_name("oware", ClassKey{0, 4});
  const auto good = read_bytes(f);
  for (std::uint32_t version : {1u, 2u}) {
    // A version-2 file: magic, version, text-archive length, archive, CRC, blocks.
    std::vector<std::uint8_t> old(16);
    std::copy(kMagic, kMagic + 8, old.begin());
    tb::put32(old, 8, version);
    const std::string archive = "22 serialization::archive 19 0 0 5 oware 0 12 0 4 1 0 0 495";
    tb::put32(old, 12, static_cast<std::uint32_t>(archive.size()));
    old.insert(old.end(), archive.begin(), archive.end());
    old.resize(old.size() + 4 + 40);
    write_bytes(f, old);
    auto t = TableFile::open(f);
    ASSERT_FALSE(t);
    EXPECT_EQ(t.error().code, TableError::Corrupt);
    EXPECT_NE(t.error().message.find("made by an older format version " + std::to_string(version) + "; regenerate"),
              std::string::npos)
        << t.error().message;
    const auto r = run("probe " + d.path.string() + " \"oware 1,1,0,0,0,0/1,1,0,0,0,0 S\"");
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.err.find("older format version"), std::string::npos) << r.err;
  }
  std::vector<std::uint8_t> newer = good;
  ASSERT_GE(newer.size(), 16u);
  newer[tb::kVersion] = static_cast<std::uint8_t>(kFormatVersion + 1);
  write_bytes(f, newer);
  auto t = TableFile::open(f);
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("newer format version"), std::string::npos) << t.error().message;
}

// Seed counts of 2^31 and 2^32-1 crashed probe/info/verify (int cast, index built
// before the key was compared); 3000 built a 1.8 GB index.
TEST(Hostile, HeaderSeedCountsAreCheckedBeforeAnyIndex) {
  TempDir d;
  gen("oware", 6, d.path);
  const VariantPtr v = variant("oware");
  const ClassKey key{0, 6};
  const fs::path f = d.path / table_file_name("oware", key);
  const auto good = read_bytes(f);
  for (std::uint32_t seeds : {0x80000000u, 0xFFFFFFFFu, 3000u, 49u, 7u}) {
    auto b = good;
    tb::put32(b, tb::kSeeds, seeds);
    ASSERT_TRUE(tb::fix_checksums(b));
    write_bytes(f, b);
    const auto err = first_error(f, *v, key);
    ASSERT_TRUE(err) << seeds;
    EXPECT_EQ(err->code, TableError::Mismatch) << err->message;
    auto t = TableFile::open(f);
    ASSERT_TRUE(t);  // the structure is fine: only the class is wrong
    EXPECT_FALSE((*t)->check_against(*v));
    EXPECT_FALSE((*t)->index(*v));
    auto tbl = Tablebase::open(d.path);
    ASSERT_TRUE(tbl);
    auto p = parse_position("oware 1,1,1,0,0,0/1,1,1,0,0,0 S");
    EXPECT_FALSE((*tbl)->value(*p->variant, p->position));
    for (const std::string& cmd : {"probe " + d.path.string() + " \"oware 1,1,1,0,0,0/1,1,1,0,0,0 S\"",
                                   "info " + d.path.string(), "verify " + d.path.string()}) {
      const auto r = run(cmd);
      EXPECT_EQ(r.status, 1) << cmd << " with seeds " << seeds << ": " << r.err;
      EXPECT_NE(r.err.find(f.filename().string()), std::string::npos) << cmd << ": " << r.err;
    }
  }
}

// Every count and offset checked against the file size before anything is allocated.
TEST(Hostile, ImplausibleCountsAndOffsetsAreCorrupt) {
  TempDir d;
  const VariantPtr v = variant("oware");
  const ClassKey key{0, 9};  // 167,596 positions: 41 blocks
  std::vector<std::uint8_t> values(ClassIndex(*v, key).size());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::uint8_t>(i % 5);
  const fs::path f = d.path / table_file_name(v->name(), key);
  ASSERT_TRUE(write_table(f, *v, key, values, 1));
  const auto good = read_bytes(f);
  tb::Layout l;
  ASSERT_TRUE(tb::layout(good, l));
  ASSERT_EQ(l.blocks, 41u);
  struct Edit {
    const char* what;
    std::function<void(std::vector<std::uint8_t>&)> apply;
  };
  const std::vector<Edit> edits = {
      {"blocks 2^32-1", [](auto& b) { tb::put32(b, tb::kBlocks, 0xFFFFFFFFu); }},
      {"positions 2^63", [](auto& b) { tb::put64(b, tb::kPositions, 1ull << 63); }},
      {"positions 2^64-1 with matching blocks",
       [](auto& b) {
         tb::put64(b, tb::kPositions, ~0ull);
         tb::put32(b, tb::kUnitPositions, kMaxUnitPositions);
         tb::put32(b, tb::kUnitsPerBlock, kMaxBlockPositions / kMaxUnitPositions);
       }},
      {"unit positions 0", [](auto& b) { tb::put32(b, tb::kUnitPositions, 0); }},
      {"unit positions 2^31", [](auto& b) { tb::put32(b, tb::kUnitPositions, 0x80000000u); }},
      {"unit positions not a power of two", [](auto& b) { tb::put32(b, tb::kUnitPositions, 100); }},
      {"units a block 2^20", [](auto& b) { tb::put32(b, tb::kUnitsPerBlock, 1u << 20); }},
      {"code bytes 2^32-1", [](auto& b) { tb::put32(b, tb::kCodeBytes, 0xFFFFFFFFu); }},
      {"a code length longer than the longest", [&](auto& b) { b[l.code + 5] = 17; }},
      {"code lengths not a complete code", [&](auto& b) { b[l.code + 5] = static_cast<std::uint8_t>(b[l.code + 5] + 1); }},
      {"a margin beyond the seeds in play", [&](auto& b) { b[l.header - 1] = 100; }},
      {"a margin of -128", [&](auto& b) { b[l.header - 1] = 0x80; }},
      {"header length 2^32-1", [](auto& b) { tb::put32(b, tb::kHeaderBytes, 0xFFFFFFFFu); }},
      {"variant name length 65535", [](auto& b) { tb::put(b, tb::kVariantBytes, 2, 0xFFFF); }},
      {"value width 7", [](auto& b) { tb::put32(b, tb::kValueWidth, 7); }},
      {"position list of 2^60 without bytes", [](auto& b) { tb::put64(b, tb::kListSize, 1ull << 60); }},
      {"position list bytes 2^64-1", [](auto& b) {
         tb::put64(b, tb::kListSize, tb::get64(b, tb::kPositions));
         tb::put64(b, tb::kListBytes, ~0ull);
       }},
      {"decreasing block offsets", [&](auto& b) {
         const auto o1 = tb::get64(b, l.offsets + 8), o2 = tb::get64(b, l.offsets + 16);
         tb::put64(b, l.offsets + 8, o2);
         tb::put64(b, l.offsets + 16, o1);
       }},
      {"first offset not 0", [&](auto& b) { tb::put64(b, l.offsets, 1); }},
      {"last offset past the end", [&](auto& b) { tb::put64(b, l.offsets + 8 * l.blocks, ~0ull - 3); }},
      {"content 7", [](auto& b) { tb::put32(b, tb::kContent, 7); }},
      {"the last 8 bytes not zero", [](auto& b) { b.back() = 1; }},
  };
  for (const Edit& e : edits) {
    auto b = good;
    e.apply(b);
    tb::fix_checksums(b);
    write_bytes(f, b);
    auto t = TableFile::open(f);
    ASSERT_FALSE(t) << e.what;
    EXPECT_EQ(t.error().code, TableError::Corrupt) << e.what << ": " << t.error().message;
    EXPECT_NE(t.error().message.find(f.string()), std::string::npos) << e.what << ": " << t.error().message;
  }
  // Through the C API, decreasing offsets are a corrupt table, not an internal error.
  {
    auto b = good;
    edits[17].apply(b);
    tb::fix_checksums(b);
    write_bytes(f, b);
    mtb_tables* h = nullptr;
    ASSERT_EQ(mtb_open(d.path.c_str(), &h), MTB_OK);
    int value = 0, plies = 0;
    const std::string pos = format_position(*v, ClassIndex(*v, key).unrank(5), Side::South);
    EXPECT_EQ(mtb_value(h, pos.c_str(), &value, &plies), MTB_ERR_CORRUPT) << mtb_last_error(h);
    EXPECT_NE(std::string(mtb_last_error(h)).find(f.filename().string()), std::string::npos);
    mtb_close(h);
  }
  // Writes b (its checksums recomputed), opens it as class `key` and runs the batch's
  // stages over block 1: they read a block before its checksum is checked, and never
  // past it (a sanitizer build sees any read beyond the mapping).
  const Index B = kDefaultUnitPositions * kDefaultUnitsPerBlock;
  auto open_and_stage = [&](std::vector<std::uint8_t>& b) {
    tb::fix_checksums(b);
    write_bytes(f, b);
    auto t = TableFile::open(f, *v, key);
    for (Index i = B; t && i < 2 * B; i += kDefaultUnitPositions / 2) {
      (*t)->prefetch(i);
      (*t)->prefetch_unit(i);
      (*t)->prefetch_codes(i);
    }
    return t;
  };
  // A block whose units end before its positions (its checksum recomputed): block
  // 1's units cut to their lengths and one byte; reading it is Corrupt, never a value
  // from beyond the unit.
  {
    auto b = good;
    const std::uint64_t o1 = tb::get64(b, l.offsets + 8), o2 = tb::get64(b, l.offsets + 16);
    const std::uint64_t units = kDefaultUnitsPerBlock;
    std::vector<std::uint8_t> cut((units - 1) + 1, 0);
    b.erase(b.begin() + static_cast<long>(l.data + o1), b.begin() + static_cast<long>(l.data + o2));
    b.insert(b.begin() + static_cast<long>(l.data + o1), cut.begin(), cut.end());
    const std::int64_t shrink = static_cast<std::int64_t>(o2 - o1) - static_cast<std::int64_t>(cut.size());
    for (std::uint64_t k = 2; k <= l.blocks; ++k)
      tb::put64(b, l.offsets + 8 * k, tb::get64(b, l.offsets + 8 * k) - static_cast<std::uint64_t>(shrink));
    auto t = open_and_stage(b);
    ASSERT_TRUE(t) << t.error().message;
    auto all = (*t)->read_all();
    ASSERT_FALSE(all);
    EXPECT_EQ(all.error().code, TableError::Corrupt) << all.error().message;
    auto x = (*t)->value(B + 5);
    ASSERT_FALSE(x);
    EXPECT_EQ(x.error().code, TableError::Corrupt) << x.error().message;
    EXPECT_TRUE((*t)->value(5));  // block 0 is intact
  }
  // A block whose unit lengths all point past its end (its checksum recomputed): the
  // stages stay inside the file, and its values are Corrupt.
  {
    auto b = good;
    const std::uint64_t o1 = tb::get64(b, l.offsets + 8);
    for (std::uint64_t k = 0; k < kDefaultUnitsPerBlock - 1; ++k) b[l.data + o1 + k] = 0xFF;
    auto t = open_and_stage(b);
    ASSERT_TRUE(t) << t.error().message;
    auto x = (*t)->value(B + 5 * kDefaultUnitPositions);
    ASSERT_FALSE(x);
    EXPECT_EQ(x.error().code, TableError::Corrupt) << x.error().message;
  }
}

TEST(Hostile, PositionListsAreValidated) {
  const Index full = 1000;
  auto decode = [&](const std::string& raw, std::uint64_t count) {
    return decode_position_list(reinterpret_cast<const unsigned char*>(raw.data()), raw.size(), count, full);
  };
  EXPECT_EQ(*decode(varint(0) + varint(3) + varint(996), 3), (std::vector<Index>{0, 3, 999}));
  EXPECT_TRUE(decode("", 0));
  // Overlong varint (would shift by 70), a 64-bit overflow, a superfluous zero byte.
  EXPECT_NE(decode(std::string(10, '\x80') + '\x01', 1).error().message.find("more than 64 bits"), std::string::npos);
  EXPECT_NE(decode(std::string(9, '\xff') + '\x02', 1).error().message.find("more than 64 bits"), std::string::npos);
  EXPECT_NE(decode(std::string("\x85\x00", 2), 1).error().message.find("superfluous"), std::string::npos);
  // Not strictly increasing: a repeated rank; a difference that wraps round 2^64
  // (an unsorted list in unsigned differences).
  EXPECT_NE(decode(varint(5) + varint(0), 2).error().message.find("strictly increasing"), std::string::npos);
  EXPECT_FALSE(decode(varint(10) + varint(~Index{0} - 4), 2));
  // Outside the class, too many, too few, cut inside a number.
  EXPECT_NE(decode(varint(1000), 1).error().message.find("outside the class"), std::string::npos);
  EXPECT_NE(decode(varint(1) + varint(1), 1).error().message.find("more than"), std::string::npos);
  EXPECT_NE(decode(varint(1), 2).error().message.find("holds 1 positions"), std::string::npos);
  EXPECT_NE(decode("\x81", 1).error().message.find("ends inside"), std::string::npos);
  // Encoding round trip.
  const std::vector<Index> ranks{0, 1, 127, 128, 16383, 16384, (1ull << 35) + 7};
  const std::string raw = encode_position_list(ranks);
  EXPECT_EQ(*decode_position_list(reinterpret_cast<const unsigned char*>(raw.data()), raw.size(), ranks.size(), 1ull << 36),
            ranks);
}

// In a table file: each bad list is Corrupt, and probing never answers a value the
// intact table would not.
TEST(Hostile, BadPositionListsInATableAreCorrupt) {
  TempDir d;
  std::vector<Index> list;
  const fs::path f = subset_table(d.path, list);
  const VariantPtr v = variant("oware");
  const ClassKey key{0, 6};
  ASSERT_FALSE(first_error(f, *v, key)) << first_error(f, *v, key)->message;
  const Index full = ClassIndex(*v, key).size();
  // The intact table's answers for a few positions.
  const auto good = read_bytes(f);
  auto intact = Tablebase::open(d.path);
  ASSERT_TRUE(intact);
  std::vector<Position> probes;
  for (Index r = 0; r < full; r += 41) probes.push_back(ClassIndex(*v, key).unrank(r));
  std::vector<std::optional<Value>> want;
  for (const Position& p : probes) {
    auto x = (*intact)->value(*v, p);
    want.push_back(x ? std::optional<Value>(*x) : std::nullopt);
  }
  // Lists of the right length that break one rule each.
  std::string unsorted = varint(list[1]) + varint(list[0] + (~Index{0} - list[1]) + 1);  // ranks list[1], list[0]
  std::string duplicate = varint(list[0]) + varint(0);
  std::string outside = varint(full);
  std::string overlong = std::string(10, '\x80') + '\x01';
  std::string tail;
  for (std::size_t i = 2; i < list.size(); ++i) tail += varint(list[i] - list[i - 1]);
  for (const auto& [what, head] : std::vector<std::pair<std::string, std::string>>{
           {"unsorted", unsorted}, {"duplicate", duplicate}, {"outside", outside + varint(3)}, {"overlong", overlong + varint(3)}}) {
    write_bytes(f, good);
    replace_list(f, head + tail);
    const auto err = first_error(f, *v, key);
    ASSERT_TRUE(err) << what;
    EXPECT_EQ(err->code, TableError::Corrupt) << what << ": " << err->message;
    EXPECT_NE(err->message.find("position list"), std::string::npos) << err->message;
    auto tbl = Tablebase::open(d.path);
    for (std::size_t i = 0; i < probes.size(); ++i) {
      auto x = (*tbl)->value(*v, probes[i]);
      if (x) {
        EXPECT_EQ(std::optional<Value>(*x), want[i]) << what << ": a wrong value";
      }
    }
  }
  // The list of another length than the header says.
  write_bytes(f, good);
  replace_list(f, encode_position_list(std::vector<Index>(list.begin(), list.end() - 1)));
  ASSERT_TRUE(first_error(f, *v, key));
}

// `: > DIR/oware.2000000000.0000000000000000.mtb` made verify run for minutes.
TEST(Hostile, ImpossibleFileNamesAreIgnoredLoudly) {
  TempDir d;
  gen("oware", 4, d.path);
  for (const std::string name :
       {"oware.2000000000.0000000000000000.mtb", "oware.49.0000000000000000.mtb", "oware.3.ff00000000000000.mtb",
        "oware.3.00000000000000.mtb", "oware.-3.0000000000000000.mtb", "nosuchgame.3.0000000000000000.mtb",
        "kalah.3.0000000000000000.mtb", "oware.03.0000000000000000.mtb", "x.mtb", "oware..mtb"})
    std::ofstream(d.path / name).flush();
  auto tbl = Tablebase::open(d.path);
  ASSERT_TRUE(tbl);
  EXPECT_EQ((*tbl)->ignored().size(), 10u);
  EXPECT_EQ((*tbl)->classes("oware").size(), 5u);
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run("verify " + d.path.string());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(60));  // was minutes and gigabytes
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("ignored oware.2000000000.0000000000000000.mtb"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("2000000000 seeds, oware has 48"), std::string::npos) << r.err;
  const auto i = run("info " + d.path.string());
  EXPECT_EQ(i.status, 1);
  EXPECT_NE(i.err.find("warning: ignored"), std::string::npos) << i.err;
  // Only bad names: verify says so, non-zero.
  TempDir e;
  std::ofstream(e.path / "oware.2000000000.0000000000000000.mtb").flush();
  const auto only = run("verify " + e.path.string());
  EXPECT_NE(only.status, 0);
  EXPECT_NE(only.err.find("ignored"), std::string::npos) << only.err;
}

TEST(Hostile, InfoFailsOnUnreadableFiles) {
  TempDir d;
  ASSERT_EQ(run("generate oware --max-seeds 5 --out " + d.path.string()).status, 0);
  EXPECT_EQ(run("info " + d.path.string()).status, 0);
  const fs::path f = d.path / table_file_name("oware", ClassKey{0, 3});
  auto b = slurp(f);
  b.resize(b.size() / 2);
  spit(f, b);
  const auto r = run("info " + d.path.string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(f.filename().string()), std::string::npos) << r.err;
  // A block that is unreadable only shows when values are read (--stats).
  gen("oware", 5, d.path);  // repairs class 3
  auto c = slurp(f);
  c[c.size() - 9] ^= 1;  // the last coded byte (8 zeros end the file)
  spit(f, c);
  EXPECT_EQ(run("info " + d.path.string()).status, 0);
  EXPECT_EQ(run("info " + d.path.string() + " --stats").status, 1);
}

// A FIFO, a folder or a device named like a table file is refused at once (an open of a
// FIFO without O_NONBLOCK waits for a writer: probe, verify and info hung on it).
TEST(Hostile, FilesThatAreNotRegularAreRefusedWithoutBlocking) {
  TempDir d;
  ASSERT_EQ(run("generate oware --max-seeds 5 --out " + d.path.string()).status, 0);
  const fs::path fifo = d.path / table_file_name("oware", ClassKey{0, 5});
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  auto t = TableFile::open(fifo);
  ASSERT_FALSE(t.has_value());
  EXPECT_NE(t.error().message.find("not a regular file"), std::string::npos) << t.error().message;
  for (const std::string cmd : {"verify ", "info ", "probe "}) {
    const auto r = run(cmd + d.path.string() + (cmd == "probe " ? " \"oware 0,0,0,2,0,1/0,1,0,0,1,0 S\"" : ""));
    EXPECT_NE(r.status, 0) << cmd;
    EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << cmd << r.err;
  }
  fs::remove(fifo);
  fs::create_directory(fifo);
  auto dir = TableFile::open(fifo);
  ASSERT_FALSE(dir.has_value());
  EXPECT_NE(dir.error().message.find("not a regular file"), std::string::npos) << dir.error().message;
  fs::remove(fifo);
  fs::create_symlink("/dev/zero", fifo);
  auto dev = TableFile::open(fifo);
  ASSERT_FALSE(dev.has_value());
  EXPECT_NE(dev.error().message.find("not a regular file"), std::string::npos) << dev.error().message;
}

TEST(Hostile, VerifyReportsAClassMissingInTheMiddle) {
  TempDir d;
  ASSERT_EQ(run("generate oware --max-seeds 7 --out " + d.path.string()).status, 0);
  ASSERT_EQ(run("verify " + d.path.string()).status, 0);
  // Oware captures at least 2 seeds: no class-6 position has a child in class 5, so
  // only the gap check sees that class 5 is missing.
  fs::remove(d.path / table_file_name("oware", ClassKey{0, 5}));
  const auto r = run("verify " + d.path.string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("class 5 is missing"), std::string::npos) << r.err;
}

TEST(Hostile, ASecondGenerateIsLockedOut) {
  TempDir d;
  auto first = FolderLock::acquire(d.path / "tb");
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_TRUE(fs::exists(d.path / "tb" / kLockFileName));
  auto second = FolderLock::acquire(d.path / "tb");
  ASSERT_FALSE(second);
  EXPECT_NE(second.error().message.find("in use by another generate (process " + std::to_string(getpid()) + ")"),
            std::string::npos)
      << second.error().message;
  const auto r = run("generate oware --max-seeds 3 --out " + (d.path / "tb").string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("in use by another generate"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(d.path / "tb" / table_file_name("oware", ClassKey{0, 0})));
  { auto gone = std::move(*first); }
  EXPECT_FALSE(fs::exists(d.path / "tb" / kLockFileName));
  EXPECT_EQ(run("generate oware --max-seeds 3 --out " + (d.path / "tb").string()).status, 0);
  EXPECT_FALSE(fs::exists(d.path / "tb" / kLockFileName));
  // A lock file left by a killed generate (no process holds it) does not block.
  std::ofstream(d.path / "tb" / kLockFileName) << "999999\n";
  EXPECT_EQ(run("generate oware --max-seeds 4 --out " + (d.path / "tb").string()).status, 0);
}

TEST(Hostile, WriteErrorsAreReported) {
  TempDir d;
  const VariantPtr v = variant("oware");
  auto w = write_table(d.path / "no" / "such" / "folder" / "x.mtb", *v, ClassKey{0, 1}, std::vector<std::uint8_t>(12), 1);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().code, TableError::Io);
  EXPECT_NE(w.error().message.find("cannot create"), std::string::npos) << w.error().message;
}

// A long-running `probe -` kept answering from the old header after a new generate
// replaced the files (rename over them), "corrupt" until restarted: now it looks at
// the folder again (at most once a second) and answers from the new file.
TEST(Hostile, ProbeProtocolRereadsReplacedTables) {
  TempDir d;
  gen("oware", 4, d.path / "tb");
  const VariantPtr v = variant("oware");
  const ClassKey key{0, 4};
  const std::string name = table_file_name(v->name(), key);
  // The replacement: every value of class 4 set to +4. The position below is worth +4;
  // its moves stay in class 4, so with the new file each is worth -4, and so is the
  // position (a full probe values a position by its moves).
  fs::create_directories(d.path / "new");
  ASSERT_TRUE(write_table(d.path / "new" / name, *v, key, std::vector<std::uint8_t>(ClassIndex(*v, key).size(), static_cast<std::uint8_t>(4)), 1));
  const std::string pos = "oware 1,1,1,0,0,0/0,0,0,1,0,0 S";
  const std::string cmd = "{ echo '" + pos + "'; sleep 1.3; mv " + (d.path / "new" / name).string() + " " +
                          (d.path / "tb" / name).string() + "; sleep 1.3; echo '" + pos + "'; } | " + MANCALA_TB_EXE +
                          " probe " + (d.path / "tb").string() + " -";
  FILE* f = popen(cmd.c_str(), "r");
  ASSERT_TRUE(f);
  std::vector<std::string> lines;
  std::array<char, 4096> buf;
  while (fgets(buf.data(), buf.size(), f)) lines.emplace_back(buf.data());
  EXPECT_EQ(pclose(f), 0);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].find("\"value\":-4,"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("\"value\":-4,"), std::string::npos) << lines[1];
}

// mtb_value_pits (the position as numbers) answers what mtb_value answers for its text,
// from either side, and refuses what the text would refuse.
TEST(Hostile, ValuePitsAgreesWithValue) {
  TempDir d;
  gen("oware", 6, d.path);
  const VariantPtr v = variant("oware");
  mtb_tables* h = nullptr;
  ASSERT_EQ(mtb_open(d.path.c_str(), &h), MTB_OK);
  int oware = -1, pits = 0, again = -1;
  ASSERT_EQ(mtb_variant(h, "oware", &oware, &pits), MTB_OK);
  ASSERT_EQ(mtb_variant(h, "oware", &again, nullptr), MTB_OK);
  EXPECT_EQ(again, oware);
  EXPECT_EQ(pits, 12);
  EXPECT_EQ(mtb_variant(h, "no-such-game", &again, nullptr), MTB_ERR_ARGUMENT);
  for (int seeds = 0; seeds <= 6; ++seeds) {
    const ClassIndex idx(*v, ClassKey{0, seeds});
    for (Index r = 0; r < idx.size(); r += 37)
      for (const Side side : {Side::South, Side::North}) {
        const Position p = idx.unrank(r);
        const std::string text = format_position(*v, p, side);
        int want = 0, got = 0, want_plies = 0, got_plies = 0;
        ASSERT_EQ(mtb_value(h, text.c_str(), &want, &want_plies), MTB_OK) << text;
        auto parsed = parse_position(text);
        int board[12];
        // As written in the notation: South's half first (the absolute board).
        const Position absolute = side == Side::South ? parsed->position : v->rotate(parsed->position);
        for (int i = 0; i < 12; ++i) board[i] = absolute.pits[static_cast<std::size_t>(i)];
        ASSERT_EQ(mtb_value_pits(h, oware, board, nullptr, side == Side::North, &got, &got_plies), MTB_OK) << text;
        EXPECT_EQ(got, want) << text;
        EXPECT_EQ(got_plies, want_plies) << text;
      }
  }
  int board[12] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 300};
  int value = 0;
  EXPECT_EQ(mtb_value_pits(h, oware, board, nullptr, 0, &value, nullptr), MTB_ERR_POSITION);
  board[11] = 9;  // 10 seeds: no table
  EXPECT_EQ(mtb_value_pits(h, oware, board, nullptr, 0, &value, nullptr), MTB_ERR_NOT_FOUND);
  EXPECT_EQ(mtb_value_pits(h, 7, board, nullptr, 0, &value, nullptr), MTB_ERR_ARGUMENT);
  EXPECT_EQ(mtb_value_pits(h, oware, board, nullptr, 2, &value, nullptr), MTB_ERR_ARGUMENT);
  mtb_close(h);
}

// mtb_value_pits' short way (Tablebase::plain_value: no marks, the pits ranked as they
// come) answers what mtb_value answers for the text, from either side, in every game
// whose tables have plain classes (Cenne 5:4 turned round has flags: the general way),
// read in place and loaded.
TEST(Hostile, ValuePitsShortWayAgreesInEveryGame) {
  const std::pair<const char*, int> games[] = {{"oware", 7},          {"kalah:4:empty", 8}, {"kalah:5:standard", 6},
                                               {"djenon-aboure", 6},  {"cenne:5:4", 7},     {"cenne:7:7", 5},
                                               {"kotu-baendum", 4}};
  for (const auto& [spec, seeds] : games) {
    TempDir d;
    gen(spec, seeds, d.path);
    const VariantPtr v = variant(spec);
    mtb_tables* h = nullptr;
    ASSERT_EQ(mtb_open(d.path.c_str(), &h), MTB_OK);
    int id = -1, pits = 0;
    ASSERT_EQ(mtb_variant(h, spec, &id, &pits), MTB_OK);
    std::size_t checked = 0;
    for (int loaded = 0; loaded < 2; ++loaded) {
      if (loaded) {
        ASSERT_EQ(mtb_load(h, id, static_cast<std::size_t>(-1), nullptr, nullptr), MTB_OK);
      }
      for (int n = 0; n <= seeds; ++n) {
        const ClassIndex idx(*v, ClassKey{0, n});
        for (Index r = 0; r < idx.size(); r += 1 + idx.size() / 150)
          for (const Side side : {Side::South, Side::North}) {
            const Position p = idx.unrank(r);
            const std::string text = format_position(*v, p, side);
            int want = 0, got = 0, want_plies = 0, got_plies = 0;
            const mtb_error e = mtb_value(h, text.c_str(), &want, &want_plies);
            const Position absolute = side == Side::South ? p : v->rotate(p);
            if (absolute.flags != 0 || absolute.has_marks(pits)) continue;  // not a board of numbers alone
            std::vector<int> board(static_cast<std::size_t>(pits));
            for (int i = 0; i < pits; ++i) board[static_cast<std::size_t>(i)] = absolute.pits[static_cast<std::size_t>(i)];
            ASSERT_EQ(mtb_value_pits(h, id, board.data(), nullptr, side == Side::North, &got, &got_plies), e) << text;
            if (e != MTB_OK) continue;
            EXPECT_EQ(got, want) << text;
            EXPECT_EQ(got_plies, want_plies) << text;
            ++checked;
          }
      }
    }
    EXPECT_GT(checked, 200u) << spec;
    mtb_close(h);
  }
}

// mtb_value_pits' shortest way (a board of 12 pits of a loaded class, ranked through
// the rank's rows at a fixed stride) and mtb_value's (a plain text read as a board of numbers): every
// Oware position up to 7 seeds, from either side, answers by numbers and by text what
// the same calls answered before the tables were loaded (read in place), and the two
// agree. The texts go through a handle of their own too, whose variant no mtb_variant
// named (the words of mtb_value take slots of their own).
TEST(Hostile, ValuePitsShortestWayAgreesOnEveryPosition) {
  TempDir d;
  gen("oware", 7, d.path);
  const VariantPtr v = variant("oware");
  mtb_tables* h = nullptr;
  mtb_tables* text_only = nullptr;
  ASSERT_EQ(mtb_open(d.path.c_str(), &h), MTB_OK);
  ASSERT_EQ(mtb_open(d.path.c_str(), &text_only), MTB_OK);
  int id = -1;
  ASSERT_EQ(mtb_variant(h, "oware", &id, nullptr), MTB_OK);
  std::vector<std::array<int, 12>> boards;
  std::vector<std::string> texts;  // boards[k / 2] with South (k even) or North to move
  for (int n = 0; n <= 7; ++n) {
    const ClassIndex idx(*v, ClassKey{0, n});
    for (Index r = 0; r < idx.size(); ++r) {
      const Position p = idx.unrank(r);
      std::array<int, 12> b{};
      for (int i = 0; i < 12; ++i) b[static_cast<std::size_t>(i)] = p.pits[static_cast<std::size_t>(i)];
      boards.push_back(b);
      texts.push_back(format_position(*v, p, Side::South));
      texts.push_back(format_position(*v, v->rotate(p), Side::North));
    }
  }
  // Answers (error, value, plies) of every board from either side, by numbers on h,
  // by text on h and on text_only.
  auto answers = [&] {
    std::vector<std::array<int, 7>> out;
    for (std::size_t k = 0; k < texts.size(); ++k) {
      std::array<int, 7> a{};
      a[0] = mtb_value_pits(h, id, boards[k / 2].data(), nullptr, static_cast<int>(k % 2), &a[1], &a[2]);
      a[3] = mtb_value(h, texts[k].c_str(), &a[4], &a[5]);
      int value = 0;
      a[6] = mtb_value(text_only, texts[k].c_str(), &value, nullptr);
      EXPECT_EQ(a[0], a[3]) << texts[k];
      EXPECT_EQ(a[3], a[6]) << texts[k];
      if (a[0] == MTB_OK) {
        EXPECT_EQ(a[1], a[4]) << texts[k];
        EXPECT_EQ(a[2], a[5]) << texts[k];
        EXPECT_EQ(a[4], value) << texts[k];
      }
      out.push_back(a);
    }
    return out;
  };
  const auto in_place = answers();
  ASSERT_EQ(mtb_load(h, id, static_cast<std::size_t>(-1), nullptr, nullptr), MTB_OK);
  int text_id = -1;
  ASSERT_EQ(mtb_variant(text_only, "oware", &text_id, nullptr), MTB_OK);
  ASSERT_EQ(mtb_load(text_only, text_id, static_cast<std::size_t>(-1), nullptr, nullptr), MTB_OK);
  const auto loaded = answers();
  ASSERT_EQ(loaded.size(), in_place.size());
  std::size_t ok = 0;
  for (std::size_t k = 0; k < loaded.size(); ++k) {
    ASSERT_EQ(loaded[k], in_place[k]) << texts[k];
    if (loaded[k][0] == MTB_OK) ++ok;
  }
  EXPECT_GT(ok, boards.size());  // most of them from both sides
  // Texts the shortest way leaves to the general one: the same answers and errors.
  int value = 0;
  EXPECT_EQ(mtb_value(h, "oware 1,0,0,0,0,0/0,0,0,0,0,1 S first", &value, nullptr), MTB_ERR_POSITION);
  EXPECT_EQ(mtb_value(h, "oware 1,0,0,0,0,0/0,0,0,0,0,300 S", &value, nullptr), MTB_ERR_POSITION);
  EXPECT_EQ(mtb_value(h, "owarf 1,0,0,0,0,0/0,0,0,0,0,1 S", &value, nullptr), MTB_ERR_POSITION);
  EXPECT_EQ(mtb_value(h, "oware 1,0,0,0,0,0/0,0,0,0,0,9 S", &value, nullptr), MTB_ERR_NOT_FOUND);  // 10 seeds
  EXPECT_EQ(mtb_value(h, "oware  1,0,0,0,0,0/0,0,0,0,0,1  S", &value, nullptr), MTB_OK);
  mtb_close(text_only);
  mtb_close(h);
}

// mtb_value's words (the first word of each text, up to 16 kept a handle) take slots of
// their own: after texts of 28 variants, mtb_variant still names every variant, each
// twice with the same number; and a text whose word the handle did not keep is still
// answered (the general way).
TEST(Hostile, ValueWordsLeaveEveryVariantSlot) {
  TempDir d;
  gen("oware", 3, d.path);
  mtb_tables* h = nullptr;
  ASSERT_EQ(mtb_open(d.path.c_str(), &h), MTB_OK);
  std::vector<std::string> specs;
  for (int m = 1; m <= 6; ++m)
    for (const char* capture : {"empty", "standard"}) specs.push_back("kalah:" + std::to_string(m) + ":" + capture);
  for (int a = 4; a <= 7; ++a)
    for (int b = 4; b <= 7; ++b) specs.push_back("cenne:" + std::to_string(a) + ":" + std::to_string(b));
  int value = 0;
  for (const std::string& spec : specs) {  // no tables for them: not found, or a bad board
    const mtb_error e = mtb_value(h, (spec + " 1/1 S").c_str(), &value, nullptr);
    EXPECT_TRUE(e == MTB_ERR_POSITION || e == MTB_ERR_NOT_FOUND) << spec;
  }
  EXPECT_EQ(mtb_value(h, "oware 1,0,0,0,0,0/0,0,0,0,0,1 S", &value, nullptr), MTB_OK);  // no word left
  specs.push_back("oware");
  for (const char* more : {"djenon-aboure", "kotu-baendum", "imbelece", "enkeshui:8", "enkeshui:10", "enkeshui:12"})
    specs.push_back(more);
  std::vector<int> ids;
  for (const std::string& spec : specs) {
    int id = -1;
    ASSERT_EQ(mtb_variant(h, spec.c_str(), &id, nullptr), MTB_OK) << spec << ": " << mtb_last_error(h);
    ids.push_back(id);
  }
  for (std::size_t k = 0; k < specs.size(); ++k) {
    int id = -1;
    ASSERT_EQ(mtb_variant(h, specs[k].c_str(), &id, nullptr), MTB_OK);
    EXPECT_EQ(id, ids[k]) << specs[k];
  }
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::unique(ids.begin(), ids.end()), ids.end());  // as many numbers as variants
  mtb_close(h);
}

// mtb_value from several threads at once on a fresh handle, texts of several variants
// (words kept while the others read them): every answer what one thread answered.
TEST(Hostile, ValueWordsFromManyThreads) {
  TempDir d;
  gen("oware", 5, d.path);
  const VariantPtr v = variant("oware");
  std::vector<std::string> texts;
  for (int n = 0; n <= 5; ++n) {
    const ClassIndex idx(*v, ClassKey{0, n});
    for (Index r = 0; r < idx.size(); r += 3) {
      texts.push_back(format_position(*v, idx.unrank(r), Side::South));
      texts.push_back(format_position(*v, v->rotate(idx.unrank(r)), Side::North));
    }
  }
  for (int m = 1; m <= 6; ++m) texts.push_back("kalah:" + std::to_string(m) + " 1/1 S");  // no tables
  texts.push_back("awari 1,0,0,0,0,0/0,0,0,0,0,1 S");  // another word for Oware
  auto answers = [&](mtb_tables* h, std::size_t from) {
    std::vector<std::pair<int, int>> out(texts.size());
    for (std::size_t k = 0; k < texts.size(); ++k) {
      const std::size_t i = (from + k) % texts.size();
      int value = 0;
      out[i] = {static_cast<int>(mtb_value(h, texts[i].c_str(), &value, nullptr)), value};
    }
    return out;
  };
  mtb_tables* one = nullptr;
  ASSERT_EQ(mtb_open(d.path.c_str(), &one), MTB_OK);
  const auto want = answers(one, 0);
  mtb_close(one);
  mtb_tables* h = nullptr;
  ASSERT_EQ(mtb_open(d.path.c_str(), &h), MTB_OK);
  std::vector<std::vector<std::pair<int, int>>> got(4);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < got.size(); ++t)
    threads.emplace_back([&, t] { got[t] = answers(h, t * texts.size() / got.size()); });
  for (auto& t : threads) t.join();
  for (const auto& g : got) EXPECT_EQ(g, want);
  mtb_close(h);
}

// Oware's tables up to 6 seeds in a temporary folder, open through the C API, and
// Oware's variant number on that handle.
struct OwareHandle {
  TempDir d;
  mtb_tables* h = nullptr;
  int oware = -1;
  OwareHandle() {
    gen("oware", 6, d.path);
    EXPECT_EQ(mtb_open(d.path.c_str(), &h), MTB_OK);
    if (h) {
      EXPECT_EQ(mtb_variant(h, "oware", &oware, nullptr), MTB_OK);
    }
  }
  ~OwareHandle() { mtb_close(h); }
  // The handle, the variant's number and the variant.
  std::tuple<mtb_tables*, int, VariantPtr> parts() const { return {h, oware, variant("oware")}; }
};

// mtb_values_pits answers for each position of a batch what mtb_value_pits answers
// (groups longer than one batch, both sides), and stops at a bad position naming it.
TEST(Hostile, ValuesPitsAgreesWithValuePits) {
  const OwareHandle o;
  ASSERT_GE(o.oware, 0);
  const auto [h, oware, v] = o.parts();
  std::vector<int> boards, sides, want, want_plies;
  for (int seeds = 0; seeds <= 6; ++seeds) {
    const ClassIndex idx(*v, ClassKey{0, seeds});
    for (Index r = 0; r < idx.size(); r += 5) {
      const Position p = idx.unrank(r);
      const int side = static_cast<int>(r / 5 % 2);
      const Position absolute = side == 0 ? p : v->rotate(p);
      for (int i = 0; i < 12; ++i) boards.push_back(absolute.pits[static_cast<std::size_t>(i)]);
      sides.push_back(side);
      int x = 0, y = 0;
      ASSERT_EQ(mtb_value_pits(h, oware, &boards[boards.size() - 12], nullptr, side, &x, &y), MTB_OK);
      want.push_back(x);
      want_plies.push_back(y);
    }
  }
  const int n = static_cast<int>(sides.size());
  ASSERT_GT(n, 200);
  std::vector<int> got(static_cast<std::size_t>(n), 99), got_plies(static_cast<std::size_t>(n), 99);
  ASSERT_EQ(mtb_values_pits(h, oware, n, boards.data(), nullptr, sides.data(), got.data(), got_plies.data()), MTB_OK);
  EXPECT_EQ(got, want);
  EXPECT_EQ(got_plies, want_plies);
  // A position of 10 seeds (no table) at 150: the 150 before it are set.
  boards[150 * 12 + 11] += 10 - std::accumulate(boards.begin() + 150 * 12, boards.begin() + 151 * 12, 0);
  std::fill(got.begin(), got.end(), 99);
  EXPECT_EQ(mtb_values_pits(h, oware, n, boards.data(), nullptr, sides.data(), got.data(), nullptr), MTB_ERR_NOT_FOUND);
  EXPECT_TRUE(std::equal(got.begin(), got.begin() + 150, want.begin()));
  EXPECT_EQ(got[150], 99);
  EXPECT_NE(std::string(mtb_last_error(h)).find("position 150"), std::string::npos) << mtb_last_error(h);
  boards[150 * 12 + 11] = -1;
  EXPECT_EQ(mtb_values_pits(h, oware, n, boards.data(), nullptr, sides.data(), got.data(), nullptr), MTB_ERR_POSITION);
  EXPECT_NE(std::string(mtb_last_error(h)).find("position 150"), std::string::npos) << mtb_last_error(h);
  EXPECT_EQ(mtb_values_pits(h, oware, -1, boards.data(), nullptr, nullptr, got.data(), nullptr), MTB_ERR_ARGUMENT);
  EXPECT_EQ(mtb_values_pits(h, oware, 0, nullptr, nullptr, nullptr, nullptr, nullptr), MTB_OK);
}

// mtb_probe_moves gives every move whole, as mtb_probe ranks them, and the count
// alone when there is no room.
TEST(Hostile, ProbeMovesGivesEveryMoveWhole) {
  TempDir d;
  gen("oware", 6, d.path);
  mtb_tables* h = nullptr;
  ASSERT_EQ(mtb_open(d.path.c_str(), &h), MTB_OK);
  const char* pos = "oware 1,0,2,0,0,1/0,1,0,1,0,0 S";
  mtb_result a{}, b{};
  ASSERT_EQ(mtb_probe(h, pos, &a), MTB_OK);
  int count = -1;
  EXPECT_EQ(mtb_probe_moves(h, pos, &b, nullptr, 0, &count), MTB_ERR_ARGUMENT);
  EXPECT_EQ(count, a.move_count);
  std::vector<mtb_ranked_move> moves(static_cast<std::size_t>(count));
  ASSERT_EQ(mtb_probe_moves(h, pos, &b, moves.data(), count, &count), MTB_OK);
  EXPECT_EQ(b.value, a.value);
  ASSERT_EQ(count, a.move_count);
  for (int k = 0; k < count; ++k) {
    EXPECT_STREQ(moves[static_cast<std::size_t>(k)].move, a.moves[k].name);
    EXPECT_EQ(moves[static_cast<std::size_t>(k)].value, a.moves[k].value);
  }
  EXPECT_EQ(mtb_probe_moves(h, pos, &b, nullptr, 1, &count), MTB_ERR_ARGUMENT);
  mtb_close(h);
}

// mtb_probe_pits gives what mtb_probe_moves gives for the same position as text (both
// sides to move), and refuses bad arguments.
TEST(Hostile, ProbePitsAgreesWithProbeMoves) {
  const OwareHandle o;
  ASSERT_GE(o.oware, 0);
  const auto [h, oware, v] = o.parts();
  std::vector<Position> ps;
  for (int seeds = 1; seeds <= 6; ++seeds) {
    const ClassIndex idx(*v, ClassKey{0, seeds});
    for (Index r = 0; r < idx.size(); r += 97) ps.push_back(idx.unrank(r));
  }
  for (const Position& p : ps)
    for (const Side side : {Side::South, Side::North}) {
      const std::string text = format_position(*v, p, side);
      const Position absolute = side == Side::South ? p : v->rotate(p);
      int board[12];
      for (int i = 0; i < 12; ++i) board[i] = absolute.pits[static_cast<std::size_t>(i)];
      mtb_result a{}, b{};
      mtb_ranked_move ma[12], mb[12];
      int na = -1, nb = -1;
      ASSERT_EQ(mtb_probe_moves(h, text.c_str(), &a, ma, 12, &na), MTB_OK) << text;
      ASSERT_EQ(mtb_probe_pits(h, oware, board, nullptr, side == Side::North, &b, mb, 12, &nb), MTB_OK) << text;
      EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << text;
      ASSERT_EQ(na, nb) << text;
      for (int k = 0; k < na; ++k) {
        EXPECT_STREQ(ma[k].move, mb[k].move) << text;
        EXPECT_EQ(ma[k].value, mb[k].value) << text;
        EXPECT_EQ(ma[k].gain_mover, mb[k].gain_mover) << text;
      }
    }
  int board[12] = {1, 0, 2, 0, 0, 1, 0, 1, 0, 1, 0, 0};
  mtb_result r{};
  int count = -1;
  EXPECT_EQ(mtb_probe_pits(h, oware, board, nullptr, 0, &r, nullptr, 0, &count), MTB_ERR_ARGUMENT);
  EXPECT_GT(count, 0);  // the count alone
  EXPECT_EQ(mtb_probe_pits(h, oware, board, nullptr, 0, &r, nullptr, -1, &count), MTB_ERR_ARGUMENT);
  EXPECT_EQ(mtb_probe_pits(h, 9, board, nullptr, 0, &r, nullptr, 0, &count), MTB_ERR_ARGUMENT);
  board[0] = -1;
  EXPECT_EQ(mtb_probe_pits(h, oware, board, nullptr, 0, &r, nullptr, 0, &count), MTB_ERR_POSITION);
}

// Tablebase::load: tables loaded into memory answer exactly as read in place (values
// one at a time and in batches, full probes with their distances), every table of the
// variant loaded once, and the cache's bound still holds.
TEST(Load, LoadedTablesAnswerAsReadInPlace) {
  TempDir d;
  GenerateOptions opt;
  opt.max_seeds = 8;
  opt.out = d.path;
  opt.threads = 2;
  opt.distances = true;
  const VariantPtr v = variant("oware");
  ASSERT_TRUE(generate(*v, opt));
  auto tb = Tablebase::open(d.path);
  ASSERT_TRUE(tb);
  std::vector<Position> ps;
  for (int seeds = 0; seeds <= 8; ++seeds) {
    const ClassIndex idx(*v, ClassKey{0, seeds});
    for (Index r = 0; r < idx.size(); r += 3) ps.push_back(idx.unrank(r));
  }
  auto answers = [&] {
    std::vector<Value> one, batch(ps.size());
    std::vector<int> probes;
    for (const Position& p : ps) {
      auto x = (*tb)->value(*v, p);
      EXPECT_TRUE(x);
      one.push_back(x ? *x : 999);
    }
    EXPECT_TRUE((*tb)->values(*v, ps, batch));
    EXPECT_EQ(batch, one);
    for (std::size_t k = 0; k < ps.size(); k += 11) {
      auto r = (*tb)->probe(*v, ps[k]);
      EXPECT_TRUE(r && r->distances);
      if (!r) continue;
      probes.insert(probes.end(), {r->value, r->distance});
      for (const MoveValue& m : r->moves) probes.insert(probes.end(), {static_cast<int>(m.move.bits()), m.value, m.distance});
    }
    return std::pair{one, probes};
  };
  const auto in_place = answers();
  const auto tables = 2 * (*tb)->classes("oware").size();  // values and distances
  auto r = (*tb)->load(*v, std::numeric_limits<std::size_t>::max());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->classes, static_cast<int>(tables));
  EXPECT_EQ(r->left, 0);
  std::size_t held = 0;
  for (const ClassKey& k : (*tb)->classes("oware"))
    for (const TableContent c : {TableContent::Values, TableContent::Distances}) {
      auto t = (*tb)->table(*v, k, c);
      ASSERT_TRUE(t);
      EXPECT_GT((*t)->loaded_bytes(), 0u);
      EXPECT_EQ((*t)->loaded_bytes(), (*t)->bytes_to_load());
      held += (*t)->loaded_bytes();
    }
  EXPECT_EQ(r->bytes, held);
  EXPECT_EQ(answers(), in_place);
  auto again = (*tb)->load(*v, std::numeric_limits<std::size_t>::max());  // once: nothing new
  ASSERT_TRUE(again);
  EXPECT_EQ(again->bytes, r->bytes);
  EXPECT_LE(TableCache::instance().bytes(), TableCache::instance().capacity());
}

// Oware's tables up to 8 seeds in a folder of their own, and the bytes that loading
// its classes of 0..seeds seeds takes (their tables opened).
struct OwareUpTo8 {
  TempDir d;
  VariantPtr v = variant("oware");
  OwareUpTo8() { gen("oware", 8, d.path); }
  std::size_t bytes_to_load_up_to(const Tablebase& tb, int seeds) const {
    std::size_t bytes = 0;
    for (int n = 0; n <= seeds; ++n) bytes += (*tb.table(*v, ClassKey{0, n}))->bytes_to_load();
    return bytes;
  }
};

// A budget keeps the smallest tables and leaves the rest read in place; a damaged
// block fails the load of its table (Corrupt) and leaves it unloaded, the tables
// loaded before it stay loaded.
TEST(Load, BudgetAndDamage) {
  const OwareUpTo8 o;
  const TempDir& d = o.d;
  const VariantPtr& v = o.v;
  {
    auto tb = Tablebase::open(d.path);
    ASSERT_TRUE(tb);
    const std::size_t budget = o.bytes_to_load_up_to(**tb, 6);
    auto r = (*tb)->load(*v, budget + 4095);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->classes, 7);
    EXPECT_EQ(r->left, 2);
    EXPECT_EQ(r->bytes, budget);
    EXPECT_EQ((*(*tb)->table(*v, ClassKey{0, 7}))->loaded_bytes(), 0u);
  }
  // The largest class's file damaged in its middle (its blocks).
  const fs::path f = d.path / table_file_name("oware", ClassKey{0, 8});
  auto bytes = slurp(f);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x10);
  spit(f, bytes);
  auto tb = Tablebase::open(d.path);
  ASSERT_TRUE(tb);
  auto r = (*tb)->load(*v, std::numeric_limits<std::size_t>::max());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, TableError::Corrupt) << r.error().message;
  EXPECT_GT((*(*tb)->table(*v, ClassKey{0, 7}))->loaded_bytes(), 0u);
  auto damaged = (*tb)->table(*v, ClassKey{0, 8});
  if (damaged) {
    EXPECT_EQ((*damaged)->loaded_bytes(), 0u);
    // Once named, a table that failed to load is left out without another error.
    auto again = (*tb)->load(*v, std::numeric_limits<std::size_t>::max());
    ASSERT_TRUE(again) << again.error().message;
    EXPECT_EQ(again->left, 1);
    EXPECT_EQ(again->classes, 8);
  }
}

// The short way of a value from its pits (plain_value) with some classes loaded and
// the others read in place: each answers as value() does, through the loaded classes'
// record (Tablebase::LoadedPlain) or the class's table; after a refresh that finds
// nothing changed the record is kept, and the answers stay the same.
TEST(Load, ShortWayWithSomeClassesLoadedAndAfterRefresh) {
  const OwareUpTo8 o;
  const VariantPtr& v = o.v;
  auto tb = Tablebase::open(o.d.path);
  ASSERT_TRUE(tb);
  ASSERT_TRUE((*tb)->load(*v, o.bytes_to_load_up_to(**tb, 5)));
  const Tablebase::VariantTables* files = (*tb)->files_of(*v);
  auto check = [&](const char* when) {
    std::size_t loaded = 0, read = 0;
    for (int seeds = 0; seeds <= 8; ++seeds) {
      const ClassIndex idx(*v, ClassKey{0, seeds});
      const bool is_loaded = (*(*tb)->table(*v, ClassKey{0, seeds}))->loaded_bytes() > 0;
      EXPECT_EQ(is_loaded, seeds <= 5) << when << " " << seeds;
      for (Index r = 0; r < idx.size(); r += 1 + idx.size() / 400) {
        const Position p = idx.unrank(r);
        Value got = 0;
        ASSERT_TRUE((*tb)->plain_value(files, p.pits.data(), seeds, got)) << when << " " << format_position(*v, p, Side::South);
        auto want = (*tb)->value(*v, p);
        ASSERT_TRUE(want);
        ASSERT_EQ(got, *want) << when << " " << format_position(*v, p, Side::South);
        ++(is_loaded ? loaded : read);
      }
    }
    EXPECT_GT(loaded, 100u) << when;
    EXPECT_GT(read, 100u) << when;
  };
  check("after the load");
  EXPECT_FALSE((*tb)->refresh());  // nothing changed
  files = (*tb)->files_of(*v);
  ASSERT_NE(files->loaded_plain.load(), nullptr);  // the record kept
  check("after the refresh");
}

// mtb_load: the values of a batch the same before and after; bad arguments refused.
TEST(Load, CApi) {
  const OwareHandle o;
  ASSERT_GE(o.oware, 0);
  const auto [h, oware, v] = o.parts();
  std::vector<int> boards, before, after;
  for (int seeds = 0; seeds <= 6; ++seeds) {
    const ClassIndex idx(*v, ClassKey{0, seeds});
    for (Index r = 0; r < idx.size(); r += 2) {
      const Position p = idx.unrank(r);
      for (int i = 0; i < 12; ++i) boards.push_back(p.pits[static_cast<std::size_t>(i)]);
    }
  }
  const int n = static_cast<int>(boards.size() / 12);
  before.resize(static_cast<std::size_t>(n));
  after.resize(static_cast<std::size_t>(n));
  ASSERT_EQ(mtb_values_pits(h, oware, n, boards.data(), nullptr, nullptr, before.data(), nullptr), MTB_OK);
  std::size_t bytes = 0;
  int left = -1;
  ASSERT_EQ(mtb_load(h, oware, 0, &bytes, &left), MTB_OK);  // no room: nothing loaded
  EXPECT_EQ(bytes, 0u);
  EXPECT_EQ(left, 7);
  ASSERT_EQ(mtb_load(h, oware, static_cast<std::size_t>(-1), &bytes, &left), MTB_OK);
  EXPECT_GT(bytes, 0u);
  EXPECT_EQ(left, 0);
  ASSERT_EQ(mtb_values_pits(h, oware, n, boards.data(), nullptr, nullptr, after.data(), nullptr), MTB_OK);
  EXPECT_EQ(after, before);
  for (int k = 0; k < n; k += 7) {
    int value = 0;
    ASSERT_EQ(mtb_value_pits(h, oware, &boards[static_cast<std::size_t>(k) * 12], nullptr, 0, &value, nullptr), MTB_OK);
    EXPECT_EQ(value, before[static_cast<std::size_t>(k)]);
  }
  EXPECT_EQ(mtb_load(h, oware, 1, nullptr, nullptr), MTB_OK);  // outputs may be NULL
  EXPECT_EQ(mtb_load(nullptr, oware, 1, nullptr, nullptr), MTB_ERR_ARGUMENT);
  EXPECT_EQ(mtb_load(h, 5, 1, nullptr, nullptr), MTB_ERR_ARGUMENT);
}

// Tablebase::refresh says whether anything changed: nothing, then a table replaced
// under its name (open before), then a file added (the protocol loads again only then).
TEST(Load, RefreshSaysWhenTablesChange) {
  const OwareHandle o;  // Oware up to 6 seeds; the Tablebase is a handle of its own
  const TempDir& d = o.d;
  auto tb = Tablebase::open(d.path);
  ASSERT_TRUE(tb);
  ASSERT_TRUE((*tb)->table(*variant("oware"), ClassKey{0, 5}));
  EXPECT_FALSE((*tb)->refresh());
  const fs::path five = d.path / table_file_name("oware", ClassKey{0, 5});
  const auto bytes = slurp(five);
  fs::remove(five);
  spit(five, bytes);  // the same bytes, another file
  EXPECT_TRUE((*tb)->refresh());
  EXPECT_FALSE((*tb)->refresh());
  TempDir more;
  gen("oware", 7, more.path);
  fs::copy_file(more.path / table_file_name("oware", ClassKey{0, 7}), d.path / table_file_name("oware", ClassKey{0, 7}));
  EXPECT_TRUE((*tb)->refresh());
  EXPECT_FALSE((*tb)->refresh());
}
