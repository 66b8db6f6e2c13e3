#pragma once
// The runner: warm-up, repetitions, timing and per-run results (measure.hpp), and the
// Session that runs commands and feeds reporters (session.hpp).
#include "fdbench/measure.hpp"
#include "fdbench/session.hpp"
