// The Arrow round trip against a real Arrow engine: DuckDB builds list
// columns and boolean masks, hands them over through the Arrow C Data
// Interface, ragged masks them as views, exports the results back, DuckDB
// scans them, and SQL compares them with DuckDB's own list_filter (or WHERE).
// Built only where libduckdb.so was found (see .ci/run).
#include <ragged/arrow.hpp>
#include <ragged/boolean_mask.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "catch.hpp"
#include "duckdb_c_api.hpp"

namespace {

constexpr std::int64_t rows = 100000;

// A column `c` of record batch `b` as DuckDB produced it, or a slice of it
// [start, start + length): the same buffers with the array's offset moved, as
// Arrow slices (so list offsets no longer start at 0).
ArrowArray column(const duck::Array& b, int c, std::int64_t start, std::int64_t length) {
  ArrowArray a = *b.c.children[c];
  a.offset += start;
  a.length = length;
  return a;
}

// Masks `data` (column 1) with `mask` (column 2) of every batch of `result`,
// in two slices per batch, and inserts (i, result) into the table `into`.
template <class T, class Index>
void mask_batches(duck::Database& db, const duck::Result& result, const std::string& into) {
  const auto& schema = result.schema.c;
  for (const auto& batch : result.batches) {
    const auto n = batch.c.length;
    for (const auto& [start, len] :
         {std::pair{std::int64_t{0}, n / 3}, std::pair{n / 3, n - n / 3}}) {
      const auto ids = column(batch, 0, start, len);
      const auto data = column(batch, 1, start, len);
      const auto mask_array = column(batch, 2, start, len);
      const auto id_view = ragged::arrow::import_view<std::int64_t>(*schema.children[0], ids);
      const auto view = ragged::arrow::import_view<T, Index>(*schema.children[1], data);
      const auto mask = ragged::arrow::import_mask<Index>(*schema.children[2], mask_array);
      // No copy in: the views read DuckDB's buffers.
      CHECK(static_cast<const void*>(view.flat_values().data()) !=
            static_cast<const void*>(nullptr));
      auto masked = ragged::boolean_mask(view, mask.view());
      duck::Batch out;
      ArrowSchema s;
      ArrowArray a;
      const auto id_values = id_view.flat_values().values();
      ragged::arrow::export_array(
          ragged::Tensor<std::int64_t>(
              ragged::Shape{len}, std::vector<std::int64_t>(id_values.begin(), id_values.end())),
          &s, &a);
      out.add("i", s, a);
      ragged::arrow::export_array(std::move(masked), &s, &a);
      out.add("r", s, a);
      db.register_batch("chunk", out);
      db.exec("INSERT INTO " + into + " SELECT * FROM chunk");
      db.unregister("chunk");
    }
  }
}

// Random lists of 0..8 values of `sql_type`, and a mask of the same
// structure with about one null in eleven (nulls mean false, as in list_filter).
void make_table(duck::Database& db, const std::string& sql_type) {
  db.exec("DROP TABLE IF EXISTS t");
  db.exec(
      "CREATE TABLE t AS SELECT i, "
      "list_transform(range(len), lambda j: ((hash(i, j) % 2001)::INTEGER - 1000)::" +
      sql_type +
      ") AS data, "
      "list_transform(range(len), lambda j: CASE WHEN hash(j, i) % 11 = 0 THEN NULL "
      "ELSE hash(j, i) % 2 = 0 END) AS mask "
      "FROM (SELECT i, (hash(i) % 9)::BIGINT AS len FROM range(" +
      std::to_string(rows) + ") r(i))");
}

template <class T, class Index>
void round_trip(duck::Database& db, const std::string& sql_type) {
  make_table(db, sql_type);
  CHECK(db.value("SELECT count(*) FROM t WHERE len(data) = 0") > 0);  // empty lists are there
  db.exec("DROP TABLE IF EXISTS ours");
  db.exec("CREATE TABLE ours (i BIGINT, r " + sql_type + "[])");
  const auto result = db.query("SELECT i, data, mask FROM t ORDER BY i");
  REQUIRE(std::string(result.schema.c.children[1]->format) == (sizeof(Index) == 4 ? "+l" : "+L"));
  mask_batches<T, Index>(db, result, "ours");
  CHECK(db.value("SELECT count(*) FROM ours") == rows);
  CHECK(db.value("SELECT count(*) FROM t JOIN ours USING (i) WHERE ours.r IS DISTINCT FROM "
                 "list_filter(t.data, lambda x, k: t.mask[k])") == 0);
  CHECK(db.value("SELECT sum(len(r)) FROM ours") ==
        db.value("SELECT sum(len(list_filter(data, lambda x, k: mask[k]))) FROM t"));
}

}  // namespace

TEST_CASE("DuckDB LIST columns through Arrow: ragged::boolean_mask equals list_filter") {
  duck::Database db;
  SECTION("LIST(INTEGER), int32 offsets (+l)") {
    round_trip<std::int32_t, std::int32_t>(db, "INTEGER");
  }
  SECTION("LIST(BIGINT), int32 offsets") {
    round_trip<std::int64_t, std::int32_t>(db, "BIGINT");
  }
  SECTION("LIST(DOUBLE), int64 offsets (+L)") {
    db.exec("SET arrow_large_buffer_size = true");
    round_trip<double, std::int64_t>(db, "DOUBLE");
  }
}

TEST_CASE("DuckDB LIST(LIST(INTEGER)) with a nested boolean mask") {
  duck::Database db;
  db.exec(
      "CREATE TABLE t AS SELECT i, "
      "list_transform(lens, lambda n, a: list_transform(range(n), lambda j: (hash(i, a, j) % "
      "100)::INTEGER)) AS data, "
      "list_transform(lens, lambda n, a: list_transform(range(n), lambda j: hash(j, a, i) % 3 "
      "= 0)) AS mask "
      "FROM (SELECT i, list_transform(range((hash(i) % 4)::BIGINT), lambda a: (hash(a, i) % "
      "5)::BIGINT) "
      "AS lens FROM range(" +
      std::to_string(rows) + ") r(i))");
  db.exec("CREATE TABLE ours (i BIGINT, r INTEGER[][])");
  const auto result = db.query("SELECT i, data, mask FROM t ORDER BY i");
  mask_batches<std::int32_t, std::int32_t>(db, result, "ours");
  CHECK(db.value("SELECT count(*) FROM ours") == rows);
  CHECK(db.value(
            "SELECT count(*) FROM t JOIN ours USING (i) WHERE ours.r IS DISTINCT FROM "
            "list_transform(t.data, lambda l, a: list_filter(l, lambda x, j: t.mask[a][j]))") == 0);
  const auto kept = db.value("SELECT sum(len(flatten(r))) FROM ours");
  CHECK(kept > 0);
  CHECK(kept < db.value("SELECT sum(len(flatten(data))) FROM t"));
}

TEST_CASE("DuckDB flat columns: tf.boolean_mask semantics equal WHERE") {
  duck::Database db;
  db.exec(
      "CREATE TABLE t AS SELECT i, (hash(i) % 1000)::DOUBLE / 8 AS v, "
      "CASE WHEN hash(i, 1) % 13 = 0 THEN NULL ELSE hash(i, 2) % 3 = 0 END AS m FROM range(" +
      std::to_string(rows) + ") r(i)");
  db.exec("CREATE TABLE ours (i BIGINT, v DOUBLE)");
  const auto result = db.query("SELECT i, v, m FROM t ORDER BY i");
  const auto& schema = result.schema.c;
  std::int64_t nulls = 0;
  for (const auto& batch : result.batches) {
    const auto ids =
        ragged::arrow::import_view<std::int64_t>(*schema.children[0], *batch.c.children[0]);
    const auto values =
        ragged::arrow::import_view<double>(*schema.children[1], *batch.c.children[1]);
    const auto mask = ragged::arrow::import_mask(*schema.children[2], *batch.c.children[2]);
    nulls += mask.null_count();
    duck::Batch out;
    ArrowSchema s;
    ArrowArray a;
    ragged::arrow::export_array(ragged::boolean_mask(ids, mask.view(), 0), &s, &a);
    out.add("i", s, a);
    ragged::arrow::export_array(ragged::boolean_mask(values, mask.view(), 0), &s, &a);
    out.add("v", s, a);
    db.register_batch("chunk", out);
    db.exec("INSERT INTO ours SELECT * FROM chunk");
    db.unregister("chunk");
  }
  CHECK(nulls == db.value("SELECT count(*) FROM t WHERE m IS NULL"));
  CHECK(nulls > 0);
  CHECK(db.value("SELECT count(*) FROM ours") == db.value("SELECT count(*) FROM t WHERE m"));
  CHECK(db.value(
            "SELECT count(*) FROM (SELECT i, v FROM t WHERE m EXCEPT SELECT i, v FROM ours)") == 0);
}
