/* Launches the vector add exported by `tritium aot` (see run.sh) from plain C: the driver
   API for memory, add_kernel_launch for the kernel, nothing of tritium, LLVM or Python at
   run time. Checks the sum for an aligned and a misaligned call (two variants), then times
   launches against raw cuLaunchKernel of the same cubin/PTX (host time per launch).

     main DIR     (DIR: where `tritium aot ... --name add_kernel -o DIR` wrote its files) */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "add_kernel.h"

#define CHECK(call)                                                        \
  do {                                                                     \
    int status_ = (int)(call);                                             \
    if (status_ != 0) {                                                    \
      fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, status_); \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int check_sum(CUdeviceptr x, CUdeviceptr y, CUdeviceptr out, int offset, int n,
                     const float* hx, const float* hy) {
  float* result = malloc(sizeof(float) * n);
  CHECK(cuMemsetD32(out, 0x7fc00000u, n + offset)); /* NaN: unwritten elements show */
  int variant = add_kernel_select(x + 4 * offset, y + 4 * offset, out + 4 * offset, n);
  CHECK(add_kernel_launch(NULL, x + 4 * offset, y + 4 * offset, out + 4 * offset, n));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(result, out + 4 * offset, sizeof(float) * n));
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += result[i] != hx[i + offset] + hy[i + offset];
  printf("offset %d, n %d: variant %d [%s]: %s\n", offset, n, variant,
         add_kernel_signature(variant), bad ? "WRONG" : "ok");
  free(result);
  return bad;
}

int main(int argc, char** argv) {
  const char* dir = argc > 1 ? argv[1] : ".";
  CHECK(cuInit(0));
  CUdevice device;
  CUcontext context;
  CHECK(cuDeviceGet(&device, 0));
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));

  const int n = 1 << 20;
  float* hx = malloc(sizeof(float) * (n + 1));
  float* hy = malloc(sizeof(float) * (n + 1));
  for (int i = 0; i <= n; ++i) {
    hx[i] = (float)rand() / RAND_MAX;
    hy[i] = (float)rand() / RAND_MAX;
  }
  CUdeviceptr x, y, out;
  CHECK(cuMemAlloc(&x, sizeof(float) * (n + 1)));
  CHECK(cuMemAlloc(&y, sizeof(float) * (n + 1)));
  CHECK(cuMemAlloc(&out, sizeof(float) * (n + 1)));
  CHECK(cuMemcpyHtoD(x, hx, sizeof(float) * (n + 1)));
  CHECK(cuMemcpyHtoD(y, hy, sizeof(float) * (n + 1)));

  int bad = check_sum(x, y, out, 0, n, hx, hy);      /* aligned, n % 16 == 0 */
  bad += check_sum(x, y, out, 1, n - 1, hx, hy);     /* misaligned, odd n */
  bad += check_sum(x, y, out, 0, 1, hx, hy);         /* n == 1 */

  /* Launch cost: add_kernel_launch against cuLaunchKernel of variant 0's image. */
  char path[4096];
  snprintf(path, sizeof(path), "%s/add_kernel_v0.cubin", dir);
  FILE* f = fopen(path, "rb");
  if (f == NULL) {
    snprintf(path, sizeof(path), "%s/add_kernel_v0.ptx", dir);
    f = fopen(path, "rb");
  }
  if (f == NULL) {
    fprintf(stderr, "cannot open %s\n", path);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* image = calloc(1, size + 1);
  if (fread(image, 1, size, f) != (size_t)size) return 1;
  fclose(f);
  CUmodule module;
  CUfunction function;
  CHECK(cuModuleLoadData(&module, image));
  const char* entry = NULL;  /* the entry name is in the PTX; the cubin keeps the same one */
  snprintf(path, sizeof(path), "%s/add_kernel_v0.ptx", dir);
  f = fopen(path, "rb");
  char line[1024], name[256] = {0};
  while (f && fgets(line, sizeof(line), f)) {
    char* e = strstr(line, ".entry ");
    if (e && sscanf(e + 7, "%255[A-Za-z0-9_]", name) == 1) break;
  }
  if (f) fclose(f);
  entry = name;
  CHECK(cuModuleGetFunction(&function, module, entry));

  const int small = 1024, launches = 20000;
  int small_n = small;
  void* params[] = {&x, &y, &out, &small_n};
  for (int i = 0; i < 100; ++i) CHECK(add_kernel_launch(NULL, x, y, out, small));
  CHECK(cuCtxSynchronize());
  double t0 = now();
  for (int i = 0; i < launches; ++i) CHECK(add_kernel_launch(NULL, x, y, out, small));
  double t1 = now();
  CHECK(cuCtxSynchronize());
  double t2 = now();
  for (int i = 0; i < launches; ++i) {
    CHECK(cuLaunchKernel(function, 1, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
  }
  double t3 = now();
  CHECK(cuCtxSynchronize());
  printf("{\"aot_launch_us\": %.3f, \"raw_cuLaunchKernel_us\": %.3f}\n",
         (t1 - t0) * 1e6 / launches, (t3 - t2) * 1e6 / launches);
  puts(bad ? "FAILED" : "OK");
  return bad != 0;
}
