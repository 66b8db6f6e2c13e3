#include "model/format.hpp"

#include <fmt/format.h>

#include <cmath>

namespace fdbench {

std::string group_digits(std::uint64_t n) {
  std::string digits = std::to_string(n);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return digits;
}

std::string format_ms(double ns) {
  return fmt::format("{:.2f}", ns / 1e6);
}

std::string format_duration(double ns) {
  if (ns < 1e3) return fmt::format("{:.0f} ns", ns);
  if (ns < 1e4) return fmt::format("{:.1f} µs", ns / 1e3);
  if (ns < 1e6) return fmt::format("{:.0f} µs", ns / 1e3);
  if (ns < 1e7) return fmt::format("{:.2f} ms", ns / 1e6);
  return fmt::format("{:.1f} ms", ns / 1e6);
}

std::string format_rate(double per_sec) {
  return group_digits(static_cast<std::uint64_t>(std::llround(per_sec)));
}

std::string format_percent(double share) {
  const double percent = share * 100;
  if (percent >= 10 || percent == std::floor(percent)) return fmt::format("{:.0f}%", percent);
  if (percent >= 0.1) return fmt::format("{:.1f}%", percent);
  return fmt::format("{:.2g}%", percent);
}

std::string format_ratio(double ratio) {
  return ratio >= 10 ? fmt::format("{:.0f}×", ratio) : fmt::format("{:.1f}×", ratio);
}

std::string thread_count_text(int threads) {
  return fmt::format("{} thread{}", threads, threads == 1 ? "" : "s");
}

std::string threads_text(const Result& r) {
  const int extra = r.runnable_threads - r.threads;
  if (extra == 0) return std::to_string(r.threads);
  return fmt::format("{} ({:+})", r.threads, extra);
}

std::string shell_quoted(const std::vector<std::string>& words) {
  std::string line;
  for (const auto& word : words) {
    if (!line.empty()) line += ' ';
    const bool safe = !word.empty() && word.find_first_not_of(
                                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789-_./=:,+@%") == std::string::npos;
    if (safe) {
      line += word;
      continue;
    }
    line += '\'';
    for (const char c : word) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

}  // namespace fdbench
