#pragma once
// --export-FORMAT FILE (hyperfine's exports): a reporter of any format whose output is kept in
// a file for the whole run. The file is rewritten atomically after every finished result, so
// an interrupted run leaves what it measured (marked incomplete) and a reader never sees half
// a file. A target written in place (a device, a FIFO, fdbench's own stdout) takes the one
// document at the end instead. An export that cannot be written (a full disk) is given up,
// its previous content kept, and said once at the end: the run and the other outputs go on.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "output/reporter.hpp"

namespace fdbench::app {

class FileExport final : public Reporter {
 public:
  // `flag` names the file in messages ("--export-json").
  FileExport(std::string format, std::string path, std::string flag);

  void begin(const Environment& env) override;
  void context(const RunContext& context) override { context_ = context; }
  void section(const Section& section) override;
  // Rewrites the file (unless it streams). A failure is kept in error(), never thrown: the run
  // goes on without this file, which is not tried again.
  void add(const Result& result) override;
  // tune's recommendation: kept for the final file.
  void recommendation(const TuneSummary& summary) override { tune_ = summary; }
  // Writes the final file, unless a write already failed; a failure is kept in error().
  void end(std::span<const Result> all, std::span<const Finding> findings, bool complete) override;

  // Why the file could not be written (the first failure, naming the flag, the file and the
  // errno's text); empty if it was.
  [[nodiscard]] const std::string& error() const { return error_; }
  [[nodiscard]] bool written() const { return error_.empty(); }

 private:
  // The run so far as the format writes it, with `findings` (while it runs: the results so
  // far's).
  void write(bool complete, std::span<const Finding> findings);

  std::string format_;
  std::string path_;
  std::string flag_;
  Environment env_;
  std::optional<RunContext> context_;
  std::vector<std::pair<std::size_t, Section>> sections_;  // each before result #first
  std::vector<Result> results_;
  std::optional<TuneSummary> tune_;
  bool streams_;       // written in place: once, at the end
  std::string error_;  // a write failed: the file is not tried again
};

}  // namespace fdbench::app
