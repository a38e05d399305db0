"""What a workspace or dataset name may be, checked before anything is created.

Argilla 2.8's server accepts any non-empty workspace name, but its own SDK refuses to read a
workspace whose name is not URL-safe (``WorkspaceModel``: ``^[a-zA-Z0-9_-]+$``) — and it reads
*every* workspace whenever it looks one up by name, so one ``dot.ted`` workspace made every
later push, pull and agreement crash. Names are therefore checked with the SDK's own model, so
the rule is Argilla's and follows its upgrades; lookups go through
:mod:`biasforge.annotation.client.workspaces`, which tolerates a bad name someone else created.
Usernames are checked in :mod:`biasforge.annotation.admin.users`.
"""

from __future__ import annotations

from biasforge.errors import BiasforgeError

# Argilla's dataset limit (argilla_server.api.schemas.v1.datasets.DATASET_NAME_MAX_LENGTH),
# minus what review appends to make the adjudication dataset's name.
DATASET_NAME_MAX = 200 - len("-adjudication")
# Argilla sets no bound on workspace names; adjudication panels are workspaces named after the
# annotation workspace plus up to 60 characters, and the web UI cuts long names: the same
# bound as usernames.
WORKSPACE_NAME_MAX = 64


def _sdk_accepts_workspace(name: str) -> bool:
    from argilla._models import WorkspaceModel
    from pydantic import ValidationError

    try:
        return WorkspaceModel(name=name).name == name  # the model strips spaces: refuse those
    except ValidationError:
        return False


def _name_problem(name: str, limit: int) -> str | None:
    """Why ``name`` breaks the workspace rule or is longer than ``limit``, or None."""
    if not name:
        return "give a name"
    if len(name) > limit:
        return f"{len(name)} characters, at most {limit}"
    if not _sdk_accepts_workspace(name):
        return "use letters, digits, '-' and '_' only (Argilla's workspace name rule)"
    return None


def workspace_problem(name: str) -> str | None:
    """Why ``name`` cannot be an Argilla workspace this tool works in, or None."""
    return _name_problem(name, WORKSPACE_NAME_MAX)


def dataset_problem(name: str) -> str | None:
    """Why ``name`` cannot be a dataset this tool pushes or pulls, or None: the workspace rule
    (Argilla's server takes any name, but ``数据集``, ``a/b`` or ``..`` end up in URLs, folder
    names and the ``-adjudication`` datasets derived from them), within Argilla's dataset
    length limit less that suffix."""
    return _name_problem(name, DATASET_NAME_MAX)


def _checked(name: str, origin: str, problem: str | None) -> str:
    if problem:
        raise BiasforgeError(f"{origin} {name[:80]!r}: {problem}")
    return name


def check_workspace_name(name: str, origin: str = "--workspace") -> str:
    """``name`` if it is a valid workspace name; else one line naming ``origin``."""
    return _checked(name, origin, workspace_problem(name))


def check_dataset_name(name: str, origin: str = "--dataset") -> str:
    """``name`` if it is a valid dataset name; else one line naming ``origin``."""
    return _checked(name, origin, dataset_problem(name))
