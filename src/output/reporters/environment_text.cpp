// The machine in one line, shared by the human-readable reporters.
#include "output/reporters/environment_text.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

namespace fdbench {

namespace {

// "Mitigation: Retpolines; STIBP: disabled" -> "Retpolines"; "Not affected" -> "not affected".
std::string brief_mitigation(const std::string& status) {
  constexpr std::string_view kPrefix = "Mitigation: ";
  std::string brief = status.substr(0, status.find(';'));
  if (brief.rfind(kPrefix, 0) == 0) return brief.substr(kPrefix.size());
  if (!brief.empty()) {
    brief[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(brief[0])));
  }
  return brief;
}

// What a syscall costs here and why: the hypervisor and the mitigations that tax each one.
std::string cost_text(const Environment& env) {
  std::string text;
  if (env.syscall_ns) {
    text += *env.syscall_ns < 1000 ? fmt::format(" · syscall {:.0f} ns", *env.syscall_ns)
                                   : fmt::format(" · syscall {:.2f} µs", *env.syscall_ns / 1000);
  }
  if (env.virtualization == "none") {
    text += " · no hypervisor";
  } else if (env.virtualization != "unknown") {
    text += " · VM " + env.virtualization;
  }
  std::string mitigations;
  for (const char* name : {"meltdown", "spectre_v2"}) {
    if (const auto it = env.cpu_mitigations.find(name); it != env.cpu_mitigations.end()) {
      mitigations += fmt::format("{}{}: {}", mitigations.empty() ? "" : ", ", name,
                                 brief_mitigation(it->second));
    }
  }
  if (!mitigations.empty()) text += " · " + mitigations;
  return text;
}

// Shown only when the process may use less than the whole machine.
std::string cpu_budget_text(const Environment& env) {
  std::string text;
  if (env.cpus_allowed && *env.cpus_allowed < env.logical_cpus) {
    text += fmt::format(" · {} of them allowed", *env.cpus_allowed);
  }
  if (env.cpu_quota) {
    text += fmt::format(" · cgroup quota {} CPUs", std::round(*env.cpu_quota * 100) / 100);
  }
  return text;
}

}  // namespace

std::string environment_summary(const Environment& env) {
  std::string text =
      fmt::format("{} {} · {} · {} logical CPUs", env.os, env.kernel, env.cpu_model,
                  env.logical_cpus) +
      cpu_budget_text(env) +
      fmt::format(" · RLIMIT_NOFILE {}/{}", env.rlimit_nofile.soft, env.rlimit_nofile.hard);
  if (env.fdsize_at_start) text += fmt::format(" · FDSize {} at start", *env.fdsize_at_start);
  if (env.rcu_expedited) text += fmt::format(" · rcu_expedited={}", *env.rcu_expedited);
  return text + cost_text(env);
}

}  // namespace fdbench
