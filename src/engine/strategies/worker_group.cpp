#include "engine/strategies/worker_group.hpp"

#include <algorithm>

#include "fdbench/error.hpp"
#include "platform/platform.hpp"

namespace fdbench {

WorkerGroup::WorkerGroup(int workers, Lifetime lifetime)
    : workers_(workers), lifetime_(lifetime), finish_(workers) {
  FDBENCH_ASSERT(workers >= 1);
  threads_.reserve(workers - 1);
  for (int w = 1; w < workers; ++w) threads_.emplace_back([this, w] { loop(w); });
}

WorkerGroup::~WorkerGroup() {
  stop_.store(true, std::memory_order_relaxed);
  epoch_.fetch_add(1, std::memory_order_release);
  epoch_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerGroup::loop(int worker) {
  std::uint32_t seen = 0;
  for (;;) {
    epoch_.wait(seen, std::memory_order_acquire);
    seen = epoch_.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_relaxed)) return;
    (*body_)(worker);
    finish_[worker].ns = platform::now_ns();
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_one();
    if (lifetime_ == Lifetime::one_run) return;  // the thread ends with its job
  }
}

std::int64_t WorkerGroup::run(const std::function<void(int)>& body) {
  FDBENCH_ASSERT(lifetime_ == Lifetime::reused || !ran_);
  ran_ = true;
  body_ = &body;
  pending_.store(workers_ - 1, std::memory_order_relaxed);
  const std::int64_t start = platform::now_ns();
  if (!threads_.empty()) {  // alone, the caller has no one to release: no futex, and in a
    // fresh child no first touch of libstdc++'s wait table (a page fault) on the clock
    epoch_.fetch_add(1, std::memory_order_release);
    epoch_.notify_all();
  }
  body(0);
  finish_[0].ns = platform::now_ns();
  for (int left = pending_.load(std::memory_order_acquire); left != 0;
       left = pending_.load(std::memory_order_acquire)) {
    pending_.wait(left, std::memory_order_acquire);
  }
  std::int64_t end = 0;
  for (const auto& f : finish_) end = std::max(end, f.ns);
  return end - start;
}

}  // namespace fdbench
