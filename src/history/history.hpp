#pragma once
// The run history: every saved run's JSON results document (the one --format json writes), its
// context (date, host, kernel, CPU, rcu_expedited) and a row per result with its typed
// configuration and statistics, in one SQLite file ($XDG_DATA_HOME/fdbench/history.db unless
// --history names another). WAL and a busy timeout let concurrent runs on one host both land;
// each run is added in one transaction, so it is there whole or not at all. The file's
// application_id says it is fdbench's and its user_version which schema it has: an older one is
// migrated, a newer one, a damaged or a foreign file is refused in one line and left as it is.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fdbench/error.hpp"
#include "history/sqlite.hpp"
#include "model/results_json.hpp"

namespace fdbench::history {

// The history schema this fdbench writes (PRAGMA user_version); older ones are migrated.
inline constexpr int kHistoryVersion = 1;
// PRAGMA application_id of an fdbench history: "fdbh".
inline constexpr std::int32_t kApplicationId = 0x66646268;

// A history file that cannot be used, and why, in one line (it was not touched).
class Refused : public Error {
 public:
  using Error::Error;
};

// One saved run, as `history list` shows it.
struct RunSummary {
  std::int64_t id = 0;
  std::string date;  // the run's start (its context), else when it was added
  std::string host;
  std::string kernel;
  std::string command;  // "open", "socket", "tune", "suite"; "" where the document has no context
  std::string origin;   // "saved", or "imported FILE"
  std::int64_t results = 0;
  bool complete = true;
};

// One configuration's result in one run.
struct TrendPoint {
  std::int64_t run = 0;
  std::string date;
  std::string host;
  std::string kernel;  // "" where the run's document does not say
  Status status = Status::measured;
  std::int64_t repetitions = 0;
  double median_ns = 0;
  double low_ns = 0;  // its 95% interval (the full range where not reached)
  double high_ns = 0;
  bool interval_reached = false;
};

// A configuration across the runs that have it, oldest first.
struct TrendSeries {
  std::string workload;
  Configuration config;
  std::uint64_t ops = 0;
  std::vector<TrendPoint> points;
};

struct Added {
  std::int64_t id = 0;
  bool duplicate = false;  // the same document was there already: `id` is that run's
};

class History {
 public:
  // The history at `path`, created (and its directory) when missing. Throws Refused for a file
  // that is not an fdbench history, is damaged or is from a newer fdbench; Error otherwise.
  static History open_for_writing(const std::string& path);
  // The history at `path`, which must exist (Refused where it does not).
  static History open_for_reading(const std::string& path);
  // Whether a run was ever saved at `path`: false where there is no file yet, or an empty one
  // (a history another run is creating this moment). Throws Refused for a file that is not an
  // fdbench history.
  static bool started(const std::string& path);
  // Before a run measures what it will save: throws Refused where the history at `path` could
  // not take it (a foreign file, one not writable, or a folder where it cannot be created).
  // Creates nothing.
  static void check_writable(const std::string& path);

  // Adds a run in one transaction: `document` as written, `parsed` its reading. `origin`:
  // "saved" or "imported FILE". `before_commit` (tests) runs inside the transaction.
  Added add(std::string_view document, const ResultsDocument& parsed, std::string_view origin,
            const std::function<void()>& before_commit = {});
  [[nodiscard]] std::vector<RunSummary> runs();
  // The run's document as it was saved; nullopt where there is no such run.
  [[nodiscard]] std::optional<std::string> document(std::int64_t id);
  // The most recent run whose document is not `except_document` (by content); nullopt: none.
  [[nodiscard]] std::optional<std::int64_t> latest(std::string_view except_document = {});
  // Removes a run and its results; false where there is no such run.
  bool remove(std::int64_t id);
  // Every configuration the history holds, each across the runs that measured it.
  [[nodiscard]] std::vector<TrendSeries> trend();

  // What recognises a document whatever its spacing: a hash of its canonical JSON.
  static std::string content_hash(std::string_view document);

 private:
  explicit History(sqlite::Database db) : db_(std::move(db)) {}
  sqlite::Database db_;
};

// Where the history lives by default: $XDG_DATA_HOME/fdbench/history.db, else
// $HOME/.local/share/fdbench/history.db; "" when neither variable is set.
std::string default_history_path();

}  // namespace fdbench::history
