// SPDX-License-Identifier: Apache-2.0
#include "daemon/plan/planning_system.hpp"

#include <memory>

namespace roced::plan {

namespace {

// One rtnetlink socket for every request of the view, opened on first use and reopened after
// a send fails (the server may have restarted). Requests only: rtnl_request matches replies by
// sequence number, so one socket serves them one after another.
class SharedRtnl {
 public:
  explicit SharedRtnl(std::function<Result<std::unique_ptr<NetlinkSocket>>()> open)
      : open_(std::move(open)) {}

  Result<std::shared_ptr<NetlinkSocket>> get() {
    if (!socket_) {
      auto opened = open_();
      if (!opened) return opened.error();
      socket_ = std::move(*opened);
    }
    return socket_;
  }
  void drop() { socket_.reset(); }

 private:
  std::function<Result<std::unique_ptr<NetlinkSocket>>()> open_;
  std::shared_ptr<NetlinkSocket> socket_;
};

class BorrowedSocket final : public NetlinkSocket {
 public:
  BorrowedSocket(std::shared_ptr<SharedRtnl> shared, std::shared_ptr<NetlinkSocket> socket)
      : shared_(std::move(shared)), socket_(std::move(socket)) {}
  uint32_t port_id() const override { return socket_->port_id(); }
  Result<void> send(std::span<const uint8_t> datagram) override {
    auto sent = socket_->send(datagram);
    if (!sent) shared_->drop();  // the next request opens a new one
    return sent;
  }
  Result<std::vector<uint8_t>> receive(std::chrono::milliseconds timeout) override {
    return socket_->receive(timeout);
  }
  Result<void> join_group(uint32_t /*group*/) override {
    // Notifications would reach every borrower of the socket: not for a shared one.
    return Error{EINVAL, "a planning socket does not join multicast groups"};
  }
  int fd() const override { return socket_->fd(); }

 private:
  std::shared_ptr<SharedRtnl> shared_;
  std::shared_ptr<NetlinkSocket> socket_;
};

class BorrowedEthtool final : public EthtoolIoctl {
 public:
  explicit BorrowedEthtool(EthtoolIoctl& ethtool) : ethtool_(ethtool) {}
  Result<void> call(const std::string& ifname, std::span<uint8_t> buffer, size_t in_len) override {
    return ethtool_.call(ifname, buffer, in_len);
  }

 private:
  EthtoolIoctl& ethtool_;
};

class BorrowedFiles final : public FileTree {
 public:
  explicit BorrowedFiles(FileTree& files) : files_(files) {}
  std::filesystem::path resolve(const std::filesystem::path& path) const override {
    return files_.resolve(path);
  }
  Result<std::string> read(const std::filesystem::path& path) const override {
    return files_.read(path);
  }
  Result<void> write(const std::filesystem::path& path, const std::string& text) override {
    return files_.write(path, text);
  }
  Result<std::vector<std::string>> list(const std::filesystem::path& path) const override {
    return files_.list(path);
  }
  bool exists(const std::filesystem::path& path) const override { return files_.exists(path); }
  Result<void> make_dir(const std::filesystem::path& path) override {
    return files_.make_dir(path);
  }
  Result<std::filesystem::path> read_link(const std::filesystem::path& path) const override {
    return files_.read_link(path);
  }

 private:
  FileTree& files_;
};

}  // namespace

System planning_view(System& system) {
  System view;
  auto shared = std::make_shared<SharedRtnl>(system.open_rtnl);
  view.open_rtnl = [shared]() -> Result<std::unique_ptr<NetlinkSocket>> {
    auto socket = shared->get();
    if (!socket) return socket.error();
    return std::unique_ptr<NetlinkSocket>(std::make_unique<BorrowedSocket>(shared, *socket));
  };
  view.ethtool = std::make_unique<BorrowedEthtool>(*system.ethtool);
  view.files = std::make_unique<BorrowedFiles>(*system.files);
  view.description = system.description;
  return view;
}

}  // namespace roced::plan
