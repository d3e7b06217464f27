# The debugging builtins become ops (print, assert with debug, debug_barrier) and tl.fma one
# fused op; on the GPU print calls the driver's vprintf, a failed assert prints file:line
# and traps, debug_barrier is bar.sync and fma is fma.rn. Without --debug the assert is gone.
#
# RUN: --kernel debug_ops --signature "*fp32:16, i32, BLOCK=128" --emit ir --debug 1
# RUN: --kernel debug_ops --signature "*fp32:16, i32, BLOCK=128" --emit ir --check-prefix=NODEBUG
# RUN: --kernel debug_ops --signature "*fp32:16, i32, BLOCK=128" --emit ptx --debug 1 --check-prefix=PTX
#
# CHECK-LABEL: func @debug_ops(
# CHECK: [[X:%[0-9]+]] = load
# CHECK: print [[X]] {hex = 0, prefix = " x: "}
# CHECK: print %n, [[X]] {hex = 1, prefix = " both: "}
# CHECK: [[C:%[0-9]+]] = cmp [[X]], {{%[0-9]+}} {predicate = "lt"}
# CHECK-NEXT: assert [[C]] {msg = "x below n"}
# CHECK-NEXT: debug_barrier
# CHECK: [[F:%[0-9]+]] = fma [[X]], [[X]], [[X]] : block<128xfp32>
# CHECK: store {{%[0-9]+}}, [[F]]
#
# NODEBUG-LABEL: func @debug_ops(
# NODEBUG: print
# NODEBUG-NOT: assert
# NODEBUG: debug_barrier
#
# PTX: .extern .func  (.param .b32 func_retval0) vprintf
# PTX: call.uni (retval0), vprintf,
# PTX: bar.sync
# PTX-NEXT: fma.rn.f32
# PTX: call.uni (retval0), vprintf,
# PTX-NEXT: {{.*}}
# PTX-NEXT: trap;
import tritium
import tritium.language as tl


@tritium.jit
def debug_ops(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.device_print("x", x)
    tl.device_print("both", n, x, hex=True)
    tl.device_assert(x < n, "x below n")
    tl.debug_barrier()
    tl.store(x_ptr + offs, tl.fma(x, x, x))
