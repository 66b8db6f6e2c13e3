// libuv: libuv's thread pool, the way Node.js opens files (fs.open and fs.close are
// uv_fs_open and uv_fs_close requests run on that pool). One loop thread keeps --batch
// uv_fs_open requests in flight; each opened file gets a uv_fs_close, then its slot a new
// uv_fs_open, until the list is done. The pool has T threads.
//
// Why a helper process: libuv reads UV_THREADPOOL_SIZE once, when its pool first starts,
// and the pool is process-wide and can never be resized. So setting the variable in the
// measuring process would make every later result with another T silently run on the first
// T's pool. Instead every libuv strategy object forks one helper child (in the constructor,
// untimed) that sets UV_THREADPOOL_SIZE = T before its first libuv call, owns the loop and
// the pool, and warms the pool with one untimed request (which starts all T threads). Each
// run() asks the helper for one repetition; the helper times it itself (first request
// issued to last close completed), so the round trip to the parent is not measured, and reads
// its own page faults and context switches around that (the helper's whole: loop and pool).
// libuv has no openat(): every file is opened by its full path, built before the clock, also
// with --paths relative (the strategy says so in the registry, and the result records it).
// fdbench itself never starts a libuv pool (and libuv re-creates its pool in a forked child
// anyway), so each helper's pool is exactly T threads.
//
// The helper reaches the workload through its fork-time copy of the parent's memory, so the
// workload must exist before the strategy is made (measure() makes it so). Descriptors kept
// with keep_open live in the helper, so the helper runs before_repetition() and
// after_repetition() on its own copy of the workload as well.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/child_process.hpp"
#include "engine/strategies/registry.hpp"
#include "engine/strategies/work_messages.hpp"
#include "engine/strategies/worker_group.hpp"
#include "engine/strategy.hpp"
#include "fdbench/error.hpp"
#include "platform/platform.hpp"
#include "platform/unavailable.hpp"

#ifdef FDBENCH_HAVE_LIBUV
#include <unistd.h>
#include <uv.h>

#include <atomic>
#include <chrono>
#include <thread>
#endif

namespace fdbench {

#ifdef FDBENCH_HAVE_LIBUV

namespace {

constexpr int kMaxPoolThreads = 1024;  // libuv's MAX_THREADPOOL_SIZE since 1.30; it clamps

// One repetition on the helper's loop.
struct Batch {
  uv_loop_t* loop = nullptr;
  Workload* work = nullptr;
  const ItemSpec* item = nullptr;
  const PathTable* paths = nullptr;  // libuv has no openat(): every item by its full path
  std::size_t next = 0;
  std::size_t count = 0;
  Tally tally;
};

// One request in flight (libuv itself copies the path of every asynchronous request).
struct Slot {
  uv_fs_t req{};
  Batch* batch = nullptr;
  std::size_t item = 0;
};

void on_open(uv_fs_t* req);
void on_close(uv_fs_t* req);

// Issues the next open on `slot`, if any are left; a request libuv refuses counts as a
// failure and the next item is tried.
void open_next(Slot& slot) {
  Batch& b = *slot.batch;
  while (b.next < b.count) {
    slot.item = b.next++;
    slot.req.data = &slot;
    const int rc =
        uv_fs_open(b.loop, &slot.req, (*b.paths)[slot.item], b.item->open_flags, 0, on_open);
    if (rc == 0) return;
    b.tally.fail(-rc);
  }
}

void on_open(uv_fs_t* req) {
  Slot& slot = *static_cast<Slot*>(req->data);
  Batch& b = *slot.batch;
  const auto result = req->result;
  uv_fs_req_cleanup(req);
  if (result < 0) {
    b.tally.fail(static_cast<int>(-result));  // libuv's codes are -errno on Unix
  } else if (b.item->check_regular && !platform::is_regular_descriptor(static_cast<int>(result))) {
    close(static_cast<int>(result));  // the user's file changed into a FIFO or a device
    ++b.tally.not_regular;
  } else if (b.item->keep_open) {
    b.work->keep(slot.item, static_cast<int>(result));
  } else {
    const int rc = uv_fs_close(b.loop, req, static_cast<uv_file>(result), on_close);
    if (rc == 0) return;  // on_close issues the next open
    b.tally.fail(-rc);
    close(static_cast<int>(result));
  }
  open_next(slot);
}

void on_close(uv_fs_t* req) {
  Slot& slot = *static_cast<Slot*>(req->data);
  if (req->result < 0) slot.batch->tally.fail(static_cast<int>(-req->result));
  uv_fs_req_cleanup(req);
  open_next(slot);
}

// The user's files (--tree, --list), for an API that opens by path only: each by its last name
// below /proc/self/fd/N, N the descriptor of its directory that the workload opened and checked
// before the repetition. The kernel takes that step to the directory itself, by the descriptor,
// never by a name a race could change; the last name is not followed if it is a link. Its
// cost is in libuv's times (the result's paths_note says so).
PathTable through_checked_directories(const ItemSpec& spec) {
  PathTable paths;
  std::string path;
  for (std::size_t i = 0; i < spec.paths->size(); ++i) {
    const std::string_view name = spec.absolute ? std::string_view(spec.path(i)).substr(
                                                      std::string_view(spec.path(i)).rfind('/') + 1)
                                                : std::string_view(spec.path(i));
    path = fmt::format("/proc/self/fd/{}/{}", spec.dir_fds[spec.dir_of[i]], name);
    paths.add(path);
  }
  return paths;
}

// Runs one repetition of an open workload and returns its time; untimed set-up first, full
// paths included (--paths absolute gives them; otherwise they are joined here). `usage`: what
// the helper (its loop thread and the pool's together) took while timed.
std::int64_t run_batch(uv_loop_t* loop, Workload& work, std::size_t window, Tally& tally,
                       std::optional<TimedRegion>& usage, std::int64_t& started) {
  const ItemSpec spec = work.spec();
  const PathTable joined = spec.dir_fds != nullptr ? through_checked_directories(spec)
                           : spec.absolute          ? PathTable()
                                                    : joined_paths(spec.dir_path, *spec.paths);
  const bool own = spec.dir_fds != nullptr || !spec.absolute;
  Batch batch{loop, &work, &spec, own ? &joined : spec.paths, 0, spec.paths->size(), {}};
  std::vector<Slot> slots(std::min(window, batch.count));
  for (auto& slot : slots) slot.batch = &batch;

  const auto before = platform::process_usage();
  const std::int64_t start = platform::now_ns();
  started = start;
  for (auto& slot : slots) open_next(slot);
  const int rc = uv_run(loop, UV_RUN_DEFAULT);
  const std::int64_t end = platform::now_ns();
  usage = taken_between(before, platform::process_usage());
  if (rc != 0) throw Error(fmt::format("uv_run left {} active handles", rc));
  tally = batch.tally;
  return end - start;
}

// libuv aborts the process when its pool cannot start every thread: whether `count` threads
// can run at once here is found out first, with threads of our own that only wait. Returns
// cannot_create()'s text, or "" when they can. Waits until they are gone for good (an exited
// thread counts against a process limit until the kernel has released it).
std::string pool_threads_unavailable(int count) {
  std::atomic<bool> go{false};
  std::vector<std::thread> started;
  std::string why;
  try {
    started.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) started.emplace_back([&go] { go.wait(false); });
  } catch (const std::exception& e) {  // system_error (EAGAIN at a limit) or bad_alloc
    why = cannot_create(count_of(count, "thread", "threads"), thread_start_errno(e)).what();
  }
  go.store(true);
  go.notify_all();
  for (auto& t : started) t.join();
  for (int i = 0; i < 1000 && platform::thread_count().value_or(1) > 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return why;
}

// Starts every pool thread now (libuv starts them all on the first request), untimed.
int warm_pool(uv_loop_t* loop) {
  uv_work_t warm{};
  const int rc = uv_queue_work(
      loop, &warm, [](uv_work_t*) {}, [](uv_work_t*, int) {});
  if (rc != 0) return rc;
  return uv_run(loop, UV_RUN_DEFAULT);
}

// The helper's whole life after the fork; returning ends the process (_exit).
void helper_main(Channel& channel, int threads, int batch) {
  WorkReply ready;
  // Before any libuv call: this sizes the pool of this process, for good.
  setenv("UV_THREADPOOL_SIZE", std::to_string(threads).c_str(), 1);
  uv_loop_t loop{};
  if (const int rc = uv_loop_init(&loop); rc != 0) {
    ready.set_error(fmt::format("uv_loop_init failed: {}", uv_strerror(rc)).c_str());
    channel.send(ready);
    return;
  }
  if (const std::string why = pool_threads_unavailable(threads); !why.empty()) {
    ready.set_error(why.c_str());
    ready.unavailable = true;
  } else if (const int rc = warm_pool(&loop); rc != 0) {
    ready.set_error(fmt::format("cannot start libuv's thread pool: {}", uv_strerror(rc)).c_str());
  }
  if (!channel.send(ready) || ready.failed()) return;

  const auto window = static_cast<std::size_t>(std::max(batch, 1));
  for (;;) {
    WorkRequest command;
    if (!channel.receive(command)) break;  // the strategy is gone
    WorkReply reply;
    try {
      Workload& work = *command.work;
      if (*command.mismatch() != '\0') throw Error(command.mismatch());
      work.before_repetition();
      reply.ns = run_batch(&loop, work, window, reply.tally, reply.usage, reply.start_ns);
      work.after_repetition();  // here, where the kept descriptors are
    } catch (const std::exception& e) {
      reply.set_error(e.what());
    }
    if (!channel.send(reply)) break;
  }
  uv_loop_close(&loop);
}

class LibuvStrategy final : public Strategy {
 public:
  explicit LibuvStrategy(const StrategyConfig& config) try
      : helper_(make_helper(config), ChildOptions{.keeps_table_size = true}) {
    WorkReply ready;
    if (!helper_.receive(ready)) {
      helper_.throw_died("the libuv helper process died while starting");
    }
    if (ready.failed() && ready.unavailable) throw Unavailable(ready.error);
    if (ready.failed()) throw Error(ready.error);
  } catch (const ForkFailed& e) {  // EAGAIN at a limit on processes: not here
    throw cannot_create("the libuv helper process", e.err());
  }

  Repetition run(Workload& work) override {
    if (auto why = libuv_cannot_make(work.spec().op); !why.empty()) throw Unavailable(why);
    const WorkRequest command{&work, work.ops()};
    WorkReply reply;
    if (!helper_.send(command) || !helper_.receive(reply)) {
      helper_.throw_died("the libuv helper process died");
    }
    if (reply.failed()) throw Error(std::string("libuv: ") + reply.error);
    return {reply.ns, reply.tally, reply.usage, reply.start_ns};
  }

 private:
  static ChildProcess::Body make_helper(const StrategyConfig& config) {
    if (config.threads < 1 || config.threads > kMaxPoolThreads) {
      throw Unavailable(
          fmt::format("libuv's thread pool holds 1 to {} threads, not {}: lower "
                      "--threads",
                      kMaxPoolThreads, config.threads));
    }
    return [threads = config.threads, batch = config.batch](Channel& channel) {
      helper_main(channel, threads, batch);
    };
  }

  ChildProcess helper_;
};

}  // namespace

std::unique_ptr<Strategy> make_libuv_strategy(const StrategyConfig& config) {
  return std::make_unique<LibuvStrategy>(config);
}

std::string libuv_unavailable_reason() {
  return {};
}

#else  // no libuv at build time: registered, reported as unavailable

std::unique_ptr<Strategy> make_libuv_strategy(const StrategyConfig& /*config*/) {
  throw Unavailable("built without libuv");
}

std::string libuv_unavailable_reason() {
  return "built without libuv";
}

#endif

// Both builds: what libuv's pool does is uv_fs_open, so an item that is no file has no call.
std::string libuv_cannot_make(ItemSpec::Op op) {
  if (op == ItemSpec::Op::open_file) return {};
  return fmt::format("libuv opens files only (uv_fs_open), it has no call that creates {}",
                     item_words(op));
}

}  // namespace fdbench
