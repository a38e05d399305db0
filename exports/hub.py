"""Publishing a finished local release to the Hugging Face Hub.

The local release is always written first; pushing only reads it. Each version is one commit
whose tree is exactly that release (files of older versions are deleted in the same commit),
tagged with the version, so ``load_dataset(repo, name=config, revision="1.2.0")`` returns
what ``releases/NAME/1.2.0`` holds. Credentials come from ``HF_TOKEN`` or the token that
``huggingface-cli login`` stored; they are never printed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from biasforge.errors import BiasforgeError

# What a release writes at its top level and in its config folders; the Hub's own
# .gitattributes is left alone.
_RELEASE_PATTERNS = ["*.parquet", "*.md", "*.json"]
_NETWORK_MODULES = {"httpx", "httpx2", "httpcore", "requests", "urllib3", "huggingface_hub"}


@dataclass
class PushResult:
    repo: str
    tag: str
    commit: str
    url: str


def _token() -> str:
    from huggingface_hub import get_token

    token = os.environ.get("HF_TOKEN") or get_token()
    if not token:
        raise BiasforgeError(
            "no Hugging Face credentials: set HF_TOKEN (a write token) or run "
            "`huggingface-cli login`, then push again with `biasforge export push`"
        )
    return token


def push_release(release_dir: str | Path, repo: str, *, private: bool = False) -> PushResult:
    """Upload ``release_dir`` to the dataset repository ``repo`` and tag it with its version."""
    from huggingface_hub import HfApi

    from biasforge.exports.release import verify_release

    release_dir = Path(release_dir)
    manifest = verify_release(release_dir)
    version = str(manifest["version"])
    api = HfApi(token=_token())
    later = (
        f"the local release at {release_dir} is complete; push it later with "
        f"`biasforge export push {release_dir} --repo {repo}`"
    )
    try:
        api.create_repo(repo, repo_type="dataset", private=private, exist_ok=True)
        existing = {t.name for t in api.list_repo_refs(repo, repo_type="dataset").tags}
        if version in existing:
            raise BiasforgeError(
                f"{repo} already has a tag {version}; releases are immutable ({later})"
            )
        commit = api.upload_folder(
            repo_id=repo,
            repo_type="dataset",
            folder_path=release_dir,
            commit_message=f"Release {manifest['name']} {version}",
            delete_patterns=_RELEASE_PATTERNS,
        )
        api.create_tag(
            repo,
            repo_type="dataset",
            tag=version,
            revision=commit.oid,
            tag_message=f"{manifest['name']} {version}",
        )
    except BiasforgeError:
        raise
    except Exception as exc:
        # HTTP errors (HfHubHTTPError is an OSError), and network errors from the HTTP client
        # huggingface_hub uses (httpx in 1.x and later, requests before).
        module = type(exc).__module__.split(".")[0]
        if not isinstance(exc, OSError | ValueError) and module not in _NETWORK_MODULES:
            raise
        raise BiasforgeError(
            f"could not push to the Hub ({type(exc).__name__}: {str(exc)[:300]}); {later}"
        ) from exc
    return PushResult(repo=repo, tag=version, commit=commit.oid, url=commit.commit_url)
