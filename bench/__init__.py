"""Benchmarks of the referee bot (not part of the test run): ``python -m bench.run``."""
