/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Exercises the LD_PRELOAD shim's netlink socket emulation call by call, the way iproute2,
 * libmnl and libnl use it. Run under the shim with ROCE_SIM_DIR pointing at fake_sim_server.py
 * (which serves port lan2, ifindex 7, and logs control messages to DIR/ctl.log).
 * Prints each failed check and exits 1 if any failed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int failures;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                              \
    }                                                                          \
  } while (0)

static int nl_socket(void) { return socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE); }

static int nl_bind(int fd, uint32_t pid, uint32_t groups) {
  struct sockaddr_nl addr = {.nl_family = AF_NETLINK, .nl_pid = pid, .nl_groups = groups};
  return bind(fd, (struct sockaddr*)&addr, sizeof(addr));
}

static uint32_t nl_portid(int fd) {
  struct sockaddr_nl addr;
  socklen_t len = sizeof(addr);
  memset(&addr, 0xff, sizeof(addr));
  if (getsockname(fd, (struct sockaddr*)&addr, &len) < 0) return 0xdeadbeef;
  CHECK(len == sizeof(struct sockaddr_nl));
  CHECK(addr.nl_family == AF_NETLINK);
  return addr.nl_pid;
}

/* Sends a GETLINK dump the way libmnl does (sendto with the kernel's address), reads the
 * reply the way iproute2 does (peek for the size, then recvmsg with a name). */
static void check_dump(int fd, uint32_t expect_portid) {
  struct {
    struct nlmsghdr hdr;
    struct ifinfomsg ifi;
  } req = {.hdr = {.nlmsg_len = sizeof(req),
                   .nlmsg_type = RTM_GETLINK,
                   .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
                   .nlmsg_seq = 42}};
  struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
  CHECK(sendto(fd, &req, sizeof(req), 0, (struct sockaddr*)&kernel, sizeof(kernel)) ==
        (ssize_t)sizeof(req));
  ssize_t full = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC);
  CHECK(full > (ssize_t)sizeof(struct nlmsghdr));
  char buf[8192];
  struct iovec iov = {buf, sizeof(buf)};
  struct sockaddr_nl from;
  memset(&from, 0xff, sizeof(from));
  struct msghdr msg = {
      .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov, .msg_iovlen = 1};
  ssize_t n = recvmsg(fd, &msg, 0);
  CHECK(n == full);
  CHECK(msg.msg_namelen == sizeof(struct sockaddr_nl));
  CHECK(from.nl_family == AF_NETLINK && from.nl_pid == 0 && from.nl_groups == 0);
  const struct nlmsghdr* h = (const struct nlmsghdr*)buf;
  CHECK(n >= (ssize_t)sizeof(*h) && h->nlmsg_type == RTM_NEWLINK);
  CHECK(h->nlmsg_seq == 42 && h->nlmsg_pid == expect_portid);
  const struct ifinfomsg* ifi = NLMSG_DATA(h);
  CHECK(ifi->ifi_index == 7);
}

static int ctl_log_has(const char* dir, const char* line) {
  char path[4096], buf[8192];
  snprintf(path, sizeof(path), "%s/ctl.log", dir);
  /* Control messages are one-way: poll until the server has logged it. The minute only stops a
   * hang; a busy machine may take seconds. */
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  const time_t give_up = now.tv_sec + 60;
  for (;;) {
    FILE* f = fopen(path, "r");
    if (f) {
      while (fgets(buf, sizeof(buf), f))
        if (!strncmp(buf, line, strlen(line))) {
          fclose(f);
          return 1;
        }
      fclose(f);
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec >= give_up) return 0;
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
}

int main(void) {
  const char* dir = getenv("ROCE_SIM_DIR");
  if (!dir) {
    fprintf(stderr, "ROCE_SIM_DIR not set\n");
    return 2;
  }
  const uint32_t pid = (uint32_t)getpid();

  /* Port ids as netlink_autobind() hands them out: tgid first, then -4096, -4097, ... */
  int a = nl_socket();
  CHECK(a >= 0);
  CHECK(nl_portid(a) == 0); /* unbound */
  CHECK(nl_bind(a, 0, 0) == 0);
  CHECK(nl_portid(a) == pid);
  int b = nl_socket();
  CHECK(nl_bind(b, 0, 0) == 0);
  CHECK(nl_portid(b) == (uint32_t)-4096);
  CHECK(nl_bind(a, 12345, 0) == -1 && errno == EINVAL); /* rebinding to another id */
  CHECK(nl_bind(a, pid, 0) == 0);                       /* same id: allowed */

  /* An explicit id (libnl style) is honoured; a clash is EADDRINUSE. */
  int c = nl_socket();
  CHECK(nl_bind(c, 0x12345, 0) == 0);
  CHECK(nl_portid(c) == 0x12345);
  int d = nl_socket();
  CHECK(nl_bind(d, 0x12345, 0) == -1 && errno == EADDRINUSE);
  CHECK(ctl_log_has(dir, "1 74565 0 74565"));

  /* Sending unbound auto-binds; replies carry our port id; the sender is the kernel. */
  int e = nl_socket();
  check_dump(e, (uint32_t)-4097);
  CHECK(nl_portid(e) == (uint32_t)-4097);
  check_dump(a, pid);

  /* dup'ed fds share the socket; closing one leaves the other working. */
  int a2 = dup(a);
  int a3 = fcntl(a, F_DUPFD_CLOEXEC, 100);
  int a4 = dup2(a, 200);
  CHECK(a2 >= 0 && a3 >= 100 && a4 == 200);
  CHECK(close(a) == 0);
  CHECK(nl_portid(a2) == pid && nl_portid(a3) == pid && nl_portid(a4) == pid);
  check_dump(a3, pid);
  /* dup2 over a netlink fd makes it whatever the source is (here: an AF_INET socket). */
  int udp = socket(AF_INET, SOCK_DGRAM, 0);
  CHECK(dup2(udp, a4) == a4);
  int domain = 0;
  socklen_t dlen = sizeof(domain);
  CHECK(getsockopt(a4, SOL_SOCKET, SO_DOMAIN, &domain, &dlen) == 0 && domain == AF_INET);

  /* Options: memberships are reported; the others are accepted and read back. */
  int group = RTNLGRP_LINK, one = 1, value = 0;
  socklen_t vlen = sizeof(value);
  CHECK(setsockopt(b, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, sizeof(group)) == 0);
  CHECK(ctl_log_has(dir, "2 1 0"));
  uint32_t groups[2] = {0, 0};
  socklen_t glen = sizeof(groups);
  CHECK(getsockopt(b, SOL_NETLINK, NETLINK_LIST_MEMBERSHIPS, groups, &glen) == 0);
  CHECK(groups[0] == 1u << (RTNLGRP_LINK - 1));
  CHECK(setsockopt(b, SOL_NETLINK, NETLINK_DROP_MEMBERSHIP, &group, sizeof(group)) == 0);
  CHECK(ctl_log_has(dir, "3 1 0"));
  CHECK(setsockopt(b, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) == 0);
  CHECK(setsockopt(b, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one, sizeof(one)) == 0);
  CHECK(getsockopt(b, SOL_NETLINK, NETLINK_EXT_ACK, &value, &vlen) == 0 && value == 1);
  int bufsize = 1 << 20;
  CHECK(setsockopt(b, SOL_SOCKET, SO_RCVBUF, &bufsize, sizeof(bufsize)) == 0);
  vlen = sizeof(value);
  CHECK(getsockopt(b, SOL_SOCKET, SO_PROTOCOL, &value, &vlen) == 0 && value == NETLINK_ROUTE);
  CHECK(connect(b, (struct sockaddr*)&(struct sockaddr_nl){.nl_family = AF_NETLINK},
                sizeof(struct sockaddr_nl)) == 0);

  /* Other sockets are the kernel's: genetlink and a UDP echo over loopback. */
  int genl = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
  CHECK(genl >= 0);
  vlen = sizeof(value);
  CHECK(getsockopt(genl, SOL_SOCKET, SO_PROTOCOL, &value, &vlen) == 0 && value == NETLINK_GENERIC);
  /* (loopback may have no address in a sandbox: bind to any, echo over a socketpair) */
  struct sockaddr_in any = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
  socklen_t anylen = sizeof(any);
  CHECK(bind(udp, (struct sockaddr*)&any, sizeof(any)) == 0);
  CHECK(getsockname(udp, (struct sockaddr*)&any, &anylen) == 0);
  CHECK(anylen == sizeof(any) && any.sin_family == AF_INET && any.sin_port != 0);
  int pair[2];
  CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, pair) == 0);
  struct timeval timeout = {30, 0}; /* a failure must not hang the test */
  CHECK(setsockopt(pair[1], SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout)) == 0);
  CHECK(sendto(pair[0], "ping", 4, 0, NULL, 0) == 4);
  char echo[8] = {0};
  CHECK(recvfrom(pair[1], echo, sizeof(echo), 0, NULL, NULL) == 4 && !memcmp(echo, "ping", 4));

  /* Interface ioctls: sim ports from DIR/sys, the others from the kernel. */
  struct ifreq ifr;
  memset(&ifr, 0, sizeof(ifr));
  strcpy(ifr.ifr_name, "lan2");
  CHECK(ioctl(udp, SIOCGIFINDEX, &ifr) == 0 && ifr.ifr_ifindex == 7);
  CHECK(ioctl(udp, SIOCGIFMTU, &ifr) == 0 && ifr.ifr_mtu == 1500);
  memset(&ifr, 0, sizeof(ifr));
  ifr.ifr_ifindex = 7;
  CHECK(ioctl(udp, SIOCGIFNAME, &ifr) == 0 && !strcmp(ifr.ifr_name, "lan2"));
  memset(&ifr, 0, sizeof(ifr));
  strcpy(ifr.ifr_name, "lo");
  CHECK(ioctl(udp, SIOCGIFINDEX, &ifr) == 0 && ifr.ifr_ifindex == (int)if_nametoindex("lo"));

  if (failures) return 1;
  printf("shim_probe: all checks passed\n");
  return 0;
}
