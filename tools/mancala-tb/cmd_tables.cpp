// generate, probe, verify, info (issue 3).
#include "commands.h"
namespace mancala::cli {
int cmd_generate(Args&) { throw UsageError("not implemented yet"); }
int cmd_probe(Args&) { throw UsageError("not implemented yet"); }
int cmd_verify(Args&) { throw UsageError("not implemented yet"); }
int cmd_info(Args&) { throw UsageError("not implemented yet"); }
}  // namespace mancala::cli
