#pragma once
// SIGINT, SIGTERM and every other catchable signal that would end the process (SIGHUP,
// SIGQUIT, SIGUSR1/2, SIGALRM, SIGXCPU, ...): the handler only records the signal; long loops poll
// it between steps (never inside a timed region) and unwind, so cleanup runs in ordinary code.
namespace fdbench {

void install_interrupt_handlers();
// Forked workers die on the signal instead (the parent notices and cleans up).
void reset_interrupt_handlers_in_child();
// Before an exec that replaces fdbench (pregrow): every signal's disposition as fdbench found
// it (SIGPIPE and SIGXFSZ, which fdbench ignores, included), so the program inherits what
// fdbench inherited.
void restore_inherited_signals() noexcept;
// The signal number received, or 0.
int interrupted() noexcept;
// How many such signals arrived: a second one ends at once what the first could not (a
// repetition stuck in an open, an output a reader does not take).
int interrupt_count() noexcept;
// Whether the signals so far end a wait that one Ctrl-C lets finish (an output a reader does not
// take): a second signal, or a first that is not SIGINT. A terminal's Ctrl-C asks for what is
// under way to be finished; SIGTERM comes from `timeout`, systemd or kill, which send it once,
// and SIGHUP from a terminal that is gone.
bool interrupt_ends_waits() noexcept;
// Throws Interrupted if a signal arrived.
void throw_if_interrupted();
// For tests: forget a received signal.
void clear_interrupt() noexcept;

}  // namespace fdbench
