// What code generation must know about threads before it emits anything: which ops may
// run a CTA barrier, and which scalars may differ between the threads of a program.
#pragma once

#include <unordered_set>

#include "ir/ir.h"

namespace tritium::nvptx {

// Scalars are uniform by design (every thread computes the same value), with one
// exception: a scalar load runs in every thread, and memory that another program writes
// at the same time may give different threads different values. Such a value is harmless
// until it decides control flow around a barrier (bar.sync must be reached by all threads
// or none), so code generation makes exactly those decisions uniform.
struct ThreadFacts {
  std::unordered_set<const ir::Op*> syncs;             // ops that may execute bar.sync
  std::unordered_set<const ir::Value*> may_diverge;    // scalars that may differ between threads
  std::unordered_set<const ir::Value*> used;           // values some op reads

  bool has_sync(const ir::Op& op) const { return syncs.count(&op) != 0; }
  bool diverges(const ir::Value* v) const { return may_diverge.count(v) != 0; }
  bool is_used(const ir::Value* v) const { return used.count(v) != 0; }
};

ThreadFacts analyze_threads(const ir::Function& function);

// Whether an op itself (not counting its regions) goes through shared memory with a
// barrier, read from the GPU passes' attributes (gpu/insert_barriers.h: buffers, a barrier
// before it) plus the round trips they do not plan yet (a dot's staging, a scalar atomic's
// broadcast); code generation must never emit bar.sync for an op this calls false. Run on
// the kernel after the GPU passes.
bool op_syncs(const ir::Op& op, const ThreadFacts& facts);

}  // namespace tritium::nvptx
