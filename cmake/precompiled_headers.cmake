# Precompiled headers (FDBENCH_PCH): most of a build's time is spent parsing the same heavy
# headers in every file. Each helper gives a target one PCH; targets of the same kind then reuse
# it (REUSE_FROM) instead of compiling it again.

# The standard headers and {fmt}, which nearly every file of the library includes.
set(FDBENCH_PCH_COMMON <algorithm> <chrono> <cstdint> <functional> <map> <memory> <optional>
    <string> <string_view> <utility> <vector> <fmt/format.h>)

# The tests add GoogleTest and nlohmann-json: every CLI test parses JSON output.
set(FDBENCH_PCH_TESTS ${FDBENCH_PCH_COMMON} <filesystem> <fstream> <sstream> <thread>
    <gtest/gtest.h> <nlohmann/json.hpp>)

# fdbench_precompile(TARGET HEADERS_VARIABLE [REUSE_FROM OTHER]): the headers listed in
# HEADERS_VARIABLE, compiled for TARGET, or OTHER's (which must be compiled with the same flags
# and definitions).
function(fdbench_precompile target headers)
  if(NOT FDBENCH_PCH)
    return()
  endif()
  cmake_parse_arguments(arg "" "REUSE_FROM" "" ${ARGN})
  if(arg_REUSE_FROM)
    target_precompile_headers(${target} REUSE_FROM ${arg_REUSE_FROM})
  else()
    target_precompile_headers(${target} PRIVATE ${${headers}})
  endif()
endfunction()

# fdbench_precompile_common(TARGET [REUSE_FROM OTHER]): the library's headers.
function(fdbench_precompile_common target)
  fdbench_precompile(${target} FDBENCH_PCH_COMMON ${ARGN})
endfunction()

# fdbench_precompile_tests(TARGET [REUSE_FROM OTHER]): the tests' headers.
function(fdbench_precompile_tests target)
  fdbench_precompile(${target} FDBENCH_PCH_TESTS ${ARGN})
endfunction()
