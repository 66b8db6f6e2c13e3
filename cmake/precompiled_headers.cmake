# Precompiled headers (FDBENCH_PCH): most of a build's time is spent parsing the same heavy
# headers in every file. Each helper gives a target one PCH; targets of the same kind then reuse
# it (REUSE_FROM) instead of compiling it again.

# The standard headers and {fmt}, which nearly every file of the library includes.
set(FDBENCH_PCH_COMMON <algorithm> <chrono> <cstdint> <functional> <map> <memory> <optional>
    <string> <string_view> <utility> <vector> <fmt/format.h>)

# fdbench_precompile_common(TARGET [REUSE_FROM OTHER]): the common headers, compiled for TARGET
# or taken from OTHER (which must be compiled with the same flags and definitions).
function(fdbench_precompile_common target)
  if(NOT FDBENCH_PCH)
    return()
  endif()
  cmake_parse_arguments(arg "" "REUSE_FROM" "" ${ARGN})
  if(arg_REUSE_FROM)
    target_precompile_headers(${target} REUSE_FROM ${arg_REUSE_FROM})
  else()
    target_precompile_headers(${target} PRIVATE ${FDBENCH_PCH_COMMON})
  endif()
endfunction()

# The tests add GoogleTest and nlohmann-json: every CLI test parses JSON output.
set(FDBENCH_PCH_TESTS ${FDBENCH_PCH_COMMON} <filesystem> <fstream> <sstream> <thread>
    <gtest/gtest.h> <nlohmann/json.hpp>)

# fdbench_precompile_tests(TARGET [REUSE_FROM OTHER]): the test headers, compiled for TARGET or
# taken from OTHER (compiled with the same flags).
function(fdbench_precompile_tests target)
  if(NOT FDBENCH_PCH)
    return()
  endif()
  cmake_parse_arguments(arg "" "REUSE_FROM" "" ${ARGN})
  if(arg_REUSE_FROM)
    target_precompile_headers(${target} REUSE_FROM ${arg_REUSE_FROM})
  else()
    target_precompile_headers(${target} PRIVATE ${FDBENCH_PCH_TESTS})
  endif()
endfunction()
