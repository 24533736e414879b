// Masking a list column an Arrow engine produced: DuckDB's own list_filter
// against Arrow in, ragged::boolean_mask, Arrow out, on the same data (rows
// of 0..127 int32 values and a boolean list mask of density 0.5), and memcpy
// of the value bytes. Built where libduckdb.so is found.
#include <ragged/arrow.hpp>
#include <ragged/boolean_mask.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common.hpp"
#include "duckdb_c_api.hpp"

namespace {

constexpr std::int64_t rows = std::int64_t{1} << 18;

// The table, once per process, and its columns as Arrow batches.
struct Setup {
  duck::Database db;
  duck::Result batches = make(db);
  std::int64_t values = db.value("SELECT sum(len(data)) FROM t");
  static duck::Result make(duck::Database& db) {
    db.exec(
        "CREATE TABLE t AS SELECT list_transform(range(len), lambda j: (hash(i, j) % "
        "1000)::INTEGER) AS data, list_transform(range(len), lambda j: hash(j, i) % 2 = 0) "
        "AS mask FROM (SELECT i, (hash(i) % 128)::BIGINT AS len FROM range(" +
        std::to_string(rows) + ") r(i))");
    return db.query("SELECT data, mask FROM t");
  }
};
Setup& setup() {
  static Setup s;
  return s;
}

void duckdb_list_filter(benchmark::State& state) {
  auto& s = setup();
  for (auto _ : state) {
    auto r = s.db.query("SELECT list_filter(data, lambda x, k: mask[k]) FROM t");
    benchmark::DoNotOptimize(r.batches.data());
  }
  bench::set_counters(state, s.values, s.values * 4);
}

// Arrow in (views of DuckDB's batches), masked, Arrow out (the results'
// buffers moved into ArrowArrays), and released, as a consumer would.
void ragged_arrow_round_trip(benchmark::State& state) {
  auto& s = setup();
  const auto& schema = s.batches.schema.c;
  for (auto _ : state) {
    for (const auto& b : s.batches.batches) {
      const auto data = ragged::arrow::import_view<std::int32_t, std::int32_t>(*schema.children[0],
                                                                               *b.c.children[0]);
      const auto mask =
          ragged::arrow::import_mask<std::int32_t>(*schema.children[1], *b.c.children[1]);
      ArrowSchema out_schema;
      ArrowArray out;
      ragged::arrow::export_array(ragged::boolean_mask(data, mask.view()), &out_schema, &out);
      benchmark::DoNotOptimize(out.children[0]->buffers[1]);
      out.release(&out);
      out_schema.release(&out_schema);
    }
  }
  bench::set_counters(state, s.values, s.values * 4);
}

void memcpy_values(benchmark::State& state) {
  auto& s = setup();
  std::vector<std::int32_t> in(static_cast<std::size_t>(s.values), 1), out(in.size());
  for (auto _ : state) {
    std::memcpy(out.data(), in.data(), in.size() * 4);
    benchmark::ClobberMemory();
  }
  bench::set_counters(state, s.values, s.values * 4);
}

}  // namespace

BENCHMARK(memcpy_values)->UseRealTime();
BENCHMARK(duckdb_list_filter)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(ragged_arrow_round_trip)->UseRealTime()->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
