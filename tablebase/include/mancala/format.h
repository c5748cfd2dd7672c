// Tablebase file format: one file per class, values in small units coded by a
// per-file canonical Huffman code, read in place from a memory-mapped file.
//
// A table file is input from outside (shared folders, downloads, other clusters):
// the reader checks every count and offset against the file size, and the header
// against the variant and the class the file name gives, before it indexes anything
// (see TableFile::open). No general-purpose deserializer reads it. Writing (and the
// folder lock) belongs to generation: table_writer.h, not installed.
//
// Layout (format version 7; every integer little-endian, no padding):
//
//   offset    size    field
//   0         8       magic "MANCALTB"
//   8         4       format version (kFormatVersion)
//   12        4       H: header bytes, = 104 + V + G + C (the header CRC is at H)
//   16        4       value kind (GameKind: 0 score, 1 win/loss)
//   20        4       pits on the circuit
//   24        8       class state (ClassKey::state)
//   32        4       class seeds (ClassKey::seeds)
//   36        4       index version (kIndexVersion: ClassIndex ranking of index.h)
//   40        4       index filter zero_from (int32)
//   44        4       index filter zero_to (int32)
//   48        8       positions in the table
//   56        4       value width W: 1 (int8 margin) or 2 (int16 win/loss, or u16 distance)
//   60        4       unit positions U: a power of two, 1 <= U <= kMaxUnitPositions (64)
//   64        4       units a block K: a power of two, U K <= kMaxBlockPositions (B = U K)
//   68        4       CRC-32 of the position list (0 without one)
//   72        8       position-list length (reachable-set tables: = positions; else 0)
//   80        8       S: position-list bytes (compressed)
//   88        2       V: variant name bytes, 1 <= V <= kMaxNameBytes
//   90        2       G: generator bytes, G <= kMaxNameBytes
//   92        4       content (TableContent: 0 values, .mtb; 1 distances, .mtz)
//   96        4       N: blocks, = ceil(positions / B)
//   100       4       C: code bytes
//   104       V       variant name, e.g. "kalah:6:empty" (printable ASCII)
//   104+V     G       generator, e.g. "mancala-tb 0.1.0" (printable ASCII)
//   104+V+G   C       the code (below)
//   H         4       CRC-32 of bytes [0, H)
//   H+4       8(N+1)  block offsets o_0 = 0 <= o_1 <= ... <= o_N, from D
//   H+12+8N   4N      CRC-32 of each block's bytes
//   D = H + 12 N + 12
//   D+o_b             block b: bytes [D+o_b, D+o_{b+1}) (below)
//   D+o_N     S       reachable-set tables only: the position list (below)
//   D+o_N+S   8       zeros (a decoder's 8-byte loads never leave the file)
//   end of file = D + o_N + S + 8   (a shorter or longer file is corrupt)
//
// The code. The values of a unit are cut into tuples of k consecutive positions (k
// in 1, 2, 4, 8, k <= U; the last tuple of the table padded with its last value); a
// symbol is a tuple repeated r = 2^j times (r k <= U; the writer takes the longest
// run of equal tuples it can, j = 0 when it codes without runs), and the symbols are
// coded by a canonical Huffman code:
//   1 byte k; 1 byte L, the longest code (0 only when there is one symbol; at most
//   kMaxCodeBits = 16; the reader looks codes up to kFastCodeBits = 12 bits in one
//   table, longer ones in two steps);
//   2 bytes M, the symbols (1 <= M <= kMaxSymbols);
//   1 byte S: 1 when every unit begins with its shift (margins only, W = 1), else 0;
//   M bytes: the code length of each symbol (1..L; 0 for a lone symbol);
//   M bytes: j of each symbol;
//   M k W bytes: each symbol's tuple, in table order;
//   with S = 1, the shift code (below): 1 byte Ls, its longest code (0 only when it has
//   one symbol; at most kMaxShiftBits); 2 bytes Ms, its symbols (1 <= Ms <= 256); Ms
//   bytes: the code length of each (1..Ls; 0 for a lone symbol); Ms bytes: each
//   symbol's difference d (u8, strictly increasing).
// The code lengths satisfy Kraft's equality (sum 2^-len = 1: every bit string
// starts with a code). Codes are assigned canonically: symbols in order of (length,
// symbol number), each code the previous plus one, shifted left at each longer
// length. C = 5 + 2 M + M k W, plus 3 + 2 Ms with S = 1. Without shifts every value of the code is checked
// against the class when the file is opened (a margin beyond the seeds in play, a
// win/loss depth below 0, is Corrupt); with shifts each decoded margin is (the sum is
// known only then). So a value the reader returns is always in range.
//
// Shifts. A class's margins drift along the ranking (the seeds on each side change
// slowly with the rank), so a unit's margins cluster around a level of their own. With
// S = 1, unit u has a shift s_u (int8: the writer takes the lower median of the unit's
// margins), and its symbols code the margins less s_u (as int8): margin = symbol value
// + s_u. The shifts of a block's units cluster around their block's base b (int8: the
// writer takes the lower median of the block's shifts; Oware's 20-seed class: 98 %
// within +-7 of it), so a unit begins with the code of d_u = s_u - b (mod 256) in the
// file's shift code, a canonical Huffman code over the differences as the value code
// is over the symbols: 3.3 bits a unit there, against a byte a unit in format 6. Shifts
// buy more than they cost: Oware's 16-seed class, 3.95 bits a position in format 4, is
// 3.68 with shift bytes and codes of up to 16 bits. The writer counts its best shape
// with shifts too and keeps the smaller.
//
// A block: units u = 0..n-1 of U positions each (n = ceil(positions in the block / U),
// the last unit of the table shorter): n-1 u8 lengths l_0, ..., l_{n-2} of units
// 0..n-2, with S = 1 the block's base b (int8), then the units' bytes from n-1+S: unit
// u is bytes [a_u, a_u + l_u) of that part, a_u = l_0 + ... + l_{u-1} (a_0 = 0; the
// last unit runs to the block's end). A unit is (S = 1) the shift code of d_u, then
// the codes of its symbols (covering its ceil(positions / k) tuples), most significant
// bit first, padded with zero bits to a byte (a code of one symbol has no bits: a unit
// may be empty). A unit holds at most a shift code of kMaxShiftBits and U codes of at
// most 16 bits: 130 bytes at U = 64, so its length fits a byte. (Format 5 gave each unit a u16 start: a
// byte a unit more, 0.125 bits a position; the reader adds the lengths before a unit, 8
// of them an add, see unit_start.)
// Position i is offset (i mod U) of unit (i mod B) / U of block i / B. A probe
// verifies a block's CRC the first time it touches it (one bit a block remembers it),
// then decodes in place: it skips the symbols before its position by table lookups
// (all the whole codes of the next max(L, 11) bits a lookup, in one of 8 KiB at L = 12) and reads its value in the
// symbol that covers it: value (x mod k) of the tuple, x its offset in the symbol.
//
// Position i of the table is the one with ClassIndex rank i. A reachable-set table
// (`generate --from`) holds the positions of its class reachable from a root: its
// position list is their full ranks r_0 < r_1 < ... < r_{n-1} < full class size,
// written as the LEB128 varints (7 bits a byte, low first, high bit = more; at
// most 10 bytes, no superfluous zero byte) of r_0, r_1 - r_0, ..., r_{n-1} - r_{n-2},
// zstd-compressed. Every difference after the first is at least 1.
//
// Worked example: oware, 2 seeds in play: 78 positions, margins 0, +2 and -2. With U = 64,
// K = 64 (B = 4096): one block of two units (64 and 14 positions). The writer picks k = 1
// without runs (j = 0): three symbols in table order (ascending raw bytes) 0, +2, -2 (0x00,
// 0x02, 0xFE), code lengths 2, 2, 1 (Kraft: 1/4 + 1/4 + 1/2 = 1), so by (length, symbol)
// the codes are -2 -> "0", 0 -> "10", +2 -> "11" (S = 0: a base and two shift codes would
// cost more than they save). The block: the length of unit 0 (u8 11),
// unit 0's 64 codes in 11 bytes, unit 1's 14 in 4. C = 5 + 2 * 3 + 3 = 14, V = 5, G = 16,
// H = 104 + 5 + 16 + 14 = 139, D = 139 + 12 + 12 = 163, and the file (oware.2.000...0.mtb)
// is 163 + 16 + 8 = 187 bytes. The value of position 3 is the symbol of the 4th code of
// unit 0 (bytes 00 00: sixteen codes "0", -2): one lookup of 11 bits covers the first codes
// whole; position 70 is the 7th code of unit 1, read from byte 11 of the units.
//
// Worked example of shifts: a block of three units whose shifts are +4, +6 and +5 has
// base +5 (the lower median), so differences -1, +1 and 0 (bytes FF, 01, 00). With a
// shift code of the differences 00, 01, FF (ascending) of lengths 1, 2, 2 (Ms = 3,
// Ls = 2: C grows by 3 + 6 bytes), the codes by (length, symbol) are 00 -> "0", 01 ->
// "10", FF -> "11": the block is its two unit lengths, the byte 05, then unit 0 starting
// with the bits "11" (shift 5 - 1 = +4), unit 1 with "10" (+6), unit 2 with "0" (+5),
// each unit's value codes right after those bits. The reader looks the next Ls bits up
// in a table of 2^Ls entries (d and the code's length) and adds d to the base.
//
// Files of format versions 1 to 5 are refused with "made by an older format
// version N; regenerate" (4 had no S byte and no shifts, 5 u16 unit starts, 6 a shift
// byte a unit).
#pragma once

#include <atomic>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "mancala/distance_tables.h"
#include "mancala/error.h"
#include "mancala/index.h"
#include "mancala/variant.h"

namespace mancala {

constexpr char kMagic[8] = {'M', 'A', 'N', 'C', 'A', 'L', 'T', 'B'};
// 2: reachable-set position lists; 3: binary header; 4: Huffman-coded units read in
// place; 5: unit shifts; 6: u8 unit lengths; 7: shifts coded from a block base
constexpr std::uint32_t kFormatVersion = 7;
constexpr std::uint32_t kIndexVersion = 1;
// 64: a probe skips 32 positions of codes on average (about 3.5 ns each); 256 made it
// 2.7x slower for 6 % less bytes (results/probe.md).
constexpr std::uint32_t kDefaultUnitPositions = 64;
constexpr std::uint32_t kDefaultUnitsPerBlock = 64;
constexpr std::uint32_t kMaxUnitPositions = 64;  // a unit's length fits a byte
constexpr std::uint32_t kMaxBlockPositions = 1u << 15;
constexpr std::uint32_t kMaxSymbols = 65535;
constexpr std::uint32_t kMaxCodeBits = 16;
// The longest shift code: the reader's shift table has 2^Ls u16 entries, 2 KiB at most.
constexpr std::uint32_t kMaxShiftBits = 10;
// The longest code the reader looks up in one step: its decode tables have 2^T entries
// of 10 bytes, T = max(min(L, 12), 11), 40 KiB at T = 12; a longer code takes a second
// lookup in a sub-table of 2^(L - T) entries.
constexpr std::uint32_t kFastCodeBits = 12;
constexpr std::uint32_t kMaxNameBytes = 64;
constexpr std::uint32_t kFixedHeaderBytes = 104;

// What a table file holds: the values (.mtb) or the distances (.mtz, u16) of its class.
enum class TableContent : std::uint32_t { Values = 0, Distances = 1 };

struct TableHeader {
  std::string variant;           // canonical variant name, e.g. "kalah:6:empty"
  std::uint32_t kind = 0;        // GameKind
  std::uint32_t pits = 0;
  std::uint64_t state = 0;       // ClassKey::state
  std::uint32_t seeds = 0;       // ClassKey::seeds
  std::uint32_t index_version = kIndexVersion;
  std::int32_t filter_from = 0, filter_to = 0;
  std::uint64_t positions = 0;
  std::uint32_t value_width = 1;
  std::uint32_t unit_positions = kDefaultUnitPositions;  // U
  std::uint32_t block_positions = kDefaultUnitPositions * kDefaultUnitsPerBlock;  // B = U K
  std::uint64_t block_count = 0;  // N
  TableContent content = TableContent::Values;
  std::string generator;         // program and version that wrote the file
  std::uint64_t subset_size = 0; // reachable-set tables: positions held (= positions)
  std::uint64_t subset_bytes = 0;
  std::uint32_t subset_crc = 0;
  // The code: k values a symbol, the symbols' code lengths and values (W bytes each).
  std::uint32_t tuple = 1;
  bool unit_shifts = false;  // S: each unit's values are coded less its shift (margins only)
  std::vector<std::uint8_t> code_lengths;
  std::vector<std::uint8_t> symbol_runs;     // j: the symbol is its tuple repeated 2^j times
  std::vector<std::uint16_t> symbol_values;  // M k entries, raw (W = 1: the byte)
  // S = 1: the shift code, its symbols' code lengths and differences d (ascending).
  std::vector<std::uint8_t> shift_lengths, shift_deltas;

  // Only meaningful once the header has been checked against a variant (seeds fits).
  ClassKey key() const { return ClassKey{state, static_cast<int>(seeds)}; }
  std::size_t blocks() const { return static_cast<std::size_t>(block_count); }
};

// The library's one error type (mancala/error.h); the table code uses Io, Corrupt,
// Mismatch, NotFound, BadPosition and Internal.
using TableError = Error;

// "oware.12.0000000000000000.mtb" (values) or ".mtz" (distances)
std::string table_file_name(const std::string& variant, const ClassKey& key,
                            TableContent content = TableContent::Values);

// The inverse of table_file_name for a file name (no folder): the variant spec (':'
// restored), the class and the content, or InvalidArgument saying why the name is
// impossible: not of the form VARIANT.SEEDS.STATE.mtb or .mtz (decimal seeds, 16
// lower-case hex digits), an unknown or non-canonical variant, or a class that
// variant cannot have (check_class_key).
struct TableName {
  VariantPtr variant;
  ClassKey key;
  TableContent content = TableContent::Values;
};
Result<TableName> parse_table_file_name(const std::string& name);

// Empty when `key` can be a class of `v`: 0 <= seeds <= total seeds, a state whose
// marks, flags and jeppe round-trip (skeleton_of / pack_state) and that is the
// canonical (smaller) orientation; else what is wrong. Cheap: builds no index.
std::string check_class_key(const Variant& v, const ClassKey& key);

std::uint32_t crc32(const void* data, std::size_t n);
// The canonical codes of a prefix code's lengths (the value code and the shift code of
// the layout above): symbols in order of (length, symbol number), each code the
// previous plus one, shifted left at each longer length (a lone symbol of length 0:
// code 0). Lengths {2, 2, 1}: codes 10, 11, 0.
std::vector<std::uint32_t> canonical_codes(const std::vector<std::uint8_t>& lengths);
// Little-endian fields: appended to a string, read from bytes (the layouts here and
// search.h's table file).
void put16(std::string& s, std::uint16_t v);
void put32(std::string& s, std::uint32_t v);
void put64(std::string& s, std::uint64_t v);
inline std::uint16_t get16(const unsigned char* p) { return static_cast<std::uint16_t>(p[0] | p[1] << 8); }
inline std::uint32_t get32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 | static_cast<std::uint32_t>(p[2]) << 16 |
         static_cast<std::uint32_t>(p[3]) << 24;
}
inline std::uint64_t get64(const unsigned char* p) {
  return static_cast<std::uint64_t>(get32(p)) | static_cast<std::uint64_t>(get32(p + 4)) << 32;
}

// The position list of a reachable-set table (layout above), decoded with every
// check (varint length and minimality, strictly increasing ranks below `full_size`,
// exactly `count` of them, nothing left over); a bad list is Corrupt.
Result<std::vector<Index>> decode_position_list(const unsigned char* data, std::size_t n, std::uint64_t count,
                                               Index full_size);

// The identity of a file on disk: a file replaced under its name (a new generate)
// has another.
struct FileIdentity {
  std::uint64_t dev = 0, ino = 0, size = 0;
  std::int64_t mtime_ns = 0;
  friend bool operator==(const FileIdentity&, const FileIdentity&) = default;
};
// The identity of the regular file at `path`, without opening it; NotFound, or Io
// (also for anything but a regular file).
Result<FileIdentity> file_identity(const std::filesystem::path& path);

// A table file open for reading: mapped into memory, its header checked, values
// decoded in place. Thread-safe: every const member may be called from many threads
// at once; value() takes no lock and allocates nothing.
class TableFile {
 public:
  TableFile() = default;
  TableFile(const TableFile&) = delete;
  TableFile& operator=(const TableFile&) = delete;
  ~TableFile();

  // Opens (never blocking: a FIFO or a device is refused before anything is read),
  // maps the file and checks the header: magic, version, every field's range, the
  // header checksum, the code and the file size. The blocks are checked by their
  // checksums when first read, the position list when the index is built.
  static std::expected<std::shared_ptr<TableFile>, TableError> open(const std::filesystem::path& path);
  // open() plus check_against(v, key) and the index built: the way to open the file
  // that should hold class `key` of `v` (the key its name gives) with `content`.
  static std::expected<std::shared_ptr<TableFile>, TableError> open(const std::filesystem::path& path,
                                                                     const Variant& v, const ClassKey& key,
                                                                     TableContent content = TableContent::Values);

  const TableHeader& header() const { return header_; }
  const std::filesystem::path& path() const { return path_; }
  const FileIdentity& identity() const { return identity_; }
  // Bytes of memory the open table holds besides its mapping (decode table, block
  // bits, index and position list).
  std::size_t heap_bytes() const;

  // The value of position i: W = 1 the signed margin, W = 2 the int16 (a distance:
  // its u16 bits, see entry()).
  std::expected<Value, TableError> value(Index i) const {
    if (Value v; loaded_value(i, v)) return v;  // load(): one read
    auto e = entry(i);
    if (!e) return std::unexpected(e.error());
    return value_of_entry(*e);
  }
  // The value of position i from the loaded values (load()), as value() gives it: true
  // with `out` set; false when the table is not loaded or i is out of range. Nothing
  // to destroy on the way out (an engine's hottest call: the std::expected of value()
  // cost a call of its destructor).
  [[gnu::always_inline]] bool loaded_value(Index i, Value& out) const {
    const unsigned char* r = loaded_.load(std::memory_order_acquire);
    if (!r || i >= header_.positions) return false;
    out = value_of_entry(loaded_entry(r, i));
    return true;
  }
  // A raw entry (W bytes, little-endian) as value() gives it: W = 1 the signed margin,
  // W = 2 the int16.
  Value value_of_entry(std::uint16_t e) const { return value_of_entry(header_.value_width, e); }
  static Value value_of_entry(unsigned width, std::uint16_t e) {
    return width == 1 ? static_cast<Value>(static_cast<std::int8_t>(e)) : static_cast<Value>(e);
  }
  // The raw entry of position i (< positions) in the loaded values r (W bytes each).
  std::uint16_t loaded_entry(const unsigned char* r, Index i) const { return loaded_entry(r, header_.value_width, i); }
  static std::uint16_t loaded_entry(const unsigned char* r, unsigned width, Index i) {
    return width == 1 ? std::uint16_t{r[i]} : static_cast<std::uint16_t>(r[2 * i] | r[2 * i + 1] << 8);
  }
  // The loaded values (load(); null before), W bytes a position.
  const unsigned char* loaded_values() const { return loaded_.load(std::memory_order_acquire); }
  // Three stages for a caller that holds several positions (Tablebase::values, probe):
  // prefetch(i) reads what entry(i) needs first (its block's offsets); prefetch_unit(i)
  // the unit lengths before it and the lines where its codes most likely lie (the block's
  // codes shared evenly by its units: the guess's line and the next hold a random
  // position's codes for 85 % of Oware's probes, with the line before 99 %); prefetch_codes(i)
  // the bytes its start (their sum) gives. Run over many positions, one stage at a time, before
  // their entry() calls, the cache misses of a stage all overlap; without the third,
  // the misses of wrong guesses came one after another inside entry(). They are loads
  // whose values are dropped, not prefetch instructions: on the machine of
  // results/probe.md a software prefetch that misses the TLB does nothing (a batch with
  // prefetches ran at the speed of single probes; with loads, twice it). Every load
  // stays inside the block's bytes, whatever a block not yet checked holds.
  // Loaded (load()): prefetch(i) reads the value itself and the other two do nothing.
  // (True: the table is loaded, and the later stages have nothing to do.)
  bool prefetch(Index i) const {
    const unsigned char* r = loaded_.load(std::memory_order_relaxed);
    if (i >= header_.positions) return r != nullptr;
    if (r)
      __builtin_prefetch(r + header_.value_width * i);  // retires at once: the work after it goes on
    else
      touch(block_starts_.empty() ? map_ + offsets_at_ + 8 * (i >> block_shift_)
                                  : reinterpret_cast<const unsigned char*>(block_starts_.data() + (i >> block_shift_)));
    return r != nullptr;
  }
  void prefetch_unit(Index i) const {
    if (i >= header_.positions || decode_.empty() || loaded_.load(std::memory_order_relaxed)) return;
    const UnitPlace p = place(i);
    if (p.u > 0 && p.u <= p.bytes) {
      touch(p.block);
      touch(p.block + (p.u - 1));
    }
    const std::uint64_t at = p.codes_at + guess(p);
    if (at < p.bytes) touch(p.block + at);
    if (at + 64 < p.bytes) touch(p.block + at + 64);
    if (at >= 64 && at - 64 < p.bytes) touch(p.block + at - 64);  // the line before: see entry()
  }
  void prefetch_codes(Index i) const {
    if (i >= header_.positions || decode_.empty() || loaded_.load(std::memory_order_relaxed)) return;
    const UnitPlace p = place(i);
    if (p.u > 0 && p.u <= p.bytes) {
      const std::uint64_t at = p.codes_at + unit_start(p.block, p.u);
      if (at < p.bytes) touch(p.block + at);
    }
  }
  // A load whose value is kept from the optimizer and then dropped.
  static void touch(const unsigned char* p) {
    const unsigned char x = *static_cast<const volatile unsigned char*>(p);
    asm volatile("" : : "r"(x));
  }
  // The raw entry of position i (W bytes, little-endian).
  std::expected<std::uint16_t, TableError> entry(Index i) const;
  // The values of block b (positions [b B, min((b+1) B, positions)), W bytes each),
  // its checksum checked.
  std::expected<std::vector<std::uint8_t>, TableError> read_block(std::size_t b) const;
  // Every value (W bytes each), checking every block checksum.
  std::expected<std::vector<std::uint8_t>, TableError> read_all() const;
  // Loads the table: every value decoded once, every block's checksum checked, into
  // memory of its own (W bytes a position, anonymous pages, 2 MiB pages asked for);
  // value(), entry() and the prefetch stages then read a value there, one memory read,
  // instead of decoding it in place from the mapped file (Tablebase::load). Once: a
  // later call returns at once. Thread-safe: calls meanwhile read in place until the
  // values are published. Returns the bytes the loaded values take; on an error
  // (Corrupt: a damaged block; OutOfMemory) nothing stays loaded.
  std::expected<std::size_t, TableError> load() const;
  // The bytes load() takes: W bytes a position and a block's slack, in whole 4 KiB
  // pages, or 2 MiB pages from 2 MiB on.
  std::size_t bytes_to_load() const {
    const std::size_t n = static_cast<std::size_t>(header_.positions) * header_.value_width + kBlockSlack;
    const std::size_t page = n >= (std::size_t{2} << 20) ? std::size_t{2} << 20 : 4096;
    return (n + page - 1) / page * page;
  }
  // A load() failed (the table stays read in place; load() returns its error again).
  bool load_failed() const { return load_failed_.load(std::memory_order_acquire); }
  // The bytes load() took (0: not loaded).
  std::size_t loaded_bytes() const { return loaded_bytes_.load(std::memory_order_acquire); }
  // Checks that the header matches a variant (name, pits, kind, index version, value
  // width, filter) and the class `key` (state, seeds, and a position count that
  // class can hold). The key is checked with check_class_key before any index is built.
  std::expected<void, TableError> check_against(const Variant& v, const ClassKey& key) const;
  // The same with the class the header names.
  std::expected<void, TableError> check_against(const Variant& v) const;
  // The class index of the table's positions (with its checked position list),
  // built once. Checks the header against `v` first.
  std::expected<std::shared_ptr<const ClassIndex>, TableError> index(const Variant& v) const;
  // The index once open(path, v, key) built it (else null): no lock, no check.
  const ClassIndex* ready_index() const { return ready_index_; }

 private:
  // Where position i's unit lies: its block's bytes [block, block + bytes) (from the
  // offsets: inside the file), the block's units, the unit u, and where the codes start
  // (after the n - 1 lengths and, S = 1, the base; at most `bytes` in a block not yet
  // checked).
  struct UnitPlace {
    const unsigned char* block;
    std::uint64_t bytes, codes_at;
    std::uint32_t units, u;
  };
  // Where block b's bytes start and end in the data (offsets checked by open): from
  // block_starts_, else from the file.
  struct BlockBytes {
    std::uint64_t begin, end;
  };
  BlockBytes block_bytes(std::size_t b) const {
    if (!block_starts_.empty()) [[likely]]
      return {block_starts_[b], block_starts_[b + 1]};
    const unsigned char* offs = map_ + offsets_at_ + 8 * b;
    return {get64(offs), get64(offs + 8)};
  }
  UnitPlace place(Index i) const {
    const std::size_t b = static_cast<std::size_t>(i >> block_shift_);
    const auto [o0, o1] = block_bytes(b);
    const std::uint64_t first = static_cast<std::uint64_t>(b) << block_shift_;
    const std::uint64_t count = std::min<std::uint64_t>(header_.block_positions, header_.positions - first);
    const auto units = static_cast<std::uint32_t>((count + header_.unit_positions - 1) >> unit_shift_);
    const auto u = static_cast<std::uint32_t>((i - first) >> unit_shift_);
    return {map_ + data_start_ + o0, o1 - o0, std::min<std::uint64_t>(units - 1 + (header_.unit_shifts ? 1 : 0), o1 - o0),
            units, u};
  }
  // S = 1: the shift of the unit whose first 64 bits are `window` (a unit starts on a
  // byte of `codes`, a checked block's codes, p.block + p.codes_at): the block's base
  // (the byte before the codes) plus the difference its shift code gives, one lookup
  // of the window's top Ls bits; `used` is the code's length (the caller checks the
  // bits against the unit's end).
  int unit_shift(std::uint64_t window, const unsigned char* codes, std::uint32_t& used) const {
    const std::uint16_t e = shift_decode_[shift_bits_ ? static_cast<std::size_t>(window >> (64 - shift_bits_)) : 0];
    used = e >> 8;
    return static_cast<std::int8_t>(static_cast<std::uint8_t>(codes[-1] + e));  // base + d (mod 256)
  }
  // Corrupt: unit u of block b ends before its positions (or its shift code).
  TableError short_unit(std::size_t b, std::size_t u) const;
  // Where unit u starts in its block's codes: the sum of the lengths of units 0..u-1
  // (the block's first u bytes), eight bytes an add: each 64-bit word's bytes summed in
  // pairs, then the four pairs by a multiply. Reads whole words from `lengths`: the
  // caller keeps u within the block's bytes, and the file's 8 zero bytes keep the last
  // word inside it.
  static std::uint64_t unit_start(const unsigned char* lengths, std::uint32_t u) {
    constexpr std::uint64_t kLow = 0x00FF00FF00FF00FFull, kSum = 0x0001000100010001ull;
    std::uint64_t sum = 0;
    std::uint32_t w = 0;
    for (; w + 8 <= u; w += 8) {
      std::uint64_t x = get64(lengths + w);
      x = (x & kLow) + ((x >> 8) & kLow);
      sum += (x * kSum) >> 48;
    }
    if (w < u) {
      std::uint64_t x = get64(lengths + w) & ((std::uint64_t{1} << (8 * (u - w))) - 1);
      x = (x & kLow) + ((x >> 8) & kLow);
      sum += (x * kSum) >> 48;
    }
    return sum;
  }
  // Where unit u's codes most likely start, from the codes' start: the codes shared
  // evenly by a full block's units (a shift, not a division: a 64-bit division had
  // held 16 % of the reader's time).
  std::uint64_t guess(const UnitPlace& p) const {
    return ((p.bytes - p.codes_at) * p.u) >> (block_shift_ - unit_shift_);
  }
  // The entry of a decoded symbol value `raw` of block b's unit u: itself, or with
  // shifts the margin raw + shift (as int8s), Corrupt beyond the seeds in play.
  std::expected<std::uint16_t, TableError> shifted(std::uint16_t raw, int shift, std::size_t b, std::uint32_t u) const;
  // The decode entry of the code at the top of `window` (at least 57 bits of it are
  // the unit's): one load, two for a code longer than T bits.
  std::uint64_t lookup(std::uint64_t window) const {
    const std::uint64_t e = decode_[window >> (64 - table_bits_)];
    if (((e >> 16) & 31) != 0) [[likely]]
      return e;
    return decode_[long_at_ + ((e & 0xFFFF) << long_bits_) + ((window << table_bits_) >> (64 - long_bits_))];
  }
  // The same for entry(), from walk_: bits 0-15 the symbol, 16-20 the code's length,
  // 21-25 log2 of the positions it covers.
  std::uint32_t walk_lookup(std::uint64_t window) const {
    const std::uint32_t* first = walk_.data() + (std::size_t{1} << table_bits_) / 2;
    const std::uint32_t e = first[window >> (64 - table_bits_)];
    if (((e >> 16) & 31) != 0) [[likely]]
      return e;
    return first[(std::size_t{1} << table_bits_) + ((e & 0xFFFF) << long_bits_) + ((window << table_bits_) >> (64 - long_bits_))];
  }
  std::expected<void, TableError> check_block(std::size_t b) const;
  std::expected<void, TableError> read_block_into(std::size_t b, std::vector<std::uint8_t>& out) const;
  // Block b's `count` values (checksum checked) into dst, which has room for W count +
  // kBlockSlack bytes (the slack may be written over).
  static constexpr std::size_t kBlockSlack = 2 * kMaxUnitPositions + 8;
  std::expected<void, TableError> decode_block(std::size_t b, std::uint64_t count, std::uint8_t* dst) const;
  std::expected<void, TableError> decode_unit(std::size_t b, std::size_t u, std::uint16_t* out) const;
  // The `count` values of checked block b of a W = 1 table with a code, into dst (room
  // for count + 2 U + 8 bytes): its units in one walk, the codes of a window of kMultiBits
  // bits a lookup where they are short, else a symbol stored 8 bytes at a time; a unit's
  // shift added after its codes, its margins checked together.
  std::expected<void, TableError> read_bytes_block(std::size_t b, std::uint64_t count, std::uint8_t* dst) const;
  std::expected<std::shared_ptr<const std::vector<Index>>, TableError> position_list(Index full_size) const;
  std::expected<void, TableError> check_values(const Variant& v, const ClassKey& key, TableContent content) const;

  std::filesystem::path path_;
  TableHeader header_;
  FileIdentity identity_;
  const unsigned char* map_ = nullptr;
  std::size_t map_bytes_ = 0;
  std::uint64_t data_start_ = 0;  // D
  std::uint64_t offsets_at_ = 0;  // H + 4
  // The block offsets (checked by open) in 32 bits where the file's blocks end below
  // 4 GiB (else empty: place() reads the file's), half the bytes a random probe's first
  // read meets, so that more of them stay in the second-level cache between probes.
  std::vector<std::uint32_t> block_starts_;
  std::uint32_t unit_shift_ = 0, block_shift_ = 0, tuple_shift_ = 0, table_bits_ = 0;
  std::uint32_t long_bits_ = 0;  // L - T: the bits a long code's sub-table reads
  std::size_t long_at_ = 0;      // where the sub-tables start in decode_
  int margin_bound_ = 0;  // the largest margin of the class (its seeds, at most 127)
  // S = 1: the shift code's table, 2^Ls entries (Ls = shift_bits_): bits 0-7 the
  // difference of the code the window starts with, bits 8-11 its length.
  std::vector<std::uint16_t> shift_decode_;
  std::uint32_t shift_bits_ = 0;
  // Decode table, 2^T entries (T = table_bits_): bits 0-15 the symbol of the first code, 16-20
  // its length, 21-36 its positions, 37-41 / 42-57 the bits / positions of the whole codes in
  // the window (length 0: a longer code, bits 0-15 its sub-table's number); then the
  // sub-tables, 2^(L - T) entries each.
  std::vector<std::uint64_t> decode_;
  // What entry() walks, 24 KiB at T = 12 (a random probe's walk reads it at random:
  // the smaller, the more of it stays in the caches between probes): the skip table,
  // 2^T u16 (two a word: the bits, low 5, and positions, high 11, at most 2047, of the
  // whole codes of a window); then decode_'s entries in 32 bits (walk_lookup), its
  // 2^T entries and its sub-tables.
  std::vector<std::uint32_t> walk_;
  // W = 1 with a code (read_bytes_block, made by build_multi on its first call): each
  // symbol's tuple repeated to 8 bytes; for each window of kMultiBits bits, the values
  // of its whole codes up to 8 positions (8 bytes, multi_), and apart their bits (low
  // byte) and positions (multi_meta_: the walk's chain of dependent loads reads only
  // these 4 KiB, which stay in the L1 cache). 16 + 4 KiB at 11 bits.
  static constexpr std::uint32_t kMultiBits = 11;
  mutable std::once_flag multi_once_;
  mutable std::vector<std::uint64_t> pattern_, multi_;
  mutable std::vector<std::uint16_t> multi_meta_;
  void build_multi() const;
  // What they take once made (heap_bytes counts them ahead: the cache's bound holds).
  std::size_t multi_bytes() const {
    return header_.value_width == 1 && !decode_.empty()
               ? 8 * (header_.code_lengths.size() + (std::size_t{1} << kMultiBits)) + 2 * (std::size_t{1} << kMultiBits)
               : 0;
  }
  mutable std::unique_ptr<std::atomic<std::uint64_t>[]> checked_;  // a bit per block whose CRC held
  // load(): the values in memory of their own (null until loaded; published once whole).
  mutable std::atomic<const unsigned char*> loaded_{nullptr};
  mutable std::atomic<std::size_t> loaded_bytes_{0};
  mutable std::atomic<bool> load_failed_{false};
  mutable std::optional<TableError> load_error_;  // under load_mu_
  mutable std::mutex load_mu_;
  mutable std::mutex mu_;
  mutable std::shared_ptr<const ClassIndex> index_;
  const ClassIndex* ready_index_ = nullptr;
};

// The three read stages of TableFile::prefetch over a group of n positions, the k-th
// position `index(k)` of table `table(k)`, one stage over the whole group at a time,
// before their values are read (Tablebase::entries, the Python module's codes).
template <class TableOf, class IndexOf>
void prefetch_stages(std::size_t n, TableOf&& table, IndexOf&& index) {
  bool loaded = true;
  for (std::size_t k = 0; k < n; ++k) loaded &= table(k).prefetch(index(k));
  if (loaded) return;  // every table loaded: its value is the read just started
  for (std::size_t k = 0; k < n; ++k) table(k).prefetch_unit(index(k));
  for (std::size_t k = 0; k < n; ++k) table(k).prefetch_codes(index(k));
}

}  // namespace mancala
