// play (Cenne matches of several rounds, issue 4).
#include "commands.h"
namespace mancala::cli {
int cmd_play(Args&) { throw UsageError("not implemented yet"); }
}  // namespace mancala::cli
