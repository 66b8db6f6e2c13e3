#pragma once
// The history's tables, and the path from any older schema to this fdbench's.
#include "history/sqlite.hpp"

namespace fdbench::history {

// Brings the database to kHistoryVersion in one transaction (a new file: from 0), holding the
// write lock from the start, so that two runs creating the same file do it once. Does nothing
// where it is there already.
void migrate(sqlite::Database& db);

}  // namespace fdbench::history
