// libFuzzer target: the position list of a reachable-set table (decode_position_list).
//
// Input: 5 bytes of parameters (full class size = 1 + the first 4 bytes little-endian
// times 1 + the 5th, so up to ~2^40; count = the 5th byte's low bits times a factor),
// then the raw varint bytes. Invariants when the list decodes: exactly `count` ranks,
// strictly increasing, all below the class size, and re-encoding gives back the very
// same bytes (the decoder accepts canonical LEB128 only).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "mancala/table_writer.h"
#include "mancala/format.h"

namespace {
void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_position_list: invariant broken: %s\n", what);
    std::abort();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 5) return 0;
  std::uint64_t a = 0;
  for (int i = 3; i >= 0; --i) a = a << 8 | data[i];
  const std::uint64_t full = (a + 1) * (1 + static_cast<std::uint64_t>(data[4] >> 4));
  const unsigned char* raw = data + 5;
  const std::size_t n = size - 5;
  // The count: often the number of varint ends (a plausible header), else from data[4].
  std::uint64_t ends = 0;
  for (std::size_t i = 0; i < n; ++i) ends += (raw[i] & 0x80) == 0;
  const std::uint64_t count = (data[4] & 1) ? ends : (data[4] & 0x0E) >> 1;
  auto list = mancala::decode_position_list(raw, n, count, full);
  if (!list) return 0;
  check(list->size() == count, "count");
  for (std::size_t i = 0; i < list->size(); ++i) {
    check((*list)[i] < full, "rank inside the class");
    check(i == 0 || (*list)[i - 1] < (*list)[i], "strictly increasing");
  }
  const std::string again = mancala::encode_position_list(*list);
  check(again.size() == n && std::equal(again.begin(), again.end(), reinterpret_cast<const char*>(raw)), "canonical round trip");
  return 0;
}
