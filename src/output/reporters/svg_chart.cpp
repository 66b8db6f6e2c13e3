#include "output/reporters/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>
#include <utility>

#include "model/format.hpp"
#include "model/kernel_evidence.hpp"

namespace fdbench::svg {

namespace {

// One chart's geometry: a plot area with room for the axis labels and the legend.
constexpr double kWidth = 800;
constexpr double kHeight = 340;
constexpr double kTiltedHeight = 430;    // room for category labels written at a slant
constexpr std::size_t kMostUpright = 6;  // more categories than this: slanted labels
constexpr double kLeft = 78;
constexpr double kRight = 590;  // the legend is to the right of this
constexpr double kTop = 20;
constexpr double kBottom = 290;
constexpr double kLane = 46;  // an event chart's height per worker
// 7 px a character is wider than the page's 12 px sans-serif draws almost any text: what the
// legend's lines and the categories' labels are fitted with.
constexpr double kCharWidth = 7;
// The legend: a swatch, then its text, wrapped to what fits before the right edge.
constexpr double kSwatchX = kRight + 14;
constexpr double kKeyTextX = kRight + 38;
constexpr double kLegendLine = 16;

// For series that are not strategies (pregrow settings, runs), by position: Paul Tol's muted
// colours, none of them a strategy's.
constexpr const char* kPalette[] = {"#332288", "#44AA99", "#CC6677", "#882255",
                                    "#88CCEE", "#117733", "#AA4499", "#DDCC77"};
// Dashes that tell apart lines of one colour (one strategy at several batches).
constexpr const char* kDashes[] = {"", "7 4", "2 3", "10 3 2 3"};

std::string series_colour(const Series& series, std::size_t position) {
  return series.colour.empty() ? kPalette[position % std::size(kPalette)] : series.colour;
}

std::string dash_attribute(const Series& series) {
  const char* dash = kDashes[series.variant % std::size(kDashes)];
  return *dash == '\0' ? "" : fmt::format(" stroke-dasharray=\"{}\"", dash);
}

// 1, 2 or 5 times a power of ten, at least `raw`.
double nice_step(double raw) {
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0}) {
    if (m * power >= raw) return m * power;
  }
  return 10 * power;
}

// The largest 1, 2 or 5 times a power of ten at most `v` (> 0).
double log_tick_at_or_below(double v) {
  const double power = std::pow(10.0, std::floor(std::log10(v)));
  for (const double m : {5.0, 2.0}) {
    if (m * power <= v) return m * power;
  }
  return power;
}

std::string compact(double v) {
  if (std::fabs(v) >= 1e6) return fmt::format("{:.3g}M", v / 1e6);
  if (std::fabs(v) >= 1e3) return fmt::format("{:.3g}k", v / 1e3);
  return fmt::format("{:.3g}", v);
}

struct Scale {
  bool log = false;
  double bottom = 0;  // the values at the bottom and the top of the plot
  double top = 1;
  std::vector<double> ticks;

  [[nodiscard]] double y(double v) const {
    if (!log) return kBottom - (kBottom - kTop) * v / top;
    const double at = std::clamp(v, bottom, top);  // a zero (no time measured) sits on the axis
    return kBottom - (kBottom - kTop) * std::log10(at / bottom) / std::log10(top / bottom);
  }
};

// The medians and the reference: what the lines and bars draw.
std::vector<double> plotted_values(const Chart& chart) {
  std::vector<double> out;
  if (chart.reference) out.push_back(*chart.reference);
  for (const auto& series : chart.series) {
    for (const auto& v : series.values) {
      if (v) out.push_back(v->mid);
    }
  }
  return out;
}

// From 1, 2 and 5 times each power of ten around the values; over more than four decades
// the powers of ten alone, so that the ticks' labels keep apart.
Scale log_scale(double least, double most) {
  Scale s{true, log_tick_at_or_below(least / 1.1), nice_step(most * 1.1), {}};
  const bool decades_only = std::log10(s.top / s.bottom) > 4;
  if (decades_only) {
    s.bottom = std::pow(10.0, std::floor(std::log10(s.bottom)));
    s.top = std::pow(10.0, std::ceil(std::log10(s.top)));
  }
  for (int k = static_cast<int>(std::floor(std::log10(s.bottom)));
       k <= static_cast<int>(std::ceil(std::log10(s.top))); ++k) {
    for (const double m : {1.0, 2.0, 5.0}) {
      const double tick = m * std::pow(10.0, k);
      if ((m == 1.0 || !decades_only) && tick >= s.bottom * (1 - 1e-9) &&
          tick <= s.top * (1 + 1e-9)) {
        s.ticks.push_back(tick);
      }
    }
  }
  return s;
}

Scale scale_for(const Chart& chart) {
  double least = std::numeric_limits<double>::infinity();
  double most = chart.reference.value_or(0);
  if (chart.reference && *chart.reference > 0) least = *chart.reference;
  for (const auto& series : chart.series) {
    for (const auto& v : series.values) {
      if (!v) continue;
      most = std::max({most, v->high, v->mid});
      for (const double end : {v->low, v->mid}) {
        if (end > 0) least = std::min(least, end);
      }
    }
  }
  if (log_axis(chart)) return log_scale(least, most);
  if (!(most > 0)) most = 1;
  const double step = nice_step(most / 5);
  Scale s{false, 0, step * std::ceil(most * 1.05 / step), {}};
  for (double v = 0; v <= s.top + step / 2; v += step) s.ticks.push_back(v);
  return s;
}

double category_x(std::size_t i, std::size_t n) {
  return kLeft + (static_cast<double>(i) + 0.5) * (kRight - kLeft) / static_cast<double>(n);
}

// Slanted category labels: many categories, or one label wider than its share of the axis
// (upright, neighbours would run into each other).
bool tilted(const Chart& chart) {
  if (chart.categories.size() > kMostUpright) return true;
  const double band =
      (kRight - kLeft) / static_cast<double>(std::max<std::size_t>(chart.categories.size(), 1));
  return std::any_of(chart.categories.begin(), chart.categories.end(), [&](const auto& label) {
    return static_cast<double>(label.size()) * kCharWidth > band - 6;
  });
}

// `text` in lines of at most `limit` bytes (a character takes one or more: never fewer lines
// than it needs), broken at spaces, and inside a word only where it is longer than a line.
std::vector<std::string> wrapped(const std::string& text, std::size_t limit) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t space = text.find(' ', at);
    std::string word = text.substr(at, space == std::string::npos ? std::string::npos : space - at);
    at = space == std::string::npos ? text.size() : space + 1;
    while (word.size() > limit) {  // split, but never inside a UTF-8 sequence
      std::size_t cut = limit;
      while (cut > 1 && (static_cast<unsigned char>(word[cut]) & 0xC0) == 0x80) --cut;
      if (!line.empty()) lines.push_back(std::move(line));
      lines.push_back(word.substr(0, cut));
      line.clear();
      word.erase(0, cut);
    }
    if (!line.empty() && line.size() + 1 + word.size() > limit) {
      lines.push_back(std::move(line));
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

// The legend beside the plot: each series, then the reference line, their names wrapped to
// fit, one below the other. `lines`: line swatches (with the series' dashes), else squares.
struct Legend {
  std::string markup;
  double bottom = kTop;  // below its last line
};

Legend legend_for(const Chart& chart, bool lines) {
  const auto limit = static_cast<std::size_t>((kWidth - 4 - kKeyTextX) / kCharWidth);
  Legend legend;
  double y = kTop + 2;
  const auto entry = [&](const std::string& swatch, const std::string& name) {
    legend.markup += swatch;
    for (const auto& line : wrapped(name, limit)) {
      legend.markup += fmt::format("<text class=\"tick legend\" x=\"{}\" y=\"{:.1f}\">{}</text>\n",
                                   kKeyTextX, y + 10, escape(line));
      y += kLegendLine;
    }
    y += 6;
  };
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    const auto& series = chart.series[k];
    const std::string colour = series_colour(series, k);
    entry(lines ? fmt::format("<line class=\"key\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" "
                              "y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"2.5\"{}/>\n",
                              kSwatchX, kSwatchX + 18, y + 6, y + 6, colour, dash_attribute(series))
                : fmt::format("<rect class=\"key\" x=\"{}\" y=\"{:.1f}\" width=\"12\" "
                              "height=\"12\" fill=\"{}\"/>\n",
                              kSwatchX, y, colour),
          series.name);
  }
  if (chart.reference) {
    entry(fmt::format("<line class=\"key-reference\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" "
                      "y2=\"{:.1f}\" stroke=\"#888888\" stroke-dasharray=\"6 4\"/>\n",
                      kSwatchX, kSwatchX + 18, y + 6, y + 6),
          chart.reference_label);
  }
  legend.bottom = y;
  return legend;
}

std::string open_svg(const Chart& chart, const Scale& s, double height) {
  return fmt::format(
      "<figure><figcaption>{}</figcaption>\n<svg class=\"chart\" data-chart=\"{}\" "
      "data-scale=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" width=\"{}\" "
      "height=\"{}\" role=\"img\" aria-label=\"{}\">\n",
      escape(chart.title), escape(chart.id), s.log ? "log" : "linear", kWidth, height, kWidth,
      height, escape(chart.title));
}

double chart_height(const Chart& chart, const Legend& legend) {
  return std::max(tilted(chart) ? kTiltedHeight : kHeight, legend.bottom + 10);
}

std::string axes(const Chart& chart, const Scale& s) {
  std::string out;
  for (const double v : s.ticks) {
    out += fmt::format(
        "<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>"
        "<text class=\"tick\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
        kLeft, kRight, s.y(v), s.y(v), kLeft - 6, s.y(v) + 4, compact(v));
  }
  for (std::size_t i = 0; i < chart.categories.size(); ++i) {
    const double x = category_x(i, chart.categories.size());
    out += tilted(chart)
               ? fmt::format(
                     "<text class=\"tick\" transform=\"translate({:.1f} {}) rotate(-35)\" "
                     "text-anchor=\"end\">{}</text>\n",
                     x + 4, kBottom + 14, escape(chart.categories[i]))
               : fmt::format(
                     "<text class=\"tick\" x=\"{:.1f}\" y=\"{}\" "
                     "text-anchor=\"middle\">{}</text>\n",
                     x, kBottom + 18, escape(chart.categories[i]));
  }
  // Which axis it is, above the plot where it covers nothing.
  out += fmt::format("<text class=\"tick scale-note\" x=\"{}\" y=\"{}\">{}</text>\n", kLeft,
                     kTop - 7, s.log ? "y axis: log scale" : "y axis: linear scale");
  out += fmt::format(
      "<line class=\"axis\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>"
      "<line class=\"axis\" x1=\"{0}\" x2=\"{3}\" y1=\"{2}\" y2=\"{2}\"/>\n"
      "<text class=\"label\" x=\"{4}\" y=\"{5}\" text-anchor=\"middle\">{6}</text>\n"
      "<text class=\"label\" transform=\"translate(16 {7}) rotate(-90)\" "
      "text-anchor=\"middle\">{8}</text>\n",
      kLeft, kTop, kBottom, kRight, (kLeft + kRight) / 2,
      (tilted(chart) ? kTiltedHeight : kHeight) - 10, escape(chart.x_label), (kTop + kBottom) / 2,
      escape(chart.y_label));
  return out;
}

std::string whisker(double x, const Value& v, const Scale& s, const std::string& stroke) {
  return fmt::format(
      "<path class=\"whisker\" stroke=\"{}\" d=\"M{:.1f} {:.1f}V{:.1f}M{:.1f} {:.1f}h8M{:.1f} "
      "{:.1f}h8\"/>\n",
      stroke, x, s.y(v.low), s.y(v.high), x - 4, s.y(v.low), x - 4, s.y(v.high));
}

// The reference as a dashed line across the plot; its label is in the legend.
std::string reference_line(const Chart& chart, const Scale& s) {
  if (!chart.reference) return "";
  const double y = s.y(*chart.reference);
  return fmt::format(
      "<line class=\"reference\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>\n", kLeft,
      kRight, y, y);
}

std::string tip(const Value& v) {
  return v.tip.empty() ? "" : "<title>" + escape(v.tip) + "</title>";
}

// The cause an event is drawn and keyed as: a growth is the table's, a stall its own.
std::string_view drawn_cause(const Mark& m) {
  return m.kind == Mark::Kind::growth ? cause_name(OffCpuCause::fd_table_growth)
                                      : std::string_view(m.cause);
}

// A growth's fd label: above its diamond (row 0), a row higher (1) where that would meet the
// label before it in its lane, or none (the tooltip still says it) where both would.
constexpr int kNoLabel = -1;
constexpr double kEventLabelRow = 14;

// The row of each mark's label, by the marks' order; stalls have none.
std::vector<int> event_label_rows(const EventChart& chart, const auto& x_of) {
  std::vector<std::size_t> order(chart.marks.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(chart.marks[a].lane, chart.marks[a].fd) <
           std::tie(chart.marks[b].lane, chart.marks[b].fd);
  });
  std::vector<int> rows(chart.marks.size(), kNoLabel);
  std::size_t lane = std::numeric_limits<std::size_t>::max();
  double ends[2] = {};  // the right edge of the last label in each row
  for (const std::size_t i : order) {
    const Mark& m = chart.marks[i];
    if (m.kind != Mark::Kind::growth) continue;
    if (m.lane != lane) {
      lane = m.lane;
      ends[0] = ends[1] = -std::numeric_limits<double>::infinity();
    }
    const double half =
        kCharWidth * static_cast<double>(std::to_string(static_cast<long>(m.fd)).size()) / 2;
    const double x = x_of(m.fd);
    for (const int row : {0, 1}) {
      if (x - half >= ends[row] + 2) {
        rows[i] = row;
        ends[row] = x + half;
        break;
      }
    }
  }
  return rows;
}

// One event at (x, y): a diamond, labelled with its fd in `row`, where a call grew the table;
// a circle where one stalled.
std::string event_mark(const Mark& m, double x, double y, int row) {
  const std::string title = m.tip.empty() ? "" : "<title>" + escape(m.tip) + "</title>";
  if (m.kind == Mark::Kind::growth) {
    std::string out = fmt::format(
        "<path class=\"growth\" fill=\"{}\" d=\"M{:.1f} {:.1f}l7 9l-7 9l-7 -9z\">{}</path>\n",
        cause_colour(drawn_cause(m)), x, y - 9, title);
    if (row == kNoLabel) return out;
    return out + fmt::format(
                     "<text class=\"tick fd-label\" x=\"{:.1f}\" y=\"{:.1f}\" "
                     "text-anchor=\"middle\">{}</text>\n",
                     x, y - 13 - kEventLabelRow * row, static_cast<long>(m.fd));
  }
  // Larger for longer: 3 px at the 200 µs floor, 3 more per tenfold.
  const double r = 3 + 3 * std::log10(std::max(m.ns, 2e5) / 2e5);
  return fmt::format(
      "<circle class=\"stall\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" fill=\"{}\" "
      "fill-opacity=\"0.6\">{}</circle>\n",
      x, y, r, cause_colour(drawn_cause(m)), title);
}

// What a stall's cause is called in the events' key (SVG text: an unknown name escaped).
std::string stall_key_text(const std::string& cause) {
  static constexpr std::pair<std::string_view, std::string_view> kKeys[] = {
      {"waiting-on-growth", "stall: waiting on another worker's growth"},
      {"unexplained", "stall: unexplained"},
      {"io_uring-wait", "stall: waiting for io_uring completions"},
      {"io-wq", "stall: waiting on io-wq"},
      {"page-fault", "stall: in a page fault"},
      {"lock", "stall: on a lock, or waiting for work"},
      {"preempted", "stall: preempted"},
      {"other", "stall: off its CPU elsewhere in the kernel"},
      {"on-cpu", "stall: on its CPU most of the call"}};
  for (const auto& [name, text] : kKeys) {
    if (name == cause) return std::string(text);
  }
  return escape(cause);
}

constexpr double kEventKeyRow = 20;
constexpr std::size_t kEventKeysPerRow = 3;

// The events' key: what the marks are and nothing else, a growth (and a stall growing the
// table) first, then the stall causes inferred from timing, then any other (kernel) cause.
std::vector<std::string> event_key_causes(const EventChart& chart) {
  const auto drawn = [&](std::string_view cause) {
    return std::any_of(chart.marks.begin(), chart.marks.end(),
                       [&](const Mark& m) { return drawn_cause(m) == cause; });
  };
  std::vector<std::string> causes;
  for (const char* cause : {"fd-table-growth", "waiting-on-growth", "unexplained"}) {
    if (drawn(cause)) causes.emplace_back(cause);
  }
  for (const Mark& m : chart.marks) {
    if (m.kind == Mark::Kind::stall &&
        std::find(causes.begin(), causes.end(), m.cause) == causes.end()) {
      causes.push_back(m.cause);
    }
  }
  return causes;
}

// What the events' colours mean, below the axis at `bottom`, kEventKeysPerRow to a row.
std::string event_key(const std::vector<std::string>& causes, double bottom) {
  constexpr double kKeyX[kEventKeysPerRow] = {10, 330, 600};
  std::string out;
  for (std::size_t k = 0; k < causes.size(); ++k) {
    const double x = kKeyX[k % kEventKeysPerRow];
    const double y = bottom + 50 + kEventKeyRow * static_cast<double>(k / kEventKeysPerRow);
    const std::string text = causes[k] == cause_name(OffCpuCause::fd_table_growth)
                                 ? std::string("grew the table (diamond), or a stall growing it")
                                 : stall_key_text(causes[k]);
    out += fmt::format(
        "<rect class=\"key\" x=\"{}\" y=\"{:.1f}\" width=\"10\" height=\"10\" fill=\"{}\"/>"
        "<text class=\"tick\" x=\"{}\" y=\"{:.1f}\">{}</text>\n",
        x, y, cause_colour(causes[k]), x + 14, y + 9, text);
  }
  return out;
}

// Stacked bars: each bar's label lines above it, the bar, then a gap to the next label.
constexpr double kStackLeft = 10;
constexpr double kStackLabelLine = 15;
constexpr double kStackBar = 16;
constexpr double kStackGap = 12;
constexpr const char* kStackRest = "#EEEEEE";  // what no part covers

// The keys beside the bars, each a square of its colour and its name wrapped to fit, and what
// no part covers last.
Legend stacked_legend(const StackedChart& chart) {
  const auto limit = static_cast<std::size_t>((kWidth - 4 - kKeyTextX) / kCharWidth);
  Legend legend;
  double y = kTop + 2;
  std::vector<StackKey> keys = chart.keys;
  keys.push_back({chart.rest, kStackRest});
  for (const auto& key : keys) {
    legend.markup += fmt::format(
        "<rect class=\"key\" x=\"{}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"{}\" "
        "stroke=\"#999999\" stroke-width=\"0.5\"/>\n",
        kSwatchX, y, key.colour);
    for (const auto& line : wrapped(key.name, limit)) {
      legend.markup += fmt::format("<text class=\"tick legend\" x=\"{}\" y=\"{:.1f}\">{}</text>\n",
                                   kKeyTextX, y + 10, escape(line));
      y += kLegendLine;
    }
    y += 6;
  }
  legend.bottom = y;
  return legend;
}

// Characters as drawn: a UTF-8 sequence ("×", "µ") is one.
std::size_t drawn_chars(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

// A bar's label and its figures on one line where they fit, else each on lines of its own.
std::vector<std::string> bar_label_lines(const StackedBar& bar) {
  const auto limit = static_cast<std::size_t>((kRight - kStackLeft) / kCharWidth);
  const std::string whole = bar.figures.empty() ? bar.label : bar.label + ": " + bar.figures;
  if (drawn_chars(whole) <= limit) return {whole};
  auto lines = wrapped(bar.label + ":", limit);
  for (auto& line : wrapped(bar.figures, limit)) lines.push_back(std::move(line));
  return lines;
}

// One bar at `y`: the whole drawn light, its parts over it from the left, each cut at the end.
std::string stacked_bar(const StackedChart& chart, const StackedBar& bar, double y) {
  const double length = kRight - kStackLeft;
  std::string out = fmt::format(
      "<rect class=\"track\" x=\"{}\" y=\"{:.1f}\" width=\"{}\" height=\"{}\" "
      "fill=\"{}\"><title>{}</title></rect>\n",
      kStackLeft, y, length, kStackBar, kStackRest, escape(bar.tip));
  double at = 0;
  for (std::size_t k = 0; k < bar.parts.size() && k < chart.keys.size(); ++k) {
    const double share = bar.whole > 0 ? std::clamp(bar.parts[k].value / bar.whole, 0.0, 1.0) : 0;
    const double width = std::min(share, 1 - at) * length;
    if (width <= 0) continue;
    out += fmt::format(
        "<rect class=\"bar part\" data-key=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
        "height=\"{}\" fill=\"{}\">{}</rect>\n",
        escape(chart.keys[k].name), kStackLeft + at * length, y, width, kStackBar,
        chart.keys[k].colour,
        bar.parts[k].tip.empty() ? "" : "<title>" + escape(bar.parts[k].tip) + "</title>");
    at += width / length;
  }
  return out;
}

}  // namespace

std::string cause_colour(std::string_view cause) {
  static constexpr std::pair<std::string_view, const char*> kCauses[] = {
      {"fd-table-growth", "#D55E00"}, {"waiting-on-growth", "#E69F00"},
      {"io_uring-wait", "#56B4E9"},   {"io-wq", "#0072B2"},
      {"page-fault", "#CC79A7"},      {"lock", "#009E73"},
      {"preempted", "#000000"},       {"on-cpu", "#999933"}};
  for (const auto& [name, colour] : kCauses) {
    if (name == cause) return colour;
  }
  return "#777777";
}

std::string strategy_colour(std::string_view strategy) {
  // Okabe-Ito's eight, the yellow darkened to be seen on white.
  static constexpr std::pair<std::string_view, const char*> kFixed[] = {
      {"threads", "#0072B2"},      {"pool", "#E69F00"},    {"pool-batch", "#CC79A7"},
      {"fast-pool", "#009E73"},    {"process", "#000000"}, {"uring", "#D55E00"},
      {"uring-direct", "#56B4E9"}, {"libuv", "#A89000"},  {"epoll", "#5D3A9B"},
      {"reuseport", "#B2182B"}};
  for (const auto& [name, colour] : kFixed) {
    if (name == strategy) return colour;
  }
  // FNV-1a: the same on every machine and in every version, unlike std::hash.
  static constexpr const char* kOthers[] = {"#882255", "#117733", "#332288", "#AA4499",
                                            "#44AA99", "#661100", "#CC6677", "#999933"};
  std::uint32_t hash = 2166136261U;
  for (const char c : strategy) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619U;
  return kOthers[hash % std::size(kOthers)];
}

bool log_axis(const Chart& chart) {
  const auto values = plotted_values(chart);
  if (values.empty() || *std::min_element(values.begin(), values.end()) <= 0) return false;
  const auto [least, most] = std::minmax_element(values.begin(), values.end());
  return *most / *least > kLogSpan;
}

std::string escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  // Control bytes (newlines kept) and bytes that are not UTF-8 as \xNN first, as every other
  // format shows them: a page printed to a terminal (--format html) carries no terminal command
  // either.
  std::string shown;
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    shown += printable(std::string_view(text).substr(at, end - at));
    if (end < text.size()) shown += '\n';
    at = end + 1;
  }
  for (const char c : shown) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string line_chart(const Chart& chart) {
  const Scale s = scale_for(chart);
  const Legend legend = legend_for(chart, true);
  const std::size_t n = chart.categories.size();
  std::string out =
      open_svg(chart, s, chart_height(chart, legend)) + axes(chart, s) + reference_line(chart, s);
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    const auto& series = chart.series[k];
    const std::string colour = series_colour(series, k);
    std::string path;
    bool pen_down = false;
    for (std::size_t i = 0; i < series.values.size() && i < n; ++i) {
      if (!series.values[i]) {
        pen_down = false;  // no result here: the line breaks
        continue;
      }
      path += fmt::format("{}{:.1f} {:.1f}", pen_down ? "L" : "M", category_x(i, n),
                          s.y(series.values[i]->mid));
      pen_down = true;
    }
    out += fmt::format("<path class=\"series-line\" stroke=\"{}\"{} d=\"{}\"/>\n", colour,
                       dash_attribute(series), path);
    for (std::size_t i = 0; i < series.values.size() && i < n; ++i) {
      if (!series.values[i]) continue;
      const auto& v = *series.values[i];
      const double x = category_x(i, n);
      out += whisker(x, v, s, colour);
      out += fmt::format(
          "<circle class=\"point\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\">{}</circle>\n",
          x, s.y(v.mid), colour, tip(v));
    }
  }
  return out + legend.markup + "</svg></figure>\n";
}

std::string bar_chart(const Chart& chart) {
  const Scale s = scale_for(chart);
  const Legend legend = legend_for(chart, false);
  const std::size_t n = chart.categories.size();
  const double group = (kRight - kLeft) / static_cast<double>(std::max<std::size_t>(n, 1));
  const double bar =
      group * 0.8 / static_cast<double>(std::max<std::size_t>(chart.series.size(), 1));
  std::string out = open_svg(chart, s, chart_height(chart, legend)) + axes(chart, s);
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    const std::string colour = series_colour(chart.series[k], k);
    for (std::size_t i = 0; i < chart.series[k].values.size() && i < n; ++i) {
      const auto& value = chart.series[k].values[i];
      if (!value) continue;
      const double x =
          kLeft + group * (static_cast<double>(i) + 0.1) + bar * static_cast<double>(k);
      out += fmt::format(
          "<rect class=\"bar\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
          "fill=\"{}\">{}</rect>\n",
          x, s.y(value->mid), bar * 0.92, kBottom - s.y(value->mid), colour, tip(*value));
      out += whisker(x + bar * 0.46, *value, s, "#333333");
    }
  }
  return out + reference_line(chart, s) + legend.markup + "</svg></figure>\n";
}

std::string event_chart(const EventChart& chart) {
  const double bottom =
      kTop + kLane * static_cast<double>(std::max<std::size_t>(chart.lanes.size(), 1));
  const std::vector<std::string> key = event_key_causes(chart);
  const double key_rows = static_cast<double>((key.size() + kEventKeysPerRow - 1) / kEventKeysPerRow);
  const double height = bottom + 70 + kEventKeyRow * (key_rows - 1);
  const double top_fd = std::max(chart.fd_max, 1.0) * 1.05;
  const auto x_of = [&](double fd) { return kLeft + (kRight - kLeft) * fd / top_fd; };
  std::string out = fmt::format(
      "<figure><figcaption>{}</figcaption>\n<svg class=\"chart\" data-chart=\"{}\" "
      "xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" "
      "role=\"img\" aria-label=\"{}\">\n",
      escape(chart.title), escape(chart.id), kWidth, height, kWidth, height, escape(chart.title));
  for (std::size_t i = 0; i < chart.lanes.size(); ++i) {
    const double y = kTop + kLane * (static_cast<double>(i) + 0.5);
    out += fmt::format(
        "<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>"
        "<text class=\"tick\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
        kLeft, kRight, y, y, kLeft - 6, y + 4, escape(chart.lanes[i]));
  }
  const double step = nice_step(top_fd / 6);
  for (double fd = 0; fd <= top_fd; fd += step) {
    out += fmt::format(
        "<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}"
        "</text>\n",
        x_of(fd), bottom + 18, compact(fd));
  }
  out += fmt::format(
      "<line class=\"axis\" x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\"/>\n"
      "<text class=\"label\" x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"middle\">descriptor number "
      "(fd)</text>\n",
      kLeft, kRight, bottom, (kLeft + kRight) / 2, bottom + 40);
  const auto rows = event_label_rows(chart, x_of);
  for (std::size_t i = 0; i < chart.marks.size(); ++i) {
    const Mark& m = chart.marks[i];
    out += event_mark(m, x_of(m.fd), kTop + kLane * (static_cast<double>(m.lane) + 0.5), rows[i]);
  }
  return out + event_key(key, bottom) + "</svg></figure>\n";
}

std::string stacked_bar_chart(const StackedChart& chart) {
  const Legend legend = stacked_legend(chart);
  std::string bars;
  double y = kTop;
  for (const auto& bar : chart.bars) {
    for (const auto& line : bar_label_lines(bar)) {
      bars += fmt::format("<text class=\"tick bar-label\" x=\"{}\" y=\"{:.1f}\">{}</text>\n",
                          kStackLeft, y + 11, escape(line));
      y += kStackLabelLine;
    }
    bars += stacked_bar(chart, bar, y + 2);
    y += 2 + kStackBar + kStackGap;
  }
  // The axis below the bars and the legend both, so that its labels meet neither.
  const double axis = std::max(y, legend.bottom);
  const double height = axis + 46;
  std::string out = fmt::format(
      "<figure><figcaption>{}</figcaption>\n<svg class=\"chart\" data-chart=\"{}\" "
      "xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" "
      "role=\"img\" aria-label=\"{}\">\n",
      escape(chart.title), escape(chart.id), kWidth, height, kWidth, height, escape(chart.title));
  for (const int percent : {0, 25, 50, 75, 100}) {
    const double x = kStackLeft + (kRight - kStackLeft) * percent / 100;
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2:.1f}\"/>"
        "<text class=\"tick\" x=\"{0:.1f}\" y=\"{3:.1f}\" text-anchor=\"{4}\">{5}%</text>\n",
        x, kTop, axis, axis + 16,
        percent == 0     ? "start"
        : percent == 100 ? "end"
                         : "middle",
        percent);
  }
  out += bars;
  out += fmt::format(
      "<line class=\"axis\" x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\"/>\n"
      "<text class=\"label\" x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"middle\">{5}</text>\n",
      kStackLeft, kRight, axis, (kStackLeft + kRight) / 2, axis + 36, escape(chart.x_label));
  return out + legend.markup + "</svg></figure>\n";
}

}  // namespace fdbench::svg
