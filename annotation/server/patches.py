"""Every change biasforge makes to argilla-server's code, in one table, checked then applied by
one function (:func:`apply`).

Each row names a target as ``module:qualname``, the signature that target had in the Argilla
version it was checked against (:data:`ARGILLA_CHECKED`), and what biasforge does with it:

* ``replace``: a function (``module:function``, ``overrides.*`` for the overrides of Argilla's
  internals, one module each) that receives the original and returns what takes its place at
  the target (the usual case);
* ``install``: a function that receives the original and changes something Argilla bound when
  it was imported (a SQLAlchemy listener, a route), where putting a new object at the target
  would change nothing;
* neither: the target is not changed but biasforge's code calls it (private names among them),
  so it must still be there, with that signature.

Rows belong to groups (:data:`GROUPS`); a server process applies the groups it runs with
(``launcher.install_patches``). A stock server (``BIASFORGE_STOCK_SERVER=1``) applies only
``engine``: the SQL search engine registered through Argilla's own ``SearchEngine.register``,
the one row that uses an extension point; every other applied row is an override, and each is
compared with a stock server (``tests/annotation/test_overrides_differential.py``).

Before anything is applied every selected row is checked: the target must exist and, when it
is callable, have the recorded signature (``inspect.signature``, annotations left out). A
missing or changed target raises :class:`TargetChanged`, which the launcher turns into one
line naming it and an exit status of 2: the server does not start on an Argilla whose
internals moved under the patches.

A row whose module is deferred (:data:`DEFERRED`, ``deferred.py``: loaded at its first use, not
at start-up) and not loaded yet is checked from the module's source, and applied right after
the module has loaded (where it is checked once more, as loaded).

Only the standard library is imported here; targets are imported when checked.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import deferred

#: the argilla-server version every row below was checked against
ARGILLA_CHECKED = "2.8.0"
#: a row whose target is a value (not callable): existence is all that is checked
VALUE = "<value>"
#: modules of argilla-server loaded when first used (deferred.py): the Hub jobs, which import
#: datasets, pandas, pyarrow and PIL into every server process for the refused Push to Hub
DEFERRED = ("argilla_server.jobs.hub_jobs",)

SQLITE = "sqlalchemy.dialects.sqlite.aiosqlite"
CURSOR = f"{SQLITE}:AsyncAdapt_aiosqlite_cursor"
CONNECTION = f"{SQLITE}:AsyncAdapt_aiosqlite_connection"
DATASETS = "argilla_server.contexts.datasets"
DISTRIBUTION = "argilla_server.contexts.distribution"
ACCOUNTS = "argilla_server.contexts.accounts"
BEARER = "argilla_server.security.authentication.db.bearer_token_backend"
RECORDS_SEARCH = "argilla_server.api.handlers.v1.datasets.records"
POLICIES = "argilla_server.api.policies.v1"
NOTIFY = "(db, record_event, record)"

#: group -> what it is for (see the modules named in each row for the why)
GROUPS = {
    "engine": "the SQL search engine (every server, stock included)",
    "owner": "creating the owner from a 0600 file (the `prepare` command)",
    "keys": "a new API key for a user whose password was reset (the `rotate-api-key` command)",
    "product": "biasforge's behaviour: no Push to Hub, own progress, login-only status, "
    "annotators read blind, a discard counts towards min_submitted, sessions end on a reset",
    "speed": "bulk logging speed-ups (overrides/speedups.py)",
    "load": "serving many annotators (overrides/load_tuning.py)",
    "sqlite": "writers queued, answers off the event loop (overrides/write_queue.py, "
    "overrides/answer_write.py)",
}


class TargetChanged(RuntimeError):
    """A patch target is missing or its signature is not the recorded one."""

    def __init__(self, target: str, problem: str) -> None:
        self.target = target
        super().__init__(
            f"argilla-server patch target {target} {problem} (biasforge's patches were "
            f"checked against argilla-server {ARGILLA_CHECKED}); the server was not started"
        )


@dataclass(frozen=True)
class Patch:
    target: str  # "module:qualname"
    signature: str  # the target's, without annotations (VALUE when not callable)
    group: str
    replace: str | None = None  # "module:function" of this folder: original -> new object
    install: str | None = None  # "module:function" of this folder: original -> None


def _p(target: str, signature: str, group: str, replace: str | None = None,
       install: str | None = None) -> Patch:  # fmt: skip
    return Patch(target, signature, group, replace, install)


PATCHES: tuple[Patch, ...] = (
    _p("argilla_server.search_engine.base:SearchEngine.register", "(engine_name)", "engine",
       install="sql_engine:register"),
    _p("argilla_server.cli.database.users.create:_create",
       "(first_name, username, role, password, last_name=None, api_key=None, workspace=None)",
       "owner"),
    _p("argilla_server.models.database:generate_user_api_key", "()", "keys"),
    _p(f"{ACCOUNTS}:get_user_by_username", "(db, username)", "keys"),
    _p("argilla_server.jobs.hub_jobs:export_dataset_to_hub_job",
       "(name, subset, split, private, token, dataset_id)", "product",
       replace="overrides.releases_only:refuse"),
    _p("argilla_server.api.handlers.v1.datasets.datasets:authorize", "(actor, policy_action)",
       "product", replace="overrides.own_progress:remembering_authorize"),
    _p(f"{DATASETS}:get_dataset_progress", "(db, search_engine, dataset)", "product",
       replace="overrides.own_progress:own_progress"),
    _p("argilla_server.api.handlers.v1.info:get_status",
       "(search_engine=Depends(get_search_engine))", "product",
       install="overrides.private_status:require_login"),
    _p("argilla_server.api.handlers.v1.records:get_record",
       "(*, db=Depends(get_async_db), record_id, current_user=Security(get_current_user))",
       "product", install="overrides.blind_reads:blind_record_route"),
    _p(f"{RECORDS_SEARCH}:_get_search_responses",
       "(db, search_engine, dataset, limit, offset, search_records_query=None, user=None)",
       "product", replace="overrides.blind_reads:no_hidden_scopes"),
    _p(f"{RECORDS_SEARCH}:_filter_record_metadata_for_user", "(record, user)", "product"),
    _p(f"{POLICIES}:DatasetPolicy.list_records_with_all_responses", "(dataset)", "product"),
    _p(f"{POLICIES}:MetadataPropertyPolicy.get", "(metadata_property)", "product"),
    _p(f"{ACCOUNTS}:generate_user_token", "(user)", "product",
       replace="overrides.sessions:stamped_token"),
    _p(f"{BEARER}:BearerTokenAuthenticationBackend.authenticate", "(self, request)", "product",
       replace="overrides.sessions:stamp_checked"),
    _p(f"{DISTRIBUTION}:_update_record_status_with_overlap_strategy", "(db, record)", "product",
       replace="overrides.completion:discards_count"),
    _p("argilla_server.models.database:Question.parsed_settings", "(self)", "speed",
       replace="overrides.speedups:cached_settings"),
    _p("argilla_server.models.database:MetadataProperty.parsed_settings", "(self)", "speed",
       replace="overrides.speedups:cached_settings"),
    _p("argilla_server.bulk.records_bulk:notify_record_event_v1", NOTIFY, "speed",
       replace="overrides.speedups:unless_no_webhook"),
    _p("argilla_server.database:set_sqlite_pragma", "(dbapi_connection, connection_record)",
       "load", install="overrides.load_tuning:wal"),
    _p(f"{CURSOR}.execute", "(self, operation, parameters=None)", "load",
       replace="overrides.load_tuning:one_trip_per_statement"),
    _p(f"{ACCOUNTS}:get_user_by_username", "(db, username)", "load",
       replace="overrides.load_tuning:user_once_per_session"),
    _p(f"{ACCOUNTS}:hash_password", "(password)", "load", replace="overrides.load_tuning:hash_password"),
    _p(f"{ACCOUNTS}:verify_password", "(password, password_hash)", "load"),
    _p(f"{ACCOUNTS}:authenticate_user", "(db, username, password)", "load",
       replace="overrides.load_tuning:authenticate_user"),
    _p(f"{DATASETS}:notify_response_event_v1", "(db, response_event, response)", "load",
       replace="overrides.speedups:unless_no_webhook"),
    _p(f"{DATASETS}:notify_record_event_v1", NOTIFY, "load",
       replace="overrides.speedups:unless_no_webhook"),
    _p(f"{DISTRIBUTION}:notify_record_event_v1", NOTIFY, "load",
       replace="overrides.speedups:unless_no_webhook"),
    _p(f"{CURSOR}.execute", "(self, operation, parameters=None)", "sqlite",
       replace="overrides.write_queue:entering"),
    _p(f"{CURSOR}.executemany", "(self, operation, seq_of_parameters)", "sqlite",
       replace="overrides.write_queue:entering"),
    *(
        _p(f"{CONNECTION}.{name}", "(self)", "sqlite", replace="overrides.write_queue:leaving")
        for name in ("commit", "rollback", "close", "terminate")
    ),
    _p(f"{DATASETS}:create_response", "(db, search_engine, record, user, response_create)",
       "sqlite", replace="overrides.answer_write:create_response"),
    _p(f"{DATASETS}:_load_users_from_responses", "(responses)", "sqlite"),
    _p(f"{DISTRIBUTION}:update_record_status",
       "(search_engine, record_id)", "sqlite"),
    _p("argilla_server.models.mixins:_INSERT_FUNC", VALUE, "sqlite"),
)  # fmt: skip


def _resolve(target: str) -> tuple[Any, str, Any]:
    """(owner object, attribute name, current value) of ``module:qualname``."""
    module_name, qualname = target.split(":")
    owner: Any = importlib.import_module(module_name)
    *path, name = qualname.split(".")
    for part in path:
        owner = getattr(owner, part)
    found = inspect.getattr_static(owner, name) if inspect.isclass(owner) else None
    if isinstance(found, property):
        return owner, name, found
    return owner, name, getattr(owner, name)


def signature_of(value: Any) -> str:
    """The signature as recorded in the table: parameters and defaults, no annotations."""
    function = value.fget if isinstance(value, property) else value
    if not callable(function):
        return VALUE
    signature = inspect.signature(function)
    empty = inspect.Parameter.empty
    plain = [p.replace(annotation=empty) for p in signature.parameters.values()]
    return str(signature.replace(parameters=plain, return_annotation=empty))


def check(patch: Patch) -> Any:
    """The target's current value (None for a deferred module not loaded yet, checked from its
    source); TargetChanged when it is missing or its signature moved."""
    module_name, qualname = patch.target.split(":")
    try:
        if deferred.waiting(module_name):
            value, found = None, signature_of(deferred.source_function(module_name, qualname))
        else:
            _, _, value = _resolve(patch.target)
            found = signature_of(value)
    except (ImportError, AttributeError) as error:
        raise TargetChanged(patch.target, f"is missing ({error})") from None
    if found != patch.signature:
        raise TargetChanged(patch.target, f"has the signature {found}, expected {patch.signature}")
    return value


def _function(reference: str):
    module_name, name = reference.split(":")
    return getattr(importlib.import_module(module_name), name)


def selected(groups: Iterable[str]) -> list[Patch]:
    wanted = set(groups)
    unknown = wanted - set(GROUPS)
    if unknown:
        raise ValueError(f"unknown patch groups: {sorted(unknown)}")
    return [patch for patch in PATCHES if patch.group in wanted]


#: the rows applied in this process: a web process that did the start's database work first
#: (``launcher.py start --prepare``) imports ``asgi``, which applies its groups again
_APPLIED: set[Patch] = set()


def apply(groups: Iterable[str]) -> list[Patch]:
    """Check every row of ``groups``, then apply them in table order; returns the rows.

    Checking first means a changed target stops the server before anything is patched."""
    patches = [patch for patch in selected(groups) if patch not in _APPLIED]
    originals = [check(patch) for patch in patches]
    for patch, original in zip(patches, originals, strict=True):
        module_name = patch.target.split(":")[0]
        if deferred.waiting(module_name):  # checked from its source: applied once it loads
            deferred.when_loaded(module_name, lambda _, row=patch: _apply_row(row, check(row)))
        else:
            _apply_row(patch, original)
        _APPLIED.add(patch)
    return patches


def defer() -> None:
    """Load the :data:`DEFERRED` modules when first used; before argilla_server is imported."""
    deferred.defer(DEFERRED)


def _apply_row(patch: Patch, original: Any) -> None:
    if patch.replace:
        owner, name, current = _resolve(patch.target)  # an earlier row may have wrapped it
        setattr(owner, name, _function(patch.replace)(current))
    elif patch.install:
        _function(patch.install)(original)
