// mancala-tb serve: the tables over HTTP (cpp-httplib) as JSON, in the spirit of the
// lichess tablebase server (lila-tablebase), and the explorer page (explorer.html, built
// into the program).
//
//   GET  /                         the explorer page
//   GET  /api                      the folders served: variants, classes, seeds, a start
//   GET  /api/probe?position=P[&folder=N]
//                                  probe --json's answer for P, plus per move the position
//                                  after it; an error is {"error", "code"} with 400 (not a
//                                  position), 404 (no table) or 500
//   POST /api/probe[?folder=N]     positions one a line in the body: a JSON array of answers
//                                  (errors inline, as `probe -` answers them)
// Any other path or method: 404 (400 for an unknown method) with {"error", "code"}. Bodies above --max-body
// bytes: 413. Requests are served by a pool of --threads threads; the tables are
// thread-safe.
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "explorer_html.h"
#include "mancala/probe.h"
#include "mancala/version.h"
#include "probe_json.h"

namespace mancala::cli {

namespace {

using Json = nlohmann::ordered_json;

std::atomic<bool> g_stop{false};
extern "C" void on_stop_signal(int) { g_stop.store(true); }

struct Folder {
  std::string name;
  std::shared_ptr<Tablebase> tb;
};

struct ServeArgs {
  std::vector<std::string> dirs;
  std::string host = "127.0.0.1";
  int port = 8080, threads = 0;
  std::size_t max_body = 64 * 1024, max_lines = 1000;
  bool quiet = false;
  std::int64_t load_mib = 0;
};

int http_status(TableError::Code c) {
  switch (c) {
    case TableError::BadPosition:
    case TableError::InvalidArgument: return 400;
    case TableError::NotFound:
    case TableError::MissingTable: return 404;
    default: return 500;
  }
}

void send_json(httplib::Response& res, int status, const Json& body) {
  res.status = status;
  // Text that is not UTF-8 (only ever an error's echo of the input) becomes U+FFFD.
  res.set_content(body.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n", "application/json");
  res.set_header("Access-Control-Allow-Origin", "*");
  res.set_header("Cache-Control", "no-store");
}

void send_error(httplib::Response& res, int status, const std::string& code, const std::string& message) {
  send_json(res, status, Json{{"error", message}, {"code", code}});
}

// probe --json's answer, and per move what the explorer needs to play it: the position
// after it ("position", absent when the game ends there), whether the game is over and
// whether the mover moves again.
Json server_answer(const std::string& input, const ProbeAnswer& a, std::size_t folder) {
  Json o = answer_json(input, a);
  if (!a.result) return o;
  const Variant& v = *a.pp->variant;
  o["folder"] = folder;
  o["variant"] = v.name();
  o["kind"] = v.kind() == GameKind::Score ? "score" : "win_loss";
  o["side"] = a.pp->side == Side::South ? "S" : "N";
  o["from_children"] = a.result->from_children;
  auto& moves = o["moves"];
  for (std::size_t i = 0; i < a.result->moves.size(); ++i) {
    const Child& c = a.result->moves[i].child;
    moves[i]["game_over"] = c.game_over;
    moves[i]["same_side"] = c.same_side;
    if (!c.game_over) moves[i]["position"] = format_position(v, c.next, c.same_side ? a.pp->side : opposite(a.pp->side));
  }
  return o;
}

// A position to start the explorer at: the game's start with as many seeds a pit as the
// tables hold, or else the first position of the largest class.
std::string start_of(const Tablebase& tb, const VariantPtr& v, int max_seeds) {
  for (int per_pit = std::max(1, max_seeds / v->pits()); per_pit >= 1; --per_pit) {
    const Position p = v->start(per_pit);
    if (!v->check(p).empty() || p.seeds_in(0, v->pits()) > max_seeds) continue;
    if (tb.probe(*v, p)) return format_position(*v, p, Side::South);
  }
  const auto classes = tb.classes(v->name());
  for (auto k = classes.rbegin(); k != classes.rend(); ++k) {
    auto t = tb.table(*v, *k);
    if (!t) continue;
    auto idx = (*t)->index(*v);
    if (!idx || (*idx)->size() == 0) continue;
    const Position p = (*idx)->unrank(0);
    return format_position(*v, p, (p.flags & kFlipped) ? Side::North : Side::South);
  }
  return "";
}

Json index_json(const std::vector<Folder>& folders) {
  Json o{{"name", "mancala-tb"}, {"version", MANCALA_VERSION_STRING}, {"folders", Json::array()}};
  for (std::size_t f = 0; f < folders.size(); ++f) {
    Json jf{{"id", f}, {"dir", folders[f].name}, {"variants", Json::array()}};
    for (const std::string& name : folders[f].tb->variants()) {
      auto v = make_variant(name);
      if (!v) continue;
      const auto classes = folders[f].tb->classes(name);
      int max_seeds = 0;
      for (const auto& k : classes) max_seeds = std::max(max_seeds, k.seeds);
      jf["variants"].push_back(Json{{"variant", name},
                                    {"kind", (*v)->kind() == GameKind::Score ? "score" : "win_loss"},
                                    {"classes", classes.size()},
                                    {"max_seeds", max_seeds},
                                    {"start", start_of(*folders[f].tb, *v, max_seeds)}});
    }
    o["folders"].push_back(std::move(jf));
  }
  return o;
}

// The folder a request names (?folder=N, default 0), or an error answered.
const Folder* folder_of(const httplib::Request& req, httplib::Response& res, const std::vector<Folder>& folders) {
  std::size_t f = 0;
  if (req.has_param("folder")) {
    const std::string s = req.get_param_value("folder");
    try {
      std::size_t used = 0;
      const unsigned long n = std::stoul(s, &used);
      if (used != s.size() || n >= folders.size()) throw std::out_of_range(s);
      f = n;
    } catch (const std::exception&) {
      send_error(res, 400, "invalid_argument",
                 "folder must be between 0 and " + std::to_string(folders.size() - 1) + ", got '" + s + "'");
      return nullptr;
    }
  }
  return &folders[f];
}

int run_serve(const ServeArgs& a) {
  if (a.dirs.empty()) throw UsageError("serve needs at least one table folder DIR (see --help)");
  std::vector<Folder> folders;
  for (const std::string& d : a.dirs) {
    auto tb = Tablebase::open(d);
    if (!tb) throw std::runtime_error(tb.error().message);
    folders.push_back({d, *tb});
  }
  const std::size_t budget = static_cast<std::size_t>(a.load_mib) << 20;  // --load: one budget for every folder
  std::size_t loaded = 0;
  for (const Folder& f : folders) loaded += load_tables(*f.tb, budget - std::min(budget, loaded), "serve");
  const Json index = index_json(folders);

  httplib::Server svr;
  const unsigned threads = a.threads > 0 ? static_cast<unsigned>(a.threads) : std::max(4u, 2 * std::thread::hardware_concurrency());
  svr.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  svr.set_payload_max_length(a.max_body);
  svr.set_tcp_nodelay(true);  // headers and body are written apart: no 40 ms wait for a delayed ACK
  svr.set_read_timeout(5, 0);
  svr.set_write_timeout(5, 0);

  svr.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(kExplorerHtml, "text/html; charset=utf-8");
  });
  svr.Get("/api", [&index](const httplib::Request&, httplib::Response& res) { send_json(res, 200, index); });
  svr.Get("/api/probe", [&folders](const httplib::Request& req, httplib::Response& res) {
    const Folder* f = folder_of(req, res, folders);
    if (!f) return;
    if (!req.has_param("position")) {
      send_error(res, 400, "invalid_argument", "GET /api/probe needs ?position=VARIANT PITS SIDE [FLAGS]");
      return;
    }
    const std::string text = req.get_param_value("position");
    const ProbeAnswer ans = probe_one(*f->tb, text);
    const Json body = server_answer(text, ans, static_cast<std::size_t>(f - folders.data()));
    send_json(res, ans.result ? 200 : http_status(ans.result.error().code), body);
  });
  svr.Post("/api/probe", [&folders, &a](const httplib::Request& req, httplib::Response& res) {
    const Folder* f = folder_of(req, res, folders);
    if (!f) return;
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < req.body.size()) {
      std::size_t end = req.body.find('\n', start);
      if (end == std::string::npos) end = req.body.size();
      std::string line = req.body.substr(start, end - start);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.empty()) lines.push_back(std::move(line));
      start = end + 1;
    }
    if (lines.size() > a.max_lines) {
      send_error(res, 413, "invalid_argument",
                 "at most " + std::to_string(a.max_lines) + " positions a request, got " + std::to_string(lines.size()));
      return;
    }
    Json out = Json::array();
    for (const std::string& line : lines)
      out.push_back(server_answer(line, probe_one(*f->tb, line), static_cast<std::size_t>(f - folders.data())));
    send_json(res, 200, out);
  });
  // Every error the library answers by itself (no route: 404, bad method, too long a
  // URI or body) gets a JSON body too.
  svr.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;  // ours: already JSON
    const int s = res.status;
    const std::string code = s == 404 ? "not_found" : s == 413 ? "too_large" : s == 414 ? "uri_too_long" : "bad_request";
    std::string message = s == 413   ? "request body too large (see serve --max-body)"
                          : s == 414 ? "request URI too long"
                                     : "bad request (" + std::to_string(s) + ")";
    if (s == 404) message = "no such path: " + req.method + " " + req.path + " (GET /, /api, /api/probe?position=...; POST /api/probe)";
    send_error(res, s, code, message);
    return httplib::Server::HandlerResponse::Handled;
  }));
  svr.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown error";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    send_error(res, 500, "internal", what);
  });

  const int port = a.port == 0 ? svr.bind_to_any_port(a.host) : (svr.bind_to_port(a.host, a.port) ? a.port : -1);
  if (port < 0) throw std::runtime_error("cannot listen on " + a.host + ":" + std::to_string(a.port) + " (in use?)");
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  std::thread watcher([&svr] {
    while (!g_stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    svr.stop();
  });
  // The one line on stdout: a script reads the port from it (--port 0).
  std::printf("listening on http://%s:%d/ (%zu folder%s, %u threads; Ctrl-C stops)\n", a.host.c_str(), port,
              folders.size(), folders.size() == 1 ? "" : "s", threads);
  std::fflush(stdout);
  const bool ok = svr.listen_after_bind();
  g_stop.store(true);
  watcher.join();
  if (!ok) throw std::runtime_error("the server stopped on an error");
  if (!a.quiet) std::fprintf(stderr, "mancala-tb serve: stopped\n");
  return 0;
}

}  // namespace

void add_serve_command(CLI::App& root, std::vector<Command>& out) {
  auto st = std::make_shared<ServeArgs>();
  CLI::App* c = add_command(
      root, "serve", "the tables over HTTP: a JSON API and an explorer page",
      {"mancala-tb serve DIR... [--port N] [--host ADDR] [--threads T] [--load MIB]",
       "Serves the tables of each DIR over HTTP until Ctrl-C (or SIGTERM): the explorer page\n"
       "at / (the board, every move's value on its pit, click a move to play it, back and\n"
       "forward, a permalink per position) and a JSON API:\n"
       "  GET  /api                          the folders, their variants and a start position\n"
       "  GET  /api/probe?position=P&folder=N  probe --json's answer for P, each move with the\n"
       "                                     position after it; errors {\"error\",\"code\"} with\n"
       "                                     status 400 (not a position) or 404 (no table)\n"
       "  POST /api/probe?folder=N           positions one a line: a JSON array of answers\n"
       "Prints one line, \"listening on http://HOST:PORT/ ...\", when it is ready.",
       {},
       "Example: mancala-tb generate kalah:4:empty --max-seeds 12 --out tb/, then\n"
       "mancala-tb serve tb/ --port 8080 and open http://127.0.0.1:8080/ in a browser, or\n"
       "curl 'http://127.0.0.1:8080/api/probe?position=kalah:4:empty%201,0,3,0/2,1,0,4%20S'.\n"
       "docs/serve.md has the API in full."});
  c->add_option("DIR", st->dirs, "table folders made by `mancala-tb generate` (folder=0, 1, ... in the API)");
  c->add_option("--port", st->port, "TCP port, 0..65535 (default 8080; 0: any free port, printed)")
      ->check(CLI::Range(0, 65535));
  c->add_option("--host", st->host, "address to listen on (default 127.0.0.1; 0.0.0.0: every interface)");
  c->add_option("--threads", st->threads, "threads answering requests, 0..1024 (default 0: twice the cores, at least 4)")
      ->check(CLI::Range(0, 1024));
  c->add_option("--max-body", st->max_body, "largest request body in bytes, 1..16777216 (default 65536; larger: 413)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{16} << 20));
  c->add_option("--max-positions", st->max_lines, "most positions in one POST, 1..100000 (default 1000)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  c->add_option("--load", st->load_mib,
                "MiB: load the tables into memory first, smallest classes first, up to MiB in all "
                "(one byte a value; default 0: read in place)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 30));
  c->add_flag("--quiet,-q", st->quiet, "no message on stderr when stopped");
  out.push_back({c, [st] { return run_serve(*st); }});
}

}  // namespace mancala::cli
