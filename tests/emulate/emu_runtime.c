// The launch side of tests/emulate/emulated_gpu.py: every CTA of a grid run on the host, one
// after another, each thread of the CTA a host thread (test_cpu_emulation.py's driver gives
// emu_tid, the CTA and warp barriers and the shuffles; tests/cli/emu_tensor_core.c the tensor
// cores and cp.async). Added here: %ctaid / %nctaid, the kernel's entry called through
// emu_entry (its parameters read from 8-byte slots, made by emulated_gpu.py), global atomics
// (atom.global.*, as host atomics), mma.sync m16n8k8 tf32 and m16n8k32 s8, cvt.rna.tf32,
// and the NVVM intrinsics the emitter calls (emu_nvvm_*: the host's libm for the .approx ones,
// which agree with the GPU's to a few ulps).
#include <fenv.h>
#include <limits.h>
#include <signal.h>
#include <unistd.h>
#include <stdint.h>

__thread int emu_ctaid_x, emu_ctaid_y, emu_ctaid_z;
int emu_nctaid_x = 1, emu_nctaid_y = 1, emu_nctaid_z = 1;

void emu_entry(const unsigned long long* args);

static const unsigned long long* launch_args;
static long launch_ctas;
static int launch_threads;

static void* emu_worker(void* tid) {
  emu_tid = (int)(long)tid;
  for (long c = 0; c < launch_ctas; ++c) {
    emu_ctaid_x = (int)(c % emu_nctaid_x);
    emu_ctaid_y = (int)((c / emu_nctaid_x) % emu_nctaid_y);
    emu_ctaid_z = (int)(c / ((long)emu_nctaid_x * emu_nctaid_y));
    emu_entry(launch_args);
    if (copy_count) emu_fail("cp.async copies never waited for", (unsigned)copy_count);
    read_count = 0;
    pthread_barrier_wait(&cta);  // every thread done with the CTA: fresh shared memory
    if (emu_tid == 0) memset(__tritium_shared, 0x7f, 262144);
    pthread_barrier_wait(&cta);
  }
  return NULL;
}

// A wild address: where it was (the kernel's shared memory or elsewhere), then exit 5.
static void on_segv(int sig, siginfo_t* info, void* context) {
  (void)sig, (void)context;
  char text[200];
  long off = (char*)info->si_addr - __tritium_shared;
  int n = snprintf(text, sizeof text, "emulation: invalid memory access at %p (%s %ld of shared memory), thread %d\n",
                   info->si_addr, off >= 0 && off < 262144 ? "byte" : "not in: offset", off, emu_tid);
  if (write(2, text, (size_t)n) < 0) _exit(6);
  _exit(5);
}

// Runs the grid (gx, gy, gz) of `threads` threads per CTA on the arguments' slots.
int emu_launch(const unsigned long long* args, int gx, int gy, int gz, int threads) {
  if (threads < 32 || threads > 1024 || threads % 32) emu_fail("threads per CTA", (unsigned)threads);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_segv;
  action.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &action, NULL);
  sigaction(SIGBUS, &action, NULL);
  emu_nctaid_x = gx, emu_nctaid_y = gy, emu_nctaid_z = gz;
  launch_args = args;
  launch_ctas = (long)gx * gy * gz;
  launch_threads = threads;
  memset(__tritium_shared, 0x7f, 262144);
  pthread_barrier_init(&cta, NULL, threads);
  for (int w = 0; w < threads / 32; ++w) pthread_barrier_init(&warp[w], NULL, 32);
  init_warpgroups(threads);
  static pthread_t t[1024];
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 1 << 22);
  for (long i = 0; i < threads; ++i)
    if (pthread_create(&t[i], &attr, emu_worker, (void*)i)) emu_fail("pthread_create", (unsigned)i);
  for (int i = 0; i < threads; ++i) pthread_join(t[i], NULL);
  return 0;
}

// ---- {mov $0, 0; @$p} atom.global{.scope}{.sem}.op.type $0, [$1], $2{, $3}: slots address, operand(s),
//      and the predicate's slot (-1 without) ----
// op: 0 add, 1 max, 2 min, 3 and, 4 or, 5 xor, 6 exch, 7 cas. type: 0 unsigned / bits,
// 1 signed, 2 float (f16, bf16, f32, f64 by bits).
static double float_of(unsigned long long bits, int width) {
  if (width == 16) return half_to_float((unsigned short)bits);
  if (width == 32) { float f; unsigned u = (unsigned)bits; memcpy(&f, &u, 4); return f; }
  double d;
  memcpy(&d, &bits, 8);
  return d;
}
static unsigned long long bits_of(double v, int width) {
  if (width == 16) return float_to_half((float)v);
  if (width == 32) { float f = (float)v; unsigned u; memcpy(&u, &f, 4); return u; }
  unsigned long long b;
  memcpy(&b, &v, 8);
  return b;
}
static unsigned long long combine(int op, int type, int width, int bf16, unsigned long long old, unsigned long long v) {
  unsigned long long mask = width == 64 ? ~0ull : (1ull << width) - 1;
  old &= mask, v &= mask;
  if (type == 2 && op <= 2) {
    double a, b;
    if (bf16) a = bf16_to_float((unsigned short)old), b = bf16_to_float((unsigned short)v);
    else a = float_of(old, width), b = float_of(v, width);
    double r = op == 0 ? a + b : op == 1 ? (a > b ? a : b) : (a < b ? a : b);
    if (bf16) {
      float f = (float)r;
      unsigned u;
      memcpy(&u, &f, 4);
      return ((u + 0x7fffu + ((u >> 16) & 1u)) >> 16) & 0xffffu;
    }
    return bits_of(r, width) & mask;
  }
  long long so = width == 64 ? (long long)old : (long long)(old << (64 - width)) >> (64 - width);
  long long sv = width == 64 ? (long long)v : (long long)(v << (64 - width)) >> (64 - width);
  switch (op) {
    case 0: return (old + v) & mask;
    case 1: return type == 1 ? (unsigned long long)(so > sv ? so : sv) & mask : (old > v ? old : v);
    case 2: return type == 1 ? (unsigned long long)(so < sv ? so : sv) & mask : (old < v ? old : v);
    case 3: return old & v;
    case 4: return old | v;
    case 5: return old ^ v;
    default: return v;
  }
}
void emu_atom(const unsigned long long* in, unsigned long long* out, int op, int type, int width, int bf16,
              int pred_slot) {
  // `@p atom` (a masked atomic): nothing where p is false, the result the preceding mov's 0.
  if (pred_slot >= 0 && !(in[pred_slot] & 1)) {
    out[0] = 0;
    return;
  }
  char* p = (char*)in[0];
  if ((uintptr_t)p % (width / 8)) emu_fail("atomic address misaligned", (unsigned)(uintptr_t)p);
  unsigned long long v = in[1], result = 0;
  if (width == 16) {
    unsigned short* q = (unsigned short*)p;
    unsigned short old = __atomic_load_n(q, __ATOMIC_SEQ_CST), next;
    do {
      if (op == 7 && old != (unsigned short)in[1]) break;
      next = (unsigned short)(op == 7 ? in[2] : combine(op, type, 16, bf16, old, v));
    } while (!__atomic_compare_exchange_n(q, &old, next, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
    result = old;
  } else if (width == 32) {
    unsigned* q = (unsigned*)p;
    unsigned old = __atomic_load_n(q, __ATOMIC_SEQ_CST), next;
    do {
      if (op == 7 && old != (unsigned)in[1]) break;
      next = (unsigned)(op == 7 ? in[2] : combine(op, type, 32, 0, old, v));
    } while (!__atomic_compare_exchange_n(q, &old, next, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
    result = old;
  } else {
    unsigned long long* q = (unsigned long long*)p;
    unsigned long long old = __atomic_load_n(q, __ATOMIC_SEQ_CST), next;
    do {
      if (op == 7 && old != in[1]) break;
      next = op == 7 ? in[2] : combine(op, type, 64, 0, old, v);
    } while (!__atomic_compare_exchange_n(q, &old, next, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
    result = old;
  }
  out[0] = result;
}

// ---- {mov.bB $i, default;} @p ld{.volatile}.global{.hints}{.vN}.bB {...}, [$a+offset] ----
// The defaults (the load's `other`) per output i: kind 0 an immediate (lo, hi), 1 a slot.
void emu_ld_global_default(const unsigned long long* in, unsigned long long* out, int count, int bits, int ptr,
                           int pred, int offset, int k0, int lo0, int hi0, int k1, int lo1, int hi1, int k2,
                           int lo2, int hi2, int k3, int lo3, int hi3) {
  const int kind[4] = {k0, k1, k2, k3}, lo[4] = {lo0, lo1, lo2, lo3}, hi[4] = {hi0, hi1, hi2, hi3};
  const char* p = (const char*)in[ptr] + offset;
  int on = pred < 0 || (slot_u32(in, pred) & 1);
  unsigned long long mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  for (int i = 0; i < count; ++i) {
    unsigned long long v = 0;
    if (on) memcpy(&v, p + i * (bits / 8), bits / 8);
    else v = (kind[i] ? in[lo[i]] : ((unsigned long long)(unsigned)hi[i] << 32 | (unsigned)lo[i])) & mask;
    out[i] = v;
  }
}

// ---- {rcp,ex2,lg2,tanh,rsqrt,sqrt,sin,cos}.approx{.ftz}.f32 $0, $1 ----
void emu_unary_f32(const unsigned long long* in, unsigned long long* out, int fn) {
  float x = slot_f32(in, 0), r;
  switch (fn) {
    case 0: r = 1.0f / x; break;
    case 1: r = exp2f(x); break;
    case 2: r = log2f(x); break;
    case 3: r = tanhf(x); break;
    case 4: r = 1.0f / sqrtf(x); break;
    case 5: r = sqrtf(x); break;
    case 6: r = sinf(x); break;
    default: r = cosf(x); break;
  }
  set_f32(out, 0, r);
}

// ---- cvt.rzi.{s,u}N.f{32,64}: toward zero, clamped to the type's range, NaN 0 ----
void emu_cvt_rzi(const unsigned long long* in, unsigned long long* out, int is_signed, int bits, int from) {
  double x = from == 64 ? float_of(in[0], 64) : slot_f32(in, 0);
  double lo = is_signed ? -ldexp(1.0, bits - 1) : 0.0, hi = is_signed ? ldexp(1.0, bits - 1) - 1 : ldexp(1.0, bits) - 1;
  x = x != x ? 0.0 : trunc(x);
  if (x < lo) x = lo;
  if (x > hi) x = hi;
  unsigned long long v = is_signed ? (unsigned long long)(long long)x : (unsigned long long)x;
  out[0] = bits == 64 ? v : v & ((1ull << bits) - 1);
}
void emu_cvt_u16(const unsigned long long* in, unsigned long long* out) { out[0] = in[0] & 0xffffu; }
// ---- max.NaN.xorsign.abs.f32: the larger magnitude, its sign the xor of both, NaN if either is ----
void emu_max_xorsign_abs(const unsigned long long* in, unsigned long long* out) {
  float a = slot_f32(in, 0), b = slot_f32(in, 1);
  float m = fmaxf(fabsf(a), fabsf(b));
  set_f32(out, 0, isnan(a) || isnan(b) ? NAN : (signbit(a) != 0) != (signbit(b) != 0) ? -m : m);  // canonical NaN
}
// ---- { mad.lo.cc.u32 $0, a, b, c; madc.hi.u32 $1, a, b, 0; }: a * b + c as 64 bits ----
void emu_mad_wide_u32(const unsigned long long* in, unsigned long long* out) {
  unsigned long long product = (in[0] & 0xffffffffull) * (in[1] & 0xffffffffull);
  unsigned long long low = (product & 0xffffffffull) + (in[2] & 0xffffffffull);  // carry in bit 32
  out[0] = low & 0xffffffffull;
  out[1] = ((product >> 32) + (low >> 32)) & 0xffffffffull;
}
// ---- cvt.rz.{f32.f64, f16.f32, bf16.f32}: toward zero ----
void emu_cvt_rz(const unsigned long long* in, unsigned long long* out, int which) {
  if (which == 0) {
    double x = float_of(in[0], 64);
    float f = (float)x;
    if (isfinite(x) && fabs((double)f) > fabs(x)) f = nextafterf(f, 0.0f);
    set_f32(out, 0, f);
  } else if (which == 1) {
    float x = slot_f32(in, 0);
    unsigned h = float_to_half(x);
    if (!isnan(x) && fabsf(half_to_float((unsigned short)h)) > fabsf(x)) h -= 1;  // one ulp toward zero
    out[0] = h & 0xffffu;
  } else {
    unsigned u = slot_u32(in, 0);
    float x = slot_f32(in, 0);
    out[0] = isnan(x) ? ((u >> 16) | 0x40u) & 0xffffu : (u >> 16) & 0xffffu;
  }
}

// ---- cvt.rn.satfinite.{e4m3,e5m2}x2.f32 $0, $1, $2: $1 in the upper byte, to nearest even,
// clamped to the largest finite value, NaN 0x7f ----
static unsigned float_to_fp8(float x, int e4m3) {
  int mbits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  float maxv = e4m3 ? 448.0f : 57344.0f;
  if (isnan(x)) return 0x7f;
  unsigned sign = signbit(x) ? 0x80u : 0u;
  float a = fabsf(x);
  if (a > maxv) a = maxv;
  if (a < ldexpf(1.0f, 1 - bias)) return sign | (unsigned)nearbyintf(ldexpf(a, bias - 1 + mbits));  // subnormal
  int e;
  frexpf(a, &e);  // a = m 2^e, m in [0.5, 1)
  float q = nearbyintf(ldexpf(a, mbits - (e - 1)));
  if (q >= (float)(2 << mbits)) q /= 2, ++e;
  return sign | (unsigned)(e - 1 + bias) << mbits | ((unsigned)q & ((1u << mbits) - 1));
}
void emu_cvt_fp8x2(const unsigned long long* in, unsigned long long* out, int e4m3) {
  out[0] = float_to_fp8(slot_f32(in, 0), e4m3) << 8 | float_to_fp8(slot_f32(in, 1), e4m3);
}

// ---- cvt.rna.tf32.f32: 10 mantissa bits, to nearest, ties away from zero ----
void emu_cvt_rna_tf32(const unsigned long long* in, unsigned long long* out) {
  unsigned u = slot_u32(in, 0);
  if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;
  set_u32(out, 0, u);
}

// ---- mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 and m16n8k32 .s32.s8.s8.s32 ----
// tf32 (PTX ISA): A a0..a3 at (g | g+8, t | t+4) (a0 (g, t), a1 (g+8, t), a2 (g, t+4),
// a3 (g+8, t+4)), B b0, b1 at (k t | t+4, n g); s8: four bytes a register, A a0..a3 at
// (g | g+8, 4t..4t+3 | +16), B b0, b1 at (k 4t..4t+3 | +16, n g); C as m16n8k16's.
void emu_mma_k8(const unsigned long long* in, unsigned long long* out, int s8, int a, int b, int c) {
  int w = emu_tid / 32, lane = emu_tid & 31, base = emu_tid & ~31;
  group_in[emu_tid] = in;
  pthread_barrier_wait(&warp[w]);
  const unsigned long long* const* lanes = group_in + base;
  int g = lane / 4, t = lane % 4;
  for (int r = 0; r < 4; ++r) {
    int row = g + (r >= 2 ? 8 : 0), col = 2 * t + (r & 1);
    if (s8) {
      long long sum = (int)slot_u32(in, c + r);
      for (int k = 0; k < 32; ++k) {
        unsigned areg = slot_u32(lanes[(row % 8) * 4 + (k % 16) / 4], a + (row >= 8) + 2 * (k >= 16));
        unsigned breg = slot_u32(lanes[col * 4 + (k % 16) / 4], b + (k >= 16));
        sum += (int)(signed char)(areg >> (8 * (k % 4))) * (int)(signed char)(breg >> (8 * (k % 4)));
      }
      if (sum > 2147483647LL) sum = 2147483647LL;  // .satfinite
      if (sum < -2147483648LL) sum = -2147483648LL;
      set_u32(out, r, (unsigned)(int)sum);
    } else {
      float sum = slot_f32(in, c + r);
      for (int k = 0; k < 8; ++k) {
        float x = element_value(4, slot_u32(lanes[(row % 8) * 4 + k % 4], a + (row >= 8) + 2 * (k >= 4)));
        float y = element_value(4, slot_u32(lanes[col * 4 + k % 4], b + (k >= 4)));
        sum += x * y;
      }
      set_f32(out, r, sum);
    }
  }
  pthread_barrier_wait(&warp[w]);
}

// ---- NVVM intrinsics (renamed llvm.nvvm.X -> emu_nvvm_X, dots as underscores) ----
float emu_nvvm_ex2_approx_ftz_f32(float x) { return exp2f(x); }
float emu_nvvm_ex2_approx_f32(float x) { return exp2f(x); }
double emu_nvvm_ex2_approx_d(double x) { return exp2(x); }
float emu_nvvm_lg2_approx_ftz_f32(float x) { return log2f(x); }
float emu_nvvm_lg2_approx_f32(float x) { return log2f(x); }
double emu_nvvm_lg2_approx_d(double x) { return log2(x); }
float emu_nvvm_rsqrt_approx_ftz_f(float x) { return 1.0f / sqrtf(x); }
float emu_nvvm_rsqrt_approx_f(float x) { return 1.0f / sqrtf(x); }
float emu_nvvm_rsqrt_approx_ftz_f32(float x) { return 1.0f / sqrtf(x); }
float emu_nvvm_rsqrt_approx_f32(float x) { return 1.0f / sqrtf(x); }
double emu_nvvm_rsqrt_approx_d(double x) { return 1.0 / sqrt(x); }
float emu_nvvm_sqrt_approx_ftz_f(float x) { return sqrtf(x); }
float emu_nvvm_sqrt_approx_f(float x) { return sqrtf(x); }
float emu_nvvm_sqrt_rn_f(float x) { return sqrtf(x); }
float emu_nvvm_sqrt_rn_ftz_f(float x) { return sqrtf(x); }
float emu_nvvm_sqrt_f(float x) { return sqrtf(x); }
double emu_nvvm_sqrt_rn_d(double x) { return sqrt(x); }
float emu_nvvm_sin_approx_ftz_f(float x) { return sinf(x); }
float emu_nvvm_sin_approx_f(float x) { return sinf(x); }
float emu_nvvm_cos_approx_ftz_f(float x) { return cosf(x); }
float emu_nvvm_cos_approx_f(float x) { return cosf(x); }
float emu_nvvm_tanh_approx_f32(float x) { return tanhf(x); }
float emu_nvvm_div_approx_ftz_f(float x, float y) { return x / y; }
float emu_nvvm_div_approx_f(float x, float y) { return x / y; }
float emu_nvvm_div_full(float x, float y) { return x / y; }
float emu_nvvm_div_full_ftz(float x, float y) { return x / y; }
float emu_nvvm_div_rn_f(float x, float y) { return x / y; }
float emu_nvvm_div_rn_ftz_f(float x, float y) { return x / y; }
double emu_nvvm_div_rn_d(double x, double y) { return x / y; }
float emu_nvvm_rcp_approx_ftz_f(float x) { return 1.0f / x; }
float emu_nvvm_rcp_rn_f(float x) { return 1.0f / x; }
float emu_nvvm_rcp_rn_ftz_f(float x) { return 1.0f / x; }
double emu_nvvm_rcp_rn_d(double x) { return 1.0 / x; }
double emu_nvvm_rcp_approx_ftz_d(double x) { return 1.0 / x; }
float emu_nvvm_fabs_f(float x) { return fabsf(x); }
float emu_nvvm_fabs_ftz_f(float x) { return fabsf(x); }
float emu_nvvm_fabs_f32(float x) { return fabsf(x); }
float emu_nvvm_fabs_ftz_f32(float x) { return fabsf(x); }
float emu_nvvm_fmax_f(float x, float y) { return fmaxf(x, y); }
float emu_nvvm_fmin_f(float x, float y) { return fminf(x, y); }
float emu_nvvm_fmax_ftz_f(float x, float y) { return fmaxf(x, y); }
float emu_nvvm_fmin_ftz_f(float x, float y) { return fminf(x, y); }
// PTX's max.NaN / min.NaN: a NaN operand gives NaN.
float emu_nvvm_fmax_nan_f(float x, float y) { return isnan(x) || isnan(y) ? NAN : fmaxf(x, y); }
float emu_nvvm_fmin_nan_f(float x, float y) { return isnan(x) || isnan(y) ? NAN : fminf(x, y); }
double emu_nvvm_fmax_d(double x, double y) { return fmax(x, y); }
double emu_nvvm_fmin_d(double x, double y) { return fmin(x, y); }
float emu_nvvm_mul_rn_ftz_f(float x, float y) { return x * y; }
float emu_nvvm_mul_rn_f(float x, float y) { return x * y; }
float emu_nvvm_add_rn_ftz_f(float x, float y) { return x + y; }
float emu_nvvm_add_rn_f(float x, float y) { return x + y; }
double emu_nvvm_mul_rn_d(double x, double y) { return x * y; }
double emu_nvvm_add_rn_d(double x, double y) { return x + y; }
float emu_nvvm_fma_rn_f(float x, float y, float z) { return fmaf(x, y, z); }
float emu_nvvm_fma_rn_ftz_f(float x, float y, float z) { return fmaf(x, y, z); }
double emu_nvvm_fma_rn_d(double x, double y, double z) { return fma(x, y, z); }
static float fma_rounded(float x, float y, float z, int mode) {
  int saved = fegetround();
  fesetround(mode);
  volatile float r = fmaf(x, y, z);
  fesetround(saved);
  return r;
}
float emu_nvvm_fma_rm_ftz_f(float x, float y, float z) { return fma_rounded(x, y, z, FE_DOWNWARD); }
float emu_nvvm_fma_rm_f(float x, float y, float z) { return fma_rounded(x, y, z, FE_DOWNWARD); }
float emu_nvvm_fma_rp_ftz_f(float x, float y, float z) { return fma_rounded(x, y, z, FE_UPWARD); }
float emu_nvvm_fma_rp_f(float x, float y, float z) { return fma_rounded(x, y, z, FE_UPWARD); }
float emu_nvvm_fma_rz_ftz_f(float x, float y, float z) { return fma_rounded(x, y, z, FE_TOWARDZERO); }
float emu_nvvm_fma_rz_f(float x, float y, float z) { return fma_rounded(x, y, z, FE_TOWARDZERO); }
float emu_nvvm_saturate_ftz_f(float x) { return x != x ? 0.0f : x < 0 ? 0.0f : x > 1 ? 1.0f : x; }
float emu_nvvm_saturate_f(float x) { return x != x ? 0.0f : x < 0 ? 0.0f : x > 1 ? 1.0f : x; }
float emu_nvvm_round_f(float x) { return roundf(x); }
float emu_nvvm_floor_ftz_f(float x) { return floorf(x); }
float emu_nvvm_ceil_ftz_f(float x) { return ceilf(x); }
float emu_nvvm_trunc_ftz_f(float x) { return truncf(x); }
float emu_nvvm_round_ftz_f(float x) { return roundf(x); }
double emu_nvvm_floor_d(double x) { return floor(x); }
double emu_nvvm_ceil_d(double x) { return ceil(x); }
double emu_nvvm_trunc_d(double x) { return trunc(x); }
// add.rz: the exact sum (in double, exact for two floats of close exponents; within an ulp
// otherwise) rounded toward zero.
static float toward_zero(double x) {
  float f = (float)x;
  if (isfinite(x) && fabs((double)f) > fabs(x)) f = nextafterf(f, 0.0f);
  return f;
}
float emu_nvvm_add_rz_ftz_f(float x, float y) { return toward_zero((double)x + y); }
float emu_nvvm_add_rz_f(float x, float y) { return toward_zero((double)x + y); }
float emu_nvvm_mul_rz_ftz_f(float x, float y) { return toward_zero((double)x * y); }
float emu_nvvm_mul_rz_f(float x, float y) { return toward_zero((double)x * y); }
float emu_nvvm_trunc_f(float x) { return truncf(x); }
float emu_nvvm_floor_f(float x) { return floorf(x); }
float emu_nvvm_ceil_f(float x) { return ceilf(x); }
// f2i: float to a 32-bit integer (cvt.rni / rzi / rmi / rpi.s32.f32): rounded, NaN to 0,
// clamped to the integer's range, as PTX's cvt does.
static int float_to_i32(double x) {
  if (x != x) return 0;
  if (x <= -2147483648.0) return INT_MIN;
  if (x >= 2147483647.0) return INT_MAX;
  return (int)x;
}
int emu_nvvm_f2i_rn(float x) { return float_to_i32(nearbyint((double)x)); }
int emu_nvvm_f2i_rn_ftz(float x) { return float_to_i32(nearbyint((double)x)); }
int emu_nvvm_f2i_rz(float x) { return float_to_i32(trunc((double)x)); }
int emu_nvvm_f2i_rz_ftz(float x) { return float_to_i32(trunc((double)x)); }
int emu_nvvm_f2i_rm(float x) { return float_to_i32(floor((double)x)); }
int emu_nvvm_f2i_rm_ftz(float x) { return float_to_i32(floor((double)x)); }
int emu_nvvm_f2i_rp(float x) { return float_to_i32(ceil((double)x)); }
int emu_nvvm_f2i_rp_ftz(float x) { return float_to_i32(ceil((double)x)); }
int emu_nvvm_mulhi_i(int x, int y) { return (int)(((long long)x * y) >> 32); }
unsigned emu_nvvm_mulhi_ui(unsigned x, unsigned y) { return (unsigned)(((unsigned long long)x * y) >> 32); }
long long emu_nvvm_mulhi_ll(long long x, long long y) { return (long long)(((__int128)x * y) >> 64); }
unsigned long long emu_nvvm_mulhi_ull(unsigned long long x, unsigned long long y) {
  return (unsigned long long)(((unsigned __int128)x * y) >> 64);
}
int emu_nvvm_d2i_hi(double x) { unsigned long long b; memcpy(&b, &x, 8); return (int)(b >> 32); }
int emu_nvvm_d2i_lo(double x) { unsigned long long b; memcpy(&b, &x, 8); return (int)(unsigned)b; }
double emu_nvvm_lohi_i2d(int lo, int hi) {
  unsigned long long b = (unsigned long long)(unsigned)hi << 32 | (unsigned)lo;
  double d;
  memcpy(&d, &b, 8);
  return d;
}
int emu_nvvm_read_ptx_sreg_laneid(void) { return emu_tid & 31; }
int emu_nvvm_read_ptx_sreg_warpid(void) { return emu_tid / 32; }
int emu_nvvm_read_ptx_sreg_ntid_x(void) { return launch_threads; }
int emu_nvvm_read_ptx_sreg_nctaid_x(void) { return emu_nctaid_x; }
int emu_nvvm_read_ptx_sreg_nctaid_y(void) { return emu_nctaid_y; }
int emu_nvvm_read_ptx_sreg_nctaid_z(void) { return emu_nctaid_z; }
int emu_nvvm_read_ptx_sreg_ctaid_x(void) { return emu_ctaid_x; }
int emu_nvvm_read_ptx_sreg_ctaid_y(void) { return emu_ctaid_y; }
int emu_nvvm_read_ptx_sreg_ctaid_z(void) { return emu_ctaid_z; }
int emu_nvvm_read_ptx_sreg_tid_y(void) { return 0; }
int emu_nvvm_read_ptx_sreg_tid_z(void) { return 0; }
