// mancala-tb: one program, sub-commands. Errors become one line on stderr and a
// non-zero exit; the libraries below never print.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "cli.h"
#include "commands.h"
#include "mancala/version.h"

namespace {

struct Command {
  const char* name;
  const char* summary;
  int (*run)(mancala::cli::Args&);
};

const Command kCommands[] = {
    {"variants", "list the variants and their parameters", mancala::cli::cmd_variants},
    {"moves", "list the legal turns of a position with the position after each", mancala::cli::cmd_moves},
    {"perft", "count move sequences to a depth (golden numbers)", mancala::cli::cmd_perft},
    {"count", "positions per class up to a number of seeds in play", mancala::cli::cmd_count},
    {"generate", "build tables up to a number of seeds in play (resumable)", mancala::cli::cmd_generate},
    {"probe", "value and ranked moves of positions from the tables", mancala::cli::cmd_probe},
    {"verify", "re-derive every value of a table set from its children; check checksums", mancala::cli::cmd_verify},
    {"info", "what tables a folder holds", mancala::cli::cmd_info},
    {"solve", "perfect-play value of a position by search over the tables", mancala::cli::cmd_solve},
    {"play", "play a whole game or Cenne match with the rules engine", mancala::cli::cmd_play},
    {"picture", "an SVG of a position with every move's value from the tables", mancala::cli::cmd_picture},
    {"bench", "turn generation speed per variant", mancala::cli::cmd_bench},
};

void usage() {
  std::printf(
      "mancala-tb - exhaustive solver and endgame tablebases for mancala games\n\n"
      "usage: mancala-tb COMMAND [ARGS...]   (mancala-tb COMMAND --help for details)\n\n"
      "commands:\n");
  for (const auto& c : kCommands) std::printf("  %-10s %s\n", c.name, c.summary);
  std::printf(
      "\npositions are written  VARIANT PITS SIDE [FLAGS], pits in circuit order from South's\n"
      "left, '/' between the halves, e.g.\n"
      "  mancala-tb probe tb/ \"oware 0,0,1,0,0,2/1,0,0,0,1,0 S\"\n\n"
      "a first session:\n"
      "  mancala-tb generate oware --max-seeds 8 --out tb/\n"
      "  mancala-tb probe tb/ \"oware 1,0,0,0,0,2/2,2,0,3,1,2 S\"\n"
      "  mancala-tb verify tb/\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    usage();
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::printf("mancala-tb %s\n", MANCALA_VERSION_STRING);
    return 0;
  }
  for (const auto& c : kCommands) {
    if (std::strcmp(argv[1], c.name) != 0) continue;
    mancala::cli::Args args(std::vector<std::string>(argv + 2, argv + argc));
    try {
      return c.run(args);
    } catch (const mancala::cli::UsageError& e) {
      std::fprintf(stderr, "mancala-tb %s: %s\n", c.name, e.what());
      return 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "mancala-tb %s: error: %s\n", c.name, e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "mancala-tb: unknown command '%s' (see mancala-tb --help)\n", argv[1]);
  return 2;
}
