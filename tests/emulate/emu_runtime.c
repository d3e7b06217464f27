// The launch side of tests/emulate/emulated_gpu.py: every CTA of a grid run on the host, one
// after another, each thread of the CTA a host thread (test_cpu_emulation.py's driver gives
// emu_tid, the CTA and warp barriers and the shuffles; tests/cli/emu_tensor_core.c the tensor
// cores and cp.async). Added here: %ctaid / %nctaid, the kernel's entry called through
// emu_entry (its parameters read from 8-byte slots, made by emulated_gpu.py), global atomics
// (atom.global.*, as host atomics), mma.sync m16n8k8 tf32 and m16n8k32 s8, cvt.rna.tf32,
// and the NVVM intrinsics the emitter calls (emu_nvvm_*: the host's libm for the .approx ones,
// which agree with the GPU's to a few ulps). And sm_90's TMA (below): mbarriers with their
// phases, bulk tensor copies through the emulator's own tensor maps, the CTA barrier that
// lets a deadlock show at once.
#include <fenv.h>
#include <limits.h>
#include <signal.h>
#include <unistd.h>
#include <stdint.h>

__thread int emu_ctaid_x, emu_ctaid_y, emu_ctaid_z;
int emu_nctaid_x = 1, emu_nctaid_y = 1, emu_nctaid_z = 1;

void emu_entry(const unsigned long long* args);

// Thread-block clusters (sm_90) of up to 8 CTAs along x (emu_set_cluster), at most 1024
// threads in all: the cluster's CTAs run at once, each thread a host thread; emu_tid numbers
// the cluster's threads (rank * threads + %tid.x: the warp and warpgroup slots stay
// distinct), emu_tidx is the kernel's %tid.x. Each rank has its own shared memory: rank r > 0
// runs a copy of the kernel whose __tritium_shared is __tritium_shared__r<r>
// (emulated_gpu.py's rank_copy), emu_smem the rank's array for the emulator's own shared
// accesses. mapa maps an address of one rank's array to another's, and the cluster barrier
// counts the threads that ended as arrived.
#define MAX_CLUSTER 8
typedef void (*EmuEntry)(const unsigned long long* args);
#define RANK_SYMBOLS(r)                                                   \
  extern char __tritium_shared__r##r[] __attribute__((weak));            \
  void emu_entry__r##r(const unsigned long long* args) __attribute__((weak));
RANK_SYMBOLS(1)
RANK_SYMBOLS(2)
RANK_SYMBOLS(3)
RANK_SYMBOLS(4)
RANK_SYMBOLS(5)
RANK_SYMBOLS(6)
RANK_SYMBOLS(7)
static int emu_cluster = 1;
void emu_set_cluster(int n) { emu_cluster = n; }
static char* rank_smem(int rank) {
  char* const smem[MAX_CLUSTER] = {__tritium_shared,     __tritium_shared__r1, __tritium_shared__r2,
                                   __tritium_shared__r3, __tritium_shared__r4, __tritium_shared__r5,
                                   __tritium_shared__r6, __tritium_shared__r7};
  return smem[rank];
}
static EmuEntry rank_entry(int rank) {
  const EmuEntry entry[MAX_CLUSTER] = {emu_entry,         emu_entry__r1, emu_entry__r2, emu_entry__r3,
                                       emu_entry__r4,     emu_entry__r5, emu_entry__r6, emu_entry__r7};
  return entry[rank];
}
#define MAX_CLUSTER_PHASES 64
static pthread_mutex_t cluster_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cluster_changed = PTHREAD_COND_INITIALIZER;
static int cluster_arrivals[MAX_CLUSTER_PHASES];   // arrivals at each phase of the cluster barrier
static int cluster_exits[MAX_CLUSTER_PHASES + 1];  // threads that ended after this many arrivals
static __thread int cluster_phase;                 // this thread's arrivals so far
static pthread_barrier_t everyone;                 // every thread of the cluster, between clusters
static void cluster_thread_end(void) {
  pthread_mutex_lock(&cluster_lock);
  ++cluster_exits[cluster_phase];
  pthread_cond_broadcast(&cluster_changed);
  pthread_mutex_unlock(&cluster_lock);
}

static const unsigned long long* launch_args;
static long launch_ctas;
static int launch_threads;
static void tma_thread_end(void);
static void tma_end_of_cta(void);
void emu_cta_barrier(void);

static void* emu_worker(void* tid) {
  emu_tid = (int)(long)tid;
  emu_rank = emu_tid / launch_threads;
  emu_tidx = emu_tid % launch_threads;
  emu_smem = rank_smem(emu_rank);
  for (long k = 0; k < launch_ctas / emu_cluster; ++k) {
    const long c = k * emu_cluster + emu_rank;  // the clusters' CTAs are consecutive along x
    emu_ctaid_x = (int)(c % emu_nctaid_x);
    emu_ctaid_y = (int)((c / emu_nctaid_x) % emu_nctaid_y);
    emu_ctaid_z = (int)(c / ((long)emu_nctaid_x * emu_nctaid_y));
    cluster_phase = 0;
    rank_entry(emu_rank)(launch_args);
    if (copy_count) emu_fail("cp.async copies never waited for", (unsigned)copy_count);
    read_count = 0;
    tma_thread_end();
    if (emu_cluster > 1) {
      cluster_thread_end();
      pthread_barrier_wait(&everyone);  // every CTA of the cluster done
    }
    emu_cta_barrier();  // every thread done with the CTA: fresh shared memory
    if (emu_tidx == 0) {
      if (emu_rank == 0) tma_end_of_cta();
      memset(emu_smem, 0x7f, 262144);
    }
    if (emu_tid == 0 && emu_cluster > 1) {
      memset(cluster_arrivals, 0, sizeof cluster_arrivals);
      memset(cluster_exits, 0, sizeof cluster_exits);
    }
    emu_cta_barrier();
    if (emu_cluster > 1) pthread_barrier_wait(&everyone);
  }
  return NULL;
}

// barrier.cluster.arrive (release: the host's mutex orders the memory) and .wait (until every
// thread of the cluster arrived at this phase or ended before it).
void emu_nvvm_barrier_cluster_arrive(void) {
  if (cluster_phase >= MAX_CLUSTER_PHASES) emu_fail("cluster barrier phases", (unsigned)cluster_phase);
  pthread_mutex_lock(&cluster_lock);
  ++cluster_arrivals[cluster_phase++];
  pthread_cond_broadcast(&cluster_changed);
  pthread_mutex_unlock(&cluster_lock);
}
void emu_nvvm_barrier_cluster_arrive_relaxed(void) { emu_nvvm_barrier_cluster_arrive(); }
void emu_nvvm_barrier_cluster_arrive_aligned(void) { emu_nvvm_barrier_cluster_arrive(); }
void emu_nvvm_barrier_cluster_arrive_relaxed_aligned(void) { emu_nvvm_barrier_cluster_arrive(); }
void emu_nvvm_barrier_cluster_wait(void) {
  if (cluster_phase == 0) emu_fail("barrier.cluster.wait without an arrive", 0);
  const int phase = cluster_phase - 1;
  pthread_mutex_lock(&cluster_lock);
  for (;;) {
    int done = cluster_arrivals[phase];
    for (int m = 0; m <= phase; ++m) done += cluster_exits[m];
    if (done >= emu_cluster * launch_threads) break;
    pthread_cond_wait(&cluster_changed, &cluster_lock);
  }
  pthread_mutex_unlock(&cluster_lock);
}
void emu_nvvm_barrier_cluster_wait_aligned(void) { emu_nvvm_barrier_cluster_wait(); }
// mapa.shared::cluster: the same byte of `rank`'s shared memory.
char* emu_nvvm_mapa_shared_cluster(char* p, int rank) {
  long off = p - emu_smem;
  if (off < 0 || off >= 262144) emu_fail("mapa: not a shared address", (unsigned)off);
  if (rank < 0 || rank >= emu_cluster) emu_fail("mapa: no such rank in the cluster", (unsigned)rank);
  return rank_smem(rank) + off;
}
int emu_nvvm_read_ptx_sreg_cluster_ctarank(void) { return emu_rank; }
int emu_nvvm_read_ptx_sreg_cluster_nctarank(void) { return emu_cluster; }
int emu_nvvm_read_ptx_sreg_clusterid_x(void) { return emu_ctaid_x / emu_cluster; }
int emu_nvvm_read_ptx_sreg_clusterid_y(void) { return emu_ctaid_y; }
int emu_nvvm_read_ptx_sreg_clusterid_z(void) { return emu_ctaid_z; }
int emu_nvvm_read_ptx_sreg_nclusterid_x(void) { return emu_nctaid_x / emu_cluster; }
int emu_nvvm_read_ptx_sreg_nclusterid_y(void) { return emu_nctaid_y; }
int emu_nvvm_read_ptx_sreg_nclusterid_z(void) { return emu_nctaid_z; }

// A wild address: where it was (the kernel's shared memory or elsewhere), then exit 5.
static void on_segv(int sig, siginfo_t* info, void* context) {
  (void)sig, (void)context;
  char text[200];
  long off = (char*)info->si_addr - (emu_smem ? emu_smem : __tritium_shared);
  int n = snprintf(text, sizeof text, "emulation: invalid memory access at %p (%s %ld of shared memory), thread %d\n",
                   info->si_addr, off >= 0 && off < 262144 ? "byte" : "not in: offset", off, emu_tid);
  if (write(2, text, (size_t)n) < 0) _exit(6);
  _exit(5);
}

// Runs the grid (gx, gy, gz) of `threads` threads per CTA on the arguments' slots.
int emu_launch(const unsigned long long* args, int gx, int gy, int gz, int threads) {
  if (threads < 32 || threads > 1024 || threads % 32) emu_fail("threads per CTA", (unsigned)threads);
  if (emu_cluster < 1 || emu_cluster > MAX_CLUSTER || gx % emu_cluster || threads * emu_cluster > 1024)
    emu_fail("cluster", (unsigned)emu_cluster);
  for (int r = 1; r < emu_cluster; ++r)
    if (!rank_entry(r) || !rank_smem(r)) emu_fail("cluster: no kernel copy for rank", (unsigned)r);
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
  for (int r = 0; r < emu_cluster; ++r) memset(rank_smem(r), 0x7f, 262144);
  const int all = threads * emu_cluster;
  pthread_barrier_init(&cta, NULL, threads);
  if (emu_cluster > 1) pthread_barrier_init(&everyone, NULL, (unsigned)all);
  for (int w = 0; w < all / 32; ++w) pthread_barrier_init(&warp[w], NULL, 32);
  init_warpgroups(all);
  static pthread_t t[1024];
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 1 << 22);
  for (long i = 0; i < all; ++i)
    if (pthread_create(&t[i], &attr, emu_worker, (void*)i)) emu_fail("pthread_create", (unsigned)i);
  for (int i = 0; i < all; ++i) pthread_join(t[i], NULL);
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
// ---- { .reg .f32 z; mul.rn.f32 z, $1, 0f00000000; cvt.rzi.s32.f32 $0, z; }: 0, whatever $1
// is (+-0, or NaN that cvt.rzi makes 0; the hand-over's chunk order, emit_control.cpp) ----
void emu_zero_of_product(const unsigned long long* in, unsigned long long* out) {
  volatile float z = slot_f32(in, 0) * 0.0f;
  out[0] = z != z ? 0 : (unsigned long long)(unsigned)(int)truncf(z);
}
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

// ---- cvt.rn.{bf16,f16}x2.f32 $0, $1, $2: $1 in the upper half, each to nearest even ----
static unsigned float_to_bf16_rn(float x) {
  unsigned u;
  memcpy(&u, &x, 4);
  if (isnan(x)) return ((u >> 16) | 0x40u) & 0xffffu;
  return ((u + 0x7fffu + ((u >> 16) & 1u)) >> 16) & 0xffffu;
}
void emu_cvt_rn_x2(const unsigned long long* in, unsigned long long* out, int bf16) {
  float hi = slot_f32(in, 0), lo = slot_f32(in, 1);
  unsigned h = bf16 ? float_to_bf16_rn(hi) : float_to_half(hi) & 0xffffu;
  unsigned l = bf16 ? float_to_bf16_rn(lo) : float_to_half(lo) & 0xffffu;
  set_u32(out, 0, h << 16 | l);
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

// ---- TMA (sm_90): mbarriers, bulk tensor copies, the CTA barrier ----
//
// Tensor maps. The kernel receives a tensor map per host descriptor whose blocks it copies
// with the TMA (a 128-byte .param it passes by address to cp.async.bulk.tensor); on a GPU
// the driver encodes it (cuTensorMapEncodeTiled, runtime/tensor_map.cpp). Here
// emulated_gpu.py fills the 128 bytes with this layout instead (the kernel only hands the
// address over, so only these functions read it): what the launcher asks the driver for,
// dimensions innermost first.
typedef struct {
  unsigned long long magic;          // EMU_TENSOR_MAP: a map emulated_gpu.py made
  unsigned long long address;        // the global address of element (0, ..., 0)
  unsigned rank, element_bytes;      // 1-5; 1, 2, 4 or 8
  unsigned long long dims[5];        // the tensor's extent per dimension
  unsigned long long strides[4];     // the byte strides of dimensions 1 .. rank - 1 (dimension 0 is contiguous)
  unsigned box[5];                   // the box a copy moves, per dimension
  unsigned swizzle;                  // 0 (none), 32, 64 or 128 bytes
  unsigned oob_nan;                  // elements outside the tensor read as NaN (1) or zero (0)
  unsigned unused;
} EmuTensorMap;
#define EMU_TENSOR_MAP 0x50414d545f554d45ull  // "EMU_TMAP"
_Static_assert(sizeof(EmuTensorMap) == 128, "a CUtensorMap's size");

// Shared memory past the kernel's own (!tritium.shared_bytes) is not its: a copy there fails.
static long emu_shared_bytes = 262144;
void emu_set_shared_bytes(long bytes) { emu_shared_bytes = bytes; }

// Every mbarrier and bulk-copy state change, the CTA barrier and the waits hold sync_lock.
// Deadlock: every thread of the CTA blocked, at the CTA barrier or waiting on an mbarrier
// phase, and at least one of them on an mbarrier (no thread is left to arrive, and copies
// land within the waits) - the emulator says so at once instead of hanging.
static pthread_mutex_t sync_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t barrier_done = PTHREAD_COND_INITIALIZER, mbarrier_changed = PTHREAD_COND_INITIALIZER;
static int at_barrier_of[MAX_CLUSTER];  // threads waiting at each rank's CTA barrier (this generation)
static unsigned barrier_generation_of[MAX_CLUSTER];
#define at_barrier at_barrier_of[emu_rank]
#define barrier_generation barrier_generation_of[emu_rank]
static int waiting;               // threads waiting on an mbarrier since its last change
static unsigned change_generation;

// An mbarrier: its phase (parity = phase & 1), the arrivals its phases expect and those the
// current one still waits for, and the transaction bytes still to come (complete_tx counts
// down; the driver's tx-count, signed).
typedef struct { unsigned at; int live, expected, pending; unsigned phase; long tx; } Mbarrier;
#define MAX_MBARRIERS 64
static Mbarrier mbarriers[MAX_MBARRIERS];
static int mbarrier_count;
// Its 8 shared bytes hold this tag (its index in two bytes, then "EMUBAR") while live: a plain
// store there shows.
#define MBARRIER_TAG 0x524142554d450000ull

static void tma_fail(const char* text) {
  fprintf(stderr, "emulation: %s (thread %d, CTA %d,%d,%d)\n", text, emu_tid, emu_ctaid_x, emu_ctaid_y, emu_ctaid_z);
  exit(3);
}
static unsigned long long mbarrier_tag(int index) { return MBARRIER_TAG | (unsigned)index; }

// The live mbarrier at shared byte `at`, its 8 bytes intact; `what` names the instruction.
static Mbarrier* live_mbarrier(unsigned at, const char* what) {
  char text[200];
  for (int i = 0; i < mbarrier_count; ++i) {
    Mbarrier* b = &mbarriers[i];
    if (b->at != at || !b->live) continue;
    unsigned long long bytes;
    memcpy(&bytes, __tritium_shared + at, 8);
    if (bytes != mbarrier_tag(i)) {
      snprintf(text, sizeof text, "%s: the mbarrier at shared byte %u was overwritten while live", what, at);
      tma_fail(text);
    }
    return b;
  }
  snprintf(text, sizeof text, "%s: no live mbarrier at shared byte %u (not initialized, or invalidated)", what, at);
  tma_fail(text);
  return NULL;
}

static void mbarrier_changed_now(void) {
  waiting = 0;  // every waiter re-checks (and counts itself again if still blocked)
  ++change_generation;
  pthread_cond_broadcast(&mbarrier_changed);
}

// The phase completes once its arrivals are in and its transaction bytes have landed.
static void mbarrier_progress(Mbarrier* b) {
  if (b->pending == 0 && b->tx < 0) tma_fail("mbarrier: more transaction bytes landed than its expect_tx announced");
  if (b->pending == 0 && b->tx == 0) {
    ++b->phase;
    b->pending = b->expected;
  }
  mbarrier_changed_now();
}

static void deadlock_check(const char* where) {
  if (at_barrier + waiting < launch_threads || waiting == 0) return;
  char text[600];
  int n = snprintf(text, sizeof text, "deadlock at %s: every thread waits (%d at the CTA barrier, %d on mbarriers);",
                   where, at_barrier, waiting);
  for (int i = 0; i < mbarrier_count && n < (int)sizeof text - 120; ++i) {
    const Mbarrier* b = &mbarriers[i];
    if (b->live)
      n += snprintf(text + n, sizeof text - n, " mbarrier at byte %u: phase %u, %d of %d arrivals to come, %ld bytes;",
                    b->at, b->phase, b->pending, b->expected, b->tx);
  }
  tma_fail(text);
}

// bar.sync 0 of the kernel (host_ir renames emu_barrier) and the CTA's end: all threads.
void emu_cta_barrier(void) {
  pthread_mutex_lock(&sync_lock);
  unsigned generation = barrier_generation;
  if (++at_barrier == launch_threads) {
    at_barrier = 0;
    ++barrier_generation;
    pthread_cond_broadcast(&barrier_done);
  } else {
    deadlock_check("a CTA barrier");
    while (generation == barrier_generation) pthread_cond_wait(&barrier_done, &sync_lock);
  }
  pthread_mutex_unlock(&sync_lock);
}

// The predicate operand of a statement's instruction: -1 none, else 2 * slot + (1: `setp.ne
// p, $slot, 0`, 0: `setp.eq p, $slot, 0`).
static int predicate_on(const unsigned long long* in, int pred) {
  if (pred < 0) return 1;
  unsigned v = slot_u32(in, pred / 2);
  return (pred & 1) ? v != 0 : v == 0;
}
static unsigned mbarrier_address(const unsigned long long* in, int slot, int offset) {
  unsigned at = shared_offset(slot_u32(in, slot)) + (unsigned)offset;
  if (at % 8) emu_fail("mbarrier address not 8-byte aligned", at);
  return at;
}

// ---- mbarrier.init.shared::cta.b64 [$a+offset], count ----
void emu_mbarrier_init(const unsigned long long* in, unsigned long long* out, int pred, int slot, int offset,
                       int count) {
  (void)out;
  if (!predicate_on(in, pred)) return;
  unsigned at = mbarrier_address(in, slot, offset);
  pthread_mutex_lock(&sync_lock);
  int index = -1;
  for (int i = 0; i < mbarrier_count; ++i) {
    if (mbarriers[i].at != at) continue;
    if (mbarriers[i].live) tma_fail("mbarrier.init of a live mbarrier (not invalidated: undefined in PTX)");
    index = i;
  }
  if (index < 0) {
    if (mbarrier_count == MAX_MBARRIERS) tma_fail("more mbarriers than the emulator keeps");
    index = mbarrier_count++;
  }
  if (count < 1) tma_fail("mbarrier.init with a count below 1");
  mbarriers[index] = (Mbarrier){at, 1, count, count, 0, 0};
  unsigned long long tag = mbarrier_tag(index);
  memcpy(__tritium_shared + at, &tag, 8);
  mbarrier_changed_now();
  pthread_mutex_unlock(&sync_lock);
}

// ---- mbarrier.inval.shared::cta.b64 [$a+offset]: its phase must be idle (no arrival, no bytes) ----
// The memory is the mbarrier's until it is invalidated (PTX ISA): another thread's store there
// must be ordered after the inval by a barrier. So the inval runs as late as the other
// threads let it (until they all wait at the CTA barrier or on an mbarrier, or 50 ms): a
// store they make before it shows as the mbarrier overwritten.
static int queued_for(const Mbarrier* b);
static void let_the_others_run(void) {
  for (int i = 0; i < 500; ++i) {
    pthread_mutex_lock(&sync_lock);
    int blocked = at_barrier + waiting;
    pthread_mutex_unlock(&sync_lock);
    if (blocked >= launch_threads - 1) return;
    usleep(100);
  }
}
void emu_mbarrier_inval(const unsigned long long* in, unsigned long long* out, int pred, int slot, int offset) {
  (void)out;
  if (!predicate_on(in, pred)) return;
  unsigned at = mbarrier_address(in, slot, offset);
  let_the_others_run();
  pthread_mutex_lock(&sync_lock);
  Mbarrier* b = live_mbarrier(at, "mbarrier.inval");
  if (b->pending != b->expected || b->tx != 0 || queued_for(b))
    tma_fail("mbarrier.inval while a phase is under way (arrivals or copies still to come)");
  b->live = 0;
  mbarrier_changed_now();
  pthread_mutex_unlock(&sync_lock);
}

// ---- mbarrier.arrive.expect_tx.shared::cta.b64 state, [$a+offset], bytes ----
void emu_mbarrier_arrive_expect_tx(const unsigned long long* in, unsigned long long* out, int pred, int slot,
                                   int offset, int bytes) {
  (void)out;
  if (!predicate_on(in, pred)) return;
  unsigned at = mbarrier_address(in, slot, offset);
  pthread_mutex_lock(&sync_lock);
  Mbarrier* b = live_mbarrier(at, "mbarrier.arrive.expect_tx");
  b->tx += bytes;
  if (b->pending == 0) tma_fail("mbarrier.arrive: more arrivals than its phase expects");
  --b->pending;
  mbarrier_progress(b);
  pthread_mutex_unlock(&sync_lock);
}

// ---- bulk tensor copies ----
// Box element i (dimension 0 fastest) lies at byte i * element_bytes of the box in shared
// memory, then the swizzle permutes the 16-byte chunks of each `swizzle`-byte row: chunk
// bits 4 .. log2(swizzle) - 1 of the shared address XOR its bits 7.. (PTX ISA, tensor-map
// swizzle modes: the pattern repeats every 8 rows, 1024 bytes at 128). As the hardware
// does, on the address itself (a box not on its pattern's boundary gets the pattern's
// phase there); tritium's tiles start on 1024-byte boundaries (shared_tile.h).
static unsigned swizzled(unsigned at, unsigned swizzle) {
  return swizzle ? at ^ (((at >> 7) & (swizzle / 16 - 1)) << 4) : at;
}

static const EmuTensorMap* tensor_map(const unsigned long long* in, int slot, int rank, const char* what) {
  const EmuTensorMap* m = (const EmuTensorMap*)in[slot];
  char text[200];
  if (m == NULL || m->magic != EMU_TENSOR_MAP) {
    snprintf(text, sizeof text, "%s: the tensor map operand is not one emulated_gpu.py made", what);
    tma_fail(text);
  }
  if ((int)m->rank != rank) {
    snprintf(text, sizeof text, "%s: a %dd copy through a tensor map of rank %u", what, rank, m->rank);
    tma_fail(text);
  }
  return m;
}

// The box's bytes in shared memory, checked: 128-byte aligned (the CUDA programming guide's
// requirement for a bulk tensor copy), inside the kernel's shared memory, clear of every live
// mbarrier. A swizzled box's rows must be the swizzle's width (tritium's boxes are).
static unsigned box_bytes(const EmuTensorMap* m) {
  unsigned n = m->element_bytes;
  for (unsigned d = 0; d < m->rank; ++d) n *= m->box[d];
  return n;
}
static void check_box(const EmuTensorMap* m, unsigned at, const char* what) {
  char text[240];
  unsigned bytes = box_bytes(m);
  if (at % 128) {
    snprintf(text, sizeof text, "%s: shared address %u is not 128-byte aligned", what, at);
    tma_fail(text);
  }
  if ((long)at + bytes > emu_shared_bytes) {
    snprintf(text, sizeof text,
             "%s: the box's %u bytes at shared byte %u overrun the kernel's %ld bytes of shared memory", what, bytes,
             at, emu_shared_bytes);
    tma_fail(text);
  }
  if (m->swizzle && m->box[0] * m->element_bytes != m->swizzle) {
    snprintf(text, sizeof text, "%s: a box row of %u bytes under a %u-byte swizzle (not emulated)", what,
             m->box[0] * m->element_bytes, m->swizzle);
    tma_fail(text);
  }
  for (int i = 0; i < mbarrier_count; ++i) {
    if (mbarriers[i].live && mbarriers[i].at + 8 > at && mbarriers[i].at < at + bytes) {
      snprintf(text, sizeof text, "%s: the box at shared bytes %u..%u covers the live mbarrier at byte %u", what, at,
               at + bytes, mbarriers[i].at);
      tma_fail(text);
    }
  }
}

// Element `i` of the box at `coords`: its global address, or NULL outside the tensor.
static const char* box_element(const EmuTensorMap* m, const int* coords, unsigned i) {
  long long offset = 0;
  for (unsigned d = 0; d < m->rank; ++d) {
    long long c = (long long)coords[d] + i % m->box[d];
    i /= m->box[d];
    if (c < 0 || c >= (long long)m->dims[d]) return NULL;
    offset += d == 0 ? c * m->element_bytes : c * (long long)m->strides[d - 1];
  }
  return (const char*)m->address + offset;
}

// A load's bytes land: the box into shared memory (zeros, or NaN, outside the tensor).
static void copy_box_in(const EmuTensorMap* m, unsigned at, const int* coords) {
  unsigned eb = m->element_bytes, count = box_bytes(m) / eb;
  static const unsigned char nan_bytes[4][8] = {{0xff}, {0xff, 0x7f}, {0, 0, 0xc0, 0x7f},
                                                {0, 0, 0, 0, 0, 0, 0xf8, 0x7f}};
  for (unsigned i = 0; i < count; ++i) {
    const char* src = box_element(m, coords, i);
    char* dst = __tritium_shared + swizzled(at + i * eb, m->swizzle);
    if (src) memcpy(dst, src, eb);
    else if (m->oob_nan) memcpy(dst, nan_bytes[eb == 1 ? 0 : eb == 2 ? 1 : eb == 4 ? 2 : 3], eb);
    else memset(dst, 0, eb);
  }
}
// A store's bytes: the box from shared memory to the tensor, the elements outside it dropped.
static void copy_box_out(const EmuTensorMap* m, unsigned at, const int* coords) {
  unsigned eb = m->element_bytes, count = box_bytes(m) / eb;
  for (unsigned i = 0; i < count; ++i) {
    char* dst = (char*)box_element(m, coords, i);
    if (dst) memcpy(dst, __tritium_shared + swizzled(at + i * eb, m->swizzle), eb);
  }
}

// Loads in flight (EMU_DEFER_COPIES): they land in a wait on their mbarrier's phase, the
// latest a GPU may take; a wait that passes before (a wrong parity) reads what was there.
typedef struct { const EmuTensorMap* map; unsigned at; int coords[5]; Mbarrier* barrier; } PendingLoad;
#define MAX_PENDING_LOADS 4096
static PendingLoad pending_loads[MAX_PENDING_LOADS];
static int pending_load_count;
static int queued_for(const Mbarrier* b) {
  for (int i = 0; i < pending_load_count; ++i)
    if (pending_loads[i].barrier == b) return 1;
  return 0;
}
static int land_queued(Mbarrier* b) {
  int kept = 0, landed = 0;
  for (int i = 0; i < pending_load_count; ++i) {
    PendingLoad p = pending_loads[i];
    if (p.barrier != b) {
      pending_loads[kept++] = p;
      continue;
    }
    copy_box_in(p.map, p.at, p.coords);
    b->tx -= box_bytes(p.map);
    landed = 1;
  }
  pending_load_count = kept;
  if (landed) mbarrier_progress(b);
  return landed;
}

// ---- cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes
//      [dst], [map, {c...}], [bar+offset] ----
void emu_tma_load(const unsigned long long* in, unsigned long long* out, int pred, int rank, int dst, int map, int bar,
                  int bar_offset, int c0, int c1, int c2, int c3, int c4) {
  (void)out;
  if (!predicate_on(in, pred)) return;
  const char* what = "cp.async.bulk.tensor (load)";
  const EmuTensorMap* m = tensor_map(in, map, rank, what);
  const int slots[5] = {c0, c1, c2, c3, c4};
  PendingLoad p = {m, shared_offset(slot_u32(in, dst)), {0}, NULL};
  for (int d = 0; d < rank; ++d) p.coords[d] = (int)slot_u32(in, slots[d]);
  unsigned at = mbarrier_address(in, bar, bar_offset);
  pthread_mutex_lock(&sync_lock);
  p.barrier = live_mbarrier(at, what);
  check_box(m, p.at, what);
  if (EMU_DEFER_COPIES) {
    if (pending_load_count == MAX_PENDING_LOADS) tma_fail("more bulk tensor loads in flight than the emulator keeps");
    pending_loads[pending_load_count++] = p;
  } else {
    copy_box_in(m, p.at, p.coords);
    p.barrier->tx -= box_bytes(m);
    mbarrier_progress(p.barrier);
  }
  pthread_mutex_unlock(&sync_lock);
}

// ---- { wait: mbarrier.try_wait.parity.shared::cta.b64 p, [$a+offset], parity; @!p bra wait; } ----
// The parity names the current phase or the one before it (PTX ISA): the wait passes once
// the phase of that parity is complete, i.e. when the current phase's parity differs. A
// phase that does not complete is a deadlock (above), not a pass.
void emu_mbarrier_wait_parity(const unsigned long long* in, unsigned long long* out, int slot, int offset,
                              int parity_slot, int parity) {
  (void)out;
  unsigned at = mbarrier_address(in, slot, offset);
  if (parity_slot >= 0) parity = (int)(slot_u32(in, parity_slot) & 1);
  pthread_mutex_lock(&sync_lock);
  Mbarrier* b = live_mbarrier(at, "mbarrier.try_wait.parity");
  while ((int)(b->phase & 1) == parity) {
    if (b->pending == 0 && land_queued(b)) continue;
    unsigned generation = change_generation;
    ++waiting;
    deadlock_check("an mbarrier wait");
    pthread_cond_wait(&mbarrier_changed, &sync_lock);
    if (generation == change_generation) --waiting;  // woken without a change: still counted
    b = live_mbarrier(at, "mbarrier.try_wait.parity");
  }
  pthread_mutex_unlock(&sync_lock);
}

// Bulk stores and their groups, per thread: done at issue, or (EMU_DEFER_COPIES) when the
// wait_group that retires their group runs, reading shared memory then.
typedef struct { const EmuTensorMap* map; unsigned at; int coords[5]; int group; } PendingStore;
static __thread PendingStore* pending_stores;
static __thread int pending_store_count, pending_store_capacity, bulk_groups;

// ---- cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group [map, {c...}], [src] ----
void emu_tma_store(const unsigned long long* in, unsigned long long* out, int pred, int rank, int src, int map, int c0,
                   int c1, int c2, int c3, int c4) {
  (void)out;
  if (!predicate_on(in, pred)) return;
  const char* what = "cp.async.bulk.tensor (store)";
  const EmuTensorMap* m = tensor_map(in, map, rank, what);
  const int slots[5] = {c0, c1, c2, c3, c4};
  PendingStore p = {m, shared_offset(slot_u32(in, src)), {0}, bulk_groups};
  for (int d = 0; d < rank; ++d) p.coords[d] = (int)slot_u32(in, slots[d]);
  pthread_mutex_lock(&sync_lock);
  check_box(m, p.at, what);
  pthread_mutex_unlock(&sync_lock);
  if (!EMU_DEFER_COPIES) {
    copy_box_out(m, p.at, p.coords);
    return;
  }
  if (pending_store_count == pending_store_capacity) {
    pending_store_capacity = pending_store_capacity ? 2 * pending_store_capacity : 16;
    pending_stores = realloc(pending_stores, sizeof(PendingStore) * pending_store_capacity);
  }
  pending_stores[pending_store_count++] = p;
}
// ---- cp.async.bulk.commit_group ----
void emu_bulk_commit(const unsigned long long* in, unsigned long long* out, int pred) {
  (void)out;
  if (predicate_on(in, pred)) ++bulk_groups;
}
// ---- cp.async.bulk.wait_group{.read} N: all but the N most recent groups done ----
void emu_bulk_wait(const unsigned long long* in, unsigned long long* out, int pred, int pending) {
  (void)out;
  if (!predicate_on(in, pred)) return;
  int kept = 0;
  for (int i = 0; i < pending_store_count; ++i) {
    PendingStore p = pending_stores[i];
    if (p.group < bulk_groups - pending) copy_box_out(p.map, p.at, p.coords);
    else pending_stores[kept++] = p;
  }
  pending_store_count = kept;
}

// Each thread at the CTA's end: no bulk store left behind.
static void tma_thread_end(void) {
  if (pending_store_count) tma_fail("bulk tensor stores never waited for (cp.async.bulk.wait_group)");
  bulk_groups = 0;
}
// Thread 0, every thread done: no copy still landing, no phase half done; then the next CTA
// starts without mbarriers.
static void tma_end_of_cta(void) {
  if (pending_load_count) tma_fail("bulk tensor loads never waited for (no wait on their mbarrier's phase)");
  for (int i = 0; i < mbarrier_count; ++i) {
    const Mbarrier* b = &mbarriers[i];
    if (b->live && (b->pending != b->expected || b->tx != 0))
      tma_fail("an mbarrier's phase left incomplete at the CTA's end (arrivals or bytes still to come)");
  }
  mbarrier_count = 0;
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
int emu_nvvm_read_ptx_sreg_warpid(void) { return emu_tidx / 32; }
int emu_nvvm_read_ptx_sreg_ntid_x(void) { return launch_threads; }
int emu_nvvm_read_ptx_sreg_nctaid_x(void) { return emu_nctaid_x; }
int emu_nvvm_read_ptx_sreg_nctaid_y(void) { return emu_nctaid_y; }
int emu_nvvm_read_ptx_sreg_nctaid_z(void) { return emu_nctaid_z; }
int emu_nvvm_read_ptx_sreg_ctaid_x(void) { return emu_ctaid_x; }
int emu_nvvm_read_ptx_sreg_ctaid_y(void) { return emu_ctaid_y; }
int emu_nvvm_read_ptx_sreg_ctaid_z(void) { return emu_ctaid_z; }
int emu_nvvm_read_ptx_sreg_tid_y(void) { return 0; }
int emu_nvvm_read_ptx_sreg_tid_z(void) { return 0; }
