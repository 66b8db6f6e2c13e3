#pragma once
// The messages between a strategy and the children it forks (the `process` workers, the
// `libuv` helper), sent over their ChildProcess channel.
#include <cstdint>
#include <cstdio>
#include <optional>

#include "engine/workload.hpp"
#include "model/result.hpp"

namespace fdbench {

// Parent -> child: do one repetition of `work` (the parent's address, valid in the child's
// fork-time copy). `ops` is what the parent sees, to catch a workload made after the fork.
struct WorkRequest {
  Workload* work = nullptr;
  std::uint64_t ops = 0;

  // Empty if the child's copy is the parent's workload; otherwise why not.
  [[nodiscard]] const char* mismatch() const {
    return work->ops() == ops ? ""
                              : "the workload changed after the strategy forked its children: "
                                "make the workload before the strategy";
  }
};

// Child -> parent: a repetition's time (a duration or a finish time, as the strategy says),
// its failures and what its timed part took (page faults, context switches), or an error
// (`unavailable`: the child cannot do the work here, as an
// Unavailable thrown would say).
struct WorkReply {
  std::int64_t ns = 0;
  Tally tally;
  std::optional<TimedRegion> usage;  // what the timed part took; nullopt: not counted
  std::int64_t start_ns = 0;         // when its clock started (one clock for every process)
  char error[200] = {};
  bool unavailable = false;

  void set_error(const char* text) { std::snprintf(error, sizeof error, "%s", text); }
  [[nodiscard]] bool failed() const { return error[0] != '\0'; }
};

}  // namespace fdbench
