#include "model/format.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace fdbench {

std::string group_digits(std::uint64_t n) {
  std::string digits = std::to_string(n);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return digits;
}

std::string format_count_average(double mean) {
  return mean == std::floor(mean) ? fmt::format("{:.0f}", mean) : fmt::format("{:.1f}", mean);
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

double shown_percent(double share) {
  const std::string text = format_percent(share);
  double percent = 0;
  std::from_chars(text.data(), text.data() + text.size() - 1, percent);  // "…%": C locale
  return percent;
}

std::string format_ratio(double ratio) {
  return ratio >= 10 ? fmt::format("{:.0f}×", ratio) : fmt::format("{:.1f}×", ratio);
}

std::string thread_count_text(int threads) {
  return fmt::format("{} thread{}", threads, threads == 1 ? "" : "s");
}

std::string worker_count_text(WorkerKind workers, int count) {
  switch (workers) {
    case WorkerKind::processes:
      return fmt::format("{} process{}", count, count == 1 ? "" : "es");
    case WorkerKind::threads:
      break;
  }
  return thread_count_text(count);
}

std::string threads_text(const Result& r) {
  const int extra = r.runnable_threads - r.config.threads;
  if (extra == 0) return std::to_string(r.config.threads);
  return fmt::format("{} ({:+})", r.config.threads, extra);
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

namespace {

// The length of the valid UTF-8 sequence that starts `text` at `i`, or 0. Overlong forms,
// surrogates and code points beyond U+10FFFF are not valid.
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  char32_t code = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2, code = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3, code = lead & 0x0F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4, code = lead & 0x07;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  if ((length == 3 && code < 0x800) || (length == 4 && code < 0x10000) || code > 0x10FFFF ||
      (code >= 0xD800 && code <= 0xDFFF)) {
    return 0;
  }
  if (code >= 0x80 && code <= 0x9F) return 0;  // C1 controls (0x9B starts a terminal command)
  return length;
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      ++i;
    } else if (const std::size_t n = c >= 0x80 ? utf8_length(text, i) : 0; n > 0) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    }
  }
  return out;
}

std::size_t display_width(std::string_view text) {
  std::size_t n = 0;
  for (const char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

std::string wrapped(std::string_view line, std::size_t columns) {
  std::size_t indent = line.find_first_not_of(' ');
  if (indent == std::string_view::npos) return std::string(line) + "\n";
  const std::size_t hang = indent + 2;
  std::string out;
  std::string_view rest = line;
  std::string lead;  // the continuation's indentation, once the first line is out
  while (display_width(lead) + display_width(rest) > columns) {
    // The last space that keeps the line within `columns`, past the indentation.
    std::size_t cut = std::string_view::npos;
    std::size_t width = display_width(lead);
    for (std::size_t i = 0; i < rest.size() && width <= columns; ++i) {
      if (rest[i] == ' ' && i > indent) cut = i;
      width += (static_cast<unsigned char>(rest[i]) & 0xC0) != 0x80 ? 1 : 0;
    }
    if (cut == std::string_view::npos) break;  // one long word: left whole
    out += lead;
    out.append(rest.substr(0, cut));
    out += '\n';
    rest = rest.substr(cut + 1);
    lead.assign(hang, ' ');
    indent = 0;  // `rest` has no indentation of its own
  }
  return out + lead + std::string(rest) + "\n";
}

}  // namespace fdbench
