// Option parsing through the same function main() uses: every bad value of every flag is a
// usage error (exit 2) with one "Error:" line naming the flag; good values land in Options.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "common/errors.hpp"
#include "engine/strategy.hpp"
#include "engine/workload.hpp"
#include "fdbench/version.hpp"
#include "platform/platform.hpp"
#include "support/commands.hpp"
#include "support/parse_line.hpp"
#include "support/temp_dir.hpp"

namespace fdbench::cli {
namespace cli_parse_test {

using fdbench::testing::as;
using fdbench::testing::format_of;
using fdbench::testing::is;
using fdbench::testing::open_of;
using fdbench::testing::outputs_of;
using fdbench::testing::socket_of;
using fdbench::testing::TempDir;
using namespace app;  // NOLINT: the command structs under test

using Outcome = testing::ParsedLine;

// As the program parses, then looks at the user's --tree or --list before anything runs.
Outcome parse(const std::vector<std::string>& args) {
  Outcome o = testing::parse_line(args);
  if (o.parsed.command) {
    std::ostringstream err;
    if (const int code = look_at_inputs(*o.parsed.command, err); code != 0) {
      o.parsed = {std::nullopt, code};
    }
    o.err += err.str();
  }
  return o;
}

std::string describe(const std::vector<std::string>& args) {
  std::string text = "fdbench";
  for (const auto& a : args) text += " " + a;
  return text;
}

// A usage error: exit 2, nothing to run, and an "Error:" line on err that names `flag`.
void expect_usage_error(const std::vector<std::string>& args, const std::string& flag) {
  SCOPED_TRACE(describe(args));
  const Outcome o = parse(args);
  EXPECT_FALSE(o.parsed.command.has_value());
  EXPECT_EQ(o.parsed.exit_code, 2);
  EXPECT_EQ(o.err.rfind("Error: ", 0), 0U) << o.err;
  EXPECT_NE(o.err.find(flag), std::string::npos)
      << "message does not name " << flag << ": " << o.err;
  EXPECT_EQ(o.out, "");
}

Command expect_command(const std::vector<std::string>& args) {
  SCOPED_TRACE(describe(args));
  const Outcome o = parse(args);
  EXPECT_EQ(o.parsed.exit_code, 0);
  EXPECT_EQ(o.err, "");
  if (!o.parsed.command) {
    ADD_FAILURE() << "no command parsed: " << o.err;
    return {};
  }
  return *o.parsed.command;
}

// Each subcommand's fixture owns a writable --dir so that only the flag under test is bad.
class OpenFlags : public ::testing::Test {
 protected:
  // `open --dir <tmp>` followed by `extra`.
  std::vector<std::string> open(std::initializer_list<std::string> extra) const {
    std::vector<std::string> args{"open", "--dir", dir_.path()};
    args.insert(args.end(), extra);
    return args;
  }
  TempDir dir_;
};

TEST_F(OpenFlags, BadFilesValues) {
  for (const std::string bad : {"0", "-1", "abc", "99999999999", "", "12x", "1.5"}) {
    expect_usage_error(open({"--files", bad}), "--files");
  }
  expect_usage_error(open({"--files=-1"}), "--files");
}

TEST_F(OpenFlags, BadThreadsValues) {
  for (const std::string bad : {"0", "1025", "1,,2", "x", "-1", "1,", ",1", "2,0"}) {
    expect_usage_error(open({"--threads", bad}), "--threads");
  }
}

TEST_F(OpenFlags, BadStrategyValues) {
  for (const std::string bad : {"unknown", "threads,unknown", "threads,,pool", ""}) {
    expect_usage_error(open({"--strategy", bad}), "--strategy");
  }
}

TEST_F(OpenFlags, UnknownStrategyMessageListsTheChoices) {
  const Outcome o = parse(open({"--strategy", "unknown"}));
  for (const auto& name : strategy_names()) EXPECT_NE(o.err.find(name), std::string::npos) << name;
}

TEST_F(OpenFlags, BadBatchValues) {
  for (const std::string bad : {"0", "-3", "many"}) {
    expect_usage_error(open({"--batch", bad}), "--batch");
  }
}

TEST_F(OpenFlags, BadRepeatAndWarmup) {
  for (const std::string bad : {"0", "-1", "ten"}) {
    expect_usage_error(open({"--repeat", bad}), "--repeat");
  }
  for (const std::string bad : {"-1", "one"}) {
    expect_usage_error(open({"--warmup", bad}), "--warmup");
  }
}

TEST_F(OpenFlags, RepeatAutoIsTheDefaultWithItsPrecisionAndTimeLimit) {
  const Command defaults = expect_command(open({}));
  EXPECT_TRUE(open_of(defaults).repeat.automatic());
  EXPECT_DOUBLE_EQ(open_of(defaults).repeat.precision, 0.03);
  EXPECT_GT(open_of(defaults).repeat.max_time_s, 0);

  const Command asked =
      expect_command(open({"--repeat", "auto", "--precision", "1.5", "--max-time", "0.25"}));
  EXPECT_TRUE(open_of(asked).repeat.automatic());
  EXPECT_DOUBLE_EQ(open_of(asked).repeat.precision, 0.015);
  EXPECT_DOUBLE_EQ(open_of(asked).repeat.max_time_s, 0.25);
  // A percent sign is taken too, and both apply to the default, auto.
  const Command with_sign = expect_command(open({"--precision", "5%"}));
  EXPECT_DOUBLE_EQ(open_of(with_sign).repeat.precision, 0.05);

  const Command fixed = expect_command(open({"--repeat", "7"}));
  EXPECT_EQ(open_of(fixed).repeat, Repeat::fixed(7));
  EXPECT_FALSE(open_of(fixed).repeat.automatic());

  const Command socket = expect_command({"socket", "--precision", "2", "--max-time", "9"});
  EXPECT_DOUBLE_EQ(socket_of(socket).repeat.precision, 0.02);
  EXPECT_DOUBLE_EQ(socket_of(socket).repeat.max_time_s, 9);
}

TEST_F(OpenFlags, PrecisionAndMaxTimeAreCheckedAndNeedRepeatAuto) {
  for (const std::string bad : {"0", "0.01", "51", "-3", "x", "3%%", "nan", "inf"}) {
    expect_usage_error(open({"--precision", bad}), "--precision");
  }
  for (const std::string bad : {"0", "-1", "soon", "1e9", "nan"}) {
    expect_usage_error(open({"--max-time", bad}), "--max-time");
  }
  // With a fixed count they could only be ignored: refused, naming both.
  const Outcome o = parse(open({"--repeat", "5", "--precision", "2"}));
  EXPECT_EQ(o.parsed.exit_code, 2);
  EXPECT_NE(o.err.find("--precision applies to --repeat auto"), std::string::npos) << o.err;
  expect_usage_error(open({"--repeat", "5", "--max-time", "2"}), "--max-time");
  expect_usage_error({"socket", "--repeat", "3", "--precision", "2"}, "--precision");
}

TEST_F(OpenFlags, TuneTakesThePrecisionItsCombinationsRepeatTo) {
  EXPECT_DOUBLE_EQ(as<TuneCommand>(expect_command({"tune"})).tune.precision, Repeat{}.precision);
  EXPECT_DOUBLE_EQ(as<TuneCommand>(expect_command({"tune", "--precision", "1.5"})).tune.precision,
                   0.015);
  EXPECT_DOUBLE_EQ(as<TuneCommand>(expect_command({"tune", "--precision", "5%"})).tune.precision,
                   0.05);
  for (const std::string bad : {"0", "51", "x"}) {
    expect_usage_error({"tune", "--precision", bad}, "--precision");
  }
}

TEST_F(OpenFlags, BadFormat) {
  expect_usage_error(open({"--format", "xml"}), "--format");
}

TEST_F(OpenFlags, OutputIntoAMissingDirectory) {
  expect_usage_error(open({"--output", dir_ / "missing/out.json"}), "--output");
}

// A symlink is followed to the file it names: a dangling one into a missing directory is
// refused before the run, as that directory would be, not once the run has ended.
TEST_F(OpenFlags, OutputThroughASymlinkIntoAMissingDirectory) {
  const std::string link = dir_ / "out.json";
  ASSERT_EQ(symlink((dir_ / "missing/out.json").c_str(), link.c_str()), 0);
  expect_usage_error(open({"--output", link}), "missing");
  const std::string loop = dir_ / "loop.json";
  ASSERT_EQ(symlink(loop.c_str(), loop.c_str()), 0);
  expect_usage_error(open({"--export-json", loop}), "--export-json");
}

TEST_F(OpenFlags, OutputThatIsADirectory) {
  expect_usage_error(open({"--output", dir_.path()}), "--output");
}

TEST_F(OpenFlags, DirMissing) {
  expect_usage_error({"open", "--dir", dir_ / "missing"}, "--dir");
}

TEST_F(OpenFlags, DirIsARegularFile) {
  fdbench::testing::write_text(dir_ / "plain", "not a directory\n");
  expect_usage_error({"open", "--dir", dir_ / "plain"}, "--dir");
}

TEST_F(OpenFlags, DirReadOnly) {
  // root passes access(W_OK) on mode 0555, so the check cannot fail there.
  if (geteuid() == 0) GTEST_SKIP() << "running as root: a 0555 directory is still writable";
  const std::string ro = dir_ / "read-only";
  ASSERT_EQ(mkdir(ro.c_str(), 0555), 0);
  expect_usage_error({"open", "--dir", ro}, "--dir");
}

TEST_F(OpenFlags, BadInputAndModeValues) {
  expect_usage_error(open({"--layout", "deep"}), "--layout");
  expect_usage_error(open({"--layout", "dirs:0"}), "--layout");
  expect_usage_error(open({"--layout", "dirs:x"}), "--layout");
  expect_usage_error(open({"--flags", "wronly"}), "--flags");
  expect_usage_error(open({"--paths", "sideways"}), "--paths");
  expect_usage_error(open({"--paths", ""}), "--paths");
  expect_usage_error(open({"--pregrow", "auto"}), "--pregrow");  // needs --keep-open
  expect_usage_error(open({"--keep-open", "--pregrow", "-5"}), "--pregrow");
  expect_usage_error(open({"--tree", dir_ / "missing"}), "--tree");
  expect_usage_error(open({"--list", dir_ / "missing"}), "--list");
  expect_usage_error(open({"--list", dir_.path()}), "--list");
  expect_usage_error(open({"--list0"}), "--list0");
  fdbench::testing::write_text(dir_ / "list", "a\n");
  expect_usage_error(open({"--tree", dir_.path(), "--list", dir_ / "list"}), "--tree");
  expect_usage_error(open({"--tree", dir_.path(), "--flags", "rdwr"}), "--flags");
}

// --files and --layout shape the set fdbench makes; with the user's files they would be
// ignored, so they are refused.
TEST_F(OpenFlags, SetOptionsWithTheUsersFilesAreRefused) {
  fdbench::testing::write_text(dir_ / "list", "a\n");
  expect_usage_error(open({"--tree", dir_.path(), "--files", "10"}), "--tree and --files");
  expect_usage_error(open({"--tree", dir_.path(), "--layout", "dirs:5"}), "--tree and --layout");
  expect_usage_error(open({"--list", dir_ / "list", "--files", "10"}), "--list and --files");
  expect_usage_error(open({"--list", dir_ / "list", "--layout", "flat"}), "--list and --layout");
  expect_usage_error({"tune", "--tree", dir_.path(), "--files", "10"}, "--tree and --files");
  const Outcome o = parse(open({"--tree", dir_.path(), "--files", "10"}));
  EXPECT_EQ(o.err,
            "Error: fdbench open: --tree and --files: --files is for the set of files fdbench "
            "makes, --tree opens files that exist; drop --files\n");
}

// A list separated otherwise than --list0 says is refused before anything runs.
TEST_F(OpenFlags, ListSeparatedOtherwiseThanSaidIsRefused) {
  fdbench::testing::write_text(dir_ / "nul", std::string("a\0b\0", 4));
  fdbench::testing::write_text(dir_ / "lines", "a\nb\n");
  expect_usage_error(open({"--list", dir_ / "nul"}), "add --list0");
  expect_usage_error(open({"--list", dir_ / "lines", "--list0"}), "drop --list0");
  expect_usage_error({"tune", "--list", dir_ / "nul"}, "add --list0");
  EXPECT_TRUE(parse(open({"--list", dir_ / "nul", "--list0"})).parsed.command.has_value());
  EXPECT_TRUE(parse(open({"--list", dir_ / "lines"})).parsed.command.has_value());
}

TEST_F(OpenFlags, ValidValuesParse) {
  const std::string output = dir_ / "out.csv";
  const Command c = expect_command(
      open({"--files", "500", "--threads", "3,1", "--strategy", "pool,threads", "--batch", "8",
            "--repeat", "3", "--warmup", "0", "--format", "csv", "--output", output}));
  EXPECT_TRUE(is<OpenCommand>(c));
  EXPECT_EQ(open_of(c).files, 500U);
  EXPECT_EQ(open_of(c).threads, (std::vector<int>{3, 1}));
  EXPECT_EQ(open_of(c).strategies, (std::vector<std::string>{"pool", "threads"}));
  EXPECT_EQ(open_of(c).batch, 8);
  EXPECT_EQ(open_of(c).repeat, Repeat::fixed(3));
  EXPECT_EQ(open_of(c).warmup, 0);
  EXPECT_EQ(open_of(c).dir, dir_.path());
  EXPECT_EQ(format_of(c), "csv");
  EXPECT_EQ(outputs_of(c).output, output);
}

TEST_F(OpenFlags, PathsParse) {
  EXPECT_EQ(open_of(expect_command(open({"--paths", "absolute"}))).paths, PathMode::absolute);
  EXPECT_EQ(open_of(expect_command(open({"--paths", "relative"}))).paths, PathMode::relative);
}

TEST_F(OpenFlags, LimitsAreAccepted) {
  const Command c = expect_command(open({"--threads", "1,1024", "--files", "1", "--batch", "1"}));
  EXPECT_EQ(open_of(c).threads, (std::vector<int>{1, 1024}));
  EXPECT_EQ(open_of(c).files, 1U);
  EXPECT_EQ(open_of(c).batch, 1);
}

TEST_F(OpenFlags, EveryRegisteredStrategyIsAccepted) {
  for (const auto& name : strategy_names_for(WorkloadKind::open)) {
    // One this build lacks as a whole is refused in one line that names why and what can run.
    if (const std::string why = find_strategy(name)->unavailable_reason(); !why.empty()) {
      expect_usage_error(open({"--strategy", name}), why);
      continue;
    }
    const Command c = expect_command(open({"--strategy", name}));
    EXPECT_EQ(open_of(c).strategies, std::vector<std::string>{name});
  }
}

TEST_F(OpenFlags, UringTuningAndClose) {
  for (const std::string bad : {"bogus", "ALL", "", "flags,ring-fd"}) {
    expect_usage_error(open({"--uring-tuning", bad}), "--uring-tuning");
    expect_usage_error({"socket", "--uring-tuning", bad}, "--uring-tuning");
  }
  for (const std::string bad : {"bogus", "Linked", ""}) {
    expect_usage_error(open({"--uring-close", bad}), "--uring-close");
  }
  const Command defaults = expect_command(open({}));
  EXPECT_TRUE(open_of(defaults).uring.setup_flags);
  EXPECT_TRUE(open_of(defaults).uring.register_ring_fd);
  EXPECT_EQ(open_of(defaults).uring.close, UringOptions{}.close);
  const struct {
    const char* tuning;
    bool flags;
    bool ring_fd;
  } kTunings[] = {{"all", true, true},
                  {"flags", true, false},
                  {"ring-fd", false, true},
                  {"none", false, false}};
  for (const auto& t : kTunings) {
    SCOPED_TRACE(t.tuning);
    const Command c = expect_command(open({"--uring-tuning", t.tuning, "--uring-close", "linked"}));
    EXPECT_EQ(open_of(c).uring.setup_flags, t.flags);
    EXPECT_EQ(open_of(c).uring.register_ring_fd, t.ring_fd);
    EXPECT_EQ(open_of(c).uring.close, UringOptions::Close::linked);
    const Command s = expect_command({"socket", "--uring-tuning", t.tuning});
    EXPECT_EQ(socket_of(s).uring.setup_flags, t.flags);
    EXPECT_EQ(socket_of(s).uring.register_ring_fd, t.ring_fd);
  }
  EXPECT_EQ(open_of(expect_command(open({"--uring-close", "batched"}))).uring.close,
            UringOptions::Close::batched);
}

TEST(OpenDefaults, MatchTheSeedExperiment) {
  const Command c = expect_command({"open"});
  EXPECT_TRUE(is<OpenCommand>(c));
  EXPECT_EQ(open_of(c).files, 10000U);
  EXPECT_EQ(open_of(c).threads, (std::vector<int>{1, 2, 4, 8, 16}));
  // Every registered strategy that opens (not accept's alone), in registry order: the seed's
  // three come first.
  EXPECT_EQ(open_of(c).strategies, strategy_names_for(WorkloadKind::open));
  ASSERT_GE(open_of(c).strategies.size(), 3U);
  EXPECT_EQ(
      std::vector<std::string>(open_of(c).strategies.begin(), open_of(c).strategies.begin() + 3),
      (std::vector<std::string>{"threads", "pool", "pool-batch"}));
  EXPECT_EQ(open_of(c).batch, 64);
  EXPECT_EQ(open_of(c).repeat, Repeat{});  // auto
  EXPECT_TRUE(open_of(c).repeat.automatic());
  EXPECT_EQ(open_of(c).warmup, 1);
  EXPECT_EQ(open_of(c).paths, PathMode::relative);
  EXPECT_EQ(open_of(c).dir, "");  // $TMPDIR or /tmp, resolved where the set is made
  EXPECT_EQ(format_of(c), "table");
  EXPECT_EQ(outputs_of(c).output, "");
}

TEST(SocketFlags, BadValues) {
  for (const std::string bad : {"0", "1025", "1,,2", "x"}) {
    expect_usage_error({"socket", "--threads", bad}, "--threads");
  }
  for (const std::string bad : {"0", "-1", "lots", "99999999999"}) {
    expect_usage_error({"socket", "--per-thread", bad}, "--per-thread");
  }
  for (const std::string bad : {"bogus", "TCP", ""}) {
    expect_usage_error({"socket", "--kind", bad}, "--kind");
  }
  for (const std::string bad : {"bad", "-5", "off,,auto", "99999999999", "2000000", "auto,"}) {
    expect_usage_error({"socket", "--pregrow", bad}, "--pregrow");
  }
  expect_usage_error({"socket", "--strategy", "unknown"}, "--strategy");
  expect_usage_error({"socket", "--batch", "0"}, "--batch");
  expect_usage_error({"socket", "--repeat", "0"}, "--repeat");
  expect_usage_error({"socket", "--warmup", "-1"}, "--warmup");
  expect_usage_error({"socket", "--format", "xml"}, "--format");
}

TEST(HarnessFlag, MinimalByDefaultPublishedOrBothWhenAsked) {
  EXPECT_EQ(open_of(expect_command({"open"})).harness, (std::vector<Harness>{Harness::minimal}));
  EXPECT_EQ(socket_of(expect_command({"socket"})).harness,
            (std::vector<Harness>{Harness::minimal}));
  const Command both = expect_command({"open", "--harness", "minimal,published"});
  EXPECT_EQ(open_of(both).harness, (std::vector<Harness>{Harness::minimal, Harness::published}));
  EXPECT_EQ(socket_of(expect_command({"socket", "--harness", "published"})).harness,
            (std::vector<Harness>{Harness::published}));
  const Command suite = expect_command({"--harness", "published,minimal"});
  EXPECT_EQ(open_of(suite).harness, (std::vector<Harness>{Harness::published, Harness::minimal}));
  EXPECT_EQ(socket_of(suite).harness, open_of(suite).harness);
}

TEST(HarnessFlag, BadValuesAndWhatThePublishedOpenCannotDoAreRefused) {
  for (const std::string bad : {"", "fast", "minimal,", "published,,minimal", "Minimal"}) {
    expect_usage_error({"open", "--harness", bad}, "--harness");
    expect_usage_error({"socket", "--harness", bad}, "--harness");
  }
  TempDir dir;
  const std::string list = dir / "list";
  fdbench::testing::write_text(list, "a\n");
  for (const std::vector<std::string>& with : {std::vector<std::string>{"--tree", dir.path()},
                                               {"--list", list},
                                               {"--layout", "dirs:4"},
                                               {"--keep-open"},
                                               {"--paths", "absolute"},
                                               {"--flags", "path"}}) {
    std::vector<std::string> args = {"open", "--harness", "minimal,published"};
    args.insert(args.end(), with.begin(), with.end());
    expect_usage_error(args, "--harness published");
    // The minimal harness alone takes them as before.
    args[2] = "minimal";
    expect_command(args);
  }
  expect_usage_error({"tune", "--harness", "published"}, "--harness");
}

TEST(SocketFlags, ValidValuesParse) {
  const Command c = expect_command({"socket", "--threads", "2,4", "--per-thread", "32", "--kind",
                                    "udp", "--pregrow", "off,auto,1023", "--repeat", "2",
                                    "--warmup", "0", "--format", "json"});
  EXPECT_TRUE(is<SocketCommand>(c));
  EXPECT_EQ(socket_of(c).threads, (std::vector<int>{2, 4}));
  EXPECT_EQ(socket_of(c).per_thread, 32U);
  EXPECT_EQ(socket_of(c).kind, SocketKind::udp);
  ASSERT_EQ(socket_of(c).pregrow.size(), 3U);
  EXPECT_EQ(socket_of(c).pregrow[0].mode, Pregrow::Mode::off);
  EXPECT_EQ(socket_of(c).pregrow[1].mode, Pregrow::Mode::automatic);
  EXPECT_EQ(socket_of(c).pregrow[2].mode, Pregrow::Mode::fd);
  EXPECT_EQ(socket_of(c).pregrow[2].fd, 1023);
  EXPECT_EQ(socket_of(c).pregrow[2].label(), "1023");
  EXPECT_EQ(socket_of(c).repeat, Repeat::fixed(2));
  EXPECT_EQ(socket_of(c).warmup, 0);
  EXPECT_EQ(format_of(c), "json");
}

TEST(SocketFlags, EveryKindIsAccepted) {
  for (const auto& name : socket_kind_names()) {
    // One this system cannot make (eventfd off Linux and FreeBSD) is refused saying so.
    SocketKind kind{};
    ASSERT_TRUE(parse_socket_kind(name, kind));
    if (const std::string why = socket_kind_unavailable_reason(kind); !why.empty()) {
      expect_usage_error({"socket", "--kind", name}, why);
      continue;
    }
    const Command c = expect_command({"socket", "--kind", name});
    EXPECT_EQ(to_string(socket_of(c).kind), name);
  }
}

TEST(SocketDefaults, MatchTheSeedExperiment) {
  const Command c = expect_command({"socket"});
  EXPECT_TRUE(is<SocketCommand>(c));
  EXPECT_EQ(socket_of(c).strategies, std::vector<std::string>{"threads"});
  EXPECT_EQ(socket_of(c).threads, std::vector<int>{2});
  EXPECT_EQ(socket_of(c).per_thread, 256U);
  EXPECT_EQ(socket_of(c).kind, SocketKind::tcp);
  ASSERT_EQ(socket_of(c).pregrow.size(), 2U);
  EXPECT_EQ(socket_of(c).pregrow[0].label(), "off");
  EXPECT_EQ(socket_of(c).pregrow[1].label(), "auto");
  EXPECT_EQ(socket_of(c).repeat, Repeat{});  // auto
  EXPECT_TRUE(socket_of(c).repeat.automatic());
  EXPECT_EQ(socket_of(c).warmup, 1);
}

TEST(SuiteFlags, BadTopLevelValues) {
  TempDir dir;
  expect_usage_error({"--format", "xml"}, "--format");
  expect_usage_error({"--repeat", "0"}, "--repeat");
  expect_usage_error({"--warmup", "-1"}, "--warmup");
  expect_usage_error({"--output", dir / "missing/out.json"}, "--output");
  expect_usage_error({"--dir", dir / "missing"}, "--dir");
}

TEST(SuiteFlags, NoSubcommandRunsBothExperiments) {
  TempDir dir;
  const Command c = expect_command({"--repeat", "3", "--warmup", "0", "--dir", dir.path()});
  EXPECT_TRUE(is<SuiteCommand>(c));
  EXPECT_EQ(open_of(c).dir, dir.path());
  EXPECT_EQ(open_of(c).repeat, Repeat::fixed(3));
  EXPECT_EQ(open_of(c).warmup, 0);
  EXPECT_EQ(socket_of(c).repeat, Repeat::fixed(3));
  EXPECT_EQ(socket_of(c).warmup, 0);
  EXPECT_EQ(open_of(c).files, 10000U);
  EXPECT_EQ(socket_of(c).per_thread, 256U);
}

TEST(SuiteFlags, TheBudgetIsSharedByEverySweepByTheirResults) {
  TempDir dir;
  const auto shares = [](const Command& c) {
    const auto& suite = as<SuiteCommand>(c);
    return std::array{suite.open.repeat.budget_s, suite.socket.repeat.budget_s,
                      suite.accept.repeat.budget_s};
  };
  const auto [open, socket, accept] =
      shares(expect_command({"--budget", "46", "--dir", dir.path()}));
  EXPECT_NEAR(open + socket + accept, 46, 1e-9);
  EXPECT_GT(open, socket);  // open has the more results
  EXPECT_GT(socket, 0);
  EXPECT_GT(accept, 0);
  // By default too; a fixed --repeat has none to share.
  const auto by_default = shares(expect_command({"--dir", dir.path()}));
  EXPECT_NEAR(by_default[0] + by_default[1] + by_default[2], SuiteCommand{}.budget_s, 1e-9);
  EXPECT_EQ(open_of(expect_command({"--repeat", "5", "--dir", dir.path()})).repeat.budget_s, 0);
  expect_usage_error({"--budget", "0"}, "--budget");
  expect_usage_error({"--budget", "soon"}, "--budget");
}

TEST(SuiteFlags, TopLevelOptionBeforeASubcommandIsRejected) {
  expect_usage_error({"--repeat", "3", "open"}, "--repeat");
  expect_usage_error({"--format", "json", "socket"}, "--format");
}

TEST(OtherCommands, StrategiesAndClean) {
  EXPECT_TRUE(is<StrategiesCommand>(expect_command({"strategies"})));
  TempDir dir;
  const Command c = expect_command({"clean", "--dir", dir.path()});
  EXPECT_TRUE(is<CleanCommand>(c));
  EXPECT_EQ(as<CleanCommand>(c).dir, dir.path());
  expect_usage_error({"clean", "--dir", dir / "missing"}, "--dir");
}

TEST(ExportFlags, EachFormatToItsOwnFile) {
  TempDir dir;
  const Command c = expect_command({"open", "--dir", dir.path(), "--export-json", dir / "a.json",
                                    "--export-csv", dir / "a.csv", "--export-markdown",
                                    dir / "a.md", "--format", "json", "--output", dir / "out"});
  ASSERT_EQ(outputs_of(c).exports.size(), 3U);
  EXPECT_EQ(outputs_of(c).exports[0].flag, "--export-json");
  EXPECT_EQ(outputs_of(c).exports[0].format, "json");
  EXPECT_EQ(outputs_of(c).exports[0].path, dir / "a.json");
  EXPECT_EQ(outputs_of(c).exports[1].format, "csv");
  EXPECT_EQ(outputs_of(c).exports[2].format, "markdown");
  EXPECT_EQ(outputs_of(c).output, dir / "out");
  EXPECT_EQ(outputs_of(expect_command({"socket", "--export-json", dir / "s.json"})).exports.size(),
            1U);
  EXPECT_EQ(outputs_of(expect_command({"--dir", dir.path(), "--export-csv", dir / "suite.csv"}))
                .exports.size(),
            1U);
  EXPECT_TRUE(outputs_of(expect_command({"open", "--dir", dir.path()})).exports.empty());
}

TEST(ExportFlags, BadFilesAreUsageErrors) {
  TempDir dir;
  expect_usage_error({"open", "--dir", dir.path(), "--export-json", dir / "missing/a.json"},
                     "--export-json");
  expect_usage_error({"socket", "--export-csv", dir.path()}, "--export-csv");
  expect_usage_error(
      {"open", "--dir", dir.path(), "--export-json", dir / "a", "--export-csv", dir / "a"},
      "--export-csv");
  expect_usage_error(
      {"open", "--dir", dir.path(), "--output", dir / "a", "--export-markdown", dir / "a"},
      "--output");
  expect_usage_error({"--export-json", dir / "a.json", "open"}, "--export-json");
}

TEST(EnvCommand, ParsesDirAndFormat) {
  TempDir dir;
  const Command c = expect_command({"env", "--dir", dir.path(), "--format", "json"});
  EXPECT_TRUE(is<EnvCommand>(c));
  EXPECT_EQ(as<EnvCommand>(c).dir, dir.path());
  EXPECT_EQ(format_of(c), "json");
  EXPECT_EQ(as<EnvCommand>(expect_command({"env"})).dir, platform::default_dir());
  EXPECT_EQ(format_of(expect_command({"env"})), "table");
  expect_usage_error({"env", "--format", "csv"}, "--format");
  expect_usage_error({"env", "--dir", dir / "missing"}, "--dir");
}

TEST(CompareCommand, ParsesFilesReferencesAndFormat) {
  const Command c =
      expect_command({"compare", "a.json", "b.json", "c.json", "--format", "markdown"});
  EXPECT_TRUE(is<CompareCommand>(c));
  EXPECT_EQ(as<CompareCommand>(c).files, (std::vector<std::string>{"a.json", "b.json", "c.json"}));
  EXPECT_FALSE(as<CompareCommand>(c).references);
  EXPECT_EQ(format_of(c), "markdown");
  const Command refs = expect_command({"compare", "--references", "mine.json"});
  EXPECT_TRUE(as<CompareCommand>(refs).references);
  EXPECT_EQ(as<CompareCommand>(refs).files, std::vector<std::string>{"mine.json"});
  EXPECT_EQ(format_of(refs), "table");
}

TEST(CompareCommand, TooFewFilesOrABadFormat) {
  expect_usage_error({"compare"}, "compare");
  expect_usage_error({"compare", "a.json"}, "--references");
  expect_usage_error({"compare", "--references"}, "compare");
  expect_usage_error({"compare", "a.json", "b.json", "--format", "csv"}, "--format");
}

TEST(GeneralFlags, UnknownOptionExits2) {
  expect_usage_error({"--bogus"}, "--bogus");
  expect_usage_error({"open", "--bogus"}, "--bogus");
  expect_usage_error({"socket", "--files", "10"}, "--files");  // an open flag on socket
}

// Each parse error is fdbench's own line: the command, what is wrong, and where its usage is.
TEST(GeneralFlags, ParseErrorsAreOneLineNamingTheCommandAndItsHelp) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"open", "--fils", "1000"},
       "fdbench open: unknown option '--fils' (did you mean --files?); see 'fdbench open --help'"},
      {{"open", "--fils=1000"},
       "fdbench open: unknown option '--fils' (did you mean --files?); see 'fdbench open --help'"},
      {{"socket", "--files", "3"},
       "fdbench socket: unknown option '--files' (an option of open, tune); see 'fdbench socket "
       "--help'"},
      {{"open", "--zzzzzz"}, "fdbench open: unknown option '--zzzzzz'; see 'fdbench open --help'"},
      {{"--files", "3"},
       "fdbench: unknown option '--files' (an option of open, tune); see "
       "'fdbench --help'"},
      {{"opne"}, "fdbench: unknown command 'opne' (did you mean open?); see 'fdbench --help'"},
      {{"open", "extra"}, "fdbench open: unexpected argument 'extra'; see 'fdbench open --help'"},
      {{"open", "--keep-open", "yes"},
       "fdbench open: unexpected argument 'yes' (--keep-open takes no value); see 'fdbench open "
       "--help'"},
      {{"open", "--files"}, "fdbench open: --files needs a value (N); see 'fdbench open --help'"},
      {{"open", "--files="}, "fdbench open: --files needs a value (N); see 'fdbench open --help'"},
      {{"--", "x"},
       "fdbench: unknown command 'x' (the commands: open, socket, accept, server, pregrow, "
       "strategies, clean, env, compare, report, history, trace, completion, tune); see 'fdbench "
       "--help'"},
      {{"open", "--files", "--threads", "2"},
       "fdbench open: --files needs a value (N); it took --threads as its value; see 'fdbench "
       "open --help'"},
      {{"open", "--files", "1", "--files", "2"},
       "fdbench open: --files is given more than once; give it once; see 'fdbench open --help'"},
      {{"completion"},
       "fdbench completion: SHELL is missing (the shell: bash, zsh or fish); see 'fdbench "
       "completion --help'"},
      {{"open", "--files", "many"},
       "fdbench open: --files: 'many' is not a whole number; see 'fdbench open --help'"},
      {{"open", "--files", "0"},
       "fdbench open: --files: 0 is out of range (allowed: 1 to 10000000); see 'fdbench open "
       "--help'"},
  };
  for (const auto& [args, line] : cases) {
    SCOPED_TRACE(describe(args));
    const Outcome o = parse(args);
    EXPECT_EQ(o.parsed.exit_code, 2);
    EXPECT_EQ(o.err, "Error: " + line + "\n");
    EXPECT_EQ(o.out, "");
  }
}

// A mistake that is not about the form of the line names its command, without the help.
TEST(GeneralFlags, OtherUsageErrorsNameTheCommand) {
  const Outcome o = parse({"compare", "a.json"});
  EXPECT_EQ(o.err,
            "Error: fdbench compare: name two or more results files (written with --format json "
            "or --export-json), or one with --references\n");
}

TEST(GeneralFlags, HelpExits0) {
  for (const auto& args : {std::vector<std::string>{"--help"},
                           {"open", "--help"},
                           {"socket", "--help"},
                           {"-h"},
                           {"env", "--help"},
                           {"compare", "--help"}}) {
    SCOPED_TRACE(describe(args));
    const Outcome o = parse(args);
    EXPECT_FALSE(o.parsed.command.has_value());
    EXPECT_EQ(o.parsed.exit_code, 0);
    EXPECT_NE(o.out.find("--"), std::string::npos) << o.out;
    EXPECT_EQ(o.err, "");
  }
  const Outcome top = parse({"--help"});
  EXPECT_NE(top.out.find("open"), std::string::npos);
  EXPECT_NE(top.out.find("socket"), std::string::npos);
  EXPECT_NE(parse({"open", "--help"}).out.find("--files"), std::string::npos);
  EXPECT_NE(parse({"socket", "--help"}).out.find("--pregrow"), std::string::npos);
}

TEST(GeneralFlags, VersionExits0AndPrintsTheVersion) {
  const Outcome o = parse({"--version"});
  EXPECT_FALSE(o.parsed.command.has_value());
  EXPECT_EQ(o.parsed.exit_code, 0);
  EXPECT_NE(o.out.find("fdbench " + std::string(version())), std::string::npos) << o.out;
}

// A long value is echoed cut (issue 49 item 10): a 100,000-character value of any option made a
// 100 KB error line. Its start and end stay, around "…"; the line names the flag.
TEST(ParseErrors, ALongValueIsEchoedCut) {
  const std::string huge(100'000, 'x');
  const std::string huge_path = "/" + std::string(100'000, 'p');
  const std::vector<std::vector<std::string>> lines{
      {"open", "--files", huge},
      {"open", "--strategy", huge},
      {"open", "--strategy", "threads," + huge},
      {"open", "--timeout=" + huge},
      {"open", "--format", huge},
      {"open", "--dir", huge_path},
      {"open", "--layout", huge},
      {"compare", "--baseline", "last", "--fail-if-slower", huge, "a.json"},
      {"open", "--" + huge},
  };
  for (const auto& args : lines) {
    SCOPED_TRACE(describe(args).substr(0, 60));
    const Outcome o = parse(args);
    EXPECT_EQ(o.parsed.exit_code, 2);
    EXPECT_EQ(o.err.rfind("Error: ", 0), 0U) << o.err.substr(0, 300);
    EXPECT_LT(o.err.size(), 400U) << o.err.substr(0, 300);
    EXPECT_NE(o.err.find("…"), std::string::npos) << o.err.substr(0, 300);
  }
}

// One grammar for every number (issue 49 item 10): --fail-if-slower took "0x10" as 16% where
// --timeout refuses it; plain decimals only, as for every other option.
TEST(ParseErrors, EveryNumberIsPlainDecimals) {
  for (const char* bad : {"0x10", "1e1", "inf", "nan", "+5", " 5", "5 ", ".5", "5."}) {
    SCOPED_TRACE(bad);
    expect_usage_error({"compare", "--baseline", "last", "--fail-if-slower", bad, "a.json"},
                       "--fail-if-slower");
    expect_usage_error({"open", "--repeat", "auto", "--precision", bad}, "--precision");
    expect_usage_error({"open", "--repeat", "auto", "--max-time", bad}, "--max-time");
    expect_usage_error({"open", "--timeout", bad}, "--timeout");
  }
}

// More directories than files is refused in one line (issue 49 item 9: dirs:100000 for 10 files
// made 100,000 directories); as many as the files is a set.
TEST(ParseErrors, MoreDirectoriesThanFilesIsRefused) {
  TempDir dir;
  expect_usage_error({"open", "--layout", "dirs:100000", "--files", "10", "--dir", dir.path()},
                     "at most dirs:10");
  expect_usage_error({"open", "--layout", "dirs:11", "--files", "10", "--dir", dir.path()},
                     "--layout dirs:11 with --files 10");
  const Outcome o = parse({"open", "--layout", "dirs:10", "--files", "10", "--dir", dir.path()});
  EXPECT_EQ(o.parsed.exit_code, 0) << o.err;
}

// A command's name is said once (issue 49 item 10: "fdbench history: history: trend prints ...").
TEST(ParseErrors, TheCommandIsNamedOnce) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"history", "trend", "--format", "csv"},
           {"history", "bogus"},
           {"history", "show", "1", "2"},
           {"history", "export", "1"}}) {
    SCOPED_TRACE(describe(args));
    const Outcome o = parse(args);
    EXPECT_EQ(o.parsed.exit_code, 2);
    EXPECT_EQ(o.err.find("history: history:"), std::string::npos) << o.err;
    EXPECT_EQ(o.err.rfind("Error: fdbench history: ", 0), 0U) << o.err;
  }
}

}  // namespace cli_parse_test
}  // namespace fdbench::cli

namespace fdbench::cli {
namespace cli_parse_test {

TEST(Timeout, NoneForPrivateSetsAMinuteForTheUsersFiles) {
  const TempDir tree;
  EXPECT_EQ(open_of(expect_command({"open"})).timeout_s, 0);
  EXPECT_EQ(socket_of(expect_command({"socket"})).timeout_s, 0);
  EXPECT_EQ(open_of(expect_command({"open", "--tree", tree.path()})).timeout_s, 60);
  EXPECT_EQ(open_of(expect_command({"open", "--tree", tree.path(), "--timeout", "none"})).timeout_s,
            0);
  EXPECT_EQ(open_of(expect_command({"open", "--timeout", "0.5"})).timeout_s, 0.5);
  EXPECT_EQ(socket_of(expect_command({"socket", "--timeout", "2"})).timeout_s, 2);
  // tune: the same option, the same defaults.
  EXPECT_EQ(open_of(expect_command({"tune"})).timeout_s, 0);
  EXPECT_EQ(open_of(expect_command({"tune", "--tree", tree.path()})).timeout_s, 60);
  EXPECT_EQ(open_of(expect_command({"tune", "--timeout", "2.5"})).timeout_s, 2.5);
  expect_usage_error({"tune", "--timeout", "soon"}, "--timeout");
  const Command suite = expect_command({"--timeout", "30"});
  EXPECT_EQ(open_of(suite).timeout_s, 30);
  EXPECT_EQ(socket_of(suite).timeout_s, 30);
}

// 0 is not a quiet way to say none (issue 21 item 14): it is refused, saying to write none.
TEST(Timeout, ZeroIsRefusedNamingNone) {
  for (const char* zero : {"0", "0.0", "000.000"}) {
    SCOPED_TRACE(zero);
    expect_usage_error({"open", "--timeout", zero}, "--timeout");
    const Outcome o = parse({"open", "--timeout", zero});
    EXPECT_NE(o.err.find("--timeout none"), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find('\n'), o.err.size() - 1) << "one line: " << o.err;
  }
  expect_usage_error({"tune", "--timeout", "0"}, "--timeout");
  expect_usage_error({"--timeout", "0"}, "--timeout");
}

// An argument echoed in an error reaches the terminal escaped (issue 21 item 16): an ESC in it
// would start a terminal command, a newline would make the one line two.
TEST(ParseErrors, EchoedBytesAreEscaped) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"open", "--files", "1\x1b[2J\x07"},
        std::vector<std::string>{"open", "--fil\x1b[2Jes", "1"},
        std::vector<std::string>{"open", "--timeout", "5\n\xff"}}) {
    SCOPED_TRACE(describe(args));
    const Outcome o = parse(args);
    EXPECT_EQ(o.parsed.exit_code, 2);
    ASSERT_FALSE(o.err.empty());
    EXPECT_EQ(o.err.find('\n'), o.err.size() - 1) << o.err;
    for (std::size_t i = 0; i + 1 < o.err.size(); ++i) {
      const auto c = static_cast<unsigned char>(o.err[i]);
      EXPECT_TRUE(c >= 0x20 && c != 0x7f && c != 0xff) << "byte " << int(c) << " in " << o.err;
    }
    EXPECT_TRUE(o.err.find("\\x1b") != std::string::npos ||
                o.err.find("\\x0a") != std::string::npos)
        << o.err;
  }
}

// issue 39 item 7: strtod took "1e-10", "1e-300" and "5e-324" (below the nanoseconds the limit
// is kept in, so no limit at all) and "0x10"; "" was taken as not given. Only plain decimal
// seconds, at least the clock's 1 ns, are a limit; everything else is one usage line.
TEST(Timeout, OnlyPlainDecimalSecondsOfAtLeastTheClocksResolution) {
  for (const char* bad : {"1e-10", "1e-300", "5e-324", "0x10", "", "1e3", "+5", " 5", "5.", ".5",
                          "0.0000000001", "0.0000000009"}) {
    SCOPED_TRACE(bad);
    for (const char* command : {"open", "socket", "tune"}) {
      const Outcome o = parse({command, "--timeout", bad});
      EXPECT_EQ(o.parsed.exit_code, 2) << o.err;
      EXPECT_NE(o.err.find("--timeout"), std::string::npos) << o.err;
      EXPECT_EQ(o.err.find('\n'), o.err.size() - 1) << "one line: " << o.err;
    }
  }
  EXPECT_NE(parse({"open", "--timeout", "0.0000000001"}).err.find("resolution"), std::string::npos);
  EXPECT_EQ(open_of(expect_command({"open", "--timeout", "0.000000001"})).timeout_s, 1e-9);
  EXPECT_EQ(open_of(expect_command({"open", "--timeout", "007.25"})).timeout_s, 7.25);
}

// An option given "" is refused, not taken as not given (issue 39 items 7 and 14).
TEST(EmptyValue, IsRefusedRatherThanTakenAsNotGiven) {
  for (const char* flag : {"--export-json", "--export-csv", "--output", "--dir", "--timeout"}) {
    SCOPED_TRACE(flag);
    const Outcome o = parse({"open", flag, ""});
    EXPECT_EQ(o.parsed.exit_code, 2) << o.err;
    EXPECT_NE(o.err.find(flag), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("empty"), std::string::npos) << o.err;
  }
}

TEST(Timeout, WhatIsNotANumberOfSecondsIsAUsageError) {
  for (const char* bad : {"abc", "-1", "1s", ".5x", "nan", "inf", "1e9"}) {
    expect_usage_error({"open", "--timeout", bad}, "--timeout");
  }
}

}  // namespace cli_parse_test
}  // namespace fdbench::cli
