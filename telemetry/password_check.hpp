// SPDX-License-Identifier: Apache-2.0
#pragma once
// Basic-auth credentials checked against a crypt(3) hash (bcrypt, yescrypt, sha512crypt) with
// libxcrypt. A hash costs milliseconds by design, and Prometheus sends the same credentials on
// every scrape: a credential that matched once is remembered, so only new ones pay.

#include <mutex>
#include <string>

namespace roced::telemetry {

class PasswordCheck {
 public:
  PasswordCheck(std::string username, std::string password_hash);
  bool operator()(const std::string& username, const std::string& password);

 private:
  const std::string username_;
  const std::string hash_;
  std::mutex mutex_;
  std::string accepted_;  // the last password that matched (empty: none yet)
};

}  // namespace roced::telemetry
