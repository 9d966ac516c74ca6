"""Shared machinery of the fault tests: real qcluster processes, waiting, and kill -9.

    cluster = Cluster(workers=2, WILLHABEN_BASE_URL=...).start()
    pid = wait_for(lambda: cluster.pids_connected_to(server_port), 20, "a worker inside a
    request")[0]
    kill9(pid)
    cluster.stop()           # SIGTERM, then SIGKILL after 30 s; returns the log tail

    pg = Postgres(); pg.init()   # a throwaway PostgreSQL 15 to stop and start (own_postgres)

A worker "inside a task" is found by what it is doing, not by trusting django-q2's
internals: the process of the cluster's tree that holds an established TCP
connection to a fake server's port is the one talking to that server.
"""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

from tests.processes import PYTHON, child_env, descendants, free_port, wait_for

REPO = Path(settings.BASE_DIR)


def _socket_inodes_to(port):
    """Inodes of established TCP sockets whose remote end is 127.0.0.1:`port`."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except FileNotFoundError:
            continue
        for line in lines:
            cols = line.split()
            remote, state, inode = cols[2], cols[3], cols[9]
            if state == "01" and int(remote.rsplit(":", 1)[1], 16) == port:
                inodes.add(inode)
    return inodes


def pids_connected_to(port, pids):
    """Those of `pids` that hold an established connection to 127.0.0.1:`port`."""
    inodes = _socket_inodes_to(port)
    found = []
    for pid in pids:
        try:
            links = [os.readlink(fd) for fd in Path(f"/proc/{pid}/fd").iterdir()]
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue  # the process ended meanwhile
        if any(link.startswith("socket:[") and link[8:-1] in inodes for link in links):
            found.append(pid)
    return found


def kill9(pid):
    os.kill(pid, signal.SIGKILL)


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return (
        Path(f"/proc/{pid}/status").exists()
        and "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    )


class Cluster:
    """One `manage.py qcluster` subprocess on the test database (or `DATABASE_URL` given in env)."""

    def __init__(self, workers=2, **env):
        self.env = child_env(
            **{"Q_WORKERS": workers, "LOG_LEVEL": "INFO", "PYTHONUNBUFFERED": 1, **env}
        )
        self.workers = workers
        self.proc = None
        self._log = tempfile.NamedTemporaryFile(
            prefix="lago-qcluster-", suffix=".log", delete=False
        )

    def start(self, ready_timeout=30):
        self.proc = subprocess.Popen(
            [PYTHON, "manage.py", "qcluster"],
            env=self.env,
            cwd=REPO,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

        # Ready when every worker is forked: sentinel + pusher + monitor + workers below the main
        # process.
        def forked():
            return self._check_running() and len(descendants(self.proc.pid)) >= self.workers + 3

        wait_for(forked, ready_timeout, "the cluster's workers")
        return self

    def _check_running(self):
        if self.proc.poll() is not None:
            raise AssertionError(f"qcluster exited with {self.proc.returncode}:\n{self.log_tail()}")
        return True

    def processes(self):
        return descendants(self.proc.pid)

    def pids_connected_to(self, port):
        return pids_connected_to(port, self.processes())

    def stop(self, timeout=30):
        if self.proc is None or self.proc.poll() is not None:
            return self.log_tail()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            for pid in [*self.processes(), self.proc.pid]:
                try:
                    kill9(pid)
                except ProcessLookupError:
                    continue
            self.proc.wait(timeout=10)
        return self.log_tail()

    def log_tail(self, chars=4000):
        self._log.flush()
        return Path(self._log.name).read_text(errors="replace")[-chars:]

    def cleanup(self):
        self.stop()
        self._log.close()
        Path(self._log.name).unlink(missing_ok=True)


def manage(*args, env, timeout=120, check=True):
    """Runs `manage.py <args>` in a child process with `env`; returns the CompletedProcess."""
    result = subprocess.run(
        [PYTHON, "manage.py", *args],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if check and result.returncode != 0:
        raise AssertionError(
            f"manage.py {' '.join(args)} exited "
            f"{result.returncode}:\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}"
        )
    return result


def shell(code, *, env, timeout=120, check=True):
    """Runs Python `code` with Django set up in a child process (`manage.py shell -c`)."""
    return manage("shell", "-c", code, env=env, timeout=timeout, check=check)


def enqueue_tick(env):
    """Enqueues one tick as the schedule does, from a child process on `env`'s database."""
    return shell(
        "from django_q.tasks import async_task; async_task('scraping.tick.tick')",
        env=env,
        timeout=60,
        check=False,
    )


PG_BIN = Path("/usr/lib/postgresql/15/bin")


def _as_postgres(cmd):
    """initdb refuses root; the CI machine runs tests as root."""
    if os.geteuid() == 0:
        return subprocess.run(
            ["su", "postgres", "-s", "/bin/sh", "-c", cmd],
            capture_output=True,
            text=True,
            check=True,
        )
    return subprocess.run(["sh", "-c", cmd], capture_output=True, text=True, check=True)


class Postgres:
    """A throwaway PostgreSQL 15 cluster (its own data directory and free port) that a test
    may stop and start without touching the shared test server."""

    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="lago-pg-restart-"))
        self.port = free_port()
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")

    @property
    def url(self):
        return f"postgres://postgres@127.0.0.1:{self.port}/lago"

    def init(self):
        _as_postgres(
            f"{PG_BIN}/initdb -D {self.dir}/data -U postgres --auth=trust -E UTF8 >/dev/null"
        )
        self.start()
        with psycopg.connect(
            f"postgres://postgres@127.0.0.1:{self.port}/postgres", autocommit=True
        ) as conn:
            conn.execute("CREATE DATABASE lago")

    def start(self):
        opts = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        _as_postgres(
            f"{PG_BIN}/pg_ctl -D {self.dir}/data -l {self.dir}/server.log -w -t 60 -o '{opts}' "
            "start >/dev/null"
        )

    def stop(self, mode="fast"):
        _as_postgres(f"{PG_BIN}/pg_ctl -D {self.dir}/data -m {mode} -w stop >/dev/null")

    def query(self, sql, params=()):
        """The rows of one statement, on a connection of its own."""
        with psycopg.connect(self.url, connect_timeout=5) as conn:
            return conn.execute(sql, params).fetchall()

    def destroy(self):
        try:
            self.stop("immediate")
        except subprocess.CalledProcessError as exc:
            assert "not running" in exc.stderr or "No such file" in exc.stderr, (
                exc.stderr
            )  # already stopped
        shutil.rmtree(self.dir, ignore_errors=True)


def redis_server_binary():
    return shutil.which("redis-server")


class RedisServer:
    """A throwaway redis-server on a free loopback port, no persistence."""

    def __init__(self):
        self.port = free_port()
        self.proc = None

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self):
        cmd = [redis_server_binary(), "--port", str(self.port), "--bind", "127.0.0.1"]
        cmd += ["--save", "", "--appendonly", "no", "--daemonize", "no"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)

        def answers():
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                    s.sendall(b"PING\r\n")
                    return s.recv(16).startswith(b"+PONG")
            except OSError:
                return False

        wait_for(answers, 15, f"redis-server on port {self.port}")
        return self

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


@contextmanager
def running_redis():
    """The URL of a throwaway redis-server for a test's Redis variant: skipped where redis-server is
    missing, failed under CI (.ci/run installs it), so the variant never goes missing silently."""
    if redis_server_binary() is None:
        if os.environ.get("CI"):
            pytest.fail(
                "redis-server is missing but CI is set: .ci/run installs it (apt-get install "
                "redis-server)"
            )
        pytest.skip(
            "redis-server is not installed (apt-get install redis-server); CI runs this variant"
        )
    server = RedisServer().start()
    try:
        yield server.url
    finally:
        server.stop()
