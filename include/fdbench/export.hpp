#pragma once
// FDBENCH_EXPORT marks what the shared library exports: the public API in include/fdbench/.
// Everything else is built with hidden visibility, so libfdbench.so exports no engine,
// platform, {fmt} or nlohmann-json symbol and its ABI is the API alone.
#if defined(_WIN32)
#define FDBENCH_EXPORT
#elif defined(__GNUC__)
#define FDBENCH_EXPORT __attribute__((visibility("default")))
#else
#define FDBENCH_EXPORT
#endif
