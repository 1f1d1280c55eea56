# SPDX-License-Identifier: Apache-2.0
"""The processes of an end-to-end run: roce-sim, roced with its exporter, Prometheus.

Each child writes its output to a log file in the run's scratch directory and dies with this
script (PR_SET_PDEATHSIG), so a test killed by CTest's timeout leaves nothing behind. Every wait
is a poll with a generous deadline that ends as soon as its condition holds; nothing here
measures how long anything took.
"""
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

DEADLINE = 60.0  # seconds; a poll gives up (and the test fails) only after this long
POLL = 0.2
SCRAPE_INTERVAL_S = 1  # Prometheus's scrape and rule evaluation interval

# roced's PFC storm watchdog as both tests run it (docs/config.md#watchdog): its metrics exist
# only when it is enabled. rx storms: alert only (PFC stays on, so the storm's pause time is the
# storm's length); tx: stall-prevention, whose action counters then exist at 0 (no tx storm is
# played).
WATCHDOG_POLL_S = 0.1
WATCHDOG_DETECTION_S = 0.3  # at least two polls
WATCHDOG_RESTORATION_S = 0.5
WATCHDOG_CONFIG = (f"watchdog: {{enabled: true, poll_interval: {WATCHDOG_POLL_S * 1000:g}ms, "
                   f"detection_time: {WATCHDOG_DETECTION_S * 1000:g}ms, "
                   f"restoration_time: {WATCHDOG_RESTORATION_S * 1000:g}ms, "
                   f"action: {{rx: alert, tx: stall-prevention}}}}\n")


class Failure(Exception):
    """A check that did not hold; the message says what was expected and what was seen."""


def wait_for(what, probe, deadline=DEADLINE):
    """Polls probe() until it returns something other than None; returns that.

    probe may return None to keep waiting; the last thing it raised or returned is reported
    when the deadline passes."""
    end = time.monotonic() + deadline
    last = None
    while True:
        try:
            value = probe()
            if value is not None:
                return value
        except Failure as e:
            last = str(e)
        if time.monotonic() > end:
            raise Failure(f"gave up waiting {deadline:.0f} s for {what}" +
                          (f"; last: {last}" if last else ""))
        time.sleep(POLL)


def free_port():
    """A TCP port free on loopback right now (two tests may pick at once: see start_listener)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent():
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class Process:
    """One child process, stdout and stderr into `log`."""

    def __init__(self, name, argv, log, env=None):
        self.name, self.argv, self.log = name, [str(a) for a in argv], log
        with open(log, "wb") as out:
            self.popen = subprocess.Popen(self.argv, stdout=out, stderr=subprocess.STDOUT,
                                          stdin=subprocess.DEVNULL, env=env,
                                          preexec_fn=_die_with_parent)

    def running(self):
        return self.popen.poll() is None

    def check_running(self):
        if not self.running():
            raise Failure(f"{self.name} exited with status {self.popen.returncode}:\n" +
                          self.tail())

    def stop(self):
        if self.running():
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()

    def tail(self, lines=40):
        try:
            with open(self.log, "rb") as f:
                text = f.read().decode(errors="replace")
        except OSError as e:
            return f"(no log: {e})"
        return "\n".join(f"  | {line}" for line in text.splitlines()[-lines:])


def http_get(url, timeout=DEADLINE):
    """(status, body) of a GET; status 0 when nothing answered. The timeout only stops a hang: a
    busy machine can take seconds to answer."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")
    except (urllib.error.URLError, ConnectionError, socket.timeout, TimeoutError):
        return 0, ""


def run(argv, check=True):
    """Runs a command to completion; its CompletedProcess. check: fail on a non-zero exit."""
    done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=60)
    if check and done.returncode != 0:
        raise Failure(f"{' '.join(map(str, argv))} exited {done.returncode}:\n"
                      f"{done.stdout}{done.stderr}")
    return done


def is_dcb_stale_ack_failure(command, done):
    """iproute2 6.1 (Debian bookworm) dcb asks for an ACK on every request but stops reading at
    the reply, so a set reads the ACK its preceding get left in the socket (dcb/dcb.c; fixed
    upstream by "dcb: Do not leave ACKs in socket receive buffer", v6.2.0). Sequence numbers are
    time(NULL) (lib/mnl_utils.c mnlu_msg_prepare): when the get and the set fall in different
    seconds, libmnl rejects the ACK's sequence and dcb fails with EPROTO, although the set had
    reached the kernel (sendmsg is synchronous)."""
    return (len(command) > 0 and command[0] == "dcb" and done.returncode == 1
            and done.stderr == "Attribute write: Protocol error\n")


class Stack:
    """A scratch directory holding one simulated node, roced and (optionally) Prometheus."""

    def __init__(self, binaries):
        self.bin = binaries
        self.root = tempfile.mkdtemp(prefix="roced-e2e-prom-")
        self.node_dir = os.path.join(self.root, "node")
        os.mkdir(self.node_dir)
        self.config = os.path.join(self.root, "roced.yaml")
        self.processes = []
        self.sim = self.roced = self.prometheus = None
        self.metrics_port = self.prometheus_port = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for process in reversed(self.processes):
            process.stop()
        shutil.rmtree(self.root, ignore_errors=True)
        return False

    def _spawn(self, name, argv):
        process = Process(name, argv, os.path.join(self.root, f"{name}.log"))
        self.processes.append(process)
        return process

    def start_sim(self, scenario):
        # Not --quiet: the event lines ("t=15.000s lan3: congestion ... begins") are in its log.
        # Links train at once: roced flaps the ports one after another at start, each waited for
        # until it trains (seconds at 400G), which would push the scenario's episodes before the
        # first scrape. The rollout has its own tests (ReconcileRollout, ServiceSimTrainingLinks).
        self.sim = self._spawn("roce-sim", [self.bin.roce_sim, "run", "--dir", self.node_dir,
                                            "--scenario", scenario, "--link-training", "0"])
        pid_file = os.path.join(self.node_dir, "roce-sim.pid")

        def ready():
            self.sim.check_running()
            return True if os.path.exists(pid_file) else None

        wait_for("roce-sim to write its pid file", ready)

    def sim_time_to_unix(self, t):
        """The Unix time (Prometheus's sample timestamps) at which scenario time t happens, from
        DIR/roce-sim.clock (CLOCK_MONOTONIC at scenario time 0, and the speed)."""
        with open(os.path.join(self.node_dir, "roce-sim.clock")) as f:
            clock = dict(line.split() for line in f if line.strip())
        epoch = int(clock["epoch_monotonic_ns"]) / 1e9
        return time.time() - time.monotonic() + epoch + t / float(clock["speed"])

    def start_listener(self, name, make_argv, ready_url):
        """Starts a server on a fresh port; another test may have taken the port in between, so a
        start that fails with 'address in use' is retried on a new one."""
        for _ in range(3):
            port = free_port()
            process = self._spawn(name, make_argv(port))

            def ready():
                if not process.running():
                    return "exited"
                return "up" if http_get(ready_url(port))[0] == 200 else None

            if wait_for(f"{name} to answer {ready_url(port)}", ready) == "up":
                return process, port
            if "in use" not in process.tail().lower():
                process.check_running()  # raises with the log
            self.processes.remove(process)
        raise Failure(f"{name}: no free port after three tries")

    def write_config(self, config_text):
        with open(self.config, "w") as f:
            f.write(config_text)

    def apply_with_rocectl(self):
        """The profile written by the one-shot rocectl: under drift_policy report roced only
        reports what differs, the first configuration included."""
        run([self.bin.rocectl, "--sim", self.node_dir, "apply", "--config", self.config,
             "--direct"])

    def start_roced(self):
        self.roced, self.metrics_port = self.start_listener(
            "roced",
            lambda port: [self.bin.roced, "--sim", self.node_dir, "--config", self.config,
                          "--no-dbus", "--metrics-listen", f"127.0.0.1:{port}",
                          "--log-target", "console"],
            lambda port: f"http://127.0.0.1:{port}/metrics")

    @property
    def target(self):
        return f"127.0.0.1:{self.metrics_port}"

    def scrape(self):
        """One GET /metrics straight from roced."""
        status, body = http_get(f"http://{self.target}/metrics")
        if status != 200:
            raise Failure(f"GET http://{self.target}/metrics answered {status}")
        return body

    def start_prometheus(self, rule_files=()):
        """rule_files: alert rule files Prometheus evaluates every second."""
        config = os.path.join(self.root, "prometheus.yml")
        rules = "".join(f"  - '{os.path.abspath(path)}'\n" for path in rule_files)
        with open(config, "w") as f:
            f.write("global:\n"
                    f"  scrape_interval: {SCRAPE_INTERVAL_S}s\n"
                    f"  scrape_timeout: {SCRAPE_INTERVAL_S}s\n"
                    f"  evaluation_interval: {SCRAPE_INTERVAL_S}s\n" +
                    (f"rule_files:\n{rules}" if rules else "") +
                    "scrape_configs:\n"
                    "  - job_name: roced\n"
                    "    static_configs:\n"
                    f"      - targets: ['{self.target}']\n")
        self.prometheus, self.prometheus_port = self.start_listener(
            "prometheus",
            lambda port: [self.bin.prometheus, f"--config.file={config}",
                          f"--storage.tsdb.path={os.path.join(self.root, 'tsdb')}",
                          f"--web.listen-address=127.0.0.1:{port}"],
            lambda port: f"http://127.0.0.1:{port}/-/ready")

    def sim_exec(self, *command):
        """Unmodified iproute2/ethtool against the simulated node."""
        done = run([self.bin.roce_sim, "exec", self.node_dir, "--", *command], check=False)
        if is_dcb_stale_ack_failure(command, done):
            done.returncode = 0
            done.stderr = ""
        if done.returncode != 0:
            raise Failure(f"roce-sim exec {' '.join(map(str, command))} exited "
                          f"{done.returncode}:\n{done.stdout}{done.stderr}")
        return done

    def print_logs(self):
        for process in self.processes:
            print(f"--- {process.name} ({process.log}), last lines:\n{process.tail()}",
                  file=sys.stderr)
