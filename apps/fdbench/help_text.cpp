// The long help of each command: what --help prints after its options.
#include "help_text.hpp"

namespace fdbench::cli {

namespace {

constexpr const char* const kOpenFooter = R"(
Every file is a distinct empty file in a private directory (removed afterwards), unless
--tree or --list names existing files: those are opened read-only (O_NOFOLLOW, O_NONBLOCK),
never written, and FIFOs, sockets, devices, symlinks and files without a read permission bit
are skipped, never opened; each is opened relative to its directory, checked before the clock,
so a link swapped in later leads nowhere, and what opens is checked (a FIFO swapped in for a
file is closed unused, counted). A --tree walk stays on DIR's filesystem (--cross-mounts to enter
others) and off proc, sysfs, tracefs and the kernel's other pseudo-filesystems, where opening
a file can change the kernel's state (--allow-pseudo-fs to walk them). Workers
and pools are created before the clock starts: thread creation is not timed. `libuv` is
libuv's thread pool with uv_fs_open/uv_fs_close, which is how Node.js opens files.
With --keep-open each repetition runs in a fresh child process (see `fdbench socket`).
--paths relative (the default) opens each file relative to its open directory,
openat(dirfd, "N.txt"); --paths absolute opens it by its full path from the root,
open("/dir/N.txt"), so the kernel walks every component each time. The first seed's program
does neither: it opens tmp/N.txt from the directory above its set, which is what --harness
published does. Full paths are built before the clock starts; a relative --tree or --dir and the
relative entries of a --list are resolved against the current directory, and absolute --list
entries stay absolute either way; your files by full path follow no link (openat2). `libuv`
has no openat(): it always opens by full path (your files by /proc/self/fd/N/NAME, through
their checked directory), and its result says so.

Examples:
  fdbench open --files 1000 --threads 1,2 --strategy threads,pool --format json
  fdbench open --tree ~/src/linux --strategy threads,uring --threads 1,2,4
  fdbench open --keep-open --pregrow off,auto --threads 2 --strategy threads,uring-direct)";

constexpr const char* const kSocketFooter = R"(
Every repetition runs in a fresh child process holding only fds 0-2, so it starts from the
kernel's smallest descriptor table (64 on Linux). --pregrow auto grows the table to fit the
whole run before the second thread exists; --pregrow N grows it to hold fd N. The calling
thread is one of the threads; thread creation is not timed.

Examples:
  fdbench socket --threads 2 --per-thread 256 --pregrow off,auto
  fdbench socket --kind eventfd --strategy threads,process,uring-direct)";

constexpr const char* const kAcceptFooter = R"(
A fresh server's first burst: every repetition runs in a fresh server process holding only
fds 0-2, so its descriptor table starts at the kernel's smallest (64 on Linux). It listens on
the loopback (a port the kernel picks) or on a Unix-domain socket in a private directory; a
client process connects the whole burst before the clock starts, then the server's threads
are released together and accept until every connection is theirs, each holding what it
accepted. The clock holds only the accepts. --pregrow auto grows the server's table to fit
the burst before its threads exist. Each accept is timed: the tail (p99.9, max) and the
table's growth events show what the first connections wait for.

Examples:
  fdbench accept --threads 4 --pregrow off,auto
  fdbench accept --kind unix --connections 2000 --strategy threads,process)";

constexpr const char* const kSuiteFooter = R"(
With no subcommand fdbench runs the default suite: both seed experiments, then its findings.
  1. open 10,000 empty files with 1, 2, 4, 8 and 16 threads, with every strategy here
     (plain threads, the seed's thread pool, batched, a fast pool, processes, io_uring,
     io_uring direct descriptors, libuv as Node.js uses it);
  2. two threads each creating 256 TCP sockets, with and without a pre-grown descriptor
     table, and the same with two processes and with io_uring direct descriptors;
  3. a fresh server's four threads accepting a queued burst of 1,000 loopback connections
     (blocking threads and epoll), with and without a pre-grown table.

Examples:
  fdbench
  fdbench open --help
  fdbench socket --pregrow off,auto,1023 --format json --output socket.json)";
constexpr const char* const kCompareFooter = R"(
Results present in every file are set side by side: each file's median, its time ratio to
the first file (< 1: faster) with the ratio's min-max range, and a two-sided Mann-Whitney U
test on the repetition times (p < 0.05: a real difference; under 5 repetitions on a side,
too few to tell). Results only some files have are listed too. The environments come first,
with the fields that differ marked (kernel, CPU, filesystem, mitigations, rcu_expedited, ...).
--references sets each file against the figures the seed experiments published (an Apple
M2, a 64-core Linux server, Linux vs OpenBSD sockets): measured elsewhere, not a
controlled comparison.

Examples:
  fdbench open --export-json ext4.json --dir /tmp && fdbench open --export-json shm.json --dir /dev/shm
  fdbench compare ext4.json shm.json
  fdbench compare --references --format markdown ext4.json
  fdbench compare --baseline last --fail-if-slower 10

With --baseline the run compared is the file named, or else the history's latest run; the
baseline is the last run saved before it (last), a run's ID, or a results FILE. With
--fail-if-slower PERCENT the exit status is 3 when any result present on both sides is slower
than the baseline's by more than PERCENT and the difference is significant (Mann-Whitney U,
p < 0.05); those rows are printed first. Results on one side only are listed, never a failure.)";

constexpr const char* const kReportFooter = R"(
One HTML file that needs nothing else to be viewed (inline SVG, no script, no network): each
run's environment, findings and results, files/s against threads for every strategy with
min-max whiskers and the seed's loop as a reference line, pregrow off against auto for held
descriptors; for several files, the runs side by side with the compare table.
A run can write the same page for itself with --export-html FILE.

Examples:
  fdbench open --export-json ext4.json --export-html ext4.html
  fdbench report ext4.json shm.json -o report.html)";

constexpr const char* const kHistoryFooter = R"(
The history is one SQLite file: every run saved with --save (or FDBENCH_HISTORY=1; tune only
by the variable, since its --save names the recommendation's file), each with its JSON
document, its context (date, host, kernel, CPU, rcu_expedited) and a row per result. Runs
from elsewhere come in with import; the same document is never added twice. A file that is not
an fdbench history, is damaged or was written by a newer fdbench is refused and left as it is.
  list                  every run: id, date, host, kernel, command, results
  show ID               the run as it printed (--format table, json, csv, markdown, html)
  import FILE...        results documents (--format json, --export-json) from anywhere
  export ID -o FILE     the run's JSON document
  rm ID...              remove runs
  trend                 each configuration's median and 95% interval across the runs
                        (--strategy, --threads: only those)

Examples:
  fdbench open --save
  fdbench history list
  fdbench history trend --strategy threads --threads 2
  fdbench compare --baseline last --fail-if-slower 10)";

constexpr const char* const kTuneFooter = R"(
Sweeps every strategy a program can adopt that runs here (not `pool`, the seed's naive pool:
name it with --strategy to measure it as well), threads 1, 2, 4, ... up to twice the logical
CPUs, and batch sizes 16, 64 and 256 where a strategy batches. The combinations take turns,
a repetition each, so drift on a busy machine hits all alike, and each repeats until its
median's 95% interval is within --precision or its share of --budget is spent (6 repetitions
at least); one that is precise early leaves its turns to the others. Then the recommendation: the
fastest setting, the others within noise of it (their medians' 95% intervals overlap, or
there were too few repetitions for such intervals to tell them apart), the knee (the fewest threads within noise of the best), the descriptor-table advice (with
--keep-open: the pre-grow size, and whether the stall was seen without it) and what
RLIMIT_NOFILE must allow. A program reads the --save file with fdbench::load_recommendation.
The recommendation names only strategies whose descriptors land in the calling program's own
table (threads, the pools, libuv, uring): `process` and `uring-direct` are measured and shown,
and named among those not compared, unless --allow-process or --allow-direct lets them in.
Progress lines go to stderr only when it is a terminal (and not --quiet).

Examples:
  fdbench tune
  fdbench tune --tree ~/src/app --keep-open --budget 60
  fdbench tune --files 2000 --budget 5 --save ~/.config/myapp/fdbench.json)";


constexpr const char* const kCleanFooter =
    "\nWith no SET, only directories under --dir named fdbench-XXXXXX that hold fdbench's\n"
    "marker file are touched, and inside them only the names fdbench creates; anything else\n"
    "is left and reported. A kept set is removed only when named, the same way: its marker\n"
    "and the names fdbench creates, nothing else (a set holding anything else, or in use by\n"
    "a running fdbench, is left, and the exit status is 1).\n\n"
    "Examples:\n  fdbench clean --dir /mnt/scratch\n  fdbench clean /mnt/scratch/set-10k";

constexpr const char* const kEnvFooter =
    "\nThe same capture every results file carries as its \"environment\".\n\n"
    "Examples:\n  fdbench env\n  fdbench env --dir /dev/shm --format json";

constexpr const char* const kCompletionFooter =
    "\nInstalled builds put it where bash-completion finds it already.\n\n"
    "Examples:\n  source <(fdbench completion bash)\n"
    "  fdbench completion bash > ~/.local/share/bash-completion/completions/fdbench";

// In the order `fdbench --help` lists them.
const std::vector<CommandHelp> kCommands = {
    {Cmd::suite, "fdbench", "fdbench: how fast can this machine create file descriptors?",
     kSuiteFooter},
    {Cmd::open, "open", "Open and close N distinct empty files", kOpenFooter},
    {Cmd::socket, "socket", "T threads each create and hold N descriptors", kSocketFooter},
    {Cmd::accept, "accept", "A fresh server's T threads accept a queued burst of connections",
     kAcceptFooter},
    {Cmd::strategies, "strategies", "List every strategy and whether it can run here",
     "\nExample:\n  fdbench strategies"},
    {Cmd::clean, "clean",
     "Remove private directories a killed fdbench left behind, or sets kept with --keep-files",
     kCleanFooter},
    {Cmd::env, "env", "Print what fdbench records about this machine", kEnvFooter},
    {Cmd::compare, "compare",
     "Compare results files (--format json), or one against published figures", kCompareFooter},
    {Cmd::report, "report", "Write an HTML report of results files", kReportFooter},
    {Cmd::history, "history", "List, show, import, export or remove saved runs, and trends",
     kHistoryFooter},
    {Cmd::completion, "completion", "Print a shell completion script", kCompletionFooter},
    {Cmd::tune, "tune", "Find the fastest strategy, threads and batch for opening files here",
     kTuneFooter},
};

}  // namespace

const std::vector<CommandHelp>& commands_help() {
  return kCommands;
}

}  // namespace fdbench::cli
