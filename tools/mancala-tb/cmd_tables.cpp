// Sub-commands over table folders: generate, probe, verify, info.
#include <chrono>
#include <csignal>
#include <expected>
#include <optional>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "probe_json.h"
#include "mancala/table_writer.h"
#include "mancala/generate.h"
#include "mancala/index.h"
#include "mancala/probe.h"

namespace mancala::cli {

namespace fs = std::filesystem;

namespace {

std::atomic<bool> g_cancel{false};
extern "C" void on_signal(int) { g_cancel.store(true); }

std::string human_bytes(double b) {
  const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
  return buf;
}

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s.resize(width, ' ');
  return s;
}

// A folder that cannot be opened (missing, unreadable) is a failure, not a usage
// error: exit 1 with "error:", as for a folder without tables where one is needed.
std::shared_ptr<Tablebase> open_or_throw(const std::string& dir) {
  auto tb = Tablebase::open(dir);
  if (!tb) throw std::runtime_error(tb.error().message);
  return *tb;
}

// verify and info need at least one table: the same error for both.
void require_tables(const std::string& dir, const Tablebase& tb) {
  if (!tb.variants().empty()) return;
  throw std::runtime_error(dir + ": no table files (*.mtb) with a valid name in this folder" +
                           (tb.ignored().empty() ? std::string() : " (" + std::to_string(tb.ignored().size()) + " ignored)"));
}

// Where the first byte of `s` that is not part of well-formed UTF-8 is (no overlong
// forms, no surrogates, nothing past U+10FFFF), or npos.
std::size_t invalid_utf8_at(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    std::size_t n = 0;  // continuation bytes
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the first continuation byte
    if (b < 0x80) n = 0;
    else if (b >= 0xC2 && b <= 0xDF) n = 1;
    else if (b >= 0xE0 && b <= 0xEF) n = 2, lo = b == 0xE0 ? 0xA0 : 0x80, hi = b == 0xED ? 0x9F : 0xBF;
    else if (b >= 0xF0 && b <= 0xF4) n = 3, lo = b == 0xF0 ? 0x90 : 0x80, hi = b == 0xF4 ? 0x8F : 0xBF;
    else return i;
    for (std::size_t k = 1; k <= n; ++k) {
      if (i + k >= s.size()) return i;
      const auto c = static_cast<unsigned char>(s[i + k]);
      if (c < (k == 1 ? lo : 0x80) || c > (k == 1 ? hi : 0xBF)) return i;
    }
    i += n + 1;
  }
  return std::string_view::npos;
}

// A JSON line; text that is not UTF-8 (only ever in an error's echo of the input) has
// its bad bytes replaced by U+FFFD instead of ending the stream.
std::string json_line(const nlohmann::ordered_json& o) {
  return o.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace

// probe_json.h: one answer of probe as JSON (probe --json, probe -, serve).
void put_value(nlohmann::ordered_json& o, GameKind kind, Value value) {
  if (kind == GameKind::WinLoss) {
    o["value"] = value > 0 ? "win" : value < 0 ? "loss" : "draw";
    o["depth"] = plies_of(value);
  } else {
    o["value"] = value;
  }
}

ProbeAnswer probe_one(const Tablebase& tb, const std::string& input) {
  ProbeAnswer a;
  try {
    if (const std::size_t at = invalid_utf8_at(input); at != std::string_view::npos) {
      char byte[8];
      std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(input[at])));
      a.result = std::unexpected(TableError{TableError::BadPosition, "not UTF-8 text: byte " + std::string(byte) +
                                                                         " at offset " + std::to_string(at) +
                                                                         " (positions are ASCII, docs/notation.md)"});
      return a;
    }
    auto pp = parse_position(input);
    if (!pp) {
      a.result = std::unexpected(pp.error());
      return a;
    }
    a.pp = *pp;
    a.result = tb.probe(*pp->variant, pp->position);
  } catch (const std::exception& e) {  // one line's failure must not end the stream
    a.result = std::unexpected(TableError{TableError::Internal, e.what()});
  }
  return a;
}

nlohmann::ordered_json answer_json(const std::string& input, const ProbeAnswer& a) {
  nlohmann::ordered_json o;
  if (!a.result) {
    o["input"] = input;
    o["error"] = a.result.error().message;
    o["code"] = std::string(error_code_name(a.result.error().code));
    return o;
  }
  const Variant& v = *a.pp->variant;
  o["position"] = format_position(v, a.pp->position, a.pp->side);
  put_value(o, v.kind(), a.result->value);
  o["moves"] = nlohmann::ordered_json::array();
  for (const auto& m : a.result->moves) {
    nlohmann::ordered_json jm;
    jm["move"] = v.move_name(m.move);
    put_value(jm, v.kind(), m.value);
    jm["gains"] = {m.child.gain_mover, m.child.gain_opponent};
    if (a.result->distances) jm["distance"] = m.distance;
    o["moves"].push_back(std::move(jm));
  }
  if (a.result->distances) o["distance"] = a.result->distance;
  if (a.result->distances_missing) o["distances"] = "missing";
  return o;
}

std::size_t load_tables(const Tablebase& tb, std::size_t budget, const char* cmd) {
  if (budget == 0) return 0;
  std::size_t used = 0;
  for (const std::string& name : tb.variants()) {
    auto v = make_variant(name);
    if (!v) continue;
    auto r = tb.load(**v, budget - std::min(budget, used));
    if (!r) std::fprintf(stderr, "mancala-tb %s: --load: %s (read in place)\n", cmd, r.error().message.c_str());
    else used += r->bytes;
  }
  return used;
}

namespace {

void print_text(const ProbeAnswer& a) {
  const Variant& v = *a.pp->variant;
  const auto& r = *a.result;
  std::printf("%s\n  value %s%s%s\n", format_position(v, a.pp->position, a.pp->side).c_str(), value_text(v.kind(), r.value).c_str(),
              r.distances && r.value != 0 ? (", leaves the class in " + std::to_string(r.distance)).c_str() : "",
              r.from_children ? " (from its moves: the position itself is not in the tables)" : "");
  if (r.distances_missing)
    std::printf("  no distance tables (generate --distances): moves ordered by value alone, the first may not realise it\n");
  if (r.moves.empty()) std::printf("  no legal move: the game is over\n");
  for (const auto& m : r.moves) {
    const std::string line = "  move " + pad(v.move_name(m.move), 12) + " " + pad(value_text(v.kind(), m.value), 10) +
                             " gains " + std::to_string(m.child.gain_mover) + "/" + std::to_string(m.child.gain_opponent);
    if (r.distances) std::printf("%-46s distance %d\n", line.c_str(), m.distance);
    else std::printf("%s\n", line.c_str());
  }
}

int run_probe(const std::string& dir, const std::vector<std::string>& args, bool json, std::int64_t load_mib) {

  if (dir.empty() || args.empty()) throw UsageError("probe needs DIR and at least one POSITION (see --help)");
  const auto tb = open_or_throw(dir);
  const std::size_t load_budget = static_cast<std::size_t>(load_mib) << 20;
  load_tables(*tb, load_budget, "probe");
  int status = 0;
  if (args.size() == 1 && args[0] == "-") {
    // The engine protocol: every line answered, in order, flushed.
    // Tables replaced under the running engine (a new generate) are read afresh: the
    // folder is looked at again at most once a second, and at once after a failed
    // answer (then the line is answered again).
    std::string line;
    auto looked = std::chrono::steady_clock::now();
    const auto look_again = [&] {  // tables replaced meanwhile are loaded again (--load)
      if (tb->refresh()) load_tables(*tb, load_budget, "probe");
      looked = std::chrono::steady_clock::now();
    };
    while (std::getline(std::cin, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (std::chrono::steady_clock::now() - looked > std::chrono::seconds(1)) look_again();
      std::string answer;
      try {
        ProbeAnswer ans = probe_one(*tb, line);  // errors are answers here, not failures
        if (!ans.result && ans.result.error().code != Error::BadPosition && ans.result.error().code != Error::InvalidArgument) {
          look_again();
          ans = probe_one(*tb, line);
        }
        answer = json_line(answer_json(line, ans));
      } catch (const std::exception& e) {  // nothing a line holds may end the stream
        answer = json_line({{"input", line}, {"error", e.what()}, {"code", std::string(error_code_name(TableError::Internal))}});
      }
      std::fputs((answer + "\n").c_str(), stdout);
      std::fflush(stdout);
    }
    return status;
  }
  for (const std::string& text : split_positions(split_words(args))) {
    const ProbeAnswer ans = probe_one(*tb, text);
    if (!ans.result) {
      status = 1;
      if (json) std::printf("%s\n", json_line(answer_json(text, ans)).c_str());
      else std::fprintf(stderr, "mancala-tb probe: %s: %s\n", text.c_str(), ans.result.error().message.c_str());
      continue;
    }
    if (json) std::printf("%s\n", json_line(answer_json(text, ans)).c_str());
    else print_text(ans);
  }
  return status;
}

struct GenerateArgs {
  std::vector<std::string> variant, from;
  int max_seeds = -1, threads = 0, level = 9, max_millions = 200;
  std::int64_t memory_mb = -1;  // -1: the default of GenerateOptions
  std::string out, method = "auto";
  bool verbose = false, distances = false, json = false;
};

int run_generate(const GenerateArgs& g) {
  const auto w = split_words(g.variant);
  const bool verbose = g.verbose;
  std::optional<ParsedPosition> root;
  if (!g.from.empty()) root = position_or_throw(join_words(split_words(g.from)));
  if (w.size() > 1 || (w.empty() && !root)) throw UsageError("generate needs exactly one VARIANT or --from POSITION (see --help)");
  if (g.max_seeds < 0) throw UsageError("generate needs --max-seeds N");
  if (g.out.empty()) throw UsageError("generate needs --out DIR");
  const VariantPtr v = root ? root->variant : variant_or_throw(w[0]);
  if (root && !w.empty() && variant_or_throw(w[0])->name() != v->name())
    throw UsageError("the variant '" + w[0] + "' differs from the --from position's " + v->name());
  if (g.max_seeds > v->total_seeds())
    throw UsageError("--max-seeds: " + std::to_string(g.max_seeds) + " is not in 0.." + std::to_string(v->total_seeds()) +
                     " (" + v->name() + " has " + std::to_string(v->total_seeds()) + " seeds)");
  GenerateOptions opt;
  opt.max_seeds = g.max_seeds;
  opt.out = g.out;
  opt.threads = g.threads;
  opt.zstd_level = g.level;
  opt.distances = g.distances;
  if (g.distances && !has_distance_tables(*v))
    std::fprintf(stderr, "mancala-tb generate: note: %s has no distance tables (its value-optimal moves realise the value): "
                 "--distances writes none\n", v->name().c_str());
  if (g.method == "sweeps") opt.method = SolveOptions::Method::Sweeps;
  else if (g.method == "levels") opt.method = SolveOptions::Method::Levels;
  else if (g.method == "acyclic") opt.method = SolveOptions::Method::Acyclic;
  opt.max_positions = static_cast<std::uint64_t>(g.max_millions) * 1'000'000;
  if (g.memory_mb >= 0) opt.memory_bytes = static_cast<std::uint64_t>(g.memory_mb) << 20;
  opt.budget.cancel_on(&g_cancel);
  // One writer per folder: a second generate into it stops here.
  auto lock = FolderLock::acquire(opt.out);
  if (!lock) throw std::runtime_error(lock.error().message);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  Progress bar(stderr_is_terminal());
  // The whole run's estimate: positions of the classes this run solves (known before
  // it starts for whole classes; the class count for --from), the current class by its
  // sweep's share.
  std::map<std::string, double> class_positions;
  double all_positions = 0, run_done = 0, run_loaded = 0;
  if (!root)
    for (const ClassKey& k : v->solving_order(g.max_seeds))
      all_positions += class_positions[to_string(k, v->pits())] = static_cast<double>(ClassIndex(*v, k).size());
  auto class_share = [&](const std::string& cls) { return root ? 1.0 : class_positions[cls]; };
  auto run_total = [&](const GenerateEvent& e) { return (root ? e.classes : all_positions) - run_loaded; };
  opt.on_event = [&](const GenerateEvent& e) {
    const std::string cls = to_string(e.key, v->pits());
    const std::string tag = "[" + std::to_string(e.class_number) + "/" + std::to_string(e.classes) + "] ";
    switch (e.kind) {
      case GenerateEvent::Progress:
        if (run_total(e) > 0)
          bar.overall((run_done + class_share(cls) * static_cast<double>(e.progress.done) /
                                      static_cast<double>(std::max<std::uint64_t>(1, e.progress.total))) / run_total(e));
        bar.show(tag + "class " + cls + " sweep " + std::to_string(e.progress.sweep), e.progress.done, e.progress.total);
        break;
      case GenerateEvent::Solved:
        run_done += class_share(cls);
        bar.message(tag + "class " + cls + ": " + std::to_string(e.positions) + " positions, " + std::to_string(e.sweeps) +
                    " sweeps, " + std::to_string(e.seconds).substr(0, 6) + " s, " + human_bytes(static_cast<double>(e.file_bytes)));
        if (verbose)
          std::printf("solved %s positions %llu sweeps %d seconds %.3f bytes %llu\n", cls.c_str(),
                      static_cast<unsigned long long>(e.positions), e.sweeps, e.seconds,
                      static_cast<unsigned long long>(e.file_bytes));
        break;
      case GenerateEvent::Loaded:
        run_loaded += class_share(cls);  // no time spent on it
        if (verbose) std::printf("loaded %s positions %llu\n", cls.c_str(), static_cast<unsigned long long>(e.positions));
        break;
      case GenerateEvent::Replaced:
        bar.message("regenerating class " + cls + ": " + e.note);  // the warning below also under --quiet
        std::fprintf(stderr, "mancala-tb generate: warning: %s: solving the class again\n", e.note.c_str());
        break;
      case GenerateEvent::Enumerated:
        bar.show("enumerating: class " + std::to_string(e.class_number) + ", " +
                     std::to_string(e.classes - e.class_number) + " reached to go, " + std::to_string(e.positions) +
                     " positions",
                 e.class_number, e.classes);
        break;
      case GenerateEvent::Started: break;
    }
  };
  std::uint64_t reachable = 0;
  if (root) bar.message("enumerating the positions reachable from " + format_position(*v, root->position, root->side));
  auto rep = root ? generate_reachable(*v, root->position, opt, &reachable) : generate(*v, opt);
  bar.finish();
  if (!rep) {
    if (rep.error().code == Error::Cancelled) {
      std::fprintf(stderr, "mancala-tb generate: interrupted; finished classes are kept, run the same command to resume\n");
      return kExitInterrupted;
    }
    throw std::runtime_error(rep.error().message);
  }
  if (g.json) {
    nlohmann::ordered_json o;
    o["variant"] = v->name();
    if (root) o["from"] = format_position(*v, root->position, root->side), o["reachable"] = reachable;
    o["max_seeds"] = opt.max_seeds;
    o["out"] = opt.out.string();
    o["classes_solved"] = rep->classes_solved;
    o["classes_loaded"] = rep->classes_loaded;
    o["positions"] = rep->positions;
    o["bytes"] = rep->file_bytes;
    o["seconds"] = rep->seconds;
    std::printf("%s\n", o.dump().c_str());
    return 0;
  }
  if (root) std::printf("reachable from %s: %llu positions\n", format_position(*v, root->position, root->side).c_str(),
                        static_cast<unsigned long long>(reachable));
  std::printf("%s up to %d seeds: %d classes solved, %d loaded, %llu positions, %s on disk (%.3f bytes/position), %.2f s\n",
              v->name().c_str(), opt.max_seeds, rep->classes_solved, rep->classes_loaded,
              static_cast<unsigned long long>(rep->positions), human_bytes(static_cast<double>(rep->file_bytes)).c_str(),
              rep->positions ? static_cast<double>(rep->file_bytes) / static_cast<double>(rep->positions) : 0.0, rep->seconds);
  if (opt.distances && has_distance_tables(*v))
    std::printf("distances: %d classes computed, %s on disk (%.3f bytes/position), %.2f s of the total\n",
                rep->distance_classes, human_bytes(static_cast<double>(rep->distance_bytes)).c_str(),
                rep->positions ? static_cast<double>(rep->distance_bytes) / static_cast<double>(rep->positions) : 0.0,
                rep->distance_seconds);
  const std::string given_back = rep->unlisted_pieces ? "; kept lists of " + std::to_string(rep->unlisted_pieces) +
                                                            " pieces of 4,096 positions given back for the distance passes"
                                                      : "";
  if (verbose)
    std::printf("memory budget %llu MiB: %d classes read through the page cache (%llu hits, %llu pages read, peak %s); "
                "lower classes freed after the first sweep of %d classes%s\n",
                static_cast<unsigned long long>(opt.memory_bytes >> 20), rep->paged_classes,
                static_cast<unsigned long long>(rep->cache_hits), static_cast<unsigned long long>(rep->cache_misses),
                human_bytes(static_cast<double>(rep->cache_peak_bytes)).c_str(), rep->released_classes, given_back.c_str());
  return 0;
}

int run_verify(const std::vector<std::string>& w, int threads, bool json) {
  if (w.empty() || w.size() > 2) throw UsageError("verify needs DIR [VARIANT] (see --help)");
  const auto tb = open_or_throw(w[0]);
  std::vector<VariantPtr> vs;
  if (w.size() == 2) vs.push_back(variant_or_throw(w[1]));
  else
    for (const auto& name : tb->variants()) vs.push_back(variant_or_throw(name));
  for (const auto& why : tb->ignored()) std::fprintf(stderr, "mancala-tb verify: warning: ignored %s\n", why.c_str());
  if (vs.empty()) require_tables(w[0], *tb);
  Progress bar(stderr_is_terminal());
  bool ok = true;
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const auto& v : vs) {
    VerifyOptions opt;
    opt.threads = threads;
    opt.progress = [&](const std::string& what, std::uint64_t d, std::uint64_t t) { bar.show(what, d, t); };
    auto rep = verify_tables(w[0], *v, opt);
    bar.finish();
    if (!rep) throw std::runtime_error(rep.error().message);
    ok = ok && rep->mismatches == 0;
    if (json) {
      all.push_back({{"variant", v->name()}, {"ok", rep->mismatches == 0}, {"classes", rep->classes},
                     {"positions", rep->positions}, {"problems", rep->mismatches}, {"first_problems", rep->problems}});
      continue;
    }
    if (rep->mismatches == 0) {
      std::printf("%s: OK, %llu classes, %llu positions, every value re-derived from its children\n", v->name().c_str(),
                  static_cast<unsigned long long>(rep->classes), static_cast<unsigned long long>(rep->positions));
    } else {
      std::fprintf(stderr, "mancala-tb verify: %s: FAILED, %llu problems\n", v->name().c_str(),
                   static_cast<unsigned long long>(rep->mismatches));
      for (const auto& p : rep->problems) std::fprintf(stderr, "  %s\n", p.c_str());
    }
  }
  if (json)
    std::printf("%s\n", nlohmann::ordered_json{{"dir", w[0]}, {"ok", ok}, {"ignored", tb->ignored()}, {"variants", all}}
                             .dump().c_str());
  return ok ? 0 : kExitFailure;
}

int run_info(const std::string& dir, bool per_class, bool stats, bool json) {
  const auto tb = open_or_throw(dir);
  int unreadable = 0;
  for (const auto& why : tb->ignored()) {
    std::fprintf(stderr, "mancala-tb info: warning: ignored %s\n", why.c_str());
    ++unreadable;
  }
  require_tables(dir, *tb);  // as verify: exit 1 with "error:"
  nlohmann::ordered_json variants = nlohmann::ordered_json::array();
  for (const auto& name : tb->variants()) {
    const auto v = make_variant(name);
    if (!v) {
      std::fprintf(stderr, "mancala-tb info: %s: unknown variant in file names\n", name.c_str());
      ++unreadable;
      continue;
    }
    std::uint64_t positions = 0, bytes = 0;
    int lo = 1 << 30, hi = -1, bad = 0;
    nlohmann::ordered_json jv{{"variant", name}}, jclasses = nlohmann::ordered_json::array();
    const auto keys = tb->classes(name);
    for (const auto& k : keys) {
      auto t = tb->table(**v, k);
      if (!t) {
        ++bad;
        if (json) jclasses.push_back({{"class", to_string(k, (*v)->pits())}, {"error", t.error().message}});
        else if (per_class) std::printf("  class %-24s ERROR %s\n", to_string(k, (*v)->pits()).c_str(), t.error().message.c_str());
        else std::fprintf(stderr, "mancala-tb info: %s\n", t.error().message.c_str());
        continue;
      }
      std::error_code ec;
      const auto b = fs::file_size((*t)->path(), ec);
      positions += (*t)->header().positions;
      bytes += b;
      lo = std::min(lo, k.seeds);
      hi = std::max(hi, k.seeds);
      if (json)
        jclasses.push_back({{"class", to_string(k, (*v)->pits())}, {"positions", (*t)->header().positions}, {"bytes", b}});
      else if (per_class)
        std::printf("  class %-24s %14llu positions %10llu bytes\n", to_string(k, (*v)->pits()).c_str(),
                    static_cast<unsigned long long>((*t)->header().positions), static_cast<unsigned long long>(b));
    }
    jv["classes"] = keys.size();
    jv["seeds"] = {hi < 0 ? 0 : lo, hi < 0 ? 0 : hi};
    jv["positions"] = positions;
    jv["bytes"] = bytes;
    jv["unreadable"] = bad;
    if (per_class) jv["class_files"] = jclasses;
    if (stats) {
      struct Row {
        std::uint64_t n = 0, won = 0, drawn = 0, lost = 0;
        int extreme = 0;
      };
      std::map<int, Row> rows;
      for (const auto& k : keys) {
        auto t = tb->table(**v, k);
        if (!t) continue;
        auto data = (*t)->read_all();
        if (!data) {
          std::fprintf(stderr, "mancala-tb info: %s\n", data.error().message.c_str());
          ++bad;
          continue;
        }
        Row& r = rows[k.seeds];
        const std::uint32_t width = (*t)->header().value_width;
        for (std::size_t i = 0; i + width <= data->size(); i += width) {
          const Value x = width == 1 ? static_cast<Value>(static_cast<std::int8_t>((*data)[i]))
                                     : static_cast<Value>(static_cast<std::uint16_t>((*data)[i] | ((*data)[i + 1] << 8)));
          ++r.n;
          (x > 0 ? r.won : x < 0 ? r.lost : r.drawn) += 1;
          const int mag = (*v)->kind() == GameKind::Score ? std::abs(x) : plies_of(x);
          r.extreme = std::max(r.extreme, mag);
        }
      }
      const char* extreme = (*v)->kind() == GameKind::Score ? "largest_margin" : "longest_plies";
      nlohmann::ordered_json jrows = nlohmann::ordered_json::array();
      for (const auto& [seeds, r] : rows)
        jrows.push_back({{"seeds", seeds}, {"positions", r.n}, {"won", r.won}, {"drawn", r.drawn}, {"lost", r.lost},
                         {extreme, r.extreme}});
      jv["stats"] = jrows;
      jv["unreadable"] = bad;
      if (!json) {
        std::printf("%s\n  seeds %14s %8s %8s %8s  %s\n", name.c_str(), "positions", "won", "drawn", "lost",
                    (*v)->kind() == GameKind::Score ? "largest margin" : "longest (plies)");
        for (const auto& [seeds, r] : rows) {
          const double n = r.n ? static_cast<double>(r.n) : 1.0;
          std::printf("  %5d %14llu %7.2f%% %7.2f%% %7.2f%%  %d\n", seeds, static_cast<unsigned long long>(r.n),
                      100.0 * static_cast<double>(r.won) / n, 100.0 * static_cast<double>(r.drawn) / n,
                      100.0 * static_cast<double>(r.lost) / n, r.extreme);
        }
      }
    }
    if (!json)
      std::printf("%s: %zu classes, seeds %d..%d, %llu positions, %s (%.3f bytes/position)%s\n", name.c_str(), keys.size(),
                  hi < 0 ? 0 : lo, hi < 0 ? 0 : hi, static_cast<unsigned long long>(positions),
                  human_bytes(static_cast<double>(bytes)).c_str(),
                  positions ? static_cast<double>(bytes) / static_cast<double>(positions) : 0.0,
                  bad ? (", " + std::to_string(bad) + " unreadable (run verify)").c_str() : "");
    variants.push_back(std::move(jv));
    unreadable += bad;
  }
  if (json)
    std::printf("%s\n", nlohmann::ordered_json{{"dir", dir}, {"ok", unreadable == 0}, {"ignored", tb->ignored()}, {"variants", variants}}
                            .dump().c_str());
  if (unreadable) {
    std::fprintf(stderr, "mancala-tb info: error: %d files unreadable or ignored\n", unreadable);
    return kExitFailure;
  }
  return 0;
}

}  // namespace

void add_table_commands(CLI::App& root, std::vector<Command>& out) {
  {
    auto g = std::make_shared<GenerateArgs>();
    CLI::App* c = add_command(
        root, "generate", "build tables up to a number of seeds in play (resumable)",
        {"mancala-tb generate VARIANT --max-seeds N --out DIR [options]\n"
         "       mancala-tb generate --from POSITION --max-seeds N --out DIR [options]",
         "Solves every class of VARIANT with up to N seeds in play by retrograde analysis and\n"
         "writes one file per class into DIR (DIR/<variant>.<seeds>.<state>.mtb).\n\n"
         "With --from, only the positions reachable from POSITION are enumerated (the\n"
         "walk of `count --from`: class by class over bit sets, in parallel) and solved,\n"
         "each class indexed densely over its reachable positions: the way to tables of\n"
         "games whose marks (Enkeshui's bulls, Imbelece's closed pits) have too many\n"
         "combinations to build every class. Use one folder per root.\n\n"
         "One generate at a time per folder: DIR/mancala-tb.lock (flock) keeps a second\n"
         "one out until the first ends (or dies).\n"
         "Resumable: a class whose file is complete and checks out is loaded, not solved\n"
         "again; files are written atomically, so an interrupted run (Ctrl-C, kill -9)\n"
         "restarts with the class it was solving. Progress is drawn on a terminal; in a\n"
         "log, a line a minute on long classes.",
         {"mancala-tb generate oware --max-seeds 8 --out tb/",
          "mancala-tb generate --from \"imbelece 1,0,0,0,0,0,0,1/1,0,0,0,0,0,1,1 S first\" --max-seeds 5 --out imbelece-tb/"},
         ""});
    c->add_option("VARIANT", g->variant, "the game, e.g. oware or kalah:6:empty (see `mancala-tb variants`)");
    c->add_option("--from", g->from, "root position: table only what it reaches (one argument or split)")
        ->expected(1, CLI::detail::expected_max_vector_size);
    c->add_option("--max-seeds", g->max_seeds, "largest number of seeds in play to solve, at most the game's seeds")->check(in_range(0, 255));
    c->add_option("--out", g->out, "table folder (created if missing)");
    c->add_option("--max-positions", g->max_millions,
                  "with --from: stop if more than M million positions are reachable (default 200; "
                  "8 bytes each while enumerating, plus bit sets of at most max(1 GB, 16 bytes x M million))")
        ->check(in_range(1, 100000));
    c->add_option("--threads", g->threads,
                  "worker threads (default: all cores); with more than one, each class's file is written by one "
                  "more thread while the next class is solved")
        ->check(in_range(0, 1024));
    c->add_option("--level", g->level, "zstd level of the position lists of reachable-set tables, 1..19 (default 9)")->check(in_range(1, 19));
    c->add_option("--memory-mb", g->memory_mb,
                  "memory of the run, in MiB (default 1024; 0: no bound): the class being solved and the "
                  "solved classes, an eighth (at most 24 MiB) held back for the rest (from 64 MiB on, what the process holds beyond "
                  "that, measured before each class, comes off the rest); the newest lower classes stay in memory while they fit, older ones are spilled to "
                  "an unlinked file in DIR and read back through a page cache (slower); a large class solved by sweeps "
                  "frees them after its first sweep, which reads them all, for the later sweeps' kept moves; with --distances, "
                  "the distance pass that follows the sweeps, which reads none of them, sends them out for its arrays when it must, "
                  "and writes its edges to an unlinked file in DIR when they do not fit (a class of N positions needs about "
                  "13 N bytes for it: more than the budget for the largest classes of a tight one, which is then exceeded)")
        ->check(in_range(0, 1LL << 40));
    c->add_flag("--verbose", g->verbose, "one line per class on stdout (seeds, positions, rounds, time, bytes)");
    c->add_flag("--distances", g->distances,
                "also the distance tables (.mtz beside each .mtb) of a score game with cycles: the plies to the next "
                "exit from the class along value-optimal moves, by which probe's best move realises the value "
                "(docs/values.md)");
    c->add_option("--method", g->method,
                  "auto (default), sweeps, levels or acyclic: the in-class algorithm; levels needs "
                  "un-moves (Oware, Kalah), acyclic in-class moves that never repeat (Kalah); all give "
                  "identical tables")
        ->check(CLI::IsMember({"auto", "sweeps", "levels", "acyclic"}));
    add_json_flag(c, g->json, "the summary as one JSON object (variant, classes solved and loaded, positions, bytes, seconds)");
    add_quiet_flag(c);
    out.push_back({c, [g] { return run_generate(*g); }});
  }
  {
    struct State {
      std::string dir;
      std::vector<std::string> positions;
      bool json = false;
      std::int64_t load_mib = 0;
    };
    auto st = std::make_shared<State>();
    CLI::App* c = add_command(
        root, "probe", "value and ranked moves of positions from the tables",
        {"mancala-tb probe DIR POSITION... [--json] [--load MIB]\n"
         "       mancala-tb probe DIR - [--load MIB]   (engine protocol: one JSON line per input line)",
         "Exact value and every move's value of each POSITION from the tables in DIR.\n"
         "POSITION is VARIANT PITS SIDE [FLAGS], one argument or split.\n\n"
         "With '-' probe reads positions from standard input, one a line, and answers each\n"
         "line with one JSON object on one line, flushed at once, in order, until the input\n"
         "ends: an engine keeps it running and talks to it through a pipe. A line that is\n"
         "not a position, or a position beyond the tables, is answered with\n"
         "  {\"input\":LINE,\"error\":MESSAGE,\"code\":\"bad_position\"|\"not_found\"|\"corrupt\"|...}\n"
         "and the stream goes on; the exit status is 0 once the input ends. With positions\n"
         "as arguments, one that fails prints its error (on stderr, or as that error object\n"
         "with --json), the others are still answered and the exit status is 1.\n\n"
         "The value is the margin of the seeds still in play the side to move can force\n"
         "(captured seeds do not count); a move's value is its gains plus the value of the\n"
         "position after it, from the mover's view.",
         {"mancala-tb generate oware --max-seeds 8 --out tb/",
          "mancala-tb probe tb/ \"oware 1,0,0,2,0,0/0,1,0,0,1,0 S\"",
          "mancala-tb probe tb/ oware 1,0,0,2,0,0/0,1,0,0,1,0 S oware 0,0,0,0,0,2/2,0,0,0,0,0 N --json",
          "printf 'oware 1,0,0,2,0,0/0,1,0,0,1,0 S\\nnot a position\\n' | mancala-tb probe tb/ -",
          "printf 'oware 1,0,0,2,0,0/0,1,0,0,1,0 S\\n' | mancala-tb probe tb/ - --load 64"},
         ""});
    c->add_option("DIR", st->dir, "table folder made by `mancala-tb generate`");
    c->add_option("POSITION", st->positions, "positions, one argument each or split; '-' reads standard input");
    c->add_flag("--json", st->json,
                "one JSON object per position: position, value (margin, or \"win\"/\"draw\"/\"loss\"), "
                "depth (plies, win/loss games), moves (best first: move, value, depth, gains)");
    c->add_option("--load", st->load_mib,
                  "MiB: load the tables into memory first, smallest classes first, up to MiB in all "
                  "(one byte a value: each probe then reads memory instead of decoding; default 0: none)")
        ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 30));
    out.push_back({c, [st] { return run_probe(st->dir, st->positions, st->json, st->load_mib); }});
  }
  {
    struct State {
      std::vector<std::string> args;
      int threads = 0;
      bool json = false;
    };
    auto st = std::make_shared<State>();
    CLI::App* c = add_command(
        root, "verify", "re-derive every value of a table set from its children; check checksums",
        {"mancala-tb verify DIR [VARIANT] [--threads T] [--json] [--quiet]",
         "Re-derives every value of every table in DIR (or of VARIANT only) from its\n"
         "children with the rules engine, and checks every header and block checksum.\n"
         "Also reports a class missing below the largest seed count present (a gap) and\n"
         "every *.mtb file whose name cannot be a table (ignored).\n"
         "Exit status 0 when everything checks out, 1 otherwise (with the first problems).",
         {"mancala-tb generate oware --max-seeds 6 --out tb/", "mancala-tb verify tb/"}, ""});
    c->add_option("ARGS", st->args, "table folder, and optionally one variant in it");
    c->add_option("--threads", st->threads, "worker threads (default: all cores)")->check(in_range(0, 1024));
    add_json_flag(c, st->json, "one JSON object: ok, and per variant ok, classes, positions, problems and the first ones");
    add_quiet_flag(c);
    out.push_back({c, [st] { return run_verify(st->args, st->threads, st->json); }});
  }
  {
    struct State {
      std::string dir;
      bool classes = false, stats = false, json = false;
    };
    auto st = std::make_shared<State>();
    CLI::App* c = add_command(root, "info", "what tables a folder holds",
                              {"mancala-tb info DIR [--classes] [--stats] [--json]",
                               "What tables DIR holds: per variant the classes, seeds in play, positions and bytes.\n"
                               "With --stats, what the values look like per seed count (reads every value).\n"
                               "Exit status 0 when every file could be read, 1 otherwise: a folder that is\n"
                               "missing or holds no table (as verify), a file whose header (or, with --stats, a\n"
                               "block) is unreadable or corrupt, or a *.mtb file whose name cannot be a table\n"
                               "(ignored, with a warning).",
                               {"mancala-tb generate oware --max-seeds 6 --out tb/", "mancala-tb info tb/ --stats"}, ""});
    c->add_option("DIR", st->dir, "table folder")->required();
    c->add_flag("--classes", st->classes, "one line per class file");
    c->add_flag("--stats", st->stats,
                "what the values look like per seed count: positions, the share won, drawn and lost by the "
                "side to move, the largest margin (or the longest win/loss in plies); reads every value");
    add_json_flag(c, st->json, "one JSON object: per variant classes, seeds, positions, bytes (and class_files, stats)");
    out.push_back({c, [st] { return run_info(st->dir, st->classes, st->stats, st->json); }});
  }
}

}  // namespace mancala::cli
