// mancala-tb: one program, sub-commands (CLI11). Errors become one line on stderr and
// a non-zero exit; the libraries below never print.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli.h"
#include "commands.h"
#include "mancala/version.h"

namespace {

using namespace mancala::cli;

const HelpPage kRootPage{
    "mancala-tb COMMAND [ARGS...]   (mancala-tb COMMAND --help for details)",
    "mancala-tb " MANCALA_VERSION_STRING " - exhaustive solver and endgame tablebases for mancala games\n\n"
    "Positions are written  VARIANT PITS SIDE [FLAGS], pits in circuit order from South's\n"
    "left, '/' between the halves; every command takes a position as one quoted argument\n"
    "or as separate words.",
    {"mancala-tb generate oware --max-seeds 8 --out tb/",
     "mancala-tb probe tb/ \"oware 1,0,0,2,0,0/0,1,0,0,1,0 S\"",
     "mancala-tb probe tb/ oware 0,0,1,0,0,2/1,0,0,0,1,0 S",
     "mancala-tb verify tb/"},
    "--version prints the version. The tables are read from C, C++ and Python too: see\n"
    "the README (libmancala_probe, find_package(mancala), the mancala_tb module)."};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("", "mancala-tb");
  app.set_help_flag("-h,--help", "this help");
  app.set_version_flag("--version", std::string("mancala-tb ") + MANCALA_VERSION_STRING, "the version");
  app.require_subcommand(0, 1);
  set_root_help(app, kRootPage);
  std::vector<Command> commands;
  add_rules_commands(app, commands);
  add_table_commands(app, commands);
  add_solve_command(app, commands);
  add_play_command(app, commands);
  add_picture_command(app, commands);
  add_serve_command(app, commands);

  const std::string first = argc > 1 ? argv[1] : "";
  if (argc < 2 || first == "help") {
    std::fputs(app.help().c_str(), stdout);
    return argc < 2 ? 2 : 0;
  }
  const auto subs = app.get_subcommands({});
  const bool known = std::any_of(subs.begin(), subs.end(), [&](const CLI::App* s) { return s->get_name() == first; });
  if (first[0] != '-' && !known) {
    std::vector<std::string> names;
    for (const CLI::App* s : subs) names.push_back(s->get_name());
    std::fprintf(stderr, "mancala-tb: unknown command '%s'%s (see mancala-tb --help)\n", first.c_str(),
                 did_you_mean(first, names).c_str());
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const auto parsed = app.get_subcommands();
    std::fprintf(stderr, "mancala-tb%s%s: %s%s (see --help)\n", parsed.empty() ? "" : " ",
                 parsed.empty() ? "" : parsed[0]->get_name().c_str(), e.what(),
                 option_hint(parsed.empty() ? app : *parsed[0]).c_str());
    return 2;
  }
  for (const Command& c : commands) {
    if (!c.app->parsed()) continue;
    const std::string name = c.app->get_name();
    try {
      return c.run();
    } catch (const UsageError& e) {
      std::fprintf(stderr, "mancala-tb %s: %s\n", name.c_str(), e.what());
      return 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "mancala-tb %s: error: %s\n", name.c_str(), e.what());
      return 1;
    }
  }
  std::fputs(app.help().c_str(), stdout);
  return 2;
}
