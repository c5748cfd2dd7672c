// The one error type of the library and the budget every long computation polls.
//
// Library functions return std::expected<T, Error> (Result<T>): a code to act on and a
// message for people. Nothing inside the library throws for control flow; the edges
// (the CLI, the Python module, the C API) turn an Error into their own form (an exit
// status, an exception, an mtb_error code). docs/errors.md lists the codes.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>

namespace mancala {

struct Error {
  // Stable: the C API and the Python module map these (docs/errors.md).
  enum Code : std::uint8_t {
    InvalidArgument,  // a bad option or argument (a negative count, an unknown variant)
    BadPosition,      // malformed or impossible position text, or a position a table does not hold
    NotFound,         // a folder, file or table the call needs does not exist
    Io,               // reading or writing failed
    Corrupt,          // a file failed its checksums or bounds
    Mismatch,         // a file is sound but belongs to another variant, class or format version
    MissingTable,     // a lower class the computation needs is not solved (generate it first)
    TableTooSmall,    // the positions do not fit the memory allowed (raise the limit)
    Limit,            // the budget's deadline or work limit was reached (partial results may exist)
    Cancelled,        // the caller's cancel flag was raised
    OutOfMemory,      // an allocation failed
    Internal,         // a broken invariant: a bug, please report it
  };
  Code code = Internal;
  std::string message;
};

template <class T>
using Result = std::expected<T, Error>;

// "invalid_argument", "bad_position", ... (snake case, as in JSON and Python).
constexpr std::string_view error_code_name(Error::Code c) {
  switch (c) {
    case Error::InvalidArgument: return "invalid_argument";
    case Error::BadPosition: return "bad_position";
    case Error::NotFound: return "not_found";
    case Error::Io: return "io";
    case Error::Corrupt: return "corrupt";
    case Error::Mismatch: return "mismatch";
    case Error::MissingTable: return "missing_table";
    case Error::TableTooSmall: return "table_too_small";
    case Error::Limit: return "limit";
    case Error::Cancelled: return "cancelled";
    case Error::OutOfMemory: return "out_of_memory";
    case Error::Internal: return "internal";
  }
  return "internal";
}

inline std::unexpected<Error> fail_with(Error::Code code, std::string message) {
  return std::unexpected(Error{code, std::move(message)});
}

// What a call may spend: a deadline, a limit on its work (search nodes, positions
// enumerated or solved: the unit is the caller's), and the caller's cancel flag.
// A small value, copied into the options of each call; the flag it points to must
// outlive the call. Polling is cheap: check() is a relaxed load and two compares, plus
// a steady-clock read when a deadline is set; poll it every few thousand units of work.
class Budget {
 public:
  using Clock = std::chrono::steady_clock;

  Budget() = default;  // unlimited

  // Stop `seconds` from now (<= 0: no deadline).
  Budget& deadline_in(double seconds) {
    deadline_ = seconds > 0 ? Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                 std::chrono::duration<double>(seconds))
                            : Clock::time_point::max();
    return *this;
  }
  Budget& deadline_at(Clock::time_point t) {
    deadline_ = t;
    return *this;
  }
  // Stop once `work` units are done (0: no limit).
  Budget& work_limit(std::uint64_t work) {
    work_limit_ = work ? work : UINT64_MAX;
    return *this;
  }
  Budget& cancel_on(const std::atomic<bool>* flag) {
    cancel_ = flag;
    return *this;
  }

  bool has_deadline() const { return deadline_ != Clock::time_point::max(); }
  Clock::time_point deadline() const { return deadline_; }
  std::uint64_t work_limit() const { return work_limit_ == UINT64_MAX ? 0 : work_limit_; }
  const std::atomic<bool>* cancel_flag() const { return cancel_; }
  bool limited() const { return cancel_ || has_deadline() || work_limit_ != UINT64_MAX; }

  bool cancelled() const { return cancel_ && cancel_->load(std::memory_order_relaxed); }
  bool expired() const { return has_deadline() && Clock::now() >= deadline_; }
  double seconds_left() const {
    if (!has_deadline()) return 0;
    return std::max(0.0, std::chrono::duration<double>(deadline_ - Clock::now()).count());
  }

  // The code to stop with after `work_done` units, or nothing: Cancelled before Limit.
  std::optional<Error::Code> stop_code(std::uint64_t work_done = 0) const {
    if (cancelled()) return Error::Cancelled;
    if (work_done >= work_limit_ || expired()) return Error::Limit;
    return std::nullopt;
  }
  bool stopped(std::uint64_t work_done = 0) const { return stop_code(work_done).has_value(); }

  // The error to return for a stop, naming what ran out ("search", "generate", ...).
  std::optional<Error> check(std::string_view what, std::uint64_t work_done = 0) const {
    auto c = stop_code(work_done);
    if (!c) return std::nullopt;
    if (*c == Error::Cancelled) return Error{*c, std::string(what) + ": cancelled"};
    if (work_done >= work_limit_)
      return Error{*c, std::string(what) + ": work limit of " + std::to_string(work_limit_) + " reached"};
    return Error{*c, std::string(what) + ": time limit reached"};
  }

 private:
  Clock::time_point deadline_ = Clock::time_point::max();
  std::uint64_t work_limit_ = UINT64_MAX;
  const std::atomic<bool>* cancel_ = nullptr;
};

}  // namespace mancala
