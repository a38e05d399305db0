"""`--push-to-hub`: the local release is written first; the Hub gets exactly it, tagged."""

from __future__ import annotations

import socket

import pytest

from biasforge.exports.release import verify_release
from tests.conftest import run_cli
from tests.exports.builders import write_reviewed
from tests.exports.fake_hub import FakeHub


@pytest.fixture()
def small_reviewed(tmp_path, stereoset_candidates):
    def make(name: str, n: int):
        table = stereoset_candidates.slice(0, n)
        return write_reviewed(tmp_path / name, table, ["accept"] * n)

    return make


@pytest.fixture(autouse=True)
def hf_home(tmp_path, monkeypatch):
    """An empty Hugging Face home: no stored token, no cache shared with the user's."""
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))


def hub_cli(*args, **kwargs):
    """``run_cli`` in a process of its own: huggingface_hub reads ``HF_ENDPOINT`` and
    ``HF_HUB_OFFLINE`` once, when first imported, so a command talking to the fake Hub needs
    its own interpreter."""
    return run_cli(*args, process=True, **kwargs)


def _online(endpoint: str, token: str | None = "hf_test_token") -> dict[str, str]:
    env = {"HF_HUB_OFFLINE": "0", "HF_ENDPOINT": endpoint}
    env["HF_TOKEN"] = token or ""
    return env


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_push_uploads_exactly_the_release_and_tags_it(small_reviewed, tmp_path):
    out = tmp_path / "releases"
    with FakeHub() as hub:
        first = hub_cli(
            "export", "release", small_reviewed("r1", 40), "--name", "ss", "--version", "1.0.0",
            "--out", out, "--push-to-hub", "org/x", env=_online(hub.url),
        )  # fmt: skip
        second = hub_cli(
            "export", "release", small_reviewed("r2", 10), "--name", "ss", "--version", "1.1.0",
            "--out", out, "--push-to-hub", "org/x", env=_online(hub.url),
        )  # fmt: skip
        again = hub_cli(
            "export", "push", out / "ss" / "1.1.0", "--repo", "org/x", env=_online(hub.url),
            check=False,
        )  # fmt: skip
    assert "pushed to org/x, tag 1.0.0" in first.stdout
    assert "pushed to org/x, tag 1.1.0" in second.stdout
    for version in ("1.0.0", "1.1.0"):
        local = out / "ss" / version
        want = {
            p.relative_to(local).as_posix(): p.read_bytes() for p in local.rglob("*") if p.is_file()
        }
        assert hub.state.tree_at_tag[version] == want  # the tag holds exactly that release
    assert list(hub.state.tags) == ["1.0.0", "1.1.0"]
    assert hub.state.tags["1.1.0"] == hub.state.commits[-1]
    assert "Bearer hf_test_token" in hub.state.authorizations
    assert again.returncode == 2 and "already has a tag 1.1.0" in again.stderr
    assert "hf_test_token" not in first.stdout + first.stderr  # the secret is never printed


def test_offline_push_fails_clearly_and_keeps_the_local_release(small_reviewed, tmp_path):
    out = tmp_path / "releases"
    result = hub_cli(
        "export", "release", small_reviewed("r1", 12), "--name", "ss", "--version", "1.0.0",
        "--out", out, "--push-to-hub", "org/x",
        env=_online(f"http://127.0.0.1:{_closed_port()}"), check=False,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert "could not push to the Hub" in result.stderr and "Traceback" not in result.stderr
    assert "biasforge export push" in result.stderr  # how to finish later
    assert "released ss 1.0.0" in result.stdout
    assert verify_release(out / "ss" / "1.0.0")["version"] == "1.0.0"  # complete and intact


def test_push_without_credentials(small_reviewed, tmp_path):
    out = tmp_path / "releases"
    result = hub_cli(
        "export", "release", small_reviewed("r1", 12), "--name", "ss", "--version", "1.0.0",
        "--out", out, "--push-to-hub", "org/x",
        env=_online(f"http://127.0.0.1:{_closed_port()}", token=None), check=False,
    )  # fmt: skip
    assert result.returncode == 2 and "no Hugging Face credentials" in result.stderr
    assert verify_release(out / "ss" / "1.0.0")
