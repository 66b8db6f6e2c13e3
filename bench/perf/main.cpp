// fdbench_performance: the driver behind bench/performance, which builds it and fdbench and
// passes every setting explicitly (the script owns the user-facing options).
#include <fmt/format.h>

#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

#include "common/errors.hpp"
#include "perf/child_run.hpp"
#include "perf/performance_run.hpp"

namespace {

constexpr const char* kUsage =
    "Usage: fdbench_performance --fdbench BINARY --tools DIR --dir DIR [--quick] [--rounds N]\n"
    "                           [--only references|kernel-trace|stall|accept|short]\n"
    "Run it through bench/performance, which builds both first.\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int positive(std::string_view flag, const std::string& text) {
  std::size_t used = 0;
  int value = 0;
  try {
    value = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || value < 1 || value > 1000) {
    throw UsageError(fmt::format("{} must be a whole number from 1 to 1000, not '{}'", flag, text));
  }
  return value;
}

// --quick is a smoke test: fewer rounds and repetitions, 100,000 files instead of 1,000,000, and
// the references at 1 and 2 threads only.
perf::Settings settings_for(bool quick) {
  perf::Settings s;
  s.mode = quick ? "quick" : "full";
  s.rounds = quick ? 3 : 7;
  s.repeat = quick ? 5 : 10;
  s.big_files = quick ? 100000 : 1000000;
  s.scale_rounds = quick ? 1 : 2;
  s.big_repeat = quick ? 2 : 3;
  s.startup_runs = quick ? 5 : 20;
  if (quick) s.suite_threads = {1, 2};
  return s;
}

perf::Settings parse(int argc, char** argv) {
  bool quick = false;
  int rounds = 0;
  std::string binary, tools, dir, only;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--quick") {
      quick = true;
      continue;
    }
    if (i + 1 == argc) throw UsageError(fmt::format("unknown argument or missing value: {}", arg));
    const std::string value = argv[++i];
    if (arg == "--fdbench") {
      binary = value;
    } else if (arg == "--tools") {
      tools = value;
    } else if (arg == "--dir") {
      dir = value;
    } else if (arg == "--only") {
      if (value != "references" && value != "kernel-trace" && value != "stall" &&
          value != "accept" && value != "short") {
        throw UsageError(fmt::format(
            "--only takes 'references', 'kernel-trace', 'stall', 'accept' or 'short', not '{}'",
            value));
      }
      only = value;
    } else if (arg == "--rounds") {
      rounds = positive(arg, value);
    } else {
      throw UsageError(fmt::format("unknown argument: {}", arg));
    }
  }
  if (binary.empty() || tools.empty() || dir.empty()) {
    throw UsageError("--fdbench, --tools and --dir are required");
  }
  perf::Settings s = settings_for(quick);
  s.fdbench = binary;
  s.tools = tools;
  s.dir = dir;
  s.only = only;
  if (rounds != 0) s.rounds = rounds;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  perf::install_signal_forwarding();
  try {
    const perf::Settings settings = parse(argc, argv);
    const perf::Scratch scratch;
    perf::PerformanceRun(settings, scratch).run();
    return 0;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "Error: %s\n%s", e.what(), kUsage);
    return 2;
  } catch (const perf::Interrupted& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "\nError: %s; every program removed the files it had made\n", e.what());
    return 128 + e.signal();
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "\nError: %s\n", e.what());
    return 1;
  }
}
