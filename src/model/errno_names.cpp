// errno values by name ("EMFILE"), so that results from machines whose libcs number or word
// errors differently still line up. Only the names POSIX defines: the numbers differ between
// systems (EAGAIN is 11 on Linux, 35 on macOS and the BSDs), the names do not.
#include <cerrno>
#include <string>

#include "fdbench/error.hpp"
#include "model/result.hpp"

namespace fdbench {

namespace {

struct ErrnoName {
  int value;
  const char* name;
};

#define FDBENCH_ERRNO(name) \
  { name, #name }
// Where two names share a value (EAGAIN/EWOULDBLOCK, EOPNOTSUPP/ENOTSUP on Linux) the first
// listed wins: the one glibc's strerrorname_np() gives.
constexpr ErrnoName kNames[] = {
    FDBENCH_ERRNO(EPERM),           FDBENCH_ERRNO(ENOENT),       FDBENCH_ERRNO(ESRCH),
    FDBENCH_ERRNO(EINTR),           FDBENCH_ERRNO(EIO),          FDBENCH_ERRNO(ENXIO),
    FDBENCH_ERRNO(E2BIG),           FDBENCH_ERRNO(ENOEXEC),      FDBENCH_ERRNO(EBADF),
    FDBENCH_ERRNO(ECHILD),          FDBENCH_ERRNO(EAGAIN),       FDBENCH_ERRNO(EWOULDBLOCK),
    FDBENCH_ERRNO(ENOMEM),          FDBENCH_ERRNO(EACCES),       FDBENCH_ERRNO(EFAULT),
    FDBENCH_ERRNO(EBUSY),           FDBENCH_ERRNO(EEXIST),       FDBENCH_ERRNO(EXDEV),
    FDBENCH_ERRNO(ENODEV),          FDBENCH_ERRNO(ENOTDIR),      FDBENCH_ERRNO(EISDIR),
    FDBENCH_ERRNO(EINVAL),          FDBENCH_ERRNO(ENFILE),       FDBENCH_ERRNO(EMFILE),
    FDBENCH_ERRNO(ENOTTY),          FDBENCH_ERRNO(ETXTBSY),      FDBENCH_ERRNO(EFBIG),
    FDBENCH_ERRNO(ENOSPC),          FDBENCH_ERRNO(ESPIPE),       FDBENCH_ERRNO(EROFS),
    FDBENCH_ERRNO(EMLINK),          FDBENCH_ERRNO(EPIPE),        FDBENCH_ERRNO(EDOM),
    FDBENCH_ERRNO(ERANGE),          FDBENCH_ERRNO(EDEADLK),      FDBENCH_ERRNO(ENAMETOOLONG),
    FDBENCH_ERRNO(ENOLCK),          FDBENCH_ERRNO(ENOSYS),       FDBENCH_ERRNO(ENOTEMPTY),
    FDBENCH_ERRNO(ELOOP),           FDBENCH_ERRNO(ENOMSG),       FDBENCH_ERRNO(EIDRM),
    FDBENCH_ERRNO(EPROTO),          FDBENCH_ERRNO(EBADMSG),      FDBENCH_ERRNO(EOVERFLOW),
    FDBENCH_ERRNO(EILSEQ),          FDBENCH_ERRNO(ENOTSOCK),     FDBENCH_ERRNO(EDESTADDRREQ),
    FDBENCH_ERRNO(EMSGSIZE),        FDBENCH_ERRNO(EPROTOTYPE),   FDBENCH_ERRNO(ENOPROTOOPT),
    FDBENCH_ERRNO(EPROTONOSUPPORT), FDBENCH_ERRNO(EOPNOTSUPP),   FDBENCH_ERRNO(ENOTSUP),
    FDBENCH_ERRNO(EAFNOSUPPORT),    FDBENCH_ERRNO(EADDRINUSE),   FDBENCH_ERRNO(EADDRNOTAVAIL),
    FDBENCH_ERRNO(ENETDOWN),        FDBENCH_ERRNO(ENETUNREACH),  FDBENCH_ERRNO(ENETRESET),
    FDBENCH_ERRNO(ECONNABORTED),    FDBENCH_ERRNO(ECONNRESET),   FDBENCH_ERRNO(ENOBUFS),
    FDBENCH_ERRNO(EISCONN),         FDBENCH_ERRNO(ENOTCONN),     FDBENCH_ERRNO(ETIMEDOUT),
    FDBENCH_ERRNO(ECONNREFUSED),    FDBENCH_ERRNO(EHOSTUNREACH), FDBENCH_ERRNO(EALREADY),
    FDBENCH_ERRNO(EINPROGRESS),     FDBENCH_ERRNO(ESTALE),       FDBENCH_ERRNO(EDQUOT),
    FDBENCH_ERRNO(ECANCELED),
// Defined by POSIX but absent from some systems (OpenBSD lacks the STREAMS ones).
#ifdef EOWNERDEAD
    FDBENCH_ERRNO(EOWNERDEAD),
#endif
#ifdef ENOTRECOVERABLE
    FDBENCH_ERRNO(ENOTRECOVERABLE),
#endif
#ifdef EMULTIHOP
    FDBENCH_ERRNO(EMULTIHOP),
#endif
#ifdef ENOLINK
    FDBENCH_ERRNO(ENOLINK),
#endif
#ifdef ENODATA
    FDBENCH_ERRNO(ENODATA),
#endif
#ifdef ENOSR
    FDBENCH_ERRNO(ENOSR),
#endif
#ifdef ENOSTR
    FDBENCH_ERRNO(ENOSTR),
#endif
#ifdef ETIME
    FDBENCH_ERRNO(ETIME),
#endif
};
#undef FDBENCH_ERRNO

}  // namespace

std::string errno_name(int err) {
  for (const auto& entry : kNames) {
    if (entry.value == err) return entry.name;
  }
  return "E" + std::to_string(err);
}

void add_failures(std::map<std::string, ErrnoCount>& by_errno, int err, std::uint64_t count) {
  // Tally keeps one slot for errno values it cannot index; they are counted, not named.
  ErrnoCount& slot = by_errno[err > 0 ? errno_name(err) : "other"];
  slot.count += count;
  slot.message = err > 0 ? errno_text(err) : "errno outside the counted range";
}

}  // namespace fdbench
