// SPDX-License-Identifier: Apache-2.0
#include "driver/detect.hpp"

#include <charconv>
#include <optional>
#include <string_view>

namespace roced::driver {

namespace {

struct KernelVersion {
  int major = 0, minor = 0, sublevel = 0;
};

// "6.1.115" at the start of `text`; nullopt unless three numbers.
std::optional<KernelVersion> parse_version(std::string_view text) {
  KernelVersion v;
  int* parts[] = {&v.major, &v.minor, &v.sublevel};
  const char* p = text.data();
  const char* end = text.data() + text.size();
  for (int i = 0; i < 3; ++i) {
    const auto [next, error] = std::from_chars(p, end, *parts[i]);
    if (error != std::errc()) return std::nullopt;
    p = next;
    if (i < 2) {
      if (p == end || *p != '.') return std::nullopt;
      ++p;
    }
  }
  return v;
}

// The package version a Debian kernel names in /proc/version ("... Debian 6.1.115-1 (2024-11-01)").
// init/version.c linux_banner puts the compiler first, and Debian's names its own package
// ("gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0"): the kernel's is the last one, in UTS_VERSION.
std::optional<KernelVersion> debian_package(const std::string& proc_version) {
  static constexpr std::string_view kTag = "Debian ";
  std::optional<KernelVersion> last;
  for (size_t at = proc_version.find(kTag); at != std::string::npos;
       at = proc_version.find(kTag, at + 1)) {
    if (auto v = parse_version(std::string_view(proc_version).substr(at + kTag.size()))) last = v;
  }
  return last;
}

// MLNX_OFED's DRIVER_VERSION: two numbers, a dash, more ("24.10-1.1.4", "25.10-1.7.1").
std::optional<int> ofed_major(const std::string& version) {
  const auto dash = version.find('-');
  const auto dot = version.find('.');
  if (dash == std::string::npos || dot == std::string::npos || dot > dash) return std::nullopt;
  if (version.find('.', dot + 1) < dash) return std::nullopt;  // a kernel release: three numbers
  int major = 0;
  const auto [end, error] = std::from_chars(version.data(), version.data() + dot, major);
  if (error != std::errc() || end != version.data() + dot) return std::nullopt;
  return major;
}

std::string text(const KernelVersion& v) {
  return std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.sublevel);
}

Detected unknown(std::vector<std::string> evidence, std::string why) {
  Detected d;
  d.evidence = std::move(evidence);
  d.evidence.push_back(std::move(why));
  return d;
}

Detected from_ofed(const HostFacts& facts, std::vector<std::string> evidence) {
  const auto major = ofed_major(facts.driver_version);
  // The versions read: 24.04 to 25.10 (DOCA 3.2.1), all alike where the traits differ.
  if (!major || *major < 24 || *major > 25) {
    return unknown(std::move(evidence), "MLNX_OFED " + facts.driver_version +
                                            " is not a version roced has read (24.x-25.x)");
  }
  Detected d;
  d.flavour = Flavour::MlnxOfed;
  d.traits = flavour_row(d.flavour).traits;
  d.version = facts.driver_version;
  d.evidence = std::move(evidence);
  return d;
}

Detected from_debian(const KernelVersion& package, std::vector<std::string> evidence) {
  Detected d;
  d.version = text(package);
  d.evidence = std::move(evidence);
  if (package.major == 6 && package.minor == 1) {
    d.flavour = Flavour::Debian61;
    d.traits = flavour_row(d.flavour).traits;
    // "net/mlx5e: Fix maxrate wraparound ..." reached Debian's 6.1 with 6.1.159-1.
    if (package.sublevel < 159) d.traits.maxrate = Maxrate::U8Wrapping;
  } else if (package.major == 6 && package.minor == 12) {
    d.flavour = Flavour::Debian612;
    d.traits = flavour_row(d.flavour).traits;
    // Buffer ownership from 6.12.44 upstream (Debian 6.12.48-1), the maxrate check from 6.12.63.
    if (package.sublevel < 44) d.traits.buffer_recompute = BufferRecompute::ManualFlag;
    if (package.sublevel < 63) d.traits.maxrate = Maxrate::U8Wrapping;
  } else {
    return unknown(std::move(d.evidence),
                   "Debian's " + d.version + " is not a kernel roced has read (6.1, 6.12)");
  }
  return d;
}

}  // namespace

Detected detect(const HostFacts& facts) {
  std::vector<std::string> evidence;
  if (facts.driver != "mlx5_core") {
    return unknown({}, "driver " + (facts.driver.empty() ? std::string("unknown") : facts.driver) +
                           " is not mlx5_core");
  }
  evidence.push_back("ethtool -i: driver mlx5_core, version " +
                     (facts.driver_version.empty() ? std::string("(none)") : facts.driver_version));
  if (facts.ofed_sysfs) {
    evidence.push_back("/sys/class/net/<netdev>/ecn/ exists (MLNX_OFED's en_sysfs.c)");
    return from_ofed(facts, std::move(evidence));
  }
  if (ofed_major(facts.driver_version)) {
    evidence.push_back("the driver's version is not the kernel's: MLNX_OFED's DRIVER_VERSION");
    return from_ofed(facts, std::move(evidence));
  }
  if (facts.kernel_release.empty() || facts.driver_version != facts.kernel_release) {
    return unknown(std::move(evidence), "the driver's version is neither the kernel's release (" +
                                            facts.kernel_release + ") nor MLNX_OFED's");
  }
  evidence.push_back("the driver's version is the kernel's release: the kernel's own driver");
  if (const auto package = debian_package(facts.kernel_version)) {
    evidence.push_back("/proc/version: Debian " + text(*package));
    return from_debian(*package, std::move(evidence));
  }
  return unknown(std::move(evidence),
                 "/proc/version names no Debian kernel: a kernel roced has not read");
}

}  // namespace roced::driver
