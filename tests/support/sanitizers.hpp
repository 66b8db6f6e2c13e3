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

}  // namespace fdbench::testing
