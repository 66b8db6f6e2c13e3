#include "perf/results.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace perf {

namespace {

Measured read_result(const nlohmann::json& r) {
  Measured m;
  m.strategy = r.at("strategy").get<std::string>();
  m.threads = r.at("threads").get<int>();
  m.status = r.value("status", std::string("measured"));
  m.error = r.value("error", std::string());
  m.failures = r.value("failures", std::uint64_t{0});
  if (m.error.empty()) {
    m.times_ns = r.at("times_ns").get<std::vector<double>>();
    m.median_ns = r.at("median_ns").get<double>();
  }
  if (r.contains("parameters")) {
    for (const auto& [key, value] : r.at("parameters").items()) {
      if (value.is_string()) m.parameters[key] = value.get<std::string>();
    }
  }
  if (r.contains("kernel") && r.at("kernel").value("available", false)) {
    const auto& k = r.at("kernel");
    m.kernel_switches = k.at("switches").get<double>();
    m.kernel_faults = k.at("page_faults").get<double>();
    m.kernel_incomplete = k.value("incomplete_repetitions", 0);
  }
  if (r.contains("setup_ns") && r.at("setup_ns").is_number()) {
    m.setup_ns = r.at("setup_ns").get<double>();
  }
  return m;
}

}  // namespace

Results parse_results(const std::string& json) {
  try {
    const auto doc = nlohmann::json::parse(json);
    Results results;
    for (const auto& r : doc.at("results")) results.results.push_back(read_result(r));
    const auto& env = doc.at("environment");
    if (env.contains("syscall_ns") && env.at("syscall_ns").is_number()) {
      results.syscall_ns = env.at("syscall_ns").get<double>();
    }
    results.fs_type = env.value("fs_type", std::string());
    results.rcu_expedited = env.value("rcu_expedited", -1);
    return results;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(
        fmt::format("fdbench's JSON output is not what this script reads "
                    "(schema_version 1): {}",
                    e.what()));
  }
}

const Measured& find(const Results& results, std::string_view strategy, int threads) {
  for (const auto& m : results.results) {
    if (m.strategy != strategy || m.threads != threads) continue;
    if (!m.error.empty()) {
      throw std::runtime_error(
          fmt::format("fdbench could not run {} with {} threads: {}", strategy, threads, m.error));
    }
    if (m.failures != 0 || m.times_ns.empty()) {
      throw std::runtime_error(fmt::format("fdbench's {} with {} threads had {} failed calls",
                                           strategy, threads, m.failures));
    }
    return m;
  }
  throw std::runtime_error(
      fmt::format("fdbench's output has no result for {} with {} threads", strategy, threads));
}

std::vector<double> parse_lines(const std::string& text, std::string_view program) {
  std::vector<double> values;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::size_t used = 0;
    try {
      values.push_back(std::stod(line, &used));
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != line.size()) {
      throw std::runtime_error(fmt::format("{} printed '{}', not a number", program, line));
    }
  }
  if (values.empty()) throw std::runtime_error(fmt::format("{} printed nothing", program));
  return values;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

Spread spread(const std::vector<double>& values) {
  if (values.empty()) return {};
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return {median(values), *lo, *hi};
}

}  // namespace perf
