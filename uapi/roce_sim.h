// SPDX-License-Identifier: Apache-2.0
/*
 * roce-sim's side of the seam: what a simulated node adds to the kernel's own interfaces.
 *
 * A simulated node lives in a directory DIR. The kernel interfaces roced uses are reached there:
 *   DIR/rtnl.sock     SOCK_SEQPACKET; each connection stands for one AF_NETLINK NETLINK_ROUTE socket.
 *                     Datagrams carry real netlink messages, byte for byte as the kernel's.
 *   DIR/ethtool.sock  SOCK_SEQPACKET; each datagram is one ioctl(SIOCETHTOOL) call (framing below).
 *   DIR/rdma.sock     SOCK_SEQPACKET; each connection stands for one AF_NETLINK NETLINK_RDMA socket,
 *                     with the same datagrams and control messages as rtnl.sock.
 *   DIR/genl.sock     SOCK_SEQPACKET; each connection stands for one AF_NETLINK NETLINK_GENERIC socket
 *                     (the controller and the ethtool family), framed as rtnl.sock.
 *   DIR/lldp.sock     SOCK_SEQPACKET; each connection stands for one AF_PACKET socket bound to a
 *                     netdev and ETH_P_LLDP (framing below).
 *   DIR/sys/          a real directory tree in the shape of /sys (class/net, class/infiniband, ...).
 *   DIR/config/       the shape of /sys/kernel/config (rdma_cm).
 *   DIR/debug/        the shape of /sys/kernel/debug (mlx5/<pci>/cc_params).
 *   DIR/roce-sim.clock  the simulated clock, written before the pid file: two lines,
 *                     "epoch_monotonic_ns N" (CLOCK_MONOTONIC at simulated time 0) and
 *                     "speed X" (simulated seconds per real second). Scenario time t happens at
 *                     CLOCK_MONOTONIC epoch + t / speed.
 *   DIR/roce-sim.pid  the server's pid, written once every socket listens (readiness marker).
 *   DIR/inject/       scenario documents played into the running node (`roce-sim inject`): a
 *                     request NAME.yaml renamed into place, answered by NAME.result ("ok" or
 *                     "error: ..."); docs/sim-formats.md.
 *
 * This header is shared by the server (sim/), the LD_PRELOAD shim (sim/shim) and roced's injectable
 * transport (netlink/): like a kernel uAPI header, it is the only thing they have in common.
 * Plain C so the shim can include it.
 */
#ifndef ROCE_SIM_UAPI_H
#define ROCE_SIM_UAPI_H

#include <stdint.h>

#define ROCE_SIM_RTNL_SOCKET "rtnl.sock"
#define ROCE_SIM_ETHTOOL_SOCKET "ethtool.sock"
#define ROCE_SIM_RDMA_SOCKET "rdma.sock"
#define ROCE_SIM_GENL_SOCKET "genl.sock"
#define ROCE_SIM_LLDP_SOCKET "lldp.sock"
#define ROCE_SIM_PIDFILE "roce-sim.pid"
#define ROCE_SIM_CLOCKFILE "roce-sim.clock"
/* Present while the server refuses a set to a client without CAP_NET_ADMIN, as the kernel does
 * (roce-sim run --enforce-capabilities): a client then checks its capabilities as on a machine. */
#define ROCE_SIM_CAPSFILE "roce-sim.capabilities"
#define ROCE_SIM_INJECT_DIR "inject"
#define ROCE_SIM_SYS_DIR "sys"
#define ROCE_SIM_CONFIG_DIR "config"
#define ROCE_SIM_DEBUG_DIR "debug"

/* Environment variable naming DIR for the preload shim (set by `roce-sim exec DIR`). */
#define ROCE_SIM_DIR_ENV "ROCE_SIM_DIR"

/*
 * Netlink control messages, client -> server only, never answered.
 * A real netlink socket has state the kernel learns from bind() and setsockopt(); over a Unix
 * socket the client reports it with a message whose nlmsg_type is ROCE_SIM_NLMSG_CTL (outside the
 * range of every rtnetlink type) and whose payload is struct roce_sim_nl_ctl.
 * Until BIND arrives the server uses port id 0 for the connection and no multicast groups.
 */
#define ROCE_SIM_NLMSG_CTL 0x7e00

enum roce_sim_nl_ctl_op {
	ROCE_SIM_CTL_BIND = 1,         /* arg = nl_pid (port id) chosen by the client, arg2 = nl_groups mask */
	ROCE_SIM_CTL_ADD_MEMBERSHIP = 2, /* arg = group number (e.g. RTNLGRP_LINK, RTNLGRP_DCB) */
	ROCE_SIM_CTL_DROP_MEMBERSHIP = 3, /* arg = group number */
};

struct roce_sim_nl_ctl {
	uint32_t op;
	uint32_t arg;
	uint32_t arg2;
	uint32_t reserved;
};

/*
 * lldp.sock framing. The client's first datagram is struct roce_sim_lldp_bind (what bind() with a
 * sockaddr_ll names); the server then sends, one per datagram, each LLDP frame the simulated
 * switch sends to that netdev, from its Ethernet header on, as recv() on AF_PACKET SOCK_RAW gives
 * it. Nothing else is ever sent on it, in either direction.
 */
struct roce_sim_lldp_bind {
	char ifname[16]; /* NUL-terminated */
};

/*
 * ethtool ioctl framing. Request: header, then `len` bytes: the user's ethtool command struct as
 * the kernel would copy_from_user() it (for GSTRINGS/GSTATS just the fixed header; for
 * GSSET_INFO the header and sset_mask; for STUNABLE the header and its data).
 * Reply: header, then `len` bytes the kernel would copy_to_user() starting at the same address.
 * `error` is 0 or a negative errno (-ENODEV for an unknown interface, -EOPNOTSUPP, -EINVAL, ...).
 */
struct roce_sim_ethtool_req {
	char ifname[16];
	uint32_t cmd;
	uint32_t len;
};

struct roce_sim_ethtool_rep {
	int32_t error;
	uint32_t len;
};

/*
 * Not an ethtool command: the server answers it (error 0, no payload) once every file write a
 * client made before it has taken effect in the model, as a kernel's store() has when write()
 * returns. The client's file tree sends it after each write and mkdir.
 */
#define ROCE_SIM_ETHTOOL_SYNC_FILES 0x7e000001u

/* Largest datagram either socket carries. */
#define ROCE_SIM_MAX_DATAGRAM (1u << 20)

#endif /* ROCE_SIM_UAPI_H */
