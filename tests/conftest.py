"""Hypothesis profiles: property tests explore new examples on a developer's machine, while CI
runs a pinned, derandomized profile so that no landing depends on a lucky draw.

* ``explore`` (the default locally): Hypothesis draws fresh random examples each run and keeps
  failing ones in ``.hypothesis/`` to replay them.
* ``ci`` (``HYPOTHESIS_PROFILE=ci``, set by ``.ci/run``): ``derandomize=True`` — the examples are
  a fixed function of each test, so the same commit gives the same verdict every time; no example
  database is read or written, and failing examples are printed in full.

A bug that exploration finds is kept as an explicit regression test (``@example`` or a test of
its own), so the pinned profile checks it from then on.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("explore")
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "explore"))
