#pragma once
// Where a long run is, for a progress display. A Session calls it between timed regions only,
// on the thread that runs the session: never inside a measurement.
#include <cstddef>
#include <functional>
#include <span>
#include <string_view>

#include "model/result.hpp"
#include "output/table_rows.hpp"
#include "output/trace_out.hpp"

namespace fdbench {

class Progress {
 public:
  virtual ~Progress() = default;
  // The command will make `results` results of `repetitions` repetitions each (warm-ups
  // included); their repetitions may interleave. `repetitions` 0: as many as --repeat auto
  // takes, each result in at most about `max_seconds_each`.
  virtual void plan(std::size_t results, int repetitions, double max_seconds_each) = 0;
  // The results of the section about to be measured, in the order they are printed (a
  // TraceKey each: strategy, threads, pregrow), and the table's optional columns. Called
  // after plan(), once per Session::measure; a display that draws no table ignores it.
  virtual void rows(std::span<const TraceKey> /*planned*/, const TableLayout& /*layout*/) {}
  // The private file set is being created: `made` of `total` files so far.
  virtual void creating_files(std::size_t made, std::size_t total) = 0;
  // A repetition starts: the `repetition`-th (from 1) of the result `what` ("uring, 2
  // threads, pregrow auto"), the `result`-th (from 1) of the plan.
  virtual void repetition_started(std::string_view what, std::size_t result, int repetition) = 0;
  // That repetition has finished; `stopped`: its result takes no more. `so_far()` makes the
  // result of its timed repetitions so far (a partial result: their statistics), a copy and a
  // sort of every time: call it only to show it, not after every repetition.
  using SoFar = std::function<Result()>;
  virtual void repetition_done(const SoFar& so_far, bool stopped) = 0;
  // A result is about to be printed: the display gets out of the way.
  virtual void result_done() = 0;
  // The run is over (finished, interrupted or failed): nothing of the display may stay.
  virtual void clear() = 0;
};

}  // namespace fdbench
