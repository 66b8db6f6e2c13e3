#pragma once
// The seed's thread pool, kept as it is on purpose: one mutex-protected queue of
// std::function tasks, one condition variable, and a std::packaged_task + std::future per
// task. Its per-task cost is what `pool` measures.
#include <condition_variable>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

#include "engine/strategies/worker_group.hpp"

namespace fdbench {

class ClassicPool {
 public:
  // Starts `threads` workers; throws cannot_create() (having stopped those that started)
  // when the system will not create one.
  explicit ClassicPool(int threads) {
    workers_.reserve(threads);
    for (int i = 0; i < threads; ++i) {
      try {
        start_worker();
      } catch (const std::exception& e) {  // system_error (EAGAIN at a limit) or bad_alloc
        // Stopped before the message is made: out of memory, making it may throw too, and the
        // started workers would then wait on a condition variable being destroyed.
        const int err = thread_start_errno(e);
        stop();
        throw cannot_create(count_of(threads, "thread", "threads"), err);
      }
    }
  }
  ClassicPool(const ClassicPool&) = delete;
  ClassicPool& operator=(const ClassicPool&) = delete;
  ~ClassicPool() { stop(); }

  template <class F>
  std::future<void> enqueue(F&& f) {
    auto task = std::make_shared<std::packaged_task<void()>>(std::forward<F>(f));
    std::future<void> done = task->get_future();
    {
      std::lock_guard lock(mutex_);
      tasks_.emplace([task] { (*task)(); });
    }
    ready_.notify_one();
    return done;
  }

 private:
  void start_worker() {
    workers_.emplace_back([this] {
      for (;;) {
        std::function<void()> task;
        {
          std::unique_lock lock(mutex_);
          ready_.wait(lock, [this] { return stop_ || !tasks_.empty(); });
          if (stop_ && tasks_.empty()) return;
          task = std::move(tasks_.front());
          tasks_.pop();
        }
        task();
      }
    });
  }

  // Every worker started finishes the queued tasks and is joined: none is left waiting on a
  // condition variable about to be destroyed.
  void stop() noexcept {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    ready_.notify_all();
    for (auto& w : workers_) w.join();
    workers_.clear();
  }

  std::vector<std::thread> workers_;
  std::queue<std::function<void()>> tasks_;
  std::mutex mutex_;
  std::condition_variable ready_;
  bool stop_ = false;
};

}  // namespace fdbench
