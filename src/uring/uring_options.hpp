#pragma once
// How the io_uring strategies set up their rings (--uring-tuning) and retire direct
// descriptors (--uring-close). Plain data: the CLI fills it in, the strategies read it.
#include <string>
#include <vector>

namespace fdbench {

struct UringOptions {
  // The best setup flags the kernel accepts (SINGLE_ISSUER|DEFER_TASKRUN, else COOP_TASKRUN),
  // or none of them: the kernel's defaults.
  bool setup_flags = true;
  // Each thread registers its ring's descriptor, so io_uring_enter skips the fd lookup.
  bool register_ring_fd = true;
  // uring-direct's open+close: each close linked behind its open, the pairs in one submission;
  // or a submission of opens, then one of closes for the slots that opened. Measured alike
  // here (docs/performance.md), so the default stays the one io_uring_enter per batch.
  enum class Close { batched, linked } close = Close::linked;
};

// --uring-tuning: all, flags, ring-fd or none (the features of UringOptions it turns on).
std::vector<std::string> uring_tuning_names();
bool parse_uring_tuning(const std::string& text, UringOptions& out);
// The --uring-tuning value that sets `options`' features: "all", "flags", "ring-fd", "none".
std::string uring_tuning_name(const UringOptions& options);
// --uring-close: batched or linked.
std::vector<std::string> uring_close_names();
bool parse_uring_close(const std::string& text, UringOptions::Close& out);
std::string to_string(UringOptions::Close close);

}  // namespace fdbench
