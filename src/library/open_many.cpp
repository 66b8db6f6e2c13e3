// open_many: checks the options, grows the descriptor table once, splits the paths into equal
// contiguous shares (the `threads` strategy's split: no queue, no per-path dispatch), runs
// one share per worker with the calling thread as worker 0, and hands back every descriptor
// in input order, or closes them all when the call as a whole fails or is cancelled.
#include "fdbench/open_many.hpp"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <functional>
#include <new>
#include <system_error>
#include <thread>

#include "fdbench/error.hpp"
#include "fdbench/fd_table.hpp"
#include "platform/platform.hpp"
#include "library/open_engine.hpp"

namespace fdbench {

namespace {

using Engine = std::function<library::ShareOutcome(const library::OpenJob&, std::size_t begin,
                                                   std::size_t end)>;

OpenManyResult failure(int error, std::string message) {
  OpenManyResult r;
  r.error = error;
  r.message = std::move(message);
  return r;
}

// The engine for options.strategy, or a failure saying why there is none.
Engine choose_engine(const OpenManyOptions& options, OpenManyResult& failed) {
  if (options.threads < 0) {
    failed = failure(EINVAL, "open_many: threads must be 0 (one per CPU) or more");
    return {};
  }
  switch (options.strategy) {
    case OpenStrategy::threads:
      return library::open_share_syscalls;
    case OpenStrategy::uring:
      break;
  }
  if (options.strategy != OpenStrategy::uring) {
    failed = failure(EINVAL, "open_many: unknown strategy (open_many runs threads and uring)");
    return {};
  }
  if (options.batch < 1) {
    failed = failure(EINVAL, "open_many: batch must be at least 1");
    return {};
  }
  if (auto reason = library::uring_unavailable_reason(); !reason.empty()) {
    failed = failure(EOPNOTSUPP, "open_many: " + reason + " (strategy \"threads\" runs anywhere)");
    return {};
  }
  const auto batch = static_cast<unsigned>(options.batch);
  return [batch](const library::OpenJob& job, std::size_t begin, std::size_t end) {
    return library::open_share_uring(job, begin, end, batch);
  };
}

// The n new descriptors take the n lowest free numbers, and with k descriptors open now the
// n-th of those is below k + n: grow the table for that once, before any worker exists.
// Best effort: where the limit is lower, the opens beyond it fail with EMFILE on their own.
void pregrow_for(std::size_t n) {
  if (!platform::uses_linux_interfaces()) return;  // no growth stall to avoid
  const std::uint64_t soft = platform::nofile_limit().soft;
  if (soft == 0) return;
  const std::uint64_t highest = platform::open_descriptors().size() + n - 1;
  const std::uint64_t allowed = std::min<std::uint64_t>({highest, soft - 1, INT_MAX});
  pregrow_fd_table(static_cast<int>(allowed));
}

// Runs body(w) for every worker w, the caller as worker 0. A worker whose thread cannot be
// started (EAGAIN at the thread limit) runs on the caller after its own share instead.
void run_workers(int workers, const std::function<void(int)>& body) {
  std::vector<std::jthread> threads;  // joined by their destructors, whatever happens
  std::vector<int> on_caller;
  threads.reserve(static_cast<std::size_t>(workers));
  on_caller.reserve(static_cast<std::size_t>(workers));
  on_caller.push_back(0);
  for (int w = 1; w < workers; ++w) {
    try {
      threads.emplace_back(std::cref(body), w);
    } catch (const std::system_error&) {
      on_caller.push_back(w);
    } catch (const std::bad_alloc&) {
      on_caller.push_back(w);
    }
  }
  for (const int w : on_caller) body(w);
}

int worker_count(const OpenManyOptions& options, std::size_t paths) {
  const int wanted = options.threads == 0 ? platform::logical_cpus() : options.threads;
  return static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(wanted), paths));
}

}  // namespace

std::string_view to_string(OpenStrategy strategy) noexcept {
  return strategy == OpenStrategy::uring ? "uring" : "threads";
}

std::size_t OpenManyResult::opened() const noexcept {
  return static_cast<std::size_t>(
      std::count_if(fds.begin(), fds.end(), [](const UniqueFd& fd) { return fd.valid(); }));
}

OpenManyResult open_many(int dir_fd, std::span<const char* const> paths, int flags,
                         const OpenManyOptions& options) {
  OpenManyResult result;
  const Engine engine = choose_engine(options, result);
  if (!engine || paths.empty()) return result;
  const std::size_t n = paths.size();
  result.fds.resize(n);
  result.errors.assign(n, 0);
  if (options.pregrow) pregrow_for(n);

  const library::OpenJob job{dir_fd,       paths,      flags,        options.mode,
                             options.stop, result.fds, result.errors};
  const int workers = worker_count(options, n);
  const auto t = static_cast<std::size_t>(workers);
  std::vector<library::ShareOutcome> outcomes(t);
  run_workers(workers, [&](int w) {
    const auto i = static_cast<std::size_t>(w);
    outcomes[i] = engine(job, n * i / t, n * (i + 1) / t);
  });

  for (auto& outcome : outcomes) {
    if (outcome.error != 0) return failure(outcome.error, std::move(outcome.message));
  }
  if (options.stop.stop_requested()) {
    return failure(ECANCELED, "open_many: cancelled; every descriptor it opened is closed");
  }
  return result;
}

OpenManyResult open_many(int dir_fd, std::span<const std::string> paths, int flags,
                         const OpenManyOptions& options) {
  std::vector<const char*> c_paths;
  c_paths.reserve(paths.size());
  for (const auto& path : paths) c_paths.push_back(path.c_str());
  return open_many(dir_fd, std::span<const char* const>(c_paths), flags, options);
}

}  // namespace fdbench
