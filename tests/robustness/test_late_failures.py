"""Issue 37, item 7: late failures and silent acceptances become one line where the bad input
enters — duplicate CrowS-Pairs ids at curation, stray quotes in every table, dataset names by
the workspace rule, a run that release would refuse at push, an edited manifest family, a
licence that is no SPDX id — and killed releases leave no staging folders behind."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from biasforge.annotation.client.connection import Connection
from biasforge.annotation.review.pull import pull
from biasforge.annotation.review.push import push_candidates
from biasforge.curation.slguset.lexicon import DEFAULT_DIR as SLGUSET_LEXICON
from biasforge.errors import BiasforgeError
from tests.conftest import one_error_line, run_cli
from tests.helpers import remanifest

NO_SERVER = {"ARGILLA_API_URL": "http://127.0.0.1:9", "ARGILLA_API_KEY": "none"}
NO_KEY = {"DEEPL_AUTH_KEY": "", "DEEPL_SERVER_URL": ""}


@pytest.fixture(scope="module")
def becpro_run(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("becpro") / "run"
    run_cli("curate", "becpro", "--lang", "en", "--out", run)
    return run


def _copy(run: Path, folder: Path) -> Path:
    return Path(shutil.copytree(run, folder / "run"))


# ------------------------------------------------------------------ CrowS-Pairs ids


def test_duplicate_crowspairs_ids_are_refused_at_curation(tmp_path: Path):
    source = tmp_path / "cp.tsv"
    source.write_text(
        "id\tsent_more\tsent_less\tstereo_antistereo\tbias_type\n"
        "7\tHe cried.\tShe cried.\tstereo\tgender\n"
        "8\tHe ran.\tShe ran.\tstereo\tgender\n"
        "7\tHe sang.\tShe sang.\tstereo\tgender\n",
        encoding="utf-8",
    )
    result = run_cli("curate", "crowspairs", "--lang", "en", "--source", source,
                     "--out", tmp_path / "run", check=False)  # fmt: skip
    assert "cp.tsv:4: id '7' is already on line 2" in one_error_line(result)
    assert not (tmp_path / "run").exists()


# ------------------------------------------------------------------ stray quotes


def _group_words(folder: Path) -> tuple[list, str]:
    words = folder / "gw.tsv"
    words.write_text('bias_type\twords\ngender\the "she\n', encoding="utf-8")
    return ["curate", "crowspairs", "--lang", "en", "--group-words", words,
            "--out", folder / "run"], "gw.tsv:2:"  # fmt: skip


def _glossary(folder: Path, text: str, line: int) -> tuple[list, str]:
    glossary = folder / "g.tsv"
    glossary.write_text(text, encoding="utf-8")
    return ["curate", "stereoset", "--glossary", glossary, "--dry-run",
            "--out", folder / "run"], f"g.tsv:{line}:"  # fmt: skip


def _gender_pairs(folder: Path) -> tuple[list, str]:
    lexicon = Path(shutil.copytree(SLGUSET_LEXICON, folder / "lex"))
    pairs = lexicon / "gender_pairs.tsv"
    data = pairs.read_bytes().rstrip(b"\n")
    pairs.write_bytes(data + '\n舅/姨\t舅舅\t姨妈\tuncle "and aunt\n'.encode())
    line = data.count(b"\n") + 2
    return ["curate", "slguset", "--lexicon", lexicon,
            "--out", folder / "run"], f"gender_pairs.tsv:{line}:"  # fmt: skip


@pytest.mark.parametrize(
    "make",
    [
        _group_words,
        lambda d: _glossary(d, 'source\ttarget\n"nurse\tinfirmière\n', 2),
        lambda d: _glossary(d, 'source\t"target\nnurse\tinfirmière\n', 1),
        _gender_pairs,
    ],
    ids=["group-words", "glossary-entry", "glossary-header", "slguset-gender-pairs"],
)
def test_a_stray_quote_is_refused_with_file_and_line(tmp_path: Path, make):
    args, where = make(tmp_path)
    line = one_error_line(run_cli(*args, check=False, env=NO_KEY))
    assert where in line and "unbalanced double quote" in line, line
    assert not (tmp_path / "run").exists()


# ------------------------------------------------------------------ dataset names


@pytest.mark.parametrize("name", ["数据集", "a/b", "..", "dot.ted", "a b"])
@pytest.mark.parametrize("command", ["push", "pull", "agreement"])
def test_a_dataset_name_outside_the_workspace_rule_is_one_line(
    becpro_run: Path, tmp_path: Path, command: str, name: str
):
    args = {
        "push": [becpro_run],
        "pull": ["--out", tmp_path / "out"],
        "agreement": [],
    }[command]
    result = run_cli("annotate", command, *args, "--dataset", name, check=False, env=NO_SERVER)
    line = one_error_line(result)
    assert f"--dataset {name!r}: use letters, digits, '-' and '_' only" in line, line
    assert not (tmp_path / "out").exists()


def test_the_api_checks_dataset_names_too(tmp_path: Path):
    connection = Connection("http://127.0.0.1:9", "none", "ws", False)
    with pytest.raises(BiasforgeError, match="--dataset 'a/b'"):
        push_candidates(pd.DataFrame({"id": ["1"], "family": ["becpro"]}), "a/b", connection)
    with pytest.raises(BiasforgeError, match=r"--dataset '\.\.'"):
        pull("..", tmp_path / "out", connection)


# ------------------------------------------------------------------ push = release's check


def test_push_refuses_a_run_that_release_refuses(becpro_run: Path, tmp_path: Path):
    run = _copy(becpro_run, tmp_path)
    table = pq.read_table(run / "candidates.parquet")
    gender = table.column("gender").to_pylist()
    gender[3] = "robot"
    column = table.schema.get_field_index("gender")
    pq.write_table(table.set_column(column, "gender", pa.array(gender)), run / "candidates.parquet")
    remanifest(run)  # checksums agree: only the contract check can see it
    record = table.column("id")[3].as_py()
    pushed = one_error_line(
        run_cli("annotate", "push", run, "--dataset", "x", check=False, env=NO_SERVER)
    )
    release = ["export", "release", run, "--name", "n", "--version", "1.0.0", "--unreviewed",
               "--out", tmp_path / "rel"]  # fmt: skip
    released = one_error_line(run_cli(*release, check=False))
    assert f"candidates.parquet (record {record}): column gender:" in pushed
    assert "'robot'" in pushed
    violation = released.split(f"(record {record}): ", 1)[1]
    assert pushed.endswith(violation)


# ------------------------------------------------------------------ edited manifest family


def test_an_edited_manifest_family_is_refused(becpro_run: Path, tmp_path: Path):
    run = _copy(becpro_run, tmp_path)
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    manifest["family"] = "stereoset"
    (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    for args in (
        ["export", "release", run, "--name", "n", "--version", "1.0.0", "--unreviewed",
         "--out", tmp_path / "rel"],
        ["export", "convert", run, "--format", "becpro-tsv", "--out", tmp_path / "b.tsv"],
        ["annotate", "push", run, "--dataset", "x"],
    ):  # fmt: skip
        line = one_error_line(run_cli(*args, check=False, env=NO_SERVER))
        assert "manifest.json: names family 'stereoset', but the records are 'becpro'" in line


def test_an_edited_release_family_is_refused(becpro_run: Path, tmp_path: Path):
    releases = tmp_path / "rel"
    run_cli("export", "release", becpro_run, "--name", "n", "--version", "1.0.0",
            "--unreviewed", "--out", releases)  # fmt: skip
    release = releases / "n" / "1.0.0"
    manifest = json.loads((release / "manifest.json").read_text(encoding="utf-8"))
    manifest["family"] = "crowspairs"
    (release / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    result = run_cli("export", "convert", release, "--format", "becpro-tsv",
                     "--out", tmp_path / "b.tsv", check=False)  # fmt: skip
    assert "names family 'crowspairs', but the records are 'becpro'" in one_error_line(result)


# ------------------------------------------------------------------ licences


@pytest.mark.parametrize(
    ("licence", "why"),
    [
        ("not a licence", "not an SPDX licence id"),
        ("cc-by-sa", "not an SPDX licence id"),
        ("MIT OR Apache-2.0", "an expression of several licences"),
    ],
)
def test_a_licence_that_is_no_spdx_id_is_one_line(becpro_run, tmp_path, licence, why):
    result = run_cli("export", "release", becpro_run, "--name", "n", "--version", "1.0.0",
                     "--unreviewed", "--license", licence, "--out", tmp_path / "rel",
                     check=False)  # fmt: skip
    assert one_error_line(result).startswith(f"error: --license {licence!r}: {why}")
    assert not (tmp_path / "rel").exists()


def test_an_spdx_licence_goes_into_the_card(becpro_run: Path, tmp_path: Path):
    run_cli("export", "release", becpro_run, "--name", "n", "--version", "1.0.0",
            "--unreviewed", "--license", "cc-by-nc-4.0", "--out", tmp_path / "rel")  # fmt: skip
    card = (tmp_path / "rel" / "n" / "1.0.0" / "README.md").read_text(encoding="utf-8")
    assert "\nlicense: cc-by-nc-4.0\n" in card


# ------------------------------------------------------------------ killed releases


def _kill_midway(args: list, staging_glob: str, folder: Path) -> None:
    exe = os.path.join(os.path.dirname(sys.executable), "biasforge")
    proc = subprocess.Popen([exe, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline, staging = time.monotonic() + 60, []
    while time.monotonic() < deadline and proc.poll() is None and not staging:
        staging = list(folder.glob(staging_glob)) if folder.is_dir() else []
        time.sleep(0.01)
    assert staging, "the release finished before it could be killed: make the input larger"
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)


def test_the_next_release_of_any_version_cleans_what_killed_ones_left(tmp_path: Path):
    runs = []
    for lang in ("es", "eu"):
        runs.append(tmp_path / lang)
        run_cli("curate", "becpro", "--lang", lang, "--out", runs[-1])
    releases = tmp_path / "releases"
    common = ["export", "release", *runs, "--name", "b", "--unreviewed", "--out", releases]
    _kill_midway([*common, "--version", "1.0.0"], ".1.0.0.partial-*", releases / "b")
    # a writer still at work on another version: its staging folder must stay
    live = releases / "b" / f".0.9.0.partial-{os.getpid()}@{_host()}-live"
    live.mkdir()
    run_cli(*common, "--version", "1.1.0")
    left = sorted(p.name for p in (releases / "b").iterdir())
    assert left == [live.name, "1.1.0"]


def _host() -> str:
    from biasforge.files import _host

    return _host()
