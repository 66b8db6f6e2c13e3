// The HTML report, from real runs of the binary (--export-html, and `fdbench report` of saved
// JSON), checked twice: as text (self-contained: no script, no external resource; every
// result is in it) and as a browser draws it. For the second, headless Chromium (Debian's
// chromium, which ./test installs) loads a copy of the page with a probe script added by
// this test, which measures every chart in the rendered DOM and paints each chart's SVG
// onto a canvas to count the pixels it really draws; the DOM dump carries the probe's
// findings back, among them whether any label (measured as drawn) covers another label, a
// mark or a line. A traced run's page has its stacked bars drawn the same way, or says why it
// has none. Without Chromium the browser tests are skipped with a message.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "platform/platform.hpp"
#include "support/fdbench_process.hpp"
#include "support/require.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::testing {
namespace html_report_test {

// For every svg.chart: its rendered size, what it holds, whether each mark lies inside its
// view box, and how many pixels of a canvas it paints that are not the background.
constexpr const char* kProbe = R"(<script>
(async () => {
  const charts = [];
  for (const svg of document.querySelectorAll('svg.chart')) {
    const box = svg.getBoundingClientRect();
    const view = svg.viewBox.baseVal;
    let outside = 0;
    for (const mark of svg.querySelectorAll(
             '.point, .bar, .track, .series-line, .growth, .stall')) {
      const b = mark.getBBox();
      if (b.x < 0 || b.y < 0 || b.x + b.width > view.width || b.y + b.height > view.height ||
          !isFinite(b.x + b.y + b.width + b.height)) outside++;
    }
    // Labels (the legend's lines, the scale note, a stacked bar's label) that meet another
    // label, a dot, a bar or a line, or leave the view box: each counts once.
    const labels = [...svg.querySelectorAll('.legend, .scale-note, .bar-label')]
                       .map(t => t.getBBox());
    const meet = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width &&
                           a.y < b.y + b.height && b.y < a.y + a.height;
    let overlaps = 0;
    labels.forEach((a, i) => {
      if (a.x < 0 || a.x + a.width > view.width || a.y + a.height > view.height) overlaps++;
      labels.forEach((b, j) => { if (j > i && meet(a, b)) overlaps++; });
      for (const mark of svg.querySelectorAll('.point, .bar, .track')) {
        if (meet(a, mark.getBBox())) overlaps++;
      }
      for (const line of svg.querySelectorAll('.series-line')) {
        const length = line.getTotalLength();
        for (let at = 0; at <= length; at += 2) {
          const p = line.getPointAtLength(at);
          if (p.x > a.x && p.x < a.x + a.width && p.y > a.y && p.y < a.y + a.height) {
            overlaps++;
            break;
          }
        }
      }
    });
    const image = new Image();
    image.src = 'data:image/svg+xml;charset=utf-8,' +
                encodeURIComponent(new XMLSerializer().serializeToString(svg));
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = view.width;
    canvas.height = view.height;
    const context = canvas.getContext('2d');
    context.fillStyle = '#fff';
    context.fillRect(0, 0, canvas.width, canvas.height);
    context.drawImage(image, 0, 0);
    const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
    let coloured = 0;
    for (let i = 0; i < pixels.length; i += 4) {
      if (Math.max(Math.abs(pixels[i] - pixels[i + 1]), Math.abs(pixels[i + 1] - pixels[i + 2]),
                   Math.abs(pixels[i] - pixels[i + 2])) > 40) coloured++;
    }
    charts.push({id: svg.dataset.chart, width: box.width, height: box.height,
                 points: svg.querySelectorAll('.point').length,
                 bars: svg.querySelectorAll('.bar').length,
                 tracks: svg.querySelectorAll('.track').length,
                 events: svg.querySelectorAll('.growth, .stall').length,
                 lines: svg.querySelectorAll('.series-line').length,
                 labels: labels.length, overlaps, outside, coloured});
  }
  const out = document.createElement('pre');
  out.id = 'probe';
  out.textContent = JSON.stringify(charts);
  document.body.appendChild(out);
})();
</script>)";

std::string chromium() {
  for (const char* candidate :
       {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}) {
    if (access(candidate, X_OK) == 0) return candidate;
  }
  return "";
}

// The probe's findings for `page`, as rendered by headless Chromium.
nlohmann::json render(const std::string& browser, const std::string& page, TempDir& scratch) {
  std::string html = read_text(page);
  const auto body_end = html.rfind("</body>");
  EXPECT_NE(body_end, std::string::npos);
  html.insert(body_end, kProbe);
  write_text(scratch / "probed.html", html);
  const std::string command =
      "'" + browser + "' --headless --no-sandbox --disable-gpu --virtual-time-budget=10000 " +
      "--user-data-dir='" + (scratch / "profile") + "' --dump-dom 'file://" +
      (scratch / "probed.html") + "' >'" + (scratch / "dom") + "' 2>'" + (scratch / "err") + "'";
  const int status = std::system(command.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_text(scratch / "err");
  const std::string dom = read_text(scratch / "dom");
  std::smatch m;
  if (!std::regex_search(dom, m, std::regex(R"(<pre id="probe">([^<]*)</pre>)"))) {
    ADD_FAILURE() << "the probe did not finish; DOM:\n" << dom.substr(0, 2000);
    return nlohmann::json::array();
  }
  return nlohmann::json::parse(m[1].str());
}

class HtmlReport : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto open = run_fdbench({"open", "--files", "300", "--threads", "1,2", "--strategy",
                                   "threads,pool,fast-pool", "--repeat", "3", "--warmup", "0",
                                   "--dir", work_.path(), "--export-html", work_ / "open.html",
                                   "--export-json", work_ / "open.json"});
    ASSERT_EQ(open.exit_code, 0) << open.err;
    const auto socket = run_fdbench({"socket", "--kind", "pipe", "--per-thread", "64",
                                     "--strategy", "threads,process", "--repeat", "3", "--warmup",
                                     "0", "--export-json", work_ / "socket.json"});
    ASSERT_EQ(socket.exit_code, 0) << socket.err;
    const auto again = run_fdbench({"open", "--files", "300", "--threads", "1,2", "--strategy",
                                    "threads,pool,fast-pool", "--repeat", "3", "--warmup", "0",
                                    "--dir", work_.path(), "--export-json", work_ / "again.json"});
    ASSERT_EQ(again.exit_code, 0) << again.err;
  }

  TempDir work_;
};

TEST_F(HtmlReport, IsSelfContainedAndHoldsEveryResult) {
  const auto report = run_fdbench({"report", work_ / "open.json", work_ / "socket.json",
                                   work_ / "again.json", "-o", work_ / "all.html"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  for (const auto& page : {work_ / "open.html", work_ / "all.html"}) {
    const std::string html = read_text(page);
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0U) << page;
    EXPECT_NE(html.find("</html>"), std::string::npos) << page;
    EXPECT_EQ(html.find("<script"), std::string::npos) << page;
    EXPECT_EQ(html.find("<link"), std::string::npos) << page;
    EXPECT_EQ(html.find("src="), std::string::npos) << page;
    // The one URL allowed is the SVG namespace, which is a name, not a fetch.
    std::string without_namespace =
        std::regex_replace(html, std::regex("http://www.w3.org/2000/svg"), "");
    EXPECT_EQ(without_namespace.find("http"), std::string::npos) << page;
    for (const char* strategy : {"threads", "pool", "fast-pool"}) {
      EXPECT_NE(html.find(std::string("<td>") + strategy + "</td>"), std::string::npos) << page;
    }
  }
  const std::string all = read_text(work_ / "all.html");
  EXPECT_NE(all.find("The runs side by side"), std::string::npos);
  EXPECT_NE(all.find("pregrow auto"), std::string::npos);  // the socket run's bars
  EXPECT_NE(all.find("data-chart=\"compare-0\""), std::string::npos);
}

TEST_F(HtmlReport, UnreadableInputIsOneLineAndExitTwo) {
  write_text(work_ / "broken.json", "{\"schema_version\": 1, \"results\": [");
  const auto run = run_fdbench({"report", work_ / "open.json", work_ / "broken.json"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err.rfind("Error: ", 0), 0U) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_EQ(run_fdbench({"report"}).exit_code, 2);
}

TEST_F(HtmlReport, ChromiumDrawsEveryChart) {
  const std::string browser = chromium();
  if (browser.empty()) {
    FDBENCH_SKIP_WITHOUT("browser") << "no Chromium (./test installs Debian's chromium; it "
                                       "could not): the report was not checked in a browser";
  }
  const auto report = run_fdbench({"report", work_ / "open.json", work_ / "socket.json",
                                   work_ / "again.json", "-o", work_ / "all.html"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  for (const auto& [page, least_charts] : std::vector<std::pair<std::string, std::size_t>>{
           {work_ / "open.html", 1}, {work_ / "all.html", 5}}) {
    TempDir scratch;
    const auto charts = render(browser, page, scratch);
    // Every chart the page has is drawn: the rate and pregrow charts, the compare bars, and
    // the per-call events of each result that had any (at least the sockets' growth, on Linux).
    const std::string html = read_text(page);
    std::size_t in_page = 0;
    for (auto at = html.find("data-chart="); at != std::string::npos;
         at = html.find("data-chart=", at + 1)) {
      ++in_page;
    }
    ASSERT_EQ(charts.size(), in_page) << page << "\n" << charts.dump(2);
    EXPECT_GE(charts.size(), platform::uses_linux_interfaces() ? least_charts : least_charts - 1)
        << page << "\n"
        << charts.dump(2);
    for (const auto& chart : charts) {
      SCOPED_TRACE(chart.dump());
      EXPECT_GT(chart["width"].get<double>(), 300);
      EXPECT_GT(chart["height"].get<double>(), 100);
      EXPECT_EQ(chart["outside"], 0);
      EXPECT_EQ(chart["overlaps"], 0);  // no label covers another, a mark or a line
      if (chart["id"].get<std::string>().find("-events-") != std::string::npos) {
        EXPECT_GE(chart["events"].get<int>(), 1);
        continue;
      }
      EXPECT_GE(chart["labels"].get<int>(), 2);  // the scale note and a legend, measured
      const int marks = chart["points"].get<int>() + chart["bars"].get<int>();
      EXPECT_GE(marks, 2);
      // Not blank: coloured marks cover a visible share of the chart (thousands of pixels).
      EXPECT_GT(chart["coloured"].get<int>(), 500);
    }
    if (page == work_ / "open.html") {
      EXPECT_EQ(charts[0]["lines"], 3);   // threads, pool, fast-pool
      EXPECT_EQ(charts[0]["points"], 6);  // each at 1 and 2 threads
    }
  }
}

TEST_F(HtmlReport, KernelEvidenceIsAStackedBarPerResultOrOneLineSayingWhyNot) {
  const auto traced =
      run_fdbench({"socket", "--kernel-trace", "--kind", "pipe", "--per-thread", "64", "--strategy",
                   "threads,process", "--pregrow", "off,auto", "--repeat", "3", "--warmup", "0",
                   "--export-json", work_ / "traced.json"});
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  const auto report = run_fdbench({"report", work_ / "traced.json", "-o", work_ / "traced.html"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string html = read_text(work_ / "traced.html");
  const auto doc = nlohmann::json::parse(read_text(work_ / "traced.json"));
  const auto& kernel = doc.at("results")[0].at("kernel");
  if (!kernel.at("available").get<bool>()) {
    const std::string why = kernel.at("reason").get<std::string>();
    EXPECT_NE(html.find("--kernel-trace recorded nothing: "), std::string::npos) << html;
    EXPECT_EQ(html.find("-kernel\""), std::string::npos);
    FDBENCH_SKIP_WITHOUT("kernel_trace") << why;
  }
  EXPECT_NE(html.find("data-chart=\"run0-0-kernel\""), std::string::npos);
  const std::string browser = chromium();
  if (browser.empty()) {
    FDBENCH_SKIP_WITHOUT("browser") << "no Chromium: the kernel chart was not checked in a browser";
  }
  TempDir scratch;
  const auto charts = render(browser, work_ / "traced.html", scratch);
  std::size_t kernel_charts = 0;
  for (const auto& chart : charts) {
    if (!chart["id"].get<std::string>().ends_with("-kernel")) continue;
    ++kernel_charts;
    SCOPED_TRACE(chart.dump());
    EXPECT_EQ(chart["tracks"], 4);  // threads and process, each pregrow off and auto
    EXPECT_EQ(chart["outside"], 0);
    EXPECT_EQ(chart["overlaps"], 0);           // no label covers another or a bar
    EXPECT_GE(chart["labels"].get<int>(), 5);  // four bars' labels and the legend
    EXPECT_GT(chart["width"].get<double>(), 300);
  }
  EXPECT_EQ(kernel_charts, 1U) << charts.dump(2);
}

}  // namespace html_report_test
}  // namespace fdbench::testing
