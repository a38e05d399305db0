"""Malformed files and options given to ``curate``: exit 2, one ``error:`` line naming the
file and line (and byte, for undecodable bytes) or the option, no traceback, nothing written.

And the other side of ``--encoding``: a latin-1 (or GB18030) file read with the right
``--encoding`` gives the same items as the UTF-8 file, for every family that reads user text.
Each case runs the real ``biasforge`` command in a subprocess, as a user would.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from biasforge.curation.becpro.lexicon import default_lexicon_dir
from biasforge.curation.crowspairs.source import BUNDLED_SAMPLE as CROWS_SAMPLE
from biasforge.curation.slguset.lexicon import DEFAULT_DIR as SLGUSET_LEXICON
from biasforge.curation.stereoset.source import BUNDLED_SAMPLE as STEREOSET_SAMPLE
from tests.conftest import run_cli
from tests.helpers import snapshot
from tests.robustness.conftest import copy_of

Args = list[object]
NO_KEY = {"DEEPL_AUTH_KEY": "", "DEEPL_SERVER_URL": ""}


@dataclass(frozen=True)
class Case:
    id: str
    make: Callable[[Path], tuple[Args, str]]  # folder -> (command line, what the line says)


def _write(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _crows_lines() -> list[bytes]:
    return CROWS_SAMPLE.read_bytes().split(b"\n")


def _crows(folder: Path, lines: list[bytes], *extra: object, lang: str = "en") -> Args:
    source = _write(folder, "cp.csv", b"\n".join(lines))
    return ["curate", "crowspairs", "--lang", lang, "--source", source,
            "--out", folder / "run", *extra]  # fmt: skip


def _bad_byte(folder: Path, line: int, lang: str) -> tuple[Args, str]:
    """The sample with one latin-1 'é' on ``line`` (1-based); the error must give its line
    and its byte offset in the file."""
    lines = _crows_lines()
    row = lines[line - 1]
    at = row.index(b",") + 3  # in the first sentence
    lines[line - 1] = row[:at] + b"\xe9" + row[at + 1 :]
    assert b"\xe9" in lines[line - 1]
    offset = b"\n".join(lines).index(b"\xe9")
    return _crows(folder, lines, lang=lang), f"cp.csv:{line}: not valid utf-8 at byte {offset} "


def _stray_quote(folder: Path) -> tuple[Args, str]:
    lines = _crows_lines()
    assert lines[2].startswith(b"15,Women")
    lines[2] = lines[2].replace(b"15,Women", b'15,"Women', 1)
    return _crows(folder, lines), "cp.csv:3: ',' expected after '\"'"


def _shifted_id(folder: Path) -> tuple[Args, str]:
    """A quote that opens the id field swallows the next field: the row would be kept with
    the id '2,His mind…' (the issue's case). The quote here closes before a comma, so the
    csv module's strict mode has nothing to say; the row's shape and id give it away."""
    header = b",sent_more,sent_less,stereo_antistereo,bias_type"
    row = b'"2,His mind wandered.",Her mind wandered.,stereo,gender'
    return _crows(folder, [header, row]), "cp.csv:2: 4 fields where the header has 5"


def _extra_field(folder: Path) -> tuple[Args, str]:
    header = b",sent_more,sent_less,stereo_antistereo,bias_type"
    rows = [b"1,He cried.,She cried.,stereo,gender", b"2,He ran.,She ran.,stereo,gender,x"]
    return _crows(folder, [header, *rows]), "cp.csv:3: 6 fields where the header has 5"


def _bad_id(folder: Path) -> tuple[Args, str]:
    header = b"id\tsent_more\tsent_less\tstereo_antistereo\tbias_type"
    row = b"2 His\tHe cried.\tShe cried.\tstereo\tgender"
    return _crows(folder, [header, row]), "cp.csv:2: id '2 His' is not an id"


def _group_words(folder: Path, extra: bytes) -> Path:
    source = _write(folder, "gw.tsv", b"bias_type\twords\ngender\the she\n" + extra)
    return source


def _becpro_lexicon(folder: Path, name: str, extra: bytes) -> tuple[Path, int]:
    """A copy of the bundled BEC-Pro lexicon with ``extra`` (one row) appended to ``name``;
    returns the folder and the line number of the new row."""
    lexicon = copy_of(default_lexicon_dir(), folder / "lex")
    data = (lexicon / name).read_bytes()
    (lexicon / name).write_bytes(data.rstrip(b"\n") + b"\n" + extra + b"\n")
    return lexicon, data.rstrip(b"\n").count(b"\n") + 2


def _becpro(folder: Path, name: str, extra: bytes, expect: str) -> tuple[Args, str]:
    lexicon, line = _becpro_lexicon(folder, name, extra)
    args = ["curate", "becpro", "--lang", "en", "--lexicon", lexicon, "--out", folder / "r"]
    return args, f"{name}:{line}: {expect}"


def _slguset_lexicon(folder: Path, name: str, extra: bytes) -> tuple[Path, int]:
    lexicon = copy_of(SLGUSET_LEXICON, folder / "lex")
    data = (lexicon / name).read_bytes().rstrip(b"\n")
    (lexicon / name).write_bytes(data + b"\n" + extra + b"\n")
    return lexicon, data.count(b"\n") + 2


def _slguset(folder: Path, name: str, extra: bytes, expect: str) -> tuple[Args, str]:
    lexicon, line = _slguset_lexicon(folder, name, extra)
    return (
        ["curate", "slguset", "--lexicon", lexicon, "--out", folder / "r"],
        f"{name}:{line}: {expect}",
    )


def _partition(folder: Path, value: str) -> tuple[Args, str]:
    return (
        ["curate", "slguset", "--out", folder / "r", "--executor", "slurm",
         f"--slurm-partition={value}", "--dry-run"],
        "--slurm-partition",
    )  # fmt: skip


def _stereoset(folder: Path, *extra: object) -> Args:
    return ["curate", "stereoset", "--out", folder / "ss", "--dry-run", *extra]


CASES = [
    Case("crowspairs-en-bad-byte-early", lambda d: _bad_byte(d, 3, "en")),
    Case("crowspairs-en-bad-byte-late", lambda d: _bad_byte(d, 100, "en")),
    Case("crowspairs-fr-bad-byte-early", lambda d: _bad_byte(d, 3, "fr")),
    Case("crowspairs-fr-bad-byte-late", lambda d: _bad_byte(d, 100, "fr")),
    Case(
        "crowspairs-unknown-encoding",
        lambda d: (
            _crows(d, _crows_lines(), "--encoding", "klingon"),
            "--encoding: unknown encoding 'klingon'",
        ),
    ),
    Case("crowspairs-stray-quote", _stray_quote),
    Case("crowspairs-stray-quote-shifts-id", _shifted_id),
    Case("crowspairs-id-with-space", _bad_id),
    Case("crowspairs-extra-field", _extra_field),
    Case(
        "crowspairs-group-words-robot",
        lambda d: (
            _crows(d, _crows_lines(), "--group-words", _group_words(d, b"robot\tbeep boop\n")),
            "gw.tsv:3: column 'bias_type' must be one of",
        ),
    ),
    Case(
        "crowspairs-group-words-latin1",
        lambda d: (
            _crows(d, _crows_lines(), "--group-words", _group_words(d, b"age\tvieill\xe9\n")),
            "gw.tsv:3: not valid utf-8 at byte 40 (column 11",
        ),
    ),
    Case(
        "crowspairs-formality-rude",
        lambda d: (
            _crows(d, _crows_lines(), "--formality", "rude", lang="fr"),
            "--formality 'rude': choose one of",
        ),
    ),
    Case("crowspairs-lang-xx", lambda d: (_crows(d, _crows_lines(), lang="xx"), "--lang 'xx'")),
    Case(
        "crowspairs-source-lang-xx",
        lambda d: (_crows(d, _crows_lines(), "--source-lang", "xx"), "--source-lang 'xx'"),
    ),
    Case(
        "crowspairs-limit-zero",
        lambda d: (_crows(d, _crows_lines(), "--limit", "0"), "--limit 0: must be at least 1"),
    ),
    Case(
        "stereoset-limit-zero",
        lambda d: (_stereoset(d, "--limit", "0"), "--limit 0: must be at least 1"),
    ),
    Case(
        "stereoset-formality-rude",
        lambda d: (_stereoset(d, "--formality", "rude"), "--formality 'rude': choose one of"),
    ),
    Case("stereoset-lang-xx", lambda d: (_stereoset(d, "--lang", "xx"), "--lang 'xx'")),
    Case(
        "stereoset-source-not-utf8",
        lambda d: (
            _stereoset(d, "--source", _latin1_stereoset(d)),
            "s.jsonl:1: not valid utf-8 at byte",
        ),
    ),
    Case(
        "stereoset-glossary-not-utf8",
        lambda d: (
            _stereoset(
                d,
                "--glossary",
                _write(d, "g.tsv", "source\ttarget\nnurse\tinfirmière\n".encode("latin-1")),
            ),
            "g.tsv:2: not valid utf-8 at byte 27 (column 14",
        ),
    ),
    Case(
        "becpro-persons-stray-quote",
        lambda d: _becpro(
            d,
            "en/persons.tsv",
            b'female\t"my niece\tniece\tmy niece\t',
            "person phrase '\"my niece' must be words",
        ),
    ),
    Case(
        "becpro-professions-stray-quote",
        lambda d: _becpro(
            d,
            "en/professions.tsv",
            b'juggler\t"juggler\t',
            "column 'form': '\"juggler' holds a stray quote",
        ),
    ),
    Case(
        "becpro-template-unknown-slot",
        lambda d: _becpro(
            d,
            "en/templates.tsv",
            b"default\t{person} met {foo}, a {profession}.\t",
            "unknown slot {foo}",
        ),
    ),
    Case(
        "becpro-template-lone-brace",
        lambda d: _becpro(
            d,
            "en/templates.tsv",
            b"default\t{person} is a {profession} }.\t",
            "template has a brace that opens or closes no slot",
        ),
    ),
    Case(
        "becpro-template-10mb-line",
        lambda d: _becpro(
            d,
            "en/templates.tsv",
            b"default\t{person} is a {profession} " + b"x" * 10_000_000 + b".\t",
            "cannot read this line: a field is longer than 131072 characters",
        ),
    ),
    Case("becpro-lexicon-latin1-without-encoding", lambda d: _latin1_becpro_unasked(d)),
    Case(
        "slguset-pairs-quoted-form",
        lambda d: _slguset(d, "gender_pairs.tsv", '男人/女人\t"男人\t女人'.encode(), "male form"),
    ),
    Case(
        "slguset-word-list-junk",
        lambda d: _slguset(d, "non_gender_words.txt", "吉他 abc".encode(), "entry 'abc'"),
    ),
    Case(
        "slguset-corpus-bad-byte",
        lambda d: (
            [
                "curate",
                "slguset",
                "--corpus",
                _write(d, "c.txt", "他来了。\n".encode() + "他走了。".encode("gbk") + b"\n"),
                "--out",
                d / "r",
            ],
            "c.txt:2: cannot decode as utf-8 at byte 1 of the line",
        ),
    ),
    Case("slguset-gb18030-lexicon-without-encoding", lambda d: _gb18030_slguset_unasked(d)),
    Case(
        "slguset-unknown-lexicon-encoding",
        lambda d: (
            ["curate", "slguset", "--lexicon-encoding", "klingon", "--out", d / "r"],
            "--lexicon-encoding: unknown encoding 'klingon'",
        ),
    ),
    Case("slurm-partition-newline", lambda d: _partition(d, "cpu\n#SBATCH --exclusive")),
    Case("slurm-partition-space", lambda d: _partition(d, "cpu gpu")),
    Case("slurm-partition-quote", lambda d: _partition(d, 'cpu"')),
    Case("slurm-partition-300-chars", lambda d: _partition(d, "p" * 300)),
    Case("slurm-partition-option", lambda d: _partition(d, "--exclusive")),
    Case("slurm-partition-empty-in-list", lambda d: _partition(d, "cpu,,gpu")),
]


def _latin1_stereoset(folder: Path) -> Path:
    text = STEREOSET_SAMPLE.read_text(encoding="utf-8").replace("Many people", "Many péople")
    return _write(folder, "s.jsonl", text.encode("latin-1"))


def _latin1_becpro(folder: Path) -> Path:
    """A copy of the bundled lexicon whose Spanish folder and profession list are latin-1."""
    lexicon = copy_of(default_lexicon_dir(), folder / "lex1")
    for path in [lexicon / "professions.tsv", *(lexicon / "es").iterdir()]:
        path.write_bytes(path.read_text(encoding="utf-8").encode("latin-1"))
    return lexicon


def _latin1_becpro_unasked(folder: Path) -> tuple[Args, str]:
    """The error names the first non-ASCII byte of es/language.toml (the first file read
    that has one)."""
    lexicon = _latin1_becpro(folder)
    data = (lexicon / "es" / "language.toml").read_bytes()
    offset = next(i for i, byte in enumerate(data) if byte > 0x7F)
    line = data.count(b"\n", 0, offset) + 1
    args = ["curate", "becpro", "--lang", "es", "--lexicon", lexicon, "--out", folder / "r"]
    return args, f"language.toml:{line}: not valid utf-8 at byte {offset} "


def _gb18030_slguset(folder: Path) -> Path:
    lexicon = copy_of(SLGUSET_LEXICON, folder / "lexgb")
    for path in lexicon.iterdir():
        if path.suffix in (".tsv", ".txt"):
            path.write_bytes(path.read_text(encoding="utf-8").encode("gb18030"))
    return lexicon


def _gb18030_slguset_unasked(folder: Path) -> tuple[Args, str]:
    lexicon = _gb18030_slguset(folder)
    data = (lexicon / "gender_pairs.tsv").read_bytes()
    offset = next(i for i, byte in enumerate(data) if byte > 0x7F)
    line = data.count(b"\n", 0, offset) + 1
    args = ["curate", "slguset", "--lexicon", lexicon, "--out", folder / "r"]
    return args, f"gender_pairs.tsv:{line}: not valid utf-8 at byte {offset} "


def test_the_cases_are_distinct():
    assert len({c.id for c in CASES}) == len(CASES) >= 30


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_curation_input_is_one_clear_line(case: Case, tmp_path: Path):
    args, expect = case.make(tmp_path)
    before = snapshot(tmp_path)
    result = run_cli(*args, check=False, env=NO_KEY)
    assert result.returncode == 2, f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert expect in lines[0], lines[0]
    assert snapshot(tmp_path) == before, "files that existed before were changed"
    assert not any(p.name in ("r", "run", "ss") for p in tmp_path.iterdir())


# ------------------------------------------------------------------ --encoding reads right


def _items(run: Path, column: str) -> list:
    return pq.read_table(run / "candidates.parquet").column(column).to_pylist()


def test_crowspairs_latin1_csv_with_encoding_gives_the_utf8_items(tmp_path):
    text = CROWS_SAMPLE.read_text(encoding="utf-8").replace("drive", "drivé")
    assert "drivé" in text
    utf8 = _write(tmp_path, "u.csv", text.encode("utf-8"))
    latin = _write(tmp_path, "l.csv", text.encode("latin-1"))
    run_cli("curate", "crowspairs", "--lang", "en", "--source", utf8, "--out", tmp_path / "u")
    run_cli("curate", "crowspairs", "--lang", "en", "--source", latin, "--out", tmp_path / "l",
            "--encoding", "latin-1")  # fmt: skip
    sentences = _items(tmp_path / "l", "sent_more")
    assert any("drivé" in s for s in sentences)
    assert sentences == _items(tmp_path / "u", "sent_more")


def test_limit_one_is_one_item_and_encoding_leaves_bundled_files_utf8(tmp_path):
    """--limit 1 is one pair; --encoding utf-16 (a user's Excel export) is not applied to the
    bundled sample and group words, which are UTF-8 (read as UTF-16 they are garbage)."""
    run_cli("curate", "crowspairs", "--lang", "en", "--limit", "1", "--encoding", "utf-16",
            "--out", tmp_path / "r")  # fmt: skip
    assert len(_items(tmp_path / "r", "sent_more")) == 1


def test_becpro_latin1_lexicon_with_encoding_gives_the_bundled_items(tmp_path):
    lexicon = _latin1_becpro(tmp_path)
    # --encoding is the user's files': the bundled lexicon is still read as UTF-8
    run_cli("curate", "becpro", "--lang", "es", "--encoding", "latin-1", "--out", tmp_path / "u")
    run_cli("curate", "becpro", "--lang", "es", "--lexicon", lexicon, "--encoding", "latin-1",
            "--out", tmp_path / "l")  # fmt: skip
    sentences = _items(tmp_path / "l", "sentence")
    assert any("á" in s or "é" in s for s in sentences)
    assert sentences == _items(tmp_path / "u", "sentence")


def test_latin1_glossary_with_encoding_is_read(tmp_path):
    glossary = _write(tmp_path, "g.tsv", "source\ttarget\nnurse\tinfirmière\n".encode("latin-1"))
    result = run_cli("curate", "stereoset", "--glossary", glossary, "--encoding", "latin-1",
                     "--dry-run", env=NO_KEY)  # fmt: skip
    assert "characters" in result.stdout


def test_stereoset_latin1_source_with_encoding_gives_the_utf8_items(tmp_path):
    text = STEREOSET_SAMPLE.read_text(encoding="utf-8").replace("Many people", "Many péople")
    utf8 = _write(tmp_path, "u.jsonl", text.encode("utf-8"))
    latin = _write(tmp_path, "l.jsonl", text.encode("latin-1"))
    common = ["curate", "stereoset", "--lang", "en", "--source-lang", "en"]
    run_cli(*common, "--source", utf8, "--out", tmp_path / "u", env=NO_KEY)
    run_cli(*common, "--source", latin, "--encoding", "latin-1", "--out", tmp_path / "l",
            env=NO_KEY)  # fmt: skip
    contexts = _items(tmp_path / "l", "context")
    assert any("péople" in c for c in contexts) and contexts == _items(tmp_path / "u", "context")


def test_slguset_gb18030_lexicon_with_lexicon_encoding_gives_the_bundled_run(tmp_path):
    sample = tmp_path / "sample.txt"  # the first 40 lines of the bundled corpus: quick
    bundled = (SLGUSET_LEXICON / "sample_peoples_daily.txt").read_text(encoding="utf-8")
    sample.write_text("\n".join(bundled.splitlines()[:40]) + "\n", encoding="utf-8")
    lexicon = _gb18030_slguset(tmp_path)
    run_cli("curate", "slguset", "--corpus", sample, "--out", tmp_path / "u")
    run_cli("curate", "slguset", "--corpus", sample, "--lexicon", lexicon,
            "--lexicon-encoding", "gb18030", "--out", tmp_path / "g")  # fmt: skip
    sentences = _items(tmp_path / "g", "sentence")
    assert sentences and sentences == _items(tmp_path / "u", "sentence")
    assert _items(tmp_path / "g", "keyword") == _items(tmp_path / "u", "keyword")


# ------------------------------------------------------------------ Slurm script unchanged


def _dry_run_scripts(out: Path, partition: str, *extra: str) -> list[str]:
    result = run_cli(
        "curate", "slguset", "--out", out, "--executor", "slurm",
        "--slurm-partition", partition, "--dry-run", *extra,
    )  # fmt: skip
    return re.findall(r"<<'EOF'\n(.*?)EOF\n", result.stdout, flags=re.S)


def test_a_good_partition_name_only_changes_the_partition_line(tmp_path):
    out = tmp_path / "slg"
    plain = _dry_run_scripts(out, "cpu")
    named = _dry_run_scripts(out, "gpu_a100.long-2,cpu", "--overwrite")
    assert len(plain) == len(named) == 4
    for a, b in zip(plain, named, strict=True):
        assert "#SBATCH --partition=cpu\n" in a
        assert "#SBATCH --partition=gpu_a100.long-2,cpu\n" in b
        assert b.replace("--partition=gpu_a100.long-2,cpu\n", "--partition=cpu\n") == a
