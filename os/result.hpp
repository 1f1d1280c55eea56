// SPDX-License-Identifier: Apache-2.0
#pragma once
// Result<T>: a value or an Error, returned by every call that crosses the seam to the system.
// A small stand-in for std::expected (C++23), which this toolchain's C++20 mode lacks.

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <variant>

namespace roced {

struct Error {
  int code = 0;  // positive errno when the OS said no (EOPNOTSUPP, EINVAL, ...); 0 otherwise
  std::string message;

  static Error from_errno(int err, std::string context) {
    return Error{err, std::move(context) + ": " + std::strerror(err)};
  }
  bool is_unsupported() const { return code == EOPNOTSUPP || code == ENOTSUP; }
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  const Error& error() const { return std::get<1>(v_); }
  T value_or(T fallback) const { return ok() ? value() : std::move(fallback); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error)
      : error_(std::move(error)), ok_(false) {}  // NOLINT(google-explicit-constructor)
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

inline Result<void> ok() { return {}; }

}  // namespace roced
