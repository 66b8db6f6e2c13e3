#include "history/schema.hpp"

#include <fmt/format.h>

#include <array>

#include "history/history.hpp"

namespace fdbench::history {

namespace {

// kMigrations[N] takes a history from schema N to N + 1; a new schema is a new entry here,
// never a change to an old one.
constexpr std::array<const char*, kHistoryVersion> kMigrations = {
    R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  added_at TEXT NOT NULL,            -- UTC, ISO 8601, when it entered the history
  date TEXT,                         -- the run's start, from its context
  host TEXT,
  user INTEGER,
  kernel TEXT,
  cpu TEXT,
  rcu_expedited INTEGER,             -- the machine's, as the environment recorded it
  command TEXT,                      -- open, socket, tune, suite
  command_line TEXT,                 -- JSON array, argv as given
  tool_version TEXT,
  schema_version INTEGER,            -- of the document
  complete INTEGER NOT NULL,
  origin TEXT NOT NULL,              -- saved, or imported FILE
  content_hash TEXT NOT NULL UNIQUE, -- of the canonical document: a duplicate is not added
  document TEXT NOT NULL             -- the JSON results document as written
);
CREATE TABLE results (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  workload TEXT NOT NULL,
  strategy TEXT NOT NULL,
  threads INTEGER NOT NULL,
  batch INTEGER NOT NULL,
  kind TEXT NOT NULL,
  pregrow TEXT NOT NULL,
  harness TEXT NOT NULL,
  paths TEXT,
  rcu_expedited INTEGER,             -- the value --rcu-expedited set; NULL: the machine's own
  ops INTEGER NOT NULL,
  status TEXT NOT NULL,
  repetitions INTEGER NOT NULL,
  median_ns REAL,
  ci_low_ns REAL,
  ci_high_ns REAL,
  ci_reached INTEGER NOT NULL,
  ops_per_sec REAL,
  PRIMARY KEY (run_id, position)
);
CREATE INDEX results_by_configuration ON results (workload, strategy, threads, batch, kind);
)sql",
};

int user_version(sqlite::Database& db) {
  auto statement = db.prepare("PRAGMA user_version");
  return statement.step() ? static_cast<int>(statement.integer(0)) : 0;
}

}  // namespace

void migrate(sqlite::Database& db) {
  if (user_version(db) >= kHistoryVersion) return;  // read alone: a read-only file opens too
  db.exec("BEGIN IMMEDIATE");
  try {
    const int from = user_version(db);
    for (int version = from; version < kHistoryVersion; ++version) {
      db.exec(kMigrations[static_cast<std::size_t>(version)]);
    }
    if (from < kHistoryVersion) {
      db.exec(fmt::format("PRAGMA application_id={}", kApplicationId));
      db.exec(fmt::format("PRAGMA user_version={}", kHistoryVersion));
    }
    db.exec("COMMIT");
  } catch (...) {
    try {
      db.exec("ROLLBACK");
    } catch (const Error&) {  // SQLite rolled back already
    }
    throw;
  }
}

}  // namespace fdbench::history
