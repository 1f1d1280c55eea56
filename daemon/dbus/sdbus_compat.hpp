// SPDX-License-Identifier: Apache-2.0
#pragma once
// sdbus-c++ 1.x (Debian bookworm: 1.2.0) and 2.x (trixie: 2.1.0) where roced meets them. 2.0 made
// names strong types (ServiceName, ObjectPath, Error::Name: explicit from a string), declares an
// object's members in vtables added per interface instead of registrators finished all at once,
// registers a proxy's signal handlers at once (no finishRegistration), renamed
// processPendingRequest to processPendingEvent and returns the current message by value.
// sdbus-c++ defines no version macro; <sdbus-c++/VTableItems.h> is new in 2.0.

#include <sdbus-c++/sdbus-c++.h>
#include <sys/types.h>

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#if __has_include(<sdbus-c++/VTableItems.h>)
#define ROCED_SDBUS_2 1
#else
#define ROCED_SDBUS_2 0
#endif

namespace roced::dbus {

#if ROCED_SDBUS_2
using BusName = sdbus::ServiceName;
using ErrorName = sdbus::Error::Name;
#else
using BusName = std::string;
using ErrorName = std::string;
#endif

// sdbus::Error(name, message) with `name` one of names.hpp's.
inline sdbus::Error bus_error(const char* name, std::string message) {
  return sdbus::Error(ErrorName(name), std::move(message));
}

inline std::unique_ptr<sdbus::IProxy> make_proxy(sdbus::IConnection& connection,
                                                 const char* destination, const char* path) {
  return sdbus::createProxy(connection, BusName(destination), sdbus::ObjectPath(path));
}

inline std::unique_ptr<sdbus::IObject> make_object(sdbus::IConnection& connection,
                                                   const char* path) {
  return sdbus::createObject(connection, sdbus::ObjectPath(path));
}

// After the uponSignal(...).call(...) declarations: 1.x subscribes here, 2.x already did.
inline void finish_signals([[maybe_unused]] sdbus::IProxy& proxy) {
#if !ROCED_SDBUS_2
  proxy.finishRegistration();
#endif
}

// One sd_bus_process step; false when nothing was pending.
inline bool process_pending(sdbus::IConnection& connection) {
#if ROCED_SDBUS_2
  return connection.processPendingEvent();
#else
  return connection.processPendingRequest();
#endif
}

// The fd an external loop polls for POLLIN besides PollData::fd (2.x: messages already read into
// sd-bus's queues by a call made meanwhile); -1 in 1.x, which poll(2) ignores.
inline int wake_fd([[maybe_unused]] const sdbus::IConnection::PollData& data) {
#if ROCED_SDBUS_2
  return data.eventFd;
#else
  return -1;
#endif
}

// The sender's uid and the member of the call being dispatched; none outside a call.
struct CurrentCall {
  uid_t uid;
  std::string member;
};
inline std::optional<CurrentCall> current_call(const sdbus::IObject& object) {
#if ROCED_SDBUS_2
  const sdbus::Message message = object.getCurrentlyProcessedMessage();
  if (!message.isValid()) return std::nullopt;
  const char* member = message.getMemberName();  // 2.x: a C string, null when there is none
  return CurrentCall{message.getCredsUid(), member ? member : ""};
#else
  const sdbus::Message* message = object.getCurrentlyProcessedMessage();
  if (message == nullptr) return std::nullopt;
  return CurrentCall{message->getCredsUid(), message->getMemberName()};  // 1.x: a std::string
#endif
}

// An object's methods, properties and signals on one interface. ROCED_DBUS_DECLARE(vtable, Method,
// "Name") starts a declaration that goes on with the with.../implementedAs calls both versions
// spell alike, in one statement; finish() publishes them all (2.x: one vtable).
class VTable {
 public:
  VTable(sdbus::IObject& object, const char* interface) : object_(object), interface_(interface) {}

  sdbus::IObject& object() { return object_; }
  const std::string& interface() const { return interface_; }
#if ROCED_SDBUS_2
  template <class Item>
  Item& add(Item item) {  // a deque: the references handed out stay valid
    return std::get<Item>(items_.emplace_back(std::move(item)));
  }
#endif
  void finish() {
#if ROCED_SDBUS_2
    object_.addVTable(std::vector<sdbus::VTableItem>(items_.begin(), items_.end()))
        .forInterface(interface_);
#else
    object_.finishRegistration();
#endif
  }

 private:
  sdbus::IObject& object_;
  std::string interface_;
#if ROCED_SDBUS_2
  std::deque<sdbus::VTableItem> items_;
#endif
};

}  // namespace roced::dbus

// Kind: Method, Property or Signal. 1.x registers the member when the statement ends.
#if ROCED_SDBUS_2
#define ROCED_DBUS_DECLARE(vtable, Kind, name) (vtable).add(sdbus::register##Kind(name))
#else
#define ROCED_DBUS_DECLARE(vtable, Kind, name) \
  (vtable).object().register##Kind(name).onInterface((vtable).interface())
#endif
