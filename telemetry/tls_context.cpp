// SPDX-License-Identifier: Apache-2.0
#include "telemetry/tls_context.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace roced::telemetry {
namespace {

// The reasons OpenSSL queued for the last failure ("key values mismatch"), oldest first.
std::string openssl_errors() {
  std::string out;
  while (const unsigned long code = ERR_get_error()) {
    const char* reason = ERR_reason_error_string(code);
    if (!out.empty()) out += "; ";
    out += reason != nullptr ? reason : "error " + std::to_string(code);
  }
  return out.empty() ? "OpenSSL gives no reason" : out;
}

bool queued_error_is(int library, int reason) {
  const unsigned long code = ERR_peek_last_error();
  return ERR_GET_LIB(code) == library && ERR_GET_REASON(code) == reason;
}

// OpenSSL's own messages for a PEM file missing half of what it needs are cryptic ("no start
// line"): look first, so the log names the problem.
void check_pem_holds_both(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error("cannot read TLS certificate " + path + ": " + std::strerror(errno));
  }
  std::stringstream text;
  text << in.rdbuf();
  const std::string pem = text.str();
  if (pem.find("-----BEGIN CERTIFICATE-----") == std::string::npos) {
    throw std::runtime_error(path + " holds no PEM certificate");
  }
  if (pem.find("PRIVATE KEY-----") == std::string::npos) {
    throw std::runtime_error(path +
                             " holds no private key (the certificate and its key go in one PEM "
                             "file: cat cert.pem key.pem > " +
                             path + ")");
  }
}

}  // namespace

TlsContext load_tls_context(const std::string& path) {
  check_pem_holds_both(path);
  ERR_clear_error();
  TlsContext context(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
  if (!context)
    throw std::runtime_error("OpenSSL: cannot create a TLS context: " + openssl_errors());
  SSL_CTX* ctx = context.get();
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  // Renegotiation lets one client make the server redo expensive handshakes at will.
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  // An encrypted key would otherwise make OpenSSL prompt on the terminal of a daemon.
  SSL_CTX_set_default_passwd_cb(ctx, [](char*, int, int, void*) { return 0; });

  if (SSL_CTX_use_certificate_chain_file(ctx, path.c_str()) != 1) {
    throw std::runtime_error(path + ": the certificate does not load (" + openssl_errors() + ")");
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, path.c_str(), SSL_FILETYPE_PEM) != 1) {
    if (queued_error_is(ERR_LIB_X509, X509_R_KEY_VALUES_MISMATCH)) {
      ERR_clear_error();
      throw std::runtime_error(path + ": the private key does not match the certificate");
    }
    throw std::runtime_error(path +
                             ": the private key does not load (it must not be encrypted: "
                             "openssl pkey -in key.pem -out plain.pem) (" +
                             openssl_errors() + ")");
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    ERR_clear_error();
    throw std::runtime_error(path + ": the private key does not match the certificate");
  }
  return context;
}

}  // namespace roced::telemetry
