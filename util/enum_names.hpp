// SPDX-License-Identifier: Apache-2.0
#pragma once
// An enum's names as one constexpr table. name(), parse() and the list of names all read the same
// entries, so a value is named in exactly one place; the constructor refuses (at compile time) a
// value or a name given twice, and covers<Last>() proves a dense enum is named in full. Replaces
// the hand-written `switch (value) { case X: return "x"; ... }` per enum, and its inverse.
//
//   inline constexpr auto kTsaNames = enum_names<Tsa>(
//       {{Tsa::Strict, "strict"}, {Tsa::Cbs, "cbs"}, {Tsa::Ets, "ets"}, {Tsa::Vendor, "vendor"}});
//   kTsaNames.name(Tsa::Ets) == "ets";  kTsaNames.parse("cbs") == Tsa::Cbs
//
// Header-only, no dependencies: dcb/, rdma/, watchdog/, link/ and daemon/ all use it.

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace roced {

template <class E>
struct EnumName {
  E value{};
  std::string_view name;
};

template <class E, std::size_t N>
class EnumNames {
  static_assert(std::is_enum_v<E>, "EnumNames names the values of an enum");

 public:
  // consteval: a duplicate reaches a `throw`, which is no constant expression, so the table
  // does not compile.
  consteval explicit EnumNames(const EnumName<E> (&entries)[N]) {
    for (std::size_t i = 0; i < N; ++i) {
      if (entries[i].name.empty()) throw "EnumNames: an empty name";
      for (std::size_t j = 0; j < i; ++j) {
        if (entries[j].value == entries[i].value) throw "EnumNames: a value is named twice";
        if (entries[j].name == entries[i].name) throw "EnumNames: a name is used twice";
      }
      entries_[i] = entries[i];
    }
  }

  // The value's name; `fallback` for a value the table lacks (an integer cast to E).
  constexpr std::string_view name(E value, std::string_view fallback = "unknown") const {
    for (const auto& entry : entries_) {
      if (entry.value == value) return entry.name;
    }
    return fallback;
  }
  // The inverse: the value named `text`, exactly (names are case-sensitive, as config keys are).
  constexpr std::optional<E> parse(std::string_view text) const {
    for (const auto& entry : entries_) {
      if (entry.name == text) return entry.value;
    }
    return std::nullopt;
  }
  constexpr bool names(E value) const { return name(value, {}).size() != 0; }

  // True when the table names exactly the values 0 .. Last: for an enum declared without explicit
  // values, every enumerator. Beside the table: static_assert(kNames.covers<E::Last>());
  template <E Last>
  consteval bool covers() const {
    using U = std::underlying_type_t<E>;
    if (static_cast<std::size_t>(static_cast<U>(Last)) + 1 != N) return false;
    for (const auto& entry : entries_) {
      const auto v = static_cast<U>(entry.value);
      if constexpr (std::is_signed_v<U>) {
        if (v < 0) return false;
      }
      if (static_cast<std::size_t>(v) >= N) return false;
    }
    return true;  // N distinct values in [0, N): all of them
  }

  constexpr std::size_t size() const { return N; }
  constexpr auto begin() const { return entries_.begin(); }
  constexpr auto end() const { return entries_.end(); }
  // In table order, for Reader::choice and "one of a, b, c" messages.
  std::vector<std::string> all_names() const {
    std::vector<std::string> out;
    out.reserve(N);
    for (const auto& entry : entries_) out.emplace_back(entry.name);
    return out;
  }

 private:
  std::array<EnumName<E>, N> entries_{};
};

// N is deduced from the braced list; E is given: enum_names<Tsa>({{...}, {...}}).
template <class E, std::size_t N>
consteval EnumNames<E, N> enum_names(const EnumName<E> (&entries)[N]) {
  return EnumNames<E, N>(entries);
}

}  // namespace roced
