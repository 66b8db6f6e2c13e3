#pragma once
// Whether this test program runs under a sanitizer. GCC defines __SANITIZE_*__, clang answers
// __has_feature: both are asked, so a test that a sanitizer's runtime changes (its own
// threads, its own descriptors) knows in either build.
#if defined(__has_feature)
#define FDBENCH_HAS_FEATURE(x) __has_feature(x)
#else
#define FDBENCH_HAS_FEATURE(x) 0
#endif

namespace fdbench::testing {

// ThreadSanitizer alone: under it, each start of libuv's helper process costs about 2 s here.
#if defined(__SANITIZE_THREAD__) || FDBENCH_HAS_FEATURE(thread_sanitizer)
inline constexpr bool kThreadSanitized = true;
#else
inline constexpr bool kThreadSanitized = false;
#endif

#if defined(__SANITIZE_ADDRESS__) || FDBENCH_HAS_FEATURE(address_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = kThreadSanitized;
#endif

}  // namespace fdbench::testing

#undef FDBENCH_HAS_FEATURE
