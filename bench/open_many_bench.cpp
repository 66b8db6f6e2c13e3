// fdbench_open_many_bench: what a program gains by adopting `fdbench tune`'s answer. Opens
// every file of a set and holds them, three ways, in interleaved rounds:
//   recommended  open_many at the saved recommendation (the first setting within noise of the
//                best that open_many runs, as examples/open_tree.cpp picks it)
//   loop         a plain openat loop on one thread, what most programs do
//   knee         open_many with `threads` at the recommendation's knee thread count
// over a real tree and over private generated files, and prints each as a ratio to the
// recommended time (median of the rounds' ratios, min-max in brackets).
//
//   fdbench_open_many_bench RECOMMENDATION.json TREE SCRATCH_DIR [FILES [ROUNDS]]
#include <fcntl.h>
#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "fdbench/error.hpp"
#include "fdbench/fd_table.hpp"
#include "fdbench/open_many.hpp"
#include "fdbench/tune.hpp"
#include "fdbench/unique_fd.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
constexpr int kFlags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;

struct FileList {
  std::string dir;
  std::vector<std::string> paths;  // relative to dir
};

FileList tree_files(const std::string& root) {
  FileList list{root, {}};
  for (const auto& entry :
       fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied)) {
    if (entry.symlink_status().type() == fs::file_type::regular) {
      list.paths.push_back(entry.path().lexically_relative(root).string());
    }
  }
  return list;
}

// Empty files in a private directory, removed by the destructor.
class PrivateFiles {
 public:
  PrivateFiles(const std::string& scratch, std::size_t count) {
    std::string name = scratch + "/fdopenmany-XXXXXX";
    if (mkdtemp(name.data()) == nullptr) throw fdbench::Error("mkdtemp in " + scratch + " failed");
    list_.dir = name;
    for (std::size_t i = 1; i <= count; ++i) {
      list_.paths.push_back(fmt::format("{}.txt", i));
      const fdbench::UniqueFd fd(
          open((name + "/" + list_.paths.back()).c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
      if (!fd) throw fdbench::Error("cannot create the files in " + name);
    }
  }
  PrivateFiles(const PrivateFiles&) = delete;
  PrivateFiles& operator=(const PrivateFiles&) = delete;
  ~PrivateFiles() {
    std::error_code ignored;
    fs::remove_all(list_.dir, ignored);
  }
  [[nodiscard]] const FileList& list() const { return list_; }

 private:
  FileList list_;
};

// One pass: every file opened and held, then all closed (untimed). Returns seconds.
double time_open_many(const FileList& files, const fdbench::OpenManyOptions& options) {
  const fdbench::UniqueFd dir(open(files.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  const auto start = Clock::now();
  const fdbench::OpenManyResult result = fdbench::open_many(dir.get(), files.paths, kFlags, options);
  const std::chrono::duration<double> took = Clock::now() - start;
  if (!result.ok()) throw fdbench::Error("open_many: " + result.message);
  return took.count();
}

double time_loop(const FileList& files) {
  const fdbench::UniqueFd dir(open(files.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  std::vector<fdbench::UniqueFd> held;
  held.reserve(files.paths.size());
  const auto start = Clock::now();
  for (const auto& path : files.paths) held.emplace_back(openat(dir.get(), path.c_str(), kFlags));
  const std::chrono::duration<double> took = Clock::now() - start;
  return took.count();
}

// The setting open_many runs: the best, or the first within noise of it, else threads.
fdbench::OpenManyOptions recommended_options(const fdbench::Recommendation& rec) {
  if (auto options = fdbench::open_many_options(rec)) return *options;
  fdbench::OpenManyOptions threads;
  threads.threads = rec.best.threads;
  return threads;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string ratio_text(const std::vector<double>& ratios) {
  const auto [lo, hi] = std::minmax_element(ratios.begin(), ratios.end());
  return fmt::format("{:.2f}x [{:.2f}-{:.2f}]", median(ratios), *lo, *hi);
}

// Rounds alternate the order of the three, so drift hits each alike.
void compare(const std::string& title, const FileList& files, const fdbench::Recommendation& rec,
             int rounds) {
  const fdbench::OpenManyOptions best = recommended_options(rec);
  fdbench::OpenManyOptions knee;
  knee.threads = rec.knee_threads;
  std::vector<double> best_s, loop_ratio, knee_ratio;
  time_open_many(files, best);  // warm-up: dentries cached, table grown
  time_loop(files);
  for (int round = 0; round < rounds; ++round) {
    double b = 0, l = 0, k = 0;
    if (round % 2 == 0) {
      b = time_open_many(files, best), l = time_loop(files), k = time_open_many(files, knee);
    } else {
      k = time_open_many(files, knee), l = time_loop(files), b = time_open_many(files, best);
    }
    best_s.push_back(b);
    loop_ratio.push_back(l / b);
    knee_ratio.push_back(k / b);
  }
  const double n = static_cast<double>(files.paths.size());
  std::printf("%s: %zu files, %d rounds\n", title.c_str(), files.paths.size(), rounds);
  const std::string batch = best.strategy == fdbench::OpenStrategy::uring
                                ? fmt::format(", batch {}", best.batch)
                                : std::string();
  std::printf("  open_many %s, %d threads%s: %.2f ms median, %.0f files/s\n",
              std::string(fdbench::to_string(best.strategy)).c_str(), best.threads,
              batch.c_str(), median(best_s) * 1e3, n / median(best_s));
  std::printf("  plain loop, 1 thread / recommended:   %s\n", ratio_text(loop_ratio).c_str());
  std::printf("  threads at the knee (%d) / recommended: %s\n", rec.knee_threads,
              ratio_text(knee_ratio).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: fdbench_open_many_bench RECOMMENDATION.json TREE SCRATCH_DIR "
                 "[FILES [ROUNDS]]\n");
    return 2;
  }
  try {
    const fdbench::Recommendation rec = fdbench::load_recommendation(argv[1]);
    const std::size_t files = argc > 4 ? std::stoul(argv[4]) : 10000;
    const int rounds = argc > 5 ? std::stoi(argv[5]) : 11;
    const FileList tree = tree_files(argv[2]);
    const PrivateFiles generated(argv[3], files);
    fdbench::raise_nofile_limit(std::max(tree.paths.size(), files) + 64);
    std::printf("recommendation: %s, %d threads, batch %d; knee %d threads\n",
                rec.best.strategy.c_str(), rec.best.threads, rec.best.batch, rec.knee_threads);
    compare(argv[2], tree, rec, rounds);
    compare("private files", generated.list(), rec, rounds);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "Error: %s\n", e.what());
    return 1;
  }
}
