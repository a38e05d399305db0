"""Fixtures shared by every test folder: an isolated BIASFORGE_HOME, a CLI runner, the shared
embedded server, and what the run builds once for every test process (tests/shared.py)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from tests.shared import Shared

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
pytest_plugins = ["tests.scheduling"]  # how the suite is spread over xdist workers
# Every server the tests start (the shared one, a module's own, a docs page's) runs one web
# process: more only cost start-up CPU where nobody answers at once. The tests of several web
# processes (tests/annotation/test_server_load.py) start theirs with the default count.
os.environ.setdefault("BIASFORGE_WEB_WORKERS", "1")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Many tests read the project's data and papers from ``../shared`` beside the checkout;
    without it they would fail one by one, so the run stops at once with one line saying why."""
    if not (SHARED / "data").is_dir():
        pytest.exit(
            f"the tests read the project's data from {SHARED}/data, which is missing: "
            "clone the repository beside the shared folder",
            returncode=2,
        )


@pytest.fixture(scope="session")
def browser():
    """Debian's chromium, headless, driven by Playwright (its own download is unreachable).

    One per test session: Playwright's sync API runs its own event loop, so two instances
    alive at once (a module's and a session's) refuse to start.
    """
    import shutil

    from playwright.sync_api import sync_playwright

    from tests.annotation.helpers import CHROMIUM, CHROMIUM_FLAGS

    if not shutil.which("chromium"):
        pytest.fail(
            "Debian chromium is required for the browser tests: apt-get install -y chromium"
        )
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield instance
        instance.close()


@pytest.fixture(autouse=True)
def biasforge_home(tmp_path_factory, monkeypatch) -> Path:
    """Per-test state folder, so no test reads or writes the developer's ~/.biasforge."""
    home = tmp_path_factory.mktemp("biasforge-home")
    monkeypatch.setenv("BIASFORGE_HOME", str(home))
    return home


@pytest.fixture(scope="session")
def shared(tmp_path_factory):
    """Folders built once per test run and read by every test process (tests/shared.py); at
    the end, any of them a test wrote into fails the run."""
    built = Shared(tmp_path_factory)
    yield built
    changed = built.changed()
    assert not changed, f"tests wrote into shared folders (copy them first): {changed}"


@pytest.fixture(scope="session")
def server_home(tmp_path_factory) -> Path:
    """BIASFORGE_HOME of the tests that use the shared server, from the first of them to the end
    of this test process (folders that need it override ``biasforge_home`` with it)."""
    home = tmp_path_factory.mktemp("biasforge-home")
    old = os.environ.get("BIASFORGE_HOME")
    os.environ["BIASFORGE_HOME"] = str(home)
    for key in ("ARGILLA_API_URL", "ARGILLA_API_KEY"):
        os.environ.pop(key, None)
    yield home
    if old is None:
        os.environ.pop("BIASFORGE_HOME", None)
    else:
        os.environ["BIASFORGE_HOME"] = old


@pytest.fixture(scope="session")
def server(server_home):
    """One real embedded Argilla server for every test of this test process that needs *a*
    server (unique dataset, user and workspace names per test; under xdist each worker has its
    own, used by one test at a time as in a serial run). Tests that kill, restart or configure a
    server start their own."""
    from biasforge.annotation.admin.serve import free_port
    from tests.server import ServerProcess

    proc = ServerProcess(server_home / "argilla", free_port())
    proc.start()
    yield proc
    if proc.running():
        proc.stop()


@pytest.fixture
def fake_deepl():
    """A fake DeepL server on 127.0.0.1 that the real ``deepl`` client talks to (tests/fake_deepl.py:
    the one allowed fake, DeepL being a paid remote API); one per test, so its counters are the
    test's own."""
    from tests.fake_deepl import FakeDeepL

    server = FakeDeepL().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def stereoset_fr_run(shared) -> Path:
    """``biasforge curate stereoset`` on the bundled 205-item sample (200 kept, 50 per
    domain), translated by the fake DeepL server (the one allowed fake: a paid remote API)."""
    from tests.fake_deepl import FakeDeepL

    def build(root: Path) -> None:
        fake = FakeDeepL().start()
        try:
            env = {"DEEPL_AUTH_KEY": fake.auth_key, "DEEPL_SERVER_URL": fake.url}
            run_cli("curate", "stereoset", "--out", root / "stereoset-fr", env=env)
        finally:
            fake.stop()

    return shared.folder("stereoset-fr", build) / "stereoset-fr"


@pytest.fixture(scope="session")
def crowspairs_en(shared) -> dict[str, Path]:
    """``biasforge curate crowspairs --lang en`` (the bundled 100-pair sample, untranslated)
    and its release ``crowspairs-en`` 0.1.0, made by the commands once per test run."""

    def build(root: Path) -> None:
        run_cli("curate", "crowspairs", "--lang", "en", "--out", root / "run")
        run_cli("export", "release", root / "run", "--name", "crowspairs-en", "--version",
                "0.1.0", "--out", root / "releases", "--unreviewed")  # fmt: skip

    root = shared.folder("crowspairs-en", build)
    return {"run": root / "run", "release": root / "releases" / "crowspairs-en" / "0.1.0"}


@pytest.fixture(scope="session")
def tiny_models(shared) -> dict[str, str]:
    """Paths of a tiny BERT (MLM + NSP head), GPT-2 and BART, saved like hub checkpoints."""
    from tests.models import build_tiny_models

    folder = shared.folder("tiny-models", build_tiny_models)
    return {kind: str(folder / name) for kind, name in TINY_MODELS.items()}


TINY_MODELS = {"masked": "tiny-bert", "causal": "tiny-gpt2", "seq2seq": "tiny-bart"}


@pytest.fixture(scope="session")
def bos_model(shared) -> str:
    """A tiny GPT-2-shaped model whose tokenizer starts every text with BOS."""
    from tests.models import build_bos_model

    return str(shared.folder("bos-model", build_bos_model) / "tiny-bos-gpt2")


def curated(shared, name: str, *args: str) -> Path:
    """``biasforge curate ARGS --out NAME``, run once per test run (read-only, copy to change)."""
    folder = shared.folder(name, lambda root: run_cli("curate", *args, "--out", root / name))
    return folder / name


#: the bundled BEC-Pro corpora, by name: their ``curate becpro`` options
BECPRO = {
    "en": ("--lang", "en"),
    "es-with_articles": ("--lang", "es", "--variant", "with_articles"),
    "es-without_articles": ("--lang", "es", "--variant", "without_articles"),
    "eu": ("--lang", "eu"),
    "de": ("--lang", "de"),
    "fr": ("--lang", "fr"),
}


def becpro(shared, name: str) -> Path:
    """The BEC-Pro run ``name`` of :data:`BECPRO`, curated once per test run."""
    return curated(shared, f"becpro-{name}", "becpro", *BECPRO[name])


@pytest.fixture(scope="session")
def becpro_runs(shared) -> dict[str, Path]:
    """The four BEC-Pro runs of the TFG (en, es with/without articles, eu)."""
    return {
        name: becpro(shared, name)
        for name in ("en", "es-with_articles", "es-without_articles", "eu")
    }


@pytest.fixture(scope="session")
def becpro_run(shared) -> Path:
    """A real BEC-Pro English run made by the curation command."""
    return becpro(shared, "en")


@pytest.fixture(scope="session")
def becpro_es_run(shared) -> Path:
    """A real Spanish BEC-Pro run (with articles); it holds the "repcionista" misprint of the
    TFG's Table B.1, flagged by the rules as a likely misprint of "recepcionista"."""
    return becpro(shared, "es-with_articles")


def curate_becpro_en(out: Path, *extra: object) -> subprocess.CompletedProcess:
    """``biasforge curate becpro --lang en --out OUT EXTRA``, its exit status left to the test."""
    return run_cli("curate", "becpro", "--lang", "en", "--out", out, *extra, check=False)


def write_unchecked_run(out: Path, rows: list[dict], family: str) -> Path:
    """A run directory holding ``rows`` as given, with a correct manifest but no value checks.

    ``write_run`` refuses invalid candidates, so this stands for a run edited by hand (or made
    by another tool) and re-manifested: what later stages must still refuse.
    """
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    from biasforge import families
    from biasforge.contract.manifest import write_manifest
    from biasforge.files import write_json_atomic

    arrow = families.get(family).schema.arrow
    frame = pd.DataFrame(rows)
    frame = frame.assign(**{n: None for n in arrow.names if n not in frame.columns})
    out.mkdir(parents=True)
    pq.write_table(
        pa.Table.from_pandas(frame, schema=arrow, preserve_index=False), out / "candidates.parquet"
    )
    rejected = arrow.append(pa.field("reasons", pa.list_(pa.string())))
    pq.write_table(rejected.empty_table(), out / "rejected.parquet")
    write_json_atomic(out / "stats.json", {"family": family, "kept": len(rows)})
    (out / "report.md").write_text("# hand-made run\n")
    write_manifest(out, "run", family=family, config={}, inputs=[])
    return out


def one_error_line(result: subprocess.CompletedProcess) -> str:
    """The single ``error:`` line of a refused command (exit 2, no traceback); progress bars
    that were drawn before the error may also be on stderr."""
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if "error" in line.lower()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]
