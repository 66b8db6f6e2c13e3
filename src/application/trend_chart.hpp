#pragma once
// `fdbench history trend`'s words and its HTML form: each configuration's median with its 95%
// interval across the runs that have it, drawn by the report's own SVG charts.
#include <span>
#include <string>

#include "history/history.hpp"

namespace fdbench::app {

// What a series measured: "socket, socket, 512 descriptors".
std::string work_title(const history::TrendSeries& s);
// Its configuration: "threads, 2 threads, pregrow auto".
std::string configuration_title(const history::TrendSeries& s);
// Both: the heading of the series in the table.
std::string series_title(const history::TrendSeries& s);

// One page: a line chart per kind of work, one line per configuration, the runs along the x
// axis oldest first (id, date, and kernel where they differ), each point the median with its
// interval.
std::string trend_page(std::span<const history::TrendSeries> series);

}  // namespace fdbench::app
