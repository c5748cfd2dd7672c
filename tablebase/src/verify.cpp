#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <mutex>
#include <set>

#include "mancala/generate.h"
#include "mancala/notation.h"
#include "mancala/probe.h"
#include "mancala/reachable.h"
#include "mancala/rules.h"

namespace mancala {

namespace fs = std::filesystem;

namespace {

// The value of p from the class that holds it, as generation read it: not only the
// positions tabled() promises to probes, but also those a class holds for closure
// (Cenne's jeppe classes below the count at which they arise in play).
std::optional<Value> class_value(const Variant& v, const SolvedClasses& solved, const Position& p) {
  const ClassValues* cls = solved.find(v.class_of(p));
  if (!cls || !cls->index().contains(p)) return std::nullopt;
  return cls->get(cls->index().rank(p));
}

}  // namespace

Result<VerifyReport> verify_tables(const fs::path& dir, const Variant& v, const VerifyOptions& opt) {
  auto tb = Tablebase::open(dir);
  if (!tb) return std::unexpected(tb.error());
  VerifyReport rep;
  // Files whose names cannot be tables are never read: each is a problem to report.
  for (const std::string& why : (*tb)->ignored()) {
    if (++rep.mismatches <= 10) rep.problems.push_back("ignored " + why);
  }
  std::vector<ClassKey> keys = (*tb)->classes(v.name());
  if (keys.empty()) return fail_with(Error::NotFound, dir.string() + ": no tables for " + v.name());
  std::sort(keys.begin(), keys.end());
  // Solving order: the variant's own order restricted to the classes present, then
  // the classes the order does not know (reachable sets), fewest seeds first.
  // Names were checked (parse_table_file_name): max_seeds <= the variant's seeds.
  int max_seeds = 0;
  for (const auto& k : keys) max_seeds = std::max(max_seeds, k.seeds);
  const std::vector<ClassKey> all = v.solving_order(max_seeds);
  std::vector<ClassKey> order, missing;
  {
    std::set<ClassKey> in_order;
    for (const auto& k : all) {
      if (std::binary_search(keys.begin(), keys.end(), k)) {
        order.push_back(k);
        in_order.insert(k);
      } else {
        missing.push_back(k);
      }
    }
    std::vector<ClassKey> rest;
    for (const auto& k : keys)
      if (!in_order.count(k)) rest.push_back(k);
    std::stable_sort(rest.begin(), rest.end(), [&](const ClassKey& a, const ClassKey& b) {
      return a.seeds != b.seeds ? a.seeds < b.seeds : marked_pits(a, v.pits()) > marked_pits(b, v.pits());
    });
    order.insert(order.end(), rest.begin(), rest.end());
  }
  SolvedClasses solved;
  std::mutex mu;
  auto problem = [&](std::string s) {
    std::lock_guard lock(mu);
    ++rep.mismatches;
    if (rep.problems.size() < 10) rep.problems.push_back(std::move(s));
  };
  // Load every class first (checksums, headers): children may sit in any class.
  bool whole_classes = true;  // no reachable-set table
  for (const auto& k : order) {
    auto cls = load_class(dir / table_file_name(v.name(), k), v, k);
    if (!cls) {
      problem(cls.error().message);
      continue;
    }
    if ((*cls)->index().subset()) whole_classes = false;
    solved.add(*cls);
  }
  // Tables of whole classes come as every class up to a seed count: a class missing
  // below the largest one present is a gap (a reachable-set folder holds the classes
  // its root reaches; a missing one shows as a child in a missing class below).
  if (whole_classes && !missing.empty()) {
    rep.missing_classes = missing.size();
    for (const auto& k : missing)
      problem("class " + to_string(k, v.pits()) + " is missing (" + table_file_name(v.name(), k) + "), though classes of up to " +
              std::to_string(max_seeds) + " seeds are present: an interrupted or partial copy? run generate again");
  }
  tbb::task_arena arena(opt.threads > 0 ? opt.threads : tbb::task_arena::automatic);
  for (const auto& k : order) {
    const ClassValues* cls = solved.find(k);
    if (!cls) continue;
    ++rep.classes;
    const Index n = cls->size();
    std::atomic<std::uint64_t> done{0};
    arena.execute([&] {
      tbb::parallel_for(tbb::blocked_range<Index>(0, n, 4096), [&](const tbb::blocked_range<Index>& r) {
        with_rules(v, [&](const auto& rules) {
          using R = std::decay_t<decltype(rules)>;
          std::vector<Child> kids;
          for (Index i = r.begin(); i < r.end(); ++i) {
            const Position p = cls->index().unrank(i);
            rules.R::children(p, kids);
            Value want;
            if (kids.empty()) {
              want = rules.R::terminal_value(p);
            } else {
              want = INT16_MIN;
              for (const Child& c : kids) {
                Value cv = 0;
                if (!c.game_over) {
                  const auto x = class_value(v, solved, c.next);
                  if (!x) {
                    problem("class " + to_string(k, v.pits()) + ": a child of '" + format_position(v, p, Side::South) +
                            "' is in class " + to_string(v.class_of(c.next), v.pits()) + ", which is missing");
                    return;
                  }
                  cv = *x;
                }
                want = std::max(want, move_value(v.kind(), c, cv));
              }
            }
            const Value got = cls->get(i);
            if (got != want)
              problem("class " + to_string(k, v.pits()) + ": '" + format_position(v, p, Side::South) + "' has value " +
                      value_text(v.kind(), got) + ", its moves give " + value_text(v.kind(), want));
          }
        });
        const auto d = done.fetch_add(r.size()) + r.size();
        if (opt.progress && mu.try_lock()) {
          std::lock_guard lock(mu, std::adopt_lock);
          opt.progress("verify " + to_string(k, v.pits()), d, n);
        }
      });
    });
    rep.positions += n;
  }
  return rep;
}

}  // namespace mancala
