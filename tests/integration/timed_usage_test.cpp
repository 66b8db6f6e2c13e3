// What the timed region took besides its calls (Result::timed_region): the page faults of the
// work inside the timed region are counted, those of the untimed edges are not. A workload
// whose every item first touches a page of its own must show at least one minor fault per
// item; the same workload with its pages touched in before_repetition() (untimed) fewer than
// that. Behaviour, not speed: only counts are compared, never times.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <string>

#include "engine/measure.hpp"
#include "engine/strategy.hpp"
#include "engine/workload.hpp"
#include "platform/platform.hpp"

namespace fdbench {
namespace timed_usage_test {

constexpr std::size_t kItems = 256;

// Each item writes the first byte of a page of its own, in a mapping made fresh (and untouched)
// for every repetition; `touch_untimed` writes every page in before_repetition() instead.
class PageTouchWorkload final : public Workload {
 public:
  explicit PageTouchWorkload(bool touch_untimed)
      : touch_untimed_(touch_untimed), page_(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))) {}
  PageTouchWorkload(const PageTouchWorkload&) = delete;
  PageTouchWorkload& operator=(const PageTouchWorkload&) = delete;
  ~PageTouchWorkload() override { unmap(); }

  [[nodiscard]] std::string_view name() const override { return "page-touch"; }
  [[nodiscard]] DescriptorKind kind() const override { return DescriptorKind::file; }
  [[nodiscard]] std::size_t ops() const override { return kItems; }
  [[nodiscard]] ItemSpec spec() const override { return {}; }  // Op::other: run_range only
  void keep(std::size_t /*i*/, int /*fd*/) noexcept override {}

  void before_repetition() override {
    unmap();
    void* at =
        mmap(nullptr, kItems * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(at, MAP_FAILED);
#ifdef MADV_NOHUGEPAGE
    (void)madvise(at, kItems * page_,
                  MADV_NOHUGEPAGE);  // one fault per page, whatever the THP sizes
#endif
    pages_ = static_cast<volatile char*>(at);
    if (touch_untimed_) {
      for (std::size_t i = 0; i < kItems; ++i) pages_[i * page_] = 1;
    }
  }
  void run_range(std::size_t begin, std::size_t end, Tally& /*tally*/) noexcept override {
    for (std::size_t i = begin; i < end; ++i) pages_[i * page_] = 2;
  }
  void after_repetition() override {
    unmap();
  }

 private:
  void unmap() noexcept {
    if (pages_ != nullptr) munmap(const_cast<char*>(pages_), kItems * page_);
    pages_ = nullptr;
  }

  bool touch_untimed_;
  std::size_t page_;
  volatile char* pages_ = nullptr;
};

// The strategies that run the workload's own run_range(), and whether their regions are
// counted here: a thread's own counts need an OS that keeps them (Linux); the pool counts
// its whole process, a worker process its own, everywhere.
struct Counted {
  const char* strategy;
  bool everywhere;
};
constexpr Counted kStrategies[] = {
    {"threads", false}, {"fast-pool", false}, {"pool", true}, {"process", true}};

TEST(TimedUsage, ThePageFaultsOfTheWorkAreCountedAndThoseOfTheUntimedEdgesAreNot) {
  const bool threads_counted = platform::thread_usage().has_value();
  for (const auto& [name, everywhere] : kStrategies) {
    SCOPED_TRACE(name);
    const StrategyInfo* info = find_strategy(name);
    ASSERT_NE(info, nullptr);
    PageTouchWorkload timed(false);
    const Result r = measure(timed, *info, {2, 1}, 3, 1);
    ASSERT_TRUE(r.ok()) << r.error;
    if (!everywhere && !threads_counted) {
      EXPECT_FALSE(r.timed_region.has_value());
      continue;
    }
    ASSERT_TRUE(r.timed_region.has_value());
    EXPECT_GE(r.timed_region->minor_faults, kItems);
    EXPECT_TRUE(r.has_warning(WarningKind::page_faults));

    PageTouchWorkload untimed(true);
    const Result quiet = measure(untimed, *info, {2, 1}, 3, 1);
    ASSERT_TRUE(quiet.ok()) << quiet.error;
    ASSERT_TRUE(quiet.timed_region.has_value());
    EXPECT_LT(quiet.timed_region->minor_faults, kItems);
  }
}

}  // namespace timed_usage_test
}  // namespace fdbench
