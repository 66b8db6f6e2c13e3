// What --kernel-trace saw: the table's growth as the kernel recorded it, the largest cause of
// time off the CPU in the work, and whether io_uring ran its requests inline.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "analysis/finding_parts.hpp"
#include "model/format.hpp"

namespace fdbench::findings_parts {

namespace {

std::string kernel_thread_words(int threads) {
  return threads == 1 ? std::string("the thread") : fmt::format("the {} threads", threads);
}

std::string kernel_off_cpu_text(const KernelEvidence& k) {
  return fmt::format("{} {} off their CPU {} of {} × {} per repetition",
                     kernel_thread_words(k.threads), k.threads == 1 ? "was" : "were",
                     format_duration(static_cast<double>(k.off_cpu_ns)), k.threads,
                     format_duration(static_cast<double>(k.window_ns)));
}

std::string kernel_cause_text(const KernelEvidence& k, OffCpuCause c) {
  return fmt::format("{} {}",
                     format_duration(static_cast<double>(k.off_cpu[static_cast<std::size_t>(c)])),
                     cause_words(c));
}

// The stall as the kernel saw it, where a pregrow=off result was traced: its time growing the
// table and waiting on that, and none once the table was grown first.
ClaimedFinding kernel_growth_line(const Result& off, const Result* grown, const Naming& naming) {
  const KernelEvidence& k = *off.kernel;
  const auto growth = static_cast<std::size_t>(OffCpuCause::fd_table_growth);
  const auto waiting = static_cast<std::size_t>(OffCpuCause::waiting_on_growth);
  const std::string rcu = naming.unnamed_rcu(off);
  std::string text = fmt::format(
      "Kernel evidence, `{}` with {} (pregrow {}{}): {}: {} in {} RCU grace period growing the "
      "descriptor table (synchronize_rcu{} from expand_files), {}.",
      off.config.strategy, naming.workers_but_pregrow(off), off.config.pregrow.label(),
      rcu.empty() ? std::string() : ", rcu_expedited=" + rcu, kernel_off_cpu_text(k),
      format_duration(static_cast<double>(k.off_cpu[growth])),
      k.grace_period.empty() ? std::string("an")
                             : (k.grace_period == "expedited" ? "an " : "a ") + k.grace_period,
      k.grace_period == "expedited" ? "_expedited" : "",
      kernel_cause_text(k, OffCpuCause::waiting_on_growth));
  std::map<std::string, FindingNumber> numbers = {{"off_cpu_ns", k.off_cpu_ns},
                                                  {"window_ns", k.window_ns},
                                                  {"threads", k.threads},
                                                  {"fd_table_growth_ns", k.off_cpu[growth]},
                                                  {"waiting_on_growth_ns", k.off_cpu[waiting]}};
  std::vector<FindingSubject> subjects = {subject(off, "not-pregrown")};
  std::vector<FindingClaim> claims = {{ClaimKind::kernel_growth, 0, 0}};
  if (grown != nullptr && kernel_traced(*grown) && kernel_growth_ns(*grown->kernel) == 0) {
    text.pop_back();
    text += fmt::format("; with the table grown first (pregrow {}), none.",
                        grown->config.pregrow.label());
    subjects.push_back(subject(*grown, "pregrown"));
    claims.push_back({ClaimKind::kernel_no_growth, 1, 1});
  }
  return {{"kernel_growth", std::move(text), std::move(numbers), std::move(subjects)},
          std::move(claims)};
}

// The stall as the kernel saw it, one line per traced result from the starting table (with its
// first pre-grown twin); the results it explains.
Results growth_lines(const Results& all, const Naming& naming, Findings& out) {
  Results explained;
  for (const auto& p : growth_pairs(all)) {
    // One line per result, with its first pre-grown twin.
    if (std::find(explained.begin(), explained.end(), p.off) != explained.end()) continue;
    if (kernel_traced(*p.off) && kernel_growth_ns(*p.off->kernel) > 0) {
      out.push_back(kernel_growth_line(*p.off, p.grown, naming));
      explained.push_back(p.off);
    }
  }
  return explained;
}

// The traced result (not explained by a growth line) whose threads were off their CPU in the
// work for the largest share of their time, from kLargeOffCpuShare; nullptr if none.
const Result* most_off_cpu(const Results& all, const Results& explained) {
  const Result* most = nullptr;
  double most_share = 0;
  for (const Result* r : all) {
    if (!kernel_traced(*r) || std::find(explained.begin(), explained.end(), r) != explained.end()) {
      continue;
    }
    // What the work waited for: the time waiting to start or done is left out.
    const double share = kernel_work_share(*r->kernel);
    if (share >= kLargeOffCpuShare && share > most_share) {
      most = r;
      most_share = share;
    }
  }
  return most;
}

// That result's largest cause, in words (and the hypervisor's steal time where preempted).
ClaimedFinding off_cpu_line(const Result& r, const Naming& naming) {
  const double most_share = kernel_work_share(*r.kernel);
  const KernelEvidence& k = *r.kernel;
  OffCpuCause top = OffCpuCause::other;
  for (const OffCpuCause c : kEveryOffCpuCause) {
    if (k.in_work(c) > k.in_work(top)) top = c;
  }
  const std::string cause =
      fmt::format("{} {}", format_duration(static_cast<double>(k.in_work(top))), cause_words(top));
  std::string text =
      k.at_edges_ns == 0
          ? fmt::format("Kernel evidence, `{}` with {}: {} ({} of their time), most of it {}",
                        r.config.strategy, naming.workers(r), kernel_off_cpu_text(k),
                        format_percent(most_share), cause)
          : fmt::format(
                "Kernel evidence, `{}` with {}: {}, {} of it waiting to start or done; of the "
                "other {} ({} of their time), most was {}",
                r.config.strategy, naming.workers(r), kernel_off_cpu_text(k),
                format_duration(static_cast<double>(k.at_edges_ns)),
                format_duration(static_cast<double>(k.in_work_ns())), format_percent(most_share),
                cause);
  if (top == OffCpuCause::other && !k.other_stacks.empty()) {
    text += fmt::format(" (mostly {})", k.other_stacks.front().stack);
  }
  std::map<std::string, FindingNumber> numbers = {{"off_cpu_ns", k.off_cpu_ns},
                                                  {"window_ns", k.window_ns},
                                                  {"threads", k.threads},
                                                  {"share", most_share},
                                                  {"cause_ns", k.in_work(top)}};
  if (k.at_edges_ns != 0) numbers["at_edges_ns"] = k.at_edges_ns;
  // Preempted is the guest's scheduler; what a hypervisor takes switches no thread out and
  // counts as time on the CPU: its steal time says how much, where the machine reports it.
  if (top == OffCpuCause::preempted && k.steal_ns) {
    if (k.steal_reported) {
      text += fmt::format(
          "; besides, the hypervisor took {} per repetition from the machine's "
          "CPUs (steal time), which the threads see as time on their CPU",
          format_duration(static_cast<double>(*k.steal_ns)));
      numbers["steal_ns"] = *k.steal_ns;
    } else {
      text +=
          "; this machine reports no steal time, so whatever the hypervisor took counts "
          "as time on their CPU";
    }
  }
  return {{"kernel_off_cpu", text + ".", std::move(numbers), {subject(r, "off-cpu")}},
          {{ClaimKind::kernel_off_cpu, 0, 0}}};
}

// io_uring: whether its requests ran inline or were handed to io-wq's threads, said once for
// the results that punted none and once for each that punted some.
void io_wq_lines(const Results& all, const Naming& naming, Findings& out) {
  std::vector<FindingSubject> inline_only;
  for (const Result* r : all) {
    if (!kernel_traced(*r) || !r->kernel->io_uring_punts || !r->parameters.contains("ring_setup")) {
      continue;
    }
    const std::uint64_t punts = *r->kernel->io_uring_punts;
    if (punts == 0) {
      inline_only.push_back(subject(*r, "io_uring"));
      continue;
    }
    out.push_back({{"kernel_io_wq",
                    fmt::format("Kernel evidence, `{}` with {}: {} of its {} io_uring requests "
                                "per repetition were punted to io-wq's threads.",
                                r->config.strategy, naming.workers(*r), group_digits(punts),
                                group_digits(r->ops)),
                    {{"io_uring_punts", punts}, {"ops", r->ops}},
                    {subject(*r, "io_uring")}},
                   {}});
  }
  if (!inline_only.empty()) {
    const std::size_t n = inline_only.size();
    std::vector<std::string> names;
    for (const auto& s : inline_only) {
      const std::string name = "`" + s.config.strategy + "`";
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    out.push_back({{"kernel_io_wq",
                    fmt::format("Kernel evidence: no io_uring request was punted to io-wq in {} "
                                "({}): every one ran inline, in the thread that submitted it.",
                                n == 1 ? std::string("the io_uring result")
                                       : fmt::format("any of the {} io_uring results", n),
                                fmt::join(names, ", ")),
                    {{"io_uring_punts", 0}, {"results", n}},
                    std::move(inline_only)},
                   {}});
  }
}

}  // namespace

void kernel_findings(std::span<const Result> results, std::string_view workload,
                     const Naming& naming, Findings& out) {
  const Results all = select(results, workload);
  const Results explained = growth_lines(all, naming, out);
  if (const Result* most = most_off_cpu(all, explained)) {
    out.push_back(off_cpu_line(*most, naming));
  }
  io_wq_lines(all, naming, out);
}

}  // namespace fdbench::findings_parts
