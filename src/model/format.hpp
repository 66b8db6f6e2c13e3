#pragma once
// Number and text formatting shared by the human-readable outputs.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.hpp"

namespace fdbench {

// 1234567 -> "1,234,567"
std::string group_digits(std::uint64_t n);
// An average of a count: "18" where it is whole, else one decimal ("7.1"). A sentence that says
// one says "on average" and what it averages over: a count itself is always whole.
std::string format_count_average(double mean);
// nanoseconds -> milliseconds with 2 decimals ("25.31")
std::string format_ms(double ns);
// nanoseconds -> a short duration: "850 ns", "3.3 µs", "299 µs", "12.4 ms"
std::string format_duration(double ns);
// a rate rounded to a whole number with digit groups ("412,300")
std::string format_rate(double per_sec);
// a share as a percentage: 0.03 -> "3%", 0.021 -> "2.1%", 0.0004 -> "0.04%"
std::string format_percent(double share);
// The percentage format_percent() shows, as a number (0.104 → 10; 0.0996 → 10.0; 0.012 → 1.2):
// what a rule that a reader checks against the text must compare.
double shown_percent(double share);
// a ratio as "2.3×"
std::string format_ratio(double ratio);
// A number of threads in words: "1 thread", "2 threads".
std::string thread_count_text(int threads);
// A number of workers as what they are: "2 threads", or "1 process", "2 processes".
std::string worker_count_text(WorkerKind workers, int count);
// A result's thread count as the tables show it: "2", or "2 (+1)" when more threads or
// processes than that can be on a CPU during the timed region (runnable_threads).
std::string threads_text(const Result& r);

// `text` safe to print on a terminal as one line: every control byte (a newline, ESC, BEL, the
// C1 controls), and every byte that is not part of valid UTF-8, as \xNN; the rest as it is.
// For messages that echo what a file or an argument held.
std::string printable(std::string_view text);

// How many columns `text` takes on a terminal: one per character (UTF-8 code point). The
// tables' characters (±, –, →, µ, ·) are each one column wide.
std::size_t display_width(std::string_view text);
// One line broken at spaces into lines of at most `columns` columns, each ending in '\n'; a
// continuation is indented two columns past the line's own indentation (so under the text of
// a "- " or "! " line), so a wrapped sentence reads as one. A word longer than the width stays
// whole.
std::string wrapped(std::string_view line, std::size_t columns);

// A command line as a POSIX shell would take it back: each word as it is where that is safe,
// else in single quotes (fdbench open --dir '/tmp/a b').
std::string shell_quoted(const std::vector<std::string>& words);

}  // namespace fdbench
