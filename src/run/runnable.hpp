#pragma once
// What of a command can run here, known before anything is made or started: for every
// strategy and harness the command asks for, whether that strategy can make the command's
// items with that harness on this machine. Decided from the registry's data (StrategyInfo:
// unavailable here, an item it has no call for, no published harness) and the workload's own
// (an eventfd where the system has none), never from a result's words. A command none of whose
// combinations can run is a usage error, refused before its files are made; one where only
// some cannot runs the others and says which up front.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "model/settings.hpp"
#include "run/options.hpp"

namespace fdbench {

// A strategy that cannot run with a harness, and why.
struct Unrunnable {
  std::string_view strategy;
  Harness harness = Harness::minimal;
  std::string why;
};

struct Runnability {
  std::size_t asked = 0;             // strategy x harness pairs the command asks for
  std::vector<Unrunnable> cannot;    // those of them that cannot run here
  std::string workload_why;          // no strategy can: the items cannot be made here at all
  std::vector<std::string> instead;  // strategies that could run with a harness asked

  [[nodiscard]] bool nothing_runs() const {
    return !workload_why.empty() || cannot.size() == asked;
  }
};

// `open`'s strategies (every one when none is named) with its harnesses (minimal alone with
// --keep-open), opening files.
Runnability runnability(const OpenOptions& options);
// `socket`'s strategies with its harnesses, creating --kind's descriptors.
Runnability runnability(const SocketOptions& options);
// `accept`'s strategies with its harnesses (no published one: no seed accepted), accepting.
Runnability runnability(const AcceptOptions& options);

// When nothing can run: the cause and the fix in one line, "nothing it asks for can run here:
// libuv: libuv opens files only ...; choose --strategy threads,pool,... (these can)".
std::string nothing_runs_text(const Runnability& runnability);
// When some cannot: one line naming them with why, "will be unavailable here (their rows say
// so): uring-direct: ..."; "" when every combination can run.
std::string unavailable_text(const Runnability& runnability);

}  // namespace fdbench
