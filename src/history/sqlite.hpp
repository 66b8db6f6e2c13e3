#pragma once
// A small RAII wrapper over SQLite's C API: a connection and a prepared statement, each
// released by its destructor, and every failure an Error naming the file and SQLite's words.
// Only what the history needs: no ORM, no caching of statements.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace fdbench::sqlite {

class Statement;

class Database {
 public:
  // Opens `path` read-write (create: also creates it) or read-only. Throws Error.
  enum class Mode { read_only, read_write, create };
  Database(const std::string& path, Mode mode);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  Database(Database&& other) noexcept;
  Database& operator=(Database&& other) = delete;

  // Runs `sql` (one or more statements, no results). Throws Error.
  void exec(std::string_view sql);
  Statement prepare(std::string_view sql);
  // How long a statement waits for another connection's lock before SQLITE_BUSY.
  void busy_timeout(int milliseconds);
  [[nodiscard]] std::int64_t last_insert_id() const;
  [[nodiscard]] int changes() const;
  // SQLite's words for the last failure on this connection.
  [[nodiscard]] std::string message() const;
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] sqlite3* handle() const { return db_; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

class Statement {
 public:
  Statement(Database& db, std::string_view sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;

  // Parameters count from 1, as in SQLite.
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view text);
  Statement& bind(int index, std::optional<std::int64_t> value);  // nullopt: NULL
  Statement& bind_null(int index);
  // Steps once: true while there is a row to read. Throws Error.
  bool step();
  // Ready to step again from the start, its parameters cleared.
  void reset();
  // Columns count from 0.
  [[nodiscard]] std::int64_t integer(int column) const;
  [[nodiscard]] double real(int column) const;
  [[nodiscard]] std::string text(int column) const;
  [[nodiscard]] bool is_null(int column) const;

 private:
  Database* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace fdbench::sqlite
