#pragma once
// A leftover forwarding header: apps/fdbench/commands.cpp is its last user and goes on to
// include what it forwards to (engine/measure.hpp, run/session.hpp) directly, after which it
// is removed. Include those instead.
#include "engine/measure.hpp"
#include "run/session.hpp"
