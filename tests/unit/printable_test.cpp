// printable(): what a message echoes from a file or an argument reaches a terminal as one line
// of text, never as control bytes (ESC starts a terminal command) or broken UTF-8.
#include <gtest/gtest.h>

#include <string>

#include "model/format.hpp"

namespace fdbench {
namespace printable_test {

TEST(Printable, TextAndUtf8StayAsTheyAre) {
  EXPECT_EQ(printable("results[0].status: 'fast' is not a status"),
            "results[0].status: 'fast' is not a status");
  EXPECT_EQ(printable("3.3 µs · ±2% — ok"), "3.3 µs · ±2% — ok");
  EXPECT_EQ(printable("a\\b"), "a\\b");
}

TEST(Printable, ControlBytesAreEscaped) {
  EXPECT_EQ(printable("a\nb"), "a\\x0ab");
  EXPECT_EQ(printable("\x1b]0;owned\x07"), "\\x1b]0;owned\\x07");
  EXPECT_EQ(printable(std::string("nul\0here", 8)), "nul\\x00here");
  EXPECT_EQ(printable("del\x7f"), "del\\x7f");
  EXPECT_EQ(printable("\xc2\x9b"
                      "2J"),
            "\\xc2\\x9b2J");  // C1 CSI, as UTF-8
}

TEST(Printable, BytesThatAreNotUtf8AreEscaped) {
  EXPECT_EQ(printable("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(printable("cut \xe2\x80"), "cut \\xe2\\x80");            // a sequence cut short
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // beyond U+10FFFF
  EXPECT_EQ(printable("\xf0\x9f\x99\x82"), "\xf0\x9f\x99\x82");      // U+1F642 stays
}

}  // namespace printable_test
}  // namespace fdbench
