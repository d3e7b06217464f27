// Tensor-core A from registers: a dot whose A is the previous dot's result (cast to
// f16/bf16, or fp32 for tf32: P of attention) with whole rows in each warp reads it where it
// is, on mma.sync m16n8k16 / m16n8k8 (emit_dot.cpp) and on wgmma.mma_async (here, sm_90a).
// f16/bf16: the m16n8 accumulator tiles 2j and 2j + 1 of a warp's 16 rows are exactly the k16
// A fragment of k-step j: {a0, a1} = tile 2j (row g, columns 2t, 2t + 1), {a2, a3} = tile 2j
// (row g + 8), {a4, a5} and {a6, a7} the same of tile 2j + 1 (g = lane / 4, t = lane % 4),
// two elements per .b32, the lower column in the low half. tf32: tile j is k-step j's k8
// fragment, its K permuted within the 8 (a_fragment, SharedTile::evens_first) and B's with it:
// no shuffles. B stays in its swizzled tile.
#include <llvm/IR/InlineAsm.h>

#include "support/diagnostics.h"
#include "target/nvptx/emitter.h"

namespace tritium::nvptx {

namespace {
// The widest N of one wgmma instruction.
constexpr int64_t kMaxN = 256;
}  // namespace

std::vector<llvm::Value*> Emitter::a_fragment(const ir::Value* a, int64_t k0, int im) {
  const FragmentLayout* la = frags_.layout(a);
  auto it = fragments_.find(a);
  if (la == nullptr || it == fragments_.end()) internal_error("nvptx", "a dot's A is not in fragments");
  const Regs& regs = it->second;
  // Registers c + 4 * (k0 / 8 + rep_n(A) * im) and of the next n-tile, two to a .b32.
  const int base = 4 * (static_cast<int>(k0 / 8) + la->rep_n * im);
  if (a->type()->element()->scalar_kind() == ir::ScalarKind::F32) {
    // tf32's k8 fragment: a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4) take
    // columns 2t, 2t, 2t + 1, 2t + 1 of rows g, g + 8: K read in evens_first order.
    return {regs.at(base), regs.at(base + 2), regs.at(base + 1), regs.at(base + 3)};
  }
  std::vector<llvm::Value*> elements;
  for (int r = base; r < base + 8; ++r) elements.push_back(regs.at(r));
  return pack_pairs(elements);
}

void Emitter::emit_wgmma_registers_a(const ir::Op& op, const FragmentLayout& l, const DotStaging& staging,
                                     const std::string& input, std::vector<llvm::Value*>& c) {
  const int64_t K = op.operand(0)->type()->shape().back();
  // f16 accumulators two to a register, as emit_wgmma's.
  const bool f16_acc = c[0]->getType()->isHalfTy();
  std::vector<llvm::Value*> d = f16_acc ? pack_pairs(c) : c;
  const int per_reg = f16_acc ? 2 : 1;
  // tf32: k8 steps, A's fp32 bits as they are (wgmma reads tf32 from them as from a staged
  // tile: the low 13 bits ignored), K in evens_first order (B's tile is held so), and no
  // transpose bit (B K-major).
  const bool tf32 = input == "tf32";
  const int64_t k_step = tf32 ? 8 : 16;
  // Packed before the fence, which orders every register write before the wgmmas.
  std::vector<std::vector<llvm::Value*>> a_regs;
  for (int64_t k0 = 0; k0 < K; k0 += k_step) {
    for (int im = 0; im < l.rep_m; ++im) {
      a_regs.push_back(a_fragment(op.operand(0), k0, im));
      for (llvm::Value*& v : a_regs.back()) v = b_.CreateBitCast(v, b_.getInt32Ty());
    }
  }
  ptx_effect("wgmma.fence.sync.aligned;", "", {});
  for (int64_t k0 = 0; k0 < K; k0 += k_step) {
    for (int im = 0; im < l.rep_m; ++im) {
      for (int64_t n0 = 0; n0 < l.n; n0 += kMaxN) {
        const int64_t n = std::min(kMaxN, l.n - n0);
        const int count = static_cast<int>(n / 2 / per_reg);
        const int first = static_cast<int>(4 * (n0 / 8 + l.rep_n * im)) / per_reg;
        llvm::Value* desc_b = b_descriptor(staging, k0, n0);
        // Operands: the accumulators (0 .. count-1, tied), A's four registers, B's descriptor.
        std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, $" + std::to_string(count + 5) +
                           ", 0;\nwgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k" + std::to_string(k_step) +
                           (f16_acc ? ".f16." : ".f32.") + input + "." + input + " {";
        std::string constraints;
        for (int i = 0; i < count; ++i) {
          text += (i ? ", $" : "$") + std::to_string(i);
          constraints += f16_acc ? "=r," : "=f,";
        }
        text += "}, {$" + std::to_string(count) + ", $" + std::to_string(count + 1) + ", $" +
                std::to_string(count + 2) + ", $" + std::to_string(count + 3) + "}, $" + std::to_string(count + 4) +
                ", p, 1, 1" + (tf32 ? "" : staging.b_k_major ? ", 0" : ", 1") + ";\n}";
        // Scale D = 1 (accumulate), A and B not negated, B N-major (transposed) or K-major.
        std::vector<llvm::Type*> types = {b_.getInt32Ty(), b_.getInt32Ty(), b_.getInt32Ty(), b_.getInt32Ty(),
                                          b_.getInt64Ty(), b_.getInt32Ty()};
        std::vector<llvm::Value*> args = a_regs[static_cast<size_t>(k0 / k_step * l.rep_m + im)];
        args.push_back(desc_b);
        args.push_back(b_.getInt32(1));
        wgmma_call(text, constraints + "r,r,r,r,l,r", types, args, d, first, count);
      }
    }
  }
  ptx_effect("wgmma.commit_group.sync.aligned;", "", {});
  // Waited for at once unless the plan keeps it in flight (attention's P.V: A's registers
  // are written again only from the next iteration's first dot, after its wait for this
  // one, async_copy.cpp's last_dot_in_flight).
  wgmma_dot_wait(op, d);
  c = f16_acc ? unpack_half_pairs(d) : d;
}

}  // namespace tritium::nvptx
