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
p < 0.05); the report ends on those rows and a verdict line ("gate: 0 of 40 results slower by
more than 10%: pass"). Results on one side only are listed, never a failure. With no baseline
yet (a fresh history: the first CI job) --baseline last says so in one line and exits 0, and
the run compared is the next one's baseline; --require-baseline makes that exit 1.)";

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

constexpr const char* const kPregrowFooter = R"(
A launcher: it grows its own descriptor table to hold N slots (one F_DUPFD to descriptor
N-1, closed again; a descriptor already open there is never touched), then replaces itself
with CMD (execvp: found on PATH, the environment, descriptors, limits and signal dispositions
as fdbench got them). Linux keeps a table that no other thread shares across exec, so CMD
starts with the grown table: a multi-threaded server started this way never waits for an RCU
grace period while its first burst of connections would have doubled a shared table. Its
exit status is CMD's; 127 when CMD is not found and 126 when it cannot be run, as a shell
says; 2 when N is not a number from 1 or is above ulimit -n. fdbench-pregrow, installed
beside fdbench, does the same in a few dozen lines of C, for a systemd unit or a container
entrypoint; in a shell: exec 4095</dev/null; exec 4095<&-; exec CMD.

Examples:
  fdbench pregrow 4096 -- memcached -t 4 -c 4096
  fdbench pregrow 4096 -- sh -c 'grep FDSize /proc/$$/status')";

constexpr const char* const kServerFooter = R"(
Your own server, unmodified: each repetition starts CMD fresh in a session and process group
of its own ({port} in its arguments becomes a free loopback port, or --port), waits until it
answers a client, then measures its first burst: --connections clients on 127.0.0.1, queued
while the server is stopped (SIGSTOP, connect and send, SIGCONT: the clock runs from the
resume to the last reply) or, with --arrival open, connecting as fast as they can. Per reply:
p50, p99, p99.9 and max; per repetition: the time to drain the burst, the server's FDSize
before and after and the table's doublings seen between (from /proc/PID/status), its threads
and processes. Each --pregrow setting starts the server through the launcher of `fdbench
pregrow` (grow the table, then exec), the settings in turns. The server is stopped (TERM,
then KILL after 3 s) and reaped after every repetition, a failure, Ctrl-C, SIGTERM or SIGHUP;
one that exits early or never answers ends its row with one line and its last output. Linux.

Examples:
  fdbench server -- memcached -u nobody -l 127.0.0.1 -p {port} -t 4 -c 4096 -b 2048
  fdbench server --probe http --connections 500 -- nginx -c /path/nginx.conf)";
constexpr const char* const kTraceFooter = R"(
Runs CMD (or watches --pid PID) through perf events and reports every descriptor-creating call
(openat, open, creat, openat2, socket, socketpair, accept, accept4, pipe, pipe2, dup, dup2,
dup3, fcntl F_DUPFD, eventfd, epoll_create, memfd_create) and close: counts, failures by errno,
time inside them (total, p50, p99, p99.9, max) and their share of the wall time, by thread; the
descriptor table's size at the start and the end and each growth (the call, the new size, how
long it took, how many threads shared the table); and the time spent off a CPU inside those
calls by kernel cause (fd-table-growth: an RCU grace period, waiting-on-growth, lock, ...).
The program is never ptraced, signalled or changed. Needs Linux and root or CAP_PERFMON.
The command's output and exit code pass through: fdbench exits with the command's exit code
when tracing worked, 1 (without running it) when tracing cannot begin, 127 or 126 when it is
not found or cannot be run; with --pid, 0 when it traced. The report goes to stderr (stdout is the command's), or to stdout with --pid.

Examples:
  fdbench trace -- python3 build.py
  fdbench trace --format json -o trace.json -- node server.js
  fdbench trace --pid 4242 --duration 10)";

// In the order `fdbench --help` lists them.
const std::vector<CommandHelp> kCommands = {
    {Cmd::suite, "fdbench", "fdbench: how fast can this machine create file descriptors?",
     kSuiteFooter},
    {Cmd::open, "open", "Open and close N distinct empty files", kOpenFooter},
    {Cmd::socket, "socket", "T threads each create and hold N descriptors", kSocketFooter},
    {Cmd::accept, "accept", "A fresh server's T threads accept a queued burst of connections",
     kAcceptFooter},
    {Cmd::server, "server",
     "An unmodified server's first burst of loopback clients, from its starting table and "
     "pre-grown",
     kServerFooter},
    {Cmd::pregrow, "pregrow",
     "Grow the descriptor table to N slots, then run CMD with it (a server's first burst then "
     "never stalls on the table's growth)",
     kPregrowFooter},
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
    {Cmd::trace, "trace",
     "Trace a command's or a process's descriptor-creating calls, table growths and waits",
     kTraceFooter},
    {Cmd::completion, "completion", "Print a shell completion script", kCompletionFooter},
    {Cmd::tune, "tune", "Find the fastest strategy, threads and batch for opening files here",
     kTuneFooter},
};

}  // namespace

const std::vector<CommandHelp>& commands_help() {
  return kCommands;
}

}  // namespace fdbench::cli
