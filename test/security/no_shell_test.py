# SPDX-License-Identifier: Apache-2.0
"""No process is ever spawned by roced or rocectl, whatever the configuration holds.

Every string the configuration takes (port globs, excludes, drivers, override keys, the basic
auth user name, the TLS file's path) is set to shell syntax that would create a marker file if
any of it reached a shell: `$(...)`, backticks, `;`, `|`, `&&`, quotes, a newline. roced runs
under strace through a start, an apply, a SIGHUP reload with a second such file, HTTPS scrapes
with those credentials and a SIGTERM; rocectl validates, plans and applies the same files. The
traces must hold exactly one execve (the program itself) and no fork, vfork or clone other than
threads (CLONE_THREAD), and the marker must not exist. roced must also have done its work (the
node's PFC read back on) so the trace is of a daemon that ran, not one that gave up early.

The checker is shown to catch a spawn on a trace of `sh -c` (see check_trace's self-test), and
the binaries' dynamic symbol imports are checked for every libc entry into a new program.
"""
import os
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e_prometheus"))
import harness  # noqa: E402
import programs  # noqa: E402  (the e2e harness: processes, polling, HTTP)

SPAWN_SYMBOLS = {"execve", "execveat", "execv", "execvp", "execvpe", "execl", "execlp", "execle",
                 "fexecve", "system", "popen", "posix_spawn", "posix_spawnp", "fork", "vfork",
                 "_Fork", "wordexp"}
TRACED = "execve,execveat,fork,vfork,clone,clone3"


def hostile(marker):
    """Shell syntax that creates the file `marker` (one letter, in the current directory) if a
    shell ever sees it. roced takes interface names of at most 15 characters without spaces,
    '/' or ':' (anything else is refused before it is used), so ${IFS} stands for the space."""
    touch = "touch${IFS}" + marker
    return [f"$({touch})", f"`{touch}`", f"x;{touch}", f"x|{touch}", f"x&&{touch}",
            f"'`{touch}`", f'x"`{touch}']


def yaml_string(text):
    """A double-quoted YAML scalar holding exactly `text`."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def write_config(path, marker, user, password_hash, pem, port):
    values = hostile(marker)
    flow = ", ".join(yaml_string(v) for v in values)
    overrides = "".join(f"  {yaml_string(v)}: {{mtu: 4200}}\n" for v in values[:3])
    with open(path, "w") as f:
        f.write("daemon: {drift_check_interval: 1s}\n"
                "metrics:\n"
                f"  listen: 127.0.0.1:{port}\n"
                f"  basic_auth: {{username: {yaml_string(user)}, "
                f"password_hash: {yaml_string(password_hash)}}}\n"
                f"  tls: {{certificate: {yaml_string(pem)}}}\n"
                "ports:\n"
                f"  drivers: [mlx5_core, {flow}]\n"
                f"  netdevs: [\"lan*\", {flow}]\n"
                f"  exclude: [{flow}]\n"
                "overrides:\n" + overrides)


def check_trace(path, program):
    """The problems in an strace -f log of `program`: any execve but the first, any fork/vfork,
    any clone without CLONE_THREAD. An empty list means nothing was spawned."""
    problems, execs = [], 0
    with open(path) as f:
        lines = f.read().splitlines()
    if not lines:
        return [f"{path}: empty trace"]
    for line in lines:
        if " execve(" in line or " execveat(" in line:
            if "<... exec" in line:
                continue  # the resumption of an execve already counted
            execs += 1
            if execs > 1 or program not in line:
                problems.append(f"spawned: {line}")
        elif " fork(" in line or " vfork(" in line:
            problems.append(f"forked: {line}")
        elif (" clone(" in line or " clone3(" in line) and "CLONE_THREAD" not in line:
            problems.append(f"new process: {line}")
    if execs == 0:
        problems.append(f"{path}: no execve of {program} at all (not a trace of it)")
    return problems


def traced(log, argv):
    return ["strace", "-f", "-qq", "-s", "256", "-e", f"trace={TRACED}", "-o", log, *argv]


def spawn_symbols(binary):
    """The process-spawning libc functions `binary` imports."""
    out = harness.run(["nm", "-D", "--undefined-only", binary]).stdout
    names = {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}
    return sorted(names & SPAWN_SYMBOLS)


def main():
    args = binaries = programs.parse()
    failures = []

    # The checker itself must catch a spawn: a traced shell that runs a program.
    with tempfile.TemporaryDirectory() as scratch:
        log = os.path.join(scratch, "sh.trace")
        harness.run(traced(log, ["/bin/sh", "-c", "/bin/true; /bin/true"]))
        if not check_trace(log, "/bin/sh"):
            failures.append("self-test: the trace checker saw no spawn in `sh -c` running true")

    for binary in (args.roced, args.rocectl):
        found = spawn_symbols(binary)
        print(f"{os.path.basename(binary)} imports of spawning functions: {found or 'none'}")
        if found:
            failures.append(f"{binary} imports {', '.join(found)}")
    if not spawn_symbols("/bin/sh"):
        failures.append("self-test: nm found no spawning import in /bin/sh")

    with harness.Stack(binaries) as stack:
        # Every program here runs in stack.root, where a shell would create the markers.
        os.chdir(stack.root)
        marker, marker2 = "X", "Y"
        user = f"ops$(touch {marker})`touch {marker}`;touch {marker}"
        password = "s3cret"
        password_hash = harness.run(["openssl", "passwd", "-6", password]).stdout.strip()
        pem = os.path.join(stack.root, f"m;touch {marker}$(touch {marker})`touch {marker}`.pem")
        harness.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                     "-subj", "/CN=127.0.0.1", "-keyout", pem + ".key", "-out", pem + ".crt"])
        with open(pem, "w") as out:
            for part in (pem + ".crt", pem + ".key"):
                with open(part) as f:
                    out.write(f.read())
        os.chmod(pem, 0o600)
        port = harness.free_port()
        first, second = (os.path.join(stack.root, n) for n in ("first.yaml", "second.yaml"))
        write_config(first, marker, user, password_hash, pem, port)
        write_config(second, marker2, user, password_hash, pem, port)
        stack.start_sim(os.path.join(os.path.dirname(__file__), "..", "..", "sim", "scenarios",
                                     "steady.yaml"))

        # rocectl: validate, plan and apply both files, each traced.
        for i, (command, config, letter) in enumerate([("validate", first, marker),
                                                       ("plan", first, marker),
                                                       ("apply", second, marker2),
                                                       ("apply", first, marker)]):
            log = os.path.join(stack.root, f"rocectl-{i}.trace")
            argv = [args.rocectl, "--sim", stack.node_dir, command]
            argv += [config] if command == "validate" else ["--config", config, "--direct"]
            done = subprocess.run(traced(log, argv), capture_output=True, text=True, timeout=120)
            # The hostile netdev names are literal names (no glob character) that no port has:
            # plan and apply say so ("not found") and exit 1; validate cannot know (exit 0).
            expected = 0 if command == "validate" else 1
            said = f"{hostile(letter)[0]}: not found" in done.stdout + done.stderr
            if done.returncode != expected or (command != "validate" and not said):
                failures.append(f"rocectl {command} exited {done.returncode} (expected {expected}"
                                f" and the hostile names reported not found):\n"
                                f"{done.stdout}{done.stderr}")
            failures += [f"rocectl {command}: {p}" for p in check_trace(log, args.rocectl)]

        # roced: start, apply, reload with the second file, HTTPS scrapes, SIGTERM.
        roced_trace = os.path.join(stack.root, "roced.trace")
        live = os.path.join(stack.root, "roced.yaml")
        harness.run(["cp", first, live])
        roced = stack._spawn("roced", traced(roced_trace, [
            args.roced, "--sim", stack.node_dir, "--config", live, "--no-dbus",
            "--log-target", "console"]))
        url = f"https://127.0.0.1:{port}/metrics"
        curl = ["curl", "-s", "-k", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10"]

        def scraped():
            roced.check_running()
            done = harness.run(curl + ["-u", f"{user}:{password}", url], check=False)
            return done.stdout if done.stdout == "200" else None

        harness.wait_for("roced's HTTPS endpoint to answer 200 to the hostile user", scraped)
        # Signals go to roced itself (the trace's first line is its execve), not to strace.
        with open(roced_trace) as f:
            roced_pid = int(f.readline().split()[0])
        wrong = harness.run(curl + ["-u", f"{user}:wrong", url], check=False).stdout
        if wrong != "401":
            failures.append(f"a wrong password got HTTP {wrong}, not 401")

        def pfc_on():
            out = stack.sim_exec("dcb", "pfc", "show", "dev", "lan2", "prio-pfc").stdout
            return True if "3:on" in out else None

        harness.wait_for("roced to turn PFC on lan2 (dcb pfc show)", pfc_on)
        harness.run(["cp", second, live])
        os.kill(roced_pid, signal.SIGHUP)
        harness.wait_for("roced to log the reload", lambda: True if
                         f"reloaded {live}" in roced.tail(400) else None)
        harness.wait_for("a scrape after the reload", scraped)
        os.kill(roced_pid, signal.SIGTERM)
        try:
            roced.popen.wait(timeout=60)  # strace exits with roced's status
        except subprocess.TimeoutExpired:
            failures.append("roced did not stop within 60 s of SIGTERM")
            roced.stop()
        if roced.popen.returncode != 0:
            failures.append(f"roced exited {roced.popen.returncode}:\n{roced.tail()}")
        failures += [f"roced: {p}" for p in check_trace(roced_trace, args.roced)]
        threads = sum(1 for line in open(roced_trace) if "CLONE_THREAD" in line)
        print(f"roced trace: 1 execve, {threads} thread clones, "
              f"{sum(1 for _ in open(roced_trace))} lines")
        for m in (os.path.join(stack.root, marker), os.path.join(stack.root, marker2)):
            if os.path.exists(m):
                failures.append(f"{m} exists: a shell ran a configured value")
        if failures:
            stack.print_logs()

    for failure in failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    if not failures:
        print("no process spawned: roced and rocectl ran the hostile files, only threads cloned")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
