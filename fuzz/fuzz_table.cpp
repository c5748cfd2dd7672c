// libFuzzer target: the table reader (TableFile, Tablebase) on arbitrary file bytes.
//
// The custom mutator edits header fields to the values that broke the old reader
// (0, 1, 2^31, 2^32-1, 2^63, ...) and recomputes every checksum afterwards
// (tests/tablebase/table_bytes.h), so mutated files get past the CRCs into the
// parsing and checking code. Invariants checked on every input that opens:
//   - read_all() gives positions * value_width bytes, and value(i) agrees with it;
//   - the class index holds exactly `positions` positions;
//   - a reachable-set table's ranks are strictly increasing inside its class.
// Any crash, sanitizer report, or broken invariant (abort) is a finding.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "mancala/format.h"
#include "mancala/probe.h"
#include "tablebase/table_bytes.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

namespace fs = std::filesystem;
using namespace mancala;
namespace tb = mancala::table_bytes;

const fs::path& scratch() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("mtb_fuzz_table_" + std::to_string(getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_table: invariant broken: %s\n", what);
    std::abort();
  }
}

// The file name the header claims, when it is a possible one; else a fixed name.
std::string name_for(const std::vector<std::uint8_t>& b) {
  if (b.size() >= kFixedHeaderBytes) {
    const std::size_t vlen = tb::get(b, tb::kVariantBytes, 2);
    if (vlen >= 1 && vlen <= kMaxNameBytes && kFixedHeaderBytes + vlen <= b.size()) {
      const std::string spec(b.begin() + kFixedHeaderBytes, b.begin() + static_cast<long>(kFixedHeaderBytes + vlen));
      const ClassKey key{tb::get64(b, tb::kState), static_cast<int>(tb::get32(b, tb::kSeeds) & 0x7FFFFFFF)};
      if (spec.find_first_of("/\\") == std::string::npos) {
        const std::string name = table_file_name(spec, key);
        if (parse_table_file_name(name)) return name;
      }
    }
  }
  return "oware.4.0000000000000000.mtb";
}

void exercise(const fs::path& file) {
  auto t = TableFile::open(file);
  if (!t) return;
  const TableHeader& h = (*t)->header();
  auto name = parse_table_file_name(file.filename().string());
  if (!name) return;
  const Variant& v = *name->variant;
  auto checked = TableFile::open(file, v, name->key);
  if (!checked) return;
  auto idx = (*checked)->index(v);
  if (idx) {
    check((*idx)->size() == h.positions, "index size == positions");
    if (const auto& list = (*idx)->subset())
      for (std::size_t i = 0; i < list->size(); ++i)
        check((*list)[i] < (*idx)->full_size() && (i == 0 || (*list)[i - 1] < (*list)[i]), "ranks increasing in class");
  }
  auto all = (*checked)->read_all();
  if (!all) return;
  check(all->size() == h.positions * h.value_width, "read_all size");
  for (Index i = 0; i < h.positions && i < 64; i += 7) {
    auto x = (*checked)->value(i);
    check(x.has_value(), "value after read_all");
    const std::size_t at = static_cast<std::size_t>(i) * h.value_width;
    const Value want = h.value_width == 1 ? static_cast<Value>(static_cast<std::int8_t>((*all)[at]))
                                          : static_cast<Value>(static_cast<std::uint16_t>((*all)[at] | ((*all)[at + 1] << 8)));
    check(*x == want, "value(i) == read_all()[i]");
  }
  // Through the folder interface too (probe of the first positions).
  auto folder = Tablebase::open(file.parent_path());
  if (folder && idx && (*idx)->size() > 0) {
    const Position p = (*idx)->unrank(0);
    (void)(*folder)->value(v, p);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::uint8_t> bytes(data, data + size);
  const fs::path file = scratch() / name_for(bytes);
  {
    std::FILE* f = std::fopen(file.c_str(), "wb");
    if (!f) return 0;
    if (size) std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  exercise(file);
  fs::remove(file);
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> b(data, data + size);
  if (rng() % 3 == 0 && b.size() >= kFixedHeaderBytes + 4) {
    // One header field set to an interesting value.
    static const std::size_t fields[] = {tb::kHeaderBytes, tb::kKind, tb::kPits, tb::kState, tb::kSeeds,
                                         tb::kIndexVersion, tb::kFilterFrom, tb::kFilterTo, tb::kPositions,
                                         tb::kValueWidth, tb::kUnitPositions, tb::kUnitsPerBlock, tb::kBlocks, tb::kCodeBytes, tb::kContent, tb::kListSize,
                                         tb::kListBytes, tb::kVariantBytes, tb::kGeneratorBytes};
    static const std::uint64_t values[] = {0, 1, 2, 3, 7, 48, 49, 3000, 65535, 65536, 1u << 24, (1u << 24) + 1,
                                           0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 1ull << 32, 1ull << 63, ~0ull};
    const std::size_t at = fields[rng() % std::size(fields)];
    std::uint64_t value = values[rng() % std::size(values)];
    const int width = at == tb::kVariantBytes || at == tb::kGeneratorBytes ? 2
                      : at == tb::kState || at == tb::kPositions || at == tb::kListSize || at == tb::kListBytes ? 8 : 4;
    if (rng() % 4 == 0) value = tb::get(b, at, width) + (rng() % 2 ? 1 : -1);  // off by one
    tb::put(b, at, width, value);
  } else if (rng() % 8 == 0 && b.size() >= kFixedHeaderBytes + 4) {
    // One block offset moved.
    tb::Layout l;
    if (tb::layout(b, l) && l.blocks > 0) {
      const std::size_t k = rng() % (l.blocks + 1);
      tb::put64(b, l.offsets + 8 * k, tb::get64(b, l.offsets + 8 * k) + (rng() % 9) - 4);
    }
  } else {
    b.resize(std::max(size, max_size));
    b.resize(LLVMFuzzerMutate(b.data(), size, max_size));
  }
  if (rng() % 16 != 0) tb::fix_checksums(b);  // mostly past the checksums, sometimes not
  if (b.size() > max_size) b.resize(max_size);
  std::memcpy(data, b.data(), b.size());
  return b.size();
}
