// errno names: the POSIX names whatever the number is on this system, E<number> otherwise,
// and failures counted under them with the local message beside.
#include <gtest/gtest.h>

#include <cerrno>
#include <map>
#include <string>

#include "fdbench/error.hpp"
#include "model/result.hpp"

namespace fdbench {
namespace errno_names_test {

TEST(ErrnoName, NamesThePosixValues) {
  EXPECT_EQ(errno_name(EMFILE), "EMFILE");
  EXPECT_EQ(errno_name(ENFILE), "ENFILE");
  EXPECT_EQ(errno_name(ENOENT), "ENOENT");
  EXPECT_EQ(errno_name(EACCES), "EACCES");
  EXPECT_EQ(errno_name(EPERM), "EPERM");
  EXPECT_EQ(errno_name(EINVAL), "EINVAL");
  EXPECT_EQ(errno_name(ENOMEM), "ENOMEM");
  EXPECT_EQ(errno_name(ENOBUFS), "ENOBUFS");
  EXPECT_EQ(errno_name(ELOOP), "ELOOP");
  EXPECT_EQ(errno_name(EAFNOSUPPORT), "EAFNOSUPPORT");
  EXPECT_EQ(errno_name(ECANCELED), "ECANCELED");
}

TEST(ErrnoName, AliasesGetTheNameGlibcGives) {
  EXPECT_EQ(errno_name(EAGAIN), "EAGAIN");
  if (EWOULDBLOCK == EAGAIN) {
    EXPECT_EQ(errno_name(EWOULDBLOCK), "EAGAIN");
  }
  EXPECT_EQ(errno_name(EOPNOTSUPP), "EOPNOTSUPP");
}

TEST(ErrnoName, UnknownValuesAreNumbered) {
  EXPECT_EQ(errno_name(0), "E0");
  EXPECT_EQ(errno_name(-1), "E-1");
  EXPECT_EQ(errno_name(9999), "E9999");
}

TEST(AddFailures, CountsUnderTheNameWithTheMessage) {
  std::map<std::string, ErrnoCount> by_errno;
  add_failures(by_errno, EMFILE, 3);
  add_failures(by_errno, EMFILE, 2);
  add_failures(by_errno, ENOENT, 1);
  add_failures(by_errno, -1, 4);
  ASSERT_EQ(by_errno.size(), 3U);
  EXPECT_EQ(by_errno.at("EMFILE").count, 5U);
  EXPECT_EQ(by_errno.at("EMFILE").message, errno_text(EMFILE));
  EXPECT_EQ(by_errno.at("ENOENT").count, 1U);
  EXPECT_EQ(by_errno.at("other").count, 4U);
  EXPECT_FALSE(by_errno.at("other").message.empty());
}

}  // namespace errno_names_test
}  // namespace fdbench
