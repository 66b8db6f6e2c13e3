#include "platform/interrupt.hpp"

#include <signal.h>

#include <atomic>
#include <cstddef>
#include <iterator>

#include "fdbench/error.hpp"

namespace fdbench {

namespace {
std::atomic<int> g_signal{0};
std::atomic<int> g_signal_count{0};
static_assert(std::atomic<int>::is_always_lock_free, "the handler needs a lock-free flag");

void on_signal(int sig) {
  g_signal.store(sig, std::memory_order_relaxed);
  g_signal_count.fetch_add(1, std::memory_order_relaxed);
}

void set_handler(int sig, void (*handler)(int)) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  sigaction(sig, &action, nullptr);
}

// Every signal whose default action ends the process and that can be caught: each is handled
// as SIGTERM is (recorded, the run unwinds, everything is cleaned up, exit 128+N). SIGPIPE and
// SIGXFSZ are not among them: they become write errors that are reported.
constexpr int kTerminating[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,   SIGUSR1,
                                SIGUSR2, SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF};
// Which of them this process handles: one ignored when fdbench started (nohup) stays ignored.
std::atomic<bool> g_handled[std::size(kTerminating)];
// SIGPIPE's and SIGXFSZ's dispositions when fdbench started, put back before an exec.
struct sigaction g_inherited_pipe {};
struct sigaction g_inherited_fsize {};

}  // namespace

void install_interrupt_handlers() {
  for (std::size_t i = 0; i < std::size(kTerminating); ++i) {
    struct sigaction before {};
    sigaction(kTerminating[i], nullptr, &before);
    const bool ignored = before.sa_handler == SIG_IGN;
    g_handled[i] = !ignored;
    if (!ignored) set_handler(kTerminating[i], on_signal);
  }
  // A closed stdout (fdbench | head) becomes a write error we report, not a silent death; so
  // does a file larger than RLIMIT_FSIZE (EFBIG instead of SIGXFSZ).
  sigaction(SIGPIPE, nullptr, &g_inherited_pipe);
  sigaction(SIGXFSZ, nullptr, &g_inherited_fsize);
  set_handler(SIGPIPE, SIG_IGN);
  set_handler(SIGXFSZ, SIG_IGN);
}

void restore_inherited_signals() noexcept {
  for (std::size_t i = 0; i < std::size(kTerminating); ++i) {
    if (g_handled[i]) set_handler(kTerminating[i], SIG_DFL);
  }
  sigaction(SIGPIPE, &g_inherited_pipe, nullptr);
  sigaction(SIGXFSZ, &g_inherited_fsize, nullptr);
}

void reset_interrupt_handlers_in_child() {
  for (std::size_t i = 0; i < std::size(kTerminating); ++i) {
    if (g_handled[i]) set_handler(kTerminating[i], SIG_DFL);
  }
  set_handler(SIGPIPE, SIG_DFL);
  set_handler(SIGXFSZ, SIG_DFL);
}

int interrupted() noexcept {
  return g_signal.load(std::memory_order_relaxed);
}

int interrupt_count() noexcept {
  return g_signal_count.load(std::memory_order_relaxed);
}

bool interrupt_ends_waits() noexcept {
  const int count = interrupt_count();
  return count >= 2 || (count == 1 && interrupted() != SIGINT);
}

void throw_if_interrupted() {
  if (const int sig = interrupted()) throw Interrupted(sig);
}

void clear_interrupt() noexcept {
  g_signal.store(0);
  g_signal_count.store(0);
}

}  // namespace fdbench
