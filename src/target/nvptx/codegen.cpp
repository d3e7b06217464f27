// compile_to_ptx: one LLVM context per call; the kernel's signature and attributes, the
// body through Emitter, the module verified, LLVM's O3 pipeline, then the NVPTX backend.
// LLVM never aborts the process: its errors become InternalErrors (see fatal_handler).
#include "target/nvptx/codegen.h"
#include "target/nvptx/late_passes.h"
#include "target/nvptx/libdevice.h"
#include "target/nvptx/loop_hints.h"

#include <algorithm>
#include <mutex>
#include <optional>

#include <llvm/ADT/SmallString.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/OptBisect.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/TargetParser/Triple.h>

#include "ir/printer.h"
#include "support/diagnostics.h"
#include "target/nvptx/emitter.h"
#include "target/nvptx/pass_gate.h"
#include "target/nvptx/register_budget.h"
#include "gpu/conversion.h"
#include "gpu/pipeline.h"
#include "gpu/prefetch_operands.h"
#include "gpu/scratch.h"
#include "gpu/split_k_cluster.h"
#include "gpu/vector_widths.h"
#include "gpu/version_on_signs.h"

namespace tritium::nvptx {

namespace {

constexpr const char* kTriple = "nvptx64-nvidia-cuda";

// What the fatal-error handler throws through LLVM's frames. The objects LLVM was working
// on are then in no known state, so the Compilation that catches it leaks them.
struct LlvmFatal {
  std::string reason;
};

void fatal_handler(void*, const char* reason, bool) { throw LlvmFatal{reason ? reason : "unknown"}; }

void initialize_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    llvm::install_fatal_error_handler(fatal_handler);
  });
}

// LLVM's diagnostics (errors that do not abort, such as a missing libcall) are collected
// and turned into an InternalError after the phase that raised them.
struct Diagnostics : llvm::DiagnosticHandler {
  std::vector<std::string> errors;
  bool handleDiagnostics(const llvm::DiagnosticInfo& info) override {
    if (info.getSeverity() == llvm::DS_Error) {
      std::string text;
      llvm::raw_string_ostream out(text);
      llvm::DiagnosticPrinterRawOStream printer(out);
      info.print(printer);
      errors.push_back(text);
    }
    return true;  // handled: nothing printed to stderr
  }
};

void validate(const ir::Function& function, const TargetOptions& options) {
  int w = options.num_warps;
  if (w < 1 || w > 32 || (w & (w - 1)) != 0) {
    error_at(function.loc(), "num_warps must be a power of two from 1 to 32, got " + std::to_string(w));
  }
  if (options.sm < 70) {
    error_at(function.loc(), "the GPU target sm_" + std::to_string(options.sm) + " is too old (tritium needs sm_70 or newer)");
  }
  check_register_budget(function, w);
}

// Skips the straight-line passes (pass_gate.h) in the NVPTX backend's IR passes, which ask
// the context's gate (FunctionPass::skipFunction) by their pass argument. The O3 pipeline
// (new pass manager, no instrumentation) does not ask it and has neither pass.
// It also skips LoopStrengthReduce where the kernel's experiments say so (pass_gate.h,
// skips_loop_strength_reduction).
struct StraightLineGate : llvm::OptPassGate {
  bool skip = false;
  bool skip_lsr = false;
  bool shouldRunPass(llvm::StringRef pass, llvm::StringRef) const override {
    const std::string_view name(pass.data(), pass.size());
    if (skip_lsr && is_loop_strength_reduction(name)) return false;
    return !skip || !is_straight_line_pass(name);
  }
  bool isEnabled() const override { return skip || skip_lsr; }
};

// One compilation's LLVM objects, in the order they must be destroyed.
struct Compilation {
  StraightLineGate gate;  // outlives the context that refers to it
  std::unique_ptr<llvm::LLVMContext> context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<llvm::Module> module;
  Diagnostics* diagnostics = nullptr;
  llvm::Function* kernel = nullptr;
  int64_t shared_bytes = 0;
  std::vector<PtxParam> params;

  Compilation() {
    auto handler = std::make_unique<Diagnostics>();
    diagnostics = handler.get();
    context->setDiagnosticHandler(std::move(handler));
    context->setOptPassGate(gate);
  }
  ~Compilation() {
    if (abandoned) {
      (void)module.release();
      (void)machine.release();
      (void)context.release();
    }
  }
  bool abandoned = false;

  void check(const char* phase) {
    if (diagnostics->errors.empty()) return;
    std::string message = std::string("LLVM reported an error during ") + phase + ":";
    for (const std::string& e : diagnostics->errors) message += "\n  " + e;
    internal_error("nvptx", message);
  }
};

std::string feature_string(const TargetOptions& options) { return "+ptx" + std::to_string(ptx_version_for(options)); }

// The first PTX ISA that can target sm_<sm> (PTX ISA release notes); 6.3 at least, for
// the .sem and .scope of atom.
int min_ptx_version(int sm) {
  if (sm >= 120) return 87;
  if (sm >= 100) return 86;
  if (sm >= 89) return 78;
  if (sm >= 87) return 74;
  if (sm >= 86) return 71;
  if (sm >= 80) return 70;
  return 63;
}

std::string ptx_name(int version) { return std::to_string(version / 10) + "." + std::to_string(version % 10); }

// Rejects a target or PTX version LLVM does not know before LLVM sees it (it would print a
// warning and carry on, or stop with a fatal error).
void check_target(const llvm::Target& target, const llvm::Triple& triple, const ir::Function& function,
                  const TargetOptions& options) {
  std::string cpu = "sm_" + std::to_string(options.sm);
  // Asked of the generic CPU: an unknown one would make LLVM print a warning.
  std::unique_ptr<llvm::MCSubtargetInfo> info(target.createMCSubtargetInfo(triple, "", ""));
  if (!info || !info->isCPUStringValid(cpu)) error_at(function.loc(), "unknown GPU target '" + cpu + "'");
  int version = ptx_version_for(options);
  std::string feature = "ptx" + std::to_string(version);
  bool known = false;
  for (const llvm::SubtargetFeatureKV& kv : info->getAllProcessorFeatures()) known = known || feature == kv.Key;
  if (!known) error_at(function.loc(), "PTX ISA " + ptx_name(version) + " is unknown to the LLVM in tritium");
  if (version < min_ptx_version(options.sm)) {
    error_at(function.loc(), "PTX ISA " + ptx_name(version) + " cannot target " + cpu + " (it needs " +
                                 ptx_name(min_ptx_version(options.sm)) + " or later)");
  }
}

// `arch_specific`: the kernel uses sm_90a's instructions (wgmma), so the PTX targets sm_90a.
void make_machine(Compilation& c, const ir::Function& function, const TargetOptions& options, bool arch_specific) {
  std::string error;
  llvm::Triple triple(kTriple);
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (target == nullptr) internal_error("nvptx", "LLVM has no NVPTX target: " + error);
  check_target(*target, triple, function, options);
  llvm::TargetOptions target_options;
  target_options.AllowFPOpFusion = options.enable_fp_fusion ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Standard;
  std::string cpu = "sm_" + std::to_string(options.sm) + (arch_specific ? "a" : "");
  c.machine.reset(target->createTargetMachine(triple, cpu, feature_string(options),
                                              target_options, std::nullopt, std::nullopt,
                                              llvm::CodeGenOptLevel::Aggressive));
  if (!c.machine) internal_error("nvptx", "cannot create the NVPTX target machine for sm_" + std::to_string(options.sm));
}

// The kernel's LLVM signature: one argument per entry argument. Pointers are global
// (addrspace 1) and never noalias (kernels update buffers in place, through several
// arguments that may alias); an i1 travels as an i32. Then the CUtensorMap of each of
// `tensor_maps` (indices into function.params(), async_copy.h): 128 bytes by value, 64-byte
// aligned, a grid constant, so the TMA reads it where it is (`.param .align 64 .b8 x[128]`).
void build_kernel(Compilation& c, const ir::Function& function, const TargetOptions& options,
                  const std::vector<int>& tensor_maps) {
  c.module = std::make_unique<llvm::Module>(function.name(), *c.context);
  c.module->setTargetTriple(llvm::Triple(kTriple));
  c.module->setDataLayout(c.machine->createDataLayout());
  std::vector<llvm::Type*> types;
  for (const auto& arg : function.body().args()) {
    const ir::Type* type = arg->type();
    if (type->is_pointer()) types.push_back(llvm::PointerType::get(*c.context, 1));
    else if (type->is_bool()) types.push_back(llvm::Type::getInt32Ty(*c.context));
    else if (type->is_scalar()) types.push_back(llvm_scalar_type(*c.context, type->scalar_kind()));
    else internal_error("nvptx", "kernel argument of type " + type->str(), function.loc());
  }
  const size_t first_map = types.size();
  for (size_t i = 0; i < tensor_maps.size(); ++i) types.push_back(llvm::PointerType::get(*c.context, 0));
  auto* fn_type = llvm::FunctionType::get(llvm::Type::getVoidTy(*c.context), types, false);
  c.kernel = llvm::Function::Create(fn_type, llvm::GlobalValue::ExternalLinkage, function.name(), *c.module);
  c.kernel->setCallingConv(llvm::CallingConv::PTX_Kernel);  // `.visible .entry`
  c.kernel->addFnAttr("nvvm.maxntid", std::to_string(32 * options.num_warps));
  if (options.maxnreg > 0) c.kernel->addFnAttr("nvvm.maxnreg", std::to_string(options.maxnreg));
  if (options.num_ctas > 1) {
    c.kernel->addFnAttr("nvvm.cluster_dim", std::to_string(options.num_ctas) + ",1,1");
  }
  c.kernel->addFnAttr(llvm::Attribute::NoUnwind);
  const auto& params = function.params();
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].arg == nullptr) continue;
    PtxParam p;
    p.name = params[i].name;
    p.index = static_cast<int>(params[i].source_index(i));
    p.part = params[i].part;
    p.dim = params[i].dim;
    const ir::Type* type = params[i].arg->type();
    p.is_pointer = type->is_pointer();
    p.kind = p.is_pointer ? type->pointee()->scalar_kind() : type->scalar_kind();
    p.size = p.is_pointer ? 8 : p.kind == ir::ScalarKind::I1 ? 4 : ir::bit_width(p.kind) / 8;
    c.params.push_back(p);
  }
  for (size_t i = 0; i < tensor_maps.size(); ++i) {
    llvm::Argument* arg = c.kernel->getArg(static_cast<unsigned>(first_map + i));
    arg->addAttr(llvm::Attribute::getWithByValType(*c.context, llvm::ArrayType::get(llvm::Type::getInt8Ty(*c.context), 128)));
    arg->addAttr(llvm::Attribute::getWithAlignment(*c.context, llvm::Align(64)));
    arg->addAttr(llvm::Attribute::get(*c.context, "nvvm.grid_constant"));
    const ir::Param& base = params[static_cast<size_t>(tensor_maps[i])];
    PtxParam p;
    p.name = base.name + "_tensormap";
    p.index = static_cast<int>(base.source_index(static_cast<size_t>(tensor_maps[i])));
    p.part = ir::ArgPart::DescTensorMap;
    p.kind = base.arg->type()->pointee()->scalar_kind();
    p.size = 128;
    c.params.push_back(p);
  }
}

// Whether `v` may reach PTX in a register that a float instruction defined: a bitcast from
// a float type, directly or through phis, selects and vector element reads.
bool float_defined(const llvm::Value* v, int depth = 0) {
  if (depth > 4) return true;  // too deep to tell: treat as float (the guard is cheap)
  if (const auto* cast = llvm::dyn_cast<llvm::BitCastInst>(v)) return cast->getSrcTy()->isFPOrFPVectorTy();
  if (const auto* phi = llvm::dyn_cast<llvm::PHINode>(v)) {
    return llvm::any_of(phi->incoming_values(), [&](const llvm::Value* in) { return float_defined(in, depth + 1); });
  }
  if (const auto* select = llvm::dyn_cast<llvm::SelectInst>(v)) {
    return float_defined(select->getTrueValue(), depth + 1) || float_defined(select->getFalseValue(), depth + 1);
  }
  if (const auto* extract = llvm::dyn_cast<llvm::ExtractElementInst>(v)) {
    return float_defined(extract->getVectorOperand(), depth + 1);
  }
  return false;
}

// ptxas reads `st.b8 [a], %r` (and st.b16) whose 32-bit register a float instruction
// defined as a float-to-integer conversion (F2I.U8, saturating), not as the low bits that
// PTX's untyped registers promise; LLVM's NVPTX backend folds trunc(bitcast float) into
// exactly that store. So a narrow store of such a truncation gets its low bits through an
// integer cvt first (one instruction). Seen in differential seeds 32994, 54609, 85746:
// `(x).to(tl.uint32, bitcast=True)` stored through an i8 pointer saved min(x, 255).
void integer_narrow_stores(llvm::Module& module) {
  for (llvm::Function& f : module) {
    for (llvm::BasicBlock& block : f) {
      for (llvm::Instruction& inst : block) {
        auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst);
        auto* trunc = store ? llvm::dyn_cast<llvm::TruncInst>(store->getValueOperand()) : nullptr;
        if (trunc == nullptr || !float_defined(trunc->getOperand(0))) continue;
        llvm::Type* to = trunc->getType();
        unsigned bits = to->getScalarSizeInBits();
        unsigned from_bits = trunc->getOperand(0)->getType()->getScalarSizeInBits();
        if (bits > 16 || (from_bits != 32 && from_bits != 64)) continue;
        llvm::IRBuilder<> b(store);
        llvm::Type* i16 = b.getInt16Ty();
        auto* fn_type = llvm::FunctionType::get(i16, {b.getIntNTy(from_bits)}, false);
        auto* cvt = llvm::InlineAsm::get(fn_type, from_bits == 64 ? "cvt.u16.u64 $0, $1;" : "cvt.u16.u32 $0, $1;",
                                         from_bits == 64 ? "=h,l" : "=h,r", /*hasSideEffects=*/false);
        auto low = [&](llvm::Value* wide) -> llvm::Value* {
          llvm::Value* v = b.CreateCall(cvt, {wide});
          return bits == 16 ? v : b.CreateTrunc(v, to->getScalarType());
        };
        llvm::Value* source = trunc->getOperand(0);
        llvm::Value* value;
        if (auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(to)) {
          value = llvm::PoisonValue::get(to);
          for (unsigned i = 0; i < vector->getNumElements(); ++i) {
            value = b.CreateInsertElement(value, low(b.CreateExtractElement(source, uint64_t{i})), uint64_t{i});
          }
        } else {
          value = low(source);
        }
        store->setOperand(0, value);
      }
    }
  }
}

bool experiment(const TargetOptions& options, const std::string& name, bool otherwise);

void optimize(Compilation& c, const TargetOptions& options) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(c.machine.get());  // adds NVPTX's own passes (its constructor)
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager passes = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  passes.run(*c.module, mam);
  release_outer_loops(*c.module);
  integer_narrow_stores(*c.module);
  // late_passes.h: what the emitter's blocks and round trips kept from the backend.
  if (options.enable_fp_fusion && experiment(options, "hoistfadd", true)) contract_across_blocks(*c.module);
  if (experiment(options, "elidebar", true)) elide_barriers(*c.module);
  if (experiment(options, "fencerot", true)) rotate_proxy_fences(*c.module);
  if (experiment(options, "fencesink", true)) sink_stores_past_fences(*c.module);
}

std::string print_module(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream out(text);
  module.print(out, nullptr);
  return text;
}

std::string emit_ptx(Compilation& c) {
  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream out(ptx);
  llvm::legacy::PassManager passes;
  if (c.machine->addPassesToEmitFile(passes, out, nullptr, llvm::CodeGenFileType::AssemblyFile)) {
    internal_error("nvptx", "the NVPTX target cannot emit assembly");
  }
  passes.run(*c.module);
  return std::string(ptx.str());
}

// Links NVIDIA's libdevice into the module when the kernel calls its functions (__nv_*),
// keeping only what is used; the rest is internal so that O3 drops it. Flush-to-zero on
// inside libdevice, as Triton 3.6 compiles it (its enable_reflect_ftz defaults to true).
void link_libdevice(Compilation& c, const ir::Function& function) {
  bool needed = false;
  for (const llvm::Function& f : *c.module) {
    if (f.isDeclaration() && f.getName().starts_with("__nv_")) needed = true;
  }
  if (!needed) return;
  std::string path = libdevice_path();
  if (path.empty()) {
    error_at(function.loc(), "kernel '" + function.name() + "' calls libdevice math functions, and NVIDIA's "
                             "libdevice (libdevice.10.bc of the CUDA toolkit) was not found; looked in " +
                             libdevice_search_text() + ". Install the CUDA toolkit or set TRITIUM_LIBDEVICE_PATH");
  }
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) error_at(function.loc(), "cannot read libdevice at " + path + ": " + buffer.getError().message());
  auto library = llvm::parseBitcodeFile((*buffer)->getMemBufferRef(), *c.context);
  if (!library) {
    std::string why = llvm::toString(library.takeError());
    error_at(function.loc(), "libdevice at " + path + " is not valid LLVM bitcode: " + why);
  }
  (*library)->setTargetTriple(c.module->getTargetTriple());
  (*library)->setDataLayout(c.module->getDataLayout());
  if (llvm::Linker::linkModules(*c.module, std::move(*library), llvm::Linker::Flags::LinkOnlyNeeded)) {
    internal_error("nvptx", "linking libdevice (" + path + ") failed", function.loc());
  }
  for (llvm::Function& f : *c.module) {
    if (!f.isDeclaration() && &f != c.kernel) f.setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  c.module->addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t{1});
}

// Whether TargetOptions::reduce_experiment turns `name` on ("name") or off ("noname"; the
// last of a pair wins); nullopt where it names neither (the emitter's parse, emitter.cpp).
std::optional<bool> experiment_named(const TargetOptions& options, const std::string& name) {
  std::optional<bool> on;
  for (size_t at = 0; at <= options.reduce_experiment.size();) {
    size_t end = std::min(options.reduce_experiment.find(',', at), options.reduce_experiment.size());
    const std::string part = options.reduce_experiment.substr(at, end - at);
    if (part == name || part == "no" + name) on = part == name;
    at = end + 1;
  }
  return on;
}

// experiment_named, `otherwise` where the experiments name neither.
bool experiment(const TargetOptions& options, const std::string& name, bool otherwise) {
  return experiment_named(options, name).value_or(otherwise);
}

// The fragment plan under `options` (its "fragread", "achain" and "reloadguard" experiments:
// fragment_layout.h).
FragmentPlan fragment_plan(const ir::Function& function, const TargetOptions& options) {
  FragmentOptions o;
  o.read_backs = experiment(options, "fragread", o.read_backs);
  o.a_chains = experiment(options, "achain", o.a_chains);
  o.guard_reloads = experiment(options, "reloadguard", o.guard_reloads);
  o.a_chains_rows = experiment(options, "achainmma", o.a_chains_rows);
  o.early_reloads = experiment(options, "earlyline", o.early_reloads);
  o.fragment_reduces = experiment(options, "fragreduce", o.fragment_reduces);
  o.trans_a_fragments = experiment(options, "transafrag", o.trans_a_fragments);
  o.trans_a_m_major = experiment(options, "stsmtrans", o.trans_a_m_major);
  o.any_inits = experiment(options, "accfrag", o.any_inits);
  // "accload" by default on sm_90 (session 39, C += A @ B at 4096: 0.87 -> 0.96 of Triton);
  // sm_80 keeps the round trip (its 64x128x32 w4 s4 spills 8 B with the direct load).
  o.direct_loads = experiment(options, "accload", options.sm >= 90);
  return plan_fragments(function, options.num_warps, options.sm, o);
}

// The GPU passes (gpu/pipeline.h), on a copy of the kernel: with num_stages >= 2 the dot
// operands loaded in a loop are loaded num_stages - 1 iterations ahead (and then copied to shared memory
// asynchronously by the emitter); layouts and shared-memory offsets are assigned.
std::unique_ptr<ir::Function> gpu_passes(const ir::Function& function, const TargetOptions& options) {
  gpu::GpuOptions gpu_options;
  gpu_options.num_warps = options.num_warps;
  gpu_options.num_stages = options.num_stages;
  gpu_options.sm = options.sm;
  gpu_options.vectorize = options.vectorize;
  gpu_options.int8_row_major_wgmma = options.int8_row_major_wgmma;
  gpu_options.prefetch_indices = options.prefetch_indices;
  gpu_options.read_back_axis0 = experiment(options, "axis0copy", true);
  gpu_options.read_back_axis0_flat = experiment(options, "axis0flat", false);
  gpu_options.a_chains_mma = experiment(options, "achainmma", true);
  gpu_options.read_back_lines = experiment(options, "linecopy", true);
  gpu_options.read_back_fit = experiment(options, "rbfit", true);
  gpu_options.last_dot_in_flight = options.inflight_copies.rfind("pv", 0) == 0;
  gpu_options.lines_in_slot = experiment(options, "lineslot", true);
  gpu_options.inline_one_trip_loops = experiment(options, "onetrip", true);
  gpu_options.fold_inlined_dots = experiment(options, "refold", true);
  gpu_options.sink_casts = experiment(options, "sinkcasts", true);
  gpu_options.rebase_loaded = experiment(options, "rebaseload", true);
  gpu_options.rebase_scalar_base = experiment(options, "scalarbase", false);
  gpu_options.recurrence_stages = experiment(options, "recurstages", gpu_options.recurrence_stages);
  gpu_options.split_k = options.num_ctas == 1 && experiment(options, "ksplit", false) ? options.ksplit : 0;
  // What the fragment plan keeps in registers needs no planned round trip (emitter.h): the
  // ops whose every result it places (loops excepted: they may carry flat values too); nor
  // does the conversion of a copied load made in its slot (AsyncPlan::passes_handle).
  gpu_options.in_registers = [options](const ir::Function& f) {
    FragmentPlan plan = fragment_plan(f, options);
    const bool copies = options.num_stages >= 2 && gpu::has_dot(f.body());
    AsyncPlan async = copies ? plan_async_copies(f, plan, options.sm, options.num_warps, options.tma, options.inflight_copies,
                                                 experiment(options, "rbmerge", true), experiment(options, "rbfit", true))
                             : AsyncPlan{};
    std::unordered_set<const ir::Op*> ops;
    std::function<void(const ir::Region&)> walk = [&](const ir::Region& region) {
      for (const auto& op : region.ops()) {
        for (const auto& inner : op->regions()) walk(*inner);
        const bool control = op->kind() == ir::OpKind::For || op->kind() == ir::OpKind::While || op->kind() == ir::OpKind::If;
        if (control || op->num_results() == 0) continue;
        if (async.passes_handle(*op)) ops.insert(op.get());
        if (async.reads_copied_lines(*op) && plan.layout(op->result()) == nullptr) ops.insert(op.get());
        bool all = true;
        for (const auto& r : op->results()) all = all && plan.layout(r.get()) != nullptr;
        if (all) ops.insert(op.get());
      }
    };
    walk(f.body());
    return ops;
  };
  return gpu::run_gpu_passes(function, gpu_options);
}

// Runs `body` on a fresh compilation, turning LLVM's fatal errors into InternalErrors.
template <typename F>
auto with_llvm(const ir::Function& function, const TargetOptions& options_in, F body) {
  validate(function, options_in);
  initialize_llvm();
  Compilation c;
  try {
    std::unique_ptr<ir::Function> gpu = gpu_passes(function, options_in);
    const ir::Function& kernel_ir = gpu ? *gpu : function;
    // A K loop split over a cluster (gpu/split_k_cluster.h): each program a cluster of 2, 4
    // or 8 CTAs.
    TargetOptions options = options_in;
    if (gpu && gpu::has_split_k(*gpu)) options.num_ctas = gpu::split_k_size(*gpu);
    FragmentPlan fragments = fragment_plan(kernel_ir, options);
    bool wgmma = options.sm == 90 && gpu::has_dot(kernel_ir.body()) &&
                 any_wgmma(kernel_ir, fragments, options.sm, options.num_warps);
    make_machine(c, function, options, wgmma);
    c.gate.skip = skips_straight_line_passes(kernel_ir, options.num_warps);
    // LoopStrengthReduce: skipped where a line is reloaded in a loop (FragmentPlan::
    // reloads_in_loop), unless the experiments say "lsr" (always run) or "nolsr" (never).
    c.gate.skip_lsr = !experiment_named(options, "lsr").value_or(!fragments.reloads_in_loop());
    AsyncPlan copies =
        plan_async_copies(kernel_ir, fragments, options.sm, options.num_warps, options.tma, options.inflight_copies,
                          experiment(options, "rbmerge", true), experiment(options, "rbfit", true));
    build_kernel(c, function, options, copies.tma_params);  // a CUtensorMap parameter each
    Emitter emitter(kernel_ir, options, c.kernel, std::move(fragments), std::move(copies));
    c.shared_bytes = emitter.emit();
    // The kernel's shared memory in the module (`--emit llvm` shows it; the emulated GPU
    // refuses a kernel over the device's, as the driver would): !tritium.shared_bytes.
    llvm::LLVMContext& context = c.module->getContext();
    c.module->getOrInsertNamedMetadata("tritium.shared_bytes")
        ->addOperand(llvm::MDNode::get(context, llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(
                                                    llvm::Type::getInt64Ty(context), c.shared_bytes))));
    // Which argument each CUtensorMap parameter encodes, in parameter order (the launch packs
    // them from c.params; the emulated GPU makes its own maps from the same):
    // !tritium.tensor_maps, one argument index each.
    std::vector<llvm::Metadata*> map_sources;
    for (const PtxParam& p : c.params) {
      if (p.part == ir::ArgPart::DescTensorMap) {
        map_sources.push_back(llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt64Ty(context), p.index)));
      }
    }
    if (!map_sources.empty()) {
      c.module->getOrInsertNamedMetadata("tritium.tensor_maps")->addOperand(llvm::MDNode::get(context, map_sources));
    }
    link_libdevice(c, function);
    std::string broken;
    llvm::raw_string_ostream out(broken);
    if (llvm::verifyModule(*c.module, &out)) internal_error("nvptx", "invalid LLVM IR for '" + function.name() + "': " + broken);
    c.check("code generation");
    return body(c);
  } catch (const LlvmFatal& fatal) {
    c.abandoned = true;
    internal_error("nvptx", "LLVM failed on kernel '" + function.name() + "': " + fatal.reason, function.loc());
  }
}

}  // namespace

llvm::Type* llvm_scalar_type(llvm::LLVMContext& context, ir::ScalarKind kind) {
  switch (kind) {
    case ir::ScalarKind::I1: return llvm::Type::getInt1Ty(context);
    case ir::ScalarKind::I8: case ir::ScalarKind::U8: return llvm::Type::getInt8Ty(context);
    case ir::ScalarKind::I16: case ir::ScalarKind::U16: return llvm::Type::getInt16Ty(context);
    case ir::ScalarKind::I32: case ir::ScalarKind::U32: return llvm::Type::getInt32Ty(context);
    case ir::ScalarKind::I64: case ir::ScalarKind::U64: return llvm::Type::getInt64Ty(context);
    case ir::ScalarKind::F16: return llvm::Type::getHalfTy(context);
    case ir::ScalarKind::BF16: return llvm::Type::getBFloatTy(context);
    case ir::ScalarKind::F32: return llvm::Type::getFloatTy(context);
    case ir::ScalarKind::F64: return llvm::Type::getDoubleTy(context);
    // fp8 values travel as their bits; emit_fp8.cpp converts them.
    case ir::ScalarKind::F8E4NV: case ir::ScalarKind::F8E5: case ir::ScalarKind::F8E4B15:
    case ir::ScalarKind::F8E4B8: case ir::ScalarKind::F8E5B16: return llvm::Type::getInt8Ty(context);
  }
  internal_error("nvptx", "unknown scalar kind");
}

int ptx_version_for(const TargetOptions& options) {
  if (options.ptx_version > 0) return options.ptx_version;
  // Hopper gets 8.0 (CUDA 12.0, as Triton uses); every other target the first PTX ISA that
  // knows it, so that older drivers load it. All of them load on CUDA 12 drivers.
  if (options.sm >= 90 && options.sm < 100) return 80;
  return std::max(min_ptx_version(options.sm), 70);
}

CompiledPtx compile_to_ptx(const ir::Function& function, const TargetOptions& options) {
  return with_llvm(function, options, [&](Compilation& c) {
    optimize(c, options);
    c.check("optimization");
    CompiledPtx out;
    out.llvm_ir = print_module(*c.module);
    out.ptx = emit_ptx(c);
    c.check("PTX emission");
    out.kernel_name = function.name();
    out.num_warps = options.num_warps;
    out.shared_bytes = static_cast<int>(c.shared_bytes);
    out.sm = options.sm;
    out.ptx_version = ptx_version_for(options);
    out.params = c.params;
    return out;
  });
}

std::string emit_gpu_ir(const ir::Function& function, const TargetOptions& options) {
  validate(function, options);
  std::unique_ptr<ir::Function> copy = gpu_passes(function, options);
  const ir::Function& gpu = copy ? *copy : function;
  FragmentPlan fragments = fragment_plan(gpu, options);
  AsyncPlan copies = plan_async_copies(gpu, fragments, options.sm, options.num_warps, options.tma, options.inflight_copies,
                                       experiment(options, "rbmerge", true), experiment(options, "rbfit", true));
  const int threads = 32 * options.num_warps;
  gpu::VectorWidths widths = gpu::choose_vector_widths(gpu, threads, options.vectorize);
  // How a copied operand's groups move (emit_async.cpp's issue_copies): proved, tested, single.
  auto copy_text = [&](const ir::Op& load) -> std::string {
    const ir::Type* type = load.result()->type();
    const int eb = ir::is_fp8(type->element()->scalar_kind()) ? 1 : 2;
    int w = widths.width(load);
    if (w > 1 && w * eb >= 4) return std::to_string(eb * w) + "-byte copies";
    if (gpu::computes_cold_addresses(load, w)) return std::to_string(eb) + "-byte copies, addresses computed where copied (cold)";
    int g = gpu::tested_width(type, widths.vector(type->num_elements()), eb);
    if (g * eb < 4) g = 1;  // cp.async moves 4, 8 or 16 bytes (emit_async.cpp)
    return g > 1 ? std::to_string(eb * g) + "-byte copies where a run-time test holds"
                 : std::to_string(eb) + "-byte copies";
  };
  auto layout_text = [&](const ir::Value* v) -> std::string {
    const FragmentLayout* l = fragments.layout(v);
    if (const FragmentLayout* copy = fragments.invariant_copy(v)) {
      return "also copied into fragments here, once, for the loop that reads it so (" + std::to_string(copy->warps_m) + "x" +
             std::to_string(copy->warps_n) + " warps)";
    }
    if (l == nullptr) return "";
    if (l->rows) {
      return "fragment rows: " + std::to_string(l->warps_m) + " warps along m, " + std::to_string(l->num_regs()) +
             " rows per thread" + (fragments.needs_flat(v) ? ", also read flat" : "");
    }
    return "fragments: " + std::to_string(l->warps_m) + "x" + std::to_string(l->warps_n) + " warps, " +
           std::to_string(l->rep_m) + "x" + std::to_string(l->rep_n) + " tiles of 16x8 each" +
           (fragments.needs_flat(v) ? ", also read flat" : "") +
           (v->def() != nullptr && v->def()->kind() == ir::OpKind::Load && fragments.loads_fragment(*v->def())
                ? ", each thread's loaded from global memory"
                : "");
  };
  const bool reload = experiment(options, "reload", true);
  auto note = [&](const ir::Op& op) -> std::string {
    std::vector<std::string> parts;
    if (op.kind() == ir::OpKind::Dot) parts.push_back(describe_dot(op, fragments.layout(op.result()), options.sm, options.num_warps,
                                                                   copies.native_fp8.count(&op) != 0));
    if (op.kind() == ir::OpKind::Dot) {
      for (int i = 0; i < 2; ++i) {
        if (fragments.layout(op.operand(i)) == nullptr) continue;
        bool registers = i == 0 && a_in_registers(op, fragments);
        parts.push_back(std::string(i == 0 ? "A" : "B") + (registers ? " read from its fragments' registers" : " staged from its fragments") +
                        (registers && k_evens_first(op, fragments) ? ", K in evens_first order" : ""));
      }
      auto hoisted = copies.hoisted_a.find(&op);
      if (hoisted != copies.hoisted_a.end()) {
        const bool earlier = hoisted->second->loop != op.parent()->parent();
        parts.push_back(std::string("A written once before ") + (earlier ? "an earlier loop" : "the loop") +
                        (hoisted->second->m_major ? ", M-major" : "") + ", at byte " +
                        std::to_string(hoisted->second->offset));
      }
    }
    if (op.kind() == ir::OpKind::Broadcast && fragments.layout(op.result()) != nullptr &&
        fragments.layout(op.operand(0)) == nullptr && reload &&
        std::count(fragments.reloaded_broadcasts(op.operand(0)).begin(), fragments.reloaded_broadcasts(op.operand(0)).end(), &op) != 0) {
      parts.push_back(std::string("the line computed again at the ") +
                      (op.operand(0)->type()->shape()[0] == 1 ? "columns" : "rows") + " each thread holds, its loads with it" +
                      (fragments.reloaded_early(op.operand(0)) != nullptr ? ", early (right after the ops its chain needs)" : ""));
    }
    if (gpu::trans_staged_by_dots(op)) {
      parts.push_back(std::string("moves nothing: its dots stage the source") +
                      (reads_fragment(fragments, op, 0) ? " from its fragments" : ""));
    }
    if (op.kind() == ir::OpKind::Reduce && fragments.layout(op.result(0)) != nullptr) {
      const FragmentLayout* in = fragments.layout(op.operand(0));
      parts.push_back(std::string("in registers, then shfl.bfly within quads") +
                      (in != nullptr && in->warps_n > 1 ? ", then across " + std::to_string(in->warps_n) + " warps through shared memory" : ""));
    }
    auto copy_it = copies.loads.find(op.num_results() == 1 ? op.result() : nullptr);
    if (copy_it != copies.loads.end()) {
      const AsyncOperand& a = *copy_it->second;
      auto transposed_text = [](const AsyncOperand& o) {
        const bool as_a = !o.dots.empty() && o.dots[0]->operand(0) == o.carried;
        return std::string(as_a ? "16-byte copies along M, held transposed (M-major)"
                                : "16-byte copies along K, held transposed (K-major)");
      };
      std::string offsets;
      for (size_t i = 0; i < a.offset.size(); ++i) {
        offsets += (i == 0 ? "" : i + 1 == a.offset.size() ? " and " : ", ") + std::to_string(a.offset[i]);
      }
      int stage = copies.stage.at(op.result());
      std::string which = stage >= 0                ? ", stage " + std::to_string(stage)
                          : a.read_before_copies ? ", the stage this iteration read back, after the dot's barrier"
                          : a.copies_after_dot   ? ", the stage the previous dot read, after the dot's wait for it and a barrier"
                          : a.offset.size() == 2 ? ", the other stage, after the dot's barrier"
                                                 : ", the stage read last, after the dot's barrier";
      parts.push_back(std::string(a.tma_map >= 0 ? "TMA copies (cp.async.bulk.tensor, mbarriers at byte " +
                                                       std::to_string(a.barriers) + ")"
                                                 : "cp.async") +
                      " into stage buffers at bytes " + offsets +
                      (a.tile.swizzle == 0 ? " (rows of " + std::to_string(a.tile.stride()) + " elements)"
                                           : " (" + std::to_string(a.tile.swizzle) + "-byte swizzle)") +
                      which + ", " +
                      (a.tma_map >= 0 ? std::string(a.transposed ? "the descriptor's block, held transposed (K-major)" : "the descriptor's block")
                       : a.by_element && a.transposed ? std::string("4-byte copies of each element, held transposed (K-major)") +
                                                            (a.tile.evens_first ? ", K in evens_first order" : "") +
                                                            (copies.recomputed.count(op.result()) != 0 &&
                                                                     deals_out_rows(a.tile, op.result()->type()->shape(), 32 * options.num_warps)
                                                                 ? ", dealt out 4 K rows x 8 N a warp"
                                                                 : "")
                       : a.by_element                 ? std::string("4-byte copies of each element, dealt out along M")
                       : a.read_back && a.transposed
                           ? std::string("16-byte copies down the columns, held transposed, dealt out evenly, read back ") +
                                 (fragments.reads_back(a.carried) ? "at the fragment positions" : "flat") +
                                 " after the iteration's wait and a barrier"
                       : a.line ? std::to_string(a.tile.element_bytes) +
                                      "-byte copies of each element of a line, read back by its own thread and at any element "
                                      "after the iteration's wait and a barrier"
                       : a.read_back && fragments.reads_back(a.carried)
                           ? copy_text(op) + ", each thread's own runs, read at the fragment positions where the body first uses them"
                       : a.read_back ? copy_text(op) + ", each thread's own runs, read back into its registers where the body first uses them"
                       : !a.transposed                            ? copy_text(op)
                       : copies.recomputed.count(op.result()) ? transposed_text(a) + ", dealt out evenly"
                       : gpu::access_in_slot(op, widths, threads)
                           ? transposed_text(a) + ", each thread its own runs (the load made in its slot)"
                           : transposed_text(a) + ", by the threads holding each run's first element"));
    }
    for (const ir::Value* operand : op.operands()) {
      auto read = copies.carried.find(operand);
      if (fragments.reads_back(operand) && read != copies.carried.end() && read->second->read_back &&
          read->second->carried == operand && op.num_results() == 1 && fragments.layout(op.result()) != nullptr) {
        parts.push_back("a copied operand read at the fragment positions from its stage buffer");
      }
    }
    if (copies.reads_copied_lines(op) && fragments.layout(op.result()) == nullptr) {
      parts.push_back("the line computed at each thread's elements from the copied lines' stage buffers");
    }
    if (op.kind() == ir::OpKind::Load && copy_it == copies.loads.end() && gpu::loads_at_cold_addresses(op, widths.width(op))) {
      parts.push_back("addresses computed where loaded (cold)");
    }
    for (int i = 0; i < op.num_results(); ++i) {
      std::string text = layout_text(op.result(i));
      if (!text.empty()) parts.push_back((op.num_results() > 1 ? "#" + std::to_string(i) + " " : "") + text);
    }
    if (copies.in_flight_dots.count(&op) != 0) parts.push_back("in flight until the next iteration's dot is issued");
    if (op.kind() == ir::OpKind::For) {
      for (int i = 1; i < static_cast<int>(op.region(0)->args().size()); ++i) {
        const ir::Value* arg = op.region(0)->arg(i);
        if (copies.carried.count(arg) != 0) parts.push_back("carried #" + std::to_string(i - 1) + ": a stage buffer's offset");
      }
    }
    std::string out;
    for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
    return out;
  };
  std::string header = "// gpu-ir: sm_" + std::to_string(options.sm) + ", " + std::to_string(options.num_warps) +
                       " warps, num_stages " + std::to_string(options.num_stages) + "; stage buffers: " +
                       std::to_string(copies.reserved_bytes) + " bytes of shared memory\n";
  return header + ir::print(gpu, note);
}

std::string emit_llvm_ir(const ir::Function& function, const TargetOptions& options, bool optimize_ir) {
  return with_llvm(function, options, [&](Compilation& c) {
    if (optimize_ir) {
      optimize(c, options);
      c.check("optimization");
    }
    return print_module(*c.module);
  });
}

}  // namespace tritium::nvptx
