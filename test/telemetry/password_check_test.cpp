// SPDX-License-Identifier: Apache-2.0
// PasswordCheck: basic-auth credentials against crypt(3) hashes made here with libxcrypt.
#include "telemetry/password_check.hpp"

#include <crypt.h>
#include <gtest/gtest.h>

#include <memory>

namespace roced::telemetry {
namespace {

std::string hash_of(const std::string& password, const char* prefix) {
  char salt[CRYPT_GENSALT_OUTPUT_SIZE];
  EXPECT_NE(crypt_gensalt_rn(prefix, 0, nullptr, 0, salt, sizeof salt), nullptr) << prefix;
  auto data = std::make_unique<crypt_data>();
  const char* hashed = crypt_r(password.c_str(), salt, data.get());
  EXPECT_NE(hashed, nullptr);
  return hashed;
}

TEST(PasswordCheck, AcceptsOnlyTheRightUserAndPasswordForEachHashKind) {
  for (const char* prefix : {"$2b$", "$y$", "$6$"}) {
    PasswordCheck check("prometheus", hash_of("s3cret pass", prefix));
    EXPECT_FALSE(check("prometheus", "wrong")) << prefix;
    EXPECT_FALSE(check("prometheus", "")) << prefix;
    EXPECT_FALSE(check("grafana", "s3cret pass")) << prefix;
    EXPECT_TRUE(check("prometheus", "s3cret pass")) << prefix;
    // Remembered after the first match; the memory lets in nothing else.
    EXPECT_TRUE(check("prometheus", "s3cret pass")) << prefix;
    EXPECT_FALSE(check("prometheus", "s3cret pas")) << prefix;
    EXPECT_FALSE(check("prometheus", "s3cret pass ")) << prefix;
    EXPECT_FALSE(check("prometheu", "s3cret pass")) << prefix;
  }
}

TEST(PasswordCheck, ABrokenHashAcceptsNothing) {
  PasswordCheck check("prometheus", "$2b$not-a-real-hash");
  EXPECT_FALSE(check("prometheus", ""));
  EXPECT_FALSE(check("prometheus", "$2b$not-a-real-hash"));
}

}  // namespace
}  // namespace roced::telemetry
