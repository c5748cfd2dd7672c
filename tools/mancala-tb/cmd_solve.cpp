// solve (issue 6).
#include "commands.h"
namespace mancala::cli {
int cmd_solve(Args&) { throw UsageError("not implemented yet"); }
}  // namespace mancala::cli
