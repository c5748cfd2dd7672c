#pragma once

#include "cli.h"

namespace mancala::cli {
int cmd_variants(Args&);
int cmd_moves(Args&);
int cmd_perft(Args&);
int cmd_count(Args&);
int cmd_bench(Args&);
int cmd_generate(Args&);
int cmd_probe(Args&);
int cmd_verify(Args&);
int cmd_info(Args&);
int cmd_solve(Args&);
int cmd_play(Args&);
int cmd_picture(Args&);
}  // namespace mancala::cli
