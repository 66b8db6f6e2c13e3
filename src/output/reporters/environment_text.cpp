// The machine in one line, shared by the human-readable reporters.
#include "output/reporters/environment_text.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>

#include "model/format.hpp"

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

// "[0.5,0.25,0.125]" -> "0.50, 0.25, 0.13 (1, 5, 15 min)".
std::string load_text(const nlohmann::json& a) {
  if (!a.is_array() || a.size() != 3) return {};
  for (const auto& x : a) {
    if (!x.is_number()) return {};
  }
  return fmt::format("{:.2f}, {:.2f}, {:.2f} (1, 5, 15 min)", a[0].get<double>(),
                     a[1].get<double>(), a[2].get<double>());
}

// {"some_avg10":1.5,"some_avg60":0.75,...} -> "some task waited for a CPU 1.5% of the last
// 10 s, 0.8% of the last 60 s".
std::string pressure_text(const nlohmann::json& p) {
  if (!p.is_object() || !p.contains("some_avg10") || !p.contains("some_avg60") ||
      !p["some_avg10"].is_number() || !p["some_avg60"].is_number()) {
    return {};
  }
  return fmt::format("some task waited for a CPU {:.1f}% of the last 10 s, {:.1f}% of the last 60 s",
                     p["some_avg10"].get<double>(), p["some_avg60"].get<double>());
}

// A number of bytes in binary units: "23.5 GiB".
std::string bytes_text(double bytes) {
  constexpr std::string_view kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  std::size_t unit = 0;
  while (bytes >= 1024 && unit + 1 < std::size(kUnits)) {
    bytes /= 1024;
    ++unit;
  }
  return unit == 0 ? fmt::format("{:.0f} bytes", bytes) : fmt::format("{:.1f} {}", bytes, kUnits[unit]);
}

// The field's value in words, or "" where `raw` is not what the field holds.
std::string value_in_words(std::string_view field, const std::string& raw) {
  const auto value = nlohmann::json::parse(raw, nullptr, false);
  if (value.is_discarded()) return {};
  if (field == "context.load.load_average") return load_text(value);
  if (field == "context.load.cpu_pressure") return pressure_text(value);
  if (!value.is_number() || !(value.get<double>() >= 0)) return {};
  const double x = value.get<double>();
  if (field == "syscall_ns") return format_duration(x);
  if (field == "memory_bytes") return bytes_text(x);
  if (field == "cpu_quota") return fmt::format("{:.2g} CPUs", x);
  return {};
}

}  // namespace

std::string environment_value_text(std::string_view field, const std::string& raw) {
  std::string words = value_in_words(field, raw);
  return words.empty() ? raw : words;
}

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
