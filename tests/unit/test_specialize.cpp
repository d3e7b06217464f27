// Binding and classification of call arguments (src/runtime/specialize.h) against Triton
// 3.6's rules (triton-spec.md §1.2-1.5), and the Kernel API around them.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/cuda_driver.h"
#include "runtime/kernel_impl.h"
#include "runtime/specialize.h"
#include "tritium/errors.h"

using tritium::Arg;
using tritium::ConstValue;
using tritium::DType;
using tritium::KernelParams;
using tritium::LaunchError;
using tritium::ParamSig;
using tritium::ir::ScalarKind;
namespace rt = tritium::runtime;

namespace {

// Parameters (x, y, n, BLOCK: constexpr), none annotated.
KernelParams make_params(std::vector<std::string> names, std::vector<bool> is_constexpr) {
  KernelParams p;
  size_t n = names.size();
  p.names = std::move(names);
  p.is_constexpr = std::move(is_constexpr);
  p.has_default.assign(n, false);
  p.defaults.assign(n, ConstValue::none());
  p.annotated_dtype.assign(n, ScalarKind::I32);
  p.has_annotated_dtype.assign(n, false);
  return p;
}

KernelParams one_param() { return make_params({"a"}, {false}); }

std::string text_of(const KernelParams& params, const Arg& arg) {
  tritium::Signature sig;
  sig.params = {rt::classify("k", params, 0, arg)};
  return sig.str(params.names);
}

std::string text_of(const Arg& arg) { return text_of(one_param(), arg); }

const void* address(uintptr_t a) { return reinterpret_cast<const void*>(a); }

std::string launch_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const LaunchError& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace

TEST_CASE("integers: ranges, ==1 and divisibility as Triton 3.6", "[specialize]") {
  CHECK(text_of(Arg::integer(1)) == "1");
  CHECK(text_of(Arg::unsigned_integer(1)) == "1");
  CHECK(text_of(Arg::integer(0)) == "i32:16");  // Python's 0 % 16 == 0
  CHECK(text_of(Arg::integer(-32)) == "i32:16");
  CHECK(text_of(Arg::integer(-1)) == "i32");
  CHECK(text_of(Arg::integer(7)) == "i32");
  CHECK(text_of(Arg::integer(1024)) == "i32:16");
  CHECK(text_of(Arg::integer(INT32_MAX)) == "i32");
  CHECK(text_of(Arg::integer(INT32_MIN)) == "i32:16");
  CHECK(text_of(Arg::integer(int64_t{INT32_MAX} + 1)) == "i64:16");  // [2^31, 2^32) is i64
  CHECK(text_of(Arg::integer(int64_t{INT32_MIN} - 1)) == "i64");
  CHECK(text_of(Arg::integer(INT64_MAX)) == "i64");
  CHECK(text_of(Arg::integer(INT64_MIN)) == "i64:16");
  CHECK(text_of(Arg::unsigned_integer(uint64_t{1} << 63)) == "u64:16");
  CHECK(text_of(Arg::unsigned_integer(UINT64_MAX)) == "u64");
  CHECK(text_of(Arg::unsigned_integer(5)) == "i32");  // small unsigned values are ordinary ints
}

TEST_CASE("bools come before ints; floats are fp32; None is a constant", "[specialize]") {
  CHECK(text_of(Arg::boolean(true)) == "i1");   // never folded to 1
  CHECK(text_of(Arg::boolean(false)) == "i1");  // never divisible
  CHECK(text_of(Arg::floating(1.0)) == "fp32");
  CHECK(text_of(Arg::floating(16.0)) == "fp32");
  CHECK(text_of(Arg::none()) == "None");
  CHECK(text_of(Arg::dtype(DType::fp16)) == "fp16");
}

TEST_CASE("pointers: element type and 16-byte alignment of the byte address", "[specialize]") {
  CHECK(text_of(Arg::pointer(address(0x1000), DType::fp32)) == "*fp32:16");
  CHECK(text_of(Arg::pointer(address(0x1004), DType::fp32)) == "*fp32");
  CHECK(text_of(Arg::pointer(address(0x1008), DType::fp16)) == "*fp16");
  CHECK(text_of(Arg::pointer(address(0x1010), DType::bf16)) == "*bf16:16");
  CHECK(text_of(Arg::pointer(address(0x1010), DType::i1)) == "*i1:16");
  CHECK(text_of(Arg::pointer(address(0), DType::u8)) == "*u8:16");
}

TEST_CASE("do_not_specialize and do_not_specialize_on_alignment", "[specialize]") {
  KernelParams dns = one_param();
  dns.do_not_specialize = {0};
  CHECK(text_of(dns, Arg::integer(1)) == "i32");
  CHECK(text_of(dns, Arg::integer(32)) == "i32");
  CHECK(text_of(dns, Arg::integer(int64_t{1} << 40)) == "i64");
  CHECK(text_of(dns, Arg::pointer(address(0x1000), DType::fp32)) == "*fp32");
  CHECK(text_of(dns, Arg::none()) == "None");

  KernelParams align = one_param();
  align.do_not_specialize_on_alignment = {0};
  CHECK(text_of(align, Arg::integer(1)) == "1");  // ==1 stays
  CHECK(text_of(align, Arg::integer(32)) == "i32");
  CHECK(text_of(align, Arg::pointer(address(0x1000), DType::fp32)) == "*fp32");
}

TEST_CASE("a dtype annotation forces the type and folds nothing", "[specialize]") {
  KernelParams p = one_param();
  p.has_annotated_dtype[0] = true;
  p.annotated_dtype[0] = ScalarKind::I64;
  CHECK(text_of(p, Arg::integer(1)) == "i64");
  CHECK(text_of(p, Arg::integer(32)) == "i64:16");
  CHECK(text_of(p, Arg::integer(3)) == "i64");
  p.annotated_dtype[0] = ScalarKind::F32;
  CHECK(text_of(p, Arg::integer(32)) == "fp32");
  CHECK(text_of(p, Arg::floating(2.5)) == "fp32");
  p.annotated_dtype[0] = ScalarKind::I1;
  CHECK(text_of(p, Arg::integer(16)) == "i1");
  CHECK_THAT(launch_error([&] { text_of(p, Arg::pointer(address(16), DType::fp32)); }),
             Catch::Contains("annotated i1"));
}

TEST_CASE("constexpr parameters take the value", "[specialize]") {
  KernelParams p = make_params({"BLOCK"}, {true});
  CHECK(text_of(p, Arg::integer(1024)) == "BLOCK=1024");
  CHECK(text_of(p, Arg::integer(1)) == "BLOCK=1");
  CHECK(text_of(p, Arg::boolean(true)) == "BLOCK=True");
  CHECK(text_of(p, Arg::floating(0.5)) == "BLOCK=0.5");
  CHECK(text_of(p, Arg::none()) == "BLOCK=None");
  CHECK(text_of(p, Arg::string("relu")) == "BLOCK='relu'");
  CHECK(text_of(p, Arg::dtype(DType::bf16)) == "BLOCK=bf16");
  CHECK(text_of(p, Arg::unsigned_integer(UINT64_MAX)) == "BLOCK=18446744073709551615");
  CHECK_THAT(launch_error([&] { text_of(p, Arg::pointer(address(16), DType::fp32)); }),
             Catch::Contains("kernel 'k': argument 'BLOCK'") && Catch::Contains("pointer"));
}

TEST_CASE("unsupported types name the kernel and the argument", "[specialize]") {
  CHECK_THAT(launch_error([] { text_of(Arg::string("x")); }),
             Catch::Contains("kernel 'k': argument 'a': unsupported type"));
}

TEST_CASE("wide integers: OverflowError outside [-2^63, 2^64)", "[specialize]") {
  CHECK(rt::int_arg(-(static_cast<__int128>(1) << 63), "k", "n").int_value() == INT64_MIN);
  Arg big = rt::int_arg((static_cast<__int128>(1) << 64) - 1, "k", "n");
  CHECK(big.is_unsigned());
  CHECK(big.uint_value() == UINT64_MAX);
  CHECK_FALSE(rt::int_arg(5, "k", "n").is_unsigned());
  CHECK_THAT(launch_error([] { rt::int_arg(static_cast<__int128>(1) << 64, "k", "n"); }),
             Catch::Contains("kernel 'k': argument 'n': OverflowError") &&
                 Catch::Contains("18446744073709551616"));
  CHECK_THAT(launch_error([] { rt::int_arg(-(static_cast<__int128>(1) << 63) - 1, "k", "n"); }),
             Catch::Contains("OverflowError"));
}

TEST_CASE("binding: positional, named, defaults and the errors", "[specialize]") {
  KernelParams p = make_params({"x", "n", "BLOCK"}, {false, false, true});
  p.has_default[2] = true;
  p.defaults[2] = ConstValue::integer(128);
  std::vector<Arg> defaults = rt::default_args("k", p);
  rt::BoundArgs bound;

  std::vector<Arg> args = {Arg::pointer(address(64), DType::fp32), Arg::integer(10)};
  rt::bind_args("k", p, defaults, args, {}, &bound);
  REQUIRE(bound.size() == 3);
  CHECK(bound[0].from == rt::BoundArg::From::Positional);
  CHECK(bound[2].from == rt::BoundArg::From::Default);
  CHECK(bound[2].arg->int_value() == 128);
  tritium::Signature sig;
  rt::specialize("k", p, bound, &sig);
  CHECK(sig.str(p.names) == "*fp32:16, i32, BLOCK=128");

  std::vector<std::pair<std::string, Arg>> named = {{"BLOCK", Arg::integer(64)},
                                                    {"n", Arg::integer(1)}};
  std::vector<Arg> first = {Arg::pointer(address(8), DType::fp16)};
  rt::bind_args("k", p, defaults, first, named, &bound);
  CHECK(bound[1].from == rt::BoundArg::From::Named);
  CHECK(bound[1].index == 1);
  rt::specialize("k", p, bound, &sig);
  CHECK(sig.str(p.names) == "*fp16, 1, BLOCK=64");

  std::vector<Arg> too_many(4, Arg::integer(3));
  CHECK_THAT(launch_error([&] { rt::bind_args("k", p, defaults, too_many, {}, &bound); }),
             Catch::Contains("kernel 'k': takes 3 arguments but 4 were given"));
  std::vector<std::pair<std::string, Arg>> unknown = {{"foo", Arg::integer(1)}};
  CHECK_THAT(launch_error([&] { rt::bind_args("k", p, defaults, args, unknown, &bound); }),
             Catch::Contains("keyword argument 'foo'"));
  std::vector<std::pair<std::string, Arg>> twice = {{"x", Arg::integer(1)}};
  CHECK_THAT(launch_error([&] { rt::bind_args("k", p, defaults, args, twice, &bound); }),
             Catch::Contains("argument 'x': given more than once"));
  CHECK_THAT(launch_error([&] { rt::bind_args("k", p, defaults, first, {}, &bound); }),
             Catch::Contains("kernel 'k': argument 'n': missing"));
}

TEST_CASE("a default beyond 64 bits is an OverflowError at binding", "[specialize]") {
  KernelParams p = make_params({"n"}, {false});
  p.has_default[0] = true;
  p.defaults[0] = ConstValue::integer(static_cast<__int128>(1) << 70);
  CHECK_THAT(launch_error([&] { rt::default_args("k", p); }), Catch::Contains("OverflowError"));
}

TEST_CASE("DType and ScalarKind name the same types", "[specialize]") {
  for (int i = 0; i <= static_cast<int>(DType::fp64); ++i) {
    DType d = static_cast<DType>(i);
    CHECK(rt::to_dtype(rt::to_scalar_kind(d)) == d);
  }
}

TEST_CASE("grids: 1-3 dimensions in [0, 2^31-1]", "[specialize]") {
  tritium::Grid g = tritium::Kernel::Impl::make_grid("k", {4});
  CHECK((g.x == 4 && g.y == 1 && g.z == 1));
  g = tritium::Kernel::Impl::make_grid("k", {0, 2, 3});
  CHECK((g.x == 0 && g.y == 2 && g.z == 3));
  CHECK_THAT(launch_error([] { tritium::Kernel::Impl::make_grid("k", {-1}); }),
             Catch::Contains("kernel 'k': grid dimension 0 is -1"));
  CHECK_THAT(launch_error([] {
               tritium::Kernel::Impl::make_grid("k", {1, int64_t{1} << 31});
             }),
             Catch::Contains("grid dimension 1"));
  CHECK_THAT(launch_error([] { tritium::Kernel::Impl::make_grid("k", {}); }),
             Catch::Contains("1 to 3 dimensions"));
  CHECK_THAT(launch_error([] {
               tritium::Kernel::Impl::make_grid("k", {1, 1, 1, 1});
             }),
             Catch::Contains("1 to 3 dimensions"));
}

// ---------------------------------------------------------------------------------------
// Through the Kernel API (needs the frontend and lowering's read_params).

namespace {

const char* kAddSource = R"(import tritium
import tritium.language as tl


@tritium.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@tritium.jit(do_not_specialize=["n"])
def dns_kernel(p, n, m):
    pass
)";

}  // namespace

TEST_CASE("Kernel: parameters and signatures from call arguments", "[kernel]") {
  tritium::Kernel kernel(kAddSource, "add_kernel", "add.py");
  CHECK(kernel.name() == "add_kernel");
  CHECK(kernel.param_names() ==
        std::vector<std::string>{"x_ptr", "y_ptr", "out_ptr", "n_elements", "BLOCK"});
  alignas(16) float x[32] = {}, y[32] = {}, out[32] = {};
  std::vector<Arg> args = {
      Arg::pointer(x, DType::fp32, sizeof x), Arg::pointer(y + 1, DType::fp32, sizeof y - 4),
      Arg::pointer(out, DType::fp32, sizeof out), Arg::integer(32), Arg::integer(16)};
  CHECK(kernel.signature(args) == "*fp32:16, *fp32, *fp32:16, i32:16, BLOCK=16");
  std::vector<Arg> four(args.begin(), args.end() - 1);
  CHECK(kernel.signature(four, {{"BLOCK", Arg::integer(8)}}) ==
        "*fp32:16, *fp32, *fp32:16, i32:16, BLOCK=8");
  CHECK_THAT(launch_error([&] { kernel.signature(four); }),
             Catch::Contains("kernel 'add_kernel': argument 'BLOCK': missing"));

  tritium::Kernel dns(kAddSource, "dns_kernel", "add.py");
  std::vector<Arg> dargs = {Arg::pointer(x, DType::fp32), Arg::integer(1), Arg::integer(1)};
  CHECK(dns.signature(dargs) == "*fp32:16, i32, 1");
}

TEST_CASE("Kernel: a missing function is a clear CompileError", "[kernel]") {
  try {
    tritium::Kernel kernel(kAddSource, "nope", "add.py");
    FAIL("expected an error");
  } catch (const tritium::CompileError& e) {
    CHECK_THAT(std::string(e.what()),
               Catch::Contains("no function named 'nope'") && Catch::Contains("add_kernel"));
  }
}

TEST_CASE("Kernel: launch-time checks before any work", "[kernel]") {
  tritium::Kernel kernel(kAddSource, "add_kernel", "add.py");
  alignas(16) float x[4] = {}, y[4] = {}, out[4] = {};
  std::vector<Arg> args = {
      Arg::pointer(x, DType::fp32, sizeof x), Arg::pointer(y, DType::fp32, sizeof y),
      Arg::pointer(out, DType::fp32, sizeof out), Arg::integer(4), Arg::integer(4)};
  tritium::LaunchConfig config;
  config.backend = tritium::Backend::Cuda;
  // Without a GPU the CUDA backend says why it cannot run; with one, these host buffers
  // are refused by name.
  CHECK_THAT(launch_error([&] {
               kernel.launch({1, 1, 1}, args, {}, config);
             }),
             tritium::cuda::device_present()
                 ? Catch::Contains("argument 'x_ptr'") && Catch::Contains("host memory")
                 : Catch::Contains("kernel 'add_kernel'") &&
                       Catch::Contains("cannot run on the GPU"));
  config.backend = tritium::Backend::Interpreter;
  config.num_warps = 3;
  CHECK_THAT(launch_error([&] {
               kernel.launch({1, 1, 1}, args, {}, config);
             }),
             Catch::Contains("num_warps must be a power of 2"));
  config.num_warps = 4;
  CHECK_THAT(launch_error([&] {
               kernel.launch({1u << 31, 1, 1}, args, {}, config);
             }),
             Catch::Contains("grid dimension 0"));
}

TEST_CASE("Kernel: vector add in the interpreter, and an empty grid is a no-op", "[kernel]") {
  tritium::Kernel kernel(kAddSource, "add_kernel", "add.py");
  const int n = 37;
  std::vector<float> x(n), y(n), out(n, -1.0f);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.5f * static_cast<float>(i);
    y[i] = 3.0f - static_cast<float>(i);
  }
  std::vector<Arg> args = {
      Arg::pointer(x.data(), DType::fp32, n * 4), Arg::pointer(y.data(), DType::fp32, n * 4),
      Arg::pointer(out.data(), DType::fp32, n * 4), Arg::integer(n), Arg::integer(16)};
  tritium::LaunchConfig config;
  config.backend = tritium::Backend::Interpreter;
  kernel.launch({0, 1, 1}, args, {}, config);
  CHECK(out[0] == -1.0f);
  kernel.launch({tritium::cdiv(n, 16), 1, 1}, args, {}, config);
  for (int i = 0; i < n; ++i) CHECK(out[i] == x[i] + y[i]);
  // A second launch with the same signature reuses the compiled specialization.
  std::fill(out.begin(), out.end(), -1.0f);
  kernel.launch({tritium::cdiv(n, 16), 1, 1}, args, {}, config);
  CHECK(out[n - 1] == x[n - 1] + y[n - 1]);
}

TEST_CASE("Kernel::emit prints the AST and the IR for a signature text", "[kernel]") {
  tritium::Kernel kernel(kAddSource, "add_kernel", "add.py");
  CHECK_THAT(kernel.emit(tritium::Stage::Ast, ""), Catch::Contains("add_kernel"));
  std::string ir =
      kernel.emit(tritium::Stage::Ir, "*fp32:16, *fp32:16, *fp32:16, i32:16, BLOCK=64");
  CHECK_THAT(ir, Catch::Contains("add_kernel"));
  CHECK_THAT(ir, Catch::Contains("load"));
  try {
    kernel.emit(tritium::Stage::Ir, "*fp32, *fp32");
    FAIL("expected an error");
  } catch (const tritium::CompileError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("no entry for parameter 'out_ptr'"));
  }
}

TEST_CASE("specializing again into the same buffer gives the same signature", "[specialize][descriptor]") {
  // The launcher specializes every launch into one reused Signature; a field that grew
  // instead of being reassigned made every launch of a descriptor kernel a new key (and a
  // compile), as in session 10's first shape_div.
  KernelParams p = make_params({"d", "x", "n"}, {false, false, false});
  Arg desc = Arg::tensor_descriptor(Arg::pointer(address(0x1000), DType::fp16), {4096, 64}, {64, 1}, {64, 64});
  Arg odd = Arg::tensor_descriptor(Arg::pointer(address(0x1000), DType::fp16), {4095, 64}, {64, 1}, {64, 64});
  std::vector<Arg> args = {desc, Arg::pointer(address(0x2000), DType::fp32), Arg::integer(7)};
  rt::BoundArgs bound;
  rt::bind_args("k", p, {}, args, {}, &bound);
  tritium::Signature sig;
  rt::specialize("k", p, bound, &sig);
  const std::string first = sig.str(p.names);
  CHECK(first == "tensordesc<fp16[64, 64],shape_div=[16, 16]>, *fp32:16, i32");
  const tritium::Signature copy = sig;
  rt::specialize("k", p, bound, &sig);
  CHECK(sig.str(p.names) == first);
  CHECK(sig == copy);
  args[0] = odd;
  rt::bind_args("k", p, {}, args, {}, &bound);
  rt::specialize("k", p, bound, &sig);
  CHECK(sig.str(p.names) == "tensordesc<fp16[64, 64],shape_div=[1, 16]>, *fp32:16, i32");
}

TEST_CASE("a kernel over the device's shared memory is OutOfResources, before the driver", "[specialize]") {
  // Triton raises OutOfResources when it loads such a kernel, and autotuners catch it to pass
  // over the configuration; tritium checks before touching the driver (so this runs anywhere).
  tritium::cuda::DeviceInfo device;
  device.ordinal = 0;
  device.max_shared_optin = 232448;  // an H100's
  device.name = "test device";
  try {
    tritium::cuda::load_cubin("", "k", 294912, device, "big");
    FAIL("no error");
  } catch (const tritium::OutOfResources& e) {
    CHECK(e.resource() == "shared memory");
    CHECK(e.required() == 294912);
    CHECK(e.limit() == 232448);
    CHECK(std::string(e.what()).find("kernel 'big': out of resource: shared memory, Required: 294912, Hardware limit: 232448") == 0);
  }
}
