// The interpreter's driver: turns the Function into a plan (dense value ids, decoded
// attributes, one preallocated buffer per SSA value), then runs every program of the grid
// (z, y, x nested, x innermost) through a switch over OpKind, with structured control flow;
// the elementwise ops of ir/elementwise.def run through their lane functions.
#include "interp/interpreter.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <unordered_map>

#include "interp/eval_debug.h"
#include "interp/eval_dot.h"
#include "interp/eval_ops.h"
#include "interp/eval_shape.h"
#include "interp/memory.h"
#include "interp/poison.h"
#include "interp/values.h"
#include "ir/verifier.h"
#include "support/diagnostics.h"

namespace tritium::interp {

using ir::OpKind;

namespace {

struct PlanRegion;

std::atomic<InterruptCheck> interrupt_check{nullptr};

// One op with its operands and results as buffer ids and its attributes decoded once.
struct PlanOp {
  const ir::Op* op = nullptr;
  OpKind kind = OpKind::Return;
  std::vector<int> operands;
  std::vector<int> results;
  std::vector<PlanRegion> regions;
  int64_t attr = 0;  // axis, Predicate or AtomicKind, bitcast flag
  ElementwiseFn lanes = nullptr;  // an op of ir/elementwise.def
  bool propagates_poison = false;  // a pure op with operands
};

struct PlanRegion {
  std::vector<int> args;
  std::vector<PlanOp> ops;
};

class Interpreter {
 public:
  Interpreter(const ir::Function& function, const std::vector<MemoryRange>& memory, const ValueObserver* observer)
      : function_(function), memory_(memory), observer_(observer) {
    body_ = plan_region(function.body());
  }

  void bind_args(const std::vector<ArgValue>& args) {
    const auto& params = function_.body().args();
    if (args.size() != params.size()) {
      throw LaunchError("kernel '" + function_.name() + "' takes " + std::to_string(params.size()) +
                        " arguments, the interpreter was given " + std::to_string(args.size()));
    }
    for (size_t i = 0; i < args.size(); ++i) {
      Buffer& buffer = buffers_[body_.args[i]];
      const ArgValue& arg = args[i];
      if (buffer.is_ptr) {
        expect_kind(i, arg, ArgValue::Kind::Pointer);
        buffer.data()[0].i = static_cast<int64_t>(arg.address);
      } else if (buffer.is_float) {
        expect_kind(i, arg, ArgValue::Kind::Float);
        buffer.data()[0].f = round_float(arg.float_value, buffer.kind);
      } else {
        expect_kind(i, arg, ArgValue::Kind::Int);
        buffer.data()[0].i = buffer.kind == ir::ScalarKind::I1 ? arg.int_bits != 0 : wrap_int(arg.int_bits, buffer.kind);
      }
    }
  }

  void run(const Grid& grid, uint64_t max_steps) {
    grid_ = grid;
    max_steps_ = max_steps;
    for (uint32_t z = 0; z < grid.dims[2]; ++z) {
      for (uint32_t y = 0; y < grid.dims[1]; ++y) {
        for (uint32_t x = 0; x < grid.dims[0]; ++x) {
          count_step(nullptr);
          program_ = {x, y, z};
          memory_.set_program(program_);
          exec_region(body_);
        }
      }
    }
  }

 private:
  // One step (a program, a loop iteration): polls for Ctrl-C now and then and enforces
  // TRITIUM_INTERPRET_MAX_STEPS. `op` is the loop, null for a program.
  void count_step(const ir::Op* op) {
    ++steps_;
    if ((steps_ & 255) == 0) {
      if (InterruptCheck check = interrupt_check.load(std::memory_order_relaxed)) check();
    }
    if (steps_ > max_steps_) [[unlikely]] {
      std::string where = op ? " at " + (op->loc().file ? op->loc().file->path() : std::string("<source>")) + ":" + std::to_string(op->loc().line) : "";
      throw LaunchError("kernel '" + function_.name() + "': stopped after " + std::to_string(max_steps_) +
                        " interpreter steps (loop iterations and programs)" + where +
                        ", the limit TRITIUM_INTERPRET_MAX_STEPS sets");
    }
  }

  void expect_kind(size_t i, const ArgValue& arg, ArgValue::Kind want) const {
    if (arg.kind == want) return;
    static const char* const kNames[] = {"a pointer", "an integer", "a float"};
    std::string name = "#" + std::to_string(i);
    for (const ir::Param& param : function_.params()) {
      if (param.arg == function_.body().arg(static_cast<int>(i))) name = "'" + param.name + "'";
    }
    throw LaunchError("kernel '" + function_.name() + "': argument " + name + " of type " +
                      function_.body().arg(static_cast<int>(i))->type()->str() + " needs " +
                      kNames[static_cast<int>(want)] + ", got " + kNames[static_cast<int>(arg.kind)]);
  }

  int buffer_id(const ir::Value* value) {
    auto [it, inserted] = ids_.try_emplace(value, static_cast<int>(buffers_.size()));
    if (inserted) {
      buffers_.push_back(make_buffer(value->type()));
      values_.push_back(value);
    }
    return it->second;
  }

  PlanRegion plan_region(const ir::Region& region) {
    PlanRegion plan;
    for (const auto& arg : region.args()) plan.args.push_back(buffer_id(arg.get()));
    for (const auto& op : region.ops()) plan.ops.push_back(plan_op(*op));
    return plan;
  }

  PlanOp plan_op(const ir::Op& op) {
    PlanOp plan;
    plan.op = &op;
    plan.kind = op.kind();
    plan.lanes = elementwise_fn(op.kind());
    for (const ir::Value* operand : op.operands()) plan.operands.push_back(buffer_id(operand));
    for (const auto& result : op.results()) plan.results.push_back(buffer_id(result.get()));
    for (const auto& region : op.regions()) plan.regions.push_back(plan_region(*region));
    // Ops that reorder or combine lanes move their poison themselves.
    static const OpKind kOwnPoison[] = {OpKind::Trans, OpKind::Flip, OpKind::Join, OpKind::Split, OpKind::Cat,
                                        OpKind::Reduce, OpKind::Scan, OpKind::MapElementwise,
                                        OpKind::Histogram, OpKind::Gather,
                                        OpKind::Dot};
    plan.propagates_poison = ir::has_trait(op.kind(), ir::kPure) && op.num_operands() > 0 &&
                             std::find(std::begin(kOwnPoison), std::end(kOwnPoison), op.kind()) == std::end(kOwnPoison);
    switch (op.kind()) {
      // Constants and ranges never change: fill their buffers once, here.
      case OpKind::Constant: eval_constant(op, buffers_[plan.results[0]]); break;
      case OpKind::MakeRange: eval_make_range(op.int_attr("start"), buffers_[plan.results[0]]); break;
      case OpKind::ProgramId:
      case OpKind::NumPrograms: plan.attr = op.int_attr("axis"); break;
      case OpKind::Cmp: plan.attr = static_cast<int64_t>(ir::enum_attr<ir::CmpPredicate>(op)); break;
      case OpKind::AtomicRMW: plan.attr = static_cast<int64_t>(ir::enum_attr<ir::AtomicKind>(op)); break;
      case OpKind::Cast: {
        const ir::AttrValue* bitcast = op.find_attr("bitcast");
        plan.attr = bitcast && std::holds_alternative<int64_t>(*bitcast) && std::get<int64_t>(*bitcast) != 0;
        // Bit 1: fp_downcast_rounding="rtz" (the cast's `rounding` attribute is 1).
        const ir::AttrValue* rounding = op.find_attr("rounding");
        if (rounding && std::holds_alternative<int64_t>(*rounding) && std::get<int64_t>(*rounding) == 1) {
          plan.attr |= 2;
        }
        break;
      }
      default: break;
    }
    return plan;
  }

  Buffer& result(const PlanOp& p, int i = 0) { return buffers_[p.results[i]]; }
  const Buffer& operand(const PlanOp& p, int i) { return buffers_[p.operands[i]]; }
  const Buffer* optional_operand(const PlanOp& p, int i) {
    return i < static_cast<int>(p.operands.size()) ? &buffers_[p.operands[i]] : nullptr;
  }

  // Copies the operands of `terminator` from `first` on into the buffers `to` (from `to_first`).
  void copy_operands(const PlanOp& terminator, size_t first, const std::vector<int>& to, size_t to_first = 0) {
    for (size_t i = first; i < terminator.operands.size(); ++i) {
      copy_buffer(buffers_[terminator.operands[i]], buffers_[to[to_first + i - first]]);
    }
  }

  // Runs the ops of `region`; false when a `return` ended the program. Combine regions run
  // unobserved: the analyses claim nothing about the values inside them.
  bool exec_region(const PlanRegion& region, bool observed = true) {
    if (!observed || !observer_) {
      for (const PlanOp& op : region.ops) {
        if (!exec_op(op)) return false;
      }
      return true;
    }
    if (observer_) {
      for (int id : region.args) observe(id);
    }
    for (const PlanOp& op : region.ops) {
      if (!exec_op(op)) return false;
      if (observer_) {
        for (int id : op.results) observe(id);
      }
    }
    return true;
  }

  void observe(int id) {
    const Buffer& buffer = buffers_[id];
    if (buffer.is_float || buffer.poisoned()) return;
    static_assert(sizeof(Slot) == sizeof(int64_t), "slots hold 64-bit integers");
    (*observer_)(*values_[id], reinterpret_cast<const int64_t*>(buffer.slots.data()), buffer.size());
  }

  // The poison of a pure op's result, from its operands (at most 3).
  void propagate(const PlanOp& p) {
    const Buffer* operands[3];
    int count = std::min(static_cast<int>(p.operands.size()), 3);  // select has the most
    for (int i = 0; i < count; ++i) operands[i] = &buffers_[p.operands[i]];
    propagate_poison(p.kind, operands, count, result(p));
  }

  bool exec_op(const PlanOp& p) {
    const ir::Op& op = *p.op;
    if (p.propagates_poison) propagate(p);
    if (p.lanes != nullptr) {
      const Buffer* operands[3];
      int count = std::min(static_cast<int>(p.operands.size()), 3);
      for (int i = 0; i < count; ++i) operands[i] = &buffers_[p.operands[i]];
      p.lanes(op, operands, count, result(p));
      return true;
    }
    switch (p.kind) {
      case OpKind::Constant:
      case OpKind::MakeRange:
        return true;  // filled when planned
      case OpKind::ProgramId: result(p).data()[0].i = program_[p.attr]; return true;
      case OpKind::NumPrograms: result(p).data()[0].i = grid_.dims[p.attr]; return true;
      case OpKind::Splat: eval_splat(operand(p, 0), result(p)); return true;
      case OpKind::Broadcast: eval_broadcast(operand(p, 0), result(p)); return true;
      case OpKind::ExpandDims:
      case OpKind::ConvertLayout:
      case OpKind::DescriptorTile:
      case OpKind::Reshape: eval_copy(operand(p, 0), result(p)); return true;
      case OpKind::Cmp:
        eval_cmp(static_cast<Predicate>(p.attr), operand(p, 0), operand(p, 1), result(p));
        return true;
      case OpKind::ExternElementwise: {
        std::vector<const Buffer*> ins;
        for (int id : p.operands) ins.push_back(&buffers_[id]);
        eval_extern(op, ins, result(p));
        return true;
      }
      case OpKind::Trans: case OpKind::Flip: case OpKind::Join: case OpKind::Split: case OpKind::Cat: {
        std::vector<const Buffer*> ins;
        for (int id : p.operands) ins.push_back(&buffers_[id]);
        std::vector<Buffer*> outs;
        for (int id : p.results) outs.push_back(&buffers_[id]);
        eval_move(op, ins, outs);
        return true;
      }
      case OpKind::Histogram: eval_histogram(op, operand(p, 0), optional_operand(p, 1), result(p)); return true;
      case OpKind::Gather: eval_gather(op, operand(p, 0), operand(p, 1), result(p)); return true;
      case OpKind::Dot: eval_dot(op, operand(p, 0), operand(p, 1), operand(p, 2), result(p)); return true;
      case OpKind::Reduce: exec_reduce(p); return true;
      case OpKind::Scan: exec_scan(p); return true;
      case OpKind::MapElementwise: exec_map_elementwise(p); return true;
      case OpKind::Select: eval_select(operand(p, 0), operand(p, 1), operand(p, 2), result(p)); return true;
      case OpKind::Cast: eval_cast(operand(p, 0), (p.attr & 1) != 0, result(p), (p.attr & 2) != 0); return true;
      case OpKind::AddPtr: eval_addptr(operand(p, 0), operand(p, 1), result(p)); return true;
      case OpKind::Load:
        memory_.load(op, operand(p, 0), optional_operand(p, 1), optional_operand(p, 2), result(p));
        return true;
      case OpKind::Store: memory_.store(op, operand(p, 0), operand(p, 1), optional_operand(p, 2)); return true;
      case OpKind::AtomicRMW:
        memory_.atomic_rmw(op, static_cast<AtomicKind>(p.attr), operand(p, 0), operand(p, 1),
                           optional_operand(p, 2), result(p));
        return true;
      case OpKind::AtomicCAS:
        memory_.atomic_cas(op, operand(p, 0), operand(p, 1), operand(p, 2), result(p));
        return true;
      case OpKind::For: return exec_for(p);
      case OpKind::If: return exec_if(p);
      case OpKind::While: return exec_while(p);
      case OpKind::Yield:
      case OpKind::Condition:
        return true;  // read by the op that owns the region
      case OpKind::Return: return false;
      case OpKind::Print: {
        std::vector<const Buffer*> values;
        for (int id : p.operands) values.push_back(&buffers_[id]);
        exec_print(op, values, program_);
        return true;
      }
      case OpKind::Assert: exec_assert(op, operand(p, 0), program_); return true;
      case OpKind::DebugBarrier: return true;  // one program runs at a time: nothing to order
      case OpKind::Assume: return true;        // a promise to the compiler, not checked (as Triton's)
      case OpKind::GdcWait:
      case OpKind::GdcLaunchDependents:
        return true;  // kernels run one after another: no launch to overlap with
      case OpKind::Smid: result(p).data()[0].i = 0; return true;  // one "SM" runs every program
      case OpKind::GlobalTimer:
        result(p).data()[0].i = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                    std::chrono::steady_clock::now().time_since_epoch())
                                    .count();
        return true;
      default: break;  // the elementwise ops of ir/elementwise.def ran above
    }
    internal_error("interpreter", std::string("no semantics for '") + op.name() + "'", op.loc());
  }

  // The lanes of a reduce or scan: the input is [outer, K, inner] around the axis.
  struct AxisSplit {
    int64_t outer = 1, k = 1, inner = 1;
  };
  static AxisSplit split_at(const ir::Type* type, int64_t axis) {
    AxisSplit s;
    const auto& shape = type->shape();
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
      if (d < axis) s.outer *= shape[d];
      else if (d == axis) s.k = shape[d];
      else s.inner *= shape[d];
    }
    return s;
  }

  // Runs the combine region on (lhs..., rhs...) (n values each); the combined values
  // replace lhs.
  void combine(const PlanOp& p, Slot* lhs, const Slot* rhs, size_t n) {
    const PlanRegion& region = p.regions[0];
    for (size_t i = 0; i < n; ++i) {
      buffers_[region.args[i]].data()[0] = lhs[i];
      buffers_[region.args[n + i]].data()[0] = rhs[i];
    }
    exec_region(region, /*observed=*/false);
    const PlanOp& yield = region.ops.back();
    for (size_t i = 0; i < n; ++i) lhs[i] = buffers_[yield.operands[i]].data()[0];
  }

  // Whether lane (o, k, i) of some input is poisoned; the error is deferred to the result.
  const Buffer* poisoned_input(const PlanOp& p, int64_t lane) {
    for (int id : p.operands) {
      const Buffer& in = buffers_[id];
      if (in.poisoned() && in.poison[lane]) return &in;
    }
    return nullptr;
  }

  // A tree over each run along the axis: pairs (k, k + 1), then (k, k + 2), ... (the
  // axis length is a power of two), the order a warp's butterfly also takes.
  void exec_reduce(const PlanOp& p) {
    size_t n = p.operands.size();
    AxisSplit s = split_at(operand(p, 0).type, p.op->int_attr("axis"));
    for (int id : p.results) buffers_[id].poison_origin = nullptr;
    std::vector<Slot> values(n * s.k);  // [k][input]
    for (int64_t o = 0; o < s.outer; ++o) {
      for (int64_t i = 0; i < s.inner; ++i) {
        int64_t out_lane = o * s.inner + i;
        for (int64_t k = 0; k < s.k; ++k) {
          int64_t lane = (o * s.k + k) * s.inner + i;
          for (size_t j = 0; j < n; ++j) values[k * n + j] = operand(p, static_cast<int>(j)).data()[lane];
          if (const Buffer* bad = poisoned_input(p, lane)) {
            for (int id : p.results) poison_lane(buffers_[id], out_lane, *bad->poison_origin, bad->poison_reason);
          }
        }
        for (int64_t stride = 1; stride < s.k; stride *= 2) {
          for (int64_t k = 0; k + stride < s.k; k += 2 * stride) combine(p, &values[k * n], &values[(k + stride) * n], n);
        }
        for (size_t j = 0; j < n; ++j) result(p, static_cast<int>(j)).data()[out_lane] = values[j];
      }
    }
  }

  // Inclusive, in order along the axis (reversed with `reverse`); a poisoned lane poisons
  // every later lane of its run.
  void exec_scan(const PlanOp& p) {
    size_t n = p.operands.size();
    AxisSplit s = split_at(operand(p, 0).type, p.op->int_attr("axis"));
    bool reverse = p.op->int_attr("reverse") != 0;
    for (int id : p.results) buffers_[id].poison_origin = nullptr;
    std::vector<Slot> acc(n), x(n);
    for (int64_t o = 0; o < s.outer; ++o) {
      for (int64_t i = 0; i < s.inner; ++i) {
        const Buffer* bad = nullptr;
        for (int64_t step = 0; step < s.k; ++step) {
          int64_t k = reverse ? s.k - 1 - step : step;
          int64_t lane = (o * s.k + k) * s.inner + i;
          for (size_t j = 0; j < n; ++j) x[j] = operand(p, static_cast<int>(j)).data()[lane];
          if (step == 0) acc = x;
          else combine(p, acc.data(), x.data(), n);
          if (!bad) bad = poisoned_input(p, lane);
          for (size_t j = 0; j < n; ++j) {
            result(p, static_cast<int>(j)).data()[lane] = acc[j];
            if (bad) poison_lane(result(p, static_cast<int>(j)), lane, *bad->poison_origin, bad->poison_reason);
          }
        }
      }
    }
  }

  // The region on each element in row-major order; with pack = P on each aligned run of P
  // elements in row-major order (the lowering makes P divide the element count), the run's
  // elements of input i its arguments i * P ... i * P + P - 1, output r's its yields r * P
  // .... A group with a poisoned input is not run (its values are undefined: a loop on them
  // might not end); its results are zero and poisoned.
  void exec_map_elementwise(const PlanOp& p) {
    const PlanRegion& region = p.regions[0];
    const PlanOp& yield = region.ops.back();
    const int64_t lanes = operand(p, 0).type->num_elements();
    const ir::AttrValue* pack_attr = p.op->find_attr("pack");
    const int64_t pack = pack_attr != nullptr ? p.op->int_attr("pack") : 1;
    for (int id : p.results) buffers_[id].poison_origin = nullptr;
    for (int64_t first = 0; first < lanes; first += pack) {
      const Buffer* bad = nullptr;
      for (int64_t lane = first; lane < first + pack && bad == nullptr; ++lane) bad = poisoned_input(p, lane);
      if (bad == nullptr) {
        for (size_t j = 0; j < p.operands.size(); ++j) {
          for (int64_t k = 0; k < pack; ++k) {
            buffers_[region.args[j * static_cast<size_t>(pack) + static_cast<size_t>(k)]].data()[0] =
                operand(p, static_cast<int>(j)).data()[first + k];
          }
        }
        exec_region(region, /*observed=*/false);
      }
      for (size_t j = 0; j < p.results.size(); ++j) {
        Buffer& out = result(p, static_cast<int>(j));
        for (int64_t k = 0; k < pack; ++k) {
          if (bad != nullptr) {
            out.data()[first + k] = Slot{};
            poison_lane(out, first + k, *bad->poison_origin, bad->poison_reason);
          } else {
            out.data()[first + k] = buffers_[yield.operands[j * static_cast<size_t>(pack) + static_cast<size_t>(k)]].data()[0];
          }
        }
      }
    }
  }

  // The loop state lives in the op's result buffers: init -> results; each iteration
  // copies results -> body arguments, runs the body, and yields -> results. Yielded values
  // may be body arguments themselves (a swap), so they never go straight to the arguments.
  bool exec_for(const PlanOp& p) {
    const PlanRegion& body = p.regions[0];
    ir::ScalarKind iv_kind = operand(p, 0).kind;
    int64_t lower = operand(p, 0).data()[0].i;
    int64_t upper = operand(p, 1).data()[0].i;
    int64_t step = operand(p, 2).data()[0].i;
    for (int i = 0; i < 3; ++i) check_poison(operand(p, i), nullptr, *p.op, "the bounds");
    if (step == 0) error_at(p.op->loc(), "for loop with a step of 0");
    bool is_unsigned = !ir::is_signed(iv_kind);
    for (size_t i = 3; i < p.operands.size(); ++i) copy_buffer(operand(p, static_cast<int>(i)), result(p, static_cast<int>(i - 3)));
    for (int64_t iv = lower;;) {
      bool more = is_unsigned ? static_cast<uint64_t>(iv) < static_cast<uint64_t>(upper)
                              : (step > 0 ? iv < upper : iv > upper);
      if (!more) break;
      count_step(p.op);
      buffers_[body.args[0]].data()[0].i = wrap_int(iv, iv_kind);
      for (size_t i = 0; i < p.results.size(); ++i) copy_buffer(result(p, static_cast<int>(i)), buffers_[body.args[i + 1]]);
      if (!exec_region(body)) return false;
      copy_operands(body.ops.back(), 0, p.results);
      if (__builtin_add_overflow(iv, step, &iv)) break;
    }
    return true;
  }

  bool exec_if(const PlanOp& p) {
    check_poison(operand(p, 0), nullptr, *p.op, "the condition");
    const PlanRegion& branch = p.regions[operand(p, 0).data()[0].i ? 0 : 1];
    if (!exec_region(branch)) return false;
    if (!branch.ops.empty()) copy_operands(branch.ops.back(), 0, p.results);
    return true;
  }

  // init -> before arguments; run before; condition's passed values -> results; stop when
  // false, else results -> after arguments, run after, yields -> before arguments (the
  // after region cannot see the before region's arguments, so this never overlaps).
  bool exec_while(const PlanOp& p) {
    const PlanRegion& before = p.regions[0];
    const PlanRegion& after = p.regions[1];
    for (size_t i = 0; i < p.operands.size(); ++i) copy_buffer(operand(p, static_cast<int>(i)), buffers_[before.args[i]]);
    for (;;) {
      count_step(p.op);
      if (!exec_region(before)) return false;
      const PlanOp& condition = before.ops.back();
      check_poison(buffers_[condition.operands[0]], nullptr, *condition.op, "the condition");
      copy_operands(condition, 1, p.results);
      if (!buffers_[condition.operands[0]].data()[0].i) return true;
      for (size_t i = 0; i < p.results.size(); ++i) copy_buffer(result(p, static_cast<int>(i)), buffers_[after.args[i]]);
      if (!exec_region(after)) return false;
      copy_operands(after.ops.back(), 0, before.args);
    }
  }

  const ir::Function& function_;
  Memory memory_;
  std::unordered_map<const ir::Value*, int> ids_;  // planning only
  std::vector<Buffer> buffers_;
  std::vector<const ir::Value*> values_;  // buffer id -> the value it holds
  const ValueObserver* observer_;
  PlanRegion body_;
  Grid grid_;
  std::array<uint32_t, 3> program_{0, 0, 0};
  uint64_t steps_ = 0;
  uint64_t max_steps_ = UINT64_MAX;
};

// TRITIUM_INTERPRET_MAX_STEPS as a number; no limit when unset, empty or not a number.
uint64_t max_steps_from_env() {
  const char* raw = std::getenv("TRITIUM_INTERPRET_MAX_STEPS");
  if (raw == nullptr || *raw == '\0') return UINT64_MAX;
  char* end = nullptr;
  errno = 0;
  unsigned long long n = std::strtoull(raw, &end, 10);
  if (errno != 0 || *end != '\0' || n == 0) return UINT64_MAX;
  return n;
}

}  // namespace

void run(const ir::Function& function, const Grid& grid, const std::vector<ArgValue>& args,
         const std::vector<MemoryRange>& memory, const ValueObserver* observer) {
  ir::verify(function, "interpreter input");
  Interpreter interpreter(function, memory, observer);
  interpreter.bind_args(args);
  interpreter.run(grid, max_steps_from_env());
}

void set_interrupt_check(InterruptCheck check) { interrupt_check.store(check, std::memory_order_relaxed); }

}  // namespace tritium::interp
