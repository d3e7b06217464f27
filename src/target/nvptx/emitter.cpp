// The walk of the tile IR that emits the kernel's LLVM IR: values and their registers,
// types, thread indices, ownership predicates, guarded code and shared-memory round trips.
// The op families live in emit_arith/emit_shape/emit_memory/emit_control.cpp.
#include "target/nvptx/emitter.h"
#include "target/nvptx/late_passes.h"

#include <algorithm>

#include <llvm/IR/Constants.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/MDBuilder.h>

#include "gpu/insert_barriers.h"
#include "gpu/scratch.h"
#include "gpu/split_k_cluster.h"
#include "support/diagnostics.h"

namespace tritium::nvptx {

using ir::OpKind;
using ir::ScalarKind;

namespace {
// Shared memory is the module's one dynamic `.extern .shared` array: the dot's stage
// buffers first while they are live, then the scratch area, where allocate_shared placed
// each op's buffers (round trips it does not plan start at the scratch area's beginning).
constexpr const char* kSharedName = "__tritium_shared";
}  // namespace

const std::vector<Emitter::Experiment>& Emitter::experiments() {
  // No flag: another stage of codegen.cpp reads the name (experiment_named) before emission.
  static const std::vector<Experiment> table = {
      {"chain", &Emitter::reduce_chain_},
      {"scanup", &Emitter::scan_shfl_up_},
      {"iv32", &Emitter::loop_iv32_},
      {"fence", &Emitter::cp_async_fence_},
      {"stmatrix", &Emitter::stmatrix_},
      {"stsmstage", &Emitter::stsm_stage_},
      {"paircvt", &Emitter::pair_cvt_},
      {"pairpad", &Emitter::pair_pad_},
      {"reload", &Emitter::reload_lines_},
      {"hoista", &Emitter::hoist_a_fragments_},
      {"ldmtrans", &Emitter::ldmatrix_trans_reads_},
      {"ldmread", &Emitter::ldmatrix_reads_},
      {"dealsplit", &Emitter::deal_split_},
      {"copybase", &Emitter::copy_base_},
      {"shiftwrap", &Emitter::shift_wrap_},
      {"flatbase", &Emitter::flat_base_},
      {"rowbound", &Emitter::row_bound_},
      {"rowboundrc", &Emitter::row_bound_recomputed_},
      {"rowboundew", &Emitter::row_bound_elementwise_},
      {"pairmask", &Emitter::pair_mask_},
      {"narrowcopy", &Emitter::narrow_invariant_copies_},
      {"earlyinv", &Emitter::early_invariant_copies_},
      {"accloadlate", &Emitter::late_fragment_loads_},
      {"lazybar", &Emitter::lazy_trailing_},
      {"lazycopy", &Emitter::lazy_copies_},
      {"dotchain", &Emitter::chain_dot_waits_},
      {"keepb", &Emitter::keep_b_widely_},
      {"deftile", &Emitter::stage_at_def_},
      {"lineslot", &Emitter::line_slot_},  // also coalesce's lines_in_slot (gpu_passes)
      // plan_fragments (codegen.cpp's fragment_plan): read-back operands at fragments, A chains,
      // reloaded lines, the trans of fragments as a wgmma A, full reductions of fragments
      {"fragread", nullptr},
      {"achain", nullptr},
      {"achainmma", nullptr},
      {"reloadguard", nullptr},
      {"transafrag", nullptr},
      {"stsmtrans", nullptr},  // also plan_async_copies' hoisted A (HoistedOperand::m_major)
      {"fragreduce", nullptr},
      {"earlyline", nullptr},
      {"accfrag", nullptr},
      {"accload", nullptr},
      {"lsr", nullptr},  // optimize's LoopStrengthReduce gate
      // plan_async_copies and prefetch_operands: read-backs, their budgets, lines copied
      {"rbmerge", nullptr},
      {"rbfit", nullptr},
      {"axis0copy", nullptr},
      {"axis0flat", nullptr},
      {"linecopy", nullptr},
      // gpu_passes: inline_one_trip_loops and its combine_dot_add, rebase_pointers, sink_casts
      {"onetrip", nullptr},
      {"refold", nullptr},
      {"rebaseload", nullptr},
      {"scalarbase", nullptr},
      {"ksplit", nullptr},
      {"ksplitwhole", &Emitter::fused_handover_},  // cluster_sum's reads not in chunks
      {"sinkcasts", nullptr},
      {"recurstages", nullptr},  // prefetch_loads' stage budget of a recurrence
      // late_passes.h, after O3
      {"hoistfadd", nullptr},
      {"elidebar", nullptr},
      {"fencerot", nullptr},
      {"fencesink", nullptr},
  };
  return table;
}

Emitter::Emitter(const ir::Function& function, const TargetOptions& options, llvm::Function* kernel,
                 FragmentPlan fragments, AsyncPlan copies)
    : function_(function),
      kernel_(kernel),
      module_(*kernel->getParent()),
      context_(kernel->getContext()),
      b_(kernel->getContext()),
      threads_(32 * options.num_warps),
      facts_(analyze_threads(function)),
      widths_(choose_vector_widths(function, threads_, options.vectorize)),
      frags_(std::move(fragments)),
      async_(std::move(copies)),
      sm_(options.sm),
      ptx_version_(ptx_version_for(options)),
      num_ctas_(options.num_ctas),
      split_k_(gpu::has_split_k(function)),
      wgmma_(any_wgmma(function, frags_, options.sm, options.num_warps)) {
  // TRITIUM_REDUCE_EXPERIMENT: comma-separated names ("0": the knob unset), each "name" (on)
  // or "noname" (off); codegen.h lists what each does.
  std::string names = options.reduce_experiment == "0" ? std::string() : options.reduce_experiment;
  for (size_t at = 0; at <= names.size();) {
    size_t end = names.find(',', at);
    if (end == std::string::npos) end = names.size();
    std::string name = names.substr(at, end - at);
    at = end + 1;
    if (name.empty()) continue;
    const bool on = name.rfind("no", 0) != 0;
    const std::string base = on ? name : name.substr(2);
    const auto& table = experiments();
    auto known = std::find_if(table.begin(), table.end(), [&](const Experiment& e) { return base == e.name; });
    if (known == table.end()) {
      std::string list;
      for (const Experiment& e : table) list += std::string(list.empty() ? "" : ", ") + e.name + ", no" + e.name;
      error_at(Loc{}, "TRITIUM_REDUCE_EXPERIMENT: unknown name '" + name + "' (known: " + list + ")");
    }
    if (known->flag) this->*(known->flag) = on;
  }
  mark_fragment_barriers(function.body());
}

bool Emitter::mark_fragment_barriers(const ir::Region& region) {
  // Any op that defines or reads a fragment may go through shared memory (a conversion).
  bool any = false;
  for (const auto& op : region.ops()) {
    bool here = false;
    for (const auto& inner : op->regions()) here = mark_fragment_barriers(*inner) || here;
    for (const auto& r : op->results()) here = here || frags_.layout(r.get()) != nullptr;
    for (const ir::Value* v : op->operands()) here = here || frags_.layout(v) != nullptr;
    for (const auto& r : op->results()) here = here || frags_.invariant_copy(r.get()) != nullptr;
    for (const auto& inner : op->regions()) {
      for (const auto& arg : inner->args()) here = here || frags_.layout(arg.get()) != nullptr;
    }
    if (here && !op->regions().empty()) fragment_barriers_.insert(op.get());
    any = any || here;
  }
  return any;
}

int64_t Emitter::emit() {
  llvm::BasicBlock* entry = llvm::BasicBlock::Create(context_, "entry", kernel_);
  b_.SetInsertPoint(entry);
  if (num_ctas_ > 1 && !split_k_) {
    // num_ctas > 1: each program is a cluster, and its first CTA does the program's work
    // (tiles are not split across CTAs), so the results equal num_ctas=1's. A K loop split
    // over the cluster (gpu/split_k_cluster.h) has both CTAs work up to its exchange.
    llvm::Value* rank = b_.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_cluster_ctarank,
                                           llvm::ArrayRef<llvm::Value*>());
    auto* work = llvm::BasicBlock::Create(context_, "cluster.leader", kernel_);
    auto* idle = llvm::BasicBlock::Create(context_, "cluster.idle", kernel_);
    b_.CreateCondBr(b_.CreateICmpEQ(rank, b_.getInt32(0)), work, idle);
    b_.SetInsertPoint(idle);
    b_.CreateRetVoid();
    b_.SetInsertPoint(work);
  }
  thread_id();
  // Entry arguments are the LLVM arguments, in order; an i1 travels as an i32 (codegen.cpp).
  const auto& args = function_.body().args();
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::Value* arg = kernel_->getArg(static_cast<unsigned>(i));
    if (args[i]->type()->is_bool()) arg = b_.CreateICmpNE(arg, b_.getInt32(0), "arg.bool");
    set(args[i].get(), Regs::one(arg));
  }
  {
    // Operand tiles may add shared memory up to what keeps as many blocks on an SM as the
    // kernel's own needs allow (each block also takes 1 KiB of the SM's for the system).
    const int64_t base = std::max(async_.reserved_bytes, shared_lower_bound(function_.body(), 0));
    const int64_t per_sm = max_shared_optin(sm_) + 1024;
    int64_t blocks = per_sm / (base + 1024);
    if (stage_at_def_ && blocks > 1) {
      // Registers may allow fewer blocks than shared memory: the tiles may then take theirs.
      // The fragments' registers, and 32 for what lives around them (pointers, indices,
      // masks, the wgmma descriptors).
      const int64_t fragments = live_fragment_registers(function_.body());
      const int64_t regs = std::min<int64_t>(255, (fragments + 32 + 7) / 8 * 8);
      if (fragments > 0) blocks = std::max<int64_t>(1, std::min(blocks, 65536 / (regs * threads_)));
    }
    tile_budget_ = blocks < 1 ? base : std::min(max_shared_optin(sm_), per_sm / blocks - 1024);
  }
  emit_region(function_.body());
  if (b_.GetInsertBlock()->getTerminator() == nullptr) b_.CreateRetVoid();
  return std::max(shared_bytes_, async_.reserved_bytes);
}

void Emitter::emit_region(const ir::Region& region) {
  // What may be pending where the region starts: a while loop's back edge brings what its
  // body leaves (a `for` body starts with nothing pending: emit_for meets it before the loop
  // and at the body's end); an else starts from where the if began (the then branch ran
  // elsewhere).
  if (const ir::Op* parent = region.parent()) {
    if (parent->kind() == OpKind::While) dirty_ = dirty_ || holds_scratch(*parent);
    if (parent->kind() == OpKind::If && &region == parent->region(1)) dirty_ = entry_dirty_[parent];
  }
  const ir::Region* outer = emitting_region_;
  emitting_region_ = &region;
  for (const ir::Op* op : emission_order(region)) emit_op(*op);
  release_operand_tiles(region, true);
  emitting_region_ = outer;
}

std::vector<const ir::Op*> Emitter::emission_order(const ir::Region& region) const {
  std::vector<const ir::Op*> order;
  order.reserve(region.ops().size());
  for (const auto& op : region.ops()) order.push_back(op.get());
  if (!early_invariant_copies_) return order;
  // The first copy into the stage buffers before a pipelined loop (its prologue's stage j).
  auto prologue_copy = [&](const ir::Op* op) {
    return op->kind() == OpKind::Load && op->num_results() == 1 && async_.stage.count(op->result()) != 0 &&
           async_.stage.at(op->result()) >= 0;
  };
  size_t first = order.size();
  for (size_t i = 0; i < order.size() && first == order.size(); ++i) {
    if (prologue_copy(order[i])) first = i;
  }
  if (first == order.size()) return order;
  // An elementwise op after it whose block a loop reads in fragments (FragmentPlan::
  // invariant_copy), all of whose operands are defined before it: made just before that
  // copy, so its fragment copy's round trip (flat_to_fragment: a barrier after its reads)
  // takes bytes of stage buffers not yet written rather than its own after them.
  std::unordered_set<const ir::Op*> before(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(first));
  std::vector<const ir::Op*> moved;
  std::vector<const ir::Op*> rest;
  for (size_t i = first; i < order.size(); ++i) {
    const ir::Op* op = order[i];
    bool invariant = false;
    // Nothing else hangs on where it is: no lines reloaded after it (their chains may need
    // ops not yet made), no broadcast of it reloaded, no dot reading it (a tile staged at
    // its definition would be placed among the stage buffers).
    bool alone = frags_.lines_reloaded_after(op).empty();
    for (const auto& r : op->results()) {
      invariant = invariant || frags_.invariant_copy(r.get()) != nullptr;
      alone = alone && frags_.reloaded_broadcasts(r.get()).empty();
      for (const ir::Op* user : r->users()) alone = alone && user->kind() != OpKind::Dot;
    }
    bool movable = invariant && alone && op->regions().empty() && ir::has_trait(op->kind(), ir::kElementwise) &&
                   !has_scratch(*op) && !gpu::barrier_before(*op);
    for (const ir::Value* v : op->operands()) {
      const ir::Op* def = v->def();
      movable = movable && (def == nullptr || def->parent() != &region || before.count(def) != 0);
    }
    (movable ? moved : rest).push_back(op);
  }
  if (moved.empty()) return order;
  order.resize(first);
  order.insert(order.end(), moved.begin(), moved.end());
  order.insert(order.end(), rest.begin(), rest.end());
  return order;
}

void Emitter::emit_op(const ir::Op& op) {
  // A round trip's ending barrier left pending (end_round_trip): made now unless the op
  // writes no shared memory.
  const bool store = op.kind() == OpKind::Store && writes_no_shared(op);
  if (trailing_ && !writes_no_shared(op)) barrier();
  if (op.parent() != nullptr) release_operand_tiles(*op.parent(), false);
  // The flat copies of fragment values first needed here (set_fragment); those a store of
  // the kernel's top-level region needs may leave their ending barrier pending.
  if (auto it = flat_copies_at_.find(&op); it != flat_copies_at_.end()) {
    lazy_round_trips_ = lazy_trailing_ && store && op.parent() != nullptr && op.parent()->parent() == nullptr;
    for (const ir::Value* v : it->second) {
      if (values_.count(v) == 0) set(v, flat_copy(v, *frags_.layout(v), fragments_.at(v), &op));
    }
    lazy_round_trips_ = false;
    flat_copies_at_.erase(it);
  }
  // The barrier insert_barriers decided (uniformity.h counts it among the op's syncs).
  if (gpu::barrier_before(op)) barrier();
  const bool control = op.kind() == OpKind::If || op.kind() == OpKind::For || op.kind() == OpKind::While;
  const bool entry = dirty_;
  if (control) entry_dirty_[&op] = dirty_;
  // The first copy into the stage buffers (async_copy.h) writes memory that planned round
  // trips before the pipelined loop used, and the operand tiles whose last reader came
  // before it (an earlier dot's, done but not freed: its wait is this warpgroup's, other
  // warps' wgmmas may still read them).
  if (op.kind() == OpKind::Load && live_stage_ends_.empty() && live_hoisted_ends_.empty()) {
    auto stage = async_.stage.find(op.result());
    if (stage != async_.stage.end() && stage->second == 0) sync_past_operand_tiles();
  }
  if (op.kind() == OpKind::For && !late_fragment_loads_pending_.empty()) {
    for (const ir::Op* load : late_fragment_loads_pending_) set_fragment(load->result(), load_fragment(*load, *frags_.layout(load->result())));
    late_fragment_loads_pending_.clear();
  }
  read_back_before(op);
  // A dot's wait left to this op, which does not take it over: waited for here.
  if (!unwaited_.empty() && &op != unwaited_taker_) wait_unwaited_dot();
  dispatch(op);
  // A planned op leaves its last reads pending; after a branch or loop, whatever its
  // regions may have left, or what was pending before (no iteration, or a branch without).
  if (has_scratch(op)) dirty_ = true;
  if (control) dirty_ = entry || holds_scratch(op);
  if (stage_at_def_ && !control) stage_at_definition(op);
  // The fragment copies of blocks that loops read in fragments (FragmentPlan::invariant_copy),
  // made once here rather than in every iteration.
  for (const auto& result : op.results()) {
    if (const FragmentLayout* l = frags_.invariant_copy(result.get())) {
      invariant_fragments_[result.get()] = invariant_fragment_copy(op, *l);
    }
    // The lines that broadcasts read at their fragments (FragmentPlan::reloaded_broadcasts),
    // loaded there now, once, before any loop that holds a broadcast, unless loaded earlier
    // (FragmentPlan::reloaded_early).
    if (frags_.reloaded_early(result.get()) == nullptr) reload_broadcasts(result.get());
  }
  // The lines reloaded right after this op, before their definitions.
  for (const ir::Value* line : frags_.lines_reloaded_after(&op)) reload_broadcasts(line);
}

void Emitter::reload_broadcasts(const ir::Value* line) {
  // One set of registers per layout and pairing.
  const std::vector<const ir::Op*>& broadcasts = frags_.reloaded_broadcasts(line);
  for (size_t i = 0; i < broadcasts.size() && reload_lines_; ++i) {
    const ir::Op& b = *broadcasts[i];
    const FragmentLayout& l = *frags_.layout(b.result());
    auto same = std::find_if(broadcasts.begin(), broadcasts.begin() + static_cast<std::ptrdiff_t>(i), [&](const ir::Op* o) {
      return *frags_.layout(o->result()) == l && frags_.paired_loads(*o) == frags_.paired_loads(b);
    });
    const bool done = same != broadcasts.begin() + static_cast<std::ptrdiff_t>(i);
    reloaded_lines_[&b] = done ? reloaded_lines_.at(*same) : reload_line(b, l);
  }
}

void Emitter::dispatch(const ir::Op& op) {
  if (ir::has_trait(op.kind(), ir::kElementwise)) return emit_elementwise(op);
  switch (op.kind()) {
    case OpKind::Constant: return emit_constant(op);
    case OpKind::ProgramId:
    case OpKind::NumPrograms: return emit_program_id(op);
    case OpKind::MakeRange: return emit_make_range(op);
    case OpKind::Splat: return emit_splat(op);
    case OpKind::Broadcast: return emit_broadcast(op);
    case OpKind::ExpandDims:
    case OpKind::DescriptorTile:  // the pointers as they are (a TMA copy reads its operands)
    case OpKind::Reshape: return emit_view(op);
    case OpKind::Load: return emit_load(op);
    case OpKind::Store: return emit_store(op);
    case OpKind::AtomicRMW:
    case OpKind::AtomicCAS: return emit_atomic(op);
    case OpKind::For: return emit_for(op);
    case OpKind::If: return emit_if(op);
    case OpKind::While: return emit_while(op);
    case OpKind::Yield:
    case OpKind::Condition:
      return;  // read by the op that owns the region
    case OpKind::Return:
      b_.CreateRetVoid();
      return;
    case OpKind::ConvertLayout: return emit_convert_layout(op);
    case OpKind::Trans: case OpKind::Flip: case OpKind::Join: case OpKind::Split: case OpKind::Cat: return emit_move(op);
    case OpKind::Histogram: return emit_histogram(op);
    case OpKind::Smid:
      return set(op.result(), Regs::one(b_.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_smid, llvm::ArrayRef<llvm::Value*>())));
    case OpKind::GlobalTimer: {
      // An asm with a side effect: each call reads the timer anew (LLVM's intrinsic may be
      // merged or hoisted as a pure read).
      llvm::FunctionType* type = llvm::FunctionType::get(b_.getInt64Ty(), false);
      llvm::InlineAsm* read = llvm::InlineAsm::get(type, "mov.u64 $0, %globaltimer;", "=l", /*hasSideEffects=*/true);
      return set(op.result(), Regs::one(b_.CreateCall(type, read)));
    }
    case OpKind::Gather: return emit_gather(op);
    case OpKind::Dot: return emit_dot(op);
    case OpKind::Reduce: return emit_reduce(op);
    case OpKind::Scan: return emit_scan(op);
    case OpKind::MapElementwise: return emit_map_elementwise(op);
    case OpKind::Print: return emit_print(op);
    case OpKind::Assert: return emit_assert(op);
    case OpKind::DebugBarrier: return barrier(/*elidable=*/false);
    case OpKind::Assume: b_.CreateAssumption(get(op.operand(0)).at(0)); return;
    case OpKind::GdcWait: return grid_dep_control("griddepcontrol.wait;");
    case OpKind::GdcLaunchDependents: return grid_dep_control("griddepcontrol.launch_dependents;");
    default: break;  // the elementwise ops, emitted above
  }
  error_at(op.loc(), std::string("the GPU code generator does not support '") + op.name() + "' yet");
}

const Regs& Emitter::get(const ir::Value* value) const {
  auto it = values_.find(value);
  if (it == values_.end()) internal_error("nvptx", "a value is used before it was emitted");
  return it->second;
}

void Emitter::set(const ir::Value* value, Regs regs) { values_[value] = std::move(regs); }

// ---- types ----

llvm::Type* Emitter::scalar_type(ScalarKind kind) const { return llvm_scalar_type(context_, kind); }

llvm::Type* Emitter::element_type(const ir::Type* type) const {
  const ir::Type* e = type->element();
  if (e->is_pointer()) return llvm::PointerType::get(context_, 1);  // global memory
  return scalar_type(e->scalar_kind());
}

llvm::Type* Emitter::memory_type(const ir::Type* pointee) const {
  return pointee->scalar_kind() == ScalarKind::I1 ? llvm::Type::getInt8Ty(context_) : scalar_type(pointee->scalar_kind());
}

Layout Emitter::layout_of(const ir::Type* type) const {
  int64_t n = type->num_elements();
  return Layout(n, threads_, widths_.vector(n));
}

llvm::Value* Emitter::int_const(llvm::Type* type, int64_t v) const {
  return llvm::ConstantInt::get(llvm::cast<llvm::IntegerType>(type), static_cast<uint64_t>(v));
}

// ---- threads and ownership ----

llvm::Value* Emitter::thread_id() {
  if (thread_id_ == nullptr) {
    llvm::CallInst* tid = b_.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, llvm::ArrayRef<llvm::Value*>(), nullptr, "tid");
    // The range lets LLVM fold ownership tests that hold for every thread.
    llvm::MDBuilder md(context_);
    tid->setMetadata(llvm::LLVMContext::MD_range,
                     md.createRange(llvm::APInt(32, 0), llvm::APInt(32, static_cast<uint64_t>(threads_))));
    thread_id_ = tid;
  }
  return thread_id_;
}

llvm::Value* Emitter::element_index(const Layout& layout, int reg) {
  llvm::Value* t = thread_id();
  if (layout.thread_stride() != 1) t = b_.CreateMul(t, b_.getInt32(layout.thread_stride()), "", true, true);
  int64_t base = layout.reg_base(reg);
  if (base == 0) return t;
  return b_.CreateAdd(t, b_.getInt32(static_cast<uint32_t>(base)), "e", true, true);
}

llvm::Value* Emitter::owns(const Layout& layout, int reg) {
  // The largest element any thread holds in this register decides whether to test at all.
  int64_t last = layout.element(layout.threads() - 1, reg);
  if (last < layout.num_elements()) return nullptr;
  return b_.CreateICmpULT(element_index(layout, reg), b_.getInt32(static_cast<uint32_t>(layout.num_elements())),
                          "owned");
}

llvm::Value* Emitter::and_pred(llvm::Value* a, llvm::Value* b) {
  if (a == nullptr) return b;
  if (b == nullptr) return a;
  return b_.CreateAnd(a, b);
}

Regs Emitter::materialize(const Regs& regs, const ir::Type* type) const {
  if (!type->is_block() || !regs.uniform) return regs;
  Regs out;
  out.values.assign(layout_of(type).num_regs(), regs.values[0]);
  return out;
}

Regs Emitter::map_elements(const ir::Type* result, const std::vector<const Regs*>& inputs, const ElementFn& fn) {
  std::vector<llvm::Value*> args(inputs.size());
  bool once = !result->is_block();
  if (!once) {
    once = true;
    for (const Regs* in : inputs) once = once && in->uniform;
  }
  if (once) {
    for (size_t i = 0; i < inputs.size(); ++i) args[i] = inputs[i]->at(0);
    return Regs::one(fn(args), result->is_block());
  }
  Regs out;
  int n = layout_of(result).num_regs();
  for (int r = 0; r < n; ++r) {
    for (size_t i = 0; i < inputs.size(); ++i) args[i] = inputs[i]->at(r);
    out.values.push_back(fn(args));
  }
  return out;
}

llvm::Value* Emitter::guarded(llvm::Value* pred, const std::function<llvm::Value*()>& body, llvm::Value* otherwise) {
  if (pred == nullptr) return body();
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(pred)) {
    if (c->isOne()) return body();
    // A false guard without a fallback still yields a value of the body's type (its zero):
    // the branch below, which LLVM folds away, learns the type from the body.
    if (otherwise != nullptr) return otherwise;
  }
  llvm::BasicBlock* from = b_.GetInsertBlock();
  llvm::BasicBlock* then = llvm::BasicBlock::Create(context_, "guarded", kernel_);
  llvm::BasicBlock* join = llvm::BasicBlock::Create(context_, "join", kernel_);
  b_.CreateCondBr(pred, then, join);
  b_.SetInsertPoint(then);
  llvm::Value* v = body();
  llvm::BasicBlock* then_end = b_.GetInsertBlock();
  b_.CreateBr(join);
  b_.SetInsertPoint(join);
  if (v == nullptr) return nullptr;
  llvm::PHINode* phi = b_.CreatePHI(v->getType(), 2);
  phi->addIncoming(v, then_end);
  phi->addIncoming(otherwise ? otherwise : llvm::Constant::getNullValue(v->getType()), from);
  return phi;
}

// ---- shared memory ----

llvm::GlobalVariable* Emitter::shared_base() {
  if (shared_ == nullptr) {
    shared_ = new llvm::GlobalVariable(module_, llvm::ArrayType::get(b_.getInt8Ty(), 0), false,
                                       llvm::GlobalValue::ExternalLinkage, nullptr, kSharedName, nullptr,
                                       llvm::GlobalValue::NotThreadLocal, 3);
    // wgmma's and the TMA's swizzled tiles start on 1024-byte boundaries of the address (shared_tile.h).
    const bool swizzled = wgmma_ || !async_.tma_stores.empty() || !async_.tma_loads.empty();
    shared_->setAlignment(llvm::Align(swizzled ? SharedTile::kSwizzleAlign : 16));
  }
  return shared_;
}

int64_t Emitter::live_fragment_registers(const ir::Region& region) const {
  std::unordered_map<const ir::Op*, size_t> position;
  const auto& ops = region.ops();
  for (size_t i = 0; i < ops.size(); ++i) position[ops[i].get()] = i;
  std::vector<int64_t> delta(ops.size() + 1, 0);
  int64_t most = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    for (const auto& inner : ops[i]->regions()) most = std::max(most, live_fragment_registers(*inner));
    for (const auto& r : ops[i]->results()) {
      const FragmentLayout* l = frags_.layout(r.get());
      if (l == nullptr || !r->type()->is_block()) continue;
      const int64_t bytes = std::max<int64_t>(1, type_bytes(element_type(r->type())));
      const int64_t regs = (l->num_regs() * bytes + 3) / 4;
      size_t last = i;
      for (const ir::Op* u : r->users()) {
        // The op of this region that is or holds the user.
        const ir::Op* at = u;
        while (at != nullptr && position.count(at) == 0) at = at->parent() ? at->parent()->parent() : nullptr;
        if (at != nullptr) last = std::max(last, position.at(at));
      }
      // Live from its definition up to (not past) its last use.
      delta[i] += regs;
      delta[last] -= regs;
    }
  }
  int64_t live = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    live += delta[i];
    most = std::max(most, live);
  }
  return most;
}

int64_t Emitter::round_trip_start() const {
  int64_t end = 0;
  for (const auto& [buffer, last] : live_stage_ends_) end = std::max(end, last);
  for (const auto& [buffer, last] : live_hoisted_ends_) end = std::max(end, last);
  // Swizzled tiles start on kSwizzleAlign boundaries; the plan's total is aligned for them.
  const int64_t align = SharedTile::kSwizzleAlign;
  int64_t start = end == 0 ? 0 : std::min((end + align - 1) / align * align, async_.reserved_bytes);
  // The live operand tiles lie above (emitter.h): each starts where round trips started.
  const int64_t tile_align = wgmma_ ? align : 16;
  for (const OperandTile& t : operand_tiles_) {
    start = std::max(start, (t.offset + t.tile.bytes() + tile_align - 1) / tile_align * tile_align);
  }
  return start;
}

llvm::Value* Emitter::shared_element(llvm::Type* type, llvm::Value* index, int64_t elements) {
  int64_t bytes = elements * static_cast<int64_t>(module_.getDataLayout().getTypeAllocSize(type));
  // Round trips start after the stage buffers of asynchronous copies while some are live
  // (emit_async.cpp), else at the start.
  int64_t start = round_trip_start();
  shared_bytes_ = std::max(shared_bytes_, start + bytes);
  llvm::Value* base = shared_base();
  if (start > 0) base = b_.CreateGEP(b_.getInt8Ty(), base, b_.getInt32(static_cast<uint32_t>(start)));
  return b_.CreateGEP(type, base, index);
}

llvm::Value* Emitter::shared_element_at(int64_t byte_offset, llvm::Type* type, llvm::Value* index, int64_t elements) {
  llvm::Value* base = shared_element(b_.getInt8Ty(), b_.getInt32(static_cast<uint32_t>(byte_offset)), 0);
  int64_t start = round_trip_start();
  shared_bytes_ = std::max(shared_bytes_, start + byte_offset + elements * type_bytes(type));
  return b_.CreateGEP(type, base, index);
}

llvm::Type* Emitter::stored_type(llvm::Type* type) const {
  return type->isIntegerTy(1) ? llvm::Type::getInt8Ty(context_) : type;
}

int64_t Emitter::type_bytes(llvm::Type* type) const {
  return static_cast<int64_t>(module_.getDataLayout().getTypeAllocSize(type));
}

void Emitter::barrier(bool elidable) {
  // bar.sync 0: every thread of the CTA, in uniform control flow (uniformity.h).
  llvm::CallInst* sync = b_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier_cta_sync_aligned_all,
                                            llvm::ArrayRef<llvm::Value*>{b_.getInt32(0)});
  if (elidable) mark_elidable_barrier(sync);  // late_passes.h's elide_barriers may drop it
  dirty_ = false;
  trailing_ = false;
  // A barrier of a loop body's own region (not of a nested one, which may not run) meets
  // whatever that iteration began with.
  for (CleanEntry& c : clean_entries_) c.synced = c.synced || c.body == emitting_region_;
  // Every thread is past its reads of the operand tiles whose last reader came before, when
  // this barrier is one of their region's own (not in a nested region, which may not run).
  for (OperandTile& t : operand_tiles_) {
    if (t.done && t.region == emitting_region_) t.freed = true;
    if (t.region == emitting_region_ && t.fenced) t.published = true;
  }
}

void Emitter::grid_dep_control(const char* text) {
  if (sm_ < 90) return;
  llvm::FunctionType* type = llvm::FunctionType::get(b_.getVoidTy(), false);
  b_.CreateCall(llvm::InlineAsm::get(type, text, "~{memory}", /*hasSideEffects=*/true));
}

Regs Emitter::invariant_fragment_copy(const ir::Op& op, const FragmentLayout& l) {
  // A block widened from f16/bf16 to f32 (mamba's dB: `b.to(tl.float32)`): the 16-bit
  // operand goes to the fragments (half the bytes), each thread widening its own there.
  const ir::Value* value = op.result();
  if (narrow_invariant_copies_ && op.kind() == OpKind::Cast && op.num_operands() == 1) {
    const ir::Value* source = op.operand(0);
    const ScalarKind from = source->type()->element()->scalar_kind();
    const ScalarKind to = value->type()->element()->scalar_kind();
    if ((from == ScalarKind::F16 || from == ScalarKind::BF16) && to == ScalarKind::F32 && source->type()->is_block() &&
        source->type()->shape() == value->type()->shape() && values_.count(source) != 0 && !get(source).uniform) {
      Regs narrow = flat_to_fragment(source, l, op);
      const ElementFn widen = element_fn(op);
      Regs out;
      for (int r = 0; r < l.num_regs(); ++r) out.values.push_back(widen({narrow.at(r)}));
      return out;
    }
  }
  return flat_to_fragment(value, l, op);
}

bool Emitter::writes_no_shared(const ir::Op& op) const {
  if (!op.regions().empty() || has_scratch(op)) return false;
  for (const auto& r : op.results()) {
    if (frags_.layout(r.get()) != nullptr || frags_.invariant_copy(r.get()) != nullptr) return false;
  }
  // A store reads a fragment operand's flat copy (made before it: flat_copies_at_).
  auto copied = [&](const ir::Value* v) {
    if (op.kind() != OpKind::Store) return false;
    if (values_.count(v) != 0) return true;
    auto it = flat_copies_at_.find(&op);
    return it != flat_copies_at_.end() && std::find(it->second.begin(), it->second.end(), v) != it->second.end();
  };
  for (const ir::Value* v : op.operands()) {
    if (frags_.layout(v) != nullptr && !copied(v)) return false;
  }
  switch (op.kind()) {
    case OpKind::Store: return async_.tma_stores.count(&op) == 0;
    case OpKind::Load:
      return async_.tma_loads.count(&op) == 0 && async_.loads.count(op.result()) == 0 && async_.stage.count(op.result()) == 0;
    case OpKind::Return:
    case OpKind::Constant:
    case OpKind::ProgramId:
    case OpKind::NumPrograms:
    case OpKind::MakeRange:
    case OpKind::Splat:
    case OpKind::Broadcast:  // through shared memory only where allocate_shared planned it
    case OpKind::ExpandDims:
    case OpKind::Reshape: return true;
    default: return ir::has_trait(op.kind(), ir::kElementwise);
  }
}

void Emitter::end_round_trip() {
  if (!lazy_round_trips_) {
    barrier();
    return;
  }
  trailing_ = true;
  dirty_ = true;
}

void Emitter::sync_past_operand_tiles() {
  const bool unfreed = std::any_of(operand_tiles_.begin(), operand_tiles_.end(),
                                   [](const OperandTile& t) { return t.done && !t.freed; });
  if (unfreed) return barrier();
  sync_if_dirty();
}

void Emitter::sync_if_dirty() {
  // A point that relies on what is pending where the loop bodies around it started (emit_for).
  for (CleanEntry& c : clean_entries_) c.needed = c.needed || !c.synced;
  if (dirty_ || trailing_) barrier();
}

bool Emitter::holds_scratch(const ir::Op& op) {
  auto it = holds_scratch_.find(&op);
  if (it != holds_scratch_.end()) return it->second;
  bool holds = has_scratch(op);
  for (const auto& region : op.regions()) {
    for (const auto& inner : region->ops()) holds = holds_scratch(*inner) || holds;
  }
  holds_scratch_[&op] = holds;
  return holds;
}

int64_t Emitter::scratch(const ir::Op& op, int slot, int64_t bytes) {
  std::vector<int64_t> slots = gpu::scratch_slots(op, widths_, threads_);
  if (slot >= static_cast<int>(slots.size()) || slots[slot] <= 0 || !has_scratch(op)) {
    internal_error("nvptx", std::string("'") + op.name() + "' goes through shared memory that allocate_shared did not plan",
                   op.loc());
  }
  size_t index = 0;
  for (int j = 0; j < slot; ++j) index += slots[j] > 0 ? 1 : 0;
  const std::vector<int64_t>& offsets = op.ints_attr("shared_offsets");
  const std::vector<int64_t>& sizes = op.ints_attr("shared_sizes");
  if (index >= offsets.size() || index >= sizes.size() || sizes[index] < bytes) {
    internal_error("nvptx", std::string("'") + op.name() + "' needs " + std::to_string(bytes) +
                                " bytes of shared memory in buffer " + std::to_string(slot) + ", more than allocate_shared planned",
                   op.loc());
  }
  return offsets[index];
}

llvm::Value* Emitter::to_storage(llvm::Value* v) {
  return v->getType()->isIntegerTy(1) ? b_.CreateZExt(v, b_.getInt8Ty()) : v;
}

llvm::Value* Emitter::from_storage(llvm::Value* v, llvm::Type* type) {
  return type->isIntegerTy(1) ? b_.CreateICmpNE(v, b_.getInt8(0)) : v;
}

std::vector<llvm::Value*> Emitter::from_thread0(const std::vector<llvm::Value*>& values, int64_t byte_offset) {
  // Slot i is the 8 bytes at 8 * i. Write, barrier, read; unplanned, also a barrier before
  // (when planned accesses may be pending) and after (for the next round trip's writes).
  const bool planned = byte_offset >= 0;
  if (!planned) sync_if_dirty();
  llvm::Value* is_thread0 = b_.CreateICmpEQ(thread_id(), b_.getInt32(0), "thread0");
  auto slot = [&](size_t i) {
    return shared_element_at(planned ? byte_offset : 0, b_.getInt64Ty(), b_.getInt32(static_cast<uint32_t>(i)),
                             static_cast<int64_t>(values.size()));
  };
  guarded(is_thread0, [&]() -> llvm::Value* {
    for (size_t i = 0; i < values.size(); ++i) b_.CreateStore(to_storage(values[i]), slot(i));
    return nullptr;
  });
  barrier();
  std::vector<llvm::Value*> out;
  for (size_t i = 0; i < values.size(); ++i) {
    llvm::Type* type = values[i]->getType();
    llvm::Type* stored = type->isIntegerTy(1) ? b_.getInt8Ty() : type;
    out.push_back(from_storage(b_.CreateLoad(stored, slot(i)), type));
  }
  if (!planned) barrier();
  return out;
}

}  // namespace tritium::nvptx
