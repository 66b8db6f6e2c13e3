#include "application/test_events.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace fdbench::app {

std::unique_ptr<TestEvents> TestEvents::from_environment(Progress* inner) {
  const char* path = std::getenv("FDBENCH_TEST_EVENTS");
  if (path == nullptr || *path == '\0') return nullptr;
  UniqueFd fd(open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (!fd) return nullptr;
  return std::unique_ptr<TestEvents>(new TestEvents(std::move(fd), inner));
}

void test_event(std::string_view line) {
  const char* path = std::getenv("FDBENCH_TEST_EVENTS");
  if (path == nullptr || *path == '\0') return;
  const UniqueFd fd(open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (!fd) return;
  const std::string whole = std::string(line) + "\n";
  [[maybe_unused]] const ssize_t n = ::write(fd.get(), whole.data(), whole.size());
}

void TestEvents::line(const std::string& text) const {
  const std::string whole = text + "\n";
  // A test's aid: a failed write is no reason to stop a run.
  [[maybe_unused]] const ssize_t n = ::write(fd_.get(), whole.data(), whole.size());
}

void TestEvents::plan(std::size_t results, int repetitions, double max_seconds_each) {
  line(fmt::format("plan {} {}", results, repetitions));
  if (inner_ != nullptr) inner_->plan(results, repetitions, max_seconds_each);
}

void TestEvents::creating_files(std::size_t made, std::size_t total) {
  line(fmt::format("creating-files {} {}", made, total));
  if (inner_ != nullptr) inner_->creating_files(made, total);
}

void TestEvents::repetition_started(std::string_view what, std::size_t result, int repetition) {
  result_ = result;
  repetition_ = repetition;
  line(fmt::format("repetition-started {} {}", result, repetition));
  if (inner_ != nullptr) inner_->repetition_started(what, result, repetition);
}

void TestEvents::rows(std::span<const TraceKey> planned, const TableLayout& layout) {
  if (inner_ != nullptr) inner_->rows(planned, layout);
}

void TestEvents::repetition_done(const SoFar& so_far, bool stopped) {
  line(fmt::format("repetition-done {} {}", result_, repetition_));
  if (inner_ != nullptr) inner_->repetition_done(so_far, stopped);
}

void TestEvents::result_done() {
  line("result-done");
  if (inner_ != nullptr) inner_->result_done();
}

void TestEvents::clear() {
  line("run-done");
  if (inner_ != nullptr) inner_->clear();
}

}  // namespace fdbench::app
