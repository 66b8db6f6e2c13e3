// open_tree: opens every regular file under a directory with fdbench::open_many and keeps them
// all open at once (as a bundler or a build system that maps its inputs does), then reads
// their sizes through the descriptors.
//
//   open_tree DIR [STRATEGY [THREADS]]        (default: threads 2)
//   open_tree DIR --recommendation FILE       (FILE from `fdbench tune --save FILE`)
//
// A program would do the second: measure once per machine with `fdbench tune --save`, then
// read the answer at start-up instead of guessing a thread count.
#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "fdbench/error.hpp"
#include "fdbench/fd_table.hpp"
#include "fdbench/open_many.hpp"
#include "fdbench/tune.hpp"

namespace {

// Every regular file under `root`, relative to it. Symlinks are not followed, and FIFOs,
// sockets and devices are left alone (opening a FIFO would block).
std::vector<std::string> regular_files(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const auto& entry :
       fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied)) {
    if (entry.symlink_status().type() == fs::file_type::regular) {
      files.push_back(entry.path().lexically_relative(root).string());
    }
  }
  return files;
}

// How to open them: the one place that decides.
fdbench::OpenManyOptions options_from_args(int argc, char** argv) {
  if (argc > 3 && std::strcmp(argv[2], "--recommendation") == 0) {
    const fdbench::Recommendation rec = fdbench::load_recommendation(argv[3]);  // throws Error
    std::printf("recommended here: %s, %d threads, batch %d (%.0f files/s when measured)\n",
                rec.best.strategy.c_str(), rec.best.threads, rec.best.batch, rec.best.ops_per_sec);
    // open_many runs threads and uring; a pool or processes measured fastest become threads
    // at the same count. Only uring-direct cannot apply (its descriptors stay in the ring).
    if (auto options = fdbench::open_many_options(rec)) return *options;
    fdbench::OpenManyOptions threads;
    threads.threads = rec.best.threads;
    return threads;
  }
  fdbench::OpenManyOptions options;
  const char* name = argc > 2 ? argv[2] : "threads";
  const auto strategy = fdbench::open_strategy(name);
  if (!strategy) throw fdbench::Error(std::string("unknown strategy: ") + name);
  options.strategy = *strategy;
  options.threads = argc > 3 ? std::atoi(argv[3]) : 2;
  return options;
}

void print_failures(const fdbench::OpenManyResult& result) {
  std::map<int, std::size_t> by_errno;
  for (const int err : result.errors) {
    if (err != 0) ++by_errno[err];
  }
  for (const auto& [err, count] : by_errno) {
    std::printf("  %zu not opened: %s\n", count, std::strerror(err));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: open_tree DIR [STRATEGY [THREADS] | --recommendation FILE]\n");
    return 2;
  }
  fdbench::OpenManyOptions options;
  try {
    options = options_from_args(argc, argv);
  } catch (const fdbench::Error& e) {
    std::fprintf(stderr, "open_tree: %s\n", e.what());
    return 1;
  }
  const fdbench::UniqueFd dir(open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir) {
    std::fprintf(stderr, "open_tree: cannot open %s: %s\n", argv[1], std::strerror(errno));
    return 1;
  }
  const std::vector<std::string> files = regular_files(argv[1]);

  // All of them stay open at once: make sure the limit allows it (64 for what is open already).
  const fdbench::NofileResult limit = fdbench::raise_nofile_limit(files.size() + 64);
  if (limit.error != 0) {
    std::printf("RLIMIT_NOFILE allows %llu: some files will fail with EMFILE\n",
                static_cast<unsigned long long>(limit.soft_after));
  }

  const auto start = std::chrono::steady_clock::now();
  const fdbench::OpenManyResult result =
      fdbench::open_many(dir.get(), files, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, options);
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  if (!result.ok()) {
    std::fprintf(stderr, "open_tree: %s\n", result.message.c_str());
    return 1;
  }

  unsigned long long bytes = 0;
  for (const auto& fd : result.fds) {
    struct stat info {};
    if (fd && fstat(fd.get(), &info) == 0) bytes += static_cast<unsigned long long>(info.st_size);
  }
  std::printf("%zu of %zu files opened in %.2f ms (%s, %d threads, %.0f files/s), %llu bytes\n",
              result.opened(), files.size(), elapsed.count() * 1e3, std::string(fdbench::to_string(options.strategy)).c_str(),
              options.threads, static_cast<double>(files.size()) / elapsed.count(), bytes);
  print_failures(result);
  return 0;
}
