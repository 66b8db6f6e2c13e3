#pragma once
// The runner: warm-up, repetitions, timing and per-run results (measure.hpp), and the
// Session that runs commands and feeds reporters (session.hpp).
#include "engine/measure.hpp"
#include "run/session.hpp"
