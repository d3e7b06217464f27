// The typed random-kernel generator (see generator.h). It tracks each variable's element
// type (approximately: Triton's promotion is the compiler's job, not the generator's) and
// shape (scalar, [BLOCK], [R, C]) so that most programs are well typed and reach code
// generation; a few ill-typed ones are made on purpose and must end in located errors.
#include "generator.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace tritium::fuzz {

namespace {

struct DType {
  const char* tl;   // tl.<name>
  const char* sig;  // signature spelling
  int bits;
  bool is_float;
  bool is_signed;
};

const std::vector<DType>& dtypes() {
  static const std::vector<DType> all = {
      {"int1", "i1", 1, false, false},       {"int8", "i8", 8, false, true},
      {"int16", "i16", 16, false, true},     {"int32", "i32", 32, false, true},
      {"int64", "i64", 64, false, true},     {"uint8", "u8", 8, false, false},
      {"uint16", "u16", 16, false, false},   {"uint32", "u32", 32, false, false},
      {"uint64", "u64", 64, false, false},   {"float16", "fp16", 16, true, true},
      {"bfloat16", "bf16", 16, true, true},  {"float32", "fp32", 32, true, true},
      {"float64", "fp64", 64, true, true},
  };
  return all;
}

// Shapes: 0 a scalar, 1 a [BLOCK] block, 2 an [R, C] block.
struct Var {
  std::string name;
  int dtype;
  int shape;
};

class Generator {
 public:
  explicit Generator(Rng& rng) : rng_(rng) {}

  Input run() {
    block_ = 1 << pick(0, 8);  // 1 .. 256
    rows_ = 1 << pick(0, 3);
    cols_ = 1 << pick(0, 4);
    // Pointers are inputs (only loaded) or outputs (only stored to and atomically updated):
    // no program reads what another program or thread writes, so the differential harness
    // can compare backends without races. p0 is an input, the last pointer an output.
    int num_ptrs = pick(2, 5);
    int num_scalars = pick(0, 3);
    std::vector<std::string> params, sig, args;
    // 1-D accesses stay below 2 * BLOCK (masked by n); 2-D stores go after that, one
    // [R, C] tile per program (at most 3 programs).
    int elements = block_ * 2 + 3 * rows_ * cols_ + 8;
    for (int i = 0; i < num_ptrs; ++i) {
      int d = pick(0, static_cast<int>(dtypes().size()) - 1);
      (i == 0 || (i < num_ptrs - 1 && chance(50)) ? inputs_ : ptrs_).push_back({"p" + std::to_string(i), d, 0});
      params.push_back("p" + std::to_string(i));
      sig.push_back(std::string("*") + dtypes()[d].sig + (chance(70) ? ":16" : ""));
      args.push_back(std::string("rand:") + dtypes()[d].sig + ":" + std::to_string(elements));
    }
    static const int scalar_types[] = {3, 4, 11, 0};  // i32, i64, fp32, i1
    for (int i = 0; i < num_scalars; ++i) {
      int d = scalar_types[pick(0, 3)];
      std::string name = "s" + std::to_string(i);
      params.push_back(name);
      vars_.push_back({name, d, 0});
      std::string value = d == 11 ? std::to_string(pick(-8, 8)) + ".5" : d == 0 ? (chance(50) ? "True" : "False")
                                                                       : std::to_string(pick(-5, 40));
      bool divisible = d == 3 && chance(30);
      if (divisible) value = std::to_string(16 * pick(0, 3));
      sig.push_back(std::string(dtypes()[d].sig) + (divisible ? ":16" : ""));
      args.push_back(value);
    }
    params.push_back("n");
    int n = pick(0, block_ * 2);
    sig.push_back("i32");
    args.push_back(std::to_string(n));
    params.push_back("BLOCK: tl.constexpr");
    sig.push_back("BLOCK=" + std::to_string(block_));
    args.push_back("BLOCK=" + std::to_string(block_));

    std::ostringstream helpers;
    int num_helpers = pick(0, 2);
    for (int h = 0; h < num_helpers; ++h) {
      helpers << "@triton.jit\ndef helper" << h << "(a, b):\n";
      static const char* bodies[] = {"a * b + a", "tl.where(a < b, a, b)", "a - b", "tl.maximum(a, b) * 2",
                                     "(a + b) * (a - b)"};
      helpers << "    return " << bodies[pick(0, 4)] << "\n\n\n";
    }
    num_helpers_ = num_helpers;

    line("pid = tl.program_id(0)");
    line("offs = pid * BLOCK + tl.arange(0, BLOCK)");
    line("mask = offs < n");
    vars_.push_back({"pid", 3, 0});  // a scalar always exists
    vars_.push_back({"offs", 3, 1});
    vars_.push_back({"mask", 0, 1});
    if (chance(30)) {
      line("offs2 = tl.arange(0, " + std::to_string(rows_) + ")[:, None] * " + std::to_string(cols_) +
           " + tl.arange(0, " + std::to_string(cols_) + ")[None, :]");
      vars_.push_back({"offs2", 3, 2});
      two_d_ = true;
    }
    for (const Var& p : inputs_) load_from(p);
    int statements = pick(3, 14);
    for (int i = 0; i < statements; ++i) statement(0);
    for (const Var& p : ptrs_) {
      if (chance(70)) store_to(p);
    }

    Input input;
    std::ostringstream src;
    src << "import triton\nimport triton.language as tl\n\n\n" << helpers.str() << "@triton.jit\ndef kernel(";
    for (size_t i = 0; i < params.size(); ++i) src << (i ? ", " : "") << params[i];
    src << "):\n" << body_.str();
    input.source = src.str();
    input.kernel = "kernel";
    input.origin = "generated";
    for (size_t i = 0; i < sig.size(); ++i) input.signature += (i ? ", " : "") + sig[i];
    for (size_t i = 0; i < args.size(); ++i) input.args += (i ? ", " : "") + args[i];
    input.grid = pick(1, 3);
    return input;
  }

 private:
  int pick(int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng_); }
  bool chance(int percent) { return pick(0, 99) < percent; }
  template <typename T>
  const T& one_of(const std::vector<T>& items) { return items[static_cast<size_t>(pick(0, static_cast<int>(items.size()) - 1))]; }

  void line(const std::string& text) { body_ << std::string(4 * (indent_ + 1), ' ') << text << "\n"; }
  std::string fresh() { return "v" + std::to_string(next_++); }
  const DType& dt(int d) const { return dtypes()[static_cast<size_t>(d)]; }
  std::string tl_type(int d) const { return std::string("tl.") + dt(d).tl; }

  static bool is_literal(const std::string& e) {
    return !e.empty() && (std::isdigit(static_cast<unsigned char>(e[0])) || (e[0] == '-' && e.size() > 1 && std::isdigit(static_cast<unsigned char>(e[1]))));
  }

  // `e` converted to `t` (a Python literal converts itself where it is used).
  std::string cast(const std::string& e, int t) const {
    return is_literal(e) ? e : "(" + e + ").to(" + tl_type(t) + ")";
  }

  std::string offsets_for(int shape) { return shape == 2 ? "offs2" : "offs"; }

  void load_from(const Var& p) {
    std::string name = fresh();
    int shape = two_d_ && chance(30) ? 2 : chance(15) ? 0 : 1;
    std::string offs = offsets_for(shape);
    if (shape == 0) {
      line(name + " = tl.load(" + p.name + ")");
    } else if (chance(70)) {
      line(name + " = tl.load(" + p.name + " + " + offs + ", mask=" + offs + " < n" +
           (chance(50) ? ", other=0" : "") + ")");
    } else if (shape == 1 && chance(50)) {
      // A remainder whose dividend's sign is unknown: the GPU compiles it twice behind a sign
      // test (gpu/version_on_signs.h). In bounds: BLOCK + (-BLOCK, BLOCK).
      line(name + " = tl.load(" + p.name + " + BLOCK + ((pid - 2) * BLOCK + tl.arange(0, BLOCK)) % BLOCK)");
    } else {
      line(name + " = tl.load(" + p.name + " + " + offs + " % (n + 1))");  // in bounds: n + 1 <= 2 * BLOCK + 1
    }
    vars_.push_back({name, p.dtype, shape});
  }

  void store_to(const Var& p) {
    int shape = two_d_ && chance(30) ? 2 : 1;
    const Var& v = operand(shape);
    std::string value = chance(60) ? cast(v.name, p.dtype) : v.name;
    if (shape == 2) {
      line("tl.store(" + p.name + " + 2 * BLOCK + pid * " + std::to_string(rows_ * cols_) + " + offs2, " + value + ")");
    } else {
      line("tl.store(" + p.name + " + offs, " + value + ", mask=offs < n)");
    }
  }

  // A variable usable with shape `shape` (scalars go with anything).
  const Var& operand(int shape) {
    std::vector<const Var*> fits;
    for (const Var& v : vars_) {
      if (v.shape == shape || v.shape == 0) fits.push_back(&v);
    }
    return *fits[static_cast<size_t>(pick(0, static_cast<int>(fits.size()) - 1))];
  }

  std::string literal(bool is_float) {
    static const std::vector<std::string> ints = {"0", "1", "2", "3", "7", "-1", "-4", "255", "65535", "1024", "2147483647"};
    static const std::vector<std::string> floats = {"0.0", "1.0", "-2.5", "0.5", "3.0", "1e-3", "-0.0", "100.0"};
    return is_float ? one_of(floats) : one_of(ints);
  }

  int promote(int a, int b) const {
    const DType& x = dt(a);
    const DType& y = dt(b);
    if (x.is_float || y.is_float) {
      if (!y.is_float) return a;
      if (!x.is_float) return b;
      if (x.bits != y.bits) return x.bits > y.bits ? a : b;
      return a == b ? a : 11;  // fp16 with bf16: fp32
    }
    if (x.bits != y.bits) return x.bits > y.bits ? a : b;
    return x.is_signed ? b : a;
  }

  // An expression of shape `shape` and its (approximate) element type.
  std::pair<std::string, int> expr(int shape, int depth) {
    int kind = pick(0, depth > 1 ? 2 : 11);
    const Var& a = operand(shape);
    if (kind <= 2) {
      if (chance(20)) {
        bool f = dt(a.dtype).is_float;
        std::string lit = literal(f);
        if (!f && !dt(a.dtype).is_signed && lit[0] == '-' && chance(90)) lit = lit.substr(1);
        return {lit, f ? 11 : 3};
      }
      return {a.name, a.dtype};
    }
    auto [x, xt] = expr(shape, depth + 1);
    auto [y, yt] = expr(shape, depth + 1);
    bool floats = dt(xt).is_float || dt(yt).is_float;
    switch (kind) {
      case 3: {
        static const std::vector<std::string> int_ops = {"+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>"};
        static const std::vector<std::string> float_ops = {"+", "-", "*", "/"};
        // Now and then an operator the types do not allow: a located error is expected.
        const std::string& op = floats && !chance(5) ? one_of(float_ops) : one_of(int_ops);
        int t = op == "/" && !floats ? 11 : promote(xt, yt);
        return {"(" + x + " " + op + " " + y + ")", t};
      }
      case 4: {
        static const std::vector<std::string> cmps = {"<", "<=", ">", ">=", "==", "!="};
        return {"(" + x + " " + one_of(cmps) + " " + y + ")", 0};
      }
      case 5: {
        int t = pick(0, static_cast<int>(dtypes().size()) - 1);
        if (chance(30)) {
          // A bitcast to a type of the same width.
          std::vector<int> same;
          for (size_t i = 0; i < dtypes().size(); ++i) {
            if (dtypes()[i].bits == dt(xt).bits) same.push_back(static_cast<int>(i));
          }
          t = one_of(same);
          if (is_literal(x)) return {x, xt};
          return {"(" + x + ").to(" + tl_type(t) + ", bitcast=True)", t};
        }
        return {cast(x, t), t};
      }
      case 6: {
        static const std::vector<std::string> math = {"exp", "log", "sqrt", "abs", "floor", "ceil", "sin", "cos",
                                                      "exp2", "log2", "rsqrt", "sigmoid"};
        std::string fn = one_of(math);
        if (!dt(xt).is_float || dt(xt).bits < 32) {
          if (chance(90)) return {"tl." + fn + "(" + (is_literal(x) ? "tl.full((), " + x + ", tl.float32)" : cast(x, 11)) + ")", 11};
        }
        return {"tl." + fn + "(" + x + ")", xt};
      }
      case 7: {
        auto [c, ct] = expr(shape, depth + 1);
        (void)ct;
        return {"tl.where(" + c + " > 0, " + x + ", " + y + ")", promote(xt, yt)};
      }
      case 8:
        return {std::string(chance(50) ? "tl.maximum(" : "tl.minimum(") + x + ", " + y + ")", promote(xt, yt)};
      case 9:
        if (shape == 0 && chance(60)) {
          // A reduction of a [BLOCK] value to a scalar.
          std::vector<const Var*> blocks;
          for (const Var& v : vars_) {
            if (v.shape == 1) blocks.push_back(&v);
          }
          static const std::vector<std::string> reductions = {"tl.sum", "tl.max", "tl.min", "tl.xor_sum", "tl.argmax", "tl.argmin"};
          const Var& v = *blocks[static_cast<size_t>(pick(0, static_cast<int>(blocks.size()) - 1))];
          std::string fn = one_of(reductions);
          return {fn + "(" + v.name + ", 0)", fn.find("arg") != std::string::npos ? 3 : v.dtype};
        }
        // x may be a scalar that a block expression broadcasts; a scan needs the block.
        if (shape == 1 && chance(40)) {
          return {std::string(chance(50) ? "tl.cumsum(" : "tl.cumprod(") + "tl.broadcast_to(" + x + ", (BLOCK,)), 0)", xt};
        }
        [[fallthrough]];
      case 10:
        if (kind == 10 && shape != 0) return move(shape, x, xt);
        [[fallthrough]];
      default:
        if (num_helpers_ > 0) return {"helper" + std::to_string(pick(0, num_helpers_ - 1)) + "(" + x + ", " + y + ")", promote(xt, yt)};
        return {"(-" + x + ")", xt};
    }
  }

  // Element moves that keep the shape (deterministic ones only: no can_reorder, so the
  // backends agree element for element): reshape, trans, permute, join, interleave, flip,
  // expand_dims, broadcast_to, each around a value of `shape` made a block first.
  std::pair<std::string, int> move(int shape, const std::string& x, int xt) {
    std::string b = std::to_string(block_), r = std::to_string(rows_), c = std::to_string(cols_);
    std::string dims = shape == 1 ? "(" + b + ",)" : "(" + r + ", " + c + ")";
    std::string bx = "tl.broadcast_to(" + x + ", " + dims + ")";
    std::string by = "tl.flip(" + bx + ", 0)";  // one dtype with bx: join and interleave need it
    if (shape == 1) {
      switch (pick(0, block_ >= 2 ? 3 : 1)) {
        case 0: return {"tl.sum(tl.join(" + bx + ", " + by + "), 1)", xt};
        case 1: return {"tl.flip(" + bx + ", 0)", xt};
        case 2: return {"tl.ravel(tl.trans(tl.reshape(" + bx + ", (2, " + std::to_string(block_ / 2) + "))))", xt};
        default: return {"tl.max(tl.reshape(tl.interleave(" + bx + ", " + by + "), (" + b + ", 2)), 1)", xt};
      }
    }
    switch (pick(0, 3)) {
      case 0: return {"tl.trans(tl.reshape(" + bx + ", (" + c + ", " + r + ")))", xt};
      case 1: return {"tl.reshape(tl.permute(" + bx + ", (1, 0)), " + dims + ")", xt};
      case 2: return {"(tl.expand_dims(tl.sum(" + bx + ", 1), 1) + " + bx + ")", xt};
      default: return {"tl.broadcast_to(tl.min(" + bx + ", 0)[None, :], " + dims + ")", xt};
    }
  }

  // tl.dot of two tiles loaded from an input, reduced to a scalar. The operands are small
  // integers (|x| <= 3) in the dot's dtype, so every product and sum is exact in any order and
  // precision (tf32 included): the backends agree bit for bit.
  void dot() {
    const Var& p = one_of(inputs_);
    static const std::vector<int> kinds = {9, 9, 10, 11, 11, 1, 12};  // fp16, bf16, fp32, int8, fp64
    int t = one_of(kinds);
    int m = 16 << pick(0, 1), k = t == 1 ? 32 : 16 << pick(0, 1), nn = 16 << pick(0, 1);  // int8: K >= 32
    auto tile = [&](int rows, int cols) {
      return "(tl.load(" + p.name + " + (tl.arange(0, " + std::to_string(rows) + ")[:, None] * " + std::to_string(cols) +
             " + tl.arange(0, " + std::to_string(cols) + ")[None, :]) % (n + 1)).to(tl.int8) % 4).to(" + tl_type(t) + ")";
    };
    std::string a = fresh(), b = fresh(), d = fresh();
    line(a + " = " + tile(m, k));
    line(b + " = " + tile(k, nn));
    bool is_int = t == 1;
    std::string options;
    if (chance(40)) options += ", acc=tl.zeros((" + std::to_string(m) + ", " + std::to_string(nn) + "), " + (is_int ? "tl.int32" : t == 12 ? "tl.float64" : "tl.float32") + ")" +
                          (t == 12 ? ", out_dtype=tl.float64" : is_int ? ", out_dtype=tl.int32" : "");
    if (t == 11 && chance(50)) options += std::string(", input_precision=\"") + one_of(std::vector<std::string>{"ieee", "tf32", "tf32x3"}) + "\"";
    int result = is_int ? 3 : 11;
    if ((t == 9 || t == 10) && options.empty() && chance(25)) {
      options = ", out_dtype=tl.float16";
      result = 9;
    }
    if (t == 12) result = 12;
    line(d + " = tl.dot(" + a + ", " + b + options + ")");
    std::string v = fresh();
    // fp16 results are summed in fp32: every partial sum stays exact.
    line(v + " = tl.sum(tl.sum(" + d + (result == 9 ? ".to(tl.float32)" : "") + ", 1), 0)");
    if (result == 9) result = 11;
    vars_.push_back({v, result, 0});
  }

  void assign(int depth) {
    int shape = two_d_ && chance(25) ? 2 : chance(20) ? 0 : 1;
    auto [e, t] = expr(shape, depth);
    std::string name = fresh();
    if (is_literal(e) && chance(90)) e = "tl.full((), " + e + ", " + tl_type(t) + ")";  // a typed scalar
    line(name + " = " + e);
    // A scalar expression may still be a block when a block variable slipped in: only
    // shapes the generator is sure of are recorded as such.
    vars_.push_back({name, t, shape == 0 && e.find("offs") != std::string::npos ? 1 : shape});
  }

  // Rebinds an existing non-parameter variable to a value of its own type (loops and branches
  // must keep types).
  void update(int depth) {
    std::vector<const Var*> mine;
    for (const Var& v : vars_) {
      if (v.name[0] == 'v') mine.push_back(&v);
    }
    if (mine.empty()) return assign(depth);
    const Var& v = *mine[static_cast<size_t>(pick(0, static_cast<int>(mine.size()) - 1))];
    auto [e, t] = expr(v.shape, depth + 1);
    (void)t;
    line(v.name + " = " + cast(v.name + " + " + e, v.dtype));
  }

  void atomic(int depth) {
    std::vector<const Var*> ok;
    for (const Var& p : ptrs_) ok.push_back(&p);
    const Var& p = *ok[static_cast<size_t>(pick(0, static_cast<int>(ok.size()) - 1))];
    static const std::vector<std::string> int_kinds = {"add", "max", "min", "and", "or", "xor", "xchg"};
    static const std::vector<std::string> float_kinds = {"add", "max", "min", "xchg"};
    static const std::vector<std::string> half_kinds = {"add", "xchg"};
    const DType& d = dt(p.dtype);
    bool narrow = d.bits < 32 && !(d.is_float && std::string(d.tl) == "float16");
    std::string kind = one_of(!chance(90) || narrow ? int_kinds
                              : std::string(d.tl) == "float16" ? half_kinds
                              : d.is_float ? float_kinds : int_kinds);
    bool scalar_ptr = chance(25);
    auto [e, t] = expr(scalar_ptr ? 0 : 1, depth + 1);
    (void)t;
    std::string value = cast(e, p.dtype);
    if (chance(15)) value = literal(dt(p.dtype).is_float);  // constants: issue 11's crash
    std::string name = fresh();
    if (kind == "xchg" && chance(30)) {
      line(name + " = tl.atomic_cas(" + p.name + (scalar_ptr ? "" : " + offs % (n + 1)") + ", " + value + ", " + value + ")");
    } else {
      std::string mask = scalar_ptr ? (chance(30) ? ", mask=n > 0" : "") : (chance(70) ? ", mask=mask" : "");
      line(name + " = tl.atomic_" + kind + "(" + p.name + (scalar_ptr ? "" : " + offs % (n + 1)") + ", " + value + mask + ")");
    }
    vars_.push_back({name, p.dtype, scalar_ptr ? 0 : 1});
  }

  void statement(int depth) {
    int kind = pick(0, depth >= 2 ? 4 : 9);
    if (kind == 9) return dot();
    if (kind <= 2) return assign(depth);
    if (kind == 3) return update(depth);
    if (kind == 4) {
      if (chance(50)) return atomic(depth);
      if (!ptrs_.empty()) return store_to(one_of(ptrs_));
      return assign(depth);
    }
    size_t scope = vars_.size();
    if (kind == 5 || kind == 6) {
      std::string cond = "n > " + std::to_string(pick(0, 20));
      for (const Var& v : vars_) {
        if (v.shape == 0 && chance(30)) cond = v.name + " > 0";
      }
      line("if " + cond + ":");
      ++indent_;
      int n = pick(1, 3);
      for (int i = 0; i < n; ++i) (i == 0 ? update(depth + 1) : statement(depth + 1));
      --indent_;
      vars_.resize(scope);  // names bound in one branch only are not usable after it
      if (chance(60)) {
        line("else:");
        ++indent_;
        update(depth + 1);
        --indent_;
        vars_.resize(scope);
      }
      return;
    }
    if (kind == 7) {
      std::string bound = chance(50) ? "n" : std::to_string(pick(0, 5));
      std::string iv = "i" + std::to_string(next_++);
      if (chance(25)) {
        line("for " + iv + " in tl.static_range(" + std::to_string(pick(1, 4)) + "):");
      } else {
        line("for " + iv + " in range(" + std::to_string(pick(0, 2)) + ", " + bound + ", " + std::to_string(pick(1, 3)) + "):");
      }
      ++indent_;
      vars_.push_back({iv, 3, 0});
      int n = pick(1, 3);
      for (int i = 0; i < n; ++i) (i == 0 ? update(depth + 1) : statement(depth + 1));
      --indent_;
      vars_.resize(scope);
      return;
    }
    // A while loop with a bounded counter.
    std::string k = "k" + std::to_string(next_++);
    line(k + " = 0");
    line("while " + k + " < " + std::to_string(pick(0, 4)) + ":");
    ++indent_;
    update(depth + 1);
    line(k + " += 1");
    --indent_;
    vars_.resize(scope);
  }

  Rng& rng_;
  std::ostringstream body_;
  int indent_ = 0;
  int next_ = 0;
  int block_ = 1;
  int rows_ = 1;
  int cols_ = 1;
  bool two_d_ = false;
  int num_helpers_ = 0;
  std::vector<Var> inputs_;  // pointers only loaded from
  std::vector<Var> ptrs_;    // pointers only written
  std::vector<Var> vars_;
};

}  // namespace

Input generate_kernel(Rng& rng) { return Generator(rng).run(); }

}  // namespace tritium::fuzz
