"""How ``./dev test`` spreads the suite over pytest-xdist workers (``-n N --dist loadgroup``).

A test is sent to a worker with the others of its *group*, which run there in file order:

- the blocks of one documentation page (a block may use what an earlier one made);
- the tests of a module that has a module- or class-scoped fixture (built once, not once per
  worker) or that uses the shared embedded server (they may build on each other's users and
  datasets, as in a serial run);
- any other test is its own group, so cheap independent tests fill the gaps at the end; so is
  a test marked ``scheduled_alone``, which uses the shared server but nothing its module's other
  tests leave there (the halves of Argilla's SDK suite run at once on two workers' servers).

Groups named in ``tests/slow_groups.txt`` (the longest, longest first) are handed out first,
so the run does not end waiting for one long group started last. Without xdist nothing changes.

xdist's own ``loadgroup`` reads the groups from ``@group`` suffixes it writes into node ids,
which pytest 9.2's structured node ids silently ignore (pytest-xdist issue #1386: every test
becomes its own group). So the groups travel on their own: each worker writes the map of node
id to group into the run's common temporary folder while collecting, and the scheduler below
(xdist's scope scheduler, the group as scope) reads it once every worker has collected.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.shared import run_root

SLOW_GROUPS = Path(__file__).with_name("slow_groups.txt")
SERVER_FIXTURES = {"server"}
GROUPS_FILE = "xdist-groups.json"


#: the thread pools of torch (OpenMP), numpy (OpenBLAS) and MKL: one thread per process under
#: xdist. Three workers on two cores, each with a pool of two spinning threads, made a tiny
#: BERT's forward passes 30 times slower than one thread each (tests/scoring/test_crowspairs.py:
#: 26 s against 0.7 s). Set before the tests import torch; subprocesses inherit it.
THREAD_POOLS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "scheduled_alone: a group of its own under xdist, though it uses the shared server "
        "(it relies on nothing its module's other tests leave there)",
    )
    if "PYTEST_XDIST_WORKER" in os.environ:
        for name in THREAD_POOLS:
            os.environ.setdefault(name, "1")


def slow_groups() -> list[str]:
    lines = SLOW_GROUPS.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def group_of(item: pytest.Item) -> str | None:
    """The group ``item`` is scheduled with, or None to schedule it alone."""
    module = item.nodeid.split("::", 1)[0]
    if item.get_closest_marker("scheduled_alone"):
        return None
    block = getattr(item, "callspec", None) and item.callspec.params.get("block")
    if block is not None and hasattr(block, "page"):
        return f"docs:{block.page}"
    definitions = item._fixtureinfo.name2fixturedefs  # the fixtures the test uses
    scopes = {d.scope for defs in definitions.values() for d in defs}
    if scopes & {"module", "class"} or SERVER_FIXTURES & set(item.fixturenames):
        return module
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return
    groups = {item.nodeid: group_of(item) for item in items}
    # a module with one grouped test goes as a unit: its other tests may rely on it too
    grouped = {i.nodeid.split("::", 1)[0]: g for i in items if (g := groups[i.nodeid])}
    for item in items:
        module = item.nodeid.split("::", 1)[0]
        if groups[item.nodeid] is None and grouped.get(module) == module:
            groups[item.nodeid] = module
    first = {name: rank for rank, name in enumerate(slow_groups())}
    items.sort(key=lambda i: first.get(groups[i.nodeid] or i.nodeid, len(first)))
    # every worker collects the same tests: each writes the same map, atomically
    folder = run_root(config._tmp_path_factory)
    scratch = folder / f"{GROUPS_FILE}.{os.environ['PYTEST_XDIST_WORKER']}"
    scratch.write_text(json.dumps({n: g for n, g in groups.items() if g}), encoding="utf-8")
    os.replace(scratch, folder / GROUPS_FILE)


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """``--dist loadgroup`` with the groups of :func:`group_of` (see the module's docstring)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:  # first asked once every worker has collected
                path = config._tmp_path_factory.getbasetemp() / GROUPS_FILE
                self.groups = json.loads(path.read_text(encoding="utf-8"))
            return self.groups.get(nodeid, nodeid)

    return GroupScheduling(config, log)
