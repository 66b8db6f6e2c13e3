// CallTrace's worker numbers: 0, 1, ... in the order threads first work in a repetition, so a
// result's records name workers 0 ... T-1 whether its workers are kept from one repetition to
// the next or made for each (--order interleaved), and whatever other traces ran in between.
#include "engine/call_trace.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace fdbench {
namespace call_trace_test {

std::int16_t on_another_thread(CallTrace& trace) {
  std::int16_t number = -1;
  std::thread([&] { number = trace.worker(); }).join();
  return number;
}

TEST(CallTrace, ThreadsAreNumberedInTheOrderTheyFirstWork) {
  CallTrace trace(4);
  EXPECT_EQ(trace.worker(), 0);
  EXPECT_EQ(on_another_thread(trace), 1);
  EXPECT_EQ(trace.worker(), 0) << "a thread keeps its number within a repetition";
}

TEST(CallTrace, EachRepetitionNumbersFromZeroAlsoWithNewThreadsAndOtherTracesBetween) {
  CallTrace a(4);
  CallTrace b(4);
  for (int repetition = 0; repetition < 3; ++repetition) {
    a.reset();
    EXPECT_EQ(on_another_thread(a), 0) << "a new thread each repetition, " << repetition;
    EXPECT_EQ(on_another_thread(a), 1);
    b.reset();
    EXPECT_EQ(b.worker(), 0);
    EXPECT_EQ(on_another_thread(b), 1);
  }
  a.reset();
  EXPECT_EQ(a.worker(), 0) << "a thread that worked for b numbers afresh in a";
}

}  // namespace call_trace_test
}  // namespace fdbench
