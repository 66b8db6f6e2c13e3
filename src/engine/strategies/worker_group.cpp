#include "engine/strategies/worker_group.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <new>
#include <system_error>

#include "common/errors.hpp"
#include "fdbench/error.hpp"
#include "platform/platform.hpp"

namespace fdbench {

Unavailable cannot_create(std::string_view what, int err) {
  return Unavailable(
      fmt::format("cannot create {} ({}; {})", what, errno_text(err), platform::task_limit_text()));
}

std::string count_of(int n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

int thread_start_errno(const std::exception& e) noexcept {
  if (const auto* system = dynamic_cast<const std::system_error*>(&e))
    return system->code().value();
  return ENOMEM;
}

std::optional<TimedRegion> taken_between(const std::optional<platform::Usage>& before,
                                         const std::optional<platform::Usage>& after) noexcept {
  if (!before || !after) return std::nullopt;
  return TimedRegion{after->minor_faults - before->minor_faults,
                     after->major_faults - before->major_faults,
                     after->voluntary_switches - before->voluntary_switches,
                     after->involuntary_switches - before->involuntary_switches};
}

void add_usage(std::optional<TimedRegion>& sum, const std::optional<TimedRegion>& part) noexcept {
  if (sum && part) {
    *sum += *part;
  } else {
    sum.reset();
  }
}

WorkerGroup::WorkerGroup(int workers, Lifetime lifetime)
    : workers_(workers),
      lifetime_(lifetime),
      spin_ns_(workers <= platform::cpus_allowed().value_or(
                              static_cast<int>(std::max(1U, std::thread::hardware_concurrency())))
                   ? kReleaseSpinNs
                   : 0),
      finish_(workers) {
  FDBENCH_ASSERT(workers >= 1);
  threads_.reserve(workers - 1);
  for (int w = 1; w < workers; ++w) {
    try {
      threads_.emplace_back([this, w] { loop(w); });
    } catch (const std::exception& e) {  // system_error (EAGAIN at a limit) or bad_alloc
      Unavailable why =
          cannot_create(count_of(workers - 1, "thread", "threads"), thread_start_errno(e));
      stop();
      throw why;
    }
  }
  // Every thread has run once and waits: its first scheduling is not on the clock.
  const auto threads = static_cast<std::uint32_t>(workers - 1);
  for (std::uint32_t now = ready_.load(std::memory_order_acquire); now != threads;
       now = ready_.load(std::memory_order_acquire)) {
    platform::wait_word(ready_, now, spin_ns_);
  }
}

WorkerGroup::~WorkerGroup() {
  stop();
}

void WorkerGroup::stop() noexcept {
  stop_.store(true, std::memory_order_relaxed);
  epoch_.fetch_add(1, std::memory_order_release);
  platform::wake_word(epoch_);
  for (auto& t : threads_) t.join();
  threads_.clear();
}

void WorkerGroup::loop(int worker) {
  std::uint32_t seen = 0;
  if (ready_.fetch_add(1, std::memory_order_acq_rel) + 1 ==
      static_cast<std::uint32_t>(workers_ - 1)) {
    platform::wake_word(ready_);
  }
  for (;;) {
    platform::wait_word(epoch_, seen, spin_ns_);
    seen = epoch_.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_relaxed)) return;
    // Read as the worker starts its share, after its release: read before its wait, the
    // switch of that wait (begun before the clock started) would count as the work's. The
    // group's clock then holds this one system call (~2 µs on a 2-vCPU VM) before its share.
    const auto before = platform::thread_usage();
    (*body_)(worker);
    finish_[worker].ns = platform::now_ns();
    finish_[worker].usage = taken_between(before, platform::thread_usage());
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) platform::wake_word(pending_);
    if (lifetime_ == Lifetime::one_run) return;  // the thread ends with its job
  }
}

std::int64_t WorkerGroup::run(const std::function<void(int)>& body) {
  FDBENCH_ASSERT(lifetime_ == Lifetime::reused || !ran_);
  ran_ = true;
  body_ = &body;
  pending_.store(static_cast<std::uint32_t>(workers_ - 1), std::memory_order_relaxed);
  const auto before = platform::thread_usage();  // worker 0's, before the clock starts
  const std::int64_t start = platform::now_ns();
  started_ns_ = start;
  if (!threads_.empty()) {  // alone, the caller has no one to release: no futex call
    epoch_.fetch_add(1, std::memory_order_release);
    platform::wake_word(epoch_);
  }
  body(0);
  finish_[0].ns = platform::now_ns();
  // After its own finish stamp, and before it waits for the others: that wait is no work.
  finish_[0].usage = taken_between(before, platform::thread_usage());
  for (std::uint32_t left = pending_.load(std::memory_order_acquire); left != 0;
       left = pending_.load(std::memory_order_acquire)) {
    platform::wait_word(pending_, left);
  }
  std::int64_t end = 0;
  for (const auto& f : finish_) end = std::max(end, f.ns);
  return end - start;
}

std::optional<TimedRegion> WorkerGroup::usage() const noexcept {
  std::optional<TimedRegion> sum = TimedRegion{};
  for (const auto& f : finish_) add_usage(sum, f.usage);
  return sum;
}

}  // namespace fdbench
