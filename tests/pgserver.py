"""A real PostgreSQL server for the tests, started by the test run itself.

:class:`PostgresServer` runs ``initdb`` into a fresh directory and starts ``postgres`` on a Unix
socket of its own (no TCP port, nothing shared with another run), as the unprivileged
``postgres`` user when the tests run as root. Each test gets an empty database of its own
(:meth:`PostgresServer.create_database`), dropped afterwards. The server runs with ``fsync=off``:
the tests kill clients, never the server, so its durability on power loss is not what they test,
and two cores shared by a whole team make every fsync count.

The binaries are found in ``REFEREE_PG_BINDIR``, else through ``pg_config --bindir``, else in
Debian's ``/usr/lib/postgresql/<version>/bin`` (the newest). ``.ci/run`` installs Debian's
``postgresql`` when none is there, so the PostgreSQL tests run in CI rather than being skipped.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import asyncpg

SUPERUSER = "referee"


def find_bindir() -> Path | None:
    """Where ``initdb`` and ``postgres`` are, or None."""
    configured = os.environ.get("REFEREE_PG_BINDIR")
    if configured:
        return Path(configured)
    pg_config = shutil.which("pg_config")
    if pg_config is not None:
        found = subprocess.run(
            [pg_config, "--bindir"], capture_output=True, text=True, check=False
        ).stdout.strip()
        if found and (Path(found) / "initdb").exists():
            return Path(found)
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    return versions[-1].parent if versions else None


class PostgresServer:
    """One PostgreSQL server in a temporary directory, reachable on its own Unix socket."""

    def __init__(self, bindir: Path, *, durable: bool = False) -> None:
        """``durable``: ``fsync`` on, as in production (the benchmark); off for the tests."""
        self.bindir = bindir
        self.durable = durable
        self.user = "postgres" if os.geteuid() == 0 else None
        self.root = Path(tempfile.mkdtemp(prefix="referee-pg-"))
        self.data = self.root / "data"
        self.socket_dir = self.root
        self.process: subprocess.Popen[bytes] | None = None
        self._names = itertools.count(1)
        if self.user is not None:
            shutil.chown(self.root, self.user, self.user)

    def start(self) -> None:
        subprocess.run(
            [
                str(self.bindir / "initdb"), "-D", str(self.data), "-U", SUPERUSER,
                "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync",
            ],
            check=True, capture_output=True, user=self.user,
        )  # fmt: skip
        self.launch()

    def launch(self) -> None:
        """Start ``postgres`` on the data directory (again, after :meth:`shut_down`)."""
        self.process = subprocess.Popen(
            [
                str(self.bindir / "postgres"), "-D", str(self.data), "-k", str(self.socket_dir),
                "-c", "listen_addresses=", "-c", "max_connections=200",
                "-c", "shared_buffers=32MB",
                *(() if self.durable else ("-c", "fsync=off", "-c", "full_page_writes=off")),
            ],
            stdout=subprocess.DEVNULL, stderr=open(self.root / "server.log", "wb"),  # noqa: SIM115
            user=self.user,
        )  # fmt: skip
        deadline = time.monotonic() + 120  # a second or two; longer while other runs load the host
        while not (self.socket_dir / ".s.PGSQL.5432").exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                log = (self.root / "server.log").read_text(errors="replace")
                raise RuntimeError(f"PostgreSQL did not start:\n{log}")
            time.sleep(0.02)
        self._psql("SELECT 1")  # accepting connections, not only listening

    def _psql(self, statement: str) -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            done = subprocess.run(
                [
                    str(self.bindir / "psql"), "-h", str(self.socket_dir), "-U", SUPERUSER,
                    "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-qc", statement,
                ],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            if done.returncode == 0:
                return
            if "starting up" not in done.stderr:
                raise RuntimeError(done.stderr)
            time.sleep(0.05)
        raise RuntimeError("PostgreSQL stayed in start-up")

    def url(self, database: str) -> str:
        """The URL of ``database`` on this server (as ``REFEREE_DATABASE_URL`` takes it)."""
        return f"postgresql://{SUPERUSER}@/{database}?host={self.socket_dir}"

    async def create_database(self) -> str:
        """A new empty database; its URL."""
        name = f"test_{os.getpid()}_{next(self._names)}"
        connection = await asyncpg.connect(self.url("postgres"))
        try:
            await connection.execute(f"CREATE DATABASE {name} STRATEGY FILE_COPY")
        finally:
            await connection.close()
        return self.url(name)

    async def drop_database(self, url: str) -> None:
        name = url.split("@/", 1)[1].split("?", 1)[0]
        connection = await asyncpg.connect(self.url("postgres"))
        try:
            await connection.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        finally:
            await connection.close()

    def shut_down(self) -> None:
        """Stop the server (a fast shutdown), keeping its data: :meth:`launch` starts it again."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            self.process.wait(30)
        (self.socket_dir / ".s.PGSQL.5432").unlink(missing_ok=True)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # fast shutdown
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.root, ignore_errors=True)


@contextlib.contextmanager
def running_server() -> Iterator[PostgresServer]:
    """A started server, stopped and removed on exit.

    :raises RuntimeError: no PostgreSQL binaries (``.ci/run`` installs Debian's ``postgresql``).
    """
    bindir = find_bindir()
    if bindir is None:
        raise RuntimeError(
            "PostgreSQL is not installed: apt-get install -y postgresql, or set REFEREE_PG_BINDIR"
        )
    server = PostgresServer(bindir)
    try:
        server.start()
        yield server
    finally:
        server.stop()
