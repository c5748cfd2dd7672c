// The sub-commands of mancala-tb. Each add_* registers its CLI11 sub-command (options
// bound to its own state) on `root` and appends the function that runs it.
#pragma once

#include <vector>

#include "cli.h"

namespace mancala::cli {
void add_rules_commands(CLI::App& root, std::vector<Command>& out);   // variants moves perft count bench
void add_table_commands(CLI::App& root, std::vector<Command>& out);   // generate probe verify info
void add_solve_command(CLI::App& root, std::vector<Command>& out);    // solve
void add_play_command(CLI::App& root, std::vector<Command>& out);     // play
void add_picture_command(CLI::App& root, std::vector<Command>& out);  // picture
void add_serve_command(CLI::App& root, std::vector<Command>& out);    // serve (cmd_serve.cpp)
}  // namespace mancala::cli
