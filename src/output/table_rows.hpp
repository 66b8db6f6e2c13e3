#pragma once
// The table's columns and rows, shared by the table reporter (a row per finished result) and
// the live table on a terminal (the same rows while their repetitions land), so both draw a
// row the same way. A row fits 100 columns.
#include <cstddef>
#include <string>

#include "model/result.hpp"

namespace fdbench {

// Which optional columns a section's table has.
struct TableLayout {
  bool batch = false;    // results differ by batch (tune's sweep)
  bool harness = false;  // --harness published ran
};

// The column headings for rows like `r` ("  strategy  threads ... files/s"); descriptors held
// to the end of a repetition add pregrow and FDSize.
std::string table_header(const TableLayout& layout, const Result& r);
// The row's leading cells: strategy, threads, and harness, batch and pregrow where shown.
std::string table_lead(const TableLayout& layout, const Result& r);
// A whole row of a result that ran: its lead, median (and the noisy mark), ±95%, repetitions,
// min–max, rate and, with held descriptors, FDSize.
std::string table_row(const TableLayout& layout, const Result& r);

}  // namespace fdbench
