"""Modules of argilla-server loaded when first used rather than when the server starts.

argilla-server imports its Hugging Face Hub jobs at start-up, and with them ``datasets``,
``pandas``, ``pyarrow``, ``PIL`` and ``huggingface_hub``: about 0.7 s of CPU and 100 MB of
memory in every server process (each web process, the job worker, a key rotation) for a
feature biasforge refuses (``overrides/releases_only.py``). :func:`defer` hands such a module
to Python's own :class:`importlib.util.LazyLoader`: importing it gives a module object that runs
its code at the first attribute read. Code that must run once it has loaded (a patch) waits in
:func:`when_loaded`; until then :func:`source_function` reads a function's parameters from the
module's source, so a patch's target is still checked at start-up without loading it.

Only the standard library is imported here.
"""

from __future__ import annotations

import ast
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from types import FunctionType, ModuleType

#: deferred modules not loaded yet
_WAITING: set[str] = set()
#: module name -> what runs right after it has loaded
_HOOKS: dict[str, list[Callable[[ModuleType], None]]] = {}


class _ThenHooks(importlib.abc.Loader):
    """The module's own loader, followed by the hooks waiting for it."""

    def __init__(self, loader: importlib.abc.Loader, name: str) -> None:
        self.loader = loader
        self.name = name

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        _WAITING.discard(self.name)
        for hook in _HOOKS.pop(self.name, []):
            hook(module)

    def __getattr__(self, name: str):  # get_source, get_filename… as the module's own loader
        return getattr(self.loader, name)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds the deferred modules as Python would, and makes their loading lazy."""

    def __init__(self, names: Iterable[str]) -> None:
        self.names = frozenset(names)

    def find_spec(self, name, path, target=None):
        if name not in self.names:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = importlib.util.LazyLoader(_ThenHooks(spec.loader, name))
        _WAITING.add(name)
        return spec


def defer(names: Iterable[str]) -> None:
    """Load ``names`` when first used; call before anything imports them (a module already
    imported stays as it is)."""
    wanted = [name for name in names if name not in sys.modules]
    if wanted and not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder(wanted))


def waiting(name: str) -> bool:
    """Whether ``name`` was deferred and has not loaded yet (importing it, lazily, when nothing
    has: a deferred module's first import gives the lazy module, a later one loads it)."""
    finders = [f for f in sys.meta_path if isinstance(f, _Finder) and name in f.names]
    if finders and name not in sys.modules:
        importlib.import_module(name)
    return name in _WAITING


def when_loaded(name: str, hook: Callable[[ModuleType], None]) -> None:
    """Run ``hook(module)`` once ``name`` has loaded: now if it has, else right after."""
    if waiting(name):
        _HOOKS.setdefault(name, []).append(hook)
    else:
        hook(importlib.import_module(name))


def source_function(module_name: str, qualname: str) -> FunctionType:
    """A function with the parameters (names, kinds, defaults; no annotations) that the
    top-level ``def`` ``qualname`` of ``module_name`` has in its source, read without running
    the module. ImportError or AttributeError when either is missing, as an import would say.

    Defaults must be literals (they are evaluated without the module's names)."""
    parent = module_name.rpartition(".")[0]
    path = importlib.import_module(parent).__path__ if parent else None
    spec = importlib.machinery.PathFinder.find_spec(module_name, path)
    if spec is None or not spec.origin:
        raise ImportError(f"No module named {module_name!r}")
    body = ast.parse(Path(spec.origin).read_bytes(), spec.origin).body
    node = next(
        (n for n in body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
         and n.name == qualname),
        None,
    )  # fmt: skip
    if node is None:
        raise AttributeError(f"module {module_name!r} has no attribute {qualname!r}")
    args = node.args
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
        if arg is not None:
            arg.annotation = None
    stub = ast.Module(
        body=[ast.FunctionDef(name=qualname, args=args, body=[ast.Pass()], decorator_list=[])],
        type_ignores=[],
    )
    namespace: dict = {}
    exec(compile(ast.fix_missing_locations(stub), spec.origin, "exec"), namespace)
    return namespace[qualname]
