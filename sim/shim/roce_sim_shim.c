/* SPDX-License-Identifier: Apache-2.0 */
/*
 * LD_PRELOAD shim: puts a roce-sim node (uapi/roce_sim.h) behind the kernel interfaces that
 * unmodified tools use, so `ip`, `dcb`, `ethtool` and libnl clients talk to the device model.
 *
 * Active only when ROCE_SIM_DIR names a node directory; otherwise every call passes through.
 *  - socket(AF_NETLINK, *, NETLINK_ROUTE) becomes a SOCK_SEQPACKET connection to DIR/rtnl.sock,
 *    NETLINK_RDMA (the `rdma` tool) one to DIR/rdma.sock.
 *    The netlink socket state the kernel would keep (port id, groups, options) lives in a table
 *    indexed by fd, shared by dup()ed fds like the kernel's struct sock; bind() and membership
 *    changes are reported to the server with ROCE_SIM_NLMSG_CTL messages.
 *  - ioctl(SIOCETHTOOL) on an interface that exists under DIR/sys/class/net is forwarded to
 *    DIR/ethtool.sock; a few SIOCGIF* ioctls are answered from the sysfs tree.
 *  - ethtool(8) naming such an interface on its command line gets no NETLINK_GENERIC socket
 *    (EPROTONOSUPPORT): the node has no ethtool genetlink family, and ethtool then uses the
 *    ioctl, as it does on a kernel without one.
 * Every other socket, ioctl and interface (lo, the host's NICs, NETLINK_GENERIC) is untouched.
 *
 * Blind spots: glibc-internal netlink/ioctl (getifaddrs, if_nametoindex), static binaries.
 * ASan-built programs abort because this library precedes the ASan runtime in the initial
 * library list; run them with ASAN_OPTIONS=verify_asan_link_order=0. Nothing here runs at load
 * time (no constructor, real symbols resolved lazily) so ASan's own early calls are not disturbed.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "roce_sim.h"

#define SHIM_EXPORT __attribute__((visibility("default")))

/* ------------------------------------------------------------------ real symbols (lazy) */

static void* resolve_next(void** slot, const char* name) {
  void* fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (!fn) {
    fn = dlsym(RTLD_NEXT, name);
    __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
  }
  return fn;
}

#define REAL_FN(ret, name, params) \
  typedef ret(*name##_fn) params;  \
  static void* name##_slot;        \
  static name##_fn real_##name(void) { return (name##_fn)resolve_next(&name##_slot, #name); }

REAL_FN(int, socket, (int, int, int))
REAL_FN(int, bind, (int, __CONST_SOCKADDR_ARG, socklen_t))
REAL_FN(int, connect, (int, __CONST_SOCKADDR_ARG, socklen_t))
REAL_FN(int, getsockname, (int, __SOCKADDR_ARG, socklen_t*))
REAL_FN(int, getpeername, (int, __SOCKADDR_ARG, socklen_t*))
REAL_FN(int, setsockopt, (int, int, int, const void*, socklen_t))
REAL_FN(int, getsockopt, (int, int, int, void*, socklen_t*))
REAL_FN(ssize_t, send, (int, const void*, size_t, int))
REAL_FN(ssize_t, sendto, (int, const void*, size_t, int, __CONST_SOCKADDR_ARG, socklen_t))
REAL_FN(ssize_t, sendmsg, (int, const struct msghdr*, int))
REAL_FN(ssize_t, recvfrom, (int, void*, size_t, int, __SOCKADDR_ARG, socklen_t*))
REAL_FN(ssize_t, __recvfrom_chk, (int, void*, size_t, size_t, int, __SOCKADDR_ARG, socklen_t*))
REAL_FN(ssize_t, recvmsg, (int, struct msghdr*, int))
REAL_FN(int, close, (int))
REAL_FN(int, dup, (int))
REAL_FN(int, dup2, (int, int))
REAL_FN(int, dup3, (int, int, int))
REAL_FN(int, fcntl, (int, int, ...))
REAL_FN(int, fcntl64, (int, int, ...))
REAL_FN(int, ioctl, (int, unsigned long, ...))

#define CALL_REAL(name, ...) (real_##name() ? real_##name()(__VA_ARGS__) : (errno = ENOSYS, -1))

/* ------------------------------------------------------------------ simulated node dir */

static const char* sim_dir(void) {
  const char* dir = getenv(ROCE_SIM_DIR_ENV);
  return (dir && *dir) ? dir : NULL;
}

/* ------------------------------------------------------------------ netlink socket table */

/* What the kernel keeps in struct netlink_sock; shared by every fd that dup()s the socket. */
struct nl_state {
  int refs;
  int type;     /* SOCK_RAW or SOCK_DGRAM, as the caller created it */
  int protocol; /* NETLINK_ROUTE or NETLINK_RDMA */
  int bound;
  uint32_t portid;
  uint64_t groups;    /* bit n-1 = multicast group n */
  uint32_t bool_opts; /* bit = NETLINK_* boolean option number */
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nl_state** fd_table;
static size_t fd_table_size;
static int32_t autobind_rover = -4096; /* netlink_autobind(): negative ids after the tgid */

/* Callers hold table_lock. */
static struct nl_state* lookup_locked(int fd) {
  return (fd >= 0 && (size_t)fd < fd_table_size) ? fd_table[fd] : NULL;
}

static void release_locked(struct nl_state* st) {
  if (st && --st->refs == 0) free(st);
}

static int attach_locked(int fd, struct nl_state* st) {
  if (fd < 0) return -1;
  if ((size_t)fd >= fd_table_size) {
    size_t size = fd_table_size ? fd_table_size : 64;
    while (size <= (size_t)fd) size *= 2;
    struct nl_state** grown = realloc(fd_table, size * sizeof(*grown));
    if (!grown) return -1;
    memset(grown + fd_table_size, 0, (size - fd_table_size) * sizeof(*grown));
    fd_table = grown;
    fd_table_size = size;
  }
  release_locked(fd_table[fd]);
  fd_table[fd] = st;
  if (st) st->refs++;
  return 0;
}

static int is_netlink(int fd) {
  pthread_mutex_lock(&table_lock);
  int ours = lookup_locked(fd) != NULL;
  pthread_mutex_unlock(&table_lock);
  return ours;
}

static void forget_fd(int fd) {
  pthread_mutex_lock(&table_lock);
  if (lookup_locked(fd)) attach_locked(fd, NULL);
  pthread_mutex_unlock(&table_lock);
}

static void share_fd(int oldfd, int newfd) {
  pthread_mutex_lock(&table_lock);
  struct nl_state* st = lookup_locked(oldfd);
  if (newfd >= 0 && newfd != oldfd && (st || lookup_locked(newfd))) attach_locked(newfd, st);
  pthread_mutex_unlock(&table_lock);
}

static int portid_in_use_locked(uint32_t portid) {
  for (size_t i = 0; i < fd_table_size; i++)
    if (fd_table[i] && fd_table[i]->bound && fd_table[i]->portid == portid) return 1;
  return 0;
}

static int send_ctl(int fd, uint32_t portid, uint32_t op, uint32_t arg, uint32_t arg2) {
  struct {
    struct nlmsghdr hdr;
    struct roce_sim_nl_ctl ctl;
  } msg;
  memset(&msg, 0, sizeof(msg));
  msg.hdr.nlmsg_len = sizeof(msg);
  msg.hdr.nlmsg_type = ROCE_SIM_NLMSG_CTL;
  msg.hdr.nlmsg_pid = portid;
  msg.ctl.op = op;
  msg.ctl.arg = arg;
  msg.ctl.arg2 = arg2;
  ssize_t n = CALL_REAL(send, fd, &msg, sizeof(msg), MSG_NOSIGNAL);
  return n == (ssize_t)sizeof(msg) ? 0 : -1;
}

/* Binds fd like netlink_bind()/netlink_autobind(): requested == 0 picks the tgid, then
 * -4096, -4097, ... Returns 0 or -errno. */
static int bind_socket(int fd, uint32_t requested, uint32_t groups_mask, int set_groups) {
  pthread_mutex_lock(&table_lock);
  struct nl_state* st = lookup_locked(fd);
  if (!st) {
    pthread_mutex_unlock(&table_lock);
    return -EBADF;
  }
  if (st->bound) {
    if (requested != st->portid) {
      pthread_mutex_unlock(&table_lock);
      return -EINVAL;
    }
  } else if (requested) {
    if (portid_in_use_locked(requested)) {
      pthread_mutex_unlock(&table_lock);
      return -EADDRINUSE;
    }
    st->portid = requested;
  } else {
    uint32_t candidate = (uint32_t)getpid();
    while (portid_in_use_locked(candidate)) candidate = (uint32_t)autobind_rover--;
    st->portid = candidate;
  }
  st->bound = 1;
  if (set_groups) st->groups = (st->groups & ~(uint64_t)0xffffffffu) | groups_mask;
  uint32_t portid = st->portid;
  uint32_t groups = (uint32_t)st->groups;
  pthread_mutex_unlock(&table_lock);
  return send_ctl(fd, portid, ROCE_SIM_CTL_BIND, portid, groups) == 0 ? 0 : -errno;
}

/* Sending or connecting on an unbound socket binds it first (netlink_sendmsg, netlink_connect). */
static int autobind(int fd) {
  pthread_mutex_lock(&table_lock);
  struct nl_state* st = lookup_locked(fd);
  int bound = st && st->bound;
  pthread_mutex_unlock(&table_lock);
  if (bound) return 0;
  int err = bind_socket(fd, 0, 0, 0);
  if (err < 0 && err != -EINVAL) { /* EINVAL: another thread bound it meanwhile */
    errno = -err;
    return -1;
  }
  return 0;
}

static int open_sim_socket(const char* dir, const char* name, int cloexec) {
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof(addr));
  addr.sun_family = AF_UNIX;
  if ((size_t)snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/%s", dir, name) >=
      sizeof(addr.sun_path)) {
    errno = ENAMETOOLONG;
    return -1;
  }
  int fd = CALL_REAL(socket, AF_UNIX, SOCK_SEQPACKET | (cloexec ? SOCK_CLOEXEC : 0), 0);
  if (fd < 0) return -1;
  if (CALL_REAL(connect, fd, (const struct sockaddr*)&addr, (socklen_t)sizeof(addr)) < 0) {
    int saved = errno;
    CALL_REAL(close, fd);
    errno = saved;
    return -1;
  }
  return fd;
}

static void fill_kernel_addr(void* addr, socklen_t* addrlen, uint32_t portid, uint32_t groups) {
  if (!addr || !addrlen) return;
  struct sockaddr_nl nl;
  memset(&nl, 0, sizeof(nl));
  nl.nl_family = AF_NETLINK;
  nl.nl_pid = portid;
  nl.nl_groups = groups;
  size_t n = *addrlen < sizeof(nl) ? *addrlen : sizeof(nl);
  memcpy(addr, &nl, n);
  *addrlen = (socklen_t)sizeof(nl); /* the full length, as move_addr_to_user() reports it */
}

/* ------------------------------------------------------------------ socket calls */

static int ethtool_names_sim_port(const char* dir);

SHIM_EXPORT int socket(int domain, int type, int protocol) {
  const char* dir = sim_dir();
  if (domain == AF_NETLINK && protocol == NETLINK_GENERIC && dir && ethtool_names_sim_port(dir)) {
    errno = EPROTONOSUPPORT; /* netlink_create() for a protocol the kernel does not have */
    return -1;
  }
  if (domain != AF_NETLINK || (protocol != NETLINK_ROUTE && protocol != NETLINK_RDMA) || !dir) {
    int fd = CALL_REAL(socket, domain, type, protocol);
    if (fd >= 0) forget_fd(fd); /* a stale entry if the fd was closed behind our back */
    return fd;
  }
  int base_type = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (base_type != SOCK_RAW && base_type != SOCK_DGRAM) { /* netlink_create() */
    errno = ESOCKTNOSUPPORT;
    return -1;
  }
  struct nl_state* st = calloc(1, sizeof(*st));
  if (!st) {
    errno = ENOBUFS;
    return -1;
  }
  st->type = base_type;
  st->protocol = protocol;
  int fd =
      open_sim_socket(dir, protocol == NETLINK_RDMA ? ROCE_SIM_RDMA_SOCKET : ROCE_SIM_RTNL_SOCKET,
                      type & SOCK_CLOEXEC);
  if (fd < 0) {
    free(st);
    return -1;
  }
  /* Connected first, then non-blocking: a full listen backlog must not fail socket(). */
  if (type & SOCK_NONBLOCK) {
    int flags = CALL_REAL(fcntl, fd, F_GETFL);
    CALL_REAL(fcntl, fd, F_SETFL, flags | O_NONBLOCK);
  }
  pthread_mutex_lock(&table_lock);
  int err = attach_locked(fd, st);
  pthread_mutex_unlock(&table_lock);
  if (err < 0) {
    free(st);
    CALL_REAL(close, fd);
    errno = ENOBUFS;
    return -1;
  }
  return fd;
}

SHIM_EXPORT int bind(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len) {
  if (!is_netlink(fd)) return CALL_REAL(bind, fd, addr, len);
  const struct sockaddr_nl* nl = (const struct sockaddr_nl*)addr.__sockaddr__;
  if (!nl || len < sizeof(*nl) || nl->nl_family != AF_NETLINK) {
    errno = EINVAL;
    return -1;
  }
  int err = bind_socket(fd, nl->nl_pid, nl->nl_groups, 1);
  if (err < 0) {
    errno = -err;
    return -1;
  }
  return 0;
}

SHIM_EXPORT int connect(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len) {
  if (!is_netlink(fd)) return CALL_REAL(connect, fd, addr, len);
  const struct sockaddr* sa = addr.__sockaddr__;
  if (!sa || len < sizeof(sa_family_t)) {
    errno = EINVAL;
    return -1;
  }
  if (sa->sa_family == AF_UNSPEC) return 0; /* disconnect */
  if (sa->sa_family != AF_NETLINK || len < sizeof(struct sockaddr_nl)) {
    errno = EINVAL;
    return -1;
  }
  return autobind(fd); /* the only peer is the kernel (the server) */
}

SHIM_EXPORT int getsockname(int fd, __SOCKADDR_ARG addr, socklen_t* len) {
  pthread_mutex_lock(&table_lock);
  struct nl_state* st = lookup_locked(fd);
  uint32_t portid = st && st->bound ? st->portid : 0;
  uint32_t groups = st ? (uint32_t)st->groups : 0;
  pthread_mutex_unlock(&table_lock);
  if (!st) return CALL_REAL(getsockname, fd, addr, len);
  fill_kernel_addr(addr.__sockaddr__, len, portid, groups);
  return 0;
}

SHIM_EXPORT int getpeername(int fd, __SOCKADDR_ARG addr, socklen_t* len) {
  if (!is_netlink(fd)) return CALL_REAL(getpeername, fd, addr, len);
  fill_kernel_addr(addr.__sockaddr__, len, 0, 0);
  return 0;
}

static int is_bool_netlink_opt(int opt) {
  switch (opt) {
    case NETLINK_PKTINFO:
    case NETLINK_BROADCAST_ERROR:
    case NETLINK_NO_ENOBUFS:
    case NETLINK_LISTEN_ALL_NSID:
    case NETLINK_CAP_ACK:
    case NETLINK_EXT_ACK:
    case NETLINK_GET_STRICT_CHK:
      return 1;
    default:
      return 0;
  }
}

/* netlink_setsockopt(): options are recorded; memberships are reported to the server. */
static int netlink_setsockopt(int fd, int opt, const void* val, socklen_t len) {
  if (!val || len < sizeof(int)) {
    errno = EINVAL;
    return -1;
  }
  int value;
  memcpy(&value, val, sizeof(value));
  if (opt == NETLINK_ADD_MEMBERSHIP || opt == NETLINK_DROP_MEMBERSHIP) {
    if (value <= 0 || value > RTNLGRP_MAX) {
      errno = EINVAL;
      return -1;
    }
    pthread_mutex_lock(&table_lock);
    struct nl_state* st = lookup_locked(fd);
    uint64_t bit = (uint64_t)1 << (value - 1);
    if (st) st->groups = opt == NETLINK_ADD_MEMBERSHIP ? (st->groups | bit) : (st->groups & ~bit);
    uint32_t portid = st && st->bound ? st->portid : 0;
    pthread_mutex_unlock(&table_lock);
    uint32_t op =
        opt == NETLINK_ADD_MEMBERSHIP ? ROCE_SIM_CTL_ADD_MEMBERSHIP : ROCE_SIM_CTL_DROP_MEMBERSHIP;
    return send_ctl(fd, portid, op, (uint32_t)value, 0);
  }
  if (!is_bool_netlink_opt(opt)) {
    errno = ENOPROTOOPT;
    return -1;
  }
  pthread_mutex_lock(&table_lock);
  struct nl_state* st = lookup_locked(fd);
  if (st) st->bool_opts = value ? (st->bool_opts | (1u << opt)) : (st->bool_opts & ~(1u << opt));
  pthread_mutex_unlock(&table_lock);
  return 0;
}

SHIM_EXPORT int setsockopt(int fd, int level, int opt, const void* val, socklen_t len) {
  if (level != SOL_NETLINK || !is_netlink(fd))
    return CALL_REAL(setsockopt, fd, level, opt, val, len);
  return netlink_setsockopt(fd, opt, val, len);
}

static int put_int_opt(void* val, socklen_t* len, int value) {
  if (!val || !len || *len < sizeof(int)) {
    errno = EINVAL;
    return -1;
  }
  memcpy(val, &value, sizeof(value));
  *len = sizeof(int);
  return 0;
}

SHIM_EXPORT int getsockopt(int fd, int level, int opt, void* val, socklen_t* len) {
  pthread_mutex_lock(&table_lock);
  struct nl_state* st = lookup_locked(fd);
  struct nl_state copy = st ? *st : (struct nl_state){0};
  pthread_mutex_unlock(&table_lock);
  if (!st) return CALL_REAL(getsockopt, fd, level, opt, val, len);
  if (level == SOL_SOCKET) {
    if (opt == SO_DOMAIN) return put_int_opt(val, len, AF_NETLINK);
    if (opt == SO_PROTOCOL) return put_int_opt(val, len, copy.protocol);
    if (opt == SO_TYPE) return put_int_opt(val, len, copy.type);
    return CALL_REAL(getsockopt, fd, level, opt, val, len);
  }
  if (level != SOL_NETLINK) {
    errno = ENOPROTOOPT;
    return -1;
  }
  if (opt == NETLINK_LIST_MEMBERSHIPS) { /* u32 words of the group bitmap; len = size needed */
    if (!len) {
      errno = EINVAL;
      return -1;
    }
    uint32_t words[2] = {(uint32_t)copy.groups, (uint32_t)(copy.groups >> 32)};
    size_t n = *len < sizeof(words) ? *len : sizeof(words);
    if (val) memcpy(val, words, n - n % 4);
    *len = sizeof(words);
    return 0;
  }
  if (!is_bool_netlink_opt(opt)) {
    errno = ENOPROTOOPT;
    return -1;
  }
  return put_int_opt(val, len, (copy.bool_opts >> opt) & 1);
}

SHIM_EXPORT ssize_t send(int fd, const void* buf, size_t len, int flags) {
  if (!is_netlink(fd)) return CALL_REAL(send, fd, buf, len, flags);
  if (autobind(fd) < 0) return -1;
  /* A netlink socket never raises SIGPIPE; a Unix one would if the server went away. */
  return CALL_REAL(send, fd, buf, len, flags | MSG_NOSIGNAL);
}

SHIM_EXPORT ssize_t sendto(int fd, const void* buf, size_t len, int flags,
                           __CONST_SOCKADDR_ARG addr, socklen_t addrlen) {
  if (!is_netlink(fd)) return CALL_REAL(sendto, fd, buf, len, flags, addr, addrlen);
  if (autobind(fd) < 0) return -1;
  /* SEQPACKET refuses a destination; the kernel is the only one there is. */
  return CALL_REAL(sendto, fd, buf, len, flags | MSG_NOSIGNAL, (const struct sockaddr*)NULL, 0);
}

SHIM_EXPORT ssize_t sendmsg(int fd, const struct msghdr* msg, int flags) {
  if (!is_netlink(fd) || !msg) return CALL_REAL(sendmsg, fd, msg, flags);
  if (autobind(fd) < 0) return -1;
  struct msghdr stripped = *msg;
  stripped.msg_name = NULL;
  stripped.msg_namelen = 0;
  return CALL_REAL(sendmsg, fd, &stripped, flags | MSG_NOSIGNAL);
}

SHIM_EXPORT ssize_t recvfrom(int fd, void* buf, size_t len, int flags, __SOCKADDR_ARG addr,
                             socklen_t* addrlen) {
  if (!is_netlink(fd)) return CALL_REAL(recvfrom, fd, buf, len, flags, addr, addrlen);
  ssize_t n = CALL_REAL(recvfrom, fd, buf, len, flags, (struct sockaddr*)NULL, NULL);
  if (n >= 0) fill_kernel_addr(addr.__sockaddr__, addrlen, 0, 0);
  return n;
}

/* _FORTIFY_SOURCE turns recvfrom() with a known buffer size into this. */
SHIM_EXPORT ssize_t __recvfrom_chk(int fd, void* buf, size_t len, size_t buflen, int flags,
                                   __SOCKADDR_ARG addr, socklen_t* addrlen) {
  if (!is_netlink(fd)) return CALL_REAL(__recvfrom_chk, fd, buf, len, buflen, flags, addr, addrlen);
  ssize_t n = CALL_REAL(__recvfrom_chk, fd, buf, len, buflen, flags, (struct sockaddr*)NULL, NULL);
  if (n >= 0) fill_kernel_addr(addr.__sockaddr__, addrlen, 0, 0);
  return n;
}

SHIM_EXPORT ssize_t recvmsg(int fd, struct msghdr* msg, int flags) {
  if (!is_netlink(fd) || !msg) return CALL_REAL(recvmsg, fd, msg, flags);
  /* Receive without a name (the server's sockaddr_un is no business of the caller), then
   * report the sender as the kernel: {AF_NETLINK, pid 0}. iproute2 exits on any other length. */
  struct msghdr inner = *msg;
  inner.msg_name = NULL;
  inner.msg_namelen = 0;
  ssize_t n = CALL_REAL(recvmsg, fd, &inner, flags);
  if (n < 0) return n;
  msg->msg_controllen = inner.msg_controllen;
  msg->msg_flags = inner.msg_flags;
  if (msg->msg_name) fill_kernel_addr(msg->msg_name, &msg->msg_namelen, 0, 0);
  return n;
}

/* ------------------------------------------------------------------ fd lifetime */

SHIM_EXPORT int close(int fd) {
  forget_fd(fd);
  return CALL_REAL(close, fd);
}

SHIM_EXPORT int dup(int fd) {
  int newfd = CALL_REAL(dup, fd);
  if (newfd >= 0) share_fd(fd, newfd);
  return newfd;
}

SHIM_EXPORT int dup2(int oldfd, int newfd) {
  int fd = CALL_REAL(dup2, oldfd, newfd);
  if (fd >= 0) share_fd(oldfd, fd);
  return fd;
}

SHIM_EXPORT int dup3(int oldfd, int newfd, int flags) {
  int fd = CALL_REAL(dup3, oldfd, newfd, flags);
  if (fd >= 0) share_fd(oldfd, fd);
  return fd;
}

/* glibc reads the optional argument as a pointer-sized value for every command; so do we. */
SHIM_EXPORT int fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  int ret = CALL_REAL(fcntl, fd, cmd, arg);
  if (ret >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)) share_fd(fd, ret);
  return ret;
}

SHIM_EXPORT int fcntl64(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  int ret = real_fcntl64() ? real_fcntl64()(fd, cmd, arg) : CALL_REAL(fcntl, fd, cmd, arg);
  if (ret >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)) share_fd(fd, ret);
  return ret;
}

/* ------------------------------------------------------------------ interfaces (ioctl) */

/* DIR/sys/class/net/<ifname>[/<attr>]; 0 on success. */
static int sim_port_path(char* out, size_t size, const char* dir, const char* ifname,
                         const char* attr) {
  if (!*ifname || strchr(ifname, '/') || !strcmp(ifname, ".") || !strcmp(ifname, "..")) return -1;
  int n = snprintf(out, size, "%s/%s/class/net/%s%s%s", dir, ROCE_SIM_SYS_DIR, ifname,
                   attr ? "/" : "", attr ? attr : "");
  return (n < 0 || (size_t)n >= size) ? -1 : 0;
}

/* Copies ifr_name into a terminated string; returns it if the sim has that interface. */
static const char* sim_port_name(const char* dir, const struct ifreq* ifr, char* name) {
  char path[PATH_MAX];
  memcpy(name, ifr->ifr_name, IFNAMSIZ);
  name[IFNAMSIZ - 1] = '\0';
  struct stat sb;
  if (sim_port_path(path, sizeof(path), dir, name, NULL) < 0 || stat(path, &sb) < 0) return NULL;
  return name;
}

/* ethtool 6.1 sends a request to its genetlink family first and falls back to SIOCETHTOOL only
 * when it cannot use genetlink at all (netlink/netlink.c netlink_run_handler: "netlink interface
 * initialization failed"); the host's family would answer ENODEV for a simulated interface, and a
 * set would fail without a fallback. So ethtool, and only when its command line names an
 * interface of the node, is refused the socket: its commands then take the ioctl, forwarded
 * below. Everything else keeps the host's genetlink (`ethtool -k lo` is answered by the kernel). */
static int ethtool_names_sim_port(const char* dir) {
  char cmdline[4096];
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, cmdline, sizeof(cmdline) - 1);
  CALL_REAL(close, fd);
  if (n <= 0) return 0;
  cmdline[n] = '\0'; /* a command line longer than the buffer is read as far as it goes */
  const char* program = strrchr(cmdline, '/');
  program = program ? program + 1 : cmdline;
  if (strcmp(program, "ethtool") != 0) return 0;
  char path[PATH_MAX];
  struct stat sb;
  for (const char* arg = cmdline + strlen(cmdline) + 1; arg < cmdline + n; arg += strlen(arg) + 1) {
    if (strlen(arg) < IFNAMSIZ && sim_port_path(path, sizeof(path), dir, arg, NULL) == 0 &&
        stat(path, &sb) == 0)
      return 1;
  }
  return 0;
}

static int read_attr(const char* dir, const char* ifname, const char* attr, char* buf,
                     size_t size) {
  char path[PATH_MAX];
  if (sim_port_path(path, sizeof(path), dir, ifname, attr) < 0) return -1;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, size - 1);
  CALL_REAL(close, fd);
  if (n < 0) return -1;
  buf[n] = '\0';
  return 0;
}

static int read_attr_long(const char* dir, const char* ifname, const char* attr, long* out) {
  char buf[64];
  if (read_attr(dir, ifname, attr, buf, sizeof(buf)) < 0) return -1;
  char* end;
  *out = strtol(buf, &end, 0);
  return end == buf ? -1 : 0;
}

/*
 * Bytes of the user's command struct the request carries, and how many bytes of reply fit
 * in the user's buffer (the kernel trusts the sizes; we cap the copy so a server bug cannot
 * scribble over the caller's memory). Layouts from include/uapi/linux/ethtool.h; variable
 * parts as dev_ethtool() sizes them. Returns -1 for commands the shim does not carry.
 */
static int ethtool_sizes(uint32_t cmd, const void* data, size_t* in_len, size_t* out_cap) {
  size_t fixed = 0;
  switch (cmd) {
    case ETHTOOL_GSET:
    case ETHTOOL_SSET:
      fixed = sizeof(struct ethtool_cmd);
      break;
    case ETHTOOL_GDRVINFO:
      fixed = sizeof(struct ethtool_drvinfo);
      break;
    case ETHTOOL_GWOL:
    case ETHTOOL_SWOL:
      fixed = sizeof(struct ethtool_wolinfo);
      break;
    case ETHTOOL_GMSGLVL:
    case ETHTOOL_SMSGLVL:
    case ETHTOOL_NWAY_RST:
    case ETHTOOL_GLINK:
    case ETHTOOL_GRXCSUM:
    case ETHTOOL_SRXCSUM:
    case ETHTOOL_GTXCSUM:
    case ETHTOOL_STXCSUM:
    case ETHTOOL_GSG:
    case ETHTOOL_SSG:
    case ETHTOOL_GTSO:
    case ETHTOOL_STSO:
    case ETHTOOL_GUFO:
    case ETHTOOL_SUFO:
    case ETHTOOL_GGSO:
    case ETHTOOL_SGSO:
    case ETHTOOL_GGRO:
    case ETHTOOL_SGRO:
    case ETHTOOL_GFLAGS:
    case ETHTOOL_SFLAGS:
    case ETHTOOL_GPFLAGS:
    case ETHTOOL_SPFLAGS:
    case ETHTOOL_PHYS_ID:
      fixed = sizeof(struct ethtool_value);
      break;
    case ETHTOOL_GCOALESCE:
    case ETHTOOL_SCOALESCE:
      fixed = sizeof(struct ethtool_coalesce);
      break;
    case ETHTOOL_GRINGPARAM:
    case ETHTOOL_SRINGPARAM:
      fixed = sizeof(struct ethtool_ringparam);
      break;
    case ETHTOOL_GPAUSEPARAM:
    case ETHTOOL_SPAUSEPARAM:
      fixed = sizeof(struct ethtool_pauseparam);
      break;
    case ETHTOOL_GCHANNELS:
    case ETHTOOL_SCHANNELS:
      fixed = sizeof(struct ethtool_channels);
      break;
    case ETHTOOL_GET_TS_INFO:
      fixed = sizeof(struct ethtool_ts_info);
      break;
    case ETHTOOL_GMODULEINFO:
      fixed = sizeof(struct ethtool_modinfo);
      break;
    case ETHTOOL_GEEE:
    case ETHTOOL_SEEE:
      fixed = sizeof(struct ethtool_eee);
      break;
    case ETHTOOL_GFECPARAM:
    case ETHTOOL_SFECPARAM:
      fixed = sizeof(struct ethtool_fecparam);
      break;
    case ETHTOOL_GSSET_INFO: { /* header + one u32 per bit asked for (ethtool_get_sset_info) */
      struct ethtool_sset_info info;
      memcpy(&info, data, sizeof(info));
      *in_len = sizeof(info);
      *out_cap = sizeof(info) + sizeof(uint32_t) * (size_t)__builtin_popcountll(info.sset_mask);
      return 0;
    }
    case ETHTOOL_GSTRINGS: { /* header in; header + len strings out (ethtool_get_strings) */
      struct ethtool_gstrings gs;
      memcpy(&gs, data, sizeof(gs));
      *in_len = sizeof(gs);
      *out_cap = sizeof(gs) + (size_t)gs.len * ETH_GSTRING_LEN;
      return 0;
    }
    case ETHTOOL_GSTATS:
    case ETHTOOL_GPHYSTATS: { /* header in; header + n_stats u64 out (ethtool_get_stats) */
      struct ethtool_stats stats;
      memcpy(&stats, data, sizeof(stats));
      *in_len = sizeof(stats);
      *out_cap = sizeof(stats) + (size_t)stats.n_stats * sizeof(uint64_t);
      return 0;
    }
    case ETHTOOL_GTUNABLE:
    case ETHTOOL_PHY_GTUNABLE:
    case ETHTOOL_STUNABLE:
    case ETHTOOL_PHY_STUNABLE: { /* ethtool_get_tunable/ethtool_set_tunable: header + len */
      struct ethtool_tunable tuna;
      memcpy(&tuna, data, sizeof(tuna));
      int is_set = cmd == ETHTOOL_STUNABLE || cmd == ETHTOOL_PHY_STUNABLE;
      *in_len = sizeof(tuna) + (is_set ? tuna.len : 0);
      *out_cap = sizeof(tuna) + tuna.len;
      return 0;
    }
    case ETHTOOL_GLINKSETTINGS:
    case ETHTOOL_SLINKSETTINGS: { /* header + 3 bitmaps of nwords u32 (ethtool_get_link_ksettings);
                                     nwords 0 is the handshake the kernel answers with -N */
      struct ethtool_link_settings ls;
      memcpy(&ls, data, sizeof(ls));
      size_t masks = ls.link_mode_masks_nwords > 0
                         ? 3u * (size_t)ls.link_mode_masks_nwords * sizeof(uint32_t)
                         : 0;
      *in_len = sizeof(ls) + (cmd == ETHTOOL_SLINKSETTINGS ? masks : 0);
      *out_cap = sizeof(ls) + masks;
      return 0;
    }
    case ETHTOOL_GPERMADDR: {
      struct ethtool_perm_addr pa;
      memcpy(&pa, data, sizeof(pa));
      *in_len = sizeof(pa);
      *out_cap = sizeof(pa) + pa.size;
      return 0;
    }
    case ETHTOOL_GREGS: {
      struct ethtool_regs regs;
      memcpy(&regs, data, sizeof(regs));
      *in_len = sizeof(regs);
      *out_cap = sizeof(regs) + regs.len;
      return 0;
    }
    case ETHTOOL_GEEPROM:
    case ETHTOOL_SEEPROM:
    case ETHTOOL_GMODULEEEPROM: {
      struct ethtool_eeprom ee;
      memcpy(&ee, data, sizeof(ee));
      *in_len = sizeof(ee) + (cmd == ETHTOOL_SEEPROM ? ee.len : 0);
      *out_cap = sizeof(ee) + ee.len;
      return 0;
    }
    case ETHTOOL_TEST: {
      struct ethtool_test test;
      memcpy(&test, data, sizeof(test));
      *in_len = sizeof(test);
      *out_cap = sizeof(test) + (size_t)test.len * sizeof(uint64_t);
      return 0;
    }
    default:
      return -1;
  }
  *in_len = fixed;
  *out_cap = fixed;
  return 0;
}

static int sim_ethtool(const char* dir, const char* ifname, void* data) {
  if (!data) {
    errno = EFAULT;
    return -1;
  }
  uint32_t cmd;
  memcpy(&cmd, data, sizeof(cmd));
  size_t in_len, out_cap;
  if (ethtool_sizes(cmd, data, &in_len, &out_cap) < 0) {
    errno = EOPNOTSUPP;
    return -1;
  }
  if (in_len > ROCE_SIM_MAX_DATAGRAM || out_cap > ROCE_SIM_MAX_DATAGRAM) {
    errno = EINVAL;
    return -1;
  }
  struct roce_sim_ethtool_req req;
  memset(&req, 0, sizeof(req));
  snprintf(req.ifname, sizeof(req.ifname), "%s", ifname);
  req.cmd = cmd;
  req.len = (uint32_t)in_len;
  size_t rep_size = sizeof(struct roce_sim_ethtool_rep) + out_cap;
  char* rep_buf = malloc(rep_size);
  if (!rep_buf) {
    errno = ENOMEM;
    return -1;
  }
  int ret = -1;
  int fd = open_sim_socket(dir, ROCE_SIM_ETHTOOL_SOCKET, 1);
  if (fd < 0) {
    errno = ENODEV; /* no server: as if the device had gone */
    goto out;
  }
  struct iovec iov[2] = {{&req, sizeof(req)}, {data, in_len}};
  struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};
  if (CALL_REAL(sendmsg, fd, &msg, MSG_NOSIGNAL) != (ssize_t)(sizeof(req) + in_len)) goto out_fd;
  ssize_t n = CALL_REAL(recvfrom, fd, rep_buf, rep_size, 0, (struct sockaddr*)NULL, NULL);
  if (n < (ssize_t)sizeof(struct roce_sim_ethtool_rep)) {
    errno = EIO;
    goto out_fd;
  }
  struct roce_sim_ethtool_rep rep;
  memcpy(&rep, rep_buf, sizeof(rep));
  if (rep.error < 0) {
    errno = -rep.error;
    goto out_fd;
  }
  size_t avail = (size_t)n - sizeof(rep);
  size_t copy = rep.len < avail ? rep.len : avail;
  memcpy(data, rep_buf + sizeof(rep), copy);
  ret = 0;
out_fd : {
  int saved = errno;
  CALL_REAL(close, fd);
  errno = saved;
}
out:
  free(rep_buf);
  return ret;
}

/* SIOCGIFNAME: a sim ifindex wins over the host's (the sim's netlink view replaces the host's). */
static int sim_ifname_by_index(const char* dir, int ifindex, char* name) {
  char path[PATH_MAX];
  if (snprintf(path, sizeof(path), "%s/%s/class/net", dir, ROCE_SIM_SYS_DIR) >= (int)sizeof(path))
    return -1;
  DIR* d = opendir(path);
  if (!d) return -1;
  int found = -1;
  struct dirent* e;
  while (found < 0 && (e = readdir(d)) != NULL) {
    long idx;
    if (e->d_name[0] == '.' || strlen(e->d_name) >= IFNAMSIZ) continue;
    if (read_attr_long(dir, e->d_name, "ifindex", &idx) == 0 && idx == ifindex) {
      memcpy(name, e->d_name, strlen(e->d_name) + 1); /* length checked above */
      found = 0;
    }
  }
  closedir(d);
  return found;
}

static int parse_mac(const char* text, unsigned char* mac) {
  unsigned int b[6];
  if (sscanf(text, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != 6) return -1;
  for (int i = 0; i < 6; i++) mac[i] = (unsigned char)b[i];
  return 0;
}

/* Returns 1 if handled (result in *ret), 0 to pass the ioctl to the kernel. */
static int sim_ioctl(unsigned long request, void* arg, int* ret) {
  const char* dir = sim_dir();
  struct ifreq* ifr = arg;
  if (!dir || !ifr) return 0;
  char name[IFNAMSIZ];
  long value;
  char text[64];
  *ret = -1;
  switch (request) {
    case SIOCGIFNAME:
      if (sim_ifname_by_index(dir, ifr->ifr_ifindex, name) < 0) return 0;
      memcpy(ifr->ifr_name, name, IFNAMSIZ);
      *ret = 0;
      return 1;
    case SIOCETHTOOL:
    case SIOCGIFINDEX:
    case SIOCGIFMTU:
    case SIOCGIFFLAGS:
    case SIOCGIFHWADDR:
    case SIOCGIFTXQLEN:
      if (!sim_port_name(dir, ifr, name)) return 0;
      break;
    default:
      return 0;
  }
  switch (request) {
    case SIOCETHTOOL:
      *ret = sim_ethtool(dir, name, ifr->ifr_data);
      return 1;
    case SIOCGIFINDEX:
      if (read_attr_long(dir, name, "ifindex", &value) < 0) break;
      ifr->ifr_ifindex = (int)value;
      *ret = 0;
      return 1;
    case SIOCGIFMTU:
      if (read_attr_long(dir, name, "mtu", &value) < 0) break;
      ifr->ifr_mtu = (int)value;
      *ret = 0;
      return 1;
    case SIOCGIFFLAGS:
      if (read_attr_long(dir, name, "flags", &value) < 0) { /* derive from operstate */
        value = IFF_BROADCAST | IFF_MULTICAST;
        if (read_attr(dir, name, "operstate", text, sizeof(text)) == 0 && !strncmp(text, "up", 2))
          value |= IFF_UP | IFF_RUNNING;
      }
      ifr->ifr_flags = (short)value;
      *ret = 0;
      return 1;
    case SIOCGIFTXQLEN: /* ip asks when a link has no IFLA_TXQLEN */
      if (read_attr_long(dir, name, "tx_queue_len", &value) < 0) value = 1000; /* mlx5e default */
      ifr->ifr_qlen = (int)value;
      *ret = 0;
      return 1;
    case SIOCGIFHWADDR:
      if (read_attr(dir, name, "address", text, sizeof(text)) < 0) break;
      memset(&ifr->ifr_hwaddr, 0, sizeof(ifr->ifr_hwaddr));
      ifr->ifr_hwaddr.sa_family = ARPHRD_ETHER;
      if (parse_mac(text, (unsigned char*)ifr->ifr_hwaddr.sa_data) < 0) break;
      *ret = 0;
      return 1;
  }
  errno = ENODEV;
  return 1;
}

SHIM_EXPORT int ioctl(int fd, unsigned long request, ...) {
  va_list ap;
  va_start(ap, request);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  int ret;
  if (sim_ioctl(request, arg, &ret)) return ret;
  return CALL_REAL(ioctl, fd, request, arg);
}
