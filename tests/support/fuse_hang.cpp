// fdbench_fuse_hang: a FUSE filesystem whose calls never answer, for the tests of opens that
// never return. Unlike fdbench_hang_opens (a seccomp supervisor, whose held calls are killable),
// the kernel waits for this server's answer in fuse's request_wait_answer(): once the server has
// read the request, not even SIGKILL ends the wait. That is what a hung NFS or FUSE mount does to
// a program, and what fdbench must survive: it can only abandon such a process, never reap it.
//
//   fdbench_fuse_hang [--dead] MOUNTPOINT
//
// Mounts a read-only directory on MOUNTPOINT (as root: /dev/fuse and mount(2)) holding
//   hang0.txt          lookup and getattr answer (an empty regular file), open never does;
//   lookup-hangs.txt   listed by readdir, but its lookup never answers: stat() of it hangs.
// Any other name does not exist. With --dead it is a dead mount instead: no getattr, lookup,
// access, open, opendir, mkdir or create is ever answered, so stat() of MOUNTPOINT itself and
// of any path below it hangs (a mount check must read /proc/self/mountinfo, not stat it). It serves one request at a time and never answers the ones
// it holds, so they wait until the connection ends: when this server dies (its /dev/fuse
// descriptor closes, which aborts the connection, ending every wait with an error) or through
// /sys/fs/fuse/connections/N/abort. SIGTERM, SIGINT and SIGHUP unmount and exit 0; after
// SIGKILL the mount stays, disconnected, until `umount -l MOUNTPOINT`.
//
// Exit codes: 0 after a signal, 2 for a bad command line, 77 when FUSE is unavailable here
// (no /dev/fuse, no permission to mount): the tests skip on 77, saying the line it printed.
#define FUSE_USE_VERSION 31
#include <fuse_lowlevel.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string_view>

namespace {

constexpr int kUnavailable = 77;
constexpr fuse_ino_t kRoot = FUSE_ROOT_ID;
constexpr fuse_ino_t kHangsOnOpen = 2;
constexpr const char* kHangsOnOpenName = "hang0.txt";
constexpr const char* kHangsOnLookupName = "lookup-hangs.txt";

struct stat attributes_of(fuse_ino_t ino) {
  struct stat st {};
  st.st_ino = ino;
  if (ino == kRoot) {
    st.st_mode = S_IFDIR | 0555;
    st.st_nlink = 2;
  } else {
    st.st_mode = S_IFREG | 0444;
    st.st_nlink = 1;
  }
  return st;
}

void on_lookup(fuse_req_t req, fuse_ino_t parent, const char* name) {
  const std::string_view wanted(name);
  if (parent == kRoot && wanted == kHangsOnLookupName) return;  // never answered
  if (parent != kRoot || wanted != kHangsOnOpenName) {
    fuse_reply_err(req, ENOENT);
    return;
  }
  fuse_entry_param entry{};
  entry.ino = kHangsOnOpen;
  entry.attr = attributes_of(kHangsOnOpen);
  entry.attr_timeout = 1.0;
  entry.entry_timeout = 1.0;
  fuse_reply_entry(req, &entry);
}

void on_getattr(fuse_req_t req, fuse_ino_t ino, fuse_file_info* /*fi*/) {
  if (ino != kRoot && ino != kHangsOnOpen) {
    fuse_reply_err(req, ENOENT);
    return;
  }
  const struct stat st = attributes_of(ino);
  fuse_reply_attr(req, &st, 1.0);
}

void on_open(fuse_req_t /*req*/, fuse_ino_t /*ino*/, fuse_file_info* /*fi*/) {
  // Never answered: the caller waits in the kernel until the connection ends.
}

// ".", "..", then both files, in one buffer answered from `offset` on.
void on_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t offset, fuse_file_info* /*fi*/) {
  if (ino != kRoot) {
    fuse_reply_err(req, ENOTDIR);
    return;
  }
  struct Entry {
    const char* name;
    fuse_ino_t ino;
  };
  const Entry entries[] = {
      {".", kRoot}, {"..", kRoot}, {kHangsOnOpenName, kHangsOnOpen}, {kHangsOnLookupName, 3}};
  char buffer[1024];
  size_t used = 0;
  for (off_t i = offset; i < static_cast<off_t>(std::size(entries)); ++i) {
    const Entry& e = entries[i];
    struct stat st {};
    st.st_ino = e.ino;
    st.st_mode = e.ino == kRoot ? S_IFDIR : S_IFREG;
    const size_t need = fuse_add_direntry(req, buffer + used, std::min(size, sizeof buffer) - used,
                                          e.name, &st, i + 1);
    if (used + need > std::min(size, sizeof buffer)) break;
    used += need;
  }
  fuse_reply_buf(req, buffer, used);
}

// Never answered: the dead mount's every call into it.
void never_getattr(fuse_req_t, fuse_ino_t, fuse_file_info*) {}
void never_lookup(fuse_req_t, fuse_ino_t, const char*) {}
void never_access(fuse_req_t, fuse_ino_t, int) {}
void never_mkdir(fuse_req_t, fuse_ino_t, const char*, mode_t) {}
void never_create(fuse_req_t, fuse_ino_t, const char*, mode_t, fuse_file_info*) {}

fuse_lowlevel_ops operations(bool dead) {
  fuse_lowlevel_ops ops{};
  if (dead) {
    ops.lookup = never_lookup;
    ops.getattr = never_getattr;
    ops.access = never_access;
    ops.open = on_open;
    ops.opendir = on_open;
    ops.mkdir = never_mkdir;
    ops.create = never_create;
    return ops;
  }
  ops.lookup = on_lookup;
  ops.getattr = on_getattr;
  ops.open = on_open;
  ops.readdir = on_readdir;
  return ops;
}

}  // namespace

int main(int argc, char** argv) {
  const bool dead = argc == 3 && std::string_view(argv[1]) == "--dead";
  if (dead) ++argv;
  if (argc != 2 + (dead ? 1 : 0) || argv[1][0] == '\0') {
    std::fprintf(stderr, "fuse_hang: usage: fdbench_fuse_hang [--dead] MOUNTPOINT\n");
    return 2;
  }
  // Dies with the test that started it, even one killed before its clean-up ran: the
  // connection ends with this server, which releases every open it held.
  const pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) return 1;  // the test was gone before the line above
  if (access("/dev/fuse", R_OK | W_OK) != 0) {
    std::fprintf(stderr, "fuse_hang: unavailable: /dev/fuse: %s\n", std::strerror(errno));
    return kUnavailable;
  }
  const fuse_lowlevel_ops ops = operations(dead);
  char program[] = "fdbench_fuse_hang";
  char* args_v[] = {program, nullptr};
  fuse_args args = FUSE_ARGS_INIT(1, args_v);
  fuse_session* session = fuse_session_new(&args, &ops, sizeof ops, nullptr);
  if (session == nullptr) {
    std::fprintf(stderr, "fuse_hang: unavailable: cannot start a FUSE session\n");
    return kUnavailable;
  }
  if (fuse_session_mount(session, argv[1]) != 0) {
    std::fprintf(stderr, "fuse_hang: unavailable: cannot mount %s (root is needed)\n", argv[1]);
    fuse_session_destroy(session);
    return kUnavailable;
  }
  fuse_set_signal_handlers(session);
  std::printf("mounted %s\n", argv[1]);
  std::fflush(stdout);
  fuse_session_loop(session);  // until a signal
  fuse_remove_signal_handlers(session);
  fuse_session_unmount(session);
  fuse_session_destroy(session);  // closes /dev/fuse: any request still held ends in an error
  return 0;
}
