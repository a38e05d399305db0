"""Every reader meets random bytes and random JSON: it returns or raises a BiasforgeError
(which the CLI prints as one line) — never another exception.

Property-based (hypothesis): the inputs are generated, so each run tries new shapes of bad
files; a failure prints the smallest input that breaks a reader.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biasforge.errors import BiasforgeError
from biasforge.families.base import load_object

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=20,
)
BYTES = st.binary(max_size=400)
TEXT = st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass"))
CONTENT = st.one_of(BYTES, TEXT, JSON.map(lambda v: json.dumps(v).encode()))
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _accepts_or_refuses(read: Callable[[], object]) -> None:
    with contextlib.suppress(BiasforgeError):
        read()


class Sandbox:
    """A fresh folder per example (pytest's tmp_path is one per test, not per example)."""

    def __enter__(self) -> Path:
        self.path = Path(tempfile.mkdtemp(prefix="fuzz-"))
        return self.path

    def __exit__(self, *exc) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def _in_a_file(name: str, content: bytes, read: Callable[[Path], object]) -> None:
    """``read`` of a fresh file ``name`` holding ``content`` accepts or refuses it."""
    with Sandbox() as folder:
        (folder / name).write_bytes(content)
        _accepts_or_refuses(lambda: read(folder / name))


def _in_a_copy(source: Path, name: str, content: bytes, read: Callable[[Path], object]) -> None:
    """``read`` of a fresh copy of the folder ``source`` whose file ``name`` holds ``content``
    accepts or refuses it."""
    with Sandbox() as folder:
        copy = shutil.copytree(source, folder / source.name)
        (copy / name).write_bytes(content)
        _accepts_or_refuses(lambda: read(copy))


@pytest.fixture(scope="module")
def run_dir(becpro_run) -> Path:
    return becpro_run  # the shared English BEC-Pro run (tests/conftest.py): copied before use


@FUZZ
@given(content=CONTENT)
def test_manifest_reader(content):
    from biasforge.contract.manifest import verify_manifest

    with Sandbox() as folder:
        (folder / "manifest.json").write_bytes(content)
        _accepts_or_refuses(lambda: verify_manifest(folder, "run directory", required=("a",)))


@FUZZ
@given(manifest=JSON)
def test_run_reader_with_any_manifest(run_dir, manifest):
    from biasforge.contract.rundir import read_run

    with Sandbox() as folder:
        run = shutil.copytree(run_dir, folder / "run")
        (run / "manifest.json").write_text(json.dumps(manifest))
        _accepts_or_refuses(lambda: read_run(run))


@FUZZ
@given(
    content=CONTENT, name=st.sampled_from(["candidates.parquet", "rejected.parquet", "stats.json"])
)
def test_run_reader_with_any_file_content(run_dir, content, name):
    from biasforge.contract.manifest import write_manifest
    from biasforge.contract.rundir import read_run

    def read(run: Path) -> object:
        write_manifest(run, "run")  # checksums match: the content itself must be judged
        return read_run(run)

    _in_a_copy(run_dir, name, content, read)


@FUZZ
@given(content=CONTENT)
def test_release_input_reader(content):
    from biasforge.contract.manifest import write_manifest
    from biasforge.exports.inputs import read_input

    with Sandbox() as folder:
        (folder / "reviewed.parquet").write_bytes(content)
        write_manifest(folder, "reviewed")
        _accepts_or_refuses(lambda: read_input(folder))


@FUZZ
@given(content=CONTENT, family=st.sampled_from(["becpro", "stereoset", "slguset"]))
def test_scoring_dataset_reader(content, family):
    from biasforge.scoring.data import load_items

    _in_a_file("items.parquet", content, lambda path: load_items(str(path), family))


@FUZZ
@given(content=CONTENT, suffix=st.sampled_from([".json", ".jsonl"]))
def test_stereoset_source_reader(content, suffix):
    from biasforge.curation.stereoset.source import load_source

    _in_a_file(f"source{suffix}", content, load_source)


@FUZZ
@given(data=JSON)
def test_stereoset_official_json_shapes(data):
    from biasforge.curation.stereoset.source import load_source

    with Sandbox() as folder:
        (folder / "dev.json").write_text(json.dumps({"version": "1", "data": data}))
        _accepts_or_refuses(lambda: load_source(folder / "dev.json"))


@FUZZ
@given(
    content=CONTENT,
    name=st.sampled_from(
        [
            "professions.tsv",
            "fr/language.toml",
            "fr/persons.tsv",
            "fr/professions.tsv",
            "fr/templates.tsv",
        ]
    ),
)
def test_becpro_lexicon_reader(content, name):
    from biasforge.curation.becpro.lexicon import default_lexicon_dir, load_language

    _in_a_copy(default_lexicon_dir(), name, content, lambda lexicon: load_language("fr", lexicon))


@pytest.mark.parametrize(
    ("name", "reader"),
    [
        ("g.tsv", "biasforge.curation.translation.engines:read_glossary"),
        ("gold.jsonl", "biasforge.curation.slguset.name_eval:read_gold"),
    ],
)
@FUZZ
@given(content=CONTENT)
def test_file_reader(name, reader, content):
    """Readers of one file, each fuzzed on its own (``reader``: "module:function")."""
    _in_a_file(name, content, load_object(reader, "reader"))


SLGUSET_LEXICON = [
    "gender_pairs.tsv",
    "collective_forms.tsv",
    "non_gender_words.txt",
    "other_gender_terms.txt",
    "biological_terms.txt",
]


@FUZZ
@given(content=CONTENT, name=st.sampled_from(SLGUSET_LEXICON))
def test_slguset_lexicon_reader(content, name):
    from biasforge.curation.slguset.lexicon import DEFAULT_DIR, load_lexicon

    _in_a_copy(DEFAULT_DIR, name, content, load_lexicon)


@FUZZ
@given(content=CONTENT, name=st.sampled_from(["c.txt", "c.jsonl", "c.txt.gz", "c.jsonl.gz"]))
def test_slguset_corpus_reader(content, name):
    from biasforge.curation.slguset.readers import plan_units, read_unit

    with Sandbox() as folder:
        (folder / name).write_bytes(content)
        [unit] = plan_units([str(folder / name)])
        _accepts_or_refuses(lambda: list(read_unit(unit)))


@FUZZ
@given(content=CONTENT)
def test_users_csv_reader(content):
    from biasforge.annotation.admin.users import read_users_csv

    _in_a_file("users.csv", content, read_users_csv)


@FUZZ
@given(content=CONTENT)
def test_translation_memory_file(content):
    from biasforge.translation_memory import TranslationMemory

    with Sandbox() as folder:
        (folder / "tm.sqlite").write_bytes(content)

        def open_and_look_up():
            with TranslationMemory(folder / "tm.sqlite") as memory:
                memory.preferred("a", "en", "fr")

        _accepts_or_refuses(open_and_look_up)
