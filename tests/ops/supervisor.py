"""A supervisor for the tests, standing for Docker's restart policy: it reads the bot services of
``compose.yaml`` (their ``command`` after the image's ``ENTRYPOINT``, their ``environment``
with ``${VAR}`` filled in, their ``restart`` policy), runs each as a real process and starts it
again when it exits, as Docker would. There is no Docker engine here, so this is how the compose
file's command lines are run in a test."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
REFEREE = Path(sys.executable).parent / "referee"
"""The ``referee`` command the image's ``ENTRYPOINT`` names, from this environment."""

_VARIABLE = re.compile(r"\$\{(?P<name>\w+)(?::(?P<op>[?-])(?P<word>[^}]*))?\}")


def substitute(text: str, environment: Mapping[str, str]) -> str:
    """Compose's ``${VAR}``, ``${VAR:-default}`` and ``${VAR:?message}`` in ``text``.

    >>> substitute("a${X}b${Y:-c}", {"X": "1"})
    'a1bc'
    """

    def value(match: re.Match[str]) -> str:
        name, op, word = match["name"], match["op"], match["word"]
        if environment.get(name):
            return environment[name]
        if op == "?":
            raise ValueError(f"{name}: {word}")
        return word or ""

    return _VARIABLE.sub(value, text)


@dataclass
class Service:
    """One bot service of the compose file, as the process it runs."""

    name: str
    argv: list[str]
    environment: dict[str, str]
    restart: str


def entrypoint() -> list[str]:
    """The image's ``ENTRYPOINT`` (the Dockerfile's, as a JSON list)."""
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        if line.startswith("ENTRYPOINT"):
            return list(yaml.safe_load(line.removeprefix("ENTRYPOINT").strip()))
    raise AssertionError("the Dockerfile has no ENTRYPOINT")


def compose_services(path: Path, environment: Mapping[str, str]) -> list[Service]:
    """The services of ``path`` built from this repository (the bot), in order."""
    data: dict[str, Any] = yaml.safe_load(path.read_text())
    services = []
    assert entrypoint() == ["referee"]
    for name, service in data["services"].items():
        if service.get("build") != ".":
            continue  # PostgreSQL: the test run's own server stands for it
        env = {k: substitute(str(v), environment) for k, v in service["environment"].items()}
        argv = [str(REFEREE), *map(str, service["command"])]
        services.append(Service(name, argv, env, str(service.get("restart", "no"))))
    return services


@dataclass
class Supervisor:
    """Runs services and restarts them by their policy (``always`` / ``unless-stopped``: any
    exit; ``on-failure``: a non-zero one; ``no``: never)."""

    services: list[Service]
    workdir: Path
    overrides: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per service, what differs here from the compose file (the database's host, a port)."""
    processes: dict[str, asyncio.subprocess.Process] = field(default_factory=dict)
    starts: dict[str, int] = field(default_factory=dict)
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)
    _stopping: bool = False

    def log(self, name: str) -> str:
        return (self.workdir / f"{name}.log").read_text(errors="replace")

    async def start(self) -> None:
        for service in self.services:
            self._tasks.append(asyncio.ensure_future(self._keep(service)))

    async def _keep(self, service: Service) -> None:
        environment = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "REFEREE_"))},
            **service.environment,
            **self.overrides.get(service.name, {}),
            "PYTHONUNBUFFERED": "1",
        }
        while not self._stopping:
            with (self.workdir / f"{service.name}.log").open("ab") as out:
                process = await asyncio.create_subprocess_exec(
                    *service.argv, cwd=self.workdir, env=environment,
                    stdin=asyncio.subprocess.DEVNULL, stdout=out, stderr=asyncio.subprocess.STDOUT,
                )  # fmt: skip
            self.processes[service.name] = process
            self.starts[service.name] = self.starts.get(service.name, 0) + 1
            code = await process.wait()
            if self._stopping or service.restart == "no":
                return
            if service.restart == "on-failure" and code == 0:
                return
            await asyncio.sleep(1.0)  # Docker waits before a restart too

    def kill(self, name: str) -> None:
        """SIGKILL the service's process (an out-of-memory kill, a crash)."""
        self.processes[name].send_signal(signal.SIGKILL)

    async def stop(self) -> dict[str, int]:
        """SIGTERM every process (as ``docker compose stop``); their exit codes."""
        self._stopping = True
        codes = {}
        for name, process in self.processes.items():
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
            try:
                codes[name] = await asyncio.wait_for(process.wait(), 60)
            except TimeoutError:
                process.kill()
                codes[name] = await process.wait()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        return codes
