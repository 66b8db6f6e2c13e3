#include "platform/interrupt.hpp"

#include <signal.h>

#include <atomic>

#include "fdbench/error.hpp"

namespace fdbench {

namespace {
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the handler needs a lock-free flag");

void on_signal(int sig) { g_signal.store(sig, std::memory_order_relaxed); }

void set_handler(int sig, void (*handler)(int)) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  sigaction(sig, &action, nullptr);
}
}  // namespace

void install_interrupt_handlers() {
  set_handler(SIGINT, on_signal);
  set_handler(SIGTERM, on_signal);
  // A closed stdout (fdbench | head) becomes a write error we report, not a silent death.
  set_handler(SIGPIPE, SIG_IGN);
}

void reset_interrupt_handlers_in_child() {
  set_handler(SIGINT, SIG_DFL);
  set_handler(SIGTERM, SIG_DFL);
  set_handler(SIGPIPE, SIG_DFL);
}

int interrupted() noexcept { return g_signal.load(std::memory_order_relaxed); }

void throw_if_interrupted() {
  if (const int sig = interrupted()) throw Interrupted(sig);
}

void clear_interrupt() noexcept { g_signal.store(0); }

}  // namespace fdbench
