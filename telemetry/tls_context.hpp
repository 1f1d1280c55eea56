// SPDX-License-Identifier: Apache-2.0
#pragma once
// The server-side OpenSSL context of the metrics relay (relay_frontend.hpp): TLS 1.2 and newer,
// no renegotiation, one PEM file holding the certificate chain and its unencrypted key.

#include <openssl/types.h>

#include <memory>
#include <string>

namespace roced::telemetry {

using TlsContext = std::unique_ptr<SSL_CTX, void (*)(SSL_CTX*)>;

// Throws std::runtime_error naming the problem: a file that cannot be read, one without a
// certificate or without a key, a key that does not match the certificate.
TlsContext load_tls_context(const std::string& pem_path);

}  // namespace roced::telemetry
