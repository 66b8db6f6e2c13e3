// The C API: thin wrappers over the C++ library. Nothing may throw across this boundary, so
// every entry point that can allocate catches here and returns an errno value instead.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>
#include <stop_token>
#include <string>

#include "engine/strategy.hpp"
#include "fdbench/error.hpp"
#include "fdbench/fd_table.hpp"
#include "fdbench/fdbench.h"
#include "fdbench/open_many.hpp"
#include "fdbench/tune.hpp"

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

// The C options in C++, or the errno and message that refuse them.
int cxx_options(const fdbench_open_options& c, fdbench::OpenManyOptions& options,
                fdbench_open_result* result) {
  if (c.strategy != nullptr) {
    const auto strategy = fdbench::open_strategy(c.strategy);
    if (!strategy) {
      // A strategy whose descriptors are in no process table (io_uring direct ones).
      const fdbench::StrategyInfo* known = fdbench::find_strategy(c.strategy);
      const bool direct = known != nullptr && known->fd_table == fdbench::FdTable::none;
      const std::string why =
          direct ? std::string("fdbench_open_many: ") + c.strategy +
                       " does not apply: its descriptors live in the ring, not in the process's "
                       "table, so there is nothing to return (use uring)"
                 : std::string("fdbench_open_many: unknown strategy \"") + c.strategy +
                       "\" (open_many runs \"threads\" and \"uring\")";
      set_message(result, why.c_str());
      return direct ? EOPNOTSUPP : EINVAL;
    }
    options.strategy = *strategy;
  }
  options.threads = c.threads;
  options.batch = c.batch;
  options.mode = static_cast<mode_t>(c.mode);
  options.pregrow = c.pregrow != 0;
  if (c.cancel != nullptr) options.stop = c.cancel->source.get_token();
  return 0;
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

template <std::size_t N>
void copy_text(char (&to)[N], const std::string& text) {
  std::strncpy(to, text.c_str(), N - 1);
  to[N - 1] = '\0';
}

fdbench_setting c_setting(const fdbench::TunedSetting& s) {
  fdbench_setting out{};
  copy_text(out.strategy, s.strategy);
  out.threads = s.threads;
  out.batch = s.batch;
  out.ops_per_sec = s.ops_per_sec;
  return out;
}

void export_recommendation(const fdbench::Recommendation& rec, fdbench_recommendation* result) {
  result->best = c_setting(rec.best);
  result->within_noise_count =
      std::min<std::size_t>(rec.within_noise.size(), FDBENCH_MAX_ALTERNATIVES);
  for (std::size_t i = 0; i < result->within_noise_count; ++i) {
    result->within_noise[i] = c_setting(rec.within_noise[i]);
  }
  result->knee_threads = rec.knee_threads;
  result->pregrow_to = rec.pregrow_to.value_or(-1);
}

fdbench::RecommendOptions cxx_tune_options(const fdbench_tune_options& c) {
  fdbench::RecommendOptions options;
  options.files = c.files;
  if (c.dir != nullptr) options.dir = c.dir;
  options.keep_open = c.keep_open != 0;
  options.budget_seconds = c.budget_seconds;
  return options;
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
    fdbench::OpenManyOptions cxx;
    if (const int err = cxx_options(options != nullptr ? *options : defaults, cxx, result)) {
      return err;
    }
    fdbench::OpenManyResult opened =
        fdbench::open_many(dir_fd, std::span<const char* const>(paths, count), flags, cxx);
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

void fdbench_tune_options_init(fdbench_tune_options* options) {
  const fdbench::RecommendOptions defaults;
  *options = {defaults.files, nullptr, defaults.budget_seconds, defaults.keep_open ? 1 : 0};
}

int fdbench_recommend(const fdbench_tune_options* options, fdbench_recommendation* result) {
  if (result == nullptr) return EINVAL;
  *result = fdbench_recommendation{};
  fdbench_tune_options c;
  fdbench_tune_options_init(&c);
  if (options != nullptr) c = *options;
  if (c.files == 0 || !(c.budget_seconds > 0)) {
    copy_text(result->message, "fdbench_recommend: files and budget_seconds must be positive");
    return EINVAL;
  }
  try {
    export_recommendation(fdbench::recommend(cxx_tune_options(c)), result);
    return 0;
  } catch (const std::bad_alloc&) {
    copy_text(result->message, "fdbench_recommend: out of memory");
    return ENOMEM;
  } catch (const fdbench::Interrupted&) {
    copy_text(result->message, "fdbench_recommend: interrupted");
    return EINTR;
  } catch (const std::exception& e) {
    copy_text(result->message, e.what());
    return EIO;
  }
}

int fdbench_load_recommendation(const char* path, fdbench_recommendation* result) {
  if (result == nullptr || path == nullptr) return EINVAL;
  *result = fdbench_recommendation{};
  if (access(path, R_OK) != 0) {
    const int err = errno;
    copy_text(result->message, std::string(path) + ": " + fdbench::errno_text(err));
    return err;
  }
  try {
    export_recommendation(fdbench::load_recommendation(path), result);
    return 0;
  } catch (const std::bad_alloc&) {
    copy_text(result->message, "fdbench_load_recommendation: out of memory");
    return ENOMEM;
  } catch (const std::exception& e) {
    copy_text(result->message, e.what());
    return EINVAL;
  }
}

}  // extern "C"
