"""A GPU launch emulated on the CPU: a kernel's LLVM IR as tritium's NVPTX emitter makes it
(sm_90 or sm_80) retargeted to the host, every CTA of the grid run one after another with its
threads as host threads, on the arguments' memory in place. So tritium's GPU code path (its
layouts, shared memory, barriers, shuffles, tensor-core fragments, pipelining) computes the
results, without a GPU.

The host IR is tests/cli's (test_cpu_emulation.host_ir: address spaces dropped, shared memory
one global array, %tid.x a thread-local, shuffles through per-warp slots;
test_cpu_emulation_mma16: inline PTX as calls of emu_tensor_core.c), plus emu_runtime.c here
(%ctaid / %nctaid, bar.sync a barrier of the CTA's threads, atomics, m16n8k8 tf32 and
m16n8k32 s8 mma, cvt.rna.tf32, the NVVM intrinsics, and sm_90's TMA: mbarriers with their
phases, bulk tensor loads and stores through the swizzle, cp.async.bulk groups). A host
TensorDescriptor argument is its base, shape and strides, as tritium's launcher passes them,
and where the kernel copies its blocks with the TMA also a tensor map: the 128 bytes of
emu_runtime.c's EmuTensorMap (tensor_map: what runtime/tensor_map.cpp asks the driver to
encode), which only the emulated TMA instructions read. What is not emulated (an unknown asm
statement, an intrinsic without a host version, an argument kind) raises NotEmulated naming
it: never skipped silently. The kernel runs in a forked child (an emulator check, a wild
address or a deadlock then fails the launch, not the caller; another hang times out); the
child writes back the bytes of every tensor argument's storage.

    lib = build(ll)                       # cached by the IR's hash
    launch(lib, ll, signature, values, grid, num_warps)

install(sm) makes every @jit launch of this process run so (tritium's interpreter still
compiles the specialization: its signature and options are the launch's); with check=True
each launch also runs in the interpreter first, on the same inputs, and the two results are
compared (report() lists each launch whose outputs differ)."""

import ctypes
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "cli"))

import test_cpu_emulation as emu  # noqa: E402
import test_cpu_emulation_mma16 as mma16  # noqa: E402

RUNTIME_C = os.path.join(HERE, "emu_runtime.c")
CACHE = os.environ.get("TRITIUM_EMU_CACHE", os.path.join(tempfile.gettempdir(), "tritium-emu-cache"))
LLC, CC = emu.LLC, emu.CC


class NotEmulated(Exception):
    """The kernel uses something the emulator does not run (named in the message)."""


class EmulationFailed(Exception):
    """The emulated kernel failed: an emulator check (a misaligned or out-of-range shared
    address, an operand overwritten in flight, ...), a crash, or a hang."""


def available():
    return LLC is not None and CC is not None


# ---- the IR ----

ATOM = re.compile(r"^(?:mov\.b\d+ \$0, 0;\s*@(\$\d+) )?"
                  r"atom\.global(?:\.[a-z_]+)*?\.(add|max|min|and|or|xor|exch|cas)(\.noftz)?\.(u|s|b|f|bf)(16|32|64) "
                  r"\$0, \[\$1\], \$2(, \$3)?;$")
LD_GLOBAL = re.compile(r"^((?:mov\.b\d+ \$\d+, (?:0x[0-9a-f]+|\$\d+);\s*)*)(?:@(\$\d+) )?ld\.(?:volatile\.)?global"
                       r"[.\w:]*?(?:\.v(\d))?\.b(\d+) (\{[^}]*\}|\$\d+), \[(\$\d+)(?:\+(-?\d+))?\];$")
ATOM_OPS = {"add": 0, "max": 1, "min": 2, "and": 3, "or": 4, "xor": 5, "exch": 6, "cas": 7}


# The TMA statements of emit_async.cpp: `{ .reg ...; setp p; @p instruction; ... }` with the
# instructions below, each an emu_runtime.c call; or the wait loop on an mbarrier's phase.
BAR = r"\[(\$\d+)(?:\+(\d+))?\]"
SETP = re.compile(r"setp\.(eq|ne)\.[bu]32 p, (\$\d+), 0;$")
BULK = [
    (re.compile(r"mbarrier\.init(?:\.shared(?:::cta)?)?\.b64 " + BAR + r", (\d+);$"), "emu_mbarrier_init"),
    (re.compile(r"mbarrier\.inval(?:\.shared(?:::cta)?)?\.b64 " + BAR + r";$"), "emu_mbarrier_inval"),
    (re.compile(r"mbarrier\.arrive\.expect_tx(?:\.release\.cta)?(?:\.shared(?:::cta)?)?\.b64 \w+, " + BAR
                + r", (\d+);$"), "emu_mbarrier_arrive_expect_tx"),
    (re.compile(r"cp\.async\.bulk\.tensor\.([1-5])d\.shared::(?:cluster|cta)\.global(?:\.tile)?"
                r"\.mbarrier::complete_tx::bytes \[(\$\d+)\], \[(\$\d+), \{([^}]*)\}\], " + BAR + r";$"),
     "emu_tma_load"),
    (re.compile(r"cp\.async\.bulk\.tensor\.([1-5])d\.global\.shared::cta(?:\.tile)?\.bulk_group "
                r"\[(\$\d+), \{([^}]*)\}\], \[(\$\d+)\];$"), "emu_tma_store"),
    (re.compile(r"cp\.async\.bulk\.commit_group;$"), "emu_bulk_commit"),
    (re.compile(r"cp\.async\.bulk\.wait_group(?:\.read)? (\d+);$"), "emu_bulk_wait"),
    (re.compile(r"fence\.mbarrier_init\.release\.cluster;$|fence\.proxy\.async(?:\.shared::cta)?;$"), None),
]
WAIT_PARITY = re.compile(r"\{\s*\.reg \.pred p;\s*(\w+)_\$\{:uid\}:\s*"
                         r"mbarrier\.try_wait\.parity(?:\.shared(?:::cta)?)?\.b64 p, " + BAR
                         + r", (\$\d+|[01]);\s*@!p bra \1_\$\{:uid\};\s*\}$")


def translate_bulk(st):
    """A TMA statement (mbarriers, bulk tensor copies) as a list of emu_runtime.c calls, or
    None if it has an instruction, form or operand the emulator does not know."""
    t = st.text.strip()
    m = WAIT_PARITY.match(t)
    if m:
        parity = m.group(4)
        return [("emu_mbarrier_wait_parity", [st.slot(m.group(2)), int(m.group(3) or 0),
                                              st.slot(parity) if parity.startswith("$") else -1,
                                              0 if parity.startswith("$") else int(parity)])]
    if not (t.startswith("{") and t.endswith("}")):
        t = "{" + t + "}"
    pred, calls = None, []
    for line in (x.strip() for x in t[1:-1].split("\n")):
        if line in ("", ".reg .pred p;", ".reg .b64 state;"):
            continue
        m = SETP.match(line)
        if m:
            pred = 2 * st.slot(m.group(2)) + (m.group(1) == "ne")
            continue
        guard = -1
        if line.startswith("@p "):
            if pred is None:
                return None
            guard, line = pred, line[3:]
        for pattern, callee in BULK:
            m = pattern.match(line)
            if m:
                break
        else:
            return None
        if callee is None:
            continue  # the fences: the emulator's copies are in program order already
        g = m.groups()

        def coords(text):
            regs = [x.strip() for x in text.split(",")]
            if not all(re.fullmatch(r"\$\d+", x) for x in regs):
                return None
            return [st.slot(x) for x in regs] + [-1] * (5 - len(regs))
        if callee in ("emu_mbarrier_init", "emu_mbarrier_arrive_expect_tx"):
            consts = [st.slot(g[0]), int(g[1] or 0), int(g[2])]
        elif callee == "emu_mbarrier_inval":
            consts = [st.slot(g[0]), int(g[1] or 0)]
        elif callee == "emu_tma_load":
            at = coords(g[3])
            if at is None or len(g[3].split(",")) != int(g[0]):
                return None
            consts = [int(g[0]), st.slot(g[1]), st.slot(g[2]), st.slot(g[4]), int(g[5] or 0)] + at
        elif callee == "emu_tma_store":
            at = coords(g[2])
            if at is None or len(g[2].split(",")) != int(g[0]):
                return None
            consts = [int(g[0]), st.slot(g[3]), st.slot(g[1])] + at
        elif callee == "emu_bulk_wait":
            consts = [int(g[0])]
        else:
            consts = []
        calls.append((callee, [guard] + consts))
    return calls or [("emu_noop", [])]


def translate(st):
    """emu_runtime.c's asm statements, then emu_tensor_core.c's (mma16.translate). A TMA
    statement is a list of calls (translate_bulk)."""
    t = st.text.strip()
    if "mbarrier." in t or "cp.async.bulk" in t:
        return translate_bulk(st)
    m = ATOM.match(t)
    if m:
        pred, op, _, kind, bits, _ = m.groups()
        if st.slot("$1") != 0 or st.slot("$2") != 1:
            return None
        return "emu_atom", [ATOM_OPS[op], {"u": 0, "b": 0, "s": 1, "f": 2, "bf": 2}[kind], int(bits), int(kind == "bf"),
                            st.slot(pred) if pred else -1]
    m = LD_GLOBAL.match(t)
    if m:
        count, bits = int(m.group(3) or 1), int(m.group(4))
        if m.group(5).strip() != ("{" + ", ".join(f"${i}" for i in range(count)) + "}" if count > 1 else "$0"):
            return None
        movs = re.findall(r"mov\.b(\d+) \$(\d+), (0x[0-9a-f]+|\$\d+);", m.group(1) or "")
        if m.group(2) and len(movs) != count:
            return None
        consts = [count, bits, st.slot(m.group(6)), st.slot(m.group(2)) if m.group(2) else -1, int(m.group(7) or 0)]
        defaults = {int(i): src for _, i, src in movs}
        for i in range(4):
            src = defaults.get(i, "0x0")
            if src.startswith("$"):
                consts += [1, st.slot(src), 0]
            else:
                v = int(src, 16)
                consts += [0, v & 0xffffffff, v >> 32]
        consts = [c - (1 << 32) if c >= 1 << 31 else c for c in consts]
        return "emu_ld_global_default", consts
    m = re.match(r"(rcp|ex2|lg2|tanh|rsqrt|sqrt|sin|cos)\.approx(?:\.ftz)?\.f32 \$0, ?\$1;$", t)
    if m:
        return "emu_unary_f32", [["rcp", "ex2", "lg2", "tanh", "rsqrt", "sqrt", "sin", "cos"].index(m.group(1))]
    m = re.match(r"cvt\.rzi\.([su])(8|16|32|64)\.f(32|64) \$0, \$1;$", t)
    if m:
        return "emu_cvt_rzi", [int(m.group(1) == "s"), int(m.group(2)), int(m.group(3))]
    m = re.match(r"cvt\.u16\.u(32|64) \$0, \$1;$", t)
    if m:
        return "emu_cvt_u16", []
    m = re.match(r"cvt\.rz\.(f32\.f64|f16\.f32|bf16\.f32) \$0, \$1;$", t)
    if m:
        return "emu_cvt_rz", [["f32.f64", "f16.f32", "bf16.f32"].index(m.group(1))]
    if t in ("griddepcontrol.wait;", "griddepcontrol.launch_dependents;"):
        return "emu_noop", []  # (launches run one after another: the previous one is done)
    m = re.match(r"cvt\.rn\.satfinite\.(e4m3|e5m2)x2\.f32 \$0, \$1, \$2;$", t)
    if m:
        return "emu_cvt_fp8x2", [int(m.group(1) == "e4m3")]
    m = re.match(r"cvt\.rn\.(bf16|f16)x2\.f32 \$0, \$1, \$2;$", t)
    if m:
        return "emu_cvt_rn_x2", [int(m.group(1) == "bf16")]
    flat = re.sub(r"\s+", " ", t)  # (multi-line asm bodies with their tabs and newlines)
    if flat == "{ mad.lo.cc.u32 $0, $2, $3, $4; madc.hi.u32 $1, $2, $3, 0; }":
        return "emu_mad_wide_u32", []  # (libdevice's 64-bit products: a * b + c in two halves)
    if flat in ("max.NaN.xorsign.abs.f32 $0, $1, $2;", "{ max.NaN.xorsign.abs.f32 $0, $1, $2; }"):
        return "emu_max_xorsign_abs", []  # (triton_kernels' MX quantization)
    if flat.startswith("// tritium."):
        return "emu_noop", []  # (a note for the runtime: the split K loop's trip formula)
    if flat == "{ .reg .f32 z; mul.rn.f32 z, $1, 0f00000000; cvt.rzi.s32.f32 $0, z; }":
        return "emu_zero_of_product", []  # (the split K loop's hand-over in chunks)
    if t == "cvt.rna.tf32.f32 $0, $1;":
        return "emu_cvt_rna_tf32", []
    m = re.match(r"mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.tf32\.tf32\.f32 (\{[^}]*\}), (\{[^}]*\}), (\{[^}]*\}), "
                 r"(\{[^}]*\});$", t)
    if m:
        st.assert_results(m.group(1))
        return "emu_mma_k8", [0, st.slots(m.group(2)), st.slots(m.group(3)), st.slots(m.group(4))]
    m = re.match(r"mma\.sync\.aligned\.m16n8k32\.row\.col(?:\.satfinite)?\.s32\.s8\.s8\.s32 (\{[^}]*\}), (\{[^}]*\}), (\{[^}]*\}), "
                 r"(\{[^}]*\});$", t)
    if m:
        st.assert_results(m.group(1))
        return "emu_mma_k8", [1, st.slots(m.group(2)), st.slots(m.group(3)), st.slots(m.group(4))]
    return mma16.translate(st)


def asm_as_calls(ll):
    """mma16.asm_as_calls with this file's translate; an asm statement it does not know is
    NotEmulated."""
    wrappers, declared, out = {}, {}, []
    for line in ll.splitlines():
        if " asm " in line:
            line = re.sub(r", !srcloc !\d+", "", line)  # (tl.inline_asm_elementwise's)
        m = mma16.ASM_CALL.match(line)
        if not m:
            if " asm " in line and "call" in line:
                raise NotEmulated(f"inline asm not read: {line.strip()[:300]}")
            out.append(line)
            continue
        indent, lhs, ret, text, constraints, args, _ = m.groups()
        st = mma16.Statement(text, constraints, ret, mma16.split_args(args))
        try:
            found = translate(st)
        except AssertionError as e:  # (mma16.translate's checks of a form it half knows)
            raise NotEmulated(f"inline PTX: {st.text.strip()[:300]!r} ({e})") from None
        if found is None:
            raise NotEmulated(f"inline PTX: {st.text.strip()[:300]!r}")
        calls = tuple((callee, tuple(consts)) for callee, consts in (found if isinstance(found, list) else [found]))
        key = (calls, ret, tuple(st.arg_types), len(st.outputs))
        if key not in wrappers:
            wrappers[key] = f"emu_w{len(wrappers)}"
            for callee, consts in calls:
                declared[callee] = len(consts)
        out.append(f"{indent}{lhs + ' = ' if lhs else ''}call {ret} @{wrappers[key]}({args})")
    text = "\n".join(out) + "\n"
    for (calls, ret, arg_types, outputs), name in wrappers.items():
        text += calls_wrapper(name, ret, arg_types, outputs, calls)
    for callee, count in declared.items():
        text += f"declare void @{callee}(ptr, ptr" + ", i32" * count + ")\n"
    return text


def calls_wrapper(name, ret, arg_types, outputs, calls):
    """mma16.wrapper of the first call; a statement of several instructions (a TMA block's,
    without results) calls the others after it, on the same operand slots."""
    text = mma16.wrapper(name, ret, arg_types, outputs, *calls[0])
    if len(calls) == 1:
        return text
    assert ret == "void" and text.endswith("  ret void\n}\n"), name
    more = "".join(f"  call void @{callee}(ptr %in, ptr %out" + "".join(f", i32 {c}" for c in consts) + ")\n"
                   for callee, consts in calls[1:])
    return text[:-len("  ret void\n}\n")] + more + "  ret void\n}\n"


def _runtime_functions():
    with open(RUNTIME_C) as f:
        return set(re.findall(r"\b(emu_nvvm_\w+)\(", f.read()))


def kernel_params(ll):
    """(name, [LLVM parameter types]) of the IR's kernel (its ptx_kernel function)."""
    m = re.search(r"^define [^@\n]*ptx_kernel [^@\n]*@([\w.$]+)\(", ll, re.M)
    if not m:
        raise NotEmulated("no ptx_kernel function in the IR")
    depth, i = 1, m.end()
    while depth:
        depth += {"(": 1, ")": -1}.get(ll[i], 0)
        i += 1
    params = [p for p in mma16.split_args(ll[m.end():i - 1]) if p]
    return m.group(1), [re.sub(r" addrspace\(\d+\)", "", p).split(" ")[0] for p in params]


def host_ir(ll):
    """The kernel's NVPTX LLVM IR made runnable on the host, with `emu_entry(ptr slots)`
    calling the kernel on its parameters read from 8-byte slots."""
    name, types = kernel_params(ll)
    if re.search(r"@llvm\.nvvm\.barrier[.a-z]*\(i32 [1-9]", ll):
        raise NotEmulated("named barriers")
    ll = re.sub(r"\.L[12]::[a-z_0-9]+", "", ll)  # cache hints of ld/st asm (nothing on the host)
    # A tensor map parameter (a 128-byte grid constant the GPU passes by value): here the
    # address of the emulator's map, which the kernel only hands to the TMA instructions.
    ll = ll.replace('ptr byval([128 x i8]) align 64 "nvvm.grid_constant" ', "ptr ")
    host = emu.host_ir(ll)
    # The kernel's %tid.x is emu_tidx (emu_tid numbers the threads of a whole cluster).
    host = re.sub(r"load i32, ptr @emu_tid(?![\w.$])", "load i32, ptr @emu_tidx", host)
    host = host.replace("@emu_tid = external thread_local global i32",
                        "@emu_tid = external thread_local global i32\n@emu_tidx = external thread_local global i32")
    # The CTA barrier of emu_runtime.c, which knows who waits (a deadlock on an mbarrier shows).
    host = host.replace("@emu_barrier()", "@emu_cta_barrier()")
    host, found = re.subn(r"(@__tritium_shared = global \[262144 x i8\] zeroinitializer), align 16",
                          r"\1, align 262144", host)
    if "@__tritium_shared" not in host:
        host += "@__tritium_shared = global [262144 x i8] zeroinitializer, align 262144\n"
    host = asm_as_calls(host)
    # The other NVVM intrinsics: emu_runtime.c's emu_nvvm_* (dots as underscores).
    known = _runtime_functions()
    missing = set()

    def rename(m):
        fn = "emu_nvvm_" + m.group(1).replace(".", "_")
        if fn not in known:
            missing.add("llvm.nvvm." + m.group(1))
        return "@" + fn
    host = re.sub(r"@llvm\.nvvm\.([\w.]+)", rename, host)
    if missing:
        raise NotEmulated("NVVM intrinsics without a host version: " + ", ".join(sorted(missing)))
    # The declarations of renamed intrinsics lose the intrinsics' attributes (memory(none)
    # of a read of %ctaid is true within a call, but keep nothing for the rest).
    host = re.sub(r"^(declare [^\n]*@emu_nvvm_\w+\([^\n]*)$", lambda m: re.sub(r" captures\([^)]*\)", "", m.group(1)),
                  host, flags=re.M)  # (mapa's `ptr captures(none)`)
    host = re.sub(r"^(declare [^\n]*@emu_nvvm_\w+\([^)]*\))[^\n]*$", r"\1", host, flags=re.M)
    host = re.sub(r"^declare ([^\n]*?)\b(noundef |range\([^)]*\) )+", r"declare \1", host, flags=re.M)
    if "bfloat" in host and "__truncsfbf2" not in host:
        host += mma16.TRUNC_TO_BF16
    lines = ["define void @emu_entry(ptr %slots) {"]
    args = []
    for i, t in enumerate(types):
        lines.append(f"  %p{i} = getelementptr i64, ptr %slots, i64 {i}")
        lines.append(f"  %v{i} = load {t}, ptr %p{i}")
        args.append(f"{t} %v{i}")
    lines += [f"  call void @{name}({', '.join(args)})", "  ret void", "}"]
    return host + "\n".join(lines) + "\n"


def cluster_size(ll):
    """CTAs per cluster of the kernel (its "nvvm.cluster_dim" attribute: num_ctas, or a K loop
    split over a cluster by gpu/split_k_cluster.h); 1 without."""
    m = re.search(r'"nvvm\.cluster_dim"="(\d+),(\d+),(\d+)"', ll)
    if not m:
        return 1
    x, y, z = (int(g) for g in m.groups())
    if y != 1 or z != 1 or x > 8:
        raise NotEmulated(f"a cluster of {x}x{y}x{z} CTAs (the emulator runs up to 8 along x)")
    if x > 1 and ("mbarrier." in ll or "cp.async.bulk" in ll):
        raise NotEmulated("the TMA in a cluster")
    return x


def rank_copy(host, rank):
    """The host IR of the kernel as a cluster's CTA of `rank` runs it: every symbol it defines
    renamed (NAME__r<rank>), so its shared memory is its own array (__tritium_shared__r1) and
    its entry emu_entry__r1; what it declares (the emulator's functions) is shared."""
    names = set(re.findall(r"^define [^@\n]*@([\w.$]+)\(", host, re.M))
    names |= {n for n, rest in re.findall(r"^@([\w.$]+) = ([^\n]*)", host, re.M) if not rest.startswith("external")}
    if not names:
        return host
    pattern = re.compile(r"@(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")(?![\w.$])")
    return pattern.sub(lambda m: f"@{m.group(1)}__r{rank}", host)


def _run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise EmulationFailed(f"{os.path.basename(cmd[0])} failed: {done.stderr.strip()[:2000]}")


def _driver_source(defer_copies):
    prefix = emu.DRIVER[:emu.DRIVER.index("void KERNEL(")]
    with open(mma16.EMU_C) as f:
        tensor_core = f.read()
    with open(RUNTIME_C) as f:
        runtime = f.read()
    # The tensor cores' and cp.async's shared memory is the running CTA's (emu_runtime.c's
    # clusters: emu_smem), and their %tid.x the kernel's.
    tensor_core = tensor_core.replace("extern char __tritium_shared[];", "")
    tensor_core = re.sub(r"\b__tritium_shared\b", "emu_smem", tensor_core)
    tensor_core = tensor_core.replace("out[0] = (unsigned)emu_tid;", "out[0] = (unsigned)emu_tidx;")
    cluster = ("extern char __tritium_shared[];\n__thread int emu_tidx, emu_rank;\n"
               "__thread char* emu_smem = __tritium_shared;\n")
    return f"#define EMU_DEFER_COPIES {int(defer_copies)}\n" + prefix + cluster + tensor_core + runtime


def build(ll, defer_copies=True):
    """The path of a shared library running the kernel of `ll` (emu_launch), built once per
    IR and emulator source (CACHE)."""
    host = host_ir(ll)
    ranks = cluster_size(ll)
    source = _driver_source(defer_copies)
    key = hashlib.sha256((host + "\0" + source + "\0" + str(ranks)).encode()).hexdigest()[:24]
    os.makedirs(CACHE, exist_ok=True)
    so = os.path.join(CACHE, key + ".so")
    if os.path.exists(so):
        return so
    with tempfile.TemporaryDirectory(prefix="emu-build-") as d:
        with open(os.path.join(d, "k.ll"), "w") as f:
            f.write(host)
        with open(os.path.join(d, "driver.c"), "w") as f:
            f.write(source)
        _run([LLC, "-O1", "-relocation-model=pic", "-filetype=obj", os.path.join(d, "k.ll"), "-o",
              os.path.join(d, "k.o")])
        objects = [os.path.join(d, "k.o")]
        for rank in range(1, ranks):  # a cluster's other CTAs: their own copy of the kernel
            with open(os.path.join(d, f"k{rank}.ll"), "w") as f:
                f.write(rank_copy(host, rank))
            objects.append(os.path.join(d, f"k{rank}.o"))
            _run([LLC, "-O1", "-relocation-model=pic", "-filetype=obj", os.path.join(d, f"k{rank}.ll"), "-o",
                  objects[-1]])
        _run([CC, "-O1", "-fPIC", "-c", os.path.join(d, "driver.c"), "-o", os.path.join(d, "driver.o")])
        _run([CC, "-shared", "-Wl,-z,defs", os.path.join(d, "driver.o")] + objects + ["-o",
              os.path.join(d, "k.so"), "-lpthread", "-lm"])
        os.replace(os.path.join(d, "k.so"), so)
    return so


# ---- the arguments ----

def split_signature(signature):
    return [p.strip() for p in mma16.split_args(signature)]


SCALAR = re.compile(r"^(i1|i8|i16|i32|i64|u1|u8|u16|u32|u64|fp16|bf16|fp32|fp64)(:\d+)?$")


def _storage(value):
    """(address, bytes) of the memory a tensor argument's kernel may touch: its whole storage."""
    st = getattr(value, "untyped_storage", None)
    if st is not None:
        s = st()
        return s.data_ptr(), s.nbytes()
    if hasattr(value, "ctypes"):  # numpy
        base = value
        while getattr(base, "base", None) is not None and hasattr(base.base, "ctypes"):
            base = base.base
        return base.ctypes.data, base.nbytes
    inner = _wrapped_tensor(value)
    if inner is not None:
        return _storage(inner)
    raise NotEmulated(f"pointer argument of type {type(value).__name__}")


def _wrapped_tensor(value, depth=2):
    """A library's tensor wrapper that launches by data_ptr() alone (triton_kernels' Tensor,
    whose torch tensor is .storage.data): the torch tensor among its attributes (`depth`
    levels down) whose storage holds that address, else None."""
    if not hasattr(value, "data_ptr") or not hasattr(value, "__dict__"):
        return None
    address = value.data_ptr()
    level = [value]
    for _ in range(depth):
        level = [v for obj in level if hasattr(obj, "__dict__") for v in vars(obj).values()]
        for v in level:
            if hasattr(v, "untyped_storage"):
                s = v.untyped_storage()
                if s.data_ptr() <= address < s.data_ptr() + max(s.nbytes(), 1):
                    return v
    return None


def _address(value):
    if hasattr(value, "data_ptr"):
        return value.data_ptr()
    if hasattr(value, "ctypes"):
        return value.ctypes.data
    raise NotEmulated(f"pointer argument of type {type(value).__name__}")


# ---- host tensor descriptors ----

DESCRIPTOR = re.compile(r"^tensordesc<(\w+)\[([\d, ]+)\](.*)>$")


def descriptor_type(entry):
    """(element bytes, block shape) of a signature's `tensordesc<fp16[64, 64],...>`, or None."""
    m = DESCRIPTOR.match(entry)
    if not m:
        return None
    bits = int(re.match(r"^[a-z]+(\d+)", m.group(1)).group(1))
    return max(1, bits // 8), [int(x) for x in m.group(2).split(",")]


def tma_box(rows, cols, element_bytes):
    """shared_tile.h's tma_box: (inner, outer, swizzle) - one column block of the swizzled
    tile, as wide as the widest swizzle (128, 64 or 32 bytes) that divides a row."""
    row = cols * element_bytes
    swizzle = 128 if row % 128 == 0 else 64 if row % 64 == 0 else 32
    return swizzle // element_bytes, rows, swizzle


EMU_TENSOR_MAP = 0x50414d545f554d45  # emu_runtime.c's EmuTensorMap.magic: "EMU_TMAP"


def tensor_map(desc, element_bytes):
    """The 128 bytes of emu_runtime.c's EmuTensorMap for a host descriptor, holding what
    runtime/tensor_map.cpp asks cuTensorMapEncodeTiled for: the base, the shape and the row
    stride (innermost first), the box of tma_box, its swizzle, zeros outside the tensor
    (OOB fill NONE, whatever the descriptor's padding: so does the launcher). What the
    driver refuses is an EmulationFailed here."""
    import struct
    if len(desc.shape) != 2:
        raise NotEmulated(f"a tensor map of a rank-{len(desc.shape)} descriptor (the launcher encodes 2-D ones)")
    rows, cols = (int(x) for x in desc.block_shape)
    inner, outer, swizzle = tma_box(rows, cols, element_bytes)
    address = _address(desc.base)
    dims = [int(desc.shape[1]), int(desc.shape[0])]
    stride = int(desc.strides[0]) * element_bytes
    refused = [why for bad, why in ((address % 16, "a global address not 16-byte aligned"),
                                    (stride % 16 or not 0 < stride < 1 << 40, f"a row stride of {stride} bytes"),
                                    (not all(0 < d <= 1 << 32 for d in dims), f"dimensions {dims}"),
                                    (not (0 < inner <= 256 and 0 < outer <= 256), f"a box of {inner} x {outer}"),
                                    (inner * element_bytes % 16, f"a box row of {inner * element_bytes} bytes")) if bad]
    if refused:
        raise EmulationFailed(f"cuTensorMapEncodeTiled would refuse {refused[0]} (descriptor block {rows} x {cols})")
    return struct.pack("<QQII5Q4Q5IIII", EMU_TENSOR_MAP, address, 2, element_bytes, *dims, 0, 0, 0, stride, 0, 0, 0,
                       inner, outer, 0, 0, 0, swizzle, 0, 0)


def _map_params(ll):
    """The indices of the kernel's tensor map parameters (128-byte grid constants)."""
    m = re.search(r"^define [^@\n]*ptx_kernel [^@\n]*@[\w.$]+\((.*)\)[^()]*\{$", ll, re.M)
    params = mma16.split_args(m.group(1)) if m else []
    return [i for i, p in enumerate(params) if p.startswith("ptr byval([128 x i8])")]


def tensor_map_sources(ll):
    """The argument index (signature entry) of the host descriptor each tensor map parameter
    of `ll` encodes, in parameter order: the module's !tritium.tensor_maps (codegen.cpp)."""
    count = len(_map_params(ll))
    m = re.search(r"^!tritium\.tensor_maps = !\{!(\d+)\}", ll, re.M)
    node = m and re.search(rf"^!{m.group(1)} = !\{{(.*)\}}$", ll, re.M)
    sources = [int(x) for x in re.findall(r"i64 (\d+)", node.group(1))] if node else []
    if len(sources) != count:
        raise NotEmulated(f"{count} tensor map parameters, !tritium.tensor_maps names {len(sources)}")
    return sources


def pack(signature, values, types, tensor_maps=()):
    """The 8-byte slots of the kernel's LLVM parameters (`types`) from the launch's values (one
    per signature entry), the storages of the pointer arguments (a descriptor's base
    included), and the buffers of the tensor maps the slots point to (tensor_maps: the
    signature index of each map parameter's descriptor), to be kept until the launch."""
    import struct
    entries = split_signature(signature)
    if len(entries) != len(values):
        raise NotEmulated(f"{len(values)} values for the signature's {len(entries)} entries")
    slots, storages, buffers = [], [], []
    for entry, value in zip(entries, values):
        desc = descriptor_type(entry)
        if desc:  # the base, the shape (i32) and the strides but the last (i64), as lower_kernel makes them
            slots.append(_address(value.base))
            storages.append(_storage(value.base))
            slots += [int(x) & 0xffffffff for x in value.shape] + [int(x) & (1 << 64) - 1 for x in value.strides[:-1]]
            continue
        if entry.startswith("*"):
            if value is None:
                slots.append(0)
                continue
            slots.append(_address(value))
            storages.append(_storage(value))
            continue
        m = SCALAR.match(entry)
        if not m:
            if entry == "None" or "=" in entry or re.match(r"^-?[\d.]+$", entry) or entry in ("True", "False"):
                continue  # dropped from the kernel's parameters (a constexpr, None, or 1)
            raise NotEmulated(f"argument kind {entry!r}")
        ty = m.group(1)
        if ty in ("fp32",):
            slots.append(struct.unpack("<I", struct.pack("<f", float(value)))[0])
        elif ty == "fp64":
            slots.append(struct.unpack("<Q", struct.pack("<d", float(value)))[0])
        elif ty in ("fp16", "bf16"):
            raise NotEmulated(f"scalar argument of type {ty}")
        else:
            bits = int(re.sub(r"\D", "", ty))
            slots.append(int(value) & ((1 << 64) - 1 if bits == 64 else (1 << max(bits, 1)) - 1))
    for i in tensor_maps:
        buffer = ctypes.create_string_buffer(128 + 64)
        at = (ctypes.addressof(buffer) + 63) // 64 * 64
        ctypes.memmove(at, tensor_map(values[i], descriptor_type(entries[i])[0]), 128)
        slots.append(at)
        buffers.append(buffer)
    if len(slots) != len(types):
        raise NotEmulated(f"{len(slots)} parameters from the signature and tensor maps, the IR has {len(types)}: "
                          f"{signature}")
    return slots, storages, buffers


# ---- running ----

def launch(so, ll, signature, values, grid, num_warps, timeout=None, tensor_maps=()):
    """Runs the kernel of `so` (built from `ll`) on `values` (one per signature entry:
    tensors, numpy arrays, host tensor descriptors, ints, floats, None) over `grid` in a
    forked child; the pointer arguments' storages come back in place. tensor_maps: the
    signature index of the descriptor of each tensor map parameter (tensor_map_sources)."""
    if timeout is None:
        timeout = float(os.environ.get("TRITIUM_EMU_TIMEOUT", "600"))
    _, types = kernel_params(ll)
    slots, storages, _maps = pack(signature, values, types, tensor_maps)  # (the maps live until the child is done)
    grid = tuple(int(g) for g in grid) + (1,) * (3 - len(grid))
    if min(grid) <= 0:
        return
    # A program is a cluster (num_ctas, or a split K loop): its CTAs are consecutive along x.
    ranks = cluster_size(ll)
    grid = (grid[0] * ranks,) + grid[1:]
    storages = sorted(set(storages))
    with tempfile.TemporaryDirectory(prefix="emu-run-") as d:
        out_path, err_path = os.path.join(d, "out.bin"), os.path.join(d, "err.txt")
        pid = os.fork()
        if pid == 0:  # the child: run, then write every storage back
            code = 4
            try:
                err = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                os.dup2(err, 2)
                lib = ctypes.CDLL(so, mode=ctypes.RTLD_LOCAL)
                lib.emu_set_shared_bytes(ctypes.c_long(shared_bytes(ll)))
                lib.emu_set_cluster(ctypes.c_int(ranks))
                array = (ctypes.c_ulonglong * max(1, len(slots)))(*slots)
                lib.emu_launch.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
                lib.emu_launch(array, grid[0], grid[1], grid[2], 32 * int(num_warps))
                with open(out_path, "wb") as f:
                    for ptr, n in storages:
                        f.write(ctypes.string_at(ptr, n))
                code = 0
            except BaseException as e:  # noqa: BLE001 - reported through the exit status
                os.write(2, f"{type(e).__name__}: {e}\n".encode())
            finally:
                os._exit(code)
        start = time.time()
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.time() - start > timeout:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                raise EmulationFailed(f"timed out after {timeout:.0f}s (a hang: a barrier some threads never reach?)")
            time.sleep(0.002)
        message = open(err_path, errors="replace").read().strip() if os.path.exists(err_path) else ""
        if os.WIFSIGNALED(status):
            raise EmulationFailed(f"the emulated kernel died on signal {os.WTERMSIG(status)} {message[-500:]}")
        if os.WEXITSTATUS(status) != 0:
            raise EmulationFailed(f"exit {os.WEXITSTATUS(status)}: {message[-1000:]}")
        with open(out_path, "rb") as f:
            for ptr, n in storages:
                data = f.read(n)
                ctypes.memmove(ptr, data, n)


def emit_llvm(handle, sm, stage="llvm"):
    o = handle._options
    return handle._kernel.emit(stage, handle.signature, int(o.get("num_warps", 4)), int(o.get("num_stages", 3)), sm,
                               num_ctas=int(o.get("num_ctas", 1)), maxnreg=int(o.get("maxnreg", 0)),
                               enable_fp_fusion=int(o.get("enable_fp_fusion", -1)), debug=bool(o.get("debug", False)))


# The shared memory a block may opt in to (bytes): the H100's and the A100's, as the driver
# reports them. A kernel over it does not load on such a GPU (tritium raises OutOfResources,
# autotuners pass over the config), so it is not emulated either.
SHARED_LIMIT = {90: 232448, 80: 166912}


def shared_bytes(ll):
    """The kernel's shared memory, from the module's !tritium.shared_bytes (codegen.cpp)."""
    m = re.search(r"^!tritium\.shared_bytes = !\{!(\d+)\}", ll, re.M)
    n = m and re.search(rf"^!{m.group(1)} = !\{{i64 (\d+)\}}", ll, re.M)
    if not n:
        raise NotEmulated("the module does not say its shared memory (!tritium.shared_bytes)")
    return int(n.group(1))


_BUILT = {}
# When copies (cp.async, bulk tensor copies) land: at the wait that retires them (True, the
# latest a GPU may take: a read before the wait sees what was there) or at issue (False: an
# overwrite of a buffer still being read shows).
DEFER_COPIES = True


def _built(handle, sm):
    """(LLVM IR, the shared library or None, the NotEmulated error or None, the descriptor of
    each tensor map parameter) of a handle."""
    o = handle._options
    # The emitter's experiments (TRITIUM_REDUCE_EXPERIMENT) change the code of one handle.
    key = (id(handle._kernel), handle.signature, tuple(sorted((k, str(v)) for k, v in o.items())), sm, DEFER_COPIES,
           os.environ.get("TRITIUM_REDUCE_EXPERIMENT", ""))
    if key not in _BUILT:
        ll = emit_llvm(handle, sm)
        try:
            maps = tensor_map_sources(ll)
            _BUILT[key] = (ll, None if shared_bytes(ll) > SHARED_LIMIT[sm] else build(ll, DEFER_COPIES), None, maps)
        except NotEmulated as e:
            _BUILT[key] = (ll, None, e, [])
    return _BUILT[key]


def fits(handle, sm):
    """Whether the kernel's shared memory fits the device's (else it would not load)."""
    return shared_bytes(_built(handle, sm)[0]) <= SHARED_LIMIT[sm]


def run_handle(handle, values, grid, sm):
    """One launch of a compiled handle (tritium.compiled.CompiledKernel) emulated; a kernel
    over the device's shared memory raises OutOfResources, as loading it on the GPU does."""
    o = handle._options
    ll, so, error, maps = _built(handle, sm)
    if error is not None:
        raise NotEmulated(str(error))
    if so is None:
        from tritium.errors import OutOfResources
        raise OutOfResources(shared_bytes(ll), SHARED_LIMIT[sm], "shared memory")
    launch(so, ll, handle.signature, values, grid, int(o.get("num_warps", 4)), tensor_maps=maps)


# ---- every launch of the process ----

LOG = []  # one dict per emulated launch: kernel, signature, options, grid, status, diffs


def _config_text(handle):
    o = handle._options
    consts = [e for e in split_signature(handle.signature) if "=" in e]
    return f"num_warps={o.get('num_warps')} num_stages={o.get('num_stages')} " + " ".join(consts)


def _tensor_args(values):
    # torch tensors only (a host descriptor's base too): a library's stand-in that merely has
    # a storage (FlagGems' StridedBuffer) is restored and run like one, but not compared (its
    # case compares the tensor it wraps against torch).
    import torch
    return [(i, v) for i, v in enumerate(_bases(values)) if isinstance(v, torch.Tensor) and v.is_floating_point()]


def _bases(values):
    """The launch's values with each host tensor descriptor as its base tensor."""
    return [v.base if hasattr(v, "block_shape") and hasattr(v, "base") else v for v in values]


def install(sm, check=False, atol=1e-5, rtol=5e-3):
    """Every kernel[grid](...) / kernel.run(...) of tritium's JITFunction emulated for sm_<sm>.
    check: the interpreter runs the launch first on the same inputs; LOG records the largest
    difference of each floating-point tensor argument."""
    import importlib
    import torch
    jit = importlib.import_module("tritium.jit")  # (the package's `jit` attribute is the decorator)

    def emulated(fn, grid, args, kwargs):
        kernel = fn._kernel or fn._build()
        params = dict(kwargs)
        options = jit._take_options(params, fn.arg_names)
        handle = fn._named(kernel.warmup(args, params, options))
        bound = kernel.bind(args, params)
        if callable(grid):
            grid = grid(bound)
        values = [bound[name] for name in fn.arg_names]
        rec = {"kernel": handle.name, "config": _config_text(handle), "grid": tuple(grid), "status": "ok"}
        LOG.append(rec)
        before = after_interp = None
        if check:
            storages = sorted({_storage(v) for v in _bases(values) if hasattr(v, "untyped_storage")})
            before = [ctypes.string_at(p, n) for p, n in storages]
            kernel.launch(grid, args, params, options)
            after_interp = [(i, v.detach().clone()) for i, v in _tensor_args(values)]
            for (p, n), data in zip(storages, before):
                ctypes.memmove(p, data, n)
        try:
            run_handle(handle, values, grid, sm)
        except NotEmulated as e:
            rec["status"] = f"not emulated: {e}"
            raise
        except EmulationFailed as e:
            rec["status"] = f"failed: {e}"
            raise
        if check:
            diffs = []
            for i, ref in after_interp:
                got = _bases(values)[i]
                if ref.shape != got.shape:
                    continue
                d = (got.double() - ref.double()).abs()
                scale = ref.double().abs().max().item() if ref.numel() else 0.0
                worst = d.max().item() if d.numel() else 0.0
                nan = bool(torch.isnan(got).any().item()) and not bool(torch.isnan(ref).any().item())
                if nan or worst > atol + rtol * scale:
                    diffs.append((fn.arg_names[i], worst, scale, nan))
            rec["diffs"] = diffs
        return handle

    class Launcher:
        def __init__(self, fn, grid):
            self.fn, self.grid = fn, grid

        def __call__(self, *args, **kwargs):
            return emulated(self.fn, self.grid, args, kwargs)

    def getitem(self, grid):
        return Launcher(self, grid)

    def run(self, *args, grid, warmup=False, **kwargs):
        if warmup:
            return original_run(self, *args, grid=grid, warmup=True, **kwargs)
        return emulated(self, grid, args, kwargs)

    original_run = jit.JITFunction.run
    jit.JITFunction.__getitem__ = getitem
    jit.JITFunction.run = run


def run(fn, grid, *args, sm=90, num_warps=4, num_stages=3, **kwargs):
    """fn[grid](*args, **kwargs) emulated for sm_<sm> (tritium's interpreter compiles the
    specialization; nothing runs there); returns the compiled handle."""
    import importlib
    jit = importlib.import_module("tritium.jit")
    kernel = fn._kernel or fn._build()
    params = dict(kwargs, num_warps=num_warps, num_stages=num_stages)
    options = jit._take_options(params, fn.arg_names)
    handle = kernel.warmup(args, params, options)
    bound = kernel.bind(args, params)
    if callable(grid):
        grid = grid(bound)
    run_handle(handle, [bound[name] for name in fn.arg_names], grid, sm)
    return handle
