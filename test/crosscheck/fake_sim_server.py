#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A minimal stand-in for roce-sim's server, to test the LD_PRELOAD shim on its own.

Serves DIR/rtnl.sock (RTM_GETLINK for one port, lan2) and DIR/ethtool.sock (GDRVINFO,
GSSET_INFO, GSTRINGS, GSTATS, G/STUNABLE pfc-prevention-tout) per uapi/roce_sim.h, and logs
every ROCE_SIM_NLMSG_CTL message it receives to DIR/ctl.log ("op arg arg2 hdr_pid" per line)
so tests can check what the shim reported. Writes DIR/roce-sim.pid when ready.
Usage: fake_sim_server.py DIR
"""
import errno
import os
import selectors
import socket
import struct
import sys

NLMSG_ERROR, NLMSG_DONE = 2, 3
NLM_F_MULTI, NLM_F_ACK, NLM_F_DUMP = 0x2, 0x4, 0x300
RTM_NEWLINK, RTM_GETLINK = 16, 18
IFLA_ADDRESS, IFLA_IFNAME, IFLA_MTU, IFLA_OPERSTATE = 1, 3, 4, 16
ROCE_SIM_NLMSG_CTL = 0x7E00

PORT = {"name": "lan2", "index": 7, "mtu": 1500, "mac": bytes.fromhex("b83fd2000002")}

ETHTOOL_GDRVINFO, ETHTOOL_GSTRINGS, ETHTOOL_GSTATS = 0x3, 0x1B, 0x1D
ETHTOOL_GSSET_INFO, ETHTOOL_GTUNABLE, ETHTOOL_STUNABLE = 0x37, 0x48, 0x49
ETH_SS_STATS, ETHTOOL_PFC_PREVENTION_TOUT, ETHTOOL_TUNABLE_U16 = 1, 3, 2
STATS = [("rx_packets_phy", 11), ("rx_prio3_pause", 42)]
tunable = {"pfc_tout": 0}


def attr(kind, payload):
    raw = struct.pack("HH", 4 + len(payload), kind) + payload
    return raw + b"\0" * (-len(raw) % 4)


def nlmsg(kind, flags, seq, pid, payload):
    return struct.pack("IHHII", 16 + len(payload), kind, flags, seq, pid) + payload


def newlink(flags, seq, pid):
    ifinfo = struct.pack("BxHiII", socket.AF_UNSPEC, 1, PORT["index"], 0x11043, 0)
    attrs = (attr(IFLA_IFNAME, PORT["name"].encode() + b"\0") + attr(IFLA_MTU, struct.pack("I", PORT["mtu"]))
             + attr(IFLA_ADDRESS, PORT["mac"]) + attr(IFLA_OPERSTATE, b"\x06"))
    return nlmsg(RTM_NEWLINK, flags, seq, pid, ifinfo + attrs)


def error(err, hdr, pid):
    return nlmsg(NLMSG_ERROR, 0x100 if err == 0 else 0, hdr[3], pid, struct.pack("i", err) + hdr[5][:16])


def find_name(payload):
    off = 16
    while off + 4 <= len(payload):
        alen, kind = struct.unpack_from("HH", payload, off)
        if alen < 4:
            break
        if kind == IFLA_IFNAME:
            return payload[off + 4:off + alen].rstrip(b"\0").decode()
        off += (alen + 3) & ~3
    return None


def rtnl_request(conn_state, data, log):
    replies = []
    off = 0
    while off + 16 <= len(data):
        length, kind, flags, seq, _pid = struct.unpack_from("IHHII", data, off)
        raw = data[off:off + length]
        hdr = (length, kind, flags, seq, _pid, raw)
        pid = conn_state["pid"]
        if kind == ROCE_SIM_NLMSG_CTL:
            op, arg, arg2, _ = struct.unpack_from("IIII", raw, 16)
            if op == 1:
                conn_state["pid"] = arg
            log.write(f"{op} {arg} {arg2} {_pid}\n")
            log.flush()
        elif kind == RTM_GETLINK and flags & NLM_F_DUMP == NLM_F_DUMP:
            replies.append(newlink(NLM_F_MULTI, seq, pid) + nlmsg(NLMSG_DONE, NLM_F_MULTI, seq, pid, struct.pack("i", 0)))
        elif kind == RTM_GETLINK:
            index = struct.unpack_from("i", raw, 20)[0]
            name = find_name(raw[16:])
            if index == PORT["index"] or name == PORT["name"]:
                replies.append(newlink(0, seq, pid))
                if flags & NLM_F_ACK:
                    replies.append(error(0, hdr, pid))
            else:
                replies.append(error(-errno.ENODEV, hdr, pid))
        else:
            replies.append(error(-errno.EOPNOTSUPP, hdr, pid))
        off += (length + 3) & ~3
    return replies


def ethtool_request(data):
    ifname, cmd, length = struct.unpack_from("16sII", data)
    body = data[24:24 + length]
    if ifname.rstrip(b"\0") != PORT["name"].encode():
        return struct.pack("iI", -errno.ENODEV, 0)
    if cmd == ETHTOOL_GDRVINFO:
        out = struct.pack("I32s32s32s32s32s12sIIIII", cmd, b"mlx5_core", b"6.1.0", b"28.39.1002 (MT_0000000838)",
                          b"0000:17:00.0", b"", b"", 0, len(STATS), 0, 0, 0)
    elif cmd == ETHTOOL_GSSET_INFO:
        mask = struct.unpack_from("Q", body, 8)[0]
        if not mask & (1 << ETH_SS_STATS):
            out = struct.pack("IIQ", cmd, 0, 0)
        else:
            out = struct.pack("IIQI", cmd, 0, 1 << ETH_SS_STATS, len(STATS))
    elif cmd == ETHTOOL_GSTRINGS:
        out = struct.pack("III", cmd, ETH_SS_STATS, len(STATS)) + b"".join(struct.pack("32s", n.encode()) for n, _ in STATS)
    elif cmd == ETHTOOL_GSTATS:
        out = struct.pack("II", cmd, len(STATS)) + b"".join(struct.pack("Q", v) for _, v in STATS)
    elif cmd in (ETHTOOL_GTUNABLE, ETHTOOL_STUNABLE):
        _, tid, ttype, tlen = struct.unpack_from("IIII", body)
        if tid != ETHTOOL_PFC_PREVENTION_TOUT or ttype != ETHTOOL_TUNABLE_U16 or tlen != 2:
            return struct.pack("iI", -errno.EINVAL, 0)
        if cmd == ETHTOOL_STUNABLE:
            value = struct.unpack_from("H", body, 16)[0]
            if value != 0 and value != 0xFFFF and not 80 <= value <= 8000:  # mlx5e_set_pfc_prevention_tout
                return struct.pack("iI", -errno.EINVAL, 0)
            tunable["pfc_tout"] = value
            out = b""
        else:
            out = struct.pack("IIIIH", cmd, tid, ttype, tlen, tunable["pfc_tout"])
    else:
        return struct.pack("iI", -errno.EOPNOTSUPP, 0)
    return struct.pack("iI", 0, len(out)) + out


def main():
    root = sys.argv[1]
    port_dir = os.path.join(root, "sys/class/net", PORT["name"])
    os.makedirs(port_dir, exist_ok=True)
    for name, value in (("ifindex", PORT["index"]), ("mtu", PORT["mtu"]), ("operstate", "up"),
                        ("address", ":".join(f"{b:02x}" for b in PORT["mac"]))):
        with open(os.path.join(port_dir, name), "w") as f:
            f.write(f"{value}\n")
    log = open(os.path.join(root, "ctl.log"), "a")
    sel = selectors.DefaultSelector()
    for name, kind in (("rtnl.sock", "rtnl"), ("ethtool.sock", "ethtool")):
        path = os.path.join(root, name)
        if os.path.exists(path):
            os.unlink(path)
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        srv.bind(path)
        srv.listen(64)
        sel.register(srv, selectors.EVENT_READ, ("listen", kind))
    with open(os.path.join(root, "roce-sim.pid"), "w") as f:
        f.write(f"{os.getpid()}\n")
    while True:
        for key, _ in sel.select():
            role, kind = key.data[0], key.data[1]
            if role == "listen":
                conn, _ = key.fileobj.accept()
                sel.register(conn, selectors.EVENT_READ, ("conn", kind, {"pid": 0}))
                continue
            conn = key.fileobj
            data = conn.recv(1 << 20)
            if not data:
                sel.unregister(conn)
                conn.close()
                continue
            try:
                replies = rtnl_request(key.data[2], data, log) if kind == "rtnl" else [ethtool_request(data)]
                for reply in replies:
                    conn.send(reply)
            except (OSError, struct.error):
                sel.unregister(conn)
                conn.close()


if __name__ == "__main__":
    main()
