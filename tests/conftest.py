"""Hypothesis profiles: property tests explore new examples on a developer's machine, while CI
runs a pinned, derandomized profile so that no landing depends on a lucky draw.

* ``explore`` (the default locally): Hypothesis draws fresh random examples each run and keeps
  failing ones in ``.hypothesis/`` to replay them.
* ``ci`` (``HYPOTHESIS_PROFILE=ci``, set by ``.ci/run``): ``derandomize=True`` — the examples are
  a fixed function of each test, so the same commit gives the same verdict every time; no example
  database is read or written, and failing examples are printed in full.

A bug that exploration finds is kept as an explicit regression test (``@example`` or a test of
its own), so the pinned profile checks it from then on.

Neither profile fails a test for drawing its examples slowly (``HealthCheck.too_slow``) nor for
running one slowly (no ``deadline``; Hypothesis's default fails an example that takes over 200 ms,
and then again as "flaky" when its rerun is quicker): how fast a shared machine generates data or
runs an example says nothing about the code, and on a loaded one the health check failed property
tests that passed alone. Speed is measured by the benchmarks.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

SLOW_MACHINE_FRIENDLY = [HealthCheck.too_slow]
settings.register_profile("explore", suppress_health_check=SLOW_MACHINE_FRIENDLY, deadline=None)
settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=SLOW_MACHINE_FRIENDLY,
    deadline=None,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "explore"))


# --- the two storage engines -----------------------------------------------------------------
# A test that takes ``database`` (or the bot tests' ``repo``) runs once on SQLite and once on a
# real PostgreSQL server that the test run starts itself (tests/pgserver.py). A test bound to one
# engine says so with ``@ENGINES("sqlite")``.

from collections.abc import AsyncIterator, Iterator  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from tests.pgserver import PostgresServer, running_server  # noqa: E402


def ENGINES(*names: str) -> pytest.MarkDecorator:
    """Run the decorated test on these engines only (``"sqlite"``, ``"postgresql"``)."""
    return pytest.mark.parametrize("engine", names, indirect=True)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    with running_server() as server:
        yield server


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture
async def database(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest
) -> AsyncIterator[Path | str]:
    """An empty database of ``engine``: an SQLite file's path or a PostgreSQL URL."""
    if engine == "sqlite":
        yield tmp_path / "referee.db"
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    url = await server.create_database()
    yield url
    await server.drop_database(url)
