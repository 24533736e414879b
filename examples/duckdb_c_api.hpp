// SPDX-License-Identifier: Apache-2.0
// The few functions of DuckDB's C API (duckdb.h, DuckDB 1.x) that the Arrow
// round trip calls, declared here because libduckdb.so (from the npm package
// @duckdb/node-bindings-linux-x64) ships without its header; and a small RAII
// wrapper over them. Everything travels through the Arrow C Data Interface.
#pragma once

#include <ragged/arrow.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

extern "C" {
typedef uint64_t idx_t;
typedef enum { DuckDBSuccess = 0, DuckDBError = 1 } duckdb_state;
typedef struct _duckdb_database {
  void* internal_ptr;
} * duckdb_database;
typedef struct _duckdb_connection {
  void* internal_ptr;
} * duckdb_connection;
typedef struct _duckdb_arrow {
  void* internal_ptr;
} * duckdb_arrow;
typedef struct _duckdb_arrow_stream {
  void* internal_ptr;
} * duckdb_arrow_stream;
typedef struct _duckdb_arrow_schema {
  void* internal_ptr;
} * duckdb_arrow_schema;
typedef struct _duckdb_arrow_array {
  void* internal_ptr;
} * duckdb_arrow_array;

duckdb_state duckdb_open(const char* path, duckdb_database* out_database);
void duckdb_close(duckdb_database* database);
duckdb_state duckdb_connect(duckdb_database database, duckdb_connection* out_connection);
void duckdb_disconnect(duckdb_connection* connection);
duckdb_state duckdb_query_arrow(duckdb_connection connection, const char* query,
                                duckdb_arrow* out_result);
duckdb_state duckdb_query_arrow_schema(duckdb_arrow result, duckdb_arrow_schema* out_schema);
duckdb_state duckdb_query_arrow_array(duckdb_arrow result, duckdb_arrow_array* out_array);
const char* duckdb_query_arrow_error(duckdb_arrow result);
void duckdb_destroy_arrow(duckdb_arrow* result);
duckdb_state duckdb_arrow_array_scan(duckdb_connection connection, const char* table_name,
                                     duckdb_arrow_schema arrow_schema,
                                     duckdb_arrow_array arrow_array,
                                     duckdb_arrow_stream* out_stream);
void duckdb_destroy_arrow_stream(duckdb_arrow_stream* stream_p);
}

namespace duck {

// An ArrowSchema or ArrowArray (`c`) released when it goes out of scope.
template <class C>
struct Owned {
  C c{};
  Owned() = default;
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  Owned(Owned&& o) noexcept : c(o.c) { o.c.release = nullptr; }
  ~Owned() {
    if (c.release) c.release(&c);
  }
};
using Schema = Owned<ArrowSchema>;
using Array = Owned<ArrowArray>;

// A query's result as Arrow: the schema (a struct of the columns) and its
// record batches (DuckDB hands out one per data chunk, 2048 rows).
struct Result {
  Schema schema;
  std::vector<Array> batches;
  [[nodiscard]] std::int64_t rows() const {
    std::int64_t n = 0;
    for (const auto& b : batches) n += b.c.length;
    return n;
  }
};

// A record batch of our own to hand to DuckDB: a struct ("+s") whose columns
// are exported arrays. Owns them; DuckDB reads them through arrow_array_scan.
class Batch {
 public:
  void add(const char* name, ArrowSchema schema, ArrowArray array) {
    names_.emplace_back(name);
    schemas_.push_back(schema);
    arrays_.push_back(array);
  }
  Batch() = default;
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;
  ~Batch() {
    for (auto& s : schemas_)
      if (s.release) s.release(&s);
    for (auto& a : arrays_)
      if (a.release) a.release(&a);
  }
  // Links the struct; valid until the Batch changes or goes.
  ArrowSchema* schema() {
    schema_ptrs_.clear();
    for (std::size_t i = 0; i < schemas_.size(); ++i) {
      schemas_[i].name = names_[i].c_str();
      schema_ptrs_.push_back(&schemas_[i]);
    }
    top_schema_ = ArrowSchema{};
    top_schema_.format = "+s";
    top_schema_.name = "";
    top_schema_.n_children = static_cast<std::int64_t>(schemas_.size());
    top_schema_.children = schema_ptrs_.data();
    top_schema_.release = [](ArrowSchema* s) { s->release = nullptr; };
    return &top_schema_;
  }
  ArrowArray* array() {
    array_ptrs_.clear();
    for (auto& a : arrays_) array_ptrs_.push_back(&a);
    top_array_ = ArrowArray{};
    top_array_.length = arrays_.empty() ? 0 : arrays_[0].length;
    top_array_.n_buffers = 1;
    top_array_.buffers = validity_;
    top_array_.n_children = static_cast<std::int64_t>(arrays_.size());
    top_array_.children = array_ptrs_.data();
    top_array_.release = [](ArrowArray* a) { a->release = nullptr; };
    return &top_array_;
  }

 private:
  std::vector<std::string> names_;
  std::vector<ArrowSchema> schemas_;
  std::vector<ArrowArray> arrays_;
  std::vector<ArrowSchema*> schema_ptrs_;
  std::vector<ArrowArray*> array_ptrs_;
  ArrowSchema top_schema_{};
  ArrowArray top_array_{};
  const void* validity_[1] = {nullptr};
};

// An in-memory database and one connection.
class Database {
 public:
  Database() {
    if (duckdb_open(nullptr, &db_) != DuckDBSuccess) throw std::runtime_error("duckdb_open failed");
    if (duckdb_connect(db_, &con_) != DuckDBSuccess) {
      duckdb_close(&db_);
      throw std::runtime_error("duckdb_connect failed");
    }
  }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database() {
    duckdb_disconnect(&con_);
    duckdb_close(&db_);
  }

  // Runs `sql`, returning its result as Arrow record batches.
  Result query(const std::string& sql) {
    duckdb_arrow res = nullptr;
    if (duckdb_query_arrow(con_, sql.c_str(), &res) != DuckDBSuccess) {
      std::string why = res ? duckdb_query_arrow_error(res) : "no result";
      duckdb_destroy_arrow(&res);
      throw std::runtime_error("DuckDB: " + why + "\nin: " + sql);
    }
    Result out;
    auto schema_out = reinterpret_cast<duckdb_arrow_schema>(&out.schema.c);
    duckdb_query_arrow_schema(res, &schema_out);
    for (;;) {
      Array batch;
      auto array_out = reinterpret_cast<duckdb_arrow_array>(&batch.c);
      if (duckdb_query_arrow_array(res, &array_out) != DuckDBSuccess || !batch.c.release) break;
      out.batches.push_back(std::move(batch));
    }
    duckdb_destroy_arrow(&res);
    return out;
  }
  void exec(const std::string& sql) { (void)query(sql); }

  // A single BIGINT (or other integer) value: the first column of the first row.
  std::int64_t value(const std::string& sql) {
    auto r = query("SELECT (" + sql + ")::BIGINT");
    if (r.batches.empty() || r.batches[0].c.length < 1)
      throw std::runtime_error("no value: " + sql);
    const auto v = ragged::arrow::import_view<std::int64_t>(*r.schema.c.children[0],
                                                            *r.batches[0].c.children[0]);
    return v.flat_values().data()[0];
  }

  // Makes `batch` readable as the view `name` until `unregister`: DuckDB
  // reads the Batch's arrays in place (arrow_array_scan), once.
  void register_batch(const std::string& name, Batch& batch) {
    duckdb_arrow_stream stream = nullptr;
    if (duckdb_arrow_array_scan(
            con_, name.c_str(), reinterpret_cast<duckdb_arrow_schema>(batch.schema()),
            reinterpret_cast<duckdb_arrow_array>(batch.array()), &stream) != DuckDBSuccess) {
      duckdb_destroy_arrow_stream(&stream);
      throw std::runtime_error("duckdb_arrow_array_scan failed");
    }
    streams_.push_back(stream);
  }
  void unregister(const std::string& name) {
    exec("DROP VIEW IF EXISTS " + name);
    for (auto& s : streams_) duckdb_destroy_arrow_stream(&s);
    streams_.clear();
  }

 private:
  duckdb_database db_ = nullptr;
  duckdb_connection con_ = nullptr;
  std::vector<duckdb_arrow_stream> streams_;
};

}  // namespace duck
