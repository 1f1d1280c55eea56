// SPDX-License-Identifier: Apache-2.0
#pragma once
// Memory for ioctl replies whose length the kernel decides. Before mainline 7b07be1ff1cb (6.19,
// and the stable lines from January 2026), ETHTOOL_GSTRINGS and ETHTOOL_GSTATS write as many
// entries as the driver has now (net/ethtool/ioctl.c: ethtool_get_strings, ethtool_get_stats),
// whatever count the caller passed; mlx5 adds hundreds when channels grow. The buffer ends where
// an inaccessible page begins, so a reply longer than it fails with EFAULT in copy_to_user
// instead of overwriting whatever follows.

#include <cstddef>
#include <cstdint>
#include <span>

#include "os/result.hpp"

namespace roced {

class GuardedBuffer {
 public:
  GuardedBuffer() = default;
  ~GuardedBuffer();
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  GuardedBuffer(GuardedBuffer&& other) noexcept;
  GuardedBuffer& operator=(GuardedBuffer&& other) noexcept;

  // `bytes` of zeroes (rounded up to 8, so u64 replies are aligned) that end at the guard page;
  // the mapping is kept and reused while it is large enough.
  Result<std::span<uint8_t>> reserve(size_t bytes);
  std::span<uint8_t> span() const { return {data_, size_}; }

 private:
  void release();

  void* mapping_ = nullptr;
  size_t mapping_size_ = 0;  // the usable pages and the guard page after them
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace roced
