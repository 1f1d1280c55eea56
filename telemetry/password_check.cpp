// SPDX-License-Identifier: Apache-2.0
#include "telemetry/password_check.hpp"

#include <crypt.h>

#include <memory>

namespace roced::telemetry {

namespace {

// Compares without an early exit, so the time taken does not tell how much of a guess was right.
bool equal_in_constant_time(const std::string& a, const std::string& b) {
  unsigned char difference = a.size() == b.size() ? 0 : 1;
  const std::string& longer = a.size() >= b.size() ? a : b;
  for (size_t i = 0; i < longer.size(); ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    difference |= x ^ y;
  }
  return difference == 0;
}

}  // namespace

PasswordCheck::PasswordCheck(std::string username, std::string password_hash)
    : username_(std::move(username)), hash_(std::move(password_hash)) {}

bool PasswordCheck::operator()(const std::string& username, const std::string& password) {
  const bool user_ok = equal_in_constant_time(username, username_);
  std::lock_guard lock(mutex_);
  if (!accepted_.empty() && equal_in_constant_time(password, accepted_)) return user_ok;
  auto data = std::make_unique<crypt_data>();  // ~32 KiB: not on the server thread's stack
  const char* hashed = crypt_r(password.c_str(), hash_.c_str(), data.get());
  // crypt_r returns a string starting with '*' on failure, never the hash.
  const bool password_ok = hashed != nullptr && equal_in_constant_time(hashed, hash_);
  if (password_ok) accepted_ = password;
  return user_ok && password_ok;
}

}  // namespace roced::telemetry
