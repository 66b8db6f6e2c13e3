// The table reporter words each Section (what the next results measure, as data) into the
// header lines a reader sees above the rows.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "output/reporter.hpp"
#include "output/reporters/section_text.hpp"

namespace fdbench {
namespace table_section_test {

// The two header lines the table prints for `section`.
std::string header(const Section& section) {
  std::ostringstream out;
  auto table = make_reporter("table", out, {.columns = 0});
  table->section(section);
  return out.str();
}

Section open_section(InputSummary input) {
  Section s;
  s.workload = "open";
  s.kind = DescriptorKind::file;
  s.input = std::move(input);
  s.fs_type = "ext4";
  s.repeat = Repeat::fixed(10);
  s.warmup = 1;
  return s;
}

InputSummary generated_files(std::uint64_t files) {
  InputSummary in;
  in.origin = "/tmp";
  in.files = files;
  return in;
}

TEST(TableSection, GeneratedFiles) {
  EXPECT_EQ(header(open_section(generated_files(10000))),
            "\nopen: 10,000 empty files in /tmp (ext4), rdonly, 10 repetitions (+1 warm-up)\n"
            "(each file opened and closed again; thread and pool creation are not timed)\n");
}

// --paths absolute changes the numbers, so the title says it; a strategy that opens by full path
// whatever --paths says is named in the note (issue 34: only the JSON said so).
TEST(TableSection, PathsAbsoluteAndStrategiesThatOpenByFullPathAreSaid) {
  Section absolute = open_section(generated_files(10000));
  absolute.paths = PathMode::absolute;
  EXPECT_EQ(header(absolute),
            "\nopen: 10,000 empty files in /tmp (ext4), rdonly, opened by absolute path, 10 "
            "repetitions (+1 warm-up)\n"
            "(each file opened and closed again; thread and pool creation are not timed)\n");
  Section relative = open_section(generated_files(10000));
  relative.by_full_path = {"libuv"};
  EXPECT_EQ(header(relative),
            "\nopen: 10,000 empty files in /tmp (ext4), rdonly, 10 repetitions (+1 warm-up)\n"
            "(each file opened and closed again; thread and pool creation are not timed; `libuv` "
            "opens each file by its absolute path (no openat()))\n");
}

TEST(TableSection, OneRepetitionIsOne) {
  Section s = open_section(generated_files(10000));
  s.repeat = Repeat::fixed(1);
  s.warmup = 0;
  EXPECT_EQ(header(s),
            "\nopen: 10,000 empty files in /tmp (ext4), rdonly, 1 repetition, no warm-up\n"
            "(each file opened and closed again; thread and pool creation are not timed)\n");
}

TEST(TableSection, RepeatAutoSaysItsTargetAndItsTimeEachOrTunesSharedBudget) {
  Section s = open_section(generated_files(10000));
  s.repeat = Repeat{};
  EXPECT_EQ(header(s),
            "\nopen: 10,000 empty files in /tmp (ext4), rdonly, repetitions until each median is "
            "decided against its contenders or within ±3% (95%), at most 3 s a result (+1 "
            "warm-up)\n"
            "(each file opened and closed again; thread and pool creation are not timed)\n");
  s.repeat.budget_s = 35;  // the suite's share
  EXPECT_EQ(header(s),
            "\nopen: 10,000 empty files in /tmp (ext4), rdonly, repetitions until each median is "
            "decided against its contenders or within ±3% (95%), at most 3 s a result and a "
            "share of 35 s (+1 warm-up)\n"
            "(each file opened and closed again; thread and pool creation are not timed)\n");
  s.repeat.budget_s = 0;
  s.budget_s = 20;  // tune's sweep
  EXPECT_EQ(header(s),
            "\nopen: 10,000 empty files in /tmp (ext4), rdonly, repetitions until each median is "
            "decided against its contenders or within ±3% (95%), at most a share of the 20 s "
            "--budget each (+1 warm-up)\n"
            "(each file opened and closed again; thread and pool creation are not timed)\n");
}

TEST(TableSection, GeneratedFilesInSubdirectories) {
  InputSummary in = generated_files(20);
  in.flags = "path";
  in.layout = "dirs:3";
  Section s = open_section(in);
  s.subdirs = 3;
  s.repeat = Repeat::fixed(2);
  EXPECT_EQ(header(s),
            "\nopen: 20 empty files in /tmp (ext4, 3 subdirectories), path, 2 repetitions "
            "(+1 warm-up)\n"
            "(each file opened and closed again; thread and pool creation are not timed)\n");
}

TEST(TableSection, FilesKeptOpenInFreshChildren) {
  Section s = open_section(generated_files(20));
  s.held = true;
  s.fresh_child = true;
  EXPECT_EQ(header(s),
            "\nopen: 20 empty files in /tmp (ext4), rdonly, kept open, 10 repetitions "
            "(+1 warm-up)\n"
            "(descriptors are held to the end of each repetition, each in a fresh process; "
            "thread and pool creation are not timed)\n");
}

TEST(TableSection, TheUsersFilesWithWhatWasLeftOut) {
  InputSummary tree;
  tree.source = InputSource::tree;
  tree.origin = "/srv/data";
  tree.layout = "";
  tree.files = 3;
  tree.skipped = {{"fifo", 1}, {"socket", 2}};
  EXPECT_EQ(header(open_section(tree)),
            "\nopen: 3 regular files from --tree /srv/data (ext4), rdonly, 10 repetitions "
            "(+1 warm-up)\n"
            "(each file opened and closed again; thread and pool creation are not timed; "
            "3 entries skipped (not regular files))\n");
  // Regular files left out are not called "not regular files".
  tree.skipped = {{"fifo", 1}, {"no read permission", 2}, {"other filesystem", 1}};
  EXPECT_EQ(header(open_section(tree)),
            "\nopen: 3 regular files from --tree /srv/data (ext4), rdonly, 10 repetitions "
            "(+1 warm-up)\n"
            "(each file opened and closed again; thread and pool creation are not timed; "
            "4 entries skipped (1 not regular files, 2 without read permission, 1 on another "
            "filesystem (see --cross-mounts)))\n");
  // A directory the walk could not read is one without read permission, not irregular.
  tree.skipped = {{"fifo", 1}, {"unreadable directory", 1}};
  EXPECT_EQ(header(open_section(tree)),
            "\nopen: 3 regular files from --tree /srv/data (ext4), rdonly, 10 repetitions "
            "(+1 warm-up)\n"
            "(each file opened and closed again; thread and pool creation are not timed; "
            "2 entries skipped (1 not regular files, 1 without read permission))\n");
  InputSummary list;
  list.source = InputSource::list;
  list.origin = "paths.txt";
  list.files = 1;
  list.missing = {{"No such file or directory", 1}};
  EXPECT_EQ(header(open_section(list)),
            "\nopen: 1 regular files from --list paths.txt (ext4), rdonly, 10 repetitions "
            "(+1 warm-up)\n"
            "(each file opened and closed again; thread and pool creation are not timed; "
            "1 listed paths not found)\n");
}

Section socket_section(const std::string& kind, int descriptors_per_item) {
  Section s;
  s.workload = "socket";
  EXPECT_TRUE(parse_descriptor_kind(kind, s.kind)) << kind;
  s.descriptors_per_item = descriptors_per_item;
  s.per_thread = 1000;
  s.repeat = Repeat::fixed(3);
  s.warmup = 2;
  s.held = true;
  s.fresh_child = true;
  return s;
}

TEST(TableSection, DescriptorsPerThread) {
  EXPECT_EQ(header(socket_section("tcp", 1)),
            "\nsocket: 1,000 tcp descriptors per thread, held to the end; 3 repetitions "
            "(+2 warm-up), each in a fresh process\n"
            "(for `threads` the calling thread is one of the threads; worker creation is not "
            "timed)\n");
  EXPECT_NE(header(socket_section("pipe", 2))
                .find("socket: 1,000 pipes (2 descriptors each) per thread, held to the end;"),
            std::string::npos);
}

// The line under a result with --latency: per call, or per submission for io_uring, whose
// growth events and stalls are then whole submissions.
TEST(TableSection, LatencyLineSaysWhatWasTimed) {
  Result r;
  r.repeat = 2;
  Latency l;
  l.ns["create"] = {1024, 2600, 3000, 54'000, 60'000, 646'000};
  l.growth_totals = {8, 860'000, 0.1};
  r.latency = l;
  EXPECT_EQ(latency_text(r),
            "per call: create p50 2.6 µs, p99 54 µs, max 646 µs; per repetition 4 growth events "
            "(430 µs), 0 stalls (0 ns)");
  l.ns.clear();
  l.ns[kSubmitOp] = {16, 398'000, 2'000'000, 2'090'000, 2'100'000, 2'170'000};
  r.latency = l;
  EXPECT_EQ(latency_text(r),
            "per submission: submit p50 398 µs, p99 2.09 ms, max 2.17 ms; per repetition 4 growth "
            "events (430 µs), 0 stalls (0 ns), each a whole submission");
}

}  // namespace table_section_test
}  // namespace fdbench
