"""Bad input across the four command groups: exit 2, one ``error:`` line naming the file,
record or option, no traceback, and every file that existed before is untouched.

Each case builds its inputs in a fresh folder from good artefacts (``good`` fixture), runs the
real ``biasforge`` command in a subprocess and compares a snapshot of the folder before and
after. Usage errors that typer reports itself (unknown option, bad choice) exit 2 with a
"Usage" box, which is checked the same way.
"""

from __future__ import annotations

import json
import socket
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.conftest import run_cli
from tests.helpers import edit_manifest, remanifest, snapshot
from tests.robustness.conftest import copy_of

Args = list[object]


@dataclass(frozen=True)
class Case:
    id: str
    make: Callable[[Path, dict], Args]  # (folder, good artefacts) -> command line
    expect: str  # what the error line must say (names the file, record or option)


def _file(folder: Path, name: str, content: bytes | str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return path


def _edit_run(folder: Path, good: dict, edit: Callable[[pa.Table], pa.Table]) -> Path:
    run = copy_of(good["becpro_run"], folder / "run")
    table = edit(pq.read_table(run / "candidates.parquet"))
    pq.write_table(table, run / "candidates.parquet")
    remanifest(run)
    return run


def _set_column(table: pa.Table, name: str, values: list) -> pa.Table:
    return table.set_column(table.schema.get_field_index(name), name, pa.array(values))


def _with_column(folder: Path, good: dict, name: str, value: object) -> Path:
    """A copy of the good run whose column ``name`` holds ``value`` in every row."""
    return _edit_run(folder, good, lambda t: _set_column(t, name, [value] * t.num_rows))


def _edit_manifest(folder: Path, good: dict, edit: Callable[[dict], object]) -> Path:
    return edit_manifest(copy_of(good["becpro_run"], folder / "run"), edit)


def _becpro(lang: str, *extra: object) -> Args:
    return ["curate", "becpro", "--lang", lang, *extra]


def _annotate(folder: Path, *args: object) -> Args:
    return ["annotate", *args, "--data-dir", folder / "argilla"]


def _release(
    run: Path,
    folder: Path,
    *extra: object,
    name: str = "b",
    version: str = "2.0.0",
    unreviewed: bool = True,
    out: Path | None = None,
) -> Args:
    return ["export", "release", run, "--name", name, "--version", version,
            *(["--unreviewed"] if unreviewed else []), "--out", out or folder / "rel", *extra]  # fmt: skip


def _convert(source: object, format: str, out: Path) -> Args:
    return ["export", "convert", source, "--format", format, "--out", out]


def _score(
    folder: Path,
    good: dict,
    *extra: object,
    family: str = "becpro",
    out: Path | None = None,
    dataset: object = None,
    model: object = None,
) -> Args:
    return ["score", family, "--dataset", dataset or good["becpro_release"],
            "--model", model or good["masked_model"], "--out", out or folder / "scores", *extra]  # fmt: skip


def _stereoset(folder: Path, *extra: object, dry_run: bool = True) -> Args:
    """``curate stereoset``, by default a dry run (it stops before translating)."""
    return ["curate", "stereoset", "--out", folder / "ss", *extra, *(["--dry-run"] * dry_run)]


def _slguset(folder: Path, *extra: object) -> Args:
    return ["curate", "slguset", "--out", folder / "slg", *extra]


def _slguset_lexicon(folder: Path, name: str, extra: bytes | None) -> Path:
    """A copy of the bundled SlguSet lexicon with ``extra`` appended to ``name`` (None: the
    file is removed)."""
    from biasforge.curation.slguset.lexicon import DEFAULT_DIR

    lexicon = copy_of(DEFAULT_DIR, folder / "lex")
    if extra is None:
        (lexicon / name).unlink()
    else:
        (lexicon / name).write_bytes((lexicon / name).read_bytes() + extra)
    return lexicon


CURATE = [
    Case(
        "becpro-unknown-language",
        lambda d, g: ["curate", "becpro", "--lang", "xx", "--out", d / "r"],
        "unknown language 'xx'",
    ),
    Case(
        "becpro-unknown-variant",
        lambda d, g: ["curate", "becpro", "--lang", "es", "--variant", "x", "--out", d / "r"],
        "variant 'x'",
    ),
    Case(
        "becpro-missing-lexicon",
        lambda d, g: _becpro("en", "--lexicon", d / "nope", "--out", d / "r"),
        "nope",
    ),
    Case(
        "becpro-lexicon-is-a-file",
        lambda d, g: _becpro("en", "--lexicon", _file(d, "lex", "x"), "--out", d / "r"),
        "lex",
    ),
    Case(
        "becpro-out-is-a-file",
        lambda d, g: _becpro("en", "--out", _file(d, "f.txt", "mine"), "--overwrite"),
        "f.txt",
    ),
    Case(
        "becpro-out-holds-users-file",
        lambda d, g: _becpro("en", "--out", _file(d, "mine/thesis.txt", "t").parent, "--overwrite"),
        "thesis.txt",
    ),
    Case(
        "becpro-out-exists",
        lambda d, g: _becpro("en", "--out", copy_of(g["becpro_run"], d / "run")),
        "already exists",
    ),
    Case(
        "becpro-out-unwritable",
        lambda d, g: ["curate", "becpro", "--lang", "en", "--out", "/proc/biasforge-run"],
        "/proc",
    ),
    Case(
        "stereoset-missing-source",
        lambda d, g: _stereoset(d, "--source", d / "none.json"),
        "none.json",
    ),
    Case(
        "stereoset-garbage-source",
        lambda d, g: _stereoset(d, "--source", _file(d, "s.json", "{not json")),
        "s.json",
    ),
    Case(
        "stereoset-sentences-a-number",
        lambda d, g: _stereoset(
            d,
            "--source",
            _file(
                d,
                "s.json",
                json.dumps(
                    {
                        "version": "1",
                        "data": {
                            "intrasentence": [
                                {
                                    "id": "a",
                                    "target": "t",
                                    "bias_type": "gender",
                                    "context": "A BLANK.",
                                    "sentences": 3,
                                }
                            ],
                            "intersentence": [],
                        },
                    }
                ),
            ),
        ),
        "s.json",
    ),
    Case("stereoset-negative-limit", lambda d, g: _stereoset(d, "--limit", "-5"), "--limit"),
    Case(
        "stereoset-memory-is-a-folder",
        lambda d, g: _stereoset(d, "--memory", _file(d, "mem/x", "").parent),
        "mem",
    ),
    Case(
        "stereoset-memory-not-a-database",
        lambda d, g: _stereoset(d, "--memory", _file(d, "mem.sqlite", b"\x00garbage" * 100)),
        "mem.sqlite",
    ),
    Case(
        "stereoset-missing-glossary",
        lambda d, g: _stereoset(d, "--glossary", d / "g.tsv"),
        "g.tsv",
    ),
    Case(
        "stereoset-missing-synonyms",
        lambda d, g: _stereoset(d, "--synonyms", d / "syn.tsv"),
        "syn.tsv",
    ),
    Case(
        "stereoset-missing-lexicon",
        lambda d, g: _stereoset(d, "--lexicon", d / "lex.tsv"),
        "lex.tsv",
    ),
    Case(
        "stereoset-unknown-translator",
        lambda d, g: _stereoset(d, "--translator", "babelfish", dry_run=False),
        "babelfish",
    ),
    Case("stereoset-no-key", lambda d, g: _stereoset(d, dry_run=False), "DEEPL_AUTH_KEY"),
    Case(
        "stereoset-bad-glossary-line",
        lambda d, g: _stereoset(d, "--glossary", _file(d, "g.tsv", "source\ttarget\nengineer\n")),
        "g.tsv:2",
    ),
    Case(
        "stereoset-bad-lexicon-line",
        lambda d, g: _stereoset(
            d, "--lexicon", _file(d, "lex.tsv", "lang\tword\trenderings\tsuggestion\nfr\tnurse\n")
        ),
        "lex.tsv:2",
    ),
    Case(
        "stereoset-memory-of-another-program",
        lambda d, g: _stereoset(d, "--memory", _foreign_database(d / "app.db")),
        "app.db: is an SQLite database of another program",
    ),
    Case(
        "stereoset-memory-under-a-file",
        lambda d, g: _stereoset(d, "--memory", _file(d, "f.txt", "x") / "tm.sqlite"),
        "f.txt",
    ),
    Case(
        "stereoset-server-url-not-http-hides-password",
        lambda d, g: _stereoset(d, "--server-url", "ftp://me:S3cret@host"),
        "--server-url / DEEPL_SERVER_URL 'ftp://host'",
    ),
    Case(
        "stereoset-server-url-bad-port-hides-password",
        lambda d, g: _stereoset(d, "--server-url", "http://me:S3cret@host:port"),
        "'http://host:port': the port is not a number",
    ),
    Case(
        "stereoset-sentences-not-objects",
        lambda d, g: _stereoset(d, "--source", _official(d, ["a", "b", "c"])),
        "s.json (record a)",
    ),
    Case("stereoset-zero-retries", lambda d, g: _stereoset(d, "--retries", "0"), "--retries"),
    Case(
        "stereoset-negative-price",
        lambda d, g: _stereoset(d, "--price-per-million", "-1"),
        "--price-per-million",
    ),
    Case(
        "slguset-missing-corpus", lambda d, g: _slguset(d, "--corpus", d / "none.txt"), "none.txt"
    ),
    Case("slguset-zero-processes", lambda d, g: _slguset(d, "--num-proc", "0"), "--num-proc"),
    Case(
        "slguset-unknown-encoding",
        lambda d, g: _slguset(
            d, "--corpus", _file(d, "c.txt", "他来了。"), "--encoding", "klingon"
        ),
        "klingon",
    ),
    Case("slguset-unknown-tagger", lambda d, g: _slguset(d, "--tagger", "psychic"), "psychic"),
    Case(
        "slguset-missing-name-eval",
        lambda d, g: _slguset(d, "--name-eval", d / "gold.jsonl"),
        "gold.jsonl",
    ),
    Case(
        "slguset-undecodable-corpus",
        lambda d, g: _slguset(d, "--corpus", _file(d, "c.txt", b"\xff\xfe\xfa bad bytes\n")),
        "c.txt",
    ),
    Case(
        "slguset-gold-not-utf8",
        lambda d, g: _slguset(d, "--name-eval", _file(d, "gold.jsonl", b"\xff\xfe{}\n")),
        "gold.jsonl:1",
    ),
    Case(
        "slguset-gold-not-records",
        lambda d, g: _slguset(
            d,
            "--name-eval",
            _file(d, "gold.jsonl", '{"id": 1, "text": "x", "person_names": []}\n[1, 2]\n'),
        ),
        "gold.jsonl:2",
    ),
    Case(
        "slguset-lexicon-not-utf8",
        lambda d, g: _slguset(
            d, "--lexicon", _slguset_lexicon(d, "gender_pairs.tsv", "他\t她\n".encode("gbk"))
        ),
        "gender_pairs.tsv:",
    ),
    Case(
        "slguset-lexicon-bad-collective-decision",
        lambda d, g: _slguset(
            d,
            "--lexicon",
            _slguset_lexicon(d, "collective_forms.tsv", "他们\tdrop\twhy\n".encode()),
        ),
        "collective_forms.tsv:",
    ),
    Case(
        "slguset-lexicon-missing-pairs",
        lambda d, g: _slguset(d, "--lexicon", _slguset_lexicon(d, "gender_pairs.tsv", None)),
        "gender_pairs.tsv",
    ),
    Case(
        "slguset-corrupt-gzip-corpus",
        lambda d, g: _slguset(d, "--corpus", _file(d, "c.txt.gz", b"not gzip\n")),
        "c.txt.gz:1",
    ),
]

ANNOTATE = [
    Case(
        "push-missing-run",
        lambda d, g: _annotate(d, "push", d / "none", "--dataset", "x"),
        "none",
    ),
    Case(
        "push-no-server",
        lambda d, g: _annotate(d, "push", g["becpro_run"], "--dataset", "x"),
        "server",
    ),
    Case(
        "pull-no-server",
        lambda d, g: _annotate(d, "pull", "--dataset", "x", "--out", d / "o"),
        "server",
    ),
    Case("agreement-no-server", lambda d, g: _annotate(d, "agreement", "--dataset", "x"), "server"),
    Case(
        "pull-unknown-policy",
        lambda d, g: _annotate(
            d, "pull", "--dataset", "x", "--out", d / "o", "--policy", "dictator"
        ),
        "dictator",
    ),
    Case("users-no-server", lambda d, g: _annotate(d, "users", "ann1"), "server"),
    Case("serve-port-too-large", lambda d, g: _annotate(d, "serve", "--port", "70000"), "--port"),
    Case("serve-port-negative", lambda d, g: _annotate(d, "serve", "--port", "-1"), "--port"),
    Case("serve-port-not-a-number", lambda d, g: _annotate(d, "serve", "--port", "http"), "--port"),
    Case(
        "serve-background-port-in-use",
        lambda d, g: _serve_background(d, _busy_port()),
        "is in use; choose another with --port",
    ),
    Case(
        "push-min-submitted-zero",
        lambda d, g: _annotate(
            d, "push", g["becpro_run"], "--dataset", "x", "--min-submitted", "0"
        ),
        "--min-submitted",
    ),
]

EXPORT = [
    Case(
        "release-no-inputs",
        lambda d, g: ["export", "release", "--name", "b", "--version", "1.0.0", "--out", d / "rel"],
        "sources",
    ),
    Case("release-bad-version", lambda d, g: _release(g["becpro_run"], d, version="1.0"), "1.0"),
    Case(
        "release-bad-name",
        lambda d, g: _release(g["becpro_run"], d, name="a b", version="1.0.0"),
        "'a b'",
    ),
    Case("release-not-a-run", lambda d, g: _release(_file(d, "x/notes.txt", "x").parent, d), "x"),
    Case(
        "release-run-without-unreviewed",
        lambda d, g: _release(g["becpro_run"], d, version="1.0.0", unreviewed=False),
        "--unreviewed",
    ),
    Case(
        "release-tampered-candidates", lambda d, g: _release(_tampered(d, g), d), "checksum differs"
    ),
    Case(
        "release-manifest-empty-files",
        lambda d, g: _release(_edit_manifest(d, g, lambda m: m.__setitem__("files", {})), d),
        "lists no files",
    ),
    Case(
        "release-manifest-incomplete",
        lambda d, g: _release(
            _edit_manifest(d, g, lambda m: m["files"].pop("candidates.parquet")), d
        ),
        "candidates.parquet",
    ),
    Case(
        "release-manifest-missing",
        lambda d, g: _release(_without(copy_of(g["becpro_run"], d / "run"), "manifest.json"), d),
        "manifest.json is missing",
    ),
    Case(
        "release-manifest-a-list",
        lambda d, g: _release(
            _write(copy_of(g["becpro_run"], d / "run"), "manifest.json", "[]"), d
        ),
        "expected a JSON object",
    ),
    Case(
        "release-manifest-truncated",
        lambda d, g: _release(
            _write(copy_of(g["becpro_run"], d / "run"), "manifest.json", '{"files": {"a'), d
        ),
        "not valid JSON",
    ),
    Case(
        "release-manifest-files-a-list",
        lambda d, g: _release(
            _edit_manifest(d, g, lambda m: m.__setitem__("files", ["candidates.parquet"])), d
        ),
        "lists no files",
    ),
    Case(
        "release-wrong-gender",
        lambda d, g: _release(_with_column(d, g, "gender", "robot"), d),
        "column gender",
    ),
    Case(
        "release-wrong-type",
        lambda d, g: _release(_with_column(d, g, "pct_women", "0.5"), d),
        "column pct_women",
    ),
    Case(
        "release-empty-sentence",
        lambda d, g: _release(_with_column(d, g, "sentence", ""), d),
        "column sentence",
    ),
    Case(
        "release-duplicate-ids",
        lambda d, g: _release(_with_column(d, g, "id", "same"), d),
        "duplicate id",
    ),
    Case(
        "release-missing-column",
        lambda d, g: _release(_edit_run(d, g, lambda t: t.drop_columns(["gender"])), d),
        "gender",
    ),
    Case(
        "release-unknown-family",
        lambda d, g: _release(_with_column(d, g, "family", "crowspairs"), d),
        "crowspairs",
    ),
    Case(
        "release-garbage-parquet",
        lambda d, g: _release(_garbage_candidates(d, g), d),
        "candidates.parquet",
    ),
    Case(
        "release-out-is-a-file",
        lambda d, g: _release(g["becpro_run"], d, version="1.0.0", out=_file(d, "rel", "x")),
        "rel",
    ),
    Case(
        "release-exists",
        lambda d, g: _release(
            g["becpro_run"],
            d,
            name="becpro",
            version="1.0.0",
            out=copy_of(g["becpro_release"].parent.parent, d / "releases"),
        ),
        "already exists",
    ),
    Case(
        "release-all-pending", lambda d, g: _release(_all_pending(d, g), d), "no accepted records"
    ),
    Case(
        "convert-garbage-parquet",
        lambda d, g: _convert(_file(d, "x.parquet", b"PAR1 not really"), "becpro-tsv", d / "o.tsv"),
        "x.parquet",
    ),
    Case(
        "convert-out-exists",
        lambda d, g: _convert(g["becpro_run"], "becpro-tsv", _file(d, "o.tsv", "mine")),
        "o.tsv",
    ),
    Case(
        "convert-out-is-a-folder",
        lambda d, g: _convert(g["becpro_run"], "becpro-tsv", _file(d, "o/x", "").parent),
        "--out",
    ),
    Case(
        "convert-stereoset-json-of-becpro",
        lambda d, g: _convert(g["becpro_run"], "stereoset-json", d / "o.json"),
        "becpro items do not convert to stereoset-json",  # the family lists its formats
    ),
    Case(
        "convert-crows-of-becpro",
        lambda d, g: _convert(g["becpro_run"], "crows-csv", d / "o.csv"),
        "crows-csv",
    ),
    Case(
        "convert-missing-source",
        lambda d, g: _convert(d / "none", "becpro-tsv", d / "o.tsv"),
        "none",
    ),
    Case(
        "convert-unknown-format",
        lambda d, g: _convert(g["becpro_run"], "xlsx", d / "o.x"),
        "--format",
    ),
    Case(
        "convert-tampered-release",
        lambda d, g: _convert(_tampered_release(d, g), "becpro-tsv", d / "o.tsv"),
        "checksum differs",
    ),
]

SCORE = [
    Case(
        "score-missing-dataset",
        lambda d, g: _score(d, g, dataset=d / "none", out=d / "s"),
        "none",
    ),
    Case("score-wrong-family", lambda d, g: _score(d, g, family="stereoset"), "stereoset"),
    Case(
        "score-missing-model",
        lambda d, g: _score(d, g, model=d / "no-model", out=d / "s"),
        "no-model",
    ),
    Case(
        "score-corrupt-weights",
        lambda d, g: _score(d, g, model=_corrupt_model(d, g), out=d / "s"),
        "model",
    ),
    Case("score-cuda-on-cpu", lambda d, g: _score(d, g, "--device", "cuda"), "cuda"),
    Case("score-unknown-dtype", lambda d, g: _score(d, g, "--dtype", "float8"), "--dtype"),
    Case("score-unknown-kind", lambda d, g: _score(d, g, "--kind", "telepathic"), "telepathic"),
    Case("score-negative-limit", lambda d, g: _score(d, g, "--limit", "-5"), "--limit"),
    Case(
        "score-wrong-values",
        lambda d, g: _score(
            d,
            g,
            out=d / "s",
            dataset=_with_column(d, g, "gender", "robot") / "candidates.parquet",
        ),
        "column gender",
    ),
    Case(
        "score-garbage-parquet",
        lambda d, g: _score(d, g, dataset=_file(d, "x.parquet", b"junk"), out=d / "s"),
        "x.parquet",
    ),
    Case(
        "score-out-holds-users-file",
        lambda d, g: _score(d, g, "--overwrite", out=_file(d, "scores/mine.txt", "x").parent),
        "mine.txt",
    ),
]


def _official(folder: Path, sentences: object) -> Path:
    """An official-layout StereoSet JSON with one intrasentence item holding ``sentences``."""
    item = {"id": "a", "target": "t", "bias_type": "gender", "context": "A BLANK."}
    data = {"intrasentence": [{**item, "sentences": sentences}], "intersentence": []}
    return _file(folder, "s.json", json.dumps({"version": "1", "data": data}))


def _foreign_database(path: Path) -> Path:
    """An SQLite database of another program (it must not become a translation memory)."""
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE records (id TEXT)")
    db.close()
    return path


_HELD: list[socket.socket] = []  # listening sockets kept open while the suite runs


def _serve_background(folder: Path, port: int) -> Args:
    return ["annotate", "serve", "--background", "--port", port, "--data-dir", folder / "a"]


def _busy_port() -> int:
    """A port on 127.0.0.1 where something already listens."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    _HELD.append(sock)
    return sock.getsockname()[1]


def _tampered(folder: Path, good: dict) -> Path:
    run = copy_of(good["becpro_run"], folder / "run")
    with (run / "candidates.parquet").open("ab") as handle:
        handle.write(b"x")
    return run


def _tampered_release(folder: Path, good: dict) -> Path:
    release = copy_of(good["becpro_release"], folder / "release")
    with (release / "README.md").open("a") as handle:
        handle.write("edited")
    return release


def _without(folder: Path, name: str) -> Path:
    (folder / name).unlink()
    return folder


def _write(folder: Path, name: str, text: str) -> Path:
    (folder / name).write_text(text)
    return folder


def _garbage_candidates(folder: Path, good: dict) -> Path:
    run = copy_of(good["becpro_run"], folder / "run")
    (run / "candidates.parquet").write_bytes(b"garbage")
    remanifest(run)
    return run


def _all_pending(folder: Path, good: dict) -> Path:
    from biasforge.contract.manifest import write_manifest

    out = folder / "reviewed"
    out.mkdir()
    table = pq.read_table(good["becpro_run"] / "candidates.parquet").slice(0, 5)
    table = table.append_column("decision", pa.array(["pending"] * 5))
    pq.write_table(table, out / "reviewed.parquet")
    write_manifest(out, "reviewed", dataset="x")
    return out


def _corrupt_model(folder: Path, good: dict) -> Path:
    model = copy_of(good["masked_model"], folder / "model")
    for weights in model.glob("*.safetensors"):
        weights.write_bytes(weights.read_bytes()[:100])
    return model


CASES = CURATE + ANNOTATE + EXPORT + SCORE


def test_the_suite_covers_sixty_distinct_cases():
    assert len({c.id for c in CASES}) == len(CASES) >= 60


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_clear_line(case: Case, tmp_path: Path, good: dict):
    args = case.make(tmp_path, good)
    before = snapshot(tmp_path, hidden=False)
    result = run_cli(*args, check=False)
    assert result.returncode == 2, f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"
    assert "Traceback" not in result.stderr, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    usage = "Usage:" in result.stderr  # typer's own usage errors name the option in a box
    assert len(errors) == 1 or usage, result.stderr
    said = errors[0] if errors else result.stderr
    assert case.expect in said, said
    assert snapshot(tmp_path, hidden=False) == before, "files that existed before were changed"
