// The C API: thin wrappers over the C++ library. Nothing may throw across this boundary, so
// every entry point that can allocate catches here and returns an errno value instead.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>
#include <stop_token>

#include "fdbench/fd_table.hpp"
#include "fdbench/fdbench.h"
#include "fdbench/open_many.hpp"

struct fdbench_cancel {
  std::stop_source source;
};

namespace {

int outcome_code(fdbench::PregrowOutcome outcome) {
  switch (outcome) {
    case fdbench::PregrowOutcome::grown:
      return FDBENCH_PREGROW_GROWN;
    case fdbench::PregrowOutcome::already_large:
      return FDBENCH_PREGROW_ALREADY_LARGE;
    case fdbench::PregrowOutcome::not_needed:
      return FDBENCH_PREGROW_NOT_NEEDED;
    case fdbench::PregrowOutcome::failed:
      break;
  }
  return FDBENCH_PREGROW_FAILED;
}

void set_message(fdbench_open_result* result, const char* text) {
  std::strncpy(result->message, text, sizeof result->message - 1);
  result->message[sizeof result->message - 1] = '\0';
}

fdbench::OpenManyOptions cxx_options(const fdbench_open_options& c) {
  fdbench::OpenManyOptions options;
  if (c.strategy != nullptr) options.strategy = c.strategy;
  options.threads = c.threads;
  options.batch = c.batch;
  options.mode = static_cast<mode_t>(c.mode);
  options.pregrow = c.pregrow != 0;
  if (c.cancel != nullptr) options.stop = c.cancel->source.get_token();
  return options;
}

// Moves the descriptors out of `opened` into malloc'ed arrays the caller frees. Returns 0 or
// ENOMEM (then `opened` still owns, and closes, every descriptor).
int export_result(fdbench::OpenManyResult& opened, fdbench_open_result* result) {
  const std::size_t count = opened.fds.size();
  if (count == 0) return 0;
  auto* fds = static_cast<int*>(std::malloc(count * sizeof(int)));
  auto* errors = static_cast<int*>(std::malloc(count * sizeof(int)));
  if (fds == nullptr || errors == nullptr) {
    std::free(fds);
    std::free(errors);
    set_message(result, "fdbench_open_many: out of memory for the result");
    return ENOMEM;
  }
  for (std::size_t i = 0; i < count; ++i) {
    fds[i] = opened.fds[i].release();
    errors[i] = opened.errors[i];
  }
  result->count = count;
  result->fds = fds;
  result->errors = errors;
  return 0;
}

}  // namespace

extern "C" {

int fdbench_pregrow_fd_table(int max_fd, fdbench_pregrow_result* result) {
  const fdbench::PregrowResult r = fdbench::pregrow_fd_table(max_fd);
  if (result != nullptr) *result = {outcome_code(r.outcome), r.fdsize_before, r.fdsize_after};
  return r.error;
}

int fdbench_raise_nofile_limit(size_t wanted, fdbench_nofile_result* result) {
  const fdbench::NofileResult r = fdbench::raise_nofile_limit(wanted);
  if (result != nullptr) *result = {r.soft_before, r.soft_after, r.hard, r.ceiling};
  return r.error;
}

fdbench_cancel* fdbench_cancel_new(void) {
  return new (std::nothrow) fdbench_cancel;
}

void fdbench_cancel_request(fdbench_cancel* cancel) {
  if (cancel != nullptr) cancel->source.request_stop();
}

void fdbench_cancel_free(fdbench_cancel* cancel) {
  delete cancel;
}

void fdbench_open_options_init(fdbench_open_options* options) {
  const fdbench::OpenManyOptions defaults;
  *options = {nullptr,
              defaults.threads,
              defaults.batch,
              static_cast<unsigned>(defaults.mode),
              defaults.pregrow ? 1 : 0,
              nullptr};
}

int fdbench_open_many(int dir_fd, const char* const* paths, size_t count, int flags,
                      const fdbench_open_options* options, fdbench_open_result* result) {
  if (result == nullptr || (paths == nullptr && count != 0)) return EINVAL;
  *result = fdbench_open_result{};
  try {
    fdbench_open_options defaults;
    fdbench_open_options_init(&defaults);
    fdbench::OpenManyResult opened =
        fdbench::open_many(dir_fd, std::span<const char* const>(paths, count), flags,
                           cxx_options(options != nullptr ? *options : defaults));
    if (!opened.ok()) {
      set_message(result, opened.message.c_str());
      return opened.error;
    }
    return export_result(opened, result);
  } catch (const std::bad_alloc&) {
    set_message(result, "fdbench_open_many: out of memory");
    return ENOMEM;
  } catch (const std::exception& e) {  // none is expected; a C caller must never see one
    set_message(result, e.what());
    return EIO;
  }
}

void fdbench_open_result_free(fdbench_open_result* result) {
  if (result == nullptr) return;
  std::free(result->fds);
  std::free(result->errors);
  *result = fdbench_open_result{};
}

}  // extern "C"
