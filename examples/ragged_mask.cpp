// ragged_mask: boolean_mask from the command line.
//
//   ragged_mask [--axis N] [--data-ragged-rank R] [--mask-ragged-rank R] [--show-type] DATA MASK
//
// DATA and MASK are nested-list literals such as '[[1, 2, 3], [4], [5, 6]]',
// or '-' (read from standard input) or '@path' (read from a file).
#include <ragged/ragged.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>

namespace {

constexpr std::string_view usage =
    "usage: ragged_mask [--axis N] [--data-ragged-rank R] [--mask-ragged-rank R] [--show-type] "
    "DATA MASK\n"
    "\n"
    "Applies tf.ragged.boolean_mask(DATA, MASK), or with --axis tf.boolean_mask(DATA, MASK, "
    "axis=N),\n"
    "and prints the result as a nested list.\n"
    "\n"
    "  DATA, MASK              literals such as '[[1, 2, 3], [4], [5, 6]]'; DATA may hold "
    "integers,\n"
    "                          floats, double-quoted strings or True/False; MASK only True/False;\n"
    "                          '-' reads one of them from standard input, '@path' from a file\n"
    "  --axis N                use tf.boolean_mask with this axis (DATA and MASK must be uniform)\n"
    "  --data-ragged-rank R    read DATA as a RaggedTensor with R ragged dims (0: a dense "
    "Tensor);\n"
    "                          by default a uniform literal is dense, else ragged_rank = depth - "
    "1\n"
    "  --mask-ragged-rank R    the same for MASK\n"
    "  --show-type             first print the result's type and shape\n"
    "  --help                  print this help\n";

struct Options {
  std::optional<std::int64_t> axis;
  std::optional<std::int64_t> data_ragged_rank;
  std::optional<std::int64_t> mask_ragged_rank;
  bool show_type = false;
  std::string data;
  std::string mask;
};

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::int64_t to_int(std::string_view flag, std::string_view text) {
  std::int64_t v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size())
    throw UsageError(std::string(flag) + " needs an integer, got '" + std::string(text) + "'");
  return v;
}

// The literal an argument names: itself, '-' for standard input, or '@path'
// for a file's contents.
std::string literal_of(std::string_view arg) {
  if (arg == "-")
    return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  if (!arg.empty() && arg[0] == '@') {
    const std::string path(arg.substr(1));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw UsageError("cannot read " + std::string(arg) + ": no such readable file");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  return std::string(arg);
}

Options parse_args(int argc, char** argv) {
  Options o;
  int positional = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    const auto value = [&]() -> std::string_view {
      if (i + 1 >= argc) throw UsageError(std::string(a) + " needs a value");
      return argv[++i];
    };
    if (a == "--axis")
      o.axis = to_int(a, value());
    else if (a == "--data-ragged-rank")
      o.data_ragged_rank = to_int(a, value());
    else if (a == "--mask-ragged-rank")
      o.mask_ragged_rank = to_int(a, value());
    else if (a == "--show-type")
      o.show_type = true;
    else if (a.size() > 1 && a[0] == '-' && a[1] == '-')
      throw UsageError("unknown option " + std::string(a));
    else if (positional == 0 && ++positional)
      o.data = a;
    else if (positional == 1 && ++positional)
      o.mask = a;
    else
      throw UsageError("too many arguments");
  }
  if (positional != 2) throw UsageError("DATA and MASK are required");
  if (o.data == "-" && o.mask == "-")
    throw UsageError("only one of DATA and MASK can be read from standard input");
  o.data = literal_of(o.data);
  o.mask = literal_of(o.mask);
  return o;
}

template <class T>
using Either = std::variant<ragged::Tensor<T>, ragged::RaggedTensor<T>>;

// A uniform literal is a dense Tensor unless a ragged_rank says otherwise.
template <class T>
Either<T> read(const std::string& text, std::optional<std::int64_t> ragged_rank) {
  if (ragged_rank) {
    if (*ragged_rank == 0) return ragged::parse_tensor<T>(text);
    return ragged::parse<T>(text, *ragged_rank);
  }
  try {
    return ragged::parse_tensor<T>(text);
  } catch (const ragged::shape_error&) {
    return ragged::parse<T>(text);
  }
}

template <class T>
void print(const ragged::Tensor<T>& t, bool show_type) {
  std::string out;
  if (show_type) {
    out += "Tensor shape=";
    out += ragged::to_string(t.shape());  // "(2, 1)", as every message prints shapes
    out += '\n';
  }
  std::cout << out << ragged::to_string(t) << '\n';
}

template <class T>
void print(const ragged::RaggedTensor<T>& rt, bool show_type) {
  // TensorFlow returns a dense Tensor where no dim is ragged.
  if (rt.ragged_rank() == 0) return print(rt.flat_values(), show_type);
  std::string out;
  if (show_type) {
    out += "RaggedTensor ragged_rank=";
    out += std::to_string(rt.ragged_rank());
    out += " shape=";
    out += ragged::to_string(rt.shape());  // "(2, None)"
    out += '\n';
  }
  std::cout << out << ragged::to_string(rt) << '\n';
}

// The element type a literal needs: boolean, integer, floating (integers mixed
// with floats), string, or none when it holds no values; read with the
// library's streaming reader, which keeps no tree. Mixing strings or booleans
// with anything else is an error naming the first value of each kind.
struct KindSink {
  std::optional<ragged::LiteralToken> first[5];  // by ragged::ValueKind
  void begin_list(std::size_t) {}
  void end_list() {}
  void value(const ragged::LiteralToken& t) {
    auto& slot = first[static_cast<int>(t.kind)];
    if (!slot) slot = t;
  }
};

std::string quoted(const std::string& text) {
  return "'" + (text.size() > 20 ? text.substr(0, 20) + "..." : text) + "'";
}

ragged::ValueKind infer_kind(std::string_view text) {
  KindSink sink;
  ragged::read_literal(text, sink);
  const auto& [none, b, i, x, s] = sink.first;
  const auto clash = [](const char* what, const ragged::LiteralToken& a,
                        const ragged::LiteralToken& c) {
    throw ragged::parse_error("a literal mixes " + std::string(what) + ": " + quoted(a.text) +
                                  " at offset " + std::to_string(a.offset) + " and " +
                                  quoted(c.text) + " at offset " + std::to_string(c.offset),
                              std::max(a.offset, c.offset));
  };
  if (s && (b || i || x)) clash("strings with other values", *s, b ? *b : i ? *i : *x);
  if (b && (i || x)) clash("True/False with numbers", *b, i ? *i : *x);
  if (s) return ragged::ValueKind::string;
  if (b) return ragged::ValueKind::boolean;
  if (x) return ragged::ValueKind::floating;
  if (i) return ragged::ValueKind::integer;
  return ragged::ValueKind::none;
}

template <class T>
void run(const Options& o) {
  const auto data = read<T>(o.data, o.data_ragged_rank);
  const auto kind = infer_kind(o.mask);
  if (kind != ragged::ValueKind::boolean && kind != ragged::ValueKind::none)
    throw ragged::parse_error("MASK may hold only True/False/true/false", 0);
  const auto mask = read<bool>(o.mask, o.mask_ragged_rank);
  if (o.axis) {
    if (!std::holds_alternative<ragged::Tensor<T>>(data) ||
        !std::holds_alternative<ragged::Tensor<bool>>(mask))
      throw ragged::shape_error("--axis needs a uniform (dense) DATA and MASK");
    return print(ragged::boolean_mask(std::get<ragged::Tensor<T>>(data),
                                      std::get<ragged::Tensor<bool>>(mask), *o.axis),
                 o.show_type);
  }
  std::visit([&](const auto& d, const auto& m) { print(ragged::boolean_mask(d, m), o.show_type); },
             data, mask);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h") {
      std::cout << usage;
      return 0;
    }
  try {
    const auto o = parse_args(argc, argv);
    switch (infer_kind(o.data)) {
      case ragged::ValueKind::boolean:
        run<bool>(o);
        break;
      case ragged::ValueKind::floating:
        run<double>(o);
        break;
      case ragged::ValueKind::string:
        run<std::string>(o);
        break;
      case ragged::ValueKind::integer:
      case ragged::ValueKind::none:
        run<std::int64_t>(o);
        break;
    }
    return 0;
  } catch (const UsageError& e) {
    std::cerr << "error: " << e.what() << " (see --help)\n";
    return 2;
  } catch (const std::bad_alloc&) {
    // Shapes are checked before anything is allocated for them, so this is a
    // result (or input) larger than the memory there is.
    std::cerr << "error: out of memory for a result of these inputs\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 1;
  }
}
