// The table writer's speed alone: reads the values of one class file, then writes them
// again (the shape's counts, the code, every block) REPEAT times, one thread, and
// prints nanoseconds a position and whether the bytes are the file's.
//   build/bench/bench_writer TABLE.mtb OUT.mtb [REPEAT]
// Example: build/tools/mancala-tb generate kalah:6:empty --max-seeds 20 --out k20, then
//   build/bench/bench_writer k20/kalah_6_empty.20.0000000000000000.mtb /tmp/w.mtb 3
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "mancala/format.h"
#include "mancala/table_writer.h"
#include "mancala/variant.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s TABLE.mtb OUT.mtb [REPEAT]\n", argv[0]);
    return 2;
  }
  const int repeat = argc > 3 ? std::atoi(argv[3]) : 3;
  auto t = mancala::TableFile::open(argv[1]);
  if (!t) {
    std::fprintf(stderr, "%s\n", t.error().message.c_str());
    return 1;
  }
  const mancala::TableHeader& h = (*t)->header();
  auto v = mancala::make_variant(h.variant);
  auto values = (*t)->read_all();
  if (!v || !values) {
    std::fprintf(stderr, "%s: cannot read its variant or values\n", argv[1]);
    return 1;
  }
  const mancala::ClassKey key{h.state, static_cast<int>(h.seeds)};
  for (int i = 0; i < repeat; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    auto w = mancala::write_table(argv[2], **v, key, *values, static_cast<int>(h.value_width), 19, nullptr, 1, h.content);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!w) {
      std::fprintf(stderr, "%s\n", w.error().message.c_str());
      return 1;
    }
    std::ifstream a(argv[1], std::ios::binary), b(argv[2], std::ios::binary);
    const bool same = std::string(std::istreambuf_iterator<char>(a), {}) == std::string(std::istreambuf_iterator<char>(b), {});
    std::printf("%.3f s, %.2f ns a position, %s\n", s, 1e9 * s / static_cast<double>(h.positions),
                same ? "the same bytes" : "OTHER BYTES");
  }
  return 0;
}
