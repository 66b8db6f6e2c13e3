// Adding, listing, reading and removing runs, and a configuration's trend across them.
#include "history/history.hpp"

#include <fmt/format.h>

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

namespace fdbench::history {

namespace {

// FNV-1a, 64 bits, from `basis`.
std::uint64_t fnv1a(std::string_view text, std::uint64_t basis) {
  std::uint64_t hash = basis;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::string now_utc() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

// The command a run's argv names: its subcommand, or "suite" (fdbench with none).
std::string command_of(const std::optional<RunContext>& context) {
  if (!context) return {};
  const auto& argv = context->command_line;
  if (argv.size() < 2 || argv[1].starts_with("-")) return "suite";
  return argv[1];
}

std::optional<std::int64_t> optional_integer(const std::optional<int>& value) {
  if (!value) return std::nullopt;
  return *value;
}

std::int64_t insert_run(sqlite::Database& db, const ResultsDocument& parsed,
                        std::string_view document, std::string_view origin,
                        const std::string& hash) {
  const auto& context = parsed.context;
  const nlohmann::json argv = context ? context->command_line : std::vector<std::string>{};
  auto insert = db.prepare(
      "INSERT INTO runs (added_at, date, host, user, kernel, cpu, rcu_expedited, command, "
      "command_line, tool_version, schema_version, complete, origin, content_hash, document) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)");
  const std::string added = now_utc();
  insert.bind(1, added)
      .bind(2, context ? std::string_view(context->date) : std::string_view(added))
      .bind(3, context ? std::string_view(context->host) : std::string_view())
      .bind(4, context ? std::optional<std::int64_t>(context->user) : std::nullopt)
      .bind(5, parsed.environment.kernel)
      .bind(6, parsed.environment.cpu_model)
      .bind(7, optional_integer(parsed.environment.rcu_expedited))
      .bind(8, command_of(context))
      .bind(9, argv.dump())
      .bind(10, parsed.tool_version)
      .bind(11, std::int64_t{parsed.schema_version})
      .bind(12, std::int64_t{parsed.complete ? 1 : 0})
      .bind(13, origin)
      .bind(14, hash)
      .bind(15, document);
  insert.step();
  return db.last_insert_id();
}

void insert_result(sqlite::Statement& insert, std::int64_t run, std::int64_t position,
                   const Result& r) {
  const auto& c = r.config;
  const bool timed = !r.times_ns.empty();
  const auto paths = c.paths ? std::optional<std::string_view>(to_string(*c.paths)) : std::nullopt;
  insert.bind(1, run).bind(2, position).bind(3, r.workload).bind(4, c.strategy);
  insert.bind(5, std::int64_t{c.threads}).bind(6, std::int64_t{c.batch}).bind(7, to_string(c.kind));
  insert.bind(8, c.pregrow.label()).bind(9, to_string(c.harness));
  if (paths) {
    insert.bind(10, *paths);
  } else {
    insert.bind_null(10);
  }
  insert.bind(11, optional_integer(c.rcu_expedited)).bind(12, static_cast<std::int64_t>(r.ops));
  insert.bind(13, to_string(r.status)).bind(14, static_cast<std::int64_t>(r.times_ns.size()));
  if (timed) {
    insert.bind(15, r.stats.median).bind(16, static_cast<double>(r.median_ci.lo));
    insert.bind(17, static_cast<double>(r.median_ci.hi)).bind(19, r.ops_per_sec);
  } else {
    insert.bind_null(15).bind_null(16).bind_null(17).bind_null(19);
  }
  insert.bind(18, std::int64_t{r.median_ci.reached ? 1 : 0});
  insert.step();
}

std::optional<std::int64_t> run_with_hash(sqlite::Database& db, const std::string& hash) {
  auto find = db.prepare("SELECT id FROM runs WHERE content_hash = ?1");
  find.bind(1, hash);
  if (!find.step()) return std::nullopt;
  return find.integer(0);
}

}  // namespace

std::string History::content_hash(std::string_view document) {
  const std::string canonical = nlohmann::json::parse(document).dump();
  return fmt::format("{:016x}{:016x}", fnv1a(canonical, 0xcbf29ce484222325ULL),
                     fnv1a(canonical, 0x84222325cbf29ce4ULL));
}

Added History::add(std::string_view document, const ResultsDocument& parsed,
                   std::string_view origin, const std::function<void()>& before_commit) {
  const std::string hash = content_hash(document);
  db_.exec("BEGIN IMMEDIATE");  // the write lock from the start: no upgrade to fail later
  try {
    if (const auto id = run_with_hash(db_, hash)) {
      db_.exec("ROLLBACK");
      return {*id, true};
    }
    const std::int64_t run = insert_run(db_, parsed, document, origin, hash);
    auto insert = db_.prepare(
        "INSERT INTO results (run_id, position, workload, strategy, threads, batch, kind, "
        "pregrow, harness, paths, rcu_expedited, ops, status, repetitions, median_ns, ci_low_ns, "
        "ci_high_ns, ci_reached, ops_per_sec) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
        "?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)");
    for (std::size_t i = 0; i < parsed.results.size(); ++i) {
      insert_result(insert, run, static_cast<std::int64_t>(i), parsed.results[i]);
      insert.reset();
    }
    if (before_commit) before_commit();
    db_.exec("COMMIT");
    return {run, false};
  } catch (...) {
    try {
      db_.exec("ROLLBACK");
    } catch (const Error&) {  // SQLite rolled back already
    }
    throw;
  }
}

std::vector<RunSummary> History::runs() {
  auto select = db_.prepare(
      "SELECT id, date, host, kernel, command, origin, complete, "
      "(SELECT count(*) FROM results WHERE run_id = runs.id) FROM runs ORDER BY id");
  std::vector<RunSummary> runs;
  while (select.step()) {
    runs.push_back({.id = select.integer(0),
                    .date = select.text(1),
                    .host = select.text(2),
                    .kernel = select.text(3),
                    .command = select.text(4),
                    .origin = select.text(5),
                    .results = select.integer(7),
                    .complete = select.integer(6) != 0});
  }
  return runs;
}

std::optional<std::string> History::document(std::int64_t id) {
  auto select = db_.prepare("SELECT document FROM runs WHERE id = ?1");
  select.bind(1, id);
  if (!select.step()) return std::nullopt;
  return select.text(0);
}

std::optional<std::int64_t> History::latest(std::string_view except_document) {
  const std::string except = except_document.empty() ? "" : content_hash(except_document);
  auto select =
      db_.prepare("SELECT id FROM runs WHERE content_hash != ?1 ORDER BY id DESC LIMIT 1");
  select.bind(1, except);
  if (!select.step()) return std::nullopt;
  return select.integer(0);
}

bool History::remove(std::int64_t id) {
  db_.exec("BEGIN IMMEDIATE");
  try {
    auto results = db_.prepare("DELETE FROM results WHERE run_id = ?1");
    results.bind(1, id).step();
    auto run = db_.prepare("DELETE FROM runs WHERE id = ?1");
    run.bind(1, id).step();
    const bool removed = db_.changes() > 0;
    db_.exec("COMMIT");
    return removed;
  } catch (...) {
    try {
      db_.exec("ROLLBACK");
    } catch (const Error&) {  // SQLite rolled back already
    }
    throw;
  }
}

}  // namespace fdbench::history
