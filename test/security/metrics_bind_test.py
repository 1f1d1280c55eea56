# SPDX-License-Identifier: Apache-2.0
"""The metrics endpoint listens where metrics.listen says, and nowhere else.

For each address form the configuration takes (an IPv4 literal other than 127.0.0.1, a bracketed
IPv6 literal, `:PORT` for every IPv4 address, and HTTPS on an IPv4 literal), roced runs against a
simulated node and the test compares the TCP sockets it listens on (`ss -ltnp`, by its pid) with
the expected set, then checks from the outside: the configured address answers, the same port on
another loopback address is refused. With TLS, roced's own plain HTTP endpoint behind the TLS
relay listens on 127.0.0.1 only, and plain HTTP to the TLS address gets no metrics.
"""
import os
import re
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e_prometheus"))
import harness  # noqa: E402
import programs  # noqa: E402


def listening(pid):
    """The local addresses of the TCP sockets process `pid` listens on, as ss prints them."""
    out = harness.run(["ss", "-ltnpH"]).stdout
    found = set()
    for line in out.splitlines():
        if re.search(rf"pid={pid},", line):
            found.add(line.split()[3])
    return found


def refused(host, port):
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        try:
            s.connect((host, port))
            return False
        except ConnectionRefusedError:
            return True


def curl_status(url, *extra):
    done = harness.run(["curl", "-s", "-k", "-o", "/dev/null", "-w", "%{http_code}",
                        "--max-time", "10", *extra, url], check=False)
    return done.stdout


def ipv6_loopback():
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


def main():
    args = binaries = programs.parse()
    failures = []
    checked = 0

    cases = [("127.0.0.2:{port}", "http://127.0.0.2:{port}/metrics", ["127.0.0.1"], False),
             (":{port}", "http://127.0.0.1:{port}/metrics", [], False),
             ("127.0.0.3:{port}", "https://127.0.0.3:{port}/metrics", ["127.0.0.1"], True)]
    if ipv6_loopback():
        cases.append(("[::1]:{port}", "http://[::1]:{port}/metrics", ["127.0.0.1"], False))
    else:
        failures.append("no IPv6 loopback (::1) to bind: the IPv6 case cannot run")

    for listen_form, url_form, elsewhere, tls in cases:
        with harness.Stack(binaries) as stack:
            stack.start_sim(os.path.join(os.path.dirname(__file__), "..", "..", "sim",
                                         "scenarios", "steady.yaml"))
            port = harness.free_port()
            listen, url = listen_form.format(port=port), url_form.format(port=port)
            config = f"metrics:\n  listen: \"{listen}\"\n"
            if tls:
                pem = os.path.join(stack.root, "metrics.pem")
                harness.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days",
                             "1", "-subj", "/CN=127.0.0.3", "-keyout", pem + ".key",
                             "-out", pem + ".crt"])
                with open(pem, "w") as out:
                    for part in (".crt", ".key"):
                        with open(pem + part) as f:
                            out.write(f.read())
                config += f"  tls: {{certificate: {pem}}}\n"
            stack.write_config(config)
            roced = stack._spawn("roced", [args.roced, "--sim", stack.node_dir, "--config",
                                           stack.config, "--no-dbus", "--log-target", "console"])

            def answered():
                roced.check_running()
                return True if curl_status(url) == "200" else None

            harness.wait_for(f"roced to answer {url}", answered)
            sockets = listening(roced.popen.pid)
            expected_main = listen if not listen.startswith(":") else f"0.0.0.0{listen}"
            others = sockets - {expected_main}
            if expected_main not in sockets:
                failures.append(f"{listen}: roced does not listen on {expected_main} ({sockets})")
            # TLS and IPv6 are relayed (civetweb has neither): one plain backend on 127.0.0.1.
            if tls or listen.startswith("["):
                if len(others) != 1 or not next(iter(others)).startswith("127.0.0.1:"):
                    failures.append(f"{listen} relayed: expected one backend on 127.0.0.1, "
                                    f"listening on {sockets}")
            elif others:
                failures.append(f"{listen}: roced also listens on {others}")
            if tls and curl_status(url.replace("https", "http")) == "200":
                failures.append(f"{listen} with TLS answered plain HTTP with metrics")
            for host in elsewhere:
                if not refused(host, port):
                    failures.append(f"{listen}: {host}:{port} accepted a connection")
            print(f"{listen}{' (TLS)' if tls else ''}: listening on {sorted(sockets)}")
            checked += 1
            if failures:
                stack.print_logs()

    for failure in failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    if checked != len(cases):
        print(f"FAIL: {checked} of {len(cases)} cases ran", file=sys.stderr)
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
