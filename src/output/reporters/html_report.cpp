// The HTML report: one page, inline SVG charts, no script. Built from ResultsDocuments, so a
// run's own export and `fdbench report` of saved files make the same page.
#include "output/html_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include "analysis/compare.hpp"
#include "analysis/findings.hpp"
#include "fdbench/version.hpp"
#include "model/format.hpp"
#include "model/statistics.hpp"
#include "output/reporters/environment_text.hpp"
#include "output/reporters/html_parts.hpp"
#include "output/reporters/section_text.hpp"
#include "output/reporters/svg_chart.hpp"

namespace fdbench {

namespace {

using svg::escape;

constexpr const char* kStyle = R"(
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1b1b;
       max-width: 1100px; margin: 2em auto; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { margin-top: 2em; border-bottom: 1px solid #ddd; }
.meta { color: #555; } .warn { color: #a33; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.92em; }
th, td { padding: 0.25em 0.7em; text-align: right; border-bottom: 1px solid #eee; }
th:first-child, td:first-child, td.text, th.text { text-align: left; }
td { white-space: nowrap; } td.text { white-space: normal; }
code { font-size: 0.92em; background: #f3f3f3; padding: 0 0.2em; border-radius: 3px; }
tr.differs td { background: #fff4e0; }
figure { margin: 1em 0; } figcaption { font-weight: 600; margin-bottom: 0.3em; }
svg.chart { max-width: 100%; height: auto; background: #fff; }
svg .grid { stroke: #e6e6e6; } svg .axis { stroke: #444; }
svg .tick { font-size: 12px; fill: #333; } svg .label { font-size: 13px; fill: #222; }
svg .series-line { fill: none; stroke-width: 2; } svg .whisker { stroke-width: 1.2; fill: none; }
svg .reference { stroke: #888; stroke-dasharray: 6 4; }
details { margin: 0.5em 0; }
tr.group td { text-align: left; font-weight: 600; background: #f7f7f7; }
tr.reference td { color: #555; font-style: italic; } .interval { color: #555; font-size: 0.85em; }
)";

// Escaped text, with the `names` findings quote set as code.
std::string prose(const std::string& text) {
  std::string out;
  bool in_code = false;
  // Each run between backticks escaped whole: a character of several bytes stays one.
  for (std::size_t start = 0, at = 0; at <= text.size(); ++at) {
    if (at < text.size() && text[at] != '`') continue;
    out += escape(text.substr(start, at - start));
    if (at < text.size()) {
      out += in_code ? "</code>" : "<code>";
      in_code = !in_code;
    }
    start = at + 1;
  }
  return in_code ? out + "</code>" : out;
}

double rate(const Result& r, std::int64_t ns) {
  return ns > 0 ? static_cast<double>(r.ops) * 1e9 / static_cast<double>(ns) : 0;
}

// Results measuring the same thing (same workload, kind, size, held or not) share a chart.
using GroupKey = std::tuple<std::string, DescriptorKind, std::uint64_t, bool>;

GroupKey group_of(const Result& r) {
  return {r.workload, r.config.kind, r.ops, r.holds_descriptors};
}

std::string group_title(const Result& r) {
  return fmt::format("{} · {} {} per repetition ({}){}", r.workload, group_digits(r.ops), r.unit,
                     to_string(r.config.kind),
                     r.holds_descriptors ? " · held to the end of each repetition" : "");
}

std::vector<std::vector<const Result*>> groups_of(const std::vector<Result>& results) {
  std::vector<GroupKey> order;
  std::map<GroupKey, std::vector<const Result*>> groups;
  for (const auto& r : results) {
    const auto key = group_of(r);
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(&r);
  }
  std::vector<std::vector<const Result*>> out;
  for (const auto& key : order) out.push_back(groups[key]);
  return out;
}

// A strategy's name, with its batch where the group ran it with more than one.
std::string series_name(const Result& r, const std::vector<const Result*>& group) {
  const bool batches = std::any_of(group.begin(), group.end(), [&](const Result* o) {
    return o->config.strategy == r.config.strategy && o->config.batch != r.config.batch;
  });
  const std::string name =
      batches ? fmt::format("{} (batch {})", r.config.strategy, r.config.batch) : r.config.strategy;
  return r.config.harness == Harness::published ? name + " (published harness)" : name;
}

std::optional<svg::Value> rate_value(const Result& r) {
  if (!r.ran() || r.times_ns.empty()) return std::nullopt;
  return svg::Value{
      r.ops_per_sec, rate(r, r.stats.max), rate(r, r.stats.min),
      fmt::format("{}, {}: {} {}/s (median), {}–{}", r.config.strategy,
                  thread_count_text(r.config.threads), format_rate(r.ops_per_sec), r.unit,
                  format_rate(rate(r, r.stats.max)), format_rate(rate(r, r.stats.min)))};
}

// Open and close: the rate against threads, one line per strategy, the seed's loop at one
// thread as the reference line.
std::string rate_chart(const std::vector<const Result*>& group, const std::string& id) {
  svg::Chart chart{id,
                   group_title(*group.front()) + " — higher is faster",
                   group.front()->unit + "/s (median, min–max)",
                   "threads",
                   {},
                   {},
                   {},
                   {}};
  std::set<int> threads;
  for (const Result* r : group) threads.insert(r->config.threads);
  for (const int t : threads) chart.categories.push_back(std::to_string(t));
  std::map<std::string, std::size_t> series_at;
  for (const Result* r : group) {
    const std::string name = series_name(*r, group);
    if (!series_at.count(name)) {
      series_at[name] = chart.series.size();
      // The strategy's colour wherever it is drawn; its batches apart by their dashes.
      const auto variant = static_cast<std::size_t>(
          std::count_if(chart.series.begin(), chart.series.end(), [&](const svg::Series& s) {
            return s.colour == svg::strategy_colour(r->config.strategy);
          }));
      chart.series.push_back({name, std::vector<std::optional<svg::Value>>(threads.size()),
                              svg::strategy_colour(r->config.strategy), variant});
    }
    const auto at =
        static_cast<std::size_t>(std::distance(threads.begin(), threads.find(r->config.threads)));
    chart.series[series_at[name]].values[at] = rate_value(*r);
    if (r->reference && r->config.harness == Harness::minimal && r->config.threads == 1 &&
        r->ok() && !r->times_ns.empty()) {
      chart.reference = r->ops_per_sec;
      chart.reference_label = "the seed's loop (" + r->config.strategy + ", 1 thread)";
    }
  }
  return svg::line_chart(chart);
}

// Held descriptors: time per repetition for each pregrow setting, side by side.
std::string pregrow_chart(const std::vector<const Result*>& group, const std::string& id) {
  svg::Chart chart{id,
                   group_title(*group.front()) + " — lower is faster",
                   "ms per repetition (median, min–max)",
                   "strategy, threads",
                   {},
                   {},
                   {},
                   {}};
  std::vector<std::string> pregrows;
  for (const Result* r : group) {
    const auto label = fmt::format("{}, {}", r->config.strategy, r->config.threads);
    if (std::find(chart.categories.begin(), chart.categories.end(), label) ==
        chart.categories.end()) {
      chart.categories.push_back(label);
    }
    if (std::find(pregrows.begin(), pregrows.end(), r->config.pregrow.label()) == pregrows.end()) {
      pregrows.push_back(r->config.pregrow.label());
    }
  }
  for (const auto& p : pregrows) {
    chart.series.push_back(
        {"pregrow " + p, std::vector<std::optional<svg::Value>>(chart.categories.size()), {}, 0});
  }
  for (const Result* r : group) {
    if (!r->ran() || r->times_ns.empty()) continue;
    const auto label = fmt::format("{}, {}", r->config.strategy, r->config.threads);
    const auto c = std::find(chart.categories.begin(), chart.categories.end(), label) -
                   chart.categories.begin();
    const auto s =
        std::find(pregrows.begin(), pregrows.end(), r->config.pregrow.label()) - pregrows.begin();
    chart.series[static_cast<std::size_t>(s)].values[static_cast<std::size_t>(c)] = svg::Value{
        r->stats.median / 1e6, static_cast<double>(r->stats.min) / 1e6,
        static_cast<double>(r->stats.max) / 1e6,
        fmt::format("{}, {}, pregrow {}: {} ms (median), {}–{} ms", r->config.strategy,
                    thread_count_text(r->config.threads), r->config.pregrow.label(),
                    format_ms(r->stats.median), format_ms(static_cast<double>(r->stats.min)),
                    format_ms(static_cast<double>(r->stats.max)))};
  }
  return svg::bar_chart(chart);
}

bool has_kernel_evidence(const Result& r) {
  return r.ran() && r.kernel && r.kernel->available && r.kernel->threads > 0 &&
         r.kernel->window_ns > 0;
}

// "2 threads", or "2 processes" where the workers are processes (the threads the kernel saw
// may be more: the parent waiting for them).
std::string kernel_workers_text(const Result& r) {
  return r.workers == WorkerKind::processes
             ? fmt::format("{} process{}", r.config.threads, r.config.threads == 1 ? "" : "es")
             : thread_count_text(r.config.threads);
}

// The key of the part of a kernel bar that is waiting to start or done, and its colour: a
// grey lighter than `other`'s, darker than the rest's.
constexpr std::string_view kWaitingToStartOrDone = "waiting to start or done";
constexpr const char* kWaitingColour = "#BBBBBB";

// One traced result's bar: the time its threads had in the timed region, split by cause, the
// causes' time in the work first, then waiting to start or done (`edges`: a part of its own
// when the chart has one).
svg::StackedBar kernel_bar(const Result& r, const std::string& name,
                           const std::vector<OffCpuCause>& causes, bool edges) {
  const KernelEvidence& k = *r.kernel;
  const double whole = static_cast<double>(k.threads) * static_cast<double>(k.window_ns);
  const auto off = static_cast<double>(k.off_cpu_ns);
  svg::StackedBar bar{
      name,
      fmt::format("off-CPU {} ({} of {} × {})", format_percent(off / whole), format_duration(off),
                  thread_count_text(k.threads), format_duration(static_cast<double>(k.window_ns))),
      {},
      whole,
      name + ": " + kernel_text(r).substr(std::string_view("kernel: ").size())};
  for (const OffCpuCause c : causes) {
    const auto ns = static_cast<double>(k.in_work(c));
    std::string tip =
        fmt::format("{}: {} {} per repetition, {} of the threads' time: {}", name, cause_name(c),
                    format_duration(ns), format_percent(ns / whole), cause_words(c));
    if (c == OffCpuCause::fd_table_growth && !k.grace_period.empty()) {
      tip += fmt::format(" ({} RCU grace period)", k.grace_period);
    }
    if (k.at_edges[static_cast<std::size_t>(c)] > 0) tip += ", while the threads worked";
    bar.parts.push_back({ns, std::move(tip)});
  }
  if (edges) {
    const auto ns = static_cast<double>(k.at_edges_ns);
    bar.parts.push_back(
        {ns, fmt::format("{}: {} {} per repetition, {} of the threads' time: before a thread "
                         "first ran in the repetition (its release, then a CPU) or after it last "
                         "ran (its share done), no cost of the work",
                         name, kWaitingToStartOrDone, format_duration(ns),
                         format_percent(ns / whole))});
  }
  return bar;
}

// --kernel-trace: a bar per traced result, each the time its threads had in the timed region
// (threads × its length), so that the coloured parts, where they were off their CPU by cause,
// read as shares of it. Empty when no result of the group was traced.
std::string kernel_chart(const std::vector<const Result*>& group, const std::string& id) {
  std::vector<const Result*> traced;
  std::copy_if(group.begin(), group.end(), std::back_inserter(traced),
               [](const Result* r) { return has_kernel_evidence(*r); });
  if (traced.empty()) return "";
  // The causes any of them spent time in while working, in their fixed order, then waiting to
  // start or done if any did: the legend lists no other.
  std::vector<OffCpuCause> causes;
  for (const OffCpuCause c : kEveryOffCpuCause) {
    if (std::any_of(traced.begin(), traced.end(),
                    [&](const Result* r) { return r->kernel->in_work(c) > 0; })) {
      causes.push_back(c);
    }
  }
  const bool edges = std::any_of(traced.begin(), traced.end(),
                                 [](const Result* r) { return r->kernel->at_edges_ns > 0; });
  svg::StackedChart chart{
      id,
      group_title(*group.front()) + " — where the threads were off their CPU while timed",
      "share of the threads' time in the timed region (threads × its length)",
      {},
      "on a CPU (the rest)",
      {}};
  for (const OffCpuCause c : causes) {
    chart.keys.push_back({std::string(cause_name(c)), svg::cause_colour(cause_name(c))});
  }
  if (edges) chart.keys.push_back({std::string(kWaitingToStartOrDone), kWaitingColour});
  for (const Result* r : traced) {
    const std::string name = fmt::format("{}, {}, pregrow {}", series_name(*r, group),
                                         kernel_workers_text(*r), r->config.pregrow.label());
    chart.bars.push_back(kernel_bar(*r, name, causes, edges));
  }
  return svg::stacked_bar_chart(chart) +
         "<p class=\"meta\">Off-CPU time by the kernel's call chain where each thread left its "
         "CPU (--kernel-trace), in each result's median repetition (the one whose time is the "
         "median): its parts add up to the total, and each bar is its threads' time.</p>\n";
}

// --kernel-trace asked for but not recorded: why, once for each reason.
std::string kernel_unavailable_lines(const std::vector<Result>& results) {
  std::vector<std::pair<std::string, std::size_t>> reasons;  // in the results' order
  std::size_t asked = 0;
  for (const auto& r : results) {
    if (!r.kernel) continue;
    ++asked;
    if (r.kernel->available) continue;
    const auto it = std::find_if(reasons.begin(), reasons.end(),
                                 [&](const auto& seen) { return seen.first == r.kernel->reason; });
    if (it == reasons.end()) {
      reasons.emplace_back(r.kernel->reason, 1);
    } else {
      ++it->second;
    }
  }
  std::string out;
  for (const auto& [reason, n] : reasons) {
    out += fmt::format(
        "<p class=\"meta kernel-unavailable\">--kernel-trace recorded nothing{}: {}</p>\n",
        n == asked ? "" : fmt::format(" for {} of {} results", n, asked), prose(reason));
  }
  return out;
}

std::string result_notes(const Result& r) {
  std::string notes;
  if (!r.ran()) notes = error_text(r);
  if (r.failures != 0) notes += fmt::format("{} failed calls", group_digits(r.failures));
  if (r.missed_precision()) {
    notes +=
        fmt::format("{}imprecise: --repeat auto aimed for ±{} ({})", notes.empty() ? "" : "; ",
                    format_percent(r.auto_repeat->precision), to_string(r.auto_repeat->stopped));
  }
  for (const auto& w : r.warnings) notes += (notes.empty() ? "" : "; ") + w.text;
  return notes;
}

std::string results_table(const std::vector<const Result*>& group) {
  const bool held = group.front()->holds_descriptors;
  std::string out = fmt::format(
      "<table class=\"results\"><tr><th>strategy</th><th>threads</th><th>batch</th>{}"
      "<th>median ms</th><th>±95%</th><th>reps</th><th>min–max ms</th><th>{}/s</th>"
      "<th class=\"text\">notes</th></tr>\n",
      held ? "<th>pregrow</th><th>FDSize</th>" : "", escape(group.front()->unit));
  for (const Result* r : group) {
    std::string fdsize = "-";
    if (r->fdsize_before && r->fdsize_after)
      fdsize = fmt::format("{} → {}", *r->fdsize_before, *r->fdsize_after);
    const bool measured = r->ran() && !r->times_ns.empty();
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td>{}<td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td class=\"text\">{}</td></tr>\n",
        escape(r->config.strategy), r->config.threads, r->config.batch,
        held ? fmt::format("<td>{}</td><td>{}</td>", escape(r->config.pregrow.label()), fdsize)
             : "",
        measured ? format_ms(r->stats.median) : "-", measured ? escape(precision_cell(*r)) : "-",
        r->times_ns.size(),
        measured ? format_ms(static_cast<double>(r->stats.min)) + "–" +
                       format_ms(static_cast<double>(r->stats.max))
                 : "-",
        measured ? format_rate(r->ops_per_sec) : "-", prose(result_notes(*r)));
  }
  return out + "</table>\n";
}

std::string environment_table(const ResultsDocument& doc) {
  std::string out = "<details><summary>Every environment field</summary><table>\n";
  for (const auto& [field, value] : doc.environment_fields) {
    out += fmt::format("<tr><td>{}</td><td class=\"text\">{}</td></tr>\n", escape(field),
                       escape(value));
  }
  return out + "</table></details>\n";
}

// --latency: the growth events and stalls of one result's median repetition, per worker.
// Empty when it recorded none (or no latency at all).
std::string event_chart(const Result& r, const std::string& id) {
  if (!r.latency || r.times_ns.empty()) return "";
  const Latency& l = *r.latency;
  // The repetition whose time is the median: what the row's median stands for, and whose
  // stalls the listing always keeps.
  const auto rep = static_cast<int>(median_index(r.times_ns));
  svg::EventChart chart;
  chart.id = id;
  std::size_t workers = 0;
  const auto mark = [&](double fd, int worker, double ns, svg::Mark::Kind kind, std::string cause,
                        std::string tip) {
    if (fd < 0) return;
    workers = std::max(workers, static_cast<std::size_t>(worker) + 1);
    chart.fd_max = std::max(chart.fd_max, fd);
    chart.marks.push_back(
        {fd, static_cast<std::size_t>(worker), ns, kind, std::move(cause), std::move(tip)});
  };
  for (const auto& g : l.growth_events) {
    if (g.repetition != rep) continue;
    mark(g.fd, g.worker, static_cast<double>(g.ns), svg::Mark::Kind::growth, "",
         fmt::format("worker {} grew the table at fd {} ({} → {} slots{}): {}", g.worker, g.fd,
                     g.fdsize_before, g.fdsize_after, g.shared ? ", shared" : "",
                     format_duration(static_cast<double>(g.ns))));
  }
  std::uint64_t listed = 0;
  for (const auto& s : l.stalls) {
    if (s.repetition != rep) continue;
    ++listed;
    mark(s.fd, s.worker, static_cast<double>(s.ns), svg::Mark::Kind::stall, s.cause,
         fmt::format("worker {}, {} of fd {}: {} ({})", s.worker, s.op, s.fd,
                     format_duration(static_cast<double>(s.ns)), s.cause));
  }
  if (chart.marks.empty()) return "";
  for (std::size_t w = 0; w < workers; ++w) chart.lanes.push_back(fmt::format("worker {}", w));
  // Each repetition's stalls are listed up to a cap: where its count says more, the title does.
  const auto& counted = l.stalls_per_repetition;
  const std::uint64_t stalled = static_cast<std::size_t>(rep) < counted.size() ? counted[rep] : 0;
  chart.title =
      fmt::format("{}, {}, pregrow {}: the median repetition's growth events and {}",
                  r.config.strategy, thread_count_text(r.config.threads), r.config.pregrow.label(),
                  stalled > listed ? fmt::format("the first {} of its {} stalls", listed, stalled)
                                   : std::string("stalls"));
  return svg::event_chart(chart);
}

// "2026-12-05T09:14:03Z" as "2026-12-05 09:14:03 UTC" (any other form as it is written).
std::string utc_date_text(const std::string& date) {
  if (date.size() != 20 || date[10] != 'T' || !date.ends_with('Z')) return date;
  return date.substr(0, 10) + " " + date.substr(11, 8) + " UTC";
}

// When a run was made and its command line, or that its document does not say (before
// schema 3).
std::string date_and_command(const ResultsDocument& doc) {
  if (!doc.context) {
    return fmt::format(
        "<span class=\"no-context\">no date or command line recorded (a schema {} "
        "document)</span>",
        doc.schema_version);
  }
  return fmt::format("<span class=\"date\">{}</span> · <code class=\"command\">{}</code>",
                     escape(utc_date_text(doc.context->date)),
                     escape(shell_quoted(doc.context->command_line)));
}

// Under the title: each run's date and command line; for several, the letter that stands
// for it in the compare table's heads.
std::string runs_heading(std::span<const ReportInput> inputs) {
  if (inputs.size() == 1) {
    return "<p class=\"meta runs\">" + date_and_command(inputs.front().document) + "</p>\n";
  }
  std::string out = "<ul class=\"meta runs\">\n";
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    out += fmt::format("<li><b>{}</b> {}: {}</li>\n", run_letter(i), escape(inputs[i].label),
                       date_and_command(inputs[i].document));
  }
  return out + "</ul>\n";
}

// Where the run was made (its date and command are under the page's title too).
std::string context_line(const ResultsDocument& doc) {
  if (!doc.context) return "";
  const RunContext& c = *doc.context;
  return fmt::format("<p class=\"meta\">{} on {} (uid {}): <code>{}</code></p>\n",
                     escape(utc_date_text(c.date)), escape(c.host), c.user,
                     escape(shell_quoted(c.command_line)));
}

std::string run_section(const ReportInput& in, std::size_t index, bool lettered) {
  const ResultsDocument& doc = in.document;
  std::string out =
      fmt::format("<section class=\"run\"><h2>{}{}</h2>\n{}<p class=\"meta\">{}</p>\n",
                  lettered ? run_letter(index) + " · " : "", escape(in.label), context_line(doc),
                  escape(environment_summary(doc.environment)));
  if (!doc.complete) {
    out += "<p class=\"warn\">This run was interrupted: what it finished is shown.</p>\n";
  }
  for (const auto& w : doc.environment.warnings)
    out += fmt::format("<p class=\"warn\">{}</p>\n", escape(w));
  out += environment_table(doc);
  // A document written before findings were recorded gets them computed here.
  const auto concluded =
      doc.findings_recorded ? doc.findings : findings(doc.results, doc.environment);
  const SplitFindings split = split_answers(concluded);
  if (!split.answers.empty()) {
    out += fmt::format("<h3>{}</h3><ul class=\"answers\">\n", kAnswersHeading);
    for (const auto& f : split.answers) out += "<li>" + prose(f.text) + "</li>\n";
    out += "</ul>\n";
  }
  if (!split.rest.empty()) {
    out += "<h3>Findings</h3><ul>\n";
    for (const auto& f : split.rest) out += "<li>" + prose(f.text) + "</li>\n";
    out += "</ul>\n";
  }
  if (!in.recommendation.empty()) {
    out += "<h3>Recommendation</h3>\n<pre>" + escape(in.recommendation) + "</pre>\n";
  }
  out += kernel_unavailable_lines(doc.results);
  std::size_t chart = 0;
  for (const auto& group : groups_of(doc.results)) {
    const std::string id = fmt::format("run{}-{}", index, chart++);
    out += group.front()->holds_descriptors ? pregrow_chart(group, id) : rate_chart(group, id);
    out += kernel_chart(group, id + "-kernel");
    std::size_t events = 0;
    for (const auto* r : group) out += event_chart(*r, fmt::format("{}-events-{}", id, events++));
    out += results_table(group);
  }
  return out + "</section>\n";
}

std::string compare_cells(const CompareRow& row) {
  std::string out;
  for (std::size_t f = 0; f < row.cells.size(); ++f) {
    const auto& cell = row.cells[f];
    out += fmt::format("<td>{}</td>", cell.repetitions != 0 ? format_ms(cell.median_ns) : "-");
    if (f == 0) continue;
    const std::string ratio =
        cell.ratio ? fmt::format("{:.2f}× ({:.2f}–{:.2f})", *cell.ratio, cell.ratio_low.value_or(0),
                                 cell.ratio_high.value_or(0))
                   : "-";
    const std::string p = cell.p_value ? fmt::format("{:.2g}", *cell.p_value) : "-";
    out += fmt::format("<td>{}</td><td>{}</td><td class=\"text\">{}{}{}</td>", ratio, p,
                       escape(std::string(to_string(cell.verdict))),
                       cell.traced_on_one_side ? " †" : "",
                       cell.setting_changed_on_a_side ? " ‡" : "");
  }
  return out;
}

// Medians, each run's ratio to the first with its range, Mann-Whitney p and the verdict. The
// heads are the runs' letters (file names would wrap them over lines); a key names the files.
std::string compare_table(const Comparison& c) {
  std::string key;
  bool marked = false;   // a result traced on one side only
  bool changed = false;  // a result measured while rcu_expedited changed, on either side
  std::string out = "<table class=\"compare\"><tr><th>result</th>";
  for (std::size_t f = 0; f < c.files.size(); ++f) {
    const std::string letter = run_letter(f);
    key += fmt::format("{}<b>{}</b> {}", f == 0 ? "" : " · ", letter, escape(c.files[f].label));
    out += fmt::format("<th>{} ms</th>", letter);
    if (f > 0) out += fmt::format("<th>{}/A</th><th>p</th><th>verdict</th>", letter);
  }
  out += "</tr>\n";
  for (const auto* rows : {&c.shared, &c.partial}) {
    for (const auto& row : *rows) {
      marked |= std::any_of(row.cells.begin(), row.cells.end(),
                            [](const auto& cell) { return cell.traced_on_one_side; });
      changed |= std::any_of(row.cells.begin(), row.cells.end(),
                             [](const auto& cell) { return cell.setting_changed_on_a_side; });
      out += fmt::format("<tr><td>{} · {}{}</td>{}</tr>\n", escape(row.key.workload),
                         escape(row_label(row.key)),
                         rows == &c.partial ? " (not in every run)" : "", compare_cells(row));
    }
  }
  return fmt::format("<p class=\"meta compare-key\">{}</p>\n", key) + out +
         fmt::format(
             "</table>\n<p class=\"meta\">X ms: run X's median time per repetition. X/A: its "
             "median over run A's, and in brackets the range over their repetitions (X's "
             "fastest against A's slowest to X's slowest against A's fastest); below 1 is "
             "faster than A. A verdict needs p &lt; {} in a two-sided Mann-Whitney U "
             "test on the repetition times, and at least {} repetitions on each side.{}</p>\n",
             kSignificanceLevel, kMinRepetitionsToTell,
             std::string(marked ? " †: traced with --kernel-trace on one side only: its times "
                                  "include the tracing's cost."
                                : "") +
                 (changed ? " ‡: measured, on one side or both, while another program changed "
                            "rcu_expedited: its times mix both kinds of grace period."
                          : ""));
}

std::size_t runs_measuring(const CompareRow& row) {
  return static_cast<std::size_t>(std::count_if(row.cells.begin(), row.cells.end(),
                                                [](const auto& c) { return c.repetitions != 0; }));
}

// One bar chart per kind of work, one bar per run for every result two or more runs measured;
// runs that measured none of that work are left out of its chart.
std::vector<svg::Chart> comparison_charts(const Comparison& c) {
  std::vector<const CompareRow*> rows;
  for (const auto* list : {&c.shared, &c.partial}) {
    for (const auto& row : *list) {
      if (runs_measuring(row) >= 2) rows.push_back(&row);
    }
  }
  std::vector<std::tuple<std::string, DescriptorKind, std::uint64_t>> kinds;
  for (const auto* row : rows) {
    const auto kind = std::make_tuple(row->key.workload, row->key.config.kind, row->key.ops);
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
  }
  std::vector<svg::Chart> charts;
  for (const auto& [workload, kind, ops] : kinds) {
    svg::Chart chart{fmt::format("compare-{}", charts.size()),
                     fmt::format("{} · {} descriptors per repetition ({}) — time, lower is faster",
                                 workload, group_digits(ops), to_string(kind)),
                     "ms per repetition (median, min–max)",
                     "strategy, threads",
                     {},
                     {},
                     {},
                     {}};
    for (std::size_t f = 0; f < c.files.size(); ++f) {
      chart.series.push_back({run_letter(f) + " · " + c.files[f].label, {}, {}, 0});
    }
    for (const auto* row : rows) {
      if (std::make_tuple(row->key.workload, row->key.config.kind, row->key.ops) !=
          std::tie(workload, kind, ops))
        continue;
      chart.categories.push_back(row_label(row->key));
      for (std::size_t f = 0; f < row->cells.size(); ++f) {
        const auto& cell = row->cells[f];
        std::optional<svg::Value> v;
        if (cell.repetitions != 0) {
          v = svg::Value{cell.median_ns / 1e6, static_cast<double>(cell.min_ns) / 1e6,
                         static_cast<double>(cell.max_ns) / 1e6,
                         fmt::format("{}: {} ms", c.files[f].label, format_ms(cell.median_ns))};
        }
        chart.series[f].values.push_back(v);
      }
    }
    std::erase_if(chart.series, [](const svg::Series& s) {
      return std::none_of(s.values.begin(), s.values.end(),
                          [](const auto& v) { return v.has_value(); });
    });
    charts.push_back(std::move(chart));
  }
  return charts;
}

// Several runs: their shared results as charts, then the compare table.
std::string side_by_side(std::span<const ReportInput> inputs) {
  std::vector<ResultsDocument> docs;
  std::vector<std::string> labels;
  for (const auto& in : inputs) {
    docs.push_back(in.document);
    labels.push_back(in.label);
  }
  const Comparison c = compare(docs, labels);
  std::string out = "<section class=\"side-by-side\"><h2>The runs side by side</h2>\n";
  out += across_machines(inputs, c);
  for (const auto& chart : comparison_charts(c)) out += svg::bar_chart(chart);
  out += compare_table(c);
  return out + "</section>\n";
}

}  // namespace

// A run's short name in the page's tables and keys: A, B, ... Z, then R27, R28, ...
std::string run_letter(std::size_t index) {
  return index < 26 ? std::string(1, static_cast<char>('A' + index))
                    : fmt::format("R{}", index + 1);
}

std::string row_label(const ResultKey& key) {
  std::string label = fmt::format("{}, {}", key.config.strategy, key.config.threads);
  if (key.config.batch != 1) label += fmt::format(", batch {}", key.config.batch);
  if (key.config.pregrow.grows() || key.holds_descriptors)
    label += ", pregrow " + key.config.pregrow.label();
  return label;
}

std::string html_page(const std::string& title, const std::string& body) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>{0}</title>\n<style>{1}</style></head>\n<body>\n<h1>{0}</h1>\n{2}</body></html>\n",
      escape(title), kStyle, body);
}

std::string html_report(std::span<const ReportInput> inputs) {
  std::string body = fmt::format("{}<p class=\"meta\">fdbench {} · {} run{}</p>\n",
                                 runs_heading(inputs), escape(std::string(version())),
                                 inputs.size(), inputs.size() == 1 ? "" : "s");
  if (inputs.size() > 1) body += side_by_side(inputs);
  for (std::size_t i = 0; i < inputs.size(); ++i)
    body += run_section(inputs[i], i, inputs.size() > 1);
  return html_page("fdbench report", body);
}

}  // namespace fdbench
