#pragma once
// A published figure (docs/references.json) and a run's standing against it, in words: the
// same in compare's table and markdown and in the HTML report's rows across machines.
#include <string>

#include "analysis/compare.hpp"

namespace fdbench {

// Their figure as they gave it: "~400,000 files/s", or their runs' range and median in ms.
std::string their_figure(const Reference& ref);

// This file's best matching result as a figure in the reference's unit, with what it is
// ("480,000 files/s (threads, 2 threads)"), or what a matching result would need to be.
std::string my_figure(const Standing& s);

}  // namespace fdbench
