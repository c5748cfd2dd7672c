// The retrograde tables against the brute-force solver of tests/reference, on every
// position of small classes, for each variant whose rules are final.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <functional>
#include <memory>
#include <random>
#include <set>
#include <vector>

#include "mancala/generate.h"
#include "mancala/notation.h"
#include "mancala/retrograde.h"
#include "mancala/solver_support.h"
#include "mancala/rules/cenne.h"
#include "reference/brute_solver.h"

using namespace mancala;

namespace {

VariantPtr variant(const std::string& s) {
  auto v = make_variant(s);
  EXPECT_TRUE(v) << s;
  return *v;
}

// Solves every class up to max_seeds in memory.
SolvedClasses solve_all(const Variant& v, int max_seeds, int threads = 2) {
  SolvedClasses solved;
  SolveOptions opt;
  opt.threads = threads;
  for (const ClassKey& k : v.solving_order(max_seeds)) {
    auto r = solve_class(v, k, solved, opt);
    EXPECT_TRUE(r) << (r ? "" : r.error().message);
    if (r) solved.add(*r);
  }
  return solved;
}

// The solved value of p, tabled or solved for closure only (lookup() answers the first).
std::optional<Value> solved_value(const Variant& v, const SolvedClasses& solved, const Position& p) {
  const ClassValues* cls = solved.find(v.class_of(p));
  if (!cls || !cls->index().contains(p)) return std::nullopt;
  return cls->get(cls->index().rank(p));
}

// Every position of every class up to max_seeds (or those `root` picks, and every
// position they reach) against the brute-force values.
void cross_check(const std::string& spec, int max_seeds, const std::function<bool(const Position&)>& root = {}) {
  const VariantPtr v = variant(spec);
  const SolvedClasses solved = solve_all(*v, max_seeds);
  std::vector<Position> roots;
  for (const ClassKey& k : v->solving_order(max_seeds)) {
    const ClassIndex idx(*v, k);
    for (Index i = 0; i < idx.size(); ++i)
      if (const Position p = idx.unrank(i); !root || root(p)) roots.push_back(p);
  }
  const reference::BruteSolver brute(*v, roots);
  std::size_t checked = 0, nonzero = 0;
  for (const Position& p : brute.positions()) {
    const auto got = solved_value(*v, solved, p);
    ASSERT_TRUE(got) << format_position(*v, p, Side::South);
    ASSERT_EQ(*got, brute.value(p)) << spec << ": " << format_position(*v, p, Side::South);
    ++checked;
    nonzero += *got != 0;
  }
  EXPECT_GT(checked, 1000u);
  EXPECT_GT(nonzero, checked / 10) << "suspiciously many zero values";
}

}  // namespace

TEST(Retrograde, OwareMatchesBruteForce) { cross_check("oware", 6); }
TEST(Retrograde, KalahEmptyMatchesBruteForce) { cross_check("kalah:6:empty", 6); }
TEST(Retrograde, KalahStandardMatchesBruteForce) { cross_check("kalah:4:standard", 8); }
TEST(Retrograde, DjenonAboureMatchesBruteForce) { cross_check("djenon-aboure", 7); }
TEST(Retrograde, KotuBaendumMatchesBruteForce) { cross_check("kotu-baendum", 4); }

// Every Cenne board, A and B pits in play from 4 to 7: every position up to a seed
// count that keeps each board under a second or so (on 4:4 this includes the jeppe
// classes, which start at 6 seeds there).
class CenneBoard : public testing::TestWithParam<std::pair<int, int>> {};
TEST_P(CenneBoard, MatchesBruteForce) {
  const auto [a, b] = GetParam();
  const int n = a + b;
  cross_check("cenne:" + std::to_string(a) + ":" + std::to_string(b), n <= 8 ? 7 : n <= 10 ? 6 : 5);
}
INSTANTIATE_TEST_SUITE_P(Retrograde, CenneBoard, testing::ValuesIn([] {
                           std::vector<std::pair<int, int>> boards;
                           for (int a = 4; a <= 7; ++a)
                             for (int b = 4; b <= 7; ++b) boards.emplace_back(a, b);
                           return boards;
                         }()),
                         [](const testing::TestParamInfo<std::pair<int, int>>& i) {
                           return "cenne_" + std::to_string(i.param.first) + "_" + std::to_string(i.param.second);
                         });

// The jeppe classes from the first seed count at which they occur, where that count
// is small (a jeppe on the opponent's side captures down to any lower count, so every
// lower jeppe class is solved too): the positions of that count with a jeppe, one in
// `every`, and all they reach.
TEST(Retrograde, CenneJeppeClassesMatchBruteForce) {
  for (const auto& [spec, every] : {std::pair<std::string, int>{"cenne:4:4", 1}, {"cenne:4:5", 40}, {"cenne:5:4", 40}}) {
    const auto cenne = std::dynamic_pointer_cast<const Cenne>(variant(spec));
    ASSERT_TRUE(cenne);
    const int first = std::min(cenne->min_seeds_jeppe_mover(), cenne->min_seeds_jeppe_opponent());
    std::size_t seen = 0;
    cross_check(spec, first, [&](const Position& p) {
      return p.jeppe >= 0 && p.seeds_in(0, cenne->pits()) == first && seen++ % static_cast<std::size_t>(every) == 0;
    });
  }
}

// The same tables with 1 and 2 threads, and the level method against the sweep
// method (through a variant without un-moves the sweep method runs; for Oware
// both are checked against the brute force above).
TEST(Retrograde, ThreadCountDoesNotChangeValues) {
  const VariantPtr v = variant("oware");
  const SolvedClasses a = solve_all(*v, 8, 1), b = solve_all(*v, 8, 2);
  for (const ClassKey& k : v->solving_order(8)) EXPECT_EQ(a.find(k)->bytes(), b.find(k)->bytes());
}

TEST(Retrograde, MissingClassIsAnError) {
  const VariantPtr v = variant("oware");
  SolvedClasses none;
  auto r = solve_class(*v, ClassKey{0, 5}, none);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Error::MissingTable);
  EXPECT_NE(r.error().message.find("not solved"), std::string::npos);
}

TEST(Retrograde, ChunksCoverTheRange) {
  for (std::uint64_t n : {0ull, 1ull, 7ull, 1000ull, 216135140ull})
    for (std::uint64_t parts : {1ull, 2ull, 3ull, 4ull, 64ull}) {
      std::uint64_t at = 0;
      for (std::uint64_t i = 0; i < parts; ++i) {
        const auto [b, e] = chunk(n, parts, i);
        EXPECT_EQ(b, at);
        EXPECT_LE(b, e);
        at = e;
      }
      EXPECT_EQ(at, n);
    }
}

// The in-class methods (levels over un-moves, bound sweeps, and for Kalah the
// acyclic pass) give the same values.
TEST(Retrograde, LevelsAndSweepsAgree) {
  for (const std::string spec : {"oware", "kalah:5:standard", "kalah:6:empty"}) {
    const VariantPtr v = variant(spec);
    SolvedClasses a, b, c;
    SolveOptions levels, sweeps, acyclic;
    levels.method = SolveOptions::Method::Levels;
    sweeps.method = SolveOptions::Method::Sweeps;
    acyclic.method = SolveOptions::Method::Acyclic;
    for (const ClassKey& k : v->solving_order(9)) {
      auto x = solve_class(*v, k, a, levels);
      auto y = solve_class(*v, k, b, sweeps);
      ASSERT_TRUE(x && y);
      EXPECT_EQ((*x)->bytes(), (*y)->bytes()) << spec << " class " << k.seeds;
      a.add(*x);
      b.add(*y);
      if (v->in_class_acyclic()) {
        auto z = solve_class(*v, k, c, acyclic);
        ASSERT_TRUE(z);
        EXPECT_EQ((*x)->bytes(), (*z)->bytes()) << spec << " class " << k.seeds << " (acyclic)";
        c.add(*z);
      }
    }
  }
  // The capabilities are the variant's answers, and a method it lacks is refused.
  EXPECT_TRUE(variant("kalah:6:empty")->in_class_acyclic());
  EXPECT_FALSE(variant("oware")->in_class_acyclic());
  auto with_method = [](SolveOptions::Method m) {
    SolveOptions o;
    o.method = m;
    return o;
  };
  auto cyc = solve_class(*variant("oware"), ClassKey{0, 3}, SolvedClasses{}, with_method(SolveOptions::Method::Acyclic));
  ASSERT_FALSE(cyc);
  EXPECT_NE(cyc.error().message.find("in-class cycles"), std::string::npos);
  auto r = solve_class(*variant("djenon-aboure"), ClassKey{0, 3}, SolvedClasses{}, with_method(SolveOptions::Method::Levels));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("no un-moves"), std::string::npos);
}

// Kalah(3) up to `to` seeds by the acyclic pass; the classes from `from` seeds up also
// by `method`, which must give the same bytes.
static void expect_method_matches_acyclic(SolveOptions::Method method, int from, int to) {
  const VariantPtr v = variant("kalah:3:empty");
  SolvedClasses solved;
  SolveOptions other, acyclic;
  other.method = method;
  acyclic.method = SolveOptions::Method::Acyclic;
  for (const ClassKey& k : v->solving_order(to)) {
    auto z = solve_class(*v, k, solved, acyclic);
    ASSERT_TRUE(z);
    if (k.seeds >= from) {
      auto x = solve_class(*v, k, solved, other);
      ASSERT_TRUE(x) << x.error().message;
      EXPECT_EQ((*x)->bytes(), (*z)->bytes()) << "class " << k.seeds;
    }
    solved.add(*z);
  }
}

// The level method's codes (LevelCodes): one byte while a class's values and moves
// fit, two beyond. Kalah(3) moves 3 pits: class 35 fits one byte, 36 takes two;
// the level method gives the acyclic pass's values on both sides of that line.
TEST(Retrograde, LevelCodesOfOneAndTwoBytesGiveTheSameValues) {
  EXPECT_EQ(LevelCodes(35, 3).bytes(), 1);
  EXPECT_EQ(LevelCodes(36, 3).bytes(), 2);
  EXPECT_EQ(LevelCodes(36, 3).low, -36);  // two bytes keep every exit
  for (int b : {1, 5, 20, 35, 36, 48})
    for (int m : {2, 3, 6}) {  // every code decodes back
      const LevelCodes c(b, m);
      if (!c.bytes()) continue;
      for (int v = -b; v <= b; ++v) {
        EXPECT_EQ(c.value(c.waiting_code(v)), v);
        EXPECT_EQ(c.value(c.told(v)), v);
        EXPECT_TRUE(c.waiting(c.waiting_code(v)) && !c.waiting(c.told(v)) && c.decided(c.told(v)));
      }
      for (int e = c.low; e <= b; ++e)
        for (int n = 1; n <= m; ++n) {
          EXPECT_FALSE(c.decided(c.open(e, n)));
          EXPECT_EQ(c.exit(c.open(e, n)), e);
          EXPECT_EQ(c.count(c.open(e, n)), n);
        }
      EXPECT_EQ(c.exit(c.open(detail::kNoExit, 1)), LevelCodes::kNoExit);
      if (c.low > -b) {
        EXPECT_EQ(c.exit(c.open(c.low - 1, 2)), LevelCodes::kAgain);
      }
    }
  EXPECT_EQ(variant("kalah:3:empty")->max_moves(), 3);
  expect_method_matches_acyclic(SolveOptions::Method::Levels, 34, 36);
}

// The sweeps' codes (retrograde.h, SweepCodes): every state decodes back, in one, two
// and four bytes; and the sweeps give the acyclic pass's values on both sides of the
// one-byte line (Kalah(3), classes 17-20: bounds 17-20).
TEST(Retrograde, SweepCodesOfOneTwoAndFourBytesGiveTheSameValues) {
  EXPECT_EQ(SweepCodes(18).bytes, 1);
  EXPECT_EQ(SweepCodes(19).bytes, 2);
  EXPECT_EQ(SweepCodes(127).bytes, 2);
  EXPECT_EQ(SweepCodes(128).bytes, 4);
  for (int b : {1, 2, 7, 18, 19, 60, 127, 128, 300}) {
    const SweepCodes c(b);
    auto check = [&](auto code_type) {
      using C = decltype(code_type);
      std::set<unsigned> seen;
      for (int w = -b; w <= b; ++w) {
        const auto f = static_cast<C>(c.final(w));
        EXPECT_TRUE(c.is_final(f));
        EXPECT_EQ(c.value(f), w);
        EXPECT_EQ(c.low(f), w);
        EXPECT_TRUE(seen.insert(c.final(w)).second);
        if (w > 0) {
          const auto o = static_cast<C>(c.open(w, 0));
          EXPECT_FALSE(c.is_final(o));
          EXPECT_EQ(c.value(o), w);
          EXPECT_EQ(c.low(o), w);
          EXPECT_TRUE(seen.insert(c.open(w, 0)).second);
          continue;
        }
        for (int e = -b; e <= w; ++e) {
          const auto o = static_cast<C>(c.open(w, e));
          EXPECT_FALSE(c.is_final(o)) << b << " " << w << " " << e;
          EXPECT_EQ(c.value(o), w);
          EXPECT_EQ(c.base(o), e);
          EXPECT_EQ(c.low(o), e);
          EXPECT_TRUE(seen.insert(c.open(w, e)).second);
        }
      }
    };
    if (c.bytes == 1) check(std::uint8_t{});
    if (c.bytes == 2) check(std::uint16_t{});
    if (c.bytes == 4) check(std::uint32_t{});
  }
  expect_method_matches_acyclic(SolveOptions::Method::Sweeps, 17, 20);
}

// The budget: a raised cancel flag stops a class with Cancelled (a code, not a string).
TEST(Retrograde, CancelledByTheBudget) {
  std::atomic<bool> cancel{true};
  SolveOptions o;
  o.budget.cancel_on(&cancel);
  auto r = solve_class(*variant("oware"), ClassKey{0, 6}, SolvedClasses{}, o);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, Error::Cancelled) << r.error().message;
}

// The sweeps' kept ranks (SolveOptions::rank_cache_bytes) change no value: none
// kept, all kept, and a budget that keeps some pieces of a class and not others
// (Kotu-baendum 6 seeds: 27,132 positions in 7 pieces of 4,096).
TEST(Retrograde, KeptRanksChangeNoValue) {
  for (const std::string spec : {"kotu-baendum", "cenne:5:4", "djenon-aboure"}) {
    const VariantPtr v = variant(spec);
    SolvedClasses none_kept, all_kept, some_kept;
    SolveOptions none, all, some;
    none.method = all.method = some.method = SolveOptions::Method::Sweeps;
    none.rank_cache_bytes = 0;
    some.rank_cache_bytes = 100000;  // about 12 bytes per open position: 2 of the 7 pieces
    for (const ClassKey& k : v->solving_order(6)) {
      auto x = solve_class(*v, k, none_kept, none);
      auto y = solve_class(*v, k, all_kept, all);
      auto z = solve_class(*v, k, some_kept, some);
      ASSERT_TRUE(x && y && z);
      EXPECT_EQ((*x)->bytes(), (*y)->bytes()) << spec << " class " << to_string(k, v->pits());
      EXPECT_EQ((*x)->bytes(), (*z)->bytes()) << spec << " class " << to_string(k, v->pits()) << " (some kept)";
      none_kept.add(*x);
      all_kept.add(*y);
      some_kept.add(*z);
    }
  }
}

// The solver asks for huge pages only outside the heap (solver_support.h,
// want_huge_pages): a small block of the main thread is in it, a mapping of its own not.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MANCALA_OWN_HEAP 1  // a sanitizer's allocator maps its own heap (GCC)
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define MANCALA_OWN_HEAP 1  // (Clang)
#endif
#endif
TEST(Retrograde, HugePagesAreNotAskedOnTheHeap) {
#if defined(__GLIBC__) && !defined(MANCALA_OWN_HEAP)
  auto small = std::make_unique<char[]>(64);
  EXPECT_TRUE(detail::in_heap(small.get()));
#endif
  // A mapping of its own: a 64 MiB vector is carved from the heap when earlier tests of
  // this process left that much free at its top (glibc raises its trim threshold to
  // twice the mmap threshold, 64 MiB, once large blocks have been freed).
  constexpr std::size_t kBytes = std::size_t{64} << 20;
  void* own = ::mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(own, MAP_FAILED);
  EXPECT_FALSE(detail::in_heap(own));
  ::munmap(own, kBytes);
  int local = 0;
  EXPECT_FALSE(detail::in_heap(&local));
}
