"""Test configuration: hypothesis profiles and the generated-case counter.

Profiles (select with BITGRAPH_HYPOTHESIS_PROFILE, default "ci"):

* ci: derandomized (each test's seed derives from its name, so CI runs are
  reproducible), the full example counts (20,000+ cases per run);
* dev: about 8% of the examples, random seeds (printed in the header;
  replay with ``pytest --hypothesis-seed=N``);
* thorough: 5x the ci counts, random seeds.

Every falsifying example prints as Python that rebuilds it (strategies.py),
and ``print_blob`` adds a ``@reproduce_failure`` line.
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# a rank of tests/gpu/test_distributed_gpu.py, started by the launcher: a script, not a
# test module (it imports CuPy and joins a process group at import)
collect_ignore = ["gpu/_dist_worker.py"]

sys.path.insert(0, str(Path(__file__).resolve().parent))

_HC = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
       HealthCheck.large_base_example]
settings.register_profile("ci", deadline=None, derandomize=True, database=None, print_blob=True,
                          suppress_health_check=_HC, max_examples=100)
settings.register_profile("dev", deadline=None, derandomize=False, print_blob=True,
                          suppress_health_check=_HC, max_examples=10)
settings.register_profile("thorough", deadline=None, derandomize=False, print_blob=True,
                          suppress_health_check=_HC, max_examples=500)
PROFILE = os.environ.get("BITGRAPH_HYPOTHESIS_PROFILE", "ci")
settings.load_profile(PROFILE)

warnings.filterwarnings("ignore", category=DeprecationWarning, module="graphblas")

_CASES = {"n": 0, "tests": 0}


def pytest_report_header(config):
    seed = config.getoption("hypothesis_seed", None) if hasattr(config.option, "hypothesis_seed") else None
    s = settings.default
    return (f"hypothesis profile {PROFILE!r}: derandomize={s.derandomize}, "
            f"seed={'per-test, derived from the test name' if s.derandomize else (seed if seed is not None else 'random (see --hypothesis-seed)')}")


def pytest_collection_modifyitems(session, config, items):
    """Skip ``gpu`` tests, with the reason, where CUDA is not usable; wrap
    each hypothesis test's inner function to count generated cases
    (``.hypothesis.inner_test`` is hypothesis's documented hook for this)."""
    import pytest

    from bitgraph.device import cuda_status

    reason = cuda_status() if any(item.get_closest_marker("gpu") for item in items) else None
    if reason is not None:
        skip = pytest.mark.skip(reason=f"gpu: {reason}")
        for item in items:
            if item.get_closest_marker("gpu"):
                item.add_marker(skip)
    seen = set()
    for item in items:
        fn = getattr(item, "obj", None)
        h = getattr(fn, "hypothesis", None)
        if h is None or not hasattr(h, "inner_test") or id(fn) in seen:
            continue
        seen.add(id(fn))
        inner = h.inner_test

        @functools.wraps(inner)
        def counted(*args, __inner=inner, **kwargs):
            _CASES["n"] += 1
            return __inner(*args, **kwargs)

        h.inner_test = counted
        _CASES["tests"] += 1


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    terminalreporter.write_sep(
        "=", f"hypothesis: {_CASES['n']} generated cases in {_CASES['tests']} property tests "
             f"(profile {PROFILE!r})")


@pytest.fixture
def knobs():
    """``knobs(family={field: value}, ...)``: the test runs the rest of its
    body with those settings (``bitgraph.settings.use``), restored after."""
    import contextlib

    import bitgraph

    with contextlib.ExitStack() as stack:
        yield lambda **changes: stack.enter_context(bitgraph.settings.use(**changes))


@pytest.fixture(autouse=True, scope="module")
def _conformance_device(request):
    """With ``BG_CONFORMANCE_DEVICE=cuda`` the conformance modules make every
    object on CUDA (``bg.set_device``): the bodies that build operands
    themselves run there too, not only those drawn from ``strategies``."""
    import oracle

    name = Path(str(request.node.fspath)).name
    if oracle.CONFORMANCE_DEVICE == "cpu" or not name.startswith("test_conformance_"):
        yield
        return
    import bitgraph as bg

    before = bg.get_device()
    bg.set_device(oracle.CONFORMANCE_DEVICE)
    try:
        yield
    finally:
        bg.set_device(before)
