#pragma once
// --trace-out FILE: every timed call of every result as one CSV row, for tools that want the
// calls themselves (a plot over time, a join with perf's timestamps: both read
// CLOCK_MONOTONIC). Rows stream into a temporary file beside FILE between repetitions, never
// while one is timed, and the file is renamed into place when the run ends, finished or
// interrupted: a reader sees no file or a whole one, never half of it. A write that fails (a
// full disk) gives the file up, never the measurement: commit() says why, once.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "output/atomic_file.hpp"
#include "model/call_record.hpp"

namespace fdbench {

// Which result a repetition's calls belong to: its index in the results document, and the
// fields that tell it apart when read on its own.
struct TraceKey {
  std::size_t result = 0;
  std::string strategy;
  int threads = 0;
  std::string pregrow;    // empty: measured in this process, no pregrow
  std::string create_op;  // what the creation call is called: "open", "create"
};

class TraceOut {
 public:
  static constexpr std::string_view kHeader =
      "result,strategy,threads,pregrow,repetition,worker,index,op,start_ns,duration_ns,fd";

  // Creates the temporary file beside `path` (an AtomicFile); throws Error naming --trace-out.
  // Destroyed without commit(), nothing is left.
  explicit TraceOut(std::string path);

  // The calls of the `repetition`-th (from 0, as in times_ns) timed repetition of a result:
  // a row for each creation call made and one for each close timed (it began when the
  // creation call returned); an io_uring submission is a "submit" row (and a "submit-close"
  // one) on its batch's first item, fd the highest the batch returned. Records of items never
  // run give no row. Never throws: after a failed write it only drops the rows.
  void add(const TraceKey& key, int repetition, std::span<const CallRecord> calls);
  // Flushes, syncs and renames the file into place; throws Error, the first write's that failed
  // if one did. Returns the rows written.
  std::uint64_t commit();
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
  AtomicFile file_;
  // Writes the rows buffered; a failure is kept in error_.
  void flush();

  std::string buffer_;  // rows not yet written
  std::uint64_t rows_ = 0;
  std::string error_;  // why a write failed: no more rows are written
};

}  // namespace fdbench
