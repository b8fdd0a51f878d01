"""Run a module under cProfile, counting the CPU time of the thread that runs it (the event
loop's), and write the statistics when it exits.

    .venv/bin/python -m bench.cprofiled OUT.prof -m bot run

``bench.profile --cprofile`` starts the bot this way; read the file with ``pstats``.
"""

from __future__ import annotations

import cProfile
import runpy
import sys
import time


def main() -> None:
    out, flag, module, *rest = sys.argv[1:]
    if flag != "-m":
        raise SystemExit("usage: python -m bench.cprofiled OUT.prof -m MODULE [ARGS...]")
    sys.argv = [module, *rest]
    profiler = cProfile.Profile(time.thread_time)
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
