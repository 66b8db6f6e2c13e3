#pragma once
// Whether this test program runs under a sanitizer. GCC defines __SANITIZE_*__, clang answers
// __has_feature: both are asked, so a test that a sanitizer's runtime changes (its own
// threads, its own descriptors) knows in either build.
namespace fdbench::testing {

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

// ThreadSanitizer alone: under it, each start of libuv's helper process costs about 2 s here.
#if defined(__SANITIZE_THREAD__)
inline constexpr bool kThreadSanitized = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool kThreadSanitized = true;
#else
inline constexpr bool kThreadSanitized = false;
#endif
#else
inline constexpr bool kThreadSanitized = false;
#endif

}  // namespace fdbench::testing
