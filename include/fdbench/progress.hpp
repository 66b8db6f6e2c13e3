#pragma once
// Where a long run is, for a progress display. A Session calls it between timed regions only,
// on the thread that runs the session: never inside a measurement.
#include <cstddef>
#include <string_view>

namespace fdbench {

class Progress {
 public:
  virtual ~Progress() = default;
  // The command will make `results` results.
  virtual void plan(std::size_t results) = 0;
  // The private file set is being created: `made` of `total` files so far.
  virtual void creating_files(std::size_t made, std::size_t total) = 0;
  // The next result: `what` names it ("uring, 2 threads, pregrow auto"); `repetitions` counts
  // the warm-up ones too.
  virtual void start_result(std::string_view what, int repetitions) = 0;
  // `done` repetitions of the current result have finished.
  virtual void repetition_done(int done) = 0;
  // A result is finished and about to be printed: the display gets out of the way.
  virtual void result_done() = 0;
  // The run is over (finished, interrupted or failed): nothing of the display may stay.
  virtual void clear() = 0;
};

}  // namespace fdbench
