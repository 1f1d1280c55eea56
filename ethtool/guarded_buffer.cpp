// SPDX-License-Identifier: Apache-2.0
#include "ethtool/guarded_buffer.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace roced {

namespace {

size_t page_size() {
  static const size_t size = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace

GuardedBuffer::~GuardedBuffer() { release(); }

GuardedBuffer::GuardedBuffer(GuardedBuffer&& other) noexcept
    : mapping_(std::exchange(other.mapping_, nullptr)),
      mapping_size_(std::exchange(other.mapping_size_, 0)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

GuardedBuffer& GuardedBuffer::operator=(GuardedBuffer&& other) noexcept {
  if (this != &other) {
    release();
    mapping_ = std::exchange(other.mapping_, nullptr);
    mapping_size_ = std::exchange(other.mapping_size_, 0);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void GuardedBuffer::release() {
  if (mapping_ != nullptr) ::munmap(mapping_, mapping_size_);
  mapping_ = nullptr;
  mapping_size_ = 0;
  data_ = nullptr;
  size_ = 0;
}

Result<std::span<uint8_t>> GuardedBuffer::reserve(size_t bytes) {
  const size_t page = page_size();
  const size_t wanted = (bytes + 7) / 8 * 8;
  if (wanted < bytes) return Error{ENOMEM, "a reply buffer of " + std::to_string(bytes) + " bytes"};
  const size_t usable = mapping_size_ == 0 ? 0 : mapping_size_ - page;
  if (wanted > usable || mapping_ == nullptr) {
    release();
    const size_t pages = (wanted + page - 1) / page;
    const size_t size = (pages + 1) * page;
    void* mapping =
        ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping == MAP_FAILED) {
      return Error::from_errno(errno, "a reply buffer of " + std::to_string(bytes) + " bytes");
    }
    auto* guard = static_cast<uint8_t*>(mapping) + pages * page;
    if (::mprotect(guard, page, PROT_NONE) != 0) {
      const int err = errno;
      ::munmap(mapping, size);
      return Error::from_errno(err, "the guard page of a reply buffer");
    }
    mapping_ = mapping;
    mapping_size_ = size;
  }
  auto* guard = static_cast<uint8_t*>(mapping_) + mapping_size_ - page;
  data_ = guard - wanted;
  size_ = wanted;
  std::memset(data_, 0, size_);
  return std::span<uint8_t>(data_, size_);
}

}  // namespace roced
