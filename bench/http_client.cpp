// SPDX-License-Identifier: Apache-2.0
#include "bench/http_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace roced::bench {

namespace {

std::string lower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

std::string trim(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t") + 1 - begin);
}

}  // namespace

HttpClient::~HttpClient() { close_socket(); }

void HttpClient::close_socket() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  buffer_.clear();
}

bool HttpClient::connect_socket(std::string& error) {
  close_socket();
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port_);
  if (fd_ < 0 || ::inet_pton(AF_INET, host_.c_str(), &addr.sin_addr) != 1 ||
      ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    error = "connect " + host_ + ":" + std::to_string(port_) + ": " + std::strerror(errno);
    close_socket();
    return false;
  }
  // Requests are single small writes: do not let Nagle hold them back.
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  answered_ = 0;
  return true;
}

bool HttpClient::fill(size_t size) {
  char chunk[65536];
  while (buffer_.size() < size) {
    const ssize_t got = ::recv(fd_, chunk, sizeof chunk, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(got));
  }
  return true;
}

HttpResponse HttpClient::get(const std::string& path) {
  HttpResponse response;
  if (fd_ < 0 && !connect_socket(response.error)) return response;
  bool retry = false;
  response = exchange(path, retry);
  // A kept-alive connection the server has closed meanwhile: one fresh attempt.
  if (retry) {
    if (!connect_socket(response.error)) return response;
    response = exchange(path, retry);
  }
  return response;
}

HttpResponse HttpClient::exchange(const std::string& path, bool& retry) {
  HttpResponse response;
  const bool reused = answered_ > 0;  // the server may have closed it since
  retry = false;
  const std::string request = "GET " + path + " HTTP/1.1\r\nHost: " + host_ + ":" +
                              std::to_string(port_) +
                              "\r\nAccept: text/plain;version=0.0.4\r\n"
                              "User-Agent: roced-scrape-bench\r\n\r\n";
  size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n = ::send(fd_, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      retry = reused;
      response.error = std::string("send: ") + std::strerror(errno);
      close_socket();
      return response;
    }
    sent += static_cast<size_t>(n);
  }
  // Status line and headers.
  size_t end = std::string::npos;
  while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
    const size_t had = buffer_.size();
    if (!fill(had + 1)) {
      retry = reused && had == 0;
      response.error = "connection closed before the response headers";
      close_socket();
      return response;
    }
  }
  const std::string head = buffer_.substr(0, end);
  buffer_.erase(0, end + 4);
  size_t line_end = head.find("\r\n");
  const std::string status_line = head.substr(0, line_end);
  if (status_line.rfind("HTTP/1.", 0) != 0 || status_line.size() < 12) {
    response.error = "not an HTTP response: " + status_line;
    close_socket();
    return response;
  }
  const int status = std::atoi(status_line.c_str() + 9);
  long long content_length = -1;
  bool chunked = false, close_after = status_line.rfind("HTTP/1.0", 0) == 0;
  while (line_end != std::string::npos) {
    const size_t next = head.find("\r\n", line_end + 2);
    const std::string line = head.substr(line_end + 2, next - line_end - 2);
    line_end = next;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string name = lower(trim(line.substr(0, colon)));
    const std::string value = lower(trim(line.substr(colon + 1)));
    if (name == "content-length") content_length = std::atoll(value.c_str());
    if (name == "transfer-encoding" && value.find("chunked") != std::string::npos) chunked = true;
    if (name == "connection") close_after = value == "close";
  }
  // Body.
  if (chunked) {
    for (;;) {
      size_t eol = std::string::npos;
      while ((eol = buffer_.find("\r\n")) == std::string::npos) {
        if (!fill(buffer_.size() + 1)) {
          response.error = "connection closed inside a chunked body";
          close_socket();
          return response;
        }
      }
      const size_t size = std::strtoul(buffer_.substr(0, eol).c_str(), nullptr, 16);
      buffer_.erase(0, eol + 2);
      if (size == 0) {
        // Trailers (none expected) up to the empty line.
        while (buffer_.rfind("\r\n", 0) != 0) {
          const size_t trailer_end = buffer_.find("\r\n");
          if (trailer_end != std::string::npos) {
            buffer_.erase(0, trailer_end + 2);
          } else if (!fill(buffer_.size() + 1)) {
            break;
          }
        }
        if (buffer_.rfind("\r\n", 0) == 0) buffer_.erase(0, 2);
        break;
      }
      if (!fill(size + 2)) {
        response.error = "connection closed inside a chunk";
        close_socket();
        return response;
      }
      response.body.append(buffer_, 0, size);
      buffer_.erase(0, size + 2);
    }
  } else if (content_length >= 0) {
    if (!fill(static_cast<size_t>(content_length))) {
      response.error = "connection closed before Content-Length bytes";
      close_socket();
      return response;
    }
    response.body = buffer_.substr(0, static_cast<size_t>(content_length));
    buffer_.erase(0, static_cast<size_t>(content_length));
  } else {
    while (fill(buffer_.size() + 1)) {
    }
    response.body = std::move(buffer_);
    close_after = true;
  }
  response.status = status;
  ++answered_;
  if (close_after) close_socket();
  return response;
}

uint16_t free_local_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof addr;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
    if (fd >= 0) ::close(fd);
    throw std::runtime_error("cannot find a free TCP port on 127.0.0.1");
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace roced::bench
