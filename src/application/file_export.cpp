#include "application/file_export.hpp"

#include <fmt/format.h>

#include <sstream>

#include "common/errors.hpp"
#include "fdbench/error.hpp"
#include "output/atomic_file.hpp"

namespace fdbench::app {

FileExport::FileExport(std::string format, std::string path, std::string flag)
    : format_(std::move(format)),
      path_(std::move(path)),
      flag_(std::move(flag)),
      streams_(output_streams(path_)) {}

void FileExport::begin(const Environment& env) {
  env_ = env;
}

void FileExport::section(const Section& section) {
  sections_.emplace_back(results_.size(), section);
}

void FileExport::add(const Result& result) {
  results_.push_back(result);
  if (!streams_ && error_.empty()) write(false, findings(results_, env_));
}

void FileExport::end(std::span<const Result> /*all*/, std::span<const Finding> findings,
                     bool complete) {
  if (error_.empty()) write(complete, findings);
}

// Replays the run so far into a fresh reporter: every format, streaming or not, then writes
// the same document it would have written for a run that ended here.
void FileExport::write(bool complete, std::span<const Finding> findings) {
  std::ostringstream text;
  auto reporter = make_reporter(format_, text);
  FDBENCH_ASSERT(reporter != nullptr);  // the CLI validated the format
  reporter->begin(env_);
  if (context_) reporter->context(*context_);
  auto next_section = sections_.begin();
  for (std::size_t i = 0; i <= results_.size(); ++i) {
    for (; next_section != sections_.end() && next_section->first == i; ++next_section) {
      reporter->section(next_section->second);
    }
    if (i < results_.size()) reporter->add(results_[i]);
  }
  if (tune_) reporter->recommendation(*tune_);
  reporter->end(results_, findings, complete);
  try {
    write_file_atomically(path_, text.str(), flag_);
  } catch (const Error& e) {
    error_ = e.what();
  }
}

}  // namespace fdbench::app
