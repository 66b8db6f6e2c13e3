#include "output/reporters/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace fdbench::svg {

namespace {

// One chart's geometry: a plot area with room for the axis labels and the legend.
constexpr double kWidth = 760;
constexpr double kHeight = 340;
constexpr double kTiltedHeight = 430;    // room for category labels written at a slant
constexpr std::size_t kMostUpright = 6;  // more categories than this: slanted labels
constexpr double kLeft = 78;
constexpr double kRight = 590;  // the legend is to the right of this
constexpr double kTop = 20;
constexpr double kBottom = 290;
constexpr double kLane = 46;  // an event chart's height per worker

// Colours that stay apart for the colour-blind (Okabe-Ito), then greys.
constexpr const char* kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7",
                                    "#56B4E9", "#000000", "#F0E442", "#777777", "#BBBBBB"};

const char* colour(std::size_t i) {
  return kPalette[i % std::size(kPalette)];
}

// 1, 2 or 5 times a power of ten, at least `raw`.
double nice_step(double raw) {
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0}) {
    if (m * power >= raw) return m * power;
  }
  return 10 * power;
}

std::string compact(double v) {
  if (std::fabs(v) >= 1e6) return fmt::format("{:.3g}M", v / 1e6);
  if (std::fabs(v) >= 1e3) return fmt::format("{:.3g}k", v / 1e3);
  return fmt::format("{:.3g}", v);
}

struct Scale {
  double top = 1;  // the value at the top of the plot
  double step = 1;

  [[nodiscard]] double y(double v) const { return kBottom - (kBottom - kTop) * v / top; }
};

Scale scale_for(const Chart& chart) {
  double most = chart.reference.value_or(0);
  for (const auto& series : chart.series) {
    for (const auto& v : series.values) {
      if (v) most = std::max({most, v->high, v->mid});
    }
  }
  if (!(most > 0)) most = 1;
  const double step = nice_step(most / 5);
  return {step * std::ceil(most * 1.05 / step), step};
}

double category_x(std::size_t i, std::size_t n) {
  return kLeft + (static_cast<double>(i) + 0.5) * (kRight - kLeft) / static_cast<double>(n);
}

bool tilted(const Chart& chart) {
  return chart.categories.size() > kMostUpright;
}

std::string open_svg(const Chart& chart) {
  const double height = tilted(chart) ? kTiltedHeight : kHeight;
  return fmt::format(
      "<figure><figcaption>{}</figcaption>\n<svg class=\"chart\" data-chart=\"{}\" "
      "xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" "
      "role=\"img\" aria-label=\"{}\">\n",
      escape(chart.title), escape(chart.id), kWidth, height, kWidth, height, escape(chart.title));
}

std::string axes(const Chart& chart, const Scale& s) {
  std::string out;
  for (double v = 0; v <= s.top + s.step / 2; v += s.step) {
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

std::string whisker(double x, const Value& v, const Scale& s, const char* stroke) {
  return fmt::format(
      "<path class=\"whisker\" stroke=\"{}\" d=\"M{:.1f} {:.1f}V{:.1f}M{:.1f} {:.1f}h8M{:.1f} "
      "{:.1f}h8\"/>\n",
      stroke, x, s.y(v.low), s.y(v.high), x - 4, s.y(v.low), x - 4, s.y(v.high));
}

std::string reference_line(const Chart& chart, const Scale& s) {
  if (!chart.reference) return "";
  const double y = s.y(*chart.reference);
  return fmt::format(
      "<line class=\"reference\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>"
      "<text class=\"tick\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
      kLeft, kRight, y, y, kRight - 4, y - 5, escape(chart.reference_label));
}

std::string legend(const Chart& chart) {
  std::string out;
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    const double y = kTop + 6 + 20 * static_cast<double>(k);
    out += fmt::format(
        "<rect class=\"key\" x=\"{}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"{}\"/>"
        "<text class=\"tick\" x=\"{}\" y=\"{:.1f}\">{}</text>\n",
        kRight + 16, y, colour(k), kRight + 34, y + 10, escape(chart.series[k].name));
  }
  return out;
}

std::string tip(const Value& v) {
  return v.tip.empty() ? "" : "<title>" + escape(v.tip) + "</title>";
}

// An event's colour: a growth, or a stall's cause.
const char* mark_colour(const std::string& kind) {
  if (kind == "growth" || kind == "fd-table-growth") return "#D55E00";
  if (kind == "waiting-on-growth") return "#E69F00";
  return "#777777";
}

// One event at (x, y): a diamond labelled with its fd where a call grew the table, a circle
// where one stalled.
std::string event_mark(const Mark& m, double x, double y) {
  const std::string title = m.tip.empty() ? "" : "<title>" + escape(m.tip) + "</title>";
  if (m.kind == "growth") {
    return fmt::format(
        "<path class=\"growth\" fill=\"{0}\" d=\"M{1:.1f} {2:.1f}l7 9l-7 9l-7 -9z\">{3}</path>"
        "<text class=\"tick\" x=\"{1:.1f}\" y=\"{4:.1f}\" text-anchor=\"middle\">{5}</text>\n",
        mark_colour(m.kind), x, y - 9, title, y - 13, static_cast<long>(m.fd));
  }
  // Larger for longer: 3 px at the 200 µs floor, 3 more per tenfold.
  const double r = 3 + 3 * std::log10(std::max(m.ns, 2e5) / 2e5);
  return fmt::format(
      "<circle class=\"stall\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" fill=\"{}\" "
      "fill-opacity=\"0.6\">{}</circle>\n",
      x, y, r, mark_colour(m.kind), title);
}

// What the events' colours mean, below the axis at `bottom`.
std::string event_key(double bottom) {
  const char* keys[][2] = {{"#D55E00", "grew the table (diamond), or a stall growing it"},
                           {"#E69F00", "stall: waiting on another worker's growth"},
                           {"#777777", "stall: unexplained"}};
  constexpr double kKeyX[] = {10, 330, 600};
  std::string out;
  for (std::size_t k = 0; k < std::size(keys); ++k) {
    out += fmt::format(
        "<rect class=\"key\" x=\"{}\" y=\"{:.1f}\" width=\"10\" height=\"10\" fill=\"{}\"/>"
        "<text class=\"tick\" x=\"{}\" y=\"{:.1f}\">{}</text>\n",
        kKeyX[k], bottom + 50, keys[k][0], kKeyX[k] + 14, bottom + 59, keys[k][1]);
  }
  return out;
}

}  // namespace

std::string escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
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
  const std::size_t n = chart.categories.size();
  std::string out = open_svg(chart) + axes(chart, s) + reference_line(chart, s);
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    const auto& series = chart.series[k];
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
    out += fmt::format("<path class=\"series-line\" stroke=\"{}\" d=\"{}\"/>\n", colour(k), path);
    for (std::size_t i = 0; i < series.values.size() && i < n; ++i) {
      if (!series.values[i]) continue;
      const auto& v = *series.values[i];
      const double x = category_x(i, n);
      out += whisker(x, v, s, colour(k));
      out += fmt::format(
          "<circle class=\"point\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\">{}</circle>\n",
          x, s.y(v.mid), colour(k), tip(v));
    }
  }
  return out + legend(chart) + "</svg></figure>\n";
}

std::string bar_chart(const Chart& chart) {
  const Scale s = scale_for(chart);
  const std::size_t n = chart.categories.size();
  const double group = (kRight - kLeft) / static_cast<double>(std::max<std::size_t>(n, 1));
  const double bar =
      group * 0.8 / static_cast<double>(std::max<std::size_t>(chart.series.size(), 1));
  std::string out = open_svg(chart) + axes(chart, s);
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    for (std::size_t i = 0; i < chart.series[k].values.size() && i < n; ++i) {
      const auto& value = chart.series[k].values[i];
      if (!value) continue;
      const double x =
          kLeft + group * (static_cast<double>(i) + 0.1) + bar * static_cast<double>(k);
      out += fmt::format(
          "<rect class=\"bar\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
          "fill=\"{}\">{}</rect>\n",
          x, s.y(value->mid), bar * 0.92, kBottom - s.y(value->mid), colour(k), tip(*value));
      out += whisker(x + bar * 0.46, *value, s, "#333333");
    }
  }
  return out + reference_line(chart, s) + legend(chart) + "</svg></figure>\n";
}

std::string event_chart(const EventChart& chart) {
  const double bottom =
      kTop + kLane * static_cast<double>(std::max<std::size_t>(chart.lanes.size(), 1));
  const double height = bottom + 70;
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
  for (const auto& m : chart.marks) {
    out += event_mark(m, x_of(m.fd), kTop + kLane * (static_cast<double>(m.lane) + 0.5));
  }
  return out + event_key(bottom) + "</svg></figure>\n";
}

}  // namespace fdbench::svg
