// SPDX-License-Identifier: Apache-2.0
// roced.yaml's link keys, each read and checked alone.
#include <cctype>

#include "daemon/settings/profile_reader.hpp"
#include "daemon/settings/spec_link.hpp"
#include "daemon/yaml/suggest.hpp"

namespace roced::settings {

void Spec<Setting::Mtu>::read(ProfileReader& r, const yaml::Entry& e) {
  // 68 is the IPv4 minimum; 9978 is mlx5's largest MTU.
  if (auto mtu = r.reader.integer(e.value, e.value_at, r.path("mtu"), 68, 9978,
                                  "an MTU in bytes (68-9978)")) {
    r.profile.mtu = static_cast<uint32_t>(*mtu);
    r.mark("mtu", e.value_at);
  }
}

// Only off: PFC and 802.3x pause exclude each other on a link, and mlx5 turns pause off on each
// PFC mask change (port.c mlx5_set_port_pfc), so "on" could not stay.
void Spec<Setting::GlobalPause>::read(ProfileReader& r, const yaml::Entry& e) {
  if (e.value.IsNull()) {  // explicitly empty: left alone
    r.profile.global_pause.reset();
    r.mark("global_pause", e.value_at);
    return;
  }
  const auto value = r.reader.choice(e.value, e.value_at, r.path("global_pause"), {"off", "on"});
  if (!value) return;
  if (*value == "on") {
    r.diagnostics().error(
        e.value_at, r.path("global_pause"),
        "roced keeps 802.3x pause off where it runs PFC (the two exclude each "
        "other, and every PFC mask change on mlx5 turns it off); write off, or ~ to "
        "leave it alone");
    return;
  }
  r.profile.global_pause = false;
  r.mark("global_pause", e.value_at);
}

void Spec<Setting::StallPrevention>::read(ProfileReader& r, const yaml::Entry& e) {
  using Mode = StallPreventionProfile::Mode;
  const std::string where = r.path("stall_prevention");
  const std::string what = "off, auto or a timeout in ms (80-8000)";
  const std::string text = e.value.IsScalar() ? e.value.Scalar() : std::string();
  if (text == "off" || text == "auto") {
    r.profile.stall_prevention = {text == "off" ? Mode::Off : Mode::Auto, 0};
    r.mark("stall_prevention", e.value_at);
    return;
  }
  if (!text.empty() && !std::isdigit(static_cast<unsigned char>(text[0])) && text[0] != '-') {
    r.diagnostics().error(
        e.value_at, where,
        "'" + text + "' is not " + what + yaml::did_you_mean(text, {"off", "auto"}));
    return;
  }
  // mlx5 refuses other values with -EINVAL (0 is off and 0xffff auto: say so by name).
  if (auto ms = r.reader.integer(e.value, e.value_at, where, 80, 8000, what)) {
    r.profile.stall_prevention = {Mode::Manual, static_cast<uint16_t>(*ms)};
    r.mark("stall_prevention", e.value_at);
  }
}

}  // namespace roced::settings
