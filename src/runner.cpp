#include "fdbench/runner.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <system_error>

#include <fmt/format.h>

#include "fdbench/error.hpp"
#include "fdbench/file_set.hpp"
#include "fdbench/input_files.hpp"
#include "fdbench/interrupt.hpp"
#include "fdbench/platform.hpp"
#include "fdbench/unique_fd.hpp"
#include "format.hpp"

namespace fdbench {

namespace {

Result base_result(const Workload& work, const StrategyInfo& strategy,
                   const StrategyConfig& config, int repeat, int warmup) {
  Result r;
  r.workload = std::string(work.name());
  r.strategy = std::string(strategy.name);
  r.threads = config.threads;
  r.batch = strategy.uses_batch ? config.batch : 1;
  r.kind = work.kind();
  r.ops = work.ops() * static_cast<std::uint64_t>(work.descriptors_per_item());
  r.repeat = repeat;
  r.warmup = warmup;
  r.workers = strategy.workers;
  r.fd_table = strategy.fd_table;
  r.reference = strategy.reference;
  r.holds_descriptors = work.holds_descriptors();
  r.unit = std::string(work.unit());
  if (!strategy.dispatch.empty()) r.parameters["dispatch"] = std::string(strategy.dispatch);
  if (strategy.uses_batch) {
    r.parameters["batch"] = std::to_string(config.batch);
    r.parameters["batch_means"] = std::string(strategy.batch_means);
  }
  return r;
}

void record_failures(Result& r, const Tally& tally) {
  r.failures = tally.failures;
  if (tally.failures == 0) return;
  r.first_failure = errno_text(tally.first_errno);
  for (int err = 0; err < Tally::kErrnoSlots; ++err) {
    if (const auto n = tally.by_errno[static_cast<std::size_t>(err)]; n != 0) {
      r.failures_by_errno[err == Tally::kErrnoSlots - 1 ? "other" : errno_text(err)] += n;
    }
  }
}

std::string describe_fds(const std::vector<int>& fds) {
  std::string text;
  for (const int fd : fds) text += (text.empty() ? "" : ",") + std::to_string(fd);
  return text;
}

// A descriptor leak is a bug: say so in the result, and stop a debug build on the spot.
void check_no_leak(Result& r, const std::vector<int>& before) {
  const auto after = platform::open_descriptors();
  if (after == before) return;
  r.warnings.push_back(fmt::format("descriptor leak: held {{{}}} before the run, {{{}}} after",
                                   describe_fds(before), describe_fds(after)));
#ifndef NDEBUG
  std::fprintf(stderr, "fdbench: %s\n", r.warnings.back().c_str());
  FDBENCH_ASSERT(!"descriptor leak");
#endif
}

// Fixed-size message from a child repetition to the parent, over a pipe.
struct ChildReport {
  std::int64_t ns = 0;
  std::int32_t fdsize_before = -1;
  std::int32_t fdsize_after = -1;
  Tally tally;
  std::int32_t signal = 0;  // SIGINT or SIGTERM stopped the repetition: it is no sample
  char error[240] = {};
};

void write_all(int fd, const void* data, std::size_t size) noexcept {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
}

[[noreturn]] void child_repetition(int pipe_fd, const WorkloadFactory& make_work,
                                   const StrategyInfo& strategy, const StrategyConfig& config,
                                   const Pregrow& pregrow) noexcept {
  // Unlike a `process` worker, this child has children of its own (the second fork below,
  // `process` workers, libuv's helper): dying on Ctrl-C at once would orphan them. So it keeps
  // fdbench's handlers, which only record the signal: the workload stops early (it polls),
  // every child is reaped on the way out, and the report says that the signal came.
  ChildReport report;
  // Keep only 0-2 and the pipe (as fd 3), so the table a child of ours inherits is minimal.
  if (pipe_fd != 3) {
    dup2(pipe_fd, 3);
    pipe_fd = 3;
  }
  platform::close_descriptors_from(4);
  // A table inherited from a parent that held high descriptors never shrinks; a second fork
  // gets a table sized for what is open now (fds 0-3).
  const auto inherited = platform::fd_table_size();
  if (inherited && *inherited > platform::kSmallestFdTable) {
    const pid_t grandchild = fork();
    if (grandchild > 0) {
      int status = 0;
      close(pipe_fd);
      bool forwarded = false;
      while (waitpid(grandchild, &status, 0) < 0 && errno == EINTR) {
        // A signal for this process alone (fdbench forwards one) must reach the one working.
        if (!forwarded && interrupted() != 0) forwarded = kill(grandchild, interrupted()) == 0;
      }
      _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
    }
  }
  try {
    auto work = make_work();
    int highest = 0;
    if (pregrow.mode == Pregrow::Mode::automatic) {
      // +1 for reading FDSize afterwards
      highest = pipe_fd + static_cast<int>(work->ops()) * work->descriptors_per_item() + 2;
    } else if (pregrow.mode == Pregrow::Mode::fd) {
      highest = pregrow.fd;
    }
    if (highest > 0) {
      if (const int err = platform::grow_fd_table(highest)) {
        std::snprintf(report.error, sizeof report.error, "pregrow to fd %d failed: %s", highest,
                      errno_text(err).c_str());
        write_all(pipe_fd, &report, sizeof report);
        _exit(0);
      }
    }
    report.fdsize_before = platform::fd_table_size().value_or(-1);
    Repetition rep;
    {
      auto runner = strategy.make(config);  // worker threads exist only from here on
      work->before_repetition();
      rep = runner->run(*work);
      work->after_repetition();
    }
    report.ns = rep.ns;
    report.tally = rep.tally;
    report.fdsize_after = platform::fd_table_size().value_or(-1);
  } catch (const Interrupted& e) {  // a `process` worker or libuv's helper died of it
    report.signal = e.signal();
  } catch (const std::exception& e) {
    std::snprintf(report.error, sizeof report.error, "%s", e.what());
  }
  if (report.signal == 0) report.signal = interrupted();
  write_all(pipe_fd, &report, sizeof report);
  _exit(0);
}

// Runs one repetition in a fresh child and returns its report. The parent is single-threaded
// here (no strategy exists), so fork is safe.
ChildReport run_in_child(const WorkloadFactory& make_work, const StrategyInfo& strategy,
                         const StrategyConfig& config, const Pregrow& pregrow) {
  int fds[2];
  if (pipe(fds) != 0) throw Error("cannot create a pipe: " + errno_text(errno));
  UniqueFd read_end(fds[0]);
  UniqueFd write_end(fds[1]);
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  std::fflush(nullptr);  // the child must not flush our buffered output a second time
  const pid_t pid = fork();
  if (pid < 0) throw Error("cannot fork a worker process: " + errno_text(errno));
  if (pid == 0) child_repetition(write_end.release(), make_work, strategy, config, pregrow);
  write_end.reset();

  ChildReport report;
  std::size_t got = 0;
  auto* bytes = reinterpret_cast<char*>(&report);
  bool forwarded = false;
  while (got < sizeof report) {
    // Ctrl-C for fdbench alone (kill, not a terminal): pass it on, so the child stops early.
    if (!forwarded && interrupted() != 0) forwarded = kill(pid, interrupted()) == 0;
    const ssize_t n = read(read_end.get(), bytes + got, sizeof report - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) break;
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    if ((sig == SIGINT || sig == SIGTERM)) throw Interrupted(sig);
    throw Error(fmt::format("a worker process was killed by signal {} ({})", sig,
                            strsignal(sig)));
  }
  throw_if_interrupted();  // the report, if any, is of a repetition cut short
  if (got != sizeof report) {
    throw Error(fmt::format("a worker process exited (status {}) without reporting",
                            WIFEXITED(status) ? WEXITSTATUS(status) : -1));
  }
  if (report.signal != 0) throw Interrupted(report.signal);  // the child alone got one
  return report;
}

void ensure_descriptor_budget(std::uint64_t needed, std::string_view what_to_lower) {
  const auto limit = platform::nofile_limit();
  if (limit.soft >= needed) return;
  if (limit.hard < needed) {
    throw Error(fmt::format(
        "needs {} descriptors, hard limit is {} (soft {}): raise it with ulimit -Hn as root, "
        "or lower {}",
        needed, limit.hard, limit.soft, what_to_lower));
  }
  if (const int err = platform::raise_nofile_soft(needed)) {
    throw Error(fmt::format("needs {} descriptors, soft limit is {} and raising it failed: {}",
                            needed, limit.soft, errno_text(err)));
  }
}


}  // namespace

Result measure(Workload& work, const StrategyInfo& strategy, const StrategyConfig& config,
               int repeat, int warmup) {
  Result r = base_result(work, strategy, config, repeat, warmup);
  if (const auto reason = strategy.unavailable_reason(); !reason.empty()) {
    r.error = reason;
    return r;
  }
  const auto held_before = platform::open_descriptors();
  r.fdsize_before = platform::fd_table_size();
  Tally total;
  try {
    auto runner = strategy.make(config);
    for (int i = 0; i < warmup + repeat; ++i) {
      throw_if_interrupted();
      work.before_repetition();
      const Repetition rep = runner->run(work);
      work.after_repetition();
      throw_if_interrupted();  // a repetition cut short by Ctrl-C is no sample
      total.merge(rep.tally);
      if (i >= warmup) r.times_ns.push_back(rep.ns);
    }
  } catch (const std::system_error& e) {  // e.g. EAGAIN creating the 1,000th thread
    r.error = fmt::format("could not start {} with {} threads: {}", strategy.name,
                          config.threads, e.what());
    r.times_ns.clear();
  } catch (const Error& e) {  // the strategy cannot do this workload here
    throw_if_interrupted();      // ... unless a Ctrl-C killed its workers
    r.error = e.what();
    r.times_ns.clear();
  }
  r.fdsize_after = platform::fd_table_size();
  record_failures(r, total);
  check_no_leak(r, held_before);
  finalize(r);
  return r;
}

Result measure_in_fresh_child(const WorkloadFactory& make_work, const StrategyInfo& strategy,
                              const StrategyConfig& config, const Pregrow& pregrow, int repeat,
                              int warmup) {
  Result r = base_result(*make_work(), strategy, config, repeat, warmup);
  r.pregrow = pregrow.label();
  if (const auto reason = strategy.unavailable_reason(); !reason.empty()) {
    r.error = reason;
    return r;
  }
  const auto held_before = platform::open_descriptors();
  Tally total;
  for (int i = 0; i < warmup + repeat; ++i) {
    throw_if_interrupted();
    const ChildReport report = run_in_child(make_work, strategy, config, pregrow);
    if (report.error[0] != '\0') {
      r.error = report.error;
      r.times_ns.clear();
      break;
    }
    total.merge(report.tally);
    if (i < warmup) continue;
    r.times_ns.push_back(report.ns);
    if (!r.fdsize_before) {  // every child starts alike; keep the first timed one's sizes
      if (report.fdsize_before >= 0) r.fdsize_before = report.fdsize_before;
      if (report.fdsize_after >= 0) r.fdsize_after = report.fdsize_after;
    }
  }
  record_failures(r, total);
  check_no_leak(r, held_before);
  finalize(r);
  return r;
}

Session::Session(Environment env, std::vector<std::unique_ptr<Reporter>> reporters)
    : env_(std::move(env)), reporters_(std::move(reporters)) {
  for (auto& reporter : reporters_) reporter->begin(env_);
}

void Session::emit(Result result) {
  results_.push_back(std::move(result));
  for (auto& reporter : reporters_) reporter->add(results_.back());
}

void Session::announce(const Section& section) {
  for (auto& reporter : reporters_) reporter->section(section);
}

void Session::finish(bool complete) {
  if (finished_) return;
  finished_ = true;
  for (auto& reporter : reporters_) reporter->end(results_, complete);
}

namespace {

// The files an `open` command works on: a private generated set, or the user's files.
struct OpenInput {
  std::optional<FileSet> generated;
  InputFiles existing;
  InputSummary summary;
  std::string dir_path;
  int dir_fd = -1;  // borrowed from `generated`, or -1 (opened where needed)

  [[nodiscard]] const PathTable& paths() const {
    return generated ? generated->names() : existing.paths;
  }
};

OpenInput prepare_input(const OpenOptions& o) {
  OpenInput in;
  in.summary.flags = std::string(to_string(o.flags));
  in.summary.keep_open = o.keep_open;
  if (!o.tree.empty() || !o.list.empty()) {
    in.existing = o.tree.empty() ? read_list(o.list, o.list0) : scan_tree(o.tree);
    in.summary.source = in.existing.source;
    in.summary.origin = in.existing.origin;
    in.summary.layout = "";
    in.summary.skipped = in.existing.skipped;
    in.summary.missing = in.existing.missing;
    in.dir_path = in.existing.dir_path;
    if (in.existing.paths.empty()) {
      throw Error(fmt::format("no regular files to open in {} {}",
                              o.tree.empty() ? "--list" : "--tree", in.summary.origin));
    }
  } else {
    const std::string dir = o.dir.empty() ? default_dir() : o.dir;
    in.generated.emplace(FileSet::create(dir, o.files, o.subdirs));
    in.summary.origin = dir;
    in.summary.layout = o.subdirs == 0 ? "flat" : fmt::format("dirs:{}", o.subdirs);
    in.dir_path = in.generated->path();
    in.dir_fd = in.generated->dir_fd();
  }
  in.summary.files = in.paths().size();
  return in;
}

std::string input_title(const OpenOptions& o, const OpenInput& in) {
  const std::string files = group_digits(in.summary.files);
  std::string where;
  if (in.summary.source == "generated") {
    where = fmt::format("{} empty files in {} ({}{})", files, in.summary.origin,
                        platform::fs_type(in.summary.origin),
                        o.subdirs == 0 ? "" : fmt::format(", {} subdirectories", o.subdirs));
  } else {
    where = fmt::format("{} regular files from --{} {} ({})", files, in.summary.source,
                        in.summary.origin, platform::fs_type(in.dir_path));
  }
  return fmt::format("open: {}, {}{}, {} repetitions (+{} warm-up)", where, to_string(o.flags),
                     o.keep_open ? ", kept open" : "", o.repeat, o.warmup);
}

std::string input_note(const OpenOptions& o, const OpenInput& in) {
  std::string note = o.keep_open
                         ? "descriptors are held to the end of each repetition, each in a fresh "
                           "process; thread and pool creation are not timed"
                         : "each file opened and closed again; thread and pool creation are not "
                           "timed";
  std::uint64_t skipped = 0;
  for (const auto& [what, n] : in.summary.skipped) skipped += n;
  std::uint64_t missing = 0;
  for (const auto& [what, n] : in.summary.missing) missing += n;
  if (skipped != 0) note += fmt::format("; {} entries skipped (not regular files)", skipped);
  if (missing != 0) note += fmt::format("; {} listed paths not found", missing);
  return note;
}

}  // namespace

void Session::run_open(const OpenOptions& options) {
  const int most_threads = *std::max_element(options.threads.begin(), options.threads.end());
  std::uint64_t needed = static_cast<std::uint64_t>(most_threads) + 64;
  if (options.keep_open) needed += options.tree.empty() && options.list.empty() ? options.files : 0;
  for (const auto& p : options.pregrow) {
    if (p.mode == Pregrow::Mode::fd) needed = std::max<std::uint64_t>(needed, p.fd + 16ULL);
  }
  ensure_descriptor_budget(needed, "--threads, --files or --pregrow");
  OpenInput in = prepare_input(options);
  if (options.keep_open) {  // a tree's size is known only now
    ensure_descriptor_budget(in.summary.files + static_cast<std::uint64_t>(most_threads) + 64,
                             "the number of files (use --list with fewer paths)");
  }
  announce({input_title(options, in), input_note(options, in)});

  OpenSpec spec;
  spec.dir_path = in.dir_path;
  spec.dir_fd = in.dir_fd;
  spec.paths = &in.paths();
  spec.flags = options.flags;
  spec.keep_open = options.keep_open;
  spec.foreign = in.summary.source != "generated";
  const auto strategies = options.strategies.empty() ? strategy_names() : options.strategies;
  for (const auto& name : strategies) {
    const StrategyInfo* strategy = find_strategy(name);
    FDBENCH_ASSERT(strategy != nullptr);  // the CLI validated the names
    for (const int threads : options.threads) {
      const StrategyConfig config{threads, options.batch};
      if (!options.keep_open) {
        const auto work = make_open_workload(spec);
        Result r = measure(*work, *strategy, config, options.repeat, options.warmup);
        r.input = in.summary;
        emit(std::move(r));
        continue;
      }
      for (const auto& pregrow : options.pregrow) {
        OpenSpec child_spec = spec;
        child_spec.dir_fd = -1;  // the child holds only fds 0-2: it opens the directory itself
        Result r = measure_in_fresh_child([child_spec] { return make_open_workload(child_spec); },
                                          *strategy, config, pregrow, options.repeat,
                                          options.warmup);
        r.input = in.summary;
        emit(std::move(r));
      }
    }
  }
}

void Session::run_socket(const SocketOptions& options) {
  const int most_threads = *std::max_element(options.threads.begin(), options.threads.end());
  const std::uint64_t per_item = options.kind == SocketKind::pipe ? 2 : 1;
  std::uint64_t needed =
      static_cast<std::uint64_t>(most_threads) * options.per_thread * per_item + 16;
  for (const auto& p : options.pregrow) {
    if (p.mode == Pregrow::Mode::fd) needed = std::max<std::uint64_t>(needed, p.fd + 16ULL);
  }
  ensure_descriptor_budget(needed, "--threads, --per-thread or --pregrow");
  const std::string what = options.kind == SocketKind::pipe
                               ? "pipes (2 descriptors each)"
                               : fmt::format("{} descriptors", to_string(options.kind));
  announce({fmt::format("socket: {} {} per thread, held to the end; {} repetitions "
                        "(+{} warm-up), each in a fresh process",
                        group_digits(options.per_thread), what, options.repeat, options.warmup),
            "for `threads` the calling thread is one of the threads; worker creation is not "
            "timed"});
  for (const auto& name : options.strategies) {
    const StrategyInfo* strategy = find_strategy(name);
    FDBENCH_ASSERT(strategy != nullptr);  // the CLI validated the names
    for (const int threads : options.threads) {
      for (const auto& pregrow : options.pregrow) {
        const auto count = static_cast<std::size_t>(threads) * options.per_thread;
        const SocketKind kind = options.kind;
        emit(measure_in_fresh_child([kind, count] { return make_socket_workload(kind, count); },
                                    *strategy, {threads, options.batch}, pregrow,
                                    options.repeat, options.warmup));
      }
    }
  }
}

}  // namespace fdbench
