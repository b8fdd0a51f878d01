"""Run a module under cProfile, counting the CPU time of the thread that runs it (the event
loop's), and write the statistics when it exits.

    .venv/bin/python -m bench.cprofiled OUT.prof [--from-usr1] -m bot run

With ``--from-usr1`` the profile starts only when the process gets ``SIGUSR1`` (after its
start-up and a warm-up: ``bench.profile --cprofile`` sends it), so it counts the interactions
alone. ``bench.profile --cprofile`` starts the bot this way; read the file with ``pstats``.
"""

from __future__ import annotations

import cProfile
import runpy
import signal
import sys
import time
from types import FrameType


def main() -> None:
    out, *rest = sys.argv[1:]
    from_signal = rest[:1] == ["--from-usr1"]
    if from_signal:
        rest = rest[1:]
    if len(rest) < 2 or rest[0] != "-m":
        raise SystemExit(
            "usage: python -m bench.cprofiled OUT.prof [--from-usr1] -m MODULE [ARGS...]"
        )
    module, *args = rest[1:]
    sys.argv = [module, *args]
    profiler = cProfile.Profile(time.thread_time)

    def start(signum: int, frame: FrameType | None) -> None:
        # the handler runs in the main thread, the event loop's: the profile is of that thread
        profiler.enable()

    if from_signal:
        signal.signal(signal.SIGUSR1, start)
    else:
        profiler.enable()
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit:
        pass
    finally:
        profiler.disable()
        profiler.dump_stats(out)


if __name__ == "__main__":
    main()
