// The tensor-core instructions of tritium's fp16/bf16/fp8 dots, emulated for the CPU driver of
// test_cpu_emulation.py (each thread of the CTA a host thread; emu_tid, the per-warp barriers
// and __tritium_shared come from there). The inline PTX calls of a kernel are rewritten into
// calls of these functions by test_cpu_emulation_mma16.py: every operand of the asm statement
// is stored in an 8-byte slot of `in` (in the statement's operand order, outputs first not
// counted), the results are read back from the slots of `out`. __tritium_shared is aligned to
// its size (2^18) on the host, so the low 18 bits of a 32-bit shared address are its offset,
// as on the GPU, whose dynamic shared memory starts 1024-byte aligned.
//
// Fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k16" and "wgmma ... Register
// Fragments"): g = lane / 4, t = lane % 4.
// - mma.m16n8k16 A (16 x 16, four .b32 of two halves each): a0 (g, 2t..2t+1), a1 (g+8, ...),
//   a2 (g, 2t+8..), a3 (g+8, 2t+8..), the lower column in the low half.
// - B (16 x 8): b0 (k 2t..2t+1, n g), b1 (k 2t+8.., n g).
// - C/D f32: c0, c1 (g, 2t | 2t+1), c2, c3 (g+8, ...); f16: c0 = (g, 2t..2t+1), c1 = (g+8, ...).
// - ldmatrix .m8n8 .b16: lanes 8j..8j+7 give the 16-byte row addresses of matrix j; lane l
//   gets row l / 4, elements 2 (l % 4) and +1 of each matrix (.trans: rows 2 (l % 4) and +1
//   of column l / 4).
// - wgmma m64nNk16: warp w of the warpgroup holds rows 16w..16w+15; accumulator register
//   4j + c (f32) is element c of its m16n8 tile j, in mma's C layout; f16: register 2j + h.
//   An A in registers is mma's A fragment of the warp's 16 rows (tf32: m16n8k8's, one
//   element a register: a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4)).
// - wgmma operands in shared memory: a 64-bit descriptor (bits 0-13 start address >> 4,
//   16-29 leading byte offset >> 4, 32-45 stride byte offset >> 4, 62-63 swizzle: 0 none,
//   1 128-byte, 2 64-byte, 3 32-byte). The layouts are in units of 16-byte chunks of 8 rows
//   ("core matrices"); see operand_address. A swizzle of S bytes permutes the 16-byte chunks
//   of each S-byte row of the address: bits 4.. (log2(S) - 1) ^= bits 7.., of the address the
//   instruction computes.
#include <math.h>

static float half_to_float(unsigned short h) {
  int sign = h >> 15, exp = (h >> 10) & 31, mant = h & 1023;
  float v;
  if (exp == 0) v = ldexpf((float)mant, -24);
  else if (exp == 31) v = mant ? NAN : INFINITY;
  else v = ldexpf((float)(mant | 1024), exp - 25);
  return sign ? -v : v;
}
static float bf16_to_float(unsigned short b) {
  unsigned u = (unsigned)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
// Round to nearest even; overflow to infinity.
static unsigned short float_to_half(float f) {
  unsigned u;
  memcpy(&u, &f, 4);
  unsigned sign = (u >> 16) & 0x8000u;
  if (isnan(f)) return (unsigned short)(sign | 0x7e00u);
  float a = fabsf(f);
  if (a >= 65520.0f) return (unsigned short)(sign | 0x7c00u);
  if (a < ldexpf(1.0f, -14)) {  // subnormal: a multiple of 2^-24
    float q = nearbyintf(ldexpf(a, 24));
    return (unsigned short)(sign | (unsigned)q);
  }
  int e;
  frexpf(a, &e);  // a = m 2^e, m in [0.5, 1)
  float q = nearbyintf(ldexpf(a, 11 - e));  // 11 significant bits
  if (q >= 2048.0f) q /= 2, ++e;
  return (unsigned short)(sign | (unsigned)(e + 14) << 10 | ((unsigned)q & 1023u));
}
static float e4m3_to_float(unsigned char b) {
  int sign = b >> 7, exp = (b >> 3) & 15, mant = b & 7;
  float v = (exp == 15 && mant == 7) ? NAN : exp == 0 ? ldexpf((float)mant, -9) : ldexpf((float)(mant | 8), exp - 10);
  return sign ? -v : v;
}
static float e5m2_to_float(unsigned char b) { return half_to_float((unsigned short)(b << 8)); }

// Element types: 0 f16, 1 bf16, 2 e4m3, 3 e5m2, 4 tf32 (an f32 whose low 13 bits are not read),
// 5 s8 (integer products, accumulated exactly in s32 by emu_wgmma).
static float element_value(int type, unsigned bits) {
  float f;
  switch (type) {
    case 0: return half_to_float((unsigned short)bits);
    case 1: return bf16_to_float((unsigned short)bits);
    case 2: return e4m3_to_float((unsigned char)bits);
    case 3: return e5m2_to_float((unsigned char)bits);
    case 5: return (float)(signed char)bits;
    default: bits &= 0xffffe000u, memcpy(&f, &bits, 4); return f;
  }
}
static int element_bytes(int type) { return type == 4 ? 4 : type >= 2 ? 1 : 2; }

static unsigned slot_u32(const unsigned long long* s, int i) { unsigned v; memcpy(&v, s + i, 4); return v; }
static float slot_f32(const unsigned long long* s, int i) { float v; memcpy(&v, s + i, 4); return v; }
static void set_u32(unsigned long long* s, int i, unsigned v) { s[i] = 0; memcpy(s + i, &v, 4); }
static void set_f32(unsigned long long* s, int i, float v) { s[i] = 0; memcpy(s + i, &v, 4); }

static void emu_fail(const char* what, unsigned detail) {
  fprintf(stderr, "emulation: %s (%u, thread %d)\n", what, detail, emu_tid);
  exit(3);
}

extern char __tritium_shared[];
// A 32-bit shared address of the kernel's (the low bits of the host address) as an offset.
static unsigned shared_offset(unsigned address) {
  unsigned offset = address - (unsigned)(unsigned long)__tritium_shared;
  if (offset >= 262144u) emu_fail("shared address out of range", address);
  return offset;
}
static unsigned shared_bits(unsigned address, int bytes) {
  if (address + bytes > 262144u) emu_fail("shared address out of range", address);
  unsigned v = 0;
  memcpy(&v, __tritium_shared + address, bytes);
  return v;
}

// ---- cp.async: at once (EMU_DEFER_COPIES 0), or queued and done at the wait_group that
// retires its group (1), the two ends of the time the GPU may take. ----
#ifndef EMU_DEFER_COPIES
#define EMU_DEFER_COPIES 0
#endif
typedef struct { unsigned dst; const char* src; int bytes, from_source, group; } PendingCopy;
static __thread PendingCopy* copies;
static __thread int copy_count, copy_capacity, copy_groups;
static void do_copy(unsigned dst, const char* src, int bytes, int from_source) {
  if (dst % bytes != 0) emu_fail("cp.async destination misaligned", dst);
  if (dst + bytes > 262144u) emu_fail("cp.async destination out of range", dst);
  for (int i = 0; i < bytes; ++i) __tritium_shared[dst + i] = i < from_source ? src[i] : 0;
}
// cp.async.{ca,cg}.shared.global [dst], [src], bytes{, src-size | ignore-src}: slots dst, src
// and (kind 1) the source size or (kind 2) the ignore-src predicate (zeros when set).
void emu_cp_async(const unsigned long long* in, unsigned long long* out, int bytes, int kind) {
  (void)out;
  unsigned dst = shared_offset(slot_u32(in, 0));
  long source = (long)in[1];
  int from_source = kind == 0 ? bytes : kind == 1 ? (int)slot_u32(in, 2) : (slot_u32(in, 2) & 1) ? 0 : bytes;
  if (!EMU_DEFER_COPIES) {
    do_copy(dst, (const char*)source, bytes, from_source);
    return;
  }
  if (copy_count == copy_capacity) {
    copy_capacity = copy_capacity ? 2 * copy_capacity : 64;
    copies = realloc(copies, sizeof(PendingCopy) * copy_capacity);
  }
  copies[copy_count++] = (PendingCopy){dst, (const char*)source, bytes, from_source, copy_groups};
}
void emu_cp_async_commit(const unsigned long long* in, unsigned long long* out) { (void)in, (void)out, ++copy_groups; }
void emu_cp_async_wait(const unsigned long long* in, unsigned long long* out, int pending) {
  (void)in, (void)out;
  int kept = 0;
  for (int i = 0; i < copy_count; ++i) {
    PendingCopy c = copies[i];
    if (c.group < copy_groups - pending) do_copy(c.dst, c.src, c.bytes, c.from_source);
    else copies[kept++] = c;
  }
  copy_count = kept;
}

// ---- ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16 ----
static unsigned lane_address[1024];
static const unsigned long long* group_in[1024];
void emu_ldmatrix(const unsigned long long* in, unsigned long long* out, int count, int trans) {
  int w = emu_tid / 32, lane = emu_tid & 31, base = emu_tid & ~31;
  lane_address[emu_tid] = shared_offset(slot_u32(in, 0));
  pthread_barrier_wait(&warp[w]);
  for (int j = 0; j < count; ++j) {
    unsigned lo, hi;
    if (!trans) {
      unsigned row = lane_address[base + 8 * j + lane / 4];
      if (row % 16) emu_fail("ldmatrix row address not 16-byte aligned", row);
      lo = shared_bits(row + 4 * (lane % 4), 2), hi = shared_bits(row + 4 * (lane % 4) + 2, 2);
    } else {
      unsigned r0 = lane_address[base + 8 * j + 2 * (lane % 4)], r1 = lane_address[base + 8 * j + 2 * (lane % 4) + 1];
      if (r0 % 16 || r1 % 16) emu_fail("ldmatrix row address not 16-byte aligned", r0 % 16 ? r0 : r1);
      lo = shared_bits(r0 + 2 * (lane / 4), 2), hi = shared_bits(r1 + 2 * (lane / 4), 2);
    }
    set_u32(out, j, lo | hi << 16);
  }
  pthread_barrier_wait(&warp[w]);
}

// ---- stmatrix.sync.aligned.m8n8.x{1,2,4}.shared.b16 [address], {registers} ----
// The inverse of ldmatrix: lane l's register j holds row l / 4, elements 2 (l % 4) and +1 of
// matrix j, whose row r goes to the 16-byte-aligned address lane 8j + r gives.
void emu_stmatrix(const unsigned long long* in, unsigned long long* out, int count) {
  (void)out;
  int w = emu_tid / 32, lane = emu_tid & 31, base = emu_tid & ~31;
  lane_address[emu_tid] = shared_offset(slot_u32(in, 0));
  pthread_barrier_wait(&warp[w]);
  for (int j = 0; j < count; ++j) {
    unsigned row = lane_address[base + 8 * j + lane / 4];
    if (row % 16) emu_fail("stmatrix row address not 16-byte aligned", row);
    if (row + 16 > 262144u) emu_fail("stmatrix address out of range", row);
    unsigned v = slot_u32(in, 1 + j);
    memcpy(__tritium_shared + row + 4 * (lane % 4), &v, 4);
  }
  pthread_barrier_wait(&warp[w]);
}

// The two 16-bit halves of a .b32 register.
static unsigned half_of(unsigned reg, int which) { return which ? reg >> 16 : reg & 0xffffu; }

// mma's A fragment (m16 x k16, 16-bit elements) of the warp's lanes: element (row, k).
static unsigned a_fragment_bits(const unsigned long long* const* lanes, int first_slot, int row, int k) {
  int reg = (row >= 8) + 2 * (k >= 8), lane = (row % 8) * 4 + (k % 8) / 2;
  return half_of(slot_u32(lanes[lane], first_slot + reg), k % 2);
}
// The tf32 A fragment (m16 x k8, one element a register: a0 (g, t), a1 (g+8, t), a2 (g, t+4),
// a3 (g+8, t+4)) of the warp's lanes: element (row, k).
static unsigned a_fragment_bits_tf32(const unsigned long long* const* lanes, int first_slot, int row, int k) {
  int reg = (row >= 8) + 2 * (k >= 4), lane = (row % 8) * 4 + k % 4;
  return slot_u32(lanes[lane], first_slot + reg);
}

// ---- mma.sync.aligned.m16n8k16.row.col.{f32,f16}.{f16,bf16}.{f16,bf16}.{f32,f16} ----
// Slots of A's four registers from a, B's two from b, C's from c (4 f32 or 2 packed f16).
void emu_mma16(const unsigned long long* in, unsigned long long* out, int type, int f16_acc, int a, int b, int c) {
  int w = emu_tid / 32, lane = emu_tid & 31, base = emu_tid & ~31;
  group_in[emu_tid] = in;
  pthread_barrier_wait(&warp[w]);
  const unsigned long long* const* lanes = group_in + base;
  int g = lane / 4, t = lane % 4;
  for (int r = 0; r < 4; ++r) {
    int row = g + (r >= 2 ? 8 : 0), col = 2 * t + (r & 1);
    float sum = f16_acc ? half_to_float((unsigned short)half_of(slot_u32(in, c + r / 2), r & 1)) : slot_f32(in, c + r);
    for (int k = 0; k < 16; ++k) {
      float x = element_value(type, a_fragment_bits(lanes, a, row, k));
      float y = element_value(type, half_of(slot_u32(lanes[col * 4 + (k % 8) / 2], b + (k >= 8)), k % 2));
      sum += x * y;
    }
    if (f16_acc) {
      unsigned bits = float_to_half(sum);
      unsigned prev = (r & 1) ? slot_u32(out, r / 2) : 0;
      set_u32(out, r / 2, (r & 1) ? (prev | bits << 16) : bits);
    } else {
      set_f32(out, r, sum);
    }
  }
  pthread_barrier_wait(&warp[w]);
}

// ---- wgmma ----
static pthread_barrier_t warpgroup[8];
static void init_warpgroups(int threads) {
  for (int i = 0; i < threads / 128; ++i) pthread_barrier_init(&warpgroup[i], NULL, 128);
}

// The shared-memory byte address of element (mn, k) of a wgmma operand (A: m, k; B: n, k)
// whose elements are `bytes` wide, through descriptor `d`; `mn_major` is the imm-trans bit.
// K-major: 8 rows of a core matrix 16 bytes apart without a swizzle (the next 16 bytes of k
// `leading` further, the next 8 rows `stride` further); with an S-byte swizzle, rows S bytes
// apart holding all of k (32 bytes), the next 8 rows `stride` further. M/N-major: k is the
// row; without a swizzle a core matrix holds 8 elements of mn (16 bytes) in each of 8 rows of
// k, the next 16 bytes of mn `stride` further and the next 8 rows of k `leading` further;
// with an S-byte swizzle a row holds S bytes of mn, the next S bytes `leading` further, the
// rows of k S bytes apart and the next 8 of them `stride` further.
static unsigned operand_address(unsigned long long d, int bytes, int mn_major, int mn, int k) {
  unsigned start = (unsigned)(d & 0x3fff) << 4;
  unsigned leading = (unsigned)((d >> 16) & 0x3fff) << 4, stride = (unsigned)((d >> 32) & 0x3fff) << 4;
  int mode = (int)(d >> 62);
  // The base offset (bits 49-51) matters only for a swizzled tile not on its pattern's
  // boundary; tritium's tiles are 1024-byte aligned and leave it 0.
  if ((d >> 49) & 7) emu_fail("wgmma descriptor with a base offset (not emulated)", (unsigned)((d >> 49) & 7));
  unsigned swizzle = mode == 1 ? 128 : mode == 2 ? 64 : mode == 3 ? 32 : 0;
  unsigned a;
  if (!mn_major) {
    unsigned kb = (unsigned)(k * bytes);
    a = swizzle == 0 ? start + (mn % 8) * 16 + (mn / 8) * stride + kb % 16 + kb / 16 * leading
                     : start + (mn % 8) * swizzle + (mn / 8) * stride + kb;
  } else {
    unsigned mb = (unsigned)(mn * bytes);
    a = swizzle == 0 ? start + mb % 16 + mb / 16 * stride + (k % 8) * 16 + (k / 8) * leading
                     : start + mb % swizzle + mb / swizzle * leading + (k % 8) * swizzle + (k / 8) * stride;
  }
  if (swizzle) a ^= ((a >> 7) & (swizzle / 16 - 1)) << 4;
  return a;
}

// The shared bytes each thread's wgmmas read, with the group they belong to: the wait that
// retires the group checks that none has changed (an operand overwritten while in flight).
typedef struct { unsigned address; unsigned char value; int group; } WgmmaRead;
static __thread WgmmaRead* reads;
static __thread int read_count, read_capacity, wgmma_groups;
static unsigned read_operand(unsigned address, int bytes) {
  unsigned v = shared_bits(address, bytes);
  for (int i = 0; i < bytes; ++i) {
    if (read_count == read_capacity) {
      read_capacity = read_capacity ? 2 * read_capacity : 4096;
      reads = realloc(reads, sizeof(WgmmaRead) * read_capacity);
    }
    reads[read_count++] = (WgmmaRead){address + i, (unsigned char)(v >> (8 * i)), wgmma_groups};
  }
  return v;
}
// The accumulators a wgmma writes are not there until the wait_group that retires its group:
// the instruction returns tags (0x7fe00000 | index: a quiet NaN as f32, a NaN half as f16 pairs)
// and keeps the values; the next wgmma on the same registers reads through them (the
// hardware orders the two), the wait that retires the group swaps them for the values. Any
// other read of an accumulator before its wait gets NaNs.
#define TAG_MASK 0xfff00000u
#define TAG_BITS 0x7fe00000u
#define TAG_SLOTS 16384
typedef struct { unsigned value; int group; unsigned serial; } Pending;
static __thread Pending* pending_values;
static __thread unsigned pending_serial;
static unsigned tag_value(unsigned value, int group) {
  if (!pending_values) pending_values = calloc(TAG_SLOTS, sizeof(Pending));
  unsigned serial = pending_serial++;
  pending_values[serial % TAG_SLOTS] = (Pending){value, group, serial};
  return TAG_BITS | (serial % TAG_SLOTS);
}
// The value behind a register: itself, or (a tag) the value it stands for, which must still
// be kept (a stale tag: more accumulators in flight than the ring holds).
static unsigned untag(unsigned reg, int* group) {
  if ((reg & TAG_MASK) != TAG_BITS) {
    if (group) *group = -1;
    return reg;
  }
  Pending p = pending_values[reg & ~TAG_MASK];
  if (p.serial % TAG_SLOTS != (reg & ~TAG_MASK)) emu_fail("stale wgmma accumulator tag", reg);
  if (group) *group = p.group;
  return p.value;
}

void emu_noop(const unsigned long long* in, unsigned long long* out) { (void)in, (void)out; }
// `mov.u32 $0, %tid.x;` (an asm with a side effect: a cold copy's or load's addresses computed
// where they are used, emit_async.cpp's cold_addresses).
void emu_tid_x(const unsigned long long* in, unsigned long long* out) { (void)in, out[0] = (unsigned)emu_tid; }
void emu_wgmma_commit(const unsigned long long* in, unsigned long long* out) { (void)in, (void)out, ++wgmma_groups; }
// wgmma.wait_group N: the accumulators pass through (slots in = out).
void emu_wgmma_wait(const unsigned long long* in, unsigned long long* out, int count, int pending) {
  for (int i = 0; i < count; ++i) {  // retired groups' values replace their tags
    int group;
    unsigned value = untag(slot_u32(in, i), &group);
    out[i] = in[i];
    if (group >= 0 && group < wgmma_groups - pending) set_u32(out, i, value);
  }
  int kept = 0;
  for (int i = 0; i < read_count; ++i) {
    WgmmaRead r = reads[i];
    if (r.group < wgmma_groups - pending) {
      if ((unsigned char)__tritium_shared[r.address] != r.value)
        emu_fail("wgmma operand overwritten in flight", r.address);
    } else {
      reads[kept++] = r;
    }
  }
  read_count = kept;
}

// wgmma.mma_async.sync.aligned.m64n{n}k{8,16,32}.{f32,f16,s32}.{atype}.{btype}: slots of A's
// descriptor (or, a_regs, A's four registers from slot a), B's descriptor, the scale-d
// predicate, the accumulators from slot c (n / 2 f32 or s32, or n / 4 packed f16).
// Immediates: scale_a, scale_b (1 or -1; s8 has none: 1), trans_a, trans_b.
void emu_wgmma(const unsigned long long* in, unsigned long long* out, int n, int atype, int btype, int f16_acc,
               int a_regs, int a, int b, int scale_d, int c, int scale_a, int scale_b, int trans_a, int trans_b) {
  int group = emu_tid / 128, w = (emu_tid / 32) % 4, lane = emu_tid & 31;
  int bytes_a = element_bytes(atype), bytes_b = element_bytes(btype), K = 32 / bytes_b;
  group_in[emu_tid] = in;
  pthread_barrier_wait(&warpgroup[group]);
  const unsigned long long* first = group_in[group * 128];
  for (int i = 0; a_regs && i < 4; ++i)
    if ((slot_u32(in, a + i) & TAG_MASK) == TAG_BITS) emu_fail("wgmma A register read before its wait_group", i);
  // The descriptors and the predicate must be the warpgroup's (uniform).
  if ((!a_regs && first[a] != in[a]) || first[b] != in[b] || (first[scale_d] & 1) != (in[scale_d] & 1))
    emu_fail("wgmma operands differ across the warpgroup", (unsigned)(in[b] & 0x3fff));
  unsigned long long desc_a = in[a], desc_b = in[b];
  int accumulate = slot_u32(in, scale_d) & 1;
  const unsigned long long* const* warp_lanes = group_in + (emu_tid & ~31);
  int g = lane / 4, t = lane % 4;
  for (int i = 0; i < n / 2; ++i) {
    int j = i / 4, e = i % 4;
    int row = 16 * w + g + (e >= 2 ? 8 : 0), col = 8 * j + 2 * t + (e & 1);
    float sum = 0;
    int isum = 0;
    if (accumulate) {
      unsigned reg = untag(slot_u32(in, c + (f16_acc ? i / 2 : i)), NULL);
      float f;
      memcpy(&f, &reg, 4);
      sum = f16_acc ? half_to_float((unsigned short)half_of(reg, i & 1)) : f;
      isum = (int)reg;
    }
    for (int k = 0; k < K; ++k) {
      unsigned abits = a_regs && atype == 4 ? a_fragment_bits_tf32(warp_lanes, a, row - 16 * w, k)
                       : a_regs             ? a_fragment_bits(warp_lanes, a, row - 16 * w, k)
                              : read_operand(operand_address(desc_a, bytes_a, trans_a, row, k), bytes_a);
      unsigned bbits = read_operand(operand_address(desc_b, bytes_b, trans_b, col, k), bytes_b);
      sum += scale_a * element_value(atype, abits) * scale_b * element_value(btype, bbits);
      isum += (int)(signed char)abits * (int)(signed char)bbits;
    }
    if (atype == 5) {
      set_u32(out, i, (unsigned)isum);
    } else if (f16_acc) {
      unsigned bits = float_to_half(sum);
      set_u32(out, i / 2, (i & 1) ? (slot_u32(out, i / 2) | bits << 16) : bits);
    } else {
      set_f32(out, i, sum);
    }
  }
  for (int i = 0; i < (f16_acc ? n / 4 : n / 2); ++i) set_u32(out, i, tag_value(slot_u32(out, i), wgmma_groups));
  pthread_barrier_wait(&warpgroup[group]);
}

// ---- the rest ----
// @p ld.global{.v}.bB {...}, [a+off] (zeros where p is false: the statement's mov.b32 0).
void emu_ld_global(const unsigned long long* in, unsigned long long* out, int count, int bits, int ptr, int pred,
                   int offset) {
  const char* p = (const char*)in[ptr] + offset;
  int on = pred < 0 || (slot_u32(in, pred) & 1);
  for (int i = 0; i < count; ++i) {
    unsigned long long v = 0;
    if (on) memcpy(&v, p + i * (bits / 8), bits / 8);
    out[i] = v;
  }
}
// cvt.rn.bf16.f16: a half to bfloat16, to nearest even (a NaN stays a quiet NaN).
void emu_cvt_bf16_f16(const unsigned long long* in, unsigned long long* out) {
  float f = half_to_float((unsigned short)(slot_u32(in, 0) & 0xffffu));
  unsigned u;
  memcpy(&u, &f, 4);
  unsigned b = isnan(f) ? (u >> 16) | 0x40u : (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  set_u32(out, 0, b & 0xffffu);
}
// cvt.rn.f16x2.{e4m3x2,e5m2x2}: each byte of the .b16 to the half in its place.
void emu_cvt_f16x2_fp8(const unsigned long long* in, unsigned long long* out, int type) {
  unsigned v = slot_u32(in, 0);
  unsigned lo = float_to_half(element_value(type, v & 0xff)), hi = float_to_half(element_value(type, (v >> 8) & 0xff));
  set_u32(out, 0, lo | hi << 16);
}
