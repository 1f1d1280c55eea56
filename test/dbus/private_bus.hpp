// SPDX-License-Identifier: Apache-2.0
#pragma once
// A private dbus-daemon for one test: the system bus's default policy (deny by default, holes
// punched per service) with roced's shipped policy file included, listening on a unix socket in
// a scratch directory that any user may reach (the non-root caller tests need that).
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace roced::test {

class PrivateBus {
 public:
  // `policy_file` is <include>d; empty = none, and the default policy then lets anyone call
  // anything (to test the daemon's own check, without the bus's).
  // `socket` is where it listens; empty = a folder of its own.
  explicit PrivateBus(const std::string& policy_file, const std::string& socket = "") {
    char pattern[] = "/tmp/roced-dbus-test-XXXXXX";
    if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
    ::chmod(dir_.c_str(), 0755);
    address_ = "unix:path=" + (socket.empty() ? (dir_ / "bus").string() : socket);
    const auto config = dir_ / "bus.conf";
    std::ofstream(config) << config_text(policy_file);

    const std::string log = (dir_ / "bus.log").string();
    int out[2];
    if (::pipe(out) != 0) throw std::runtime_error("pipe failed");
    const std::string config_arg = "--config-file=" + config.string();
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {  // async-signal-safe calls only until exec (the test has threads)
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // a crashed test leaves no bus behind
      ::dup2(out[1], STDOUT_FILENO);
      const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (log_fd >= 0) ::dup2(log_fd, STDERR_FILENO);
      ::close(out[0]);
      ::close(out[1]);
      ::execlp("dbus-daemon", "dbus-daemon", config_arg.c_str(), "--print-address", "--nofork",
               nullptr);
      ::_exit(127);
    }
    ::close(out[1]);
    // The address is printed once the socket listens: reading it is the readiness check.
    std::string printed;
    char c = 0;
    while (::read(out[0], &c, 1) == 1 && c != '\n') printed += c;
    ::close(out[0]);
    if (printed.empty()) throw std::runtime_error("dbus-daemon did not start");
  }

  ~PrivateBus() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
    std::filesystem::remove_all(dir_);
  }

  PrivateBus(const PrivateBus&) = delete;
  PrivateBus& operator=(const PrivateBus&) = delete;

  const std::string& address() const { return address_; }
  // What dbus-daemon said on stderr: among others, each message its policy rejected.
  std::string log() const {
    std::ifstream in(dir_ / "bus.log");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

 private:
  std::string config_text(const std::string& policy_file) const {
    std::string text =
        "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n"
        " \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
        "<busconfig>\n"
        "  <type>system</type>\n"
        "  <listen>" +
        address_ +
        "</listen>\n"
        "  <auth>EXTERNAL</auth>\n"
        "  <policy context=\"default\">\n"
        "    <allow user=\"*\"/>\n";
    if (policy_file.empty()) {
      text += "    <allow own=\"*\"/>\n    <allow send_type=\"method_call\"/>\n";
    } else {
      // As /usr/share/dbus-1/system.conf: services punch their own holes.
      text += "    <deny own=\"*\"/>\n    <deny send_type=\"method_call\"/>\n";
    }
    text +=
        "    <allow send_type=\"signal\"/>\n"
        "    <allow send_requested_reply=\"true\" send_type=\"method_return\"/>\n"
        "    <allow send_requested_reply=\"true\" send_type=\"error\"/>\n"
        "    <allow receive_type=\"method_call\"/>\n"
        "    <allow receive_type=\"method_return\"/>\n"
        "    <allow receive_type=\"error\"/>\n"
        "    <allow receive_type=\"signal\"/>\n"
        "    <allow send_destination=\"org.freedesktop.DBus\"\n"
        "           send_interface=\"org.freedesktop.DBus\"/>\n"
        "    <allow send_destination=\"org.freedesktop.DBus\"\n"
        "           send_interface=\"org.freedesktop.DBus.Introspectable\"/>\n"
        "    <allow send_destination=\"org.freedesktop.DBus\"\n"
        "           send_interface=\"org.freedesktop.DBus.Properties\"/>\n"
        "  </policy>\n";
    if (!policy_file.empty()) text += "  <include>" + policy_file + "</include>\n";
    text += "</busconfig>\n";
    return text;
  }

  std::filesystem::path dir_;
  std::string address_;
  pid_t pid_ = -1;
};

}  // namespace roced::test
