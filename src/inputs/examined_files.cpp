// examine_in_child(): the user's files, enumerated in a child process under --timeout's limit.
// Looking at a path is no safer than opening it: on a FUSE or NFS mount whose server took the
// request and never answers, lstat() and a walk's fstatat() wait in the kernel where no signal
// reaches them, and a process cannot exit while one of its threads waits there. So the walk, or
// the reading of a list, runs in a child that fdbench can kill, or leave behind, naming it.
#include "inputs/examined_files.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <utility>

#include "common/errors.hpp"
#include "engine/child_process.hpp"
#include "engine/timed_runner.hpp"
#include "fdbench/error.hpp"
#include "platform/interrupt.hpp"
#include "platform/platform.hpp"

namespace fdbench {

namespace {

// What the child sends first: how the examination ended, and how many bytes follow (the
// files, or the text of the error that ended it).
struct ExamineReply {
  std::int32_t outcome = 0;  // kExamined, kFailed or kRefused
  std::uint64_t bytes = 0;
};
constexpr std::int32_t kExamined = 0;
constexpr std::int32_t kFailed = 1;   // an Error: "--tree /x: No such file or directory"
constexpr std::int32_t kRefused = 2;  // a UsageError: a list separated otherwise than said

void put_count(std::string& out, std::uint64_t n) {
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
}

void put_text(std::string& out, std::string_view text) {
  put_count(out, text.size());
  out.append(text);
}

std::string serialized(const InputFiles& files) {
  std::string out;
  put_text(out, source_name(files.source));
  put_text(out, files.origin);
  put_text(out, files.dir_path);
  put_text(out, files.fs_type);
  put_count(out, files.paths.size());
  for (std::size_t i = 0; i < files.paths.size(); ++i) put_text(out, files.paths[i]);
  const DirectoryTable& table = files.by_directory;
  put_count(out, table.dirs.size());
  for (const auto& dir : table.dirs) {
    put_count(out, dir.parent);
    put_text(out, dir.name);
    put_count(out, dir.dev);
    put_count(out, dir.ino);
  }
  put_count(out, table.names.size());
  for (std::size_t i = 0; i < table.names.size(); ++i) {
    put_text(out, table.names[i]);
    put_count(out, table.dir_of[i]);
  }
  for (const auto* counts : {&files.skipped, &files.missing}) {
    put_count(out, counts->size());
    for (const auto& [why, n] : *counts) {
      put_text(out, why);
      put_count(out, n);
    }
  }
  return out;
}

// Reads what serialized() wrote; throws Error on anything shorter than it says.
class ExaminedReader {
 public:
  explicit ExaminedReader(const std::string& bytes) : bytes_(bytes) {}

  std::uint64_t count() {
    std::uint64_t n = 0;
    take(&n, sizeof n);
    return n;
  }
  std::string text() {
    const std::uint64_t n = count();
    if (n > bytes_.size() - at_) broken();
    std::string s = bytes_.substr(at_, n);
    at_ += n;
    return s;
  }

 private:
  void take(void* into, std::size_t n) {
    if (n > bytes_.size() - at_) broken();
    std::memcpy(into, bytes_.data() + at_, n);
    at_ += n;
  }
  [[noreturn]] static void broken() {
    throw Error("the child process that examined the files sent a truncated list of them");
  }
  const std::string& bytes_;
  std::size_t at_ = 0;
};

[[noreturn]] void broken_table() {
  throw Error("the child process that examined the files sent a broken table of directories");
}

InputFiles deserialized(const std::string& bytes) {
  ExaminedReader in(bytes);
  InputFiles files;
  if (!parse_input_source(in.text(), "", files.source)) {
    throw Error("the child process that examined the files sent an unknown source");
  }
  files.origin = in.text();
  files.dir_path = in.text();
  files.fs_type = in.text();
  const std::uint64_t paths = in.count();
  for (std::uint64_t i = 0; i < paths; ++i) files.paths.add(in.text());
  DirectoryTable& table = files.by_directory;
  const std::uint64_t dirs = in.count();
  for (std::uint64_t i = 0; i < dirs; ++i) {
    const auto parent = static_cast<std::uint32_t>(in.count());
    std::string name = in.text();
    const std::uint64_t dev = in.count();
    const std::uint64_t ino = in.count();
    if (parent != DirectoryTable::kTop && parent >= i) broken_table();
    table.add_dir(parent, name, dev, ino);
  }
  const std::uint64_t names = in.count();
  for (std::uint64_t i = 0; i < names; ++i) {
    std::string name = in.text();
    const std::uint64_t dir = in.count();
    if (dir >= dirs) broken_table();
    table.add_file(static_cast<std::uint32_t>(dir), name);
  }
  for (auto* counts : {&files.skipped, &files.missing}) {
    const std::uint64_t kinds = in.count();
    for (std::uint64_t i = 0; i < kinds; ++i) {
      std::string why = in.text();
      (*counts)[std::move(why)] = in.count();
    }
  }
  return files;
}

void examine_and_send(Channel& channel, const std::function<InputFiles()>& examine) noexcept {
  quiet_standard_streams();
  ExamineReply reply;
  std::string body;
  try {
    body = serialized(examine());
  } catch (const UsageError& e) {
    reply.outcome = kRefused;
    body = e.what();
  } catch (const std::exception& e) {
    reply.outcome = kFailed;
    body = e.what();
  }
  reply.bytes = body.size();
  if (channel.send(reply)) channel.send_all(std::span<const char>(body.data(), body.size()));
}

// What the step on the runner's thread leaves for the caller. Shared: once the step is
// abandoned its thread may still return (its child killed) after the caller has gone.
struct Examined {
  ExamineReply reply;
  std::string body;
};

// How a timed-out examination is said: from the path the blocked call holds (Linux; "" where
// unknown) and the processes the kill could not end ("" or "; pid N ... left behind").
using TimedOutText = std::function<std::string(const std::string& on, const std::string& left)>;

// examine_in_child() and look_in_child(): `examine` in a child, abandoned at `timeout_s`.
InputFiles run_in_child(const std::function<InputFiles()>& examine, double timeout_s,
                        const std::string& what, const TimedOutText& timed_out) {
  const auto limit = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(timeout_s > 0 ? timeout_s : 0));
  std::optional<TimedRunner> runner;
  try {
    runner.emplace(limit);
  } catch (const Error&) {
    // Without a limit, as a repetition does: where no thread can be made (ulimit -u), here.
    if (timeout_s > 0) throw;
    return examine();
  }
  auto examined = std::make_shared<Examined>();
  const auto outcome = runner->run([examined, examine, what] {
    ChildProcess child([&examine](Channel& channel) { examine_and_send(channel, examine); },
                       ChildOptions{});
    if (!child.receive(examined->reply)) child.throw_died("the process examining " + what);
    examined->body.resize(examined->reply.bytes);
    if (!child.channel().receive_all(
            std::span<char>(examined->body.data(), examined->body.size()))) {
      child.throw_died("the process examining " + what);
    }
    child.wait();
  }, TimedRunner::Limit::applies, std::chrono::milliseconds(0));  // the child holds nothing
  if (outcome != TimedRunner::Outcome::done) {
    // Named before anything is killed: the path its blocked call holds.
    const auto paths = platform::paths_being_opened();
    const std::string on = paths && !paths->empty() ? paths->front() : "";
    const KillDeadline deadline = kill_deadline();
    const std::vector<int> killed = platform::kill_descendants();
    ChildProcess::kill_all(deadline);
    const std::string left = not_ended_text(killed, deadline);
    if (outcome != TimedRunner::Outcome::timed_out) throw Interrupted(interrupted());
    throw TimedOut(timed_out(on, left));
  }
  if (examined->reply.outcome == kRefused) throw UsageError(examined->body);
  if (examined->reply.outcome == kFailed) throw Error(examined->body);
  return deserialized(examined->body);
}

}  // namespace

InputFiles examine_in_child(const std::function<InputFiles()>& examine, double timeout_s,
                            const std::string& what) {
  const auto timed_out = [&](const std::string& on, const std::string& left) {
    return fmt::format("examining {} did not finish within {:g} s{}{}", what, timeout_s,
                       on.empty() ? "" : "; it was examining " + on, left);
  };
  return run_in_child(examine, timeout_s, what, timed_out);
}

void look_in_child(const std::function<void()>& look, double timeout_s, const std::string& what) {
  run_in_child(
      [&look] {
        look();
        return InputFiles{};
      },
      timeout_s, what, [&](const std::string& /*on*/, const std::string& left) {
        return fmt::format("{}: no answer from its filesystem in {:g} s (a dead mount?){}", what,
                           timeout_s, left);
      });
}

}  // namespace fdbench
