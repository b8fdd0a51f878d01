"""docs/OPERATING.md's supervisor recipes run: the systemd unit's ``ExecStart`` as instance 0 and
the Kubernetes StatefulSet's container as pod 1, with the environment each would give, against
the fake Discord (two shards recommended): each process runs its own shard. There is no systemd
or Kubernetes here, so their own parts (``%i``, the downward API's pod index, ``$(VAR)``) are
filled in as they would fill them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.conftest import ROOT, BotLauncher
from tests.fake_discord import FakeDiscord
from tests.ops.supervisor import REFEREE, entrypoint

pytestmark = [pytest.mark.e2e]

OPERATING = (ROOT / "docs/OPERATING.md").read_text()


def fenced(info: str, containing: str) -> str:
    """The first fenced block of OPERATING.md with ``info`` that holds ``containing``."""
    for block in re.findall(rf"^```{info}\n(.*?)^```", OPERATING, re.M | re.S):
        if containing in block:
            return str(block)
    raise AssertionError(f"docs/OPERATING.md has no ```{info} block with {containing!r}")


def systemd_command(instance: str) -> list[str]:
    """The unit's ``ExecStart`` for an instance (``%i``), its program from this environment."""
    unit = fenced("ini", "ExecStart=")
    assert re.search(r"^Restart=always$", unit, re.M), unit
    line = next(x for x in unit.splitlines() if x.startswith("ExecStart="))
    program, *args = line.removeprefix("ExecStart=").replace("%i", instance).split()
    assert program.endswith("/referee"), program
    return [str(REFEREE), *args]


def kubernetes_pod(index: int) -> tuple[list[str], dict[str, str], dict[str, Any]]:
    """The StatefulSet's container command and environment as pod ``index`` gets them."""
    manifest = yaml.safe_load(fenced("yaml", "kind: StatefulSet"))
    assert manifest["kind"] == "StatefulSet"
    spec = manifest["spec"]["template"]["spec"]
    (container,) = spec["containers"]
    environment: dict[str, str] = {}
    for variable in container["env"]:
        if "valueFrom" in variable:
            path = variable["valueFrom"]["fieldRef"]["fieldPath"]
            assert path == "metadata.labels['apps.kubernetes.io/pod-index']", path
            environment[variable["name"]] = str(index)
        else:  # Kubernetes expands $(NAME) of the variables before it
            environment[variable["name"]] = re.sub(
                r"\$\((\w+)\)", lambda m: environment[m[1]], str(variable["value"])
            )
    argv = [str(REFEREE) if word == "referee" else word for word in entrypoint()]
    return [*argv, *container["args"]], environment, manifest


async def test_the_systemd_and_kubernetes_recipes_run_their_shards(tmp_path: Path) -> None:
    command_0 = systemd_command("0")
    command_1, environment_1, manifest = kubernetes_pod(1)
    assert command_0[1:] == ["run", "--shards", "auto", "--cluster", "0/2"]
    assert environment_1["REFEREE_CLUSTER"] == "1/2"
    assert manifest["spec"]["replicas"] == 2  # as many pods as the cluster's N
    async with FakeDiscord(extra_guilds=("table-2",), shards=2) as discord:
        launcher = BotLauncher(discord, tmp_path)
        settings = {"REFEREE_DB": str(tmp_path / "referee.db")}
        first = await launcher.start(command_0, **settings)
        pod_environment = {
            **environment_1,
            "REFEREE_METRICS_PORT": "0",  # a free port; the logs stay JSON, as the manifest says
        }
        second = await launcher.start(command_1, **settings, **pod_environment)
        try:
            await discord.wait_until_shard_ready(0)
            await discord.wait_until_shard_ready(1)
        finally:
            codes = [await first.stop(), await second.stop()]
        assert codes == [0, 0], (first.output(), second.output())
    assert "Running shards [0] of 2" in first.output()
    assert environment_1["REFEREE_LOG_FORMAT"] == "json"
    records = [json.loads(line) for line in second.output().splitlines()]  # every line is JSON
    messages = [r["message"] for r in records]
    assert {"time", "level", "logger", "message"} <= set(records[0])
    assert any(m.startswith("Running shards [1] of 2") for m in messages), messages
    assert any(
        m.startswith("Serving /metrics, /healthz and /readyz on http://0.0.0.0:") for m in messages
    )
