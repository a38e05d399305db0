"""A hostile, careless user on the CLI: ~360 bad inputs across every command, each classified.

Not a unit test: a tool for the maintainer, re-run after a hardening round to see what is still
wrong. Every case runs ``biasforge …`` in a subprocess (as a user would) with a time limit and
is classified as

- ``OK``: refused with exit status 2 and no traceback (or, for a case that is a warning, exit
  0 with a ``warning:`` line; for an ``accept-or-refuse`` case — valid input, or an item the
  rules reject with a recorded reason — exit 0 too), and every input and earlier output it
  protects is unchanged;
- ``TRACEBACK``: a Python traceback, or an exit status other than 0 and 2;
- ``HANG``: still running after ``--timeout`` seconds (default 60) where it should be instant;
- ``DATA LOSS``: a file or folder the case protects changed or disappeared;
- ``SILENT``: malformed input accepted (exit 0, no warning).

Usage::

    .venv/bin/python tests/robustness/hostile_sweep.py [--only SUBSTRING] [--keep] [--timeout 60]
    .venv/bin/python tests/robustness/hostile_sweep.py --workdir /tmp/sweep   # keep and reuse fixtures

It builds its own fixtures first (bundled data, the runs and releases of four families, a tiny
BERT and GPT-2 built from ``tests/scoring/conftest.py``, a few score folders) under a temporary
folder with its own ``BIASFORGE_HOME``, and starts an embedded Argilla server there (the BEC-Pro
run pushed as ``bec1``; stopped at the end); no network, no Hub, no DeepL (``DEEPL_AUTH_KEY``
unset). About 15 minutes on a quiet 2-core machine, most of it in the score cases.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
SHARED = REPO.parent / "shared" / "data"
EXE = Path(sys.executable).with_name("biasforge")
BUNDLED = REPO / "curation" / "data"

Make = Callable[[dict, Path], list]


@dataclass
class Case:
    """One hostile input: ``make`` prepares the case folder and returns the arguments."""

    name: str
    make: Make
    expect: str = "refuse"  # refuse | warn
    protect: Callable[[dict, Path], list] = field(default=lambda f, c: [])


CASES: list[Case] = []


def case(name: str, expect: str = "refuse", protect=None):
    def add(make: Make) -> Make:
        CASES.append(Case(name, make, expect, protect or (lambda f, c: [])))
        return make

    return add


def simple(name: str, *args, expect: str = "refuse", protect=None) -> None:
    """A case whose arguments are fixed strings with ``{key}`` placeholders from the fixtures
    (``{c}`` is the case's own folder)."""
    CASES.append(
        Case(
            name,
            lambda f, c: [str(a).format(c=c, **f) for a in args],
            expect,
            protect or (lambda f, c: []),
        )
    )


# -- small helpers -------------------------------------------------------------------------


def write(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    path.write_bytes(data)
    return path


def copy(source: Path, target: Path) -> Path:
    if source.is_dir():
        shutil.copytree(source, target, symlinks=True)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    return target


def user_folder(path: Path) -> Path:
    """A folder biasforge did not write, with a file the user cares about."""
    write(path / "thesis.tex", "my thesis\n")
    return path


def digest(path: Path) -> str:
    """A hash of a file or of a tree (names and contents), or 'missing'."""
    if path.is_symlink() and not path.exists():
        return "dangling"
    if not path.exists():
        return "missing"
    h = hashlib.sha256()
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    for p in files:
        h.update(str(p.relative_to(path) if p != path else p.name).encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def edit_manifest(folder: Path, change: Callable[[dict], None]) -> None:
    manifest = folder / "manifest.json"
    data = json.loads(manifest.read_text())
    change(data)
    manifest.write_text(json.dumps(data))


def rehash(folder: Path) -> None:
    """Recompute the manifest's sha256 of every file listed (an edit made to look clean)."""
    manifest = folder / "manifest.json"
    data = json.loads(manifest.read_text())

    def fix(node):
        if isinstance(node, dict):
            if "sha256" in node and "path" in node and (folder / node["path"]).is_file():
                node["sha256"] = hashlib.sha256((folder / node["path"]).read_bytes()).hexdigest()
            for value in node.values():
                fix(value)
        elif isinstance(node, list):
            for value in node:
                fix(value)

    fix(data)
    manifest.write_text(json.dumps(data, indent=2))


def edit_parquet(path: Path, change: Callable) -> None:
    import pandas as pd

    frame = pd.read_parquet(path)
    frame = change(frame)
    frame.to_parquet(path, index=False)


def first_parquet(folder: Path) -> Path:
    return sorted(p for p in folder.rglob("*.parquet") if ".partial" not in str(p))[0]


BINARY = bytes(range(256)) * 64
GBK_ZH = "他是一个好人。她也是一个好人。\n".encode("gbk")
LATIN1 = "Ça, c'est très intéressant.\n".encode("latin-1")


# -- fixtures ------------------------------------------------------------------------------


def cli(*args, env=None, check=True) -> subprocess.CompletedProcess | None:
    """Run a fixture step; a step whose --out/-o already exists was done by an earlier try."""
    for flag in ("--out", "-o"):
        done = check and flag in args and Path(args[args.index(flag) + 1]).exists()
        if done and args[:2] != ("export", "release"):
            return None
    if args[:2] == ("export", "release"):
        args = (*args, "--exist-ok")
    result = subprocess.run(
        [str(EXE), *map(str, args)], capture_output=True, text=True, env=env, timeout=900
    )
    if check and result.returncode != 0:
        raise SystemExit(f"fixture failed: biasforge {' '.join(map(str, args))}\n{result.stderr}")
    return result


class _Factory:
    def __init__(self, root: Path):
        self.root = root

    def mktemp(self, name: str) -> Path:
        path = self.root / name
        path.mkdir(parents=True, exist_ok=True)
        return path


def build_fixtures(root: Path, env: dict) -> dict:
    from tests.scoring.conftest import tiny_models

    f: dict = {"shared": SHARED, "bundled": BUNDLED}
    print("building fixtures (runs, releases, tiny models, score folders) …", flush=True)
    models = tiny_models._get_wrapped_function()(_Factory(root / "models"))
    f["bert"], f["gpt2"] = models["masked"], models["causal"]
    runs, rel = root / "runs", root / "releases"
    f["bec_run"], f["ss_run"], f["cp_run"], f["sl_run"] = (
        runs / n for n in ("becpro-en", "ss-en", "cp-en", "sl-zh")
    )
    cli("curate", "becpro", "--lang", "en", "--out", f["bec_run"], env=env)
    cli("curate", "stereoset", "--lang", "en", "--source-lang", "en", "--limit", 12,
        "--out", f["ss_run"], env=env)  # fmt: skip
    cli("curate", "crowspairs", "--lang", "en", "--source-lang", "en", "--limit", 20,
        "--out", f["cp_run"], env=env)  # fmt: skip
    corpus = write(root / "zh.txt", "".join(SLGU_LINES))
    f["zh_corpus"] = corpus
    cli("curate", "slguset", "--corpus", corpus, "--name-check", "none", "--out", f["sl_run"],
        env=env)  # fmt: skip
    for key, run, name in (("bec", "bec_run", "becpro"), ("ss", "ss_run", "stereoset"),
                           ("cp", "cp_run", "crowspairs"), ("sl", "sl_run", "slguset")):  # fmt: skip
        cli("export", "release", f[run], "--name", name, "--version", "1.0.0", "--unreviewed",
            "--out", rel, env=env)  # fmt: skip
        f[f"{key}_rel"] = rel / name / "1.0.0"
    cli("export", "release", f["cp_run"], "--name", "crowspairs", "--version", "1.1.0",
        "--unreviewed", "--out", rel, env=env)  # fmt: skip
    f["cp_rel2"] = rel / "crowspairs" / "1.1.0"
    sc = root / "scores"
    quick = ("--limit", 4, "--bootstrap", 0, "--no-progress")
    for name, family, release, model in (
        ("bec-bert", "becpro", "bec_rel", "bert"),
        ("ss-bert", "stereoset", "ss_rel", "bert"),
        ("cp-bert", "crowspairs", "cp_rel", "bert"),
        ("cp-gpt2", "crowspairs", "cp_rel", "gpt2"),
        ("cp2-gpt2", "crowspairs", "cp_rel2", "gpt2"),
    ):
        cli("score", family, "-d", f[release], "-m", f[model], "-o", sc / name, *quick, env=env)
    for name in ("bec-bert", "ss-bert", "cp-bert", "cp-gpt2", "cp2-gpt2"):
        f[name.replace("-", "_")] = sc / name
    predictions = root / "predictions.json"
    found = sorted((sc / "ss-bert").rglob("*predictions*.json"))
    if found:
        shutil.copy(found[0], predictions)
    f["predictions"] = predictions
    return f


SLGU_LINES = [
    "他是一位很好的老师，每天都很早来到学校。\n",
    "她在工厂里工作了很多年，大家都很尊敬她。\n",
    "这位母亲每天照顾孩子，非常辛苦。\n",
    "他的父亲是一名工程师，经常出差。\n",
    "她的女儿今年考上了大学。\n",
    "他们的儿子在北京工作。\n",
] * 3


# -- the cases -----------------------------------------------------------------------------
# curate becpro


simple("becpro --lang unknown", "curate", "becpro", "--lang", "xx", "--out", "{c}/o")
simple("becpro --lang missing folder", "curate", "becpro", "--lang", "{c}/nope/", "--out", "{c}/o")
simple("becpro --lang empty", "curate", "becpro", "--lang", "", "--out", "{c}/o")
simple("becpro --variant bogus", "curate", "becpro", "--lang", "es", "--variant", "bogus",
       "--out", "{c}/o")  # fmt: skip
simple("becpro --variant of another language", "curate", "becpro", "--lang", "en",
       "--variant", "without_articles", "--out", "{c}/o")  # fmt: skip
simple("becpro --lexicon missing", "curate", "becpro", "--lang", "en", "--lexicon", "{c}/none",
       "--out", "{c}/o")  # fmt: skip
simple("becpro --encoding bogus", "curate", "becpro", "--lang", "en", "--encoding", "klingon",
       "--out", "{c}/o")  # fmt: skip


@case("becpro --encoding utf-16 on a utf-8 lexicon")
def _(f, c):
    return ["curate", "becpro", "--lang", "en", "--encoding", "utf-16", "--lexicon",
            lexicon_copy(c), "--out", c / "o"]  # fmt: skip


@case("becpro --lexicon is a file")
def _(f, c):
    return ["curate", "becpro", "--lang", "en", "--lexicon", write(c / "lex.tsv", "a\tb\n"),
            "--out", c / "o"]  # fmt: skip


def file_case(command: list, option: str, filename: str) -> Callable:
    """A maker of cases that give ``command`` a file of ``data`` as ``option``."""

    def add(name: str, data: bytes | str, *extra: str, suffix: str = "", expect: str = "refuse"):
        target = Path(filename).stem + suffix if suffix else filename

        @case(f"{command[1]} {option} {name}", expect=expect)
        def _(f, c):
            return [*command, option, write(c / target, data), *extra, "--out", c / "o"]

    return add


def lexicon_copy(c: Path, lang: str = "en") -> Path:
    lex = copy(BUNDLED / "becpro", c / "lex")
    return lex


def becpro_lexicon_case(name: str, relpath: str, data: bytes | str, lang: str = "en") -> None:
    @case(f"becpro lexicon {name}")
    def _(f, c):
        lex = lexicon_copy(c)
        write(lex / relpath, data)
        return ["curate", "becpro", "--lang", lang, "--lexicon", lex, "--out", c / "o"]


becpro_lexicon_case("professions.tsv binary", "professions.tsv", BINARY)
becpro_lexicon_case("professions.tsv empty", "professions.tsv", "")
becpro_lexicon_case("professions.tsv header only", "professions.tsv",
                    "group\tbecpro_order\tbls_occupation\ten\tpct_women\n")  # fmt: skip
becpro_lexicon_case("professions.tsv stray quote", "professions.tsv",
                    (BUNDLED / "becpro/professions.tsv").read_text() + 'male\t99\t"x\tfoo\t1.0\n')  # fmt: skip
becpro_lexicon_case("professions.tsv pct_women NaN", "professions.tsv",
                    (BUNDLED / "becpro/professions.tsv").read_text() + "male\t99\tx\tfoo\tnan\n")  # fmt: skip
becpro_lexicon_case("professions.tsv pct_women text", "professions.tsv",
                    (BUNDLED / "becpro/professions.tsv").read_text() + "male\t99\tx\tfoo\tlots\n")  # fmt: skip
becpro_lexicon_case("professions.tsv group bogus", "professions.tsv",
                    (BUNDLED / "becpro/professions.tsv").read_text() + "alien\t99\tx\tfoo\t1\n")  # fmt: skip
becpro_lexicon_case("professions.tsv too few columns", "professions.tsv",
                    (BUNDLED / "becpro/professions.tsv").read_text() + "male\t99\n")  # fmt: skip
becpro_lexicon_case("professions.tsv duplicate row", "professions.tsv",
                    (BUNDLED / "becpro/professions.tsv").read_text()
                    + (BUNDLED / "becpro/professions.tsv").read_text().splitlines(True)[1])  # fmt: skip
becpro_lexicon_case("en/persons.tsv bad gender", "en/persons.tsv",
                    (BUNDLED / "becpro/en/persons.tsv").read_text() + "neutral\tthe x\tx\tthe x\t\n")  # fmt: skip
becpro_lexicon_case("en/templates.tsv unknown slot", "en/templates.tsv",
                    "variant\ttemplate\tnote\ndefault\t{person} is a {job}.\t\n")  # fmt: skip
becpro_lexicon_case("en/templates.tsv no slot", "en/templates.tsv",
                    "variant\ttemplate\tnote\ndefault\tnothing here.\t\n")  # fmt: skip
becpro_lexicon_case("en/templates.tsv 10MB line", "en/templates.tsv",
                    "variant\ttemplate\tnote\ndefault\t{person} is a {profession}." + "x" * 10_000_000 + "\t\n")  # fmt: skip
becpro_lexicon_case("en/language.toml malformed", "en/language.toml", "code = \n[[[")
becpro_lexicon_case("en/language.toml binary", "en/language.toml", BINARY)
becpro_lexicon_case("en/language.toml wrong type", "en/language.toml",
                    (BUNDLED / "becpro/en/language.toml").read_text().replace('variants = ["default"]', "variants = 3"))  # fmt: skip
becpro_lexicon_case("en/persons.tsv NUL byte", "en/persons.tsv",
                    (BUNDLED / "becpro/en/persons.tsv").read_text() + "male\tthe\x00man\tman\tman\t\n")  # fmt: skip


@case("becpro --out is a file")
def _(f, c):
    return ["curate", "becpro", "--lang", "en", "--out", write(c / "file.txt", "keep me\n")]


@case("becpro --out user folder --overwrite", protect=lambda f, c: [c / "o" / "thesis.tex"])
def _(f, c):
    user_folder(c / "o")
    return ["curate", "becpro", "--lang", "en", "--out", c / "o", "--overwrite"]


@case("becpro --overwrite over a stereoset run", protect=lambda f, c: [c / "ss"])
def _(f, c):
    copy(f["ss_run"], c / "ss")
    return ["curate", "becpro", "--lang", "en", "--out", c / "ss", "--overwrite"]


@case("becpro --out is the --lexicon folder", protect=lambda f, c: [c / "lex"])
def _(f, c):
    lex = lexicon_copy(c)
    return ["curate", "becpro", "--lang", "en", "--lexicon", lex, "--out", lex, "--overwrite"]


@case("becpro --out inside the --lang folder", protect=lambda f, c: [c / "lex"])
def _(f, c):
    lex = lexicon_copy(c)
    return ["curate", "becpro", "--lang", lex / "en", "--lexicon", lex, "--out", lex / "en"]


@case("becpro --out symlink to a user folder --overwrite", protect=lambda f, c: [c / "mine"])
def _(f, c):
    user_folder(c / "mine")
    (c / "o").symlink_to(c / "mine")
    return ["curate", "becpro", "--lang", "en", "--out", c / "o", "--overwrite"]


@case("becpro --out '' (the current folder) --overwrite", protect=lambda f, c: [c])
def _(f, c):
    user_folder(c)
    return ["curate", "becpro", "--lang", "en", "--out", "", "--overwrite"]


# curate crowspairs

CP = ["curate", "crowspairs", "--lang", "en", "--source-lang", "en"]
CP_HEADER = (
    ",sent_more,sent_less,stereo_antistereo,bias_type,annotations,anon_writer,anon_annotators\n"
)
CP_ROW = "{i},The poor are lazy.,The rich are lazy.,stereo,socioeconomic,\"[['socioeconomic']]\",a0,\"['a1']\"\n"


crows_case = file_case(CP, "--source", "cp.csv")


crows_case("binary", BINARY)
crows_case("empty", "")
crows_case("header only", CP_HEADER)
crows_case("truncated quote", CP_HEADER + CP_ROW.format(i=0) + '1,"The poor are lazy.,x')
crows_case("wrong columns", "a,b,c\n1,2,3\n")
crows_case("duplicate ids", CP_HEADER + CP_ROW.format(i=0) + CP_ROW.format(i=0))
crows_case(
    "latin-1 under utf-8", CP_HEADER.encode() + b"0," + LATIN1.strip() + b",x,stereo,race,[],a,[]\n"
)
crows_case("bias_type bogus", CP_HEADER + CP_ROW.format(i=0).replace("socioeconomic,", "cooking,"))
crows_case("stereo_antistereo bogus", CP_HEADER + CP_ROW.format(i=0).replace(",stereo,", ",maybe,"))
# an item the rules reject is recorded in rejected.parquet with its reason: not silent
crows_case("identical sentences", CP_HEADER + '0,Same.,Same.,stereo,race,"[]",a,"[]"\n',
           expect="accept-or-refuse")  # fmt: skip
crows_case("empty sentence", CP_HEADER + '0,,The rich.,stereo,race,"[]",a,"[]"\n',
           expect="accept-or-refuse")  # fmt: skip
crows_case("NUL byte", CP_HEADER + "0,The po\x00or.,The rich.,stereo,race,[],a,[]\n")
simple("crowspairs --source /dev/zero", *CP, "--source", "/dev/zero", "--out", "{c}/o")
simple("crowspairs --source /dev/urandom", *CP, "--source", "/dev/urandom", "--out", "{c}/o")
simple("crowspairs --source missing", *CP, "--source", "{c}/none.csv", "--out", "{c}/o")
simple("crowspairs --source is a folder", *CP, "--source", "{c}", "--out", "{c}/o")
simple("crowspairs --limit 0", *CP, "--limit", "0", "--out", "{c}/o")
simple("crowspairs --limit -1", *CP, "--limit", "-1", "--out", "{c}/o")
simple("crowspairs --limit huge", *CP, "--limit", "99999999999999999999999", "--out", "{c}/o",
       expect="accept-or-refuse")  # fmt: skip
simple("crowspairs --lang klingon", "curate", "crowspairs", "--lang", "tlh", "--out", "{c}/o")
simple("crowspairs --lang fr without DeepL key", "curate", "crowspairs", "--lang", "fr",
       "--limit", "2", "--out", "{c}/o")  # fmt: skip
simple("crowspairs --formality bogus", "curate", "crowspairs", "--lang", "fr", "--formality",
       "rude", "--out", "{c}/o")  # fmt: skip
simple("crowspairs --server-url not a url", "curate", "crowspairs", "--lang", "fr",
       "--server-url", "not a url", "--limit", "2", "--out", "{c}/o")  # fmt: skip
simple("crowspairs --group-words missing", *CP, "--group-words", "{c}/gw.tsv", "--out", "{c}/o")


@case("crowspairs --group-words stray quote")
def _(f, c):
    gw = write(c / "gw.tsv", 'race\tblack,"white\n')
    return [*CP, "--group-words", gw, "--out", c / "o"]


@case("crowspairs --group-words binary")
def _(f, c):
    return [*CP, "--group-words", write(c / "gw.tsv", BINARY), "--out", c / "o"]


@case("crowspairs --group-words unknown bias type")
def _(f, c):
    return [*CP, "--group-words", write(c / "gw.tsv", "cooking\tpasta\n"), "--out", c / "o"]


@case("crowspairs --glossary stray quote")
def _(f, c):
    g = write(c / "g.tsv", 'poor\t"pauvre\n')
    return ["curate", "crowspairs", "--lang", "fr", "--glossary", g, "--limit", "2",
            "--out", c / "o"]  # fmt: skip


@case(
    "crowspairs --memory is a text file",
    expect="accept-or-refuse",
    protect=lambda f, c: [c / "notes.txt"],
)
def _(f, c):
    m = write(c / "notes.txt", "my notes\n" * 50)
    return [*CP, "--memory", m, "--limit", "2", "--out", c / "o"]


@case("crowspairs --memory is the --source", protect=lambda f, c: [c / "cp.csv"])
def _(f, c):
    s = copy(BUNDLED / "crowspairs/sample_en.csv", c / "cp.csv")
    return ["curate", "crowspairs", "--lang", "fr", "--source", s, "--memory", s, "--limit", "2",
            "--out", c / "o"]  # fmt: skip


@case("crowspairs --memory is a folder")
def _(f, c):
    (c / "mem").mkdir()
    return ["curate", "crowspairs", "--lang", "fr", "--memory", c / "mem", "--limit", "2",
            "--out", c / "o"]  # fmt: skip


@case("crowspairs --out is the --source --overwrite", protect=lambda f, c: [c / "cp.csv"])
def _(f, c):
    s = copy(BUNDLED / "crowspairs/sample_en.csv", c / "cp.csv")
    return [*CP, "--source", s, "--out", s, "--overwrite"]


@case("crowspairs --overwrite over a becpro run", protect=lambda f, c: [c / "bec"])
def _(f, c):
    copy(f["bec_run"], c / "bec")
    return [*CP, "--limit", "2", "--out", c / "bec", "--overwrite"]


@case("crowspairs --out folder holding the --source", protect=lambda f, c: [c / "d"])
def _(f, c):
    s = copy(BUNDLED / "crowspairs/sample_en.csv", c / "d" / "cp.csv")
    return [*CP, "--source", s, "--out", c / "d", "--overwrite"]


# curate stereoset

SS = ["curate", "stereoset", "--lang", "en", "--source-lang", "en"]
SS_LINE = json.loads((SHARED / "stereoset/stereoset_dev_en.jsonl").read_text().splitlines()[1])


stereoset_case = file_case(SS, "--source", "ss.jsonl")


def ss_line(**change) -> str:
    return json.dumps({**SS_LINE, **change}, ensure_ascii=False) + "\n"


stereoset_case("binary", BINARY)
stereoset_case("empty", "")
stereoset_case("truncated JSONL", ss_line() + ss_line()[:40])
stereoset_case("JSON list of ints", "[1, 2, 3]", suffix=".json")
stereoset_case("official JSON missing data", '{"version": "1"}', suffix=".json")
stereoset_case("target is a number", ss_line(target=3))
stereoset_case("bias_type bogus", ss_line(bias_type="cooking"))
stereoset_case("type bogus", ss_line(type="midsentence"))
stereoset_case("intrasentence without BLANK", ss_line(context="The chess player was good."),
               expect="accept-or-refuse")  # fmt: skip
stereoset_case("two BLANKs", ss_line(context="BLANK chess player was BLANK."),
               expect="accept-or-refuse")  # fmt: skip
stereoset_case("NUL byte in a sentence", ss_line(stereotype="The chess player was as\x00ian."))
stereoset_case("stereotype null", ss_line(stereotype=None))
stereoset_case("NaN literal", ss_line().replace('"race"', "NaN").replace('"profession"', "NaN"))
stereoset_case("GBK under utf-8", ss_line(target="棋手").encode("gbk"))
stereoset_case("huge integer", ss_line(target=10**400))
stereoset_case("10 MB context", ss_line(context="The chess player was BLANK." + " x" * 5_000_000),
               expect="accept-or-refuse")  # fmt: skip
simple("stereoset --source /dev/zero", *SS, "--source", "/dev/zero", "--out", "{c}/o")
simple("stereoset --source missing", *SS, "--source", "{c}/none.jsonl", "--out", "{c}/o")
simple("stereoset --source folder", *SS, "--source", "{c}", "--out", "{c}/o")
simple("stereoset --source hub id offline", *SS, "--source", "nobody/nothing", "--limit", "2",
       "--out", "{c}/o")  # fmt: skip
simple("stereoset --translator bogus", "curate", "stereoset", "--translator", "google",
       "--limit", "2", "--out", "{c}/o")  # fmt: skip
simple("stereoset --price-per-million -1", "curate", "stereoset", "--price-per-million", "-1",
       "--dry-run")  # fmt: skip
simple("stereoset --price-per-million nan", "curate", "stereoset", "--price-per-million", "nan",
       "--dry-run")  # fmt: skip
simple("stereoset --price-per-million inf", "curate", "stereoset", "--price-per-million", "inf",
       "--dry-run")  # fmt: skip
simple("stereoset --retries 0", "curate", "stereoset", "--retries", "0", "--dry-run")
simple("stereoset --retry-delay nan", "curate", "stereoset", "--retry-delay", "nan", "--dry-run")
simple("stereoset --retry-delay inf", "curate", "stereoset", "--retry-delay", "inf", "--dry-run")
simple("stereoset no --out", *SS, "--limit", "2")
simple("stereoset --limit 0", *SS, "--limit", "0", "--out", "{c}/o")
simple("stereoset --lang xx", "curate", "stereoset", "--lang", "xx", "--out", "{c}/o")
simple("stereoset --encoding bogus", *SS, "--encoding", "nope", "--out", "{c}/o")
simple("stereoset --hf-split with newline", "curate", "stereoset", "--source", "nobody/x",
       "--hf-split", "valid\nation", "--lang", "en", "--source-lang", "en", "--out", "{c}/o")  # fmt: skip


@case("stereoset --synonyms stray quote")
def _(f, c):
    return [*SS, "--synonyms", write(c / "s.tsv", 'asian\t"oriental\n'), "--limit", "2",
            "--out", c / "o"]  # fmt: skip


@case("stereoset --synonyms binary")
def _(f, c):
    return [*SS, "--synonyms", write(c / "s.tsv", BINARY), "--limit", "2", "--out", c / "o"]


@case("stereoset --synonyms one column")
def _(f, c):
    return [*SS, "--synonyms", write(c / "s.tsv", "asian\n"), "--limit", "2", "--out", c / "o"]


@case("stereoset --lexicon GBK under utf-8")
def _(f, c):
    return [*SS, "--lexicon", write(c / "l.tsv", "词\t说明\n".encode("gbk")), "--limit", "2",
            "--out", c / "o"]  # fmt: skip


@case("stereoset --glossary stray quote, dry run")
def _(f, c):
    g = write(c / "g.tsv", 'chess\t"échecs\n')
    return ["curate", "stereoset", "--lang", "fr", "--glossary", g, "--dry-run", "--limit", "2"]


@case("stereoset --glossary with header", expect="accept-or-refuse")
def _(f, c):
    g = write(c / "g.tsv", "source\ttarget\nchess\téchecs\n")
    return ["curate", "stereoset", "--lang", "fr", "--glossary", g, "--dry-run", "--limit", "2"]


@case("stereoset --memory corrupt sqlite", protect=lambda f, c: [c / "tm.sqlite"])
def _(f, c):
    m = write(c / "tm.sqlite", b"SQLite format 3\x00" + BINARY)
    return ["curate", "stereoset", "--lang", "fr", "--memory", m, "--dry-run", "--limit", "2"]


@case("stereoset --overwrite over a crowspairs run", protect=lambda f, c: [c / "cp"])
def _(f, c):
    copy(f["cp_run"], c / "cp")
    return [*SS, "--limit", "2", "--out", c / "cp", "--overwrite"]


@case(
    "stereoset --overwrite own run, --source inside it",
    protect=lambda f, c: [c / "r" / "src.jsonl"],
)
def _(f, c):
    copy(f["ss_run"], c / "r")
    s = copy(BUNDLED / "stereoset/sample_dev_en.jsonl", c / "r" / "src.jsonl")
    return [*SS, "--source", s, "--limit", "2", "--out", c / "r", "--overwrite"]


# curate slguset

SL = ["curate", "slguset", "--name-check", "none"]


slguset_case = file_case(SL, "--corpus", "corpus.txt")


slguset_case("binary", BINARY)
slguset_case("empty", "")
slguset_case("GBK under utf-8", GBK_ZH * 3)
slguset_case("JSONL malformed line", '{"text": "他是老师。"}\n{"text": \n', suffix=".jsonl")
slguset_case("JSONL text is a number", '{"text": 3}\n', suffix=".jsonl")
slguset_case("JSONL text null", '{"text": null}\n', suffix=".jsonl")
slguset_case("JSONL list rows", "[1, 2]\n", suffix=".jsonl")
slguset_case("JSONL no text field", '{"body": "他是老师。"}\n', suffix=".jsonl")
slguset_case("--text-field bogus", '{"text": "他是老师。"}\n', "--text-field", "nope",
             suffix=".jsonl")  # fmt: skip
slguset_case("NUL bytes", "他是\x00老师。\n" * 3, expect="accept-or-refuse")
simple("slguset --corpus /dev/zero", *SL, "--corpus", "/dev/zero", "--out", "{c}/o")
simple("slguset --corpus /dev/urandom", *SL, "--corpus", "/dev/urandom", "--out", "{c}/o")
simple("slguset --slurm-time with --wrap", *SL, "--executor", "slurm", "--dry-run",
       "--slurm-partition", "p", "--slurm-time", "1 --wrap=evil", "--out", "{c}/o")  # fmt: skip
simple("slguset --corpus missing", *SL, "--corpus", "{c}/none.txt", "--out", "{c}/o")
simple("slguset --corpus folder", *SL, "--corpus", "{c}", "--out", "{c}/o")
simple("slguset --corpus same twice", *SL, "--corpus", "{zh_corpus}", "--corpus", "{zh_corpus}",
       "--out", "{c}/o")  # fmt: skip
simple("slguset --corpus hf offline", *SL, "--corpus", "hf:nobody/nothing", "--out", "{c}/o")
simple("slguset --num-proc 0", *SL, "--num-proc", "0", "--out", "{c}/o")
simple("slguset --num-proc -3", *SL, "--num-proc", "-3", "--out", "{c}/o")
# clamped to the corpus's units: not a malformed value
simple("slguset --num-proc 100000", *SL, "--num-proc", "100000", "--corpus", "{zh_corpus}",
       "--out", "{c}/o", expect="accept-or-refuse")  # fmt: skip
simple("slguset --encoding bogus", *SL, "--encoding", "nope", "--out", "{c}/o")
simple("slguset --lexicon-encoding bogus", *SL, "--lexicon-encoding", "nope", "--out", "{c}/o")
simple("slguset --tagger bogus", *SL, "--tagger", "magic", "--out", "{c}/o")
simple("slguset --name-check bogus", "curate", "slguset", "--name-check", "oracle", "--out",
       "{c}/o")  # fmt: skip
simple("slguset --executor bogus", *SL, "--executor", "cloud", "--out", "{c}/o")
simple("slguset --ray-address garbage", *SL, "--executor", "ray", "--ray-address", "not:an:addr",
       "--corpus", "{zh_corpus}", "--out", "{c}/o")  # fmt: skip
simple("slguset --slurm-time newline", *SL, "--executor", "slurm", "--dry-run", "--slurm-time",
       "1:00\n#SBATCH --evil", "--out", "{c}/o")  # fmt: skip
simple("slguset --slurm-time negative", *SL, "--executor", "slurm", "--dry-run", "--slurm-time",
       "-5", "--out", "{c}/o")  # fmt: skip
simple("slguset --slurm-partition space", *SL, "--executor", "slurm", "--dry-run",
       "--slurm-partition", "a b", "--out", "{c}/o")  # fmt: skip
simple("slguset --out with newline (slurm)", *SL, "--executor", "slurm", "--dry-run", "--out",
       "{c}/o\nx")  # fmt: skip
simple("slguset --slurm-time without slurm executor", *SL, "--slurm-time", "garbage",
       "--corpus", "{zh_corpus}", "--out", "{c}/o")  # fmt: skip
simple("slguset --name-eval missing", *SL, "--name-eval", "{c}/gold.jsonl", "--out", "{c}/o")


@case("slguset --name-eval malformed")
def _(f, c):
    return [*SL, "--corpus", f["zh_corpus"], "--name-eval", write(c / "g.jsonl", '{"text": 1}\n'),
            "--out", c / "o"]  # fmt: skip


@case("slguset --lexicon gender_pairs stray quote")
def _(f, c):
    lex = copy(BUNDLED / "slguset", c / "lex")
    p = lex / "gender_pairs.tsv"
    write(p, p.read_text() + '他"\t她\n')
    return [*SL, "--lexicon", lex, "--corpus", f["zh_corpus"], "--out", c / "o"]


@case("slguset --lexicon missing gender_pairs")
def _(f, c):
    lex = copy(BUNDLED / "slguset", c / "lex")
    (lex / "gender_pairs.tsv").unlink()
    return [*SL, "--lexicon", lex, "--corpus", f["zh_corpus"], "--out", c / "o"]


@case("slguset --lexicon binary word list")
def _(f, c):
    lex = copy(BUNDLED / "slguset", c / "lex")
    write(lex / "non_gender_words.txt", BINARY)
    return [*SL, "--lexicon", lex, "--corpus", f["zh_corpus"], "--out", c / "o"]


@case("slguset --lexicon word list GBK under utf-8")
def _(f, c):
    lex = copy(BUNDLED / "slguset", c / "lex")
    write(lex / "biological_terms.txt", "雄性\n雌性\n".encode("gbk"))
    return [*SL, "--lexicon", lex, "--corpus", f["zh_corpus"], "--out", c / "o"]


@case("slguset --out is the --corpus --overwrite", protect=lambda f, c: [c / "corpus.txt"])
def _(f, c):
    s = copy(f["zh_corpus"], c / "corpus.txt")
    return [*SL, "--corpus", s, "--out", s, "--overwrite"]


@case("slguset --overwrite over a becpro run", protect=lambda f, c: [c / "bec"])
def _(f, c):
    copy(f["bec_run"], c / "bec")
    return [*SL, "--corpus", f["zh_corpus"], "--out", c / "bec", "--overwrite"]


@case("slguset --out folder holding the --corpus --overwrite", protect=lambda f, c: [c / "d"])
def _(f, c):
    s = copy(f["zh_corpus"], c / "d" / "corpus.txt")
    return [*SL, "--corpus", s, "--out", c / "d", "--overwrite"]


# export release

REL = ["export", "release"]


def release_case(name: str, edit: Callable[[Path], None], source: str = "bec_run", *extra) -> None:
    @case(f"release {name}")
    def _(f, c):
        run = copy(f[source], c / "run")
        edit(run)
        return [*REL, run, "--name", "x", "--version", "1.0.0", "--unreviewed", "--out",
                c / "rel", *extra]  # fmt: skip


release_case("manifest not JSON", lambda r: write(r / "manifest.json", "{not json"))
release_case("manifest missing", lambda r: (r / "manifest.json").unlink())
release_case("manifest binary", lambda r: write(r / "manifest.json", BINARY))
release_case(
    "manifest family edited", lambda r: edit_manifest(r, lambda m: m.update(family="stereoset"))
)
release_case("manifest kind edited", lambda r: edit_manifest(r, lambda m: m.update(kind="release")))
release_case("manifest is a list", lambda r: write(r / "manifest.json", "[]"))
release_case(
    "candidates truncated",
    lambda r: write(r / "candidates.parquet", (r / "candidates.parquet").read_bytes()[:200]),
)
release_case(
    "candidates binary, rehashed", lambda r: (write(r / "candidates.parquet", BINARY), rehash(r))
)
release_case("candidates empty file", lambda r: write(r / "candidates.parquet", b""))
release_case("candidates edited, not rehashed",
             lambda r: edit_parquet(r / "candidates.parquet", lambda d: d.head(3)))  # fmt: skip
release_case("gender bogus, rehashed", lambda r: (edit_parquet(
    r / "candidates.parquet", lambda d: d.assign(gender="alien")), rehash(r)))  # fmt: skip
release_case("span past the end, rehashed", lambda r: (edit_parquet(
    r / "candidates.parquet", lambda d: d.assign(person_span=[[0, 9999]] * len(d))), rehash(r)))  # fmt: skip
release_case("duplicate ids, rehashed", lambda r: (edit_parquet(
    r / "candidates.parquet", lambda d: d.assign(id=d["id"].iloc[0])), rehash(r)))  # fmt: skip
release_case("candidates zero rows, rehashed", lambda r: (edit_parquet(
    r / "candidates.parquet", lambda d: d.head(0)), rehash(r)))  # fmt: skip
release_case("sentence NaN, rehashed", lambda r: (edit_parquet(
    r / "candidates.parquet", lambda d: d.assign(sentence=None)), rehash(r)))  # fmt: skip
release_case("family column edited, rehashed", lambda r: (edit_parquet(
    r / "candidates.parquet", lambda d: d.assign(family="crowspairs")), rehash(r)))  # fmt: skip
release_case("--license bogus", lambda r: None, "bec_run", "--license", "not a licence")
release_case("--license GPL typo", lambda r: None, "bec_run", "--license", "gpl-9.0")


def rel_args(f, c, *args, name="x", version="1.0.0"):
    return [*REL, *args, "--name", name, "--version", version, "--unreviewed", "--out", c / "rel"]


simple("release --version 99999999999999999999.0.0 (valid semver)", *REL, "{bec_run}", "--name",
       "x", "--version", "99999999999999999999.0.0", "--unreviewed", "--out", "{c}/rel",
       expect="accept-or-refuse")  # fmt: skip
for bad in ("1.0", "v1.0.0", "../1.0.0", "1.0.0\n", "01.0.0", "1.0.0-", " 1.0.0"):
    simple(f"release --version {bad!r}", *REL, "{bec_run}", "--name", "x", "--version", bad,
           "--unreviewed", "--out", "{c}/rel")  # fmt: skip
for bad in ("..", "a/b", "数据集", "", "-x", "a\nb", "x" * 300, "abc\n", " abc"):
    simple(f"release --name {bad[:20]!r}", *REL, "{bec_run}", "--name", bad, "--version", "1.0.0",
           "--unreviewed", "--out", "{c}/rel")  # fmt: skip
simple("release --out ''", *REL, "{bec_run}", "--name", "x", "--version", "1.0.0",
       "--unreviewed", "--out", "", expect="accept-or-refuse")  # fmt: skip
simple("release source missing", *REL, "{c}/none", "--name", "x", "--version", "1.0.0",
       "--unreviewed", "--out", "{c}/rel")  # fmt: skip
simple("release source empty folder", *REL, "{c}", "--name", "x", "--version", "1.0.0",
       "--unreviewed", "--out", "{c}/rel")  # fmt: skip
simple("release unreviewed run without --unreviewed", *REL, "{bec_run}", "--name", "x",
       "--version", "1.0.0", "--out", "{c}/rel")  # fmt: skip
simple("release two families", *REL, "{bec_run}", "{cp_run}", "--name", "x", "--version",
       "1.0.0", "--unreviewed", "--out", "{c}/rel")  # fmt: skip
simple("release same run twice", *REL, "{bec_run}", "{bec_run}", "--name", "x", "--version",
       "1.0.0", "--unreviewed", "--out", "{c}/rel")  # fmt: skip
simple("release source is a release", *REL, "{bec_rel}", "--name", "x", "--version", "1.0.0",
       "--unreviewed", "--out", "{c}/rel")  # fmt: skip


@case("release existing version, other records", protect=lambda f, c: [c / "rel"])
def _(f, c):
    copy(f["bec_rel"].parent.parent, c / "rel")
    return [*REL, f["cp_run"], "--name", "becpro", "--version", "1.0.0", "--unreviewed",
            "--out", c / "rel", "--exist-ok"]  # fmt: skip


@case("release name of another family", protect=lambda f, c: [c / "rel"])
def _(f, c):
    copy(f["bec_rel"].parent.parent, c / "rel")
    return [*REL, f["cp_run"], "--name", "becpro", "--version", "2.0.0", "--unreviewed",
            "--out", c / "rel"]  # fmt: skip


@case("release --out is a file", protect=lambda f, c: [c / "rel"])
def _(f, c):
    write(c / "rel", "keep\n")
    return rel_args(f, c, f["bec_run"])


@case("release --out is the run", protect=lambda f, c: [c / "run"])
def _(f, c):
    run = copy(f["bec_run"], c / "run")
    return [*REL, run, "--name", "x", "--version", "1.0.0", "--unreviewed", "--out", run]


@case(
    "release older version after newer",
    expect="accept-or-refuse",
    protect=lambda f, c: [c / "rel" / "becpro" / "1.0.0"],
)
def _(f, c):
    copy(f["bec_rel"].parent.parent, c / "rel")
    return [*REL, f["bec_run"], "--name", "becpro", "--version", "0.9.0", "--unreviewed",
            "--out", c / "rel"]  # fmt: skip


simple("release --push-to-hub offline", *REL, "{bec_run}", "--name", "x", "--version", "1.0.0",
       "--unreviewed", "--out", "{c}/rel", "--push-to-hub", "bad repo name")  # fmt: skip


# export convert

CV = ["export", "convert"]
simple("convert source missing", *CV, "{c}/none", "--format", "becpro-tsv", "--out", "{c}/o.tsv")
simple("convert format of another family", *CV, "{bec_rel}", "--format", "crows-csv", "--out",
       "{c}/o.csv")  # fmt: skip
simple("convert format bogus", *CV, "{bec_rel}", "--format", "xlsx", "--out", "{c}/o")
simple("convert --masking bogus", *CV, "{bec_rel}", "--format", "becpro-tsv", "--masking", "x",
       "--out", "{c}/o.tsv")  # fmt: skip
simple("convert --out is a folder", *CV, "{bec_rel}", "--format", "becpro-tsv", "--out", "{c}")


@case("convert --out user file --overwrite", protect=lambda f, c: [c / "o.tsv"])
def _(f, c):
    write(c / "o.tsv", "my data\n")
    return [*CV, f["bec_rel"], "--format", "becpro-tsv", "--out", c / "o.tsv", "--overwrite"]


@case("convert --out is the source parquet --overwrite", protect=lambda f, c: [c / "rel"])
def _(f, c):
    rel = copy(f["bec_rel"], c / "rel")
    p = first_parquet(rel)
    return [*CV, p, "--format", "becpro-tsv", "--out", p, "--overwrite"]


@case("convert lm-eval --out user folder --overwrite", protect=lambda f, c: [c / "o"])
def _(f, c):
    user_folder(c / "o")
    return [*CV, f["ss_rel"], "--format", "lm-eval", "--out", c / "o", "--overwrite"]


@case("convert lm-eval --out the release --overwrite", protect=lambda f, c: [c / "rel"])
def _(f, c):
    rel = copy(f["ss_rel"], c / "rel")
    return [*CV, rel, "--format", "lm-eval", "--out", rel, "--overwrite"]


@case("convert lm-eval over another family's lm-eval --overwrite", protect=lambda f, c: [c / "o"])
def _(f, c):
    cli(*CV, f["ss_rel"], "--format", "lm-eval", "--out", c / "o", env=ENV)
    return [*CV, f["cp_rel"], "--format", "lm-eval", "--out", c / "o", "--overwrite"]


@case("convert parquet without family column")
def _(f, c):
    import pandas as pd

    p = c / "x.parquet"
    c.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"a": [1, 2]}).to_parquet(p)
    return [*CV, p, "--format", "becpro-tsv", "--out", c / "o.tsv"]


@case("convert parquet with two families")
def _(f, c):
    import pandas as pd

    c.mkdir(parents=True, exist_ok=True)
    a = pd.read_parquet(f["bec_run"] / "candidates.parquet").head(2)
    b = pd.read_parquet(f["cp_run"] / "candidates.parquet").head(2)
    pd.concat([a, b]).to_parquet(c / "x.parquet")
    return [*CV, c / "x.parquet", "--format", "becpro-tsv", "--out", c / "o.tsv"]


@case("convert release with edited parquet")
def _(f, c):
    rel = copy(f["bec_rel"], c / "rel")
    edit_parquet(first_parquet(rel), lambda d: d.head(2))
    return [*CV, rel, "--format", "becpro-tsv", "--out", c / "o.tsv"]


@case("convert binary parquet")
def _(f, c):
    return [*CV, write(c / "x.parquet", BINARY), "--format", "becpro-tsv", "--out", c / "o.tsv"]


@case("convert becpro-tsv over a crows-csv export --overwrite", protect=lambda f, c: [c / "o.csv"])
def _(f, c):
    cli(*CV, f["cp_rel"], "--format", "crows-csv", "--out", c / "o.csv", env=ENV)
    return [*CV, f["bec_rel"], "--format", "becpro-tsv", "--out", c / "o.csv", "--overwrite"]


# score

SC_Q = ["--limit", "2", "--bootstrap", "0", "--no-progress"]


def score(family: str, dataset: str, model: str, *extra) -> list:
    return ["score", family, "-d", dataset, "-m", model, "-o", "{c}/o", *SC_Q, *extra]


simple("score becpro --dataset missing", *score("becpro", "{c}/none", "{bert}"))
simple("score becpro --dataset user folder", *score("becpro", "{c}", "{bert}"))
simple("score becpro --dataset of another family", *score("becpro", "{cp_rel}", "{bert}"))
simple("score becpro --dataset is a run", *score("becpro", "{bec_run}", "{bert}"),
       expect="accept-or-refuse")  # fmt: skip
simple("score becpro --model missing", *score("becpro", "{bec_rel}", "{c}/nomodel"))
simple("score becpro --model empty folder", *score("becpro", "{bec_rel}", "{c}"))
simple("score becpro --model is a text file", *score("becpro", "{bec_rel}", "{zh_corpus}"))
# by design: a model given twice is scored twice (-2), a control the tests use (rho = 1)
simple("score becpro --model same twice", *score("becpro", "{bec_rel}", "{bert}"), "-m", "{bert}",
       expect="accept-or-refuse")  # fmt: skip
simple("score becpro --kind bogus", *score("becpro", "{bec_rel}", "{bert}"), "--kind", "magic")
simple("score becpro --kind causal on BERT", *score("becpro", "{bec_rel}", "{bert}"), "--kind",
       "seq2seq")  # fmt: skip
simple("score becpro --device bogus", *score("becpro", "{bec_rel}", "{bert}"), "--device", "gpu9")
simple(
    "score becpro --device cuda:7", *score("becpro", "{bec_rel}", "{bert}"), "--device", "cuda:7"
)
simple("score becpro --dtype bogus", *score("becpro", "{bec_rel}", "{bert}"), "--dtype", "float7")
simple("score becpro --device-map bogus", *score("becpro", "{bec_rel}", "{bert}"), "--device-map",
       "everywhere")  # fmt: skip
simple("score becpro --max-memory garbage", *score("becpro", "{bec_rel}", "{bert}"),
       "--device-map", "auto", "--max-memory", "lots")  # fmt: skip
simple(
    "score becpro --batch-tokens 0", *score("becpro", "{bec_rel}", "{bert}"), "--batch-tokens", "0"
)
simple("score becpro --batch-tokens 1", *score("becpro", "{bec_rel}", "{bert}"), "--batch-tokens", "1",
       expect="accept-or-refuse")  # fmt: skip
simple("score becpro --limit 0", "score", "becpro", "-d", "{bec_rel}", "-m", "{bert}", "-o",
       "{c}/o", "--limit", "0")  # fmt: skip
simple("score becpro --bootstrap -1", *score("becpro", "{bec_rel}", "{bert}"), "--bootstrap", "-1")
simple("score becpro --seed -1", *score("becpro", "{bec_rel}", "{bert}"), "--seed", "-1")
simple("score becpro --seed 2**40", *score("becpro", "{bec_rel}", "{bert}"), "--seed", str(2**40))
simple(
    "score becpro --procedure bogus", *score("becpro", "{bec_rel}", "{bert}"), "--procedure", "x"
)
simple("score becpro --dataset hub id offline", *score("becpro", "nobody/nothing", "{bert}"))


@case("score -o '' (the current folder) --overwrite", protect=lambda f, c: [c])
def _(f, c):
    user_folder(c)
    return ["score", "becpro", "-d", f["bec_rel"], "-m", f["bert"], "-o", "", *SC_Q, "--overwrite"]


@case("score --out user folder --overwrite", protect=lambda f, c: [c / "o"])
def _(f, c):
    user_folder(c / "o")
    return [x.format(c=c, **f) for x in score("becpro", "{bec_rel}", "{bert}")] + ["--overwrite"]


@case("score --out is the model folder --overwrite", protect=lambda f, c: [c / "m"])
def _(f, c):
    m = copy(Path(f["bert"]), c / "m")
    return ["score", "becpro", "-d", f["bec_rel"], "-m", m, "-o", m, *SC_Q, "--overwrite"]


@case("score --out is the release --overwrite", protect=lambda f, c: [c / "rel"])
def _(f, c):
    rel = copy(f["bec_rel"], c / "rel")
    return ["score", "becpro", "-d", rel, "-m", f["bert"], "-o", rel, *SC_Q, "--overwrite"]


@case("score becpro --overwrite over a stereoset score", protect=lambda f, c: [c / "o"])
def _(f, c):
    copy(f["ss_bert"], c / "o")
    return [x.format(c=c, **f) for x in score("becpro", "{bec_rel}", "{bert}")] + ["--overwrite"]


@case("score release with parquet edited, not rehashed")
def _(f, c):
    rel = copy(f["bec_rel"], c / "rel")
    edit_parquet(first_parquet(rel), lambda d: d.head(2))
    return ["score", "becpro", "-d", rel, "-m", f["bert"], "-o", c / "o", *SC_Q]


@case("score release with manifest missing")
def _(f, c):
    rel = copy(f["bec_rel"], c / "rel")
    (rel / "manifest.json").unlink()
    return ["score", "becpro", "-d", rel, "-m", f["bert"], "-o", c / "o", *SC_Q]


@case("score stereoset release without context, rehashed")
def _(f, c):
    rel = copy(f["ss_rel"], c / "rel")
    for p in rel.rglob("*.parquet"):
        edit_parquet(p, lambda d: d.drop(columns=["context"]))
    rehash(rel)
    return ["score", "stereoset", "-d", rel, "-m", f["bert"], "-o", c / "o", *SC_Q]


@case("score becpro model config.json binary")
def _(f, c):
    m = copy(Path(f["bert"]), c / "m")
    write(m / "config.json", BINARY)
    return ["score", "becpro", "-d", f["bec_rel"], "-m", m, "-o", c / "o", *SC_Q]


@case("score becpro model weights truncated")
def _(f, c):
    m = copy(Path(f["bert"]), c / "m")
    w = next(m.glob("*.safetensors"))
    write(w, w.read_bytes()[:1000])
    return ["score", "becpro", "-d", f["bec_rel"], "-m", m, "-o", c / "o", *SC_Q]


@case("score becpro model config.json wrong type")
def _(f, c):
    m = copy(Path(f["bert"]), c / "m")
    cfg = json.loads((m / "config.json").read_text())
    cfg["num_hidden_layers"] = "two"
    write(m / "config.json", json.dumps(cfg))
    return ["score", "becpro", "-d", f["bec_rel"], "-m", m, "-o", c / "o", *SC_Q]


simple("score slguset with an English vocabulary", *score("slguset", "{sl_rel}", "{bert}"),
       expect="warn")  # fmt: skip
simple("score stereoset --nsp-train bogus", *score("stereoset", "{ss_rel}", "{bert}"),
       "--nsp-train", "magic")  # fmt: skip


@case("score stereoset --nsp-corpus GBK")
def _(f, c):
    corpus = write(c / "nsp.txt", ("他是好人。\n".encode("gbk")) * 50)
    return ["score", "stereoset", "-d", f["ss_rel"], "-m", f["bert"], "-o", c / "o", *SC_Q,
            "--nsp-train", "head", "--nsp-corpus", corpus]  # fmt: skip


@case("score stereoset --nsp-corpus empty")
def _(f, c):
    return ["score", "stereoset", "-d", f["ss_rel"], "-m", f["bert"], "-o", c / "o", *SC_Q,
            "--nsp-train", "head", "--nsp-corpus", write(c / "nsp.txt", "")]  # fmt: skip


# score merge / compare / import-lm-eval / stereoset-eval

simple("merge same folder twice", "score", "merge", "{bec_bert}", "{bec_bert}", "-o", "{c}/o")
simple("merge two releases", "score", "merge", "{cp_gpt2}", "{cp2_gpt2}", "-o", "{c}/o")
simple("merge two families", "score", "merge", "{bec_bert}", "{cp_bert}", "-o", "{c}/o")
simple("merge missing folder", "score", "merge", "{bec_bert}", "{c}/none", "-o", "{c}/o")
simple("merge user folder", "score", "merge", "{bec_bert}", "{c}", "-o", "{c}/o")
simple("merge one folder", "score", "merge", "{bec_bert}", "-o", "{c}/o", expect="accept-or-refuse")
simple("merge a release", "score", "merge", "{bec_bert}", "{bec_rel}", "-o", "{c}/o")


@case("merge -o one input --overwrite", protect=lambda f, c: [c / "a"])
def _(f, c):
    a = copy(f["cp_bert"], c / "a")
    return ["score", "merge", a, f["cp_gpt2"], "-o", a, "--overwrite"]


@case("merge through a symlink twice")
def _(f, c):
    c.mkdir(parents=True, exist_ok=True)
    (c / "link").symlink_to(f["bec_bert"])
    return ["score", "merge", f["bec_bert"], c / "link", "-o", c / "o"]


@case("merge -o user folder --overwrite", protect=lambda f, c: [c / "o"])
def _(f, c):
    user_folder(c / "o")
    return ["score", "merge", f["cp_bert"], f["cp_gpt2"], "-o", c / "o", "--overwrite"]


@case("merge score folder with a results table truncated")
def _(f, c):
    a = copy(f["cp_bert"], c / "a")
    p = sorted(a.rglob("*.csv"))[0]
    write(p, p.read_bytes()[:100])
    return ["score", "merge", a, f["cp_gpt2"], "-o", c / "o"]


@case("merge score folder with manifest release edited")
def _(f, c):
    a = copy(f["cp_bert"], c / "a")
    text = (a / "manifest.json").read_text().replace('"1.0.0"', '"9.9.9"')
    write(a / "manifest.json", text)
    return ["score", "merge", a, f["cp_gpt2"], "-o", c / "o"]


@case("merge score folder with models.json not JSON")
def _(f, c):
    a = copy(f["cp_bert"], c / "a")
    for p in a.glob("*.json"):
        if p.name != "manifest.json":
            write(p, "{oops")
    return ["score", "merge", a, f["cp_gpt2"], "-o", c / "o"]


simple("compare same folder twice", "score", "compare", "--stereoset", "{ss_bert}", "--stereoset",
       "{ss_bert}", "--crowspairs", "{cp_bert}")  # fmt: skip
simple("compare wrong families", "score", "compare", "--stereoset", "{bec_bert}", "--crowspairs",
       "{cp_bert}")  # fmt: skip
simple("compare missing", "score", "compare", "--stereoset", "{c}/none", "--crowspairs",
       "{cp_bert}")  # fmt: skip
simple("compare --seed -1", "score", "compare", "--stereoset", "{ss_bert}", "--crowspairs",
       "{cp_bert}", "--seed", "-1")  # fmt: skip

IMP = ["score", "import-lm-eval"]
simple("import-lm-eval missing", *IMP, "{c}/none", "--dataset", "{cp_rel}", "-o", "{c}/o")
simple("import-lm-eval empty folder", *IMP, "{c}", "--dataset", "{cp_rel}", "-o", "{c}/o")
simple("import-lm-eval dataset missing", *IMP, "{c}", "--dataset", "{c}/none", "-o", "{c}/o")
simple("import-lm-eval --bootstrap -1", *IMP, "{c}", "--dataset", "{cp_rel}", "-o", "{c}/o",
       "--bootstrap", "-1")  # fmt: skip


@case("import-lm-eval random JSON")
def _(f, c):
    write(c / "r" / "results.json", '{"results": 3}')
    write(c / "r" / "samples_x.jsonl", "not json\n")
    return [*IMP, c / "r", "--dataset", f["cp_rel"], "-o", c / "o"]


@case("import-lm-eval binary results")
def _(f, c):
    write(c / "r" / "results_2024.json", BINARY)
    return [*IMP, c / "r", "--dataset", f["cp_rel"], "-o", c / "o"]


@case("import-lm-eval -o is the results --overwrite", protect=lambda f, c: [c / "r"])
def _(f, c):
    write(c / "r" / "results_2024.json", '{"results": {}}')
    return [*IMP, c / "r", "--dataset", f["cp_rel"], "-o", c / "r", "--overwrite"]


@case("import-lm-eval same folder twice")
def _(f, c):
    write(c / "r" / "results_2024.json", '{"results": {}}')
    return [*IMP, c / "r", c / "r", "--dataset", f["cp_rel"], "-o", c / "o"]


SE = ["score", "stereoset-eval", "--dataset", "{ss_rel}", "--predictions"]
simple("stereoset-eval predictions missing", *SE, "{c}/none.json")
simple("stereoset-eval predictions is a folder", *SE, "{c}")


def predictions_case(name: str, data: bytes | str) -> None:
    @case(f"stereoset-eval predictions {name}")
    def _(f, c):
        return [x.format(c=c, **f) for x in SE] + [str(write(c / "p.json", data))]


predictions_case("binary", BINARY)
predictions_case("not JSON", "{oops")
predictions_case("a list", "[1, 2]")
predictions_case("empty object", "{}")
predictions_case("unknown ids", json.dumps({"intrasentence": [{"id": "nope", "score": 0.5}],
                                            "intersentence": []}))  # fmt: skip
predictions_case("score NaN", json.dumps({"intrasentence": [{"id": "nope", "score": float("nan")}],
                                          "intersentence": []}))  # fmt: skip
predictions_case("score a string", json.dumps({"intrasentence": [{"id": "x", "score": "high"}],
                                               "intersentence": []}))  # fmt: skip


@case("stereoset-eval predictions with one NaN score")
def _(f, c):
    data = json.loads(f["predictions"].read_text())
    for split in data.values():
        if isinstance(split, list) and split:
            split[0]["score"] = float("nan")
            break
    return [x.format(c=c, **f) for x in SE] + [str(write(c / "p.json", json.dumps(data)))]


@case("stereoset-eval predictions with an id twice")
def _(f, c):
    data = json.loads(f["predictions"].read_text())
    for split in data.values():
        if isinstance(split, list) and split:
            split.append(dict(split[0]))
            break
    return [x.format(c=c, **f) for x in SE] + [str(write(c / "p.json", json.dumps(data)))]


# annotate (option values; nothing needs a browser; no server is started by a refused case)

AN = ["annotate"]
simple("push run missing", *AN, "push", "{c}/none", "--dataset", "d")
simple("push --dataset '..'", *AN, "push", "{bec_run}", "--dataset", "..")
simple("push --dataset with newline", *AN, "push", "{bec_run}", "--dataset", "a\nb")
simple(
    "push --workspace with space", *AN, "push", "{bec_run}", "--dataset", "d", "--workspace", "a b"
)
simple("push --min-submitted 0", *AN, "push", "{bec_run}", "--dataset", "d", "--min-submitted", "0")
simple(
    "push --control-share -1", *AN, "push", "{bec_run}", "--dataset", "d", "--control-share", "-1"
)
simple(
    "push --control-share nan", *AN, "push", "{bec_run}", "--dataset", "d", "--control-share", "nan"
)
simple(
    "push --control-share inf", *AN, "push", "{bec_run}", "--dataset", "d", "--control-share", "inf"
)
simple(
    "push --controls missing", *AN, "push", "{bec_run}", "--dataset", "d", "--controls", "{c}/no"
)
simple("push --controls of another family", *AN, "push", "{bec_run}", "--dataset", "d",
       "--controls", "{cp_rel}")  # fmt: skip
simple("push a release folder", *AN, "push", "{bec_rel}", "--dataset", "d")
simple("push --data-dir is a file", *AN, "push", "{bec_run}", "--dataset", "d", "--data-dir",
       "{zh_corpus}")  # fmt: skip


@case("push run with manifest family edited")
def _(f, c):
    run = copy(f["bec_run"], c / "run")
    edit_manifest(run, lambda m: m.update(family="stereoset"))
    return [*AN, "push", run, "--dataset", "d"]


simple("pull --policy bogus", *AN, "pull", "--dataset", "d", "--out", "{c}/o", "--policy", "vote")
simple("pull --min-competence 2", *AN, "pull", "--dataset", "d", "--out", "{c}/o",
       "--min-competence", "2")  # fmt: skip
simple("pull --min-competence nan", *AN, "pull", "--dataset", "d", "--out", "{c}/o",
       "--min-competence", "nan")  # fmt: skip
simple("pull --adjudicators empty names", *AN, "pull", "--dataset", "d", "--out", "{c}/o",
       "--adjudicators", ",,")  # fmt: skip
simple("pull --adjudicators bad name", *AN, "pull", "--dataset", "d", "--out", "{c}/o",
       "--adjudicators", "a b,<script>")  # fmt: skip
simple("pull --run missing", *AN, "pull", "--dataset", "d", "--out", "{c}/o", "--run", "{c}/none")
simple("pull --dataset 'a/b'", *AN, "pull", "--dataset", "a/b", "--out", "{c}/o")


simple("users --role bogus", *AN, "users", "bob", "--role", "god")
simple("users username with newline", *AN, "users", "bo\nb")
simple("users username ending in a newline", *AN, "users", "bob\n")
simple("users username empty", *AN, "users", "")
simple("users username with slash", *AN, "users", "../root")
simple("users --csv missing", *AN, "users", "--csv", "{c}/u.csv")
simple("users --reset-password bad name", *AN, "users", "--reset-password", "a b")


@case("users --csv binary")
def _(f, c):
    return [*AN, "users", "--csv", write(c / "u.csv", BINARY)]


@case("users --csv bad role")
def _(f, c):
    return [*AN, "users", "--csv", write(c / "u.csv", "alice,emperor\n")]


@case("users --csv stray quote")
def _(f, c):
    return [*AN, "users", "--csv", write(c / "u.csv", 'alice,"annotator\n')]


@case("users --invite over a user file", protect=lambda f, c: [c / "inv.txt"])
def _(f, c):
    write(c / "inv.txt", "my notes\n")
    return [*AN, "users", "alice", "--invite", c / "inv.txt"]


simple("serve --port -1", *AN, "serve", "--port", "-1")
simple("serve --port 70000", *AN, "serve", "--port", "70000")
simple("serve --host not a host", *AN, "serve", "--host", "not a host", "--port", "0")
simple("serve --host 0.0.0.0 without TLS", *AN, "serve", "--host", "0.0.0.0", "--port", "0")
simple("serve --host 192.0.2.1 plain", *AN, "serve", "--host", "192.0.2.1", "--port", "0")
simple("serve --tls-cert missing", *AN, "serve", "--tls-cert", "{c}/c.pem", "--tls-key",
       "{c}/k.pem", "--port", "0")  # fmt: skip
simple("serve --tls-key without cert", *AN, "serve", "--tls-key", "{zh_corpus}", "--port", "0")
simple("serve --public-url javascript", *AN, "serve", "--public-url", "javascript:alert(1)",
       "--port", "0")  # fmt: skip
simple("serve --trusted-proxy garbage", *AN, "serve", "--trusted-proxy", "everyone", "--port", "0")
simple("serve --data-dir is a file", *AN, "serve", "--data-dir", "{zh_corpus}", "--port", "0")


@case("serve --tls-cert binary")
def _(f, c):
    cert = write(c / "c.pem", BINARY)
    return [*AN, "serve", "--tls-cert", cert, "--tls-key", cert, "--port", "0"]


# against the live server (dataset 'bec1' holds the BEC-Pro run)


@case("users --csv with a header, bad role")
def _(f, c):
    return [*AN, "users", "--csv", write(c / "u.csv", "username,role\ncarol,emperor\n")]


@case("users --csv with a header, a user twice")
def _(f, c):
    return [
        *AN,
        "users",
        "--csv",
        write(c / "u.csv", "username,role\ndave,annotator\ndave,admin\n"),
    ]


@case("users --csv with a header, stray quote")
def _(f, c):
    return [*AN, "users", "--csv", write(c / "u.csv", 'username,role\n"eve,annotator\n')]


simple("users existing annotator made owner", *AN, "users", "biasforge-owner", "--role",
       "annotator")  # fmt: skip
simple("push a crowspairs run into a becpro dataset", *AN, "push", "{cp_run}", "--dataset", "bec1",
       "--min-submitted", "1")  # fmt: skip
simple("pull a dataset that does not exist", *AN, "pull", "--dataset", "nope", "--out", "{c}/o")
simple("pull --run of another family", *AN, "pull", "--dataset", "bec1", "--out", "{c}/o",
       "--run", "{cp_run}")  # fmt: skip
simple("pull --adjudicators unknown user", *AN, "pull", "--dataset", "bec1", "--out", "{c}/o",
       "--adjudicators", "nobody")  # fmt: skip


def pull_over_inputs(dataset: str, label: str) -> None:
    """``pull --overwrite`` over a user's folder and over its own --run (of a dataset that does
    not exist, 'd', and of the live one, 'bec1')."""

    @case(f"pull{label} --out user folder --overwrite", protect=lambda f, c: [c / "o"])
    def _(f, c):
        user_folder(c / "o")
        return [*AN, "pull", "--dataset", dataset, "--out", c / "o", "--overwrite"]

    @case(f"pull{label} --out is the --run --overwrite", protect=lambda f, c: [c / "run"])
    def _(f, c):
        run = copy(f["bec_run"], c / "run")
        return [*AN, "pull", "--dataset", dataset, "--out", run, "--run", run, "--overwrite"]


pull_over_inputs("d", "")
pull_over_inputs("bec1", " (live)")


@case("pull (live) --overwrite over a becpro run", protect=lambda f, c: [c / "run"])
def _(f, c):
    run = copy(f["bec_run"], c / "run")
    return [*AN, "pull", "--dataset", "bec1", "--out", run, "--overwrite"]


@case("users (live) --invite over a user file", protect=lambda f, c: [c / "inv.txt"])
def _(f, c):
    write(c / "inv.txt", "my notes\n")
    return [*AN, "users", "frank", "--invite", c / "inv.txt"]


simple("agreement --dataset '..'", *AN, "agreement", "--dataset", "..")
simple("families unknown", "families", "nope")


# a named pipe where a file is expected: whoever opens it without looking waits for a writer
# that never comes (run these with --only fifo --timeout 20: a blocked read never ends)


def fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        path.unlink()
    os.mkfifo(path)
    return path


def fifo_case(name: str, make: Make) -> None:
    CASES.append(Case(f"fifo: {name}", make))


fifo_case(
    "crowspairs --source", lambda f, c: [*CP, "--source", fifo(c / "cp.csv"), "--out", c / "o"]
)
fifo_case(
    "stereoset --source", lambda f, c: [*SS, "--source", fifo(c / "s.jsonl"), "--out", c / "o"]
)
fifo_case("slguset --corpus", lambda f, c: [*SL, "--corpus", fifo(c / "zh.txt"), "--out", c / "o"])
fifo_case("crowspairs --group-words",
          lambda f, c: [*CP, "--group-words", fifo(c / "gw.tsv"), "--out", c / "o"])  # fmt: skip
fifo_case("crowspairs --memory", lambda f, c: ["curate", "crowspairs", "--lang", "fr", "--memory",
                                               fifo(c / "tm.sqlite"), "--limit", "2", "--out", c / "o"])  # fmt: skip


@case("fifo: becpro lexicon professions.tsv")
def _(f, c):
    lex = lexicon_copy(c)
    fifo(lex / "professions.tsv")
    return ["curate", "becpro", "--lang", "en", "--lexicon", lex, "--out", c / "o"]


@case("fifo: slguset --lexicon gender_pairs.tsv")
def _(f, c):
    lex = copy(BUNDLED / "slguset", c / "lex")
    fifo(lex / "gender_pairs.tsv")
    return [*SL, "--lexicon", lex, "--corpus", f["zh_corpus"], "--out", c / "o"]


@case("fifo: release of a run whose manifest.json is a pipe")
def _(f, c):
    run = copy(f["bec_run"], c / "run")
    fifo(run / "manifest.json")
    return rel_args(f, c, run)


@case("fifo: release of a run whose candidates.parquet is a pipe")
def _(f, c):
    run = copy(f["bec_run"], c / "run")
    fifo(run / "candidates.parquet")
    return rel_args(f, c, run)


fifo_case("convert a pipe", lambda f, c: [*CV, fifo(c / "x.parquet"), "--format", "becpro-tsv",
                                          "--out", c / "o.tsv"])  # fmt: skip


@case("fifo: score a release whose parquet is a pipe")
def _(f, c):
    rel = copy(f["bec_rel"], c / "rel")
    fifo(first_parquet(rel))
    return ["score", "becpro", "-d", rel, "-m", f["bert"], "-o", c / "o", *SC_Q]


@case("fifo: score a model whose config.json is a pipe")
def _(f, c):
    m = copy(Path(f["bert"]), c / "m")
    fifo(m / "config.json")
    return ["score", "becpro", "-d", f["bec_rel"], "-m", m, "-o", c / "o", *SC_Q]


@case("fifo: score stereoset --nsp-corpus")
def _(f, c):
    return ["score", "stereoset", "-d", f["ss_rel"], "-m", f["bert"], "-o", c / "o", *SC_Q,
            "--nsp-train", "head", "--nsp-corpus", fifo(c / "nsp.txt")]  # fmt: skip


@case("fifo: merge a score folder whose models.json is a pipe")
def _(f, c):
    a = copy(f["cp_bert"], c / "a")
    fifo(a / "models.json")
    return ["score", "merge", a, f["cp_gpt2"], "-o", c / "o"]


fifo_case("stereoset-eval --predictions",
          lambda f, c: [x.format(c=c, **f) for x in SE] + [str(fifo(c / "p.json"))])  # fmt: skip


@case("fifo: import-lm-eval results file")
def _(f, c):
    fifo(c / "r" / "results_2024.json")
    return [*IMP, c / "r", "--dataset", f["cp_rel"], "-o", c / "o"]


fifo_case("users --csv", lambda f, c: [*AN, "users", "--csv", fifo(c / "u.csv")])
fifo_case("serve --tls-cert", lambda f, c: [*AN, "serve", "--tls-cert", fifo(c / "c.pem"),
                                            "--tls-key", fifo(c / "k.pem"), "--port", "0"])  # fmt: skip
fifo_case("push a run whose manifest.json is a pipe", lambda f, c: [
    *AN, "push", _run_with_fifo(f, c), "--dataset", "d2"])  # fmt: skip


def _run_with_fifo(f: dict, c: Path) -> Path:
    run = copy(f["bec_run"], c / "run")
    fifo(run / "manifest.json")
    return run


# -- running and classifying ----------------------------------------------------------------

ENV: dict = {}


def run_case(case: Case, f: dict, root: Path, timeout: float) -> tuple:
    c = root / "cases" / "".join(ch if ch.isalnum() else "_" for ch in case.name)[:80]
    c.mkdir(parents=True)
    try:
        args = [str(a) for a in case.make(f, c)]
        if args[:2] == ["annotate", "serve"] and "--data-dir" not in args:
            args += ["--data-dir", str(c / "argilla")]  # never the sweep's own server
    except (SystemExit, Exception) as exc:  # preparing the case failed: the sweep's own bug
        return case.name, "-", "setup", str(exc).splitlines()[0], "SETUP", 0.0
    protected = {p: digest(p) for p in case.protect(f, c)}
    start = time.monotonic()
    process = subprocess.Popen(
        [str(EXE), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
        start_new_session=True, cwd=c,
    )  # fmt: skip
    try:
        _, err = process.communicate(timeout=timeout)
        code = process.returncode
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        _out, err = process.communicate()
        code = None
    if args[:2] == ["annotate", "serve"]:
        _stop_servers(c)
    changed = [str(p) for p, d in protected.items() if digest(p) != d]
    seconds = time.monotonic() - start
    return case.name, " ".join(args[:2]), code, _first_line(err), classify(
        case, code, err, changed
    ), seconds  # fmt: skip


def _first_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    for line in lines:
        if line.startswith(("error:", "Error", "warning:")) or "Error:" in line:
            return line.strip()[:160]
    if "Traceback" in err:
        return lines[-1][:160]
    return (lines[0] if lines else "")[:160]


def classify(case: Case, code, err: str, changed: list) -> str:
    if changed:
        return "DATA LOSS"
    if code is None:
        return "HANG"
    if "Traceback" in err or code not in (0, 2):
        return "TRACEBACK"
    if code == 2:
        return "OK" if case.expect in ("refuse", "accept-or-refuse") else "REFUSED"
    if case.expect == "warn":
        return "OK" if "warning:" in err else "SILENT"
    if case.expect == "accept-or-refuse":
        return "OK"
    return "SILENT"


def _stop_servers(c: Path) -> None:
    """A serve case that started a server by mistake leaves nothing running."""
    subprocess.run([str(EXE), "annotate", "stop", "--data-dir", str(c / "argilla")], env=ENV,
                   capture_output=True, timeout=60)  # fmt: skip


def start_server(f: dict) -> None:
    """The sweep's own embedded Argilla server, with the BEC-Pro run pushed as 'bec1', so the
    annotate cases meet a live server (stopped at the end)."""
    print("starting the embedded Argilla server and pushing the BEC-Pro run …", flush=True)
    cli("annotate", "serve", "--background", "--port", "0", env=ENV)
    cli("annotate", "push", f["bec_run"], "--dataset", "bec1", "--min-submitted", "1", env=ENV)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="run the cases whose name contains this")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    parser.add_argument("--workdir", type=Path, help="reuse this folder's fixtures")
    parser.add_argument("--skip", type=int, default=0, help="start after this many cases")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    args = parser.parse_args()
    if args.list:
        for case in CASES:
            print(case.name)
        print(f"{len(CASES)} cases")
        return
    root = args.workdir or Path(tempfile.mkdtemp(prefix="hostile-"))
    ENV.update(os.environ, BIASFORGE_HOME=str(root / "home"), HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", COLUMNS="200", NO_COLOR="1")  # fmt: skip
    for key in ("DEEPL_AUTH_KEY", "DEEPL_SERVER_URL", "ARGILLA_API_URL", "ARGILLA_API_KEY"):
        ENV.pop(key, None)
    fixtures = root / "fixtures.json"
    if fixtures.exists():
        f = {k: (Path(v) if k not in ("bert", "gpt2") else v)
             for k, v in json.loads(fixtures.read_text()).items()}  # fmt: skip
    else:
        f = build_fixtures(root, ENV)
        fixtures.write_text(json.dumps({k: str(v) for k, v in f.items()}))
    if not args.skip:
        shutil.rmtree(root / "cases", ignore_errors=True)
    start_server(f)
    rows = []
    selected = [case for case in CASES if args.only in case.name][args.skip :]
    try:
        for i, case in enumerate(selected, 1):
            row = run_case(case, f, root, args.timeout)
            rows.append(row)
            name, command, code, line, verdict = row[:5]
            print(f"{i:3d} {verdict:<10} {code!s:>4} {row[5]:5.1f}s {name[:48]:<48} | {line}",
                  flush=True)  # fmt: skip
    finally:
        subprocess.run([str(EXE), "annotate", "stop"], env=ENV, capture_output=True, timeout=120)
    print()
    print(f"{'case':<50} {'command':<24} {'exit':>4} {'verdict':<10} first stderr line")
    for name, command, code, line, verdict, *_ in rows:
        print(f"{name[:50]:<50} {command[:24]:<24} {code!s:>4} {verdict:<10} {line[:100]}")
    totals = Counter(row[4] for row in rows)
    print()
    print(f"{len(rows)} cases: " + ", ".join(f"{v} {n}" for v, n in totals.most_common()))
    if not args.keep and not args.workdir:
        shutil.rmtree(root, ignore_errors=True)
    else:
        print(f"work folder: {root}")


if __name__ == "__main__":
    main()
