// tile IR -> LLVM IR -> PTX with LLVM's NVPTX backend: the entry points of src/target/nvptx.
// No LLVM types here (the runtime, the CLI and the tests include this header).
#pragma once

#include <string>
#include <vector>

#include "ir/ir.h"

namespace tritium::nvptx {

struct TargetOptions {
  int sm = 90;          // compute capability: 80 -> sm_80, 90 -> sm_90; at least 70
  int num_warps = 4;    // a program is one CTA of 32 * num_warps threads; a power of two <= 32
  int ptx_version = 0;  // PTX ISA as 10 * major + minor (80 = 8.0); 0 derives it from `sm`
  // Contract a * b + c into fma (Triton's enable_fp_fusion, on by default there too).
  bool enable_fp_fusion = true;
  // Widen loads and stores as the axis facts allow (off: one element per access, the
  // "before" of the vectorization benchmark; TRITIUM_DISABLE_VECTORIZE=1 at run time).
  bool vectorize = true;
  // Triton's num_ctas: CTAs per thread-block cluster (sm_90+); > 1 makes program_id the
  // cluster's id, and only each cluster's first CTA works. maxnreg: PTX .maxnreg (0: none).
  int num_ctas = 1;
  int maxnreg = 0;
  // The CTAs of the cluster the experiment "ksplit" splits a K loop over (2, 4 or 8;
  // gpu/split_k_cluster.h): TRITIUM_KSPLIT, else the launch's choice, else 2.
  int ksplit = 2;
  // Triton's num_stages: 2 or more copies the fp16/bf16 operands of a loop's tl.dot into
  // shared memory with cp.async, one iteration ahead (async_copy.h); 1 leaves loops as written.
  int num_stages = 3;
  // Copy a pipelined dot's host-descriptor operands with the TMA on sm_90 (async_copy.h);
  // off: cp.async as for pointers (TRITIUM_DISABLE_TMA=1 at run time).
  bool tma = true;
  // Where a wgmma kept in flight has its loop's next copies issued (async_copy.h): "" as
  // blocks_per_sm decides, "before" (an extra stage buffer) or "after" (its wait and a
  // barrier first); TRITIUM_INFLIGHT_COPIES at run time, for comparisons. "pv", "pv-before",
  // "pv-after": the last of a loop's several dots stays in flight too (attention's P.V;
  // session 24, opt-in until timed on a GPU).
  std::string inflight_copies;
  // int8 dots in pipelined loops whose B runs along N (a row-major B) on wgmma too: A copied
  // by cp.async as for the other int8 wgmma dots, B loaded into registers and staged K-major
  // by the dot each iteration (gpu/int8_wgmma.h); off: mma.sync. TRITIUM_INT8_ROWB_WGMMA=1 at
  // run time, for timing the two against each other before one becomes the rule.
  bool int8_row_major_wgmma = false;
  // Pipelined loops whose copied operands' pointers read a block-table entry loaded in the
  // body (a paged KV cache): that load prefetched one iteration further ahead into registers,
  // so the operands are copied by cp.async too (gpu/prefetch_operands.h), a K-major tile from
  // its slot (gpu/coalesce.h). Off (TRITIUM_PREFETCH_INDICES=0 at run time), they stay
  // synchronous loads: for timing the two against each other (tests/realk/RESULTS.md,
  // sessions 30 and 31).
  bool prefetch_indices = true;
  // Reduction and scan emission variants, for timing them against each other on a GPU
  // (TRITIUM_REDUCE_EXPERIMENT=name,name at run time; part of the cache key). Names:
  //   chain    combine a thread's registers left to right (Triton's order, so sums are
  //            Triton's to the last bit; a * b + c chains contract into fma): the default;
  //            since session 35 also a dot's row reductions in fragments (and their quad
  //            shuffles the highest lane bit first), which were a tree (mamba's dB row sum:
  //            32 -> 62 fma an iteration, Triton's 62)
  //   nochain  a tree
  //   scanup   a scan's levels across lanes by shfl.up (one combine per level and run;
  //            the default since session 12's A/B: cumsum 0.94-0.97 -> 1.00 of Triton)
  //   noscanup butterflies
  //   iv32     a loop over a 32-bit range with a constant positive step counts in 32 bits
  //            (Triton's width; ptxas then issues all of an unaligned row's loads first, where
  //            a 64-bit counter made the whole-program compile serialize them: cross-entropy
  //            at vocabulary 50257 0.41 -> 1.01 of Triton; the default since session 25)
  //   noiv32   64 bits
  //   fence    a fence.proxy.async before a wgmma reads operands cp.async wrote (the PTX
  //            ISA's rule; the default)
  //   nofence  none for cp.async copies, only for operands staged from registers (Triton's
  //            rule): for timing the fence in attention's and matmul's loops
  //   stmatrix 16-bit fragments go to the flat layout by stmatrix.x4 on sm_90 (a 128x128 fp16
  //            epilogue at 8 warps: 8 instructions instead of 32 stores; fla dqkwg's three bf16
  //            epilogues 96 STS -> 24 STSM, as Triton's 24 STS.128, spills 112 -> 104 B; over
  //            the benchmark's 319 fla / mamba / vllm specializations no spill grew, SASS
  //            132728 -> 129752; but statically ptxas gave some attention kernels 19 more
  //            registers (session 27) and already-spilling FlagGems matmuls more spills (session
  //            27; session 37: mm_kernel_general 6912 -> 7348 B over 42 configs)): opt-in until
  //            timed; nostmatrix the default
  //   nopaircvt a fragment's f32 -> f16 / bf16 cast converts each register alone, as before
  //            session 37; paircvt (the default) a register pair a cvt.rn.{bf16,f16}x2.f32
  //            where an elementwise op reads the cast (Emitter::f32_to_half_in_pairs: fla
  //            dqkwg's `-b_dw.to(bf16)`, 64 F2FP + 47 PRMT -> 32 F2FP; stores already pair)
  //   nopairpad a 4-byte fragment's round trip to the flat layout (an fp32 epilogue) pads its
  //            rows by 16 bytes, as before session 39; pairpad (the default, 4 warps and more)
  //            by 32 where that takes fewer shared-memory wavefronts (Emitter::round_trip_stride:
  //            the pairs' 8-byte stores checked by half-warps; mamba bmm_chunk_fwd 128x128
  //            epilogue 256 -> 128 store wavefronts a warp)
  //   noreload line broadcasts into fragments always move the flat line through shared memory
  //            (two barriers each), as before session 31; reload (the default) loads a line of
  //            loads again at the rows or columns each thread holds (fragment_layout.h's
  //            line_reloaded): for timing the two
  //   nohoista an mma.sync dot's loop-invariant flat A (Q of BLOCK_M 16 attention: vLLM's
  //            unified attention) staged and read by ldmatrix in every iteration, as before
  //            session 33; by default (hoista) it is staged once before the loop and its
  //            fragments held in registers through it (emitter.h's a_fragments_hoisted): no
  //            staging, ldmatrix or barrier for it in the loop, 80 -> 118 registers in vLLM's
  //            kernel (4 blocks an SM still); timed: prefill 1.008 -> 1.047 of Triton (H100);
  //            only within emit_dot.cpp's kHoistedAPressureBudget
  //   nofragread a loop-carried block copied and read back (a load reaching a dot through
  //            elementwise ops) is read flat, and a fragment op reading it goes flat with it,
  //            as before session 32; fragread (the default) reads it at the fragment
  //            positions from its stage buffer (fragment_layout.h's FragmentPlan::reads_back):
  //            for timing the two (fla's delta-rule chunk_..._fwd_kernel_h)
  //   noreloadguard every line line_reloaded allows is reloaded, as in session 31; reloadguard
  //            (the default) only while the fragments and reloaded lines a thread holds there
  //            stay within fragment_layout.h's kReloadRegisterBudget (mamba's dcb at 64 x 128
  //            spilled 328 bytes): for timing the two
  //   noaxis0copy a load reaching a dot through elementwise ops whose 16-byte runs go down
  //            its columns (fla's gla k and gk, K-contiguous) stays a load every iteration, as
  //            before session 32; axis0copy (the default) prefetches it and copies it into a
  //            stage buffer held transposed, read back after the iteration's wait and a barrier
  //            (gpu/prefetch_operands.h, async_copy.h), where it reaches a wgmma A whose
  //            chain goes to A's fragments; axis0flat (opt-in) everywhere
  //   nolinecopy a line (a 1-D load of 4- to 16-byte elements) reaching a dot operand
  //            through elementwise ops (mamba's dA_cs_k and dt_k scaling an operand's rows or
  //            columns) is loaded every iteration, as before session 33; linecopy (the
  //            default) prefetches it and copies each element by cp.async into a stage buffer,
  //            from which the line's broadcasts read it at the elements each thread holds after
  //            the iteration's wait and a barrier (async_copy.h's AsyncOperand::line)
  //   noachain a dot's A computed from read-back blocks is read back flat and staged by the
  //            dot; achain (the default) computes it in A's fragments, reading the blocks at
  //            their fragment positions, and the dot reads A from registers (fragment_layout.h)
  //   noachainmma that A chain (and the copy down the columns of a load reaching it) on wgmma
  //            only; achainmma (the default) on mma.sync too, the kernel's warps splitting M
  //            first where that gives each warp whole rows of A (fragment_layout.h)
  //   nolazybar an unplanned round trip's ending barrier made at once also where only global
  //            stores follow it (the epilogue's accumulator to the flat layout for its
  //            store); lazybar (the default) leaves it pending there (Emitter::end_round_trip)
  //   noelidebar every barrier the emitter makes for its round trips stays; elidebar (the
  //            default) drops one after which every path meets another barrier or the end
  //            before any shared-memory access (late_passes.h's elide_barriers)
  //   nofencerot a pipelined loop's wait and proxy fence stay at the top of its body; fencerot
  //            (the default) moves them back over the backedge to just before the latch's
  //            trailing global writes (mamba's dB: the row sums' atomics), with a copy ahead of
  //            the loop, so the fence's membar.cta does not wait for the previous iteration's
  //            atomics at the top of each iteration (late_passes.h's rotate_proxy_fences)
  //   nofencesink plain global stores before a proxy fence (only shared-memory accesses,
  //            cp.async waits and arithmetic between) stay there; fencesink (the default)
  //            moves them to just after it, so its membar.cta does not wait for them (fla's
  //            state h stored, then staged by stmatrix: late_passes.h's sink_stores_past_fences)
  //   nohoistfadd an fadd of an fmul that a guard's blocks separate stays where it is (two
  //            instructions); hoistfadd (the default, with fp fusion) moves it up to the fmul's
  //            block, where the backend contracts them into an fma (late_passes.h)
  //   narrowcopy (opt-in) a loop-invariant block read in fragments (FragmentPlan::
  //            invariant_copy) that widens f16/bf16 to f32 moves its 16-bit operand there and
  //            widens at the fragments (mamba's dB: `b.to(tl.float32)`; 250 -> 255 registers
  //            there); nonarrowcopy (the default) moves the f32 block
  //   noearlyinv a loop-invariant block's fragment copy (FragmentPlan::invariant_copy) is made
  //            where the IR defines it, after the pipeline's prologue copies, its round trip
  //            in bytes above the stage buffers; earlyinv (the default) makes an elementwise
  //            definition whose operands precede the prologue (mamba's dB: `b.to(f32)`,
  //            sunk to the loop) just before its first copy, the round trip in the stage
  //            buffers' bytes, ordered before their copies by its ending barrier
  //            (Emitter::emission_order; dB 108,544 -> 73,984 shared bytes, Triton's 73,984)
  //   noldmtrans 16-bit read-back blocks held transposed are read at fragment positions a
  //            load an element; ldmtrans (the default) by ldmatrix.x4.trans
  //   norbmerge the loop's dots wait and meet their own barrier after a transposed
  //            read-back's; rbmerge (the default) lets that read-back's serve them
  //            (async_copy.h's AsyncOperand::readies_loop)
  //   nolineslot a loaded line broadcast into addresses (a paged cache's block-table entries:
  //            K's slot and V's layout) goes through shared memory for each broadcast, as
  //            before session 32; lineslot (the default) loads it in the layout the
  //            broadcasts read and carries it so (gpu/coalesce.cpp's lines_in_slot): each
  //            broadcast a register move (vLLM's unified attention: 2 barriers and 2 round
  //            trips fewer an iteration): for timing the two
  //   noonetrip a loop whose constant bounds run it once stays a loop (pipelined as any); by
  //            default (onetrip) it is its body (gpu/inline_one_trip_loops.h), as Triton's
  //            canonicalization folds it: fla's chunk_bwd_kernel_dqkwg at V == BV, 208 -> 48
  //            KiB of shared memory (1 -> 2 blocks an SM): for timing the two
  //   nokeepb  a B several dots read is kept in an operand tile only where its dots' A is not
  //            staged and it is not K-major, as before session 33; keepb (the default) also
  //            there (emitter.h's OperandTile): for timing the two
  //   nodeftile a loaded 16-bit block that only wgmma dots read is staged by each dot that
  //            reads it, as before session 34; deftile (the default) stages it once where it
  //            is defined (emitter.h's stage_at_definition, as Triton's local_alloc), its
  //            tile within a budget that counts the fragments' registers too (fla's dqkwg:
  //            spills 264 -> 96 bytes with refold): for timing the two
  //   norefold after a one-trip loop is inlined, `add(d, dot(a, b, 0))` stays an add, as
  //            before session 34; refold (the default) folds it into the dot
  //            (gpu/inline_one_trip_loops.h): for timing the two
  //   noearlyline a line reloaded at its broadcasts' fragments is computed after its own
  //            definition, as before session 35; earlyline (the default) right after the
  //            last op its chain needs where that is earlier, within kEarlyReloadRegisters
  //            (fragment_layout.h's FragmentPlan::reloaded_early: fla's kkt beta loaded
  //            before the wgmma is issued, not after its wait)
  //   nolazycopy the flat copy an elementwise op of the top-level region makes at once ends
  //            with its barrier, as before session 35; lazycopy (the default) leaves it pending
  //            as lazybar does a store's, also across an operand tile's release (kkt 3 -> 2)
  //   norebaseload a carried pointer block whose initial block is not index-computable stays
  //            carried, as before session 35; rebaseload (the default) rebases it where the
  //            body only loads dot operands through it (gpu/rebase_pointers.h: cce backward's
  //            loop copy of C made in its slot, 60 -> 32 cp.async a thread)
  //   noaccfrag a loop carries a fragment value (a dot's accumulator) whose initial value is
  //            a flat block (`acc = tl.load(C)` before a K loop) flat, converted to the
  //            fragments before each dot and back after it, as before session 38; accfrag (the
  //            default) converts the initial value once before the loop and carries the
  //            fragments (fragment_layout.h's FragmentOptions::any_inits), so a wgmma dot may
  //            stay in flight there (C += A @ B at 128x128x64 w8: loop 446 -> 334 SASS, 4 -> 2 BAR)
  //   accload  (the default on sm_90 since session 39; noaccload turns it off) such a loaded
  //            initial value is loaded as each thread's fragment elements from global memory
  //            (FragmentPlan::loads_fragment), column pairs as one 2-element load: no round
  //            trip before the loop (C += A @ B at 4096^3 on the H100: 0.87 -> 0.96 of Triton),
  //            though an fp32 C costs registers (128x128x64 w8: 148 -> 184; sm_80 64x128x32 w4
  //            s4 spills 8 B, so sm_80 keeps it off by default); without it the value goes to
  //            the fragments through shared memory (an invariant copy: 2 barriers) as Triton
  //            3.6 converts it
  //   accloadlate (opt-in, with accload) such a load that the loop takes directly is made
  //            where the loop begins, after its prologue copies (Emitter::late_fragment_loads_)
  //   nofragreduce a whole-block reduction of fragments reads their flat copy, as before
  //            session 35; fragreduce (the default) reads the fragments where the combine is
  //            an exact integer one (FragmentPlan::reduces_fragments: cce's filter test)
  //   nostsmtrans a hoisted wgmma A that is the trans of 16-bit fragments is held K-major and
  //            written from their flat copy, transposed, as before session 36; stsmtrans (the
  //            default) holds such an A M-major wherever it is staged (fragment_layout.h's
  //            trans_a_m_major, async_copy.h's HoistedOperand::m_major): written from the
  //            fragments by stmatrix.x4, read with wgmma's transpose bit for A, as Triton
  //            (cce's dC dot: no flat copy of d_accum; SASS 4593 -> 4049, spills 4 -> 0 B)
  //   transafrag (opt-in) a K-major wgmma A that is the trans of fragments (nostsmtrans, or
  //            fp8) is written from them an element at a time at its transposed position
  //            (fragment_layout.h's stages_trans_fragments; cce's dC dot under nostsmtrans: no
  //            flat copy of d_accum, 3 barriers and 128 loads fewer, ~190 address
  //            instructions more); notransafrag the default
  //   lsr / nolsr LLVM's LoopStrengthReduce always / never runs; by default (since session
  //            33) it is skipped in kernels whose loops reload a row line at its fragments
  //            (fragment_layout.h's FragmentPlan::reloads_in_loop; codegen.cpp's pass gate):
  //            there it made one 64-bit induction variable of each per-thread address
  //            (mamba's dCB at 64 x 32: 126 -> 94 registers without it, Triton 96; 32 x 32
  //            80 -> 64, Triton 64). `lsr` restores the pass for timing the two; `nolsr` skips
  //            it everywhere (mixed statically: see tests/realk/RESULTS.md, session 33)
  //   nodotchain every wgmma dot waits for its own wgmmas, as before session 34; dotchain (the
  //            default) leaves a dot's wait to the next op where that is a wgmma dot staging
  //            nothing that accumulates onto it or does not read it (emitter.h's
  //            leaves_wait_to_next_dot: fla's delta-rule state loop 4 -> 2 waits a chunk,
  //            Triton 4): for timing the two
  //   nosinkcasts a cast widening a block's elements (bf16 -> fp32) is computed where it is
  //            written, as before session 34; sinkcasts (the default) computes it just before
  //            its first user (gpu/sink_casts.h): liger's layer norm 62 -> 48 registers (Triton
  //            3.6: 48), 4 -> 5 CTAs an SM: for timing the two
  //   nostsmstage a dot operand staged from its fragments (fla's state h, cast to bf16, the B
  //            of the next dots) goes to its tile a register pair a store (st.shared.b32), as
  //            before session 35; stsmstage (the default) by stmatrix.x4 on sm_90, two 16 x 8
  //            tiles an instruction (emitter.h's stmatrix_stage, as Triton: fla's fwd_h loop
  //            48 STS -> 12 STSM, 154 -> 140 registers): for timing the two
  //   noldmread 16-bit read-back blocks in padded rows (fla's `v` of `v - dot(w, h)`) read at
  //            their fragments a register pair a load, as before session 35; ldmread (the
  //            default) by ldmatrix.x4 on sm_90 (emit_async.cpp's read_back_fragment: 16 LDS ->
  //            4 LDSM a chunk): for timing the two
  //   norbfit  the read-back budgets (gpu/prefetch_operands.cpp, async_copy.cpp) count an extra
  //            in-flight buffer for every copied block, as before session 35; rbfit (the
  //            default) only where a dot may stay in flight with it (one dot reads the copies,
  //            or the last of several with TRITIUM_INFLIGHT_COPIES=pv...): fla's dhu at 3
  //            stages then copies dv and reads it back (no synchronous load of it, no fp32
  //            round trip of the dots' result a chunk): for timing the two
  //   nodealsplit a copy dealt out over the threads (AsyncPlan::recomputed, column-element
  //            copies) divides each round's index (tid + first) by the row length, as before
  //            session 36; dealsplit (the default) takes the thread's row plus first / row
  //            where the row divides the thread count (or its column plus first % row where
  //            the thread count divides the row): rounds share rows (emitter.h's dealt_coords)
  //   nocopybase each such round's address recomputed at its coordinates; copybase (the
  //            default) the first round's plus the constant shift_delta proves (one base an
  //            iteration, `[r + imm]`)
  //   norowbound a mask `s + q < b` computed as it is written (fla's 64-bit `o_t < T`: a
  //            64-bit sum and compare a copy); rowbound (the default) compares the thread's q
  //            with b - s clamped once, in 32 bits where q's range fits, where value ranges
  //            prove nothing wraps (emitter.h's row_bound_compare); norowboundrc: not where
  //            recompute_at makes the comparison (fragment positions, past a broadcast);
  //            rowboundew (opt-in): also comparisons made in registers (emit_elementwise).
  //            fla's gla chunk_fwd_kernel_h (BK = BV = 64, 4 warps, 3 stages): loop 463 -> 450
  //            instructions, 36 -> 25 ISETP, 38 -> 18 LEA; dhu 498 -> 487: for timing
  //   nopairmask each position of a line reloaded at the fragments (reload_line) computes
  //            its own mask; pairmask (the default) lets a position take an earlier one's
  //            values (its comparisons) where the axis facts make them constant over aligned
  //            runs holding both positions in every thread (mamba's dCB: `offs_n < limit`
  //            with limit:16, columns c and c + 8 one compare; 10 -> 5 setp): for timing
  //   scalarbase (opt-in, session 38, untimed) a carried pointer block `splat(s) + a` carries
  //            s and makes splat(s_i) + a in the body: one uniform base an iteration, the
  //            32-bit offsets loop-invariant (gpu/rebase_pointers.h), where by default it is
  //            rebased as its initial block plus a carried i64 offset (p0 + splat(o): a 64-bit
  //            add an element); mamba's dCB 96 -> 80 registers, dstates 128 -> 150
  //   noshiftwrap shift_delta passes a non-zero delta through a widening only from a range;
  //            shiftwrap (the default, session 38) also where value ranges leave the sum no
  //            room to wrap, and reload_line addresses a line's positions as the first one's
  //            plus that constant (mamba's dCB 64x32 loop 287 -> 274 with scalarbase)
  //   noflatbase each register group of a flat-layout global load or store addressed by its own
  //            pointer register, as before session 39; flatbase (the default) group 0's pointer
  //            plus the constant shift_delta proves where the groups' coordinates differ by one
  //            shift in every thread (emitter.h's flat_address; fla dqkwg w4: 255 registers /
  //            112 B spilled -> 202 / 0, Triton 255 / 68): for timing the two
  //   norecurstages a loop of several dots that writes memory (a state recurrence: fla's
  //            fwd_h, dhu) keeps attention's 64 KiB cap on its stage buffers, as before session
  //            39; recurstages (the default) copies its operands num_stages - 1 iterations
  //            ahead within gpu::kRecurrenceStageBytes, as Triton's pipeliner does (fwd_h at 3
  //            stages: two chunks ahead, cp.async.wait_group 5 where it waited for everything;
  //            0.91 -> 0.98 of Triton on the H100)
  //   ksplit   (opt-in, sm_90, num_ctas 1) an eligible matmul's K loop split over a cluster
  //            of 2, 4 or 8 CTAs (TargetOptions::ksplit; gpu/split_k_cluster.h): each
  //            program a cluster, each rank a share of the K iterations, the accumulators
  //            summed into rank 0's through distributed shared memory; for timing small
  //            matmuls whose grid leaves SMs idle (the launch picks the size: kernel_gpu.cpp)
  //   ksplitwhole (opt-in, with ksplit) the hand-over reads a rank's whole accumulator, then
  //            adds it (session 37's), instead of 32 registers at a time ordered by a
  //            dependence (emit_control.cpp's cluster_sum; 128x128x32, 4 warps: 255 / 183 regs)
  // Unknown names are an error (a misspelt A/B would time the default twice).
  std::string reduce_experiment;
};

// One kernel parameter as it exists at run time, for packing the launch arguments.
struct PtxParam {
  std::string name;     // the parameter's name in the kernel source
  int index = 0;        // the kernel parameter it comes from (folded ones have no PtxParam)
  // Which piece of that argument (a host tensor descriptor is several: ir::Param).
  ir::ArgPart part = ir::ArgPart::Whole;
  int dim = 0;
  bool is_pointer = false;
  ir::ScalarKind kind = ir::ScalarKind::I32;  // the scalar type, or the pointee of a pointer
  // Bytes the launcher packs for it: 8 for pointers, the scalar's size otherwise, except i1,
  // which travels as a 4-byte integer (0 or 1) as in Triton's launcher.
  int size = 0;
};

struct CompiledPtx {
  std::string ptx;          // the module text, with exactly one `.visible .entry`
  std::string llvm_ir;      // the optimized LLVM IR the PTX was generated from
  std::string kernel_name;  // the entry's name (cuModuleGetFunction)
  int num_warps = 4;        // launch with blockDim = (32 * num_warps, 1, 1)
  // Dynamic shared memory the launch must pass (cuLaunchKernel's sharedMemBytes); above
  // 48 KiB the function attribute MAX_DYNAMIC_SHARED_SIZE_BYTES must be raised first.
  int shared_bytes = 0;
  int sm = 90;              // the target the PTX was generated for
  int ptx_version = 80;     // the `.version` of the PTX, 10 * major + minor
  std::vector<PtxParam> params;  // the entry's parameters, in order
};

// Compiles a kernel (after transforms::run_pipeline). Thread-safe: each call has its own
// LLVM context. Throws CompileError (located at the op) for what the GPU path cannot do,
// InternalError for tritium bugs (including any error LLVM reports).
CompiledPtx compile_to_ptx(const ir::Function& function, const TargetOptions& options);

// The LLVM IR of the kernel, optimized by LLVM's O3 pipeline unless `optimize` is false.
std::string emit_llvm_ir(const ir::Function& function, const TargetOptions& options,
                         bool optimize = true);

// The kernel as the GPU code generator sees it (`--emit gpu-ir`): after the GPU passes,
// each op line followed by what code generation decided for it: the fragment layout of a
// dot's result and of what carries it, the instruction a dot uses, the stage buffers of
// operands copied with cp.async. No LLVM is run.
std::string emit_gpu_ir(const ir::Function& function, const TargetOptions& options);

// The PTX ISA version used for `options` (10 * major + minor): options.ptx_version when set,
// else 8.0 for sm_90 (as Triton) and the first one that knows the target otherwise (7.0 for
// sm_80). compile_to_ptx rejects a version LLVM does not know or too old for the target.
int ptx_version_for(const TargetOptions& options);

}  // namespace tritium::nvptx
