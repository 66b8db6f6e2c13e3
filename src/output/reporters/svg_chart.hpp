#pragma once
// Charts as inline SVG, for the HTML report: lines over categories (files/s against threads,
// one line per strategy), grouped bars (pregrow off against auto, or one bar per machine),
// per-call events, and stacked horizontal bars (off-CPU time by cause). Every value may carry
// a min-max whisker. The y axis is logarithmic where the values span more than kLogSpan (a
// linear one would squeeze the slow ones into its bottom), and the chart says which. The
// legend, with the reference line's label, sits beside the plot, so no label covers a line or
// a point. Pure: data in, markup out; the markup needs no script and no font beyond the
// page's own.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fdbench::svg {

struct Value {
  double mid = 0;  // the median
  double low = 0;  // whisker ends (min-max)
  double high = 0;
  std::string tip;  // a tooltip (<title>): what the value is, in words
};

struct Series {
  std::string name;
  std::vector<std::optional<Value>> values;  // one per category; nullopt: no such result
  std::string colour;       // e.g. strategy_colour(); empty: the chart's palette, by position
  std::size_t variant = 0;  // lines of one colour told apart by their dashes (0: solid)
};

struct Chart {
  std::string id;     // data-chart attribute: what the test and the reader look for
  std::string title;  // above the chart
  std::string y_label;
  std::string x_label;
  std::vector<std::string> categories;  // x axis (lines) or groups (bars)
  std::vector<Series> series;
  std::optional<double> reference;  // a dashed horizontal line, e.g. the seed's loop
  std::string reference_label;
};

// Per-call events of one repetition (--latency): one lane per worker, the descriptor number
// across, a diamond where a call grew the table and a circle where one stalled (larger for
// longer), coloured by the stall's cause.
struct Mark {
  double fd = 0;
  std::size_t lane = 0;
  double ns = 0;
  enum class Kind { growth, stall } kind = Kind::growth;  // a call that grew the table, or stalled
  // A stall's cause (Stall::cause): "fd-table-growth", "waiting-on-growth", "unexplained", or
  // with --kernel-trace an off-CPU cause or "on-cpu". A growth is drawn in fd-table-growth's.
  std::string cause;
  std::string tip;
};

struct EventChart {
  std::string id;
  std::string title;
  std::vector<std::string> lanes;  // "worker 0", ...
  double fd_max = 1;
  std::vector<Mark> marks;
};

// Horizontal bars split into parts (--kernel-trace: a result's off-CPU time by cause). Each
// bar is drawn to its own whole (the time its threads had in the timed region), so its parts
// read as shares of it; what no part covers is left light. A bar's label is written above it,
// the keys' legend beside the bars, and a shared axis in percent below them.
struct Part {
  double value = 0;  // in the bar's unit; parts beyond its whole are cut at its end
  std::string tip;
};

struct StackedBar {
  std::string label;        // above the bar: what it is ...
  std::string figures;      // ... and after a colon, or on a line of their own, its figures
  std::vector<Part> parts;  // one per key, in the keys' order
  double whole = 1;         // the bar's full length, in its parts' unit
  std::string tip;          // over the whole bar
};

struct StackKey {
  std::string name;
  std::string colour;
};

struct StackedChart {
  std::string id;
  std::string title;
  std::string x_label;
  std::vector<StackKey> keys;
  std::string rest;  // the legend's words for what no part covers
  std::vector<StackedBar> bars;
};

// Medians (and the reference) spanning more than this ratio get a log axis.
constexpr double kLogSpan = 5;

// The colour a strategy is drawn in, the same in every chart of every report: a fixed one for
// each of the registry's strategies (Okabe-Ito, which colour-blind readers can tell apart), and
// for any other name (a document of another version) one picked by a hash of the name from
// further colours, never one of those.
std::string strategy_colour(std::string_view strategy);

// The colour an off-CPU cause (cause_name(): "fd-table-growth", ...) is drawn in, the same
// in the stacked bars and the event charts: Okabe-Ito's, told apart by colour-blind readers
// too, with black for preempted, olive for a stall on its CPU most of the call (on-cpu) and
// grey for other (and anything unknown, such as an unexplained stall).
std::string cause_colour(std::string_view cause);

// Whether `chart` gets a log y axis: its medians and reference span more than kLogSpan.
bool log_axis(const Chart& chart);

std::string line_chart(const Chart& chart);
std::string bar_chart(const Chart& chart);
std::string event_chart(const EventChart& chart);
std::string stacked_bar_chart(const StackedChart& chart);

// Text made safe for HTML and SVG content and attributes.
std::string escape(const std::string& text);

}  // namespace fdbench::svg
