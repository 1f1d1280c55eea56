// SPDX-License-Identifier: Apache-2.0
#include "health/pcie_link.hpp"

#include <charconv>

namespace roced::health {

namespace {

std::string_view trimmed(const std::string& text) {
  std::string_view view(text);
  if (!view.empty() && view.back() == '\n') view.remove_suffix(1);
  return view;
}

std::optional<uint32_t> parse_unsigned(std::string_view text) {
  uint32_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

std::string speed_text(uint32_t tenths) {
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " GT/s";
}

}  // namespace

std::optional<uint32_t> parse_speed(const std::string& text) {
  std::string_view view = trimmed(text);
  for (std::string_view suffix : {std::string_view(" GT/s PCIe"), std::string_view(" GT/s")}) {
    if (view.size() > suffix.size() && view.substr(view.size() - suffix.size()) == suffix) {
      view.remove_suffix(suffix.size());
      // "2.5", "16.0"; before 5.7 the whole ones had no tenth ("16 GT/s").
      const size_t dot = view.find('.');
      if (dot != std::string_view::npos && dot + 2 != view.size()) return std::nullopt;
      const auto whole = parse_unsigned(view.substr(0, dot));
      const auto tenth = dot == std::string_view::npos ? std::optional<uint32_t>(0)
                                                       : parse_unsigned(view.substr(dot + 1));
      if (!whole || !tenth || *whole > 1000) return std::nullopt;
      return *whole * 10 + *tenth;
    }
  }
  return std::nullopt;
}

std::optional<uint32_t> parse_width(const std::string& text) {
  // 0: no link trained; 255: pcie_get_width_cap's unknown. Neither is a width.
  const auto width = parse_unsigned(trimmed(text));
  if (!width || *width == 0 || *width > 32) return std::nullopt;
  return width;
}

std::string describe(std::optional<uint32_t> speed_tenths_gts, std::optional<uint32_t> width) {
  return (speed_tenths_gts ? speed_text(*speed_tenths_gts) : std::string("unknown speed")) + " x" +
         (width ? std::to_string(*width) : std::string("?"));
}

std::optional<finding::Finding> judge(const std::string& netdev, const PcieLink& link) {
  if (!link.pcie) return std::nullopt;
  const std::string built = describe(link.max_speed_tenths_gts, link.max_width);
  const std::string now = describe(link.speed_tenths_gts, link.width);
  if (!link.speed_tenths_gts || !link.width || !link.max_speed_tenths_gts || !link.max_width) {
    return finding::cannot_tell(
        kPcieLinkDegraded, netdev,
        "the PCIe link cannot be read: " +
            (link.unread.empty() ? "the kernel reports it unknown" : link.unread));
  }
  if (*link.speed_tenths_gts >= *link.max_speed_tenths_gts && *link.width >= *link.max_width) {
    return std::nullopt;
  }
  auto out = finding::make(kPcieLinkDegraded, netdev,
                           "PCIe link trained at " + now + ", the NIC takes " + built, built, now);
  out.about = "pcie";
  return out;
}

}  // namespace roced::health
