#include <ragged/format.hpp>

#include <clocale>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>

#include "catch.hpp"

using ragged_test::check_throws;

TEST_CASE("to_string prints as Python prints TensorFlow's to_list()") {
  CHECK(ragged::to_string(ragged::constant<int>({{1, 3}, {}, {7}})) == "[[1, 3], [], [7]]");
  CHECK(ragged::to_string(ragged::tensor<int>(5)) == "5");
  CHECK(ragged::to_string(ragged::tensor<bool>({true, false})) == "[True, False]");
  CHECK(ragged::to_string(ragged::tensor<std::int8_t>({-128, 127})) == "[-128, 127]");
  CHECK(ragged::to_string(ragged::tensor<std::string>(
            {"a\"b", "c\\d\n", std::string("\x01", 1)})) == R"(["a\"b", "c\\d\n", "\x01"])");
  std::ostringstream os;
  os << ragged::constant<int>({{1}, {2, 3}});
  CHECK(os.str() == "[[1], [2, 3]]");
}

TEST_CASE("floats print as Python's repr: shortest round trip") {
  const auto str = [](double v) { return ragged::to_string(ragged::tensor<double>(v)); };
  CHECK(str(1.5) == "1.5");
  CHECK(str(2.0) == "2.0");
  CHECK(str(0.1) == "0.1");
  CHECK(str(-0.0) == "-0.0");
  CHECK(str(1e16) == "1e+16");
  CHECK(str(1e15) == "1000000000000000.0");
  CHECK(str(123456789.125) == "123456789.125");
  CHECK(str(0.0001) == "0.0001");
  CHECK(str(0.00001) == "1e-05");
  CHECK(str(1.5e-300) == "1.5e-300");
  CHECK(str(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(str(-std::numeric_limits<double>::infinity()) == "-inf");
  CHECK(str(std::nan("")) == "nan");
  CHECK(ragged::to_string(ragged::tensor<float>(0.1f)) == "0.1");
  CHECK(ragged::to_string(ragged::tensor<float>(16777216.0f)) == "16777216.0");
}

TEST_CASE("parse reads every kind of value") {
  CHECK(ragged::to_string(ragged::parse<int>(" [ [1,2 , 3],[ ] ,[-4] ] ")) ==
        "[[1, 2, 3], [], [-4]]");
  CHECK(ragged::to_string(ragged::parse<double>("[[1.5e3, -2, inf], [nan, -inf, 1E-2]]")) ==
        "[[1500.0, -2.0, inf], [nan, -inf, 0.01]]");
  CHECK(ragged::to_string(ragged::parse<bool>("[[True, false], [true, False]]")) ==
        "[[True, False], [True, False]]");
  CHECK(ragged::parse<std::string>(R"([["a\"q", 'single', "tab\t\x41"]])")
            .flat_values()
            .values()[2] == "tab\tA");
  CHECK(ragged::parse_tensor<int>("[[1, 2], [3, 4]]") == ragged::tensor<int>({{1, 2}, {3, 4}}));
  CHECK(ragged::parse_tensor<int>("7") == ragged::tensor<int>(7));
  CHECK(ragged::parse<int>("[[1, 2], [3, 4]]").ragged_rank() == 1);
  CHECK(ragged::parse<int>("[[1, 2], [3, 4]]", 0).ragged_rank() == 0);
  CHECK(ragged::to_string(ragged::parse<int>("[1, 2,]")) == "[1, 2]");
}

TEST_CASE("floats are read exactly rounded, whatever the program's locale") {
  // Hard cases: the largest subnormal and the smallest normal's neighbour, a
  // halfway case that rounds to even, float rounding on its own.
  const auto d = ragged::parse<double>(
      "[2.2250738585072011e-308, 2.2250738585072014e-308, 4.9e-324, 0.1, "
      "1.00000000000000011102230246251565404236316680908203125, 9007199254740993.0, 1e308]");
  const double want[] = {2.2250738585072011e-308,
                         2.2250738585072014e-308,
                         4.9e-324,
                         0.1,
                         1.0,
                         9007199254740992.0,
                         1e308};
  for (std::size_t i = 0; i < std::size(want); ++i) {
    INFO("entry " << i);
    CHECK(d.flat_values().data()[i] == want[i]);
  }
  const auto f = ragged::parse<float>("[7.038531e-26, 1.17549435e-38, 3.4028235e38, 1e39]");
  CHECK(f.flat_values().data()[0] == 7.038531e-26f);
  CHECK(f.flat_values().data()[1] == 1.17549435e-38f);
  CHECK(f.flat_values().data()[2] == 3.4028235e38f);
  CHECK(std::isinf(f.flat_values().data()[3]));
  // A locale whose decimal separator is ',' must change nothing.
  const std::string saved = std::setlocale(LC_ALL, nullptr);
  bool set = false;
  for (const char* name : {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "de_DE"})
    if (std::setlocale(LC_ALL, name)) {
      set = true;
      break;
    }
  if (!set) {
    WARN("no locale with a ',' decimal separator is installed: the locale check is skipped");
  } else {
    CHECK(std::string(std::localeconv()->decimal_point) == ",");
    const auto again = ragged::parse<double>("[0.5, 1.25e3, -2.5]");
    std::setlocale(LC_ALL, saved.c_str());
    CHECK(ragged::to_string(again) == "[0.5, 1250.0, -2.5]");
  }
  std::setlocale(LC_ALL, saved.c_str());
}

TEST_CASE("parse errors give the offset and what was expected") {
  check_throws<ragged::parse_error>([] { (void)ragged::parse<int>("[1, 2"); },
                                    {"offset 5", "expected ',' or ']'", "end of the input"});
  check_throws<ragged::parse_error>([] { (void)ragged::parse<int>("[1; 2]"); },
                                    {"offset 2", "found ';'"});
  check_throws<ragged::parse_error>([] { (void)ragged::parse<int>("[1.5]"); },
                                    {"offset 1", "an integer", "'1.5'"});
  check_throws<ragged::parse_error>([] { (void)ragged::parse<bool>("[1]"); }, {"True or False"});
  check_throws<ragged::parse_error>([] { (void)ragged::parse<std::string>("[abc]"); },
                                    {"offset 1"});
  check_throws<ragged::parse_error>([] { (void)ragged::parse<std::int8_t>("[300]"); },
                                    {"300", "8-bit"});
  check_throws<ragged::parse_error>([] { (void)ragged::parse<int>("[1] x"); },
                                    {"offset 4", "end of the input"});
  check_throws<ragged::parse_error>([] { (void)ragged::parse<std::string>(R"(["abc)"); },
                                    {"closing"});
  check_throws<ragged::parse_error>([] { (void)ragged::parse<int>(std::string(1000, '[')); },
                                    {"levels of nesting"});
  check_throws<ragged::shape_error>([] { (void)ragged::parse<int>("[[1], 2]"); },
                                    {"inconsistent nesting depth"});
  check_throws<ragged::shape_error>([] { (void)ragged::parse_tensor<int>("[[1, 2], [3]]"); },
                                    {"not uniform", "offset 9"});
  try {
    (void)ragged::parse<int>("[1, x]");
  } catch (const ragged::parse_error& e) {
    CHECK(e.offset() == 4);
  }
}

namespace {
// Records what read_literal reports, one event per entry.
struct EventSink {
  std::vector<std::string> events;
  void begin_list(std::size_t offset) { events.push_back("[@" + std::to_string(offset)); }
  void end_list() { events.emplace_back("]"); }
  void value(const ragged::LiteralToken& t) {
    static const char* const kinds[] = {"none", "bool", "int", "float", "string"};
    events.push_back(std::string(kinds[static_cast<int>(t.kind)]) + ":" + t.text + "@" +
                     std::to_string(t.offset));
  }
};
}  // namespace

TEST_CASE("read_literal reports lists and values as it reads, with kinds and offsets") {
  EventSink sink;
  ragged::read_literal(R"([[1, -2.5e3], [], ["a\"b", True, nan]])", sink);
  CHECK(sink.events == std::vector<std::string>{"[@0", "[@1", "int:1@2", "float:-2.5e3@5", "]",
                                                "[@14", "]", "[@18", R"(string:a"b@19)",
                                                "bool:True@27", "float:nan@33", "]", "]"});
  EventSink bad;
  check_throws<ragged::parse_error>([&] { ragged::read_literal("[1, [2]", bad); }, {"offset 7"});
  // Mixed kinds are the sink's business, not the reader's.
  EventSink mixed;
  ragged::read_literal(R"(["a", 1])", mixed);
  CHECK(mixed.events.size() == 4);
}

TEST_CASE("numbers: one sign at most, and underflow reads as zero") {
  for (const char* bad : {"[+-1]", "[-+1]", "[+-inf]", "[-+nan]", "[+-0.5e3]", "[--1]", "[+]"}) {
    INFO(bad);
    CHECK_THROWS_AS(ragged::parse<double>(bad), ragged::parse_error);
  }
  CHECK_THROWS_AS(ragged::parse<int>("[+-1]"), ragged::parse_error);
  CHECK(ragged::parse<int>("[+1, -1]").flat_values() == ragged::tensor<int>({1, -1}));
  const std::string zeros(400, '0');
  CHECK(ragged::parse<double>("[0." + zeros + "1]").flat_values().data()[0] == 0.0);
  const double neg = ragged::parse<double>("[-0." + zeros + "1]").flat_values().data()[0];
  CHECK(neg == 0.0);
  CHECK(std::signbit(neg));
  CHECK(ragged::parse<float>("[0." + std::string(60, '0') + "1]").flat_values().data()[0] == 0.0f);
  CHECK(std::isinf(ragged::parse<double>("[1" + zeros + ".5]").flat_values().data()[0]));
  CHECK(std::isinf(ragged::parse<double>("[1e999]").flat_values().data()[0]));
  CHECK(ragged::parse<double>("[1e-999]").flat_values().data()[0] == 0.0);
  CHECK(ragged::parse<double>("[0." + zeros + "1e500]").flat_values().data()[0] == 1e99);
  CHECK(std::isinf(ragged::parse<double>("[-inf]").flat_values().data()[0]));
  CHECK(std::isnan(ragged::parse<double>("[+nan]").flat_values().data()[0]));
}

TEST_CASE("parse errors escape the input and cut long tokens") {
  try {
    (void)ragged::parse<int>(std::string("[1, \0]", 6));
    FAIL("accepted a NUL");
  } catch (const ragged::parse_error& e) {
    const std::string what = e.what();
    CHECK(what.find("'\\x00'") != std::string::npos);
    CHECK(std::char_traits<char>::length(e.what()) == what.size());  // no NUL cuts it short
  }
  try {
    (void)ragged::parse<int>("[\x1b[31m]");
    FAIL("accepted an escape sequence");
  } catch (const ragged::parse_error& e) {
    CHECK(std::string(e.what()).find('\x1b') == std::string::npos);
    CHECK(std::string(e.what()).find("\\x1b") != std::string::npos);
  }
  try {
    (void)ragged::parse<int>("[\"" + std::string(100000, 'x') + "\"]");
    FAIL("accepted a string for an int");
  } catch (const ragged::parse_error& e) {
    CHECK(std::string(e.what()).size() < 200);
    CHECK(std::string(e.what()).find("'...") != std::string::npos);
  }
}
