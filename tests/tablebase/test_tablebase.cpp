// Table files: round trip, checksums, truncation, wrong variant, atomic writes,
// resume after kill -9, probe and verify through the CLI.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <set>
#include <thread>

#include "mancala/table_writer.h"
#include "mancala/generate.h"
#include "mancala/lower_store.h"
#include "mancala/notation.h"
#include "mancala/probe.h"
#include "tablebase/support.h"
#include "tablebase/table_bytes.h"

using namespace mancala;
using namespace mancala::test;
namespace fs = std::filesystem;


TEST(Format, RoundTripEveryValue) {
  TempDir d;
  const VariantPtr v = variant("kalah:4:empty");
  gen("kalah:4:empty", 9, d.path);
  SolvedClasses solved;
  SolveOptions so;
  for (const ClassKey& k : v->solving_order(9)) {
    auto cls = solve_class(*v, k, solved, so);
    ASSERT_TRUE(cls);
    solved.add(*cls);
    auto t = TableFile::open(d.path / table_file_name(v->name(), k));
    ASSERT_TRUE(t) << t.error().message;
    EXPECT_EQ((*t)->header().positions, (*cls)->size());
    auto all = (*t)->read_all();
    ASSERT_TRUE(all);
    EXPECT_EQ(*all, (*cls)->bytes());
    for (Index i = 0; i < (*cls)->size(); i += 97) EXPECT_EQ(*(*t)->value(i), (*cls)->get(i));
  }
}

TEST(Format, MultiBlockTables) {
  TempDir d;
  const VariantPtr v = variant("oware");
  std::vector<std::uint8_t> bytes(200000);
  std::mt19937 rng(7);
  for (auto& b : bytes) b = static_cast<std::uint8_t>(rng() % 9);
  // A fake class of the right size is not needed for the format itself: use oware 9
  // (167,596 positions, 41 blocks of 4096) with values taken from the random bytes.
  const ClassKey key{0, 9};
  bytes.resize(ClassIndex(*v, key).size());
  const fs::path f = d.path / table_file_name(v->name(), key);
  ASSERT_TRUE(write_table(f, *v, key, bytes, 1));
  auto t = TableFile::open(f);
  ASSERT_TRUE(t);
  EXPECT_EQ((*t)->header().blocks(), (bytes.size() + kDefaultUnitPositions * kDefaultUnitsPerBlock - 1) /
                                         (kDefaultUnitPositions * kDefaultUnitsPerBlock));
  EXPECT_EQ(*(*t)->read_all(), bytes);
  EXPECT_EQ(static_cast<std::uint8_t>(*(*t)->value(150000)), bytes[150000]);
}

// Margins that drift along the ranking, with rare outliers: the writer shifts each
// unit (format 5) and gives the rare symbols codes longer than the reader's one-step
// 12 bits. Every value reads back, one at a time and by blocks, and the parts make the
// same file (the path of mancala-tb-mpi); a shift that puts a margin beyond the seeds
// in play is a corrupt file, not a value.
std::vector<std::uint8_t> drifting_margins(std::size_t n, int seeds) {
  std::mt19937 rng(5);
  std::vector<std::uint8_t> bytes(n);
  for (std::size_t i = 0; i < n; ++i) {
    const int level = static_cast<int>((i / 700) % 9) - 4;
    int noise = 0;
    while (noise < 5 && rng() % 3 == 0) ++noise;
    const int m = std::clamp(level + (rng() % 2 ? noise : -noise), -seeds, seeds);
    bytes[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(m));
  }
  return bytes;
}

// Oware's 9-seed class of drifting margins, written as a table (a shifted one).
struct DriftingTable {
  VariantPtr v = variant("oware");
  ClassKey key{0, 9};
  std::vector<std::uint8_t> bytes = drifting_margins(ClassIndex(*v, key).size(), 9);
  fs::path write(const fs::path& dir) const {
    const fs::path f = dir / table_file_name(v->name(), key);
    EXPECT_TRUE(write_table(f, *v, key, bytes, 1));
    return f;
  }
};

TEST(Format, ShiftedUnitsAndLongCodes) {
  TempDir d;
  const DriftingTable table;
  const VariantPtr& v = table.v;
  const ClassKey key = table.key;
  const std::vector<std::uint8_t>& bytes = table.bytes;
  const fs::path f = table.write(d.path);
  auto t = TableFile::open(f);
  ASSERT_TRUE(t) << t.error().message;
  const TableHeader& h = (*t)->header();
  EXPECT_TRUE(h.unit_shifts);
  EXPECT_GT(*std::max_element(h.code_lengths.begin(), h.code_lengths.end()), kFastCodeBits);
  EXPECT_EQ(*(*t)->read_all(), bytes);
  for (Index i = 0; i < bytes.size(); ++i)
    ASSERT_EQ(static_cast<std::uint8_t>(*(*t)->value(i)), bytes[i]) << "position " << i;

  // A unit's shift (block 0's first unit: right after the lengths) moved far up.
  const auto raw = slurp(f);
  std::vector<std::uint8_t> file(raw.begin(), raw.end());
  table_bytes::Layout l;
  ASSERT_TRUE(table_bytes::layout(file, l));
  file[l.data + (kDefaultUnitsPerBlock - 1)] = 100;
  ASSERT_TRUE(table_bytes::fix_checksums(file));
  const fs::path g = d.path / "shifted" / table_file_name(v->name(), key);
  fs::create_directories(g.parent_path());
  std::ofstream(g, std::ios::binary).write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
  auto bad = TableFile::open(g);
  ASSERT_TRUE(bad);
  const auto e = (*bad)->value(0);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().code, TableError::Corrupt);
  EXPECT_NE(e.error().message.find("holds a margin of"), std::string::npos) << e.error().message;
  EXPECT_FALSE((*bad)->read_all());
}

// Format 7's shift code (format.h): a unit's shift is its block's base plus a
// difference coded by the file's shift code. A hostile shift code (too long, no
// symbol, lengths that are not a complete code, differences out of order) is refused
// when the file opens; a block whose units hold nothing (not even their shift codes)
// is Corrupt when read, never a value.
TEST(Format, HostileShiftCodesAreCorrupt) {
  TempDir d;
  const DriftingTable table;
  const VariantPtr& v = table.v;
  const ClassKey key = table.key;
  const fs::path f = table.write(d.path);
  const auto raw = slurp(f);
  const std::vector<std::uint8_t> good(raw.begin(), raw.end());
  table_bytes::Layout l;
  ASSERT_TRUE(table_bytes::layout(good, l));
  {
    auto t = TableFile::open(f);
    ASSERT_TRUE(t) << t.error().message;
    ASSERT_TRUE((*t)->header().unit_shifts);
    ASSERT_GE((*t)->header().shift_lengths.size(), 3u);  // a code of several differences
  }
  // The shift code follows the value code: k, L, M, S, M lengths, M runs, M k values.
  const std::size_t m = table_bytes::get(good, l.code + 2, 2);
  const std::size_t sc = l.code + 5 + 2 * m + m * good[l.code];
  const std::size_t ms = table_bytes::get(good, sc + 1, 2);
  auto write = [&](std::vector<std::uint8_t> b) {
    table_bytes::fix_checksums(b);
    std::ofstream(f, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  };
  struct Edit {
    const char* what;
    std::function<void(std::vector<std::uint8_t>&)> apply;
  };
  const std::vector<Edit> edits = {
      {"shift codes of 11 bits", [&](auto& b) { b[sc] = kMaxShiftBits + 1; }},
      {"no shift symbol", [&](auto& b) { table_bytes::put(b, sc + 1, 2, 0); }},
      {"257 shift symbols", [&](auto& b) { table_bytes::put(b, sc + 1, 2, 257); }},
      {"shift lengths not a complete code", [&](auto& b) { b[sc + 3] = static_cast<std::uint8_t>(b[sc + 3] + 1); }},
      {"a shift length of 0", [&](auto& b) { b[sc + 3] = 0; }},
      {"differences out of order", [&](auto& b) { std::swap(b[sc + 3 + ms], b[sc + 4 + ms]); }},
  };
  for (const Edit& e : edits) {
    auto b = good;
    e.apply(b);
    write(b);
    auto t = TableFile::open(f);
    ASSERT_FALSE(t) << e.what;
    EXPECT_EQ(t.error().code, TableError::Corrupt) << e.what << ": " << t.error().message;
  }
  // Block 0 cut to its unit lengths, all 0, and its base: every unit is empty.
  {
    auto b = good;
    const std::uint64_t o1 = table_bytes::get64(b, l.offsets + 8);
    std::vector<std::uint8_t> cut(kDefaultUnitsPerBlock, 0);  // 63 lengths and the base
    b.erase(b.begin() + static_cast<long>(l.data), b.begin() + static_cast<long>(l.data + o1));
    b.insert(b.begin() + static_cast<long>(l.data), cut.begin(), cut.end());
    const std::uint64_t shrink = o1 - cut.size();
    for (std::uint64_t k = 1; k <= l.blocks; ++k) table_bytes::put64(b, l.offsets + 8 * k, table_bytes::get64(b, l.offsets + 8 * k) - shrink);
    write(b);
    auto t = TableFile::open(f, *v, key);
    ASSERT_TRUE(t) << t.error().message;
    for (const Index i : {Index{0}, Index{70}, Index{4095}}) {
      auto x = (*t)->value(i);
      ASSERT_FALSE(x) << i;
      EXPECT_EQ(x.error().code, TableError::Corrupt) << x.error().message;
    }
    auto all = (*t)->read_all();
    ASSERT_FALSE(all);
    EXPECT_EQ(all.error().code, TableError::Corrupt) << all.error().message;
  }
  write(good);  // and the file as written reads back
  auto t = TableFile::open(f, *v, key);
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(*(*t)->read_all(), table.bytes);
}

// Block reads (TableFile::read_bytes_block: whole codes of a window a lookup, longer
// symbols 8 bytes a store, a unit's shift added after) against single values, over
// tables whose values make the writer pick different shapes: pairs and quadruples of
// positions that go together (tuples of 2 and 4), long runs (runs of tuples), a
// lone value with shifts, few and many symbols. The table size leaves a short last unit.
TEST(Format, BlockReadsAgreeWithSingleValuesInEveryShape) {
  TempDir d;
  const VariantPtr v = variant("oware");
  const ClassKey key{0, 9};
  const std::size_t n = ClassIndex(*v, key).size();
  std::mt19937 rng(11);
  std::vector<std::vector<std::uint8_t>> tables;
  for (const int period : {2, 4, 8}) {  // a random tuple of `period` margins, repeated a while
    std::vector<std::uint8_t> b(n);
    std::vector<std::uint8_t> tuple(static_cast<std::size_t>(period));
    for (std::size_t i = 0; i < n; ++i) {
      if (i % (static_cast<std::size_t>(period) * 3) == 0)
        for (auto& x : tuple) x = static_cast<std::uint8_t>(static_cast<std::int8_t>(static_cast<int>(rng() % 5) - 2));
      b[i] = tuple[i % tuple.size()];
    }
    tables.push_back(b);
  }
  {  // long runs of one margin
    std::vector<std::uint8_t> b(n);
    std::uint8_t x = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (rng() % 200 == 0) x = static_cast<std::uint8_t>(static_cast<std::int8_t>(static_cast<int>(rng() % 7) - 3));
      b[i] = x;
    }
    tables.push_back(b);
  }
  {  // margins over the whole range, uniform: many symbols, long codes
    std::vector<std::uint8_t> b(n);
    for (auto& x : b) x = static_cast<std::uint8_t>(static_cast<std::int8_t>(static_cast<int>(rng() % 19) - 9));
    tables.push_back(b);
  }
  tables.push_back(drifting_margins(n, 9));
  std::set<std::pair<std::uint32_t, bool>> shapes;
  for (std::size_t k = 0; k < tables.size(); ++k) {
    const fs::path f = d.path / std::to_string(k) / table_file_name(v->name(), key);
    fs::create_directories(f.parent_path());
    ASSERT_TRUE(write_table(f, *v, key, tables[k], 1));
    auto t = TableFile::open(f);
    ASSERT_TRUE(t) << t.error().message;
    const TableHeader& h = (*t)->header();
    shapes.insert({h.tuple, h.unit_shifts});
    for (int twice = 0; twice < 2; ++twice) EXPECT_EQ(*(*t)->read_all(), tables[k]) << "table " << k;
    for (Index i = 0; i < n; i += 13)
      ASSERT_EQ(static_cast<std::uint8_t>(*(*t)->value(i)), tables[k][i]) << "table " << k << " position " << i;
  }
  EXPECT_GE(shapes.size(), 3u);  // tuples of more than one size, with and without shifts
}

// The stages of write_table (table_writer.h) run over parts of a table cut at block
// boundaries, their counts carried as bytes and summed, as mancala-tb-mpi's ranks run
// them, make the file write_table makes.
std::string file_from_parts(const Variant& v, const ClassKey& key, const std::vector<std::uint8_t>& bytes, int width,
                            const std::vector<std::uint64_t>& cuts) {  // block numbers where parts start, 0 first
  const std::uint64_t n = bytes.size() / static_cast<std::size_t>(width);
  const auto w = static_cast<std::uint32_t>(width);
  TableCoder coder(n, w);
  const std::uint64_t B = coder.block_positions(), N = coder.blocks();
  std::vector<ValueRange> parts;
  for (std::size_t i = 0; i < cuts.size(); ++i) {
    const std::uint64_t p0 = std::min(cuts[i] * B, n), p1 = i + 1 < cuts.size() ? std::min(cuts[i + 1] * B, n) : n;
    parts.push_back(ValueRange{bytes.data() + p0 * w, p0, p1 - p0, n, w});
  }
  while (!coder.done()) {
    SymbolCounts sum;
    for (const ValueRange& r : parts) {
      auto carried = SymbolCounts::from_bytes(coder.count(r).to_bytes());
      EXPECT_TRUE(carried);
      sum.add(*carried);
    }
    EXPECT_TRUE(coder.add_counts(sum));
  }
  TableHeader h = table_header(v, key, n, width, TableContent::Values);
  coder.describe(h);
  std::string head = table_head(h), blocks, crcs;
  put64(head, 0);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::uint64_t b1 = i + 1 < cuts.size() ? cuts[i + 1] : N;
    EXPECT_TRUE(encode_blocks(coder, parts[i], cuts[i], b1, 2, [&](std::uint64_t, const std::string& b, std::uint32_t crc) {
      blocks += b;
      put64(head, blocks.size());
      put32(crcs, crc);
      return std::expected<void, TableError>{};
    }));
  }
  return head + crcs + blocks + std::string(8, '\0');
}

TEST(Format, StagesOverPartsMakeWriteTablesFile) {
  TempDir d;
  const VariantPtr v = variant("oware");
  std::mt19937 rng(11);
  // Oware 9 (167,596 positions, 41 blocks: one counting round) and Oware 15 (more
  // than 2^22 positions: the shape chosen from a sample, then a second round), values
  // in runs and at random, 1 and 2 bytes a value.
  for (const int seeds : {9, 15})
    for (const int width : {1, 2}) {
      if (seeds == 15 && width == 2) continue;
      const ClassKey key{0, seeds};
      const Index n = ClassIndex(*v, key).size();
      std::vector<std::uint8_t> bytes(n * static_cast<std::size_t>(width));
      for (std::size_t i = 0; i < bytes.size();) {
        const std::uint8_t x = static_cast<std::uint8_t>(rng() % 7), run = static_cast<std::uint8_t>(rng() % 3 ? 1 : rng() % 200);
        for (int j = 0; j < run && i < bytes.size(); ++j) bytes[i++] = x;
      }
      const fs::path f = d.path / ("t" + std::to_string(seeds) + "_" + std::to_string(width));
      ASSERT_TRUE(write_table(f, *v, key, bytes, width));
      const auto file = slurp(f);
      const std::string want(file.begin(), file.end());
      if (seeds == 15) {
        EXPECT_GT(n, Index{1} << 22);
      }
      const std::uint64_t N = TableCoder(n, static_cast<std::uint32_t>(width)).blocks();
      for (const std::vector<std::uint64_t>& cuts : std::vector<std::vector<std::uint64_t>>{{0}, {0, 1}, {0, N / 3, N - 1}, {0, N, N}})
        EXPECT_TRUE(file_from_parts(*v, key, bytes, width, cuts) == want) << seeds << " seeds, width " << width << ", "
                                                                            << cuts.size() << " parts";
    }
  // Shifted units and long codes (Format.ShiftedUnitsAndLongCodes) by parts too.
  const ClassKey key{0, 9};
  const std::vector<std::uint8_t> bytes = drifting_margins(ClassIndex(*v, key).size(), 9);
  const fs::path f = d.path / "drifting";
  ASSERT_TRUE(write_table(f, *v, key, bytes, 1));
  const auto file = slurp(f);
  const std::uint64_t N = TableCoder(bytes.size(), 1).blocks();
  EXPECT_TRUE(file_from_parts(*v, key, bytes, 1, {0, N / 2, N - 1}) == std::string(file.begin(), file.end()));
}

// A table of more than 2^22 positions counts its exact symbols by the values its sample
// (every 16th unit) saw; a value found only outside the sample makes it count again.
TEST(Format, ValueOutsideTheSampleIsCoded) {
  TempDir d;
  const VariantPtr v = variant("oware");
  const ClassKey key{0, 15};
  std::vector<std::uint8_t> bytes = drifting_margins(ClassIndex(*v, key).size(), 15);
  ASSERT_GT(bytes.size(), std::size_t{1} << 22);
  bytes[kDefaultUnitPositions * 17 + 5] = static_cast<std::uint8_t>(std::int8_t{-15});  // unit 17: not in the sample
  bytes[bytes.size() - 1] = 15;                                                          // the last tuple's padding
  const fs::path f = d.path / table_file_name(v->name(), key);
  ASSERT_TRUE(write_table(f, *v, key, bytes, 1));
  auto t = TableFile::open(f);
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_TRUE((*t)->header().unit_shifts);
  EXPECT_EQ(*(*t)->read_all(), bytes);
  const auto file = slurp(f);
  const std::uint64_t N = TableCoder(bytes.size(), 1).blocks();
  EXPECT_TRUE(file_from_parts(*v, key, bytes, 1, {0, N / 2, N - 1}) == std::string(file.begin(), file.end()));
}

// The writer numbers a table's values densely to count and code its symbols: by a table
// look-up in general, and by an offset where the values are one run of bytes in steps of
// 1 or 2 modulo 256 (margins of one parity, as Kalah's, wrap from 255 to 0). Every kind
// reads back, whole and by parts: steps of 2 across 0, steps of 1, one parity with a gap,
// every margin of the class, and a large (sampled) table whose sample saw steps of 2 but
// one unit outside it holds an odd margin.
TEST(Format, EveryNumberingOfTheValuesReadsBack) {
  TempDir d;
  const VariantPtr v = variant("oware");
  std::mt19937 rng(11);
  auto table = [&](const ClassKey& key, auto&& value) {
    std::vector<std::uint8_t> bytes(ClassIndex(*v, key).size());
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(value(i));
    return bytes;
  };
  const ClassKey small{0, 9}, large{0, 15};
  const std::vector<std::pair<std::string, std::vector<std::uint8_t>>> cases = {
      {"steps of 2 across 0", table(small, [&](std::size_t i) { return 2 * static_cast<int>((i / 300 + rng() % 3) % 8) - 7; })},
      {"steps of 1", table(small, [&](std::size_t i) { return static_cast<int>((i / 200 + rng() % 4) % 11) - 5; })},
      {"one parity with a gap", table(small, [&](std::size_t) { return std::array{-6, -4, 0, 2, 4}[rng() % 5]; })},
      {"every margin, at random", table(small, [&](std::size_t) { return static_cast<int>(rng() % 19) - 9; })},
      {"an odd margin outside the sample", [&] {
         auto b = table(large, [&](std::size_t i) { return 2 * static_cast<int>((i / 900 + rng() % 2) % 6) - 5; });
         b[kDefaultUnitPositions * 33 + 9] = 4;  // unit 33: not in the sample (every 16th unit)
         return b;
       }()},
  };
  for (const auto& [what, bytes] : cases) {
    const ClassKey key = bytes.size() > (std::size_t{1} << 22) ? large : small;
    const fs::path f = d.path / what / table_file_name(v->name(), key);
    fs::create_directories(f.parent_path());
    ASSERT_TRUE(write_table(f, *v, key, bytes, 1)) << what;
    auto t = TableFile::open(f);
    ASSERT_TRUE(t) << what << ": " << t.error().message;
    const auto all = (*t)->read_all();
    ASSERT_TRUE(all) << what << ": " << all.error().message;
    EXPECT_EQ(*all, bytes) << what;
    for (Index i = 0; i < bytes.size(); i += 101) {
      const auto x = (*t)->value(i);
      ASSERT_TRUE(x) << what << ": " << x.error().message;
      ASSERT_EQ(static_cast<std::uint8_t>(*x), bytes[i]) << what;
    }
    const auto file = slurp(f);
    const std::uint64_t N = TableCoder(bytes.size(), 1).blocks();
    EXPECT_TRUE(file_from_parts(*v, key, bytes, 1, {0, N / 2, N - 1}) == std::string(file.begin(), file.end())) << what;
  }
}

TEST(Format, DetectsFlippedByteEverywhere) {
  TempDir d;
  gen("oware", 6, d.path);
  const fs::path f = d.path / table_file_name("oware", ClassKey{0, 6});
  const auto good = slurp(f);
  const VariantPtr v = variant("oware");
  // Flip each byte in turn (every 7th for speed): open+read_all must fail.
  for (std::size_t i = 0; i < good.size(); i += 7) {
    auto bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x10);
    spit(f, bad);
    auto t = TableFile::open(f);
    bool caught = !t;
    if (t) caught = !(*t)->read_all() || !(*t)->check_against(*v);
    EXPECT_TRUE(caught) << "flip at byte " << i << " of " << good.size() << " went unnoticed";
  }
  spit(f, good);
}

TEST(Format, DetectsTruncationAndTrailingBytes) {
  TempDir d;
  gen("oware", 6, d.path);
  const fs::path f = d.path / table_file_name("oware", ClassKey{0, 6});
  const auto good = slurp(f);
  for (std::size_t n : {std::size_t{0}, std::size_t{5}, std::size_t{17}, good.size() / 2, good.size() - 1}) {
    spit(f, std::vector<char>(good.begin(), good.begin() + static_cast<long>(n)));
    auto t = TableFile::open(f);
    ASSERT_FALSE(t) << "truncated to " << n;
    EXPECT_EQ(t.error().code, TableError::Corrupt);
  }
  auto longer = good;
  longer.push_back('x');
  spit(f, longer);
  EXPECT_FALSE(TableFile::open(f));
}

TEST(Format, RejectsAHeaderFromAnotherVariant) {
  TempDir d;
  gen("oware", 4, d.path);
  gen("djenon-aboure", 4, d.path);
  // Put djenon-aboure's class 4 under oware's name.
  fs::copy_file(d.path / table_file_name("djenon-aboure", ClassKey{0, 4}), d.path / table_file_name("oware", ClassKey{0, 4}),
                fs::copy_options::overwrite_existing);
  auto tb = Tablebase::open(d.path);
  ASSERT_TRUE(tb);
  auto p = parse_position("oware 1,1,0,0,0,0/1,1,0,0,0,0 S");
  ASSERT_TRUE(p);
  auto r = (*tb)->value(*p->variant, p->position);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, TableError::Mismatch);
  EXPECT_NE(r.error().message.find("djenon-aboure"), std::string::npos);
}

TEST(Format, NoTemporaryFilesLeft) {
  TempDir d;
  gen("kalah:4:empty", 6, d.path);
  for (const auto& e : fs::directory_iterator(d.path)) EXPECT_EQ(e.path().extension(), ".mtb") << e.path();
}

// With more than one thread a class's file is written while the next class is solved,
// its Solved event coming once the file is complete: a cancel raised from that event
// stops the run with the newest class's file still being written. The run must end
// with complete files only, and a resume must give the same files as one whole run.
TEST(Generate, CancelWhileWritingThenResumeGivesIdenticalFiles) {
  TempDir ref, d;
  gen("oware", 10, ref.path);
  std::atomic<bool> cancel{false};
  GenerateOptions opt;
  opt.max_seeds = 10;
  opt.out = d.path;
  opt.threads = 2;
  opt.budget.cancel_on(&cancel);
  int solved = 0;
  opt.on_event = [&](const GenerateEvent& e) {
    if (e.kind == GenerateEvent::Solved && ++solved == 6) cancel = true;
  };
  auto stopped = generate(*variant("oware"), opt);
  ASSERT_FALSE(stopped);
  EXPECT_EQ(stopped.error().code, Error::Cancelled) << stopped.error().message;
  for (const auto& f : fs::directory_iterator(d.path))
    EXPECT_EQ(f.path().extension(), ".mtb") << "a leftover " << f.path();  // no .tmp.PID
  cancel = false;
  opt.on_event = nullptr;
  auto again = generate(*variant("oware"), opt);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_GE(again->classes_loaded, 6);
  int files = 0;
  for (const auto& f : fs::directory_iterator(ref.path)) {
    if (f.path().extension() != ".mtb") continue;
    ++files;
    EXPECT_EQ(slurp(d.path / f.path().filename()), slurp(f.path())) << f.path().filename();
  }
  EXPECT_EQ(files, 11);
}

TEST(Generate, ResumeLoadsFinishedClasses) {
  TempDir d;
  const auto first = gen("djenon-aboure", 6, d.path);
  EXPECT_EQ(first.classes_solved, 7);
  const auto again = gen("djenon-aboure", 7, d.path);
  EXPECT_EQ(again.classes_loaded, 7);
  EXPECT_EQ(again.classes_solved, 1);
}

TEST(Generate, CorruptFileIsSolvedAgain) {
  TempDir d;
  gen("oware", 6, d.path);
  const fs::path f = d.path / table_file_name("oware", ClassKey{0, 5});
  const auto good = slurp(f);
  auto bad = good;
  bad[bad.size() - 3] ^= 1;
  spit(f, bad);
  const auto r = gen("oware", 6, d.path);
  EXPECT_EQ(r.classes_solved, 1);
  EXPECT_EQ(slurp(f), good);
}

// Small Cenne boards past the count where jeppe classes start (6 seeds on 4:4, 9 on
// 4:5): generation finds every class a child needs, and verify re-derives every value,
// also of the positions a jeppe class holds only for closure.
TEST(Generate, SmallCenneBoardsGenerateAndVerify) {
  for (const auto& [spec, seeds] : {std::pair<std::string, int>{"cenne:4:4", 10}, {"cenne:4:5", 9}}) {
    TempDir d;
    gen(spec, seeds, d.path);
    const auto rep = verify_tables(d.path, *variant(spec), VerifyOptions{});
    ASSERT_TRUE(rep) << rep.error().message;
    EXPECT_EQ(rep->mismatches, 0u) << spec << ": " << (rep->problems.empty() ? "" : rep->problems[0]);
    EXPECT_GT(rep->classes, seeds + 1) << spec << ": the jeppe classes are generated";
  }
}

// verify_tables fails only when it cannot start: NotFound for a folder without the
// variant's tables (or no folder at all).
TEST(Generate, VerifyErrorCodes) {
  TempDir d;
  gen("kalah:2:empty", 2, d.path);
  const auto other = verify_tables(d.path, *variant("oware"), VerifyOptions{});
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().code, Error::NotFound) << other.error().message;
  const auto none = verify_tables(d.path / "no-such-folder", *variant("kalah:2:empty"), VerifyOptions{});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, Error::NotFound) << none.error().message;
}

// kill -9 in the middle of a class, then the same command: identical files.
TEST(Cli, KillNineThenResumeGivesIdenticalFiles) {
  TempDir ref, d;
  ASSERT_EQ(run("generate oware --max-seeds 11 --out " + ref.path.string()).status, 0);
  const std::string cmd = std::string(MANCALA_TB_EXE) + " generate oware --max-seeds 11 --out " + d.path.string();
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", ("exec " + cmd + " >/dev/null 2>&1").c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait until class 9 is written, so the kill lands in class 10 or 11.
  const fs::path marker = d.path / table_file_name("oware", ClassKey{0, 9});
  for (int i = 0; i < 600 && !fs::exists(marker); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  kill(pid, SIGKILL);
  int st = 0;
  waitpid(pid, &st, 0);
  EXPECT_FALSE(fs::exists(d.path / table_file_name("oware", ClassKey{0, 11}))) << "killed too late to test anything";
  const auto r = run("generate oware --max-seeds 11 --out " + d.path.string() + " --verbose");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("loaded 9"), std::string::npos);
  for (const auto& e : fs::directory_iterator(ref.path)) {
    const fs::path other = d.path / e.path().filename();
    ASSERT_TRUE(fs::exists(other)) << other;
    EXPECT_EQ(slurp(e.path()), slurp(other)) << e.path().filename();
  }
  for (const auto& e : fs::directory_iterator(d.path)) EXPECT_EQ(e.path().extension(), ".mtb") << e.path();
}

TEST(Cli, VerifyPassesThenFailsOnCorruption) {
  TempDir d;
  ASSERT_EQ(run("generate kalah:6:empty --max-seeds 6 --out " + d.path.string()).status, 0);
  auto ok = run("verify " + d.path.string());
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(ok.out.find("OK"), std::string::npos);
  // A value changed consistently (checksums recomputed) is caught by re-derivation.
  const VariantPtr v = variant("kalah:6:empty");
  const ClassKey key{0, 5};
  const fs::path f = d.path / table_file_name(v->name(), key);
  auto t = TableFile::open(f);
  ASSERT_TRUE(t);
  auto bytes = *(*t)->read_all();
  bytes[123] = static_cast<std::uint8_t>(bytes[123] + 1);
  ASSERT_TRUE(write_table(f, *v, key, bytes, 1));
  auto bad = run("verify " + d.path.string());
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("FAILED"), std::string::npos);
  EXPECT_NE(bad.err.find("its moves give"), std::string::npos);
  // A flipped byte in the coded data (the first byte of block 0, whose units hold the
  // probed position): checksum.
  auto raw = slurp(f);
  const auto u32 = [&](std::size_t at) {
    return static_cast<std::size_t>(static_cast<std::uint8_t>(raw[at]) | static_cast<std::uint8_t>(raw[at + 1]) << 8 |
                                    static_cast<std::uint8_t>(raw[at + 2]) << 16 | static_cast<std::uint8_t>(raw[at + 3]) << 24);
  };
  const std::size_t data = u32(12) + 12 * u32(96) + 12;  // D = H + 12 N + 12 (format.h)
  raw[data] ^= 0x40;
  spit(f, raw);
  bad = run("verify " + d.path.string());
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("checksum"), std::string::npos);
  auto probe = run("probe " + d.path.string() + " kalah:6:empty 1,1,1,1,1,0/0,0,0,0,0,0 S");
  EXPECT_NE(probe.status, 0);
  EXPECT_NE(probe.err.find("checksum"), std::string::npos);
  EXPECT_EQ(std::count(probe.err.begin(), probe.err.end(), '\n'), 1);
}

TEST(Cli, ProbeJsonAndText) {
  TempDir d;
  ASSERT_EQ(run("generate oware --max-seeds 6 --out " + d.path.string()).status, 0);
  auto r = run("probe " + d.path.string() + " \"oware 0,0,0,0,0,2/2,2,0,0,0,0 S\" --json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"position\":\"oware 0,0,0,0,0,2/2,2,0,0,0,0 S\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"value\":"), std::string::npos);
  EXPECT_NE(r.out.find("\"moves\":[{\"move\":\"5\""), std::string::npos) << r.out;
  // Two positions, unquoted, text.
  r = run("probe " + d.path.string() + " oware 0,0,0,0,0,2/2,2,0,0,0,0 S oware 2,2,0,0,0,0/0,0,0,0,0,2 N");
  ASSERT_EQ(r.status, 0) << r.err;
  std::size_t values = 0;
  for (std::size_t at = r.out.find("\n  value "); at != std::string::npos; at = r.out.find("\n  value ", at + 1)) ++values;
  EXPECT_EQ(values, 2u) << r.out;
}

TEST(Cli, ProbeErrors) {
  TempDir d;
  ASSERT_EQ(run("generate oware --max-seeds 4 --out " + d.path.string()).status, 0);
  for (const std::string& args : {std::string("probe /nonexistent oware 1,0,0,0,0,0/0,0,0,0,0,1 S"),
                                   "probe " + d.path.string() + " oware 9,9,9,9,9,9/0,0,0,0,0,1 S",
                                   "probe " + d.path.string() + " oware 1,0,0,0,0,0/0,0,0,0,0 S",
                                   "probe " + d.path.string() + " kalah:6:empty 1,0,0,0,0,0/0,0,0,0,0,1 S",
                                   "verify " + d.path.string() + " kalah:6:empty"}) {
    const auto r = run(args);
    EXPECT_NE(r.status, 0) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
  }
}

// generate --memory-mb: with a budget of one byte every lower class is read back from
// its file through a cache that keeps no block; the files are those of an unbounded run.
TEST(Generate, TinyMemoryBudgetGivesIdenticalFiles) {
  for (const auto& [spec, seeds] :
       {std::pair<std::string, int>{"kalah:6:empty", 9}, {"oware", 9}, {"cenne:4:4", 8}, {"kalah:4:empty", 12}}) {
    TempDir whole, paged;
    int paged_classes = 0;
    for (const auto& [dir, budget] : {std::pair<fs::path, std::uint64_t>{whole.path, 0}, {paged.path, 1}}) {
      GenerateOptions opt;
      opt.max_seeds = seeds;
      opt.out = dir;
      opt.threads = 2;
      opt.memory_bytes = budget;
      auto r = generate(*variant(spec), opt);
      ASSERT_TRUE(r) << spec << ": " << r.error().message;
      if (budget == 0) {
        EXPECT_EQ(r->paged_classes, 0) << spec;
      } else {
        EXPECT_GT(r->cache_misses, 0u) << spec;
      }
      paged_classes = r->paged_classes;
    }
    const int files = expect_same_files(whole.path, paged.path, ".mtb", spec + ": ");
    EXPECT_GE(files, seeds + 1) << spec;
    EXPECT_EQ(paged_classes, files - 1) << spec;  // every class but the last was read through the cache
  }
}

// The page cache: every page read back as loaded while pages are dropped and their
// buffers reused, a page a reader holds never reused under it, the bytes bounded.
TEST(Generate, PageCacheReusesOnlyPagesNobodyHolds) {
  PageCache cache(3 * 100);  // three pages of 100 bytes
  int loads = 0;
  auto page = [&](std::uint64_t p) {
    return cache.get(7, p, [&](std::vector<std::uint8_t>& out) -> Result<void> {
      ++loads;
      out.assign(100, static_cast<std::uint8_t>(p));
      return {};
    });
  };
  auto held = page(0);
  ASSERT_TRUE(held);
  for (std::uint64_t round = 0; round < 3; ++round)
    for (std::uint64_t p = 1; p < 10; ++p) {
      auto got = page(p);
      ASSERT_TRUE(got);
      EXPECT_EQ(**got, std::vector<std::uint8_t>(100, static_cast<std::uint8_t>(p)));
    }
  EXPECT_EQ(**held, std::vector<std::uint8_t>(100, 0));  // dropped long ago, still whole for its holder
  EXPECT_LE(cache.stats().peak_bytes, 300u);
  EXPECT_EQ(loads, 1 + 27);
  auto again = page(9);  // still cached
  ASSERT_TRUE(again);
  EXPECT_EQ(loads, 28);
  auto bad = cache.get(8, 0, [](std::vector<std::uint8_t>&) -> Result<void> { return fail_with(Error::Io, "disk gone"); });
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "disk gone");
}

// LowerStore::measure: each fit takes what the process holds beyond the whole classes
// and the page cache, less the allowance held back for it, off the budget (down to
// half of it at most). Budget 100 MiB, allowance 10 MiB, a fake resident size.
TEST(Generate, MeasuredMemoryShrinksTheBudget) {
  TempDir spill;
  const VariantPtr v = variant("oware");
  constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
  LowerStore store(*v, 100 * kMiB, spill.path);
  std::uint64_t rss = 0;
  store.measure([&] { return rss; }, 10 * kMiB);
  SolvedClasses solved;
  for (const auto& [resident, budget] : {std::pair{5 * kMiB, 100 * kMiB}, std::pair{30 * kMiB, 80 * kMiB},
                                         std::pair{200 * kMiB, 50 * kMiB}, std::pair{10 * kMiB, 100 * kMiB}}) {
    rss = resident;
    ASSERT_TRUE(store.fit(solved, kMiB));
    EXPECT_EQ(store.budget(), budget) << "resident " << resident / kMiB << " MiB";
  }
  // Whole classes count: their bytes are not taken off again.
  for (const ClassKey& k : v->solving_order(6)) {
    auto cls = solve_class(*v, k, solved, SolveOptions{});
    ASSERT_TRUE(cls) << cls.error().message;
    store.add(solved, *cls);
  }
  ASSERT_GT(store.whole_bytes(), 0u);
  rss = 30 * kMiB + store.whole_bytes();
  ASSERT_TRUE(store.fit(solved, kMiB));
  EXPECT_EQ(store.budget(), 80 * kMiB);
}

// Under a budget the lower classes leave memory after a class's first sweep (for the
// kept ranks of its later sweeps) and come back from their spill files for the next
// class: the same files as with no bound.
TEST(Generate, LowerClassesFreedAfterTheFirstSweepGiveIdenticalFiles) {
  for (const auto& [spec, seeds] : {std::pair<std::string, int>{"kotu-baendum", 7}, {"cenne:4:4", 8}}) {
    TempDir whole, freed;
    for (const auto& [dir, budget] : {std::pair<fs::path, std::uint64_t>{whole.path, 0}, {freed.path, 8u << 20}}) {
      GenerateOptions opt;
      opt.max_seeds = seeds;
      opt.out = dir;
      opt.threads = 2;
      opt.memory_bytes = budget;
      opt.release_from = 0;  // every class (the default: large ones only)
      auto r = generate(*variant(spec), opt);
      ASSERT_TRUE(r) << spec << ": " << r.error().message;
      if (budget) EXPECT_GT(r->released_classes, 0) << spec;
      else EXPECT_EQ(r->released_classes, 0) << spec;
    }
    const int files = expect_same_files(whole.path, freed.path, ".mtb", spec + ": ");
    EXPECT_GT(files, seeds) << spec;
  }
}

// The same for a reachable set (generate --from: subset indexes, 2-byte win/loss values).
TEST(Generate, TinyMemoryBudgetReachableSet) {
  const auto root = parse_position("imbelece 1,0,0,0,0,0,0,1/1,0,0,0,0,0,1,1 S first");
  ASSERT_TRUE(root) << root.error().message;
  TempDir whole, paged;
  for (const auto& [dir, budget] : {std::pair<fs::path, std::uint64_t>{whole.path, 0}, {paged.path, 1}}) {
    GenerateOptions opt;
    opt.max_seeds = 5;
    opt.out = dir;
    opt.threads = 2;
    opt.memory_bytes = budget;
    auto r = generate_reachable(*root->variant, root->position, opt);
    ASSERT_TRUE(r) << r.error().message;
    if (budget) {
      EXPECT_GT(r->paged_classes, 0);
    }
  }
  const int files = expect_same_files(whole.path, paged.path, ".mtb");
  EXPECT_GT(files, 2);
}
