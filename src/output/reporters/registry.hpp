#pragma once
// Factories of the reporters; each is defined in its own file, registered in registry.cpp.
#include <iosfwd>
#include <memory>

#include "output/reporter.hpp"

namespace fdbench {

std::unique_ptr<Reporter> make_table_reporter(std::ostream& out, const ReportOptions& options);
std::unique_ptr<Reporter> make_json_reporter(std::ostream& out);
std::unique_ptr<Reporter> make_csv_reporter(std::ostream& out);
std::unique_ptr<Reporter> make_markdown_reporter(std::ostream& out);
std::unique_ptr<Reporter> make_html_reporter(std::ostream& out);

}  // namespace fdbench
