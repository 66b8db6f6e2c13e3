#pragma once
// A result's identity as one typed value: what was measured (strategy, threads, batch, the
// kind of descriptor, pregrow, harness, paths, rcu_expedited), compared and ordered whole.
// Result, compare's keys, findings' subjects and --trace-out's keys hold it or its fields;
// text exists only where a value is read or written (the command line, JSON, the C API),
// through the one to_string() and parse function of each field's type below (or of
// settings.hpp's Pregrow and Harness). Nothing branches on the spelling of any of them.
#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/settings.hpp"

namespace fdbench {

// What one item of a workload creates. The one kind enum: the socket workload's --kind takes
// every one but `file` (engine's SocketKind is this type). Declared in the order of the names,
// so that results order as they did when the kind was their text.
enum class DescriptorKind { eventfd, file, pipe, tcp, tcp6, udp, unix_stream };
// The JSON and command-line spellings: "eventfd", "file", "pipe", "tcp", "tcp6", "udp", "unix".
std::string_view to_string(DescriptorKind kind);
// False if `text` is none of them.
bool parse_descriptor_kind(std::string_view text, DescriptorKind& kind);
// Every kind, in the enum's order.
const std::vector<DescriptorKind>& every_descriptor_kind();

// --paths: how files are named to the kernel: relative to an open directory
// (openat(dir_fd, name)), or by absolute path from the root (open("/dir/N.txt"): the kernel
// walks every component of the path each time). The first seed's program does neither: it
// opens "tmp/N.txt" from the directory above its set (make_published_open_workload).
enum class PathMode { relative, absolute };
// The JSON and command-line spellings: "relative", "absolute".
std::string_view to_string(PathMode mode);
bool parse_path_mode(std::string_view text, PathMode& mode);
std::vector<std::string> path_mode_names();

struct Configuration {
  std::string strategy;  // its name, as the registry, the CLI and JSON spell it; never branched on
  int threads = 1;
  int batch = 1;  // what the result's batch_unit says
  DescriptorKind kind = DescriptorKind::file;
  Pregrow pregrow;  // grown before the clock started, and how far
  Harness harness = Harness::minimal;
  // How an open result's files were named (JSON: its "paths" parameter); nullopt where there
  // are no files, or a document before schema 9 did not say.
  std::optional<PathMode> paths;
  // The value --rcu-expedited set for this result's block of the sweep; nullopt: the machine's
  // own, as the environment records it.
  std::optional<int> rcu_expedited;

  auto operator<=>(const Configuration&) const = default;
};

// The paths as findings and reports name them: where not recorded, "relative" (what every
// strategy did before --paths existed).
[[nodiscard]] PathMode paths_or_relative(const Configuration& config);

}  // namespace fdbench
