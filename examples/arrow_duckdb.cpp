// A list column from DuckDB masked without a copy and handed back: the README's
// "Arrow" section, as a program. DuckDB exports through the Arrow C Data
// Interface; ragged imports the arrays as views, masks them, and exports the
// result, whose buffers DuckDB then scans in place.
#include <ragged/arrow.hpp>
#include <ragged/boolean_mask.hpp>
#include <ragged/format.hpp>

#include <cstdint>
#include <iostream>

#include "duckdb_c_api.hpp"

int main() {
  duck::Database db;
  db.exec(
      "CREATE TABLE events AS SELECT * FROM (VALUES "
      "([1.5, 0.2, 3.0]::DOUBLE[], [true, false, true]), ([], []), ([0.1, 2.5], [NULL, true])) "
      "t(energy, keep)");

  // Arrow out of DuckDB: a record batch (a struct of the columns).
  const auto batch = db.query("SELECT energy, keep FROM events");
  const ArrowSchema& schema = batch.schema.c;
  const ArrowArray& columns = batch.batches.at(0).c;

  // Arrow in: views of DuckDB's own buffers (no copy); a null mask entry means false.
  const auto energy =
      ragged::arrow::import_view<double, std::int32_t>(*schema.children[0], *columns.children[0]);
  const auto keep =
      ragged::arrow::import_mask<std::int32_t>(*schema.children[1], *columns.children[1]);
  auto kept = ragged::boolean_mask(energy, keep.view());  // tf.ragged.boolean_mask
  std::cout << kept << '\n';                              // [[1.5, 3.0], [], [2.5]]

  // Arrow out: the result's buffers move into the ArrowArray (no copy), and DuckDB scans them.
  duck::Batch result;
  ArrowSchema s;
  ArrowArray a;
  ragged::arrow::export_array(std::move(kept), &s, &a);
  result.add("energy", s, a);
  db.register_batch("kept", result);
  std::cout << db.value("SELECT sum(len(energy)) FROM kept") << " values kept\n";  // 3
  db.unregister("kept");
}
