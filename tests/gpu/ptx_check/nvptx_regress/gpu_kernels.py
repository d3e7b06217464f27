import triton
import triton.language as tl

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x + y, mask=mask)

@triton.jit
def issue741(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 2000
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.reshape(tl.arange(0, XBLOCK), [XBLOCK])
    xmask = xindex < xnumel
    x2 = xindex
    x0 = xindex % 1000
    x1 = (xindex // 1000)
    tmp0 = tl.load(in_ptr0 + x2, xmask)
    tmp1 = tl.load(in_ptr1 + x2, xmask)
    tl.store(out_ptr0 + x0 + (1000*tmp0) + (196000*x1) + tl.zeros([XBLOCK], tl.int32), tmp1, xmask)

@triton.jit
def count(counter_ptr, out_ptr):
    pid = tl.program_id(0)
    old = tl.atomic_add(counter_ptr, 1)
    tl.store(out_ptr + pid, old)

@triton.jit
def hist(x_ptr, bins_ptr, fbins_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(bins_ptr + x % 16, 1, mask=mask)
    tl.atomic_add(fbins_ptr + x % 16, 0.5, mask=mask, sem="relaxed")

@triton.jit
def fminmax(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.atomic_max(out_ptr + offs % 4, x, mask=mask)
    tl.atomic_min(out_ptr + 4 + offs % 4, x, mask=mask)

@triton.jit
def inplace(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(x_ptr + offs, x + 1, mask=mask)

@triton.jit
def bcast(x_ptr, y_ptr, out_ptr, BM: tl.constexpr, BN: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BM))
    y = tl.load(y_ptr + tl.arange(0, BN))
    z = x[:, None] * 1000.0 + y[None, :]
    offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    tl.store(out_ptr + offs, z)

@triton.jit
def loops(x_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], tl.float32)
    for i in range(0, n, BLOCK):
        v = tl.load(x_ptr + i + tl.arange(0, BLOCK))
        if i > 3:
            acc += v
        else:
            acc = acc * 2 + 1
    i = 0
    while i < n:
        i += 7
    for j in range(n, 0, -3):
        acc = acc - j
    tl.store(x_ptr + tl.arange(0, BLOCK), acc + i)

@triton.jit
def halfs(a_ptr, b_ptr, c_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    c = a * b + a - b
    d = c.to(tl.bfloat16) * 2.0
    e = tl.maximum(d.to(tl.float32), 1.0) / a.to(tl.float32)
    tl.store(out_ptr + offs, e.to(tl.float16), mask=mask)
    tl.store(c_ptr + offs, (c > a).to(tl.int8) + (a.to(tl.int32) // 3).to(tl.int8), mask=mask)

@triton.jit
def ints(x_ptr, y_ptr, z_ptr, s, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    z = x // y + x % y + (x << y) + (x >> y) + tl.minimum(x, y) + (x ^ y)
    tl.store(z_ptr + offs, z, mask=x > s)
    tl.store(z_ptr, s)

@triton.jit
def math32(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y0 = y_ptr
    y1 = y0 + BLOCK
    y2 = y1 + BLOCK
    y3 = y2 + BLOCK
    y4 = y3 + BLOCK
    y5 = y4 + BLOCK
    y6 = y5 + BLOCK
    y7 = y6 + BLOCK
    tl.store(y0 + offs, tl.exp(x))
    tl.store(y1 + offs, tl.log(x))
    tl.store(y2 + offs, tl.sqrt(x))
    tl.store(y3 + offs, tl.rsqrt(x))
    tl.store(y4 + offs, tl.sin(x * 37.0))
    tl.store(y5 + offs, tl.cos(x * 37.0))
    tl.store(y6 + offs, x % 0.37)
    tl.store(y7 + offs, tl.floor(x * 3.0) + tl.ceil(x * 5.0))

@triton.jit
def spin(flag_ptr, x_ptr, out_ptr, BLOCK: tl.constexpr):
    n = tl.load(flag_ptr)
    i = 0
    while i < n:
        v = tl.load(x_ptr + tl.arange(0, BLOCK)) + i
        w = tl.broadcast_to(v[:, None], [BLOCK, BLOCK])
        tl.store(out_ptr + tl.arange(0, BLOCK)[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :], w)
        i += 1

@triton.jit
def cas_lock(lock_ptr, counter_ptr, N: tl.constexpr):
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    c = tl.load(counter_ptr)
    tl.store(counter_ptr, c + 1)
    tl.atomic_xchg(lock_ptr, 0)

@triton.jit
def atom_types(h_ptr, d_ptr, l_ptr, c_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.atomic_add(h_ptr + offs % 8, 0.5, mask=mask)
    tl.atomic_add(d_ptr + offs % 8, 0.25, mask=mask)
    tl.atomic_max(l_ptr + offs % 8, offs.to(tl.int64) * 1000000000, mask=mask)
    tl.atomic_store(x_ptr + offs, offs.to(tl.float16), mask=mask, sem="relaxed")
    tl.atomic_cas(c_ptr + offs % 8, offs % 8, offs % 8 + 100)

@triton.jit
def one_elem(x_ptr, out_ptr, flag, BLOCK: tl.constexpr):
    v = tl.load(x_ptr + tl.arange(0, 1))
    w = tl.broadcast_to(v, [BLOCK])
    if flag:
        w = w + 1.0
    tl.store(out_ptr + tl.program_id(1) * BLOCK + tl.arange(0, BLOCK), w)

@triton.jit
def loop64(x_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], tl.int64)
    for i in range(0, n, 3):
        acc += i
    tl.store(x_ptr + tl.arange(0, BLOCK), acc)
