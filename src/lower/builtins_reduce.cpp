// Reduction and scan builtins (filled in with the reduce/scan ops).
#include "lower/builtin_registry.h"
#include "lower/lowerer.h"
#include "support/diagnostics.h"

namespace tritium::lower {

void register_reduce_builtins(BuiltinTable&) {}

}  // namespace tritium::lower
