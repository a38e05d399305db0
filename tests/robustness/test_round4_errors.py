"""Issue 47, item 13: three inputs that ended in a traceback now end in one line (exit 2) or
work: a CrowS-Pairs source whose header is megabytes of NUL bytes, an ``--out`` whose name is
not valid UTF-8, and ``--exclude-changed`` on reviewed records none of which was accepted."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pyarrow as pa
import pytest

from biasforge.curation.becpro.lexicon import default_lexicon_dir
from biasforge.errors import InputError
from biasforge.exports.inputs import ReleaseInput, exclude_changed
from tests.conftest import one_error_line, run_cli
from tests.robustness.conftest import copy_of


def test_a_crowspairs_header_of_nul_bytes_is_one_line(tmp_path):
    source = tmp_path / "pairs.csv"
    source.write_bytes(b"\x00" * 3_000_000 + b"\n")
    result = run_cli("curate", "crowspairs", "--lang", "en", "--source", source,
                     "--out", tmp_path / "out", check=False)  # fmt: skip
    line = one_error_line(result)
    assert line.startswith(f"error: {source}:1: cannot read the header line: a field is longer")
    assert not (tmp_path / "out").exists()


def test_an_out_name_that_is_not_utf8_is_refused_before_anything_is_done(tmp_path):
    out = os.fsdecode(os.fsencode(tmp_path) + b"/run\xff")
    result = run_cli("curate", "becpro", "--lang", "en", "--out", out, check=False)
    assert one_error_line(result) == (
        f"error: --out {os.fsencode(out)!r}: the name is not valid UTF-8; choose a UTF-8 name"
    )
    assert os.listdir(tmp_path) == []


def test_exclude_changed_with_no_accepted_item_leaves_out_none():
    empty = pa.table({"id": pa.array([], pa.string()), "labels_changed": pa.array([], pa.bool_())})
    item = exclude_changed(ReleaseInput(path=".", kind="reviewed", table=empty, manifest={}))
    assert (item.excluded_changed, item.table.num_rows) == (0, 0)


def _loop(tmp_path):
    link = tmp_path / "loop"
    link.symlink_to(link)
    return link


def _pipe(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    return tmp_path / "pipe"


@pytest.mark.parametrize(
    ("make", "kind"),
    [(_loop, "a symbolic link that loops"), (_pipe, "a named pipe"),
     (lambda _: Path("/dev/zero"), "a device")],
)  # fmt: skip
def test_a_language_folder_or_table_that_is_no_folder_or_file_says_what_it_is(tmp_path, make, kind):
    """Issue 47, item 15: a symlink loop, a named pipe or /dev/zero given as a language folder
    got "has no language.toml", and as a file "file not found"."""
    from biasforge.curation.tables import read_tsv

    path = make(tmp_path)
    result = run_cli("curate", "becpro", "--lang", str(path), "--out", tmp_path / "out",
                     check=False)  # fmt: skip
    assert one_error_line(result) == (
        f"error: {path}: --lang: is {kind}, not a folder; a language folder holds "
        "language.toml, persons.tsv, professions.tsv, templates.tsv"
    )
    with pytest.raises(InputError, match=f"^{re.escape(str(path))}: {kind}, not a file$"):
        read_tsv(path, ["a"])


def test_a_release_is_never_written_into_a_run(becpro_run, tmp_path):
    """Issue 47, item 14: ``export release --out`` inside a run folder was accepted (convert
    refused it), and the run could then no longer be replaced with --overwrite."""
    from tests.helpers import snapshot
    from tests.robustness.conftest import copy_of

    run = copy_of(becpro_run, tmp_path / "run")
    before = snapshot(run)
    result = run_cli("export", "release", becpro_run, "--unreviewed", "--name", "becpro-x",
                     "--version", "0.1.0", "--out", run / "releases", check=False)  # fmt: skip
    assert one_error_line(result) == (
        f"error: --out {run / 'releases'}: lies in the biasforge folder {run} (a run, reviewed "
        "records or release is never written into); write it elsewhere"
    )
    assert snapshot(run) == before


def test_a_utf8_language_folder_read_as_latin1_is_refused_not_garbled(tmp_path):
    """Issue 47, item 14: ``--encoding latin-1`` on UTF-8 files wrote "Ã¨" into every item."""
    lexicon = copy_of(default_lexicon_dir(), tmp_path / "lex")
    data = (lexicon / "es" / "language.toml").read_bytes()
    line = data.count(b"\n", 0, next(i for i, byte in enumerate(data) if byte > 0x7F)) + 1
    result = run_cli("curate", "becpro", "--lang", "es", "--lexicon", lexicon,
                     "--encoding", "latin-1", "--out", tmp_path / "r", check=False)  # fmt: skip
    assert re.fullmatch(
        rf"error: {re.escape(str(lexicon / 'es' / 'language.toml'))}:{line}: is UTF-8, not "
        r"latin-1: read as latin-1 it would say '\S+' where it says '\S'; pass --encoding "
        r"utf-8 \(or leave --encoding out\)",
        one_error_line(result),
    )
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("name", ["corpus.txt", "corpus.txt.gz"])
def test_a_corpus_of_nul_bytes_is_refused_before_mining(tmp_path, name):
    """Issue 47, item 14: 1 GB of NUL bytes was read for 80 s and gave 0 candidates silently
    (a few MB here: the refusal must not depend on reading it all)."""
    import gzip

    corpus = tmp_path / name
    data = "他是老师。\n".encode() + b"\x00" * 4_000_000
    corpus.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    result = run_cli("curate", "slguset", "--corpus", corpus, "--out", tmp_path / "r",
                     check=False)  # fmt: skip
    assert one_error_line(result) == (
        f"error: {corpus}:2: holds a NUL byte at byte 17: a binary file, not text (a "
        "compressed corpus must end in .gz)"
    )
    assert not (tmp_path / "r").exists()


def test_a_stereoset_context_of_megabytes_is_rejected_before_translation(tmp_path):
    """Issue 47, item 14: a 10 MB context was kept as an item (to be translated and shown);
    it is rejected by the audit, whole in rejected.parquet, and never sent."""
    import pyarrow.parquet as pq

    source = tmp_path / "s.jsonl"
    item = {"type": "intersentence", "target": "Ethiopia", "bias_type": "race",
            "context": "Many people live in Ethiopia. " * 350_000,  # ~10 MB
            "stereotype": "They run.", "anti-stereotype": "They sit.", "unrelated": "Cats."}  # fmt: skip
    good = {**item, "target": "nurse", "context": "The nurse came in."}
    source.write_text(json.dumps(item) + "\n" + json.dumps(good) + "\n", encoding="utf-8")
    run_cli("curate", "stereoset", "--lang", "en", "--source", source, "--out", tmp_path / "r")
    rejected = pq.read_table(tmp_path / "r" / "rejected.parquet").to_pandas()
    kept = pq.read_table(tmp_path / "r" / "candidates.parquet").to_pandas()
    assert list(kept["target"]) == ["nurse"]
    assert list(rejected["context"]) == [item["context"].strip()]  # nothing lost
    assert (
        "context is 10,499,999 characters long (a StereoSet text is one sentence, at most "
        "2,000 characters)" in str(list(rejected["reasons"]))
    )


def test_a_language_file_linked_from_outside_the_lexicon_is_refused_unquoted(tmp_path):
    """Issue 47, item 15: the header error quoted the first line of the linked file."""
    lexicon = copy_of(default_lexicon_dir(), tmp_path / "lex")
    (tmp_path / "elsewhere.txt").write_text("secret: hunter2\n", encoding="utf-8")
    (lexicon / "es" / "templates.tsv").unlink()
    (lexicon / "es" / "templates.tsv").symlink_to(tmp_path / "elsewhere.txt")
    (lexicon / "es" / "persons.tsv").rename(lexicon / "es" / "persons.tsv.orig")
    # a link inside the lexicon is fine
    (lexicon / "es" / "persons.tsv").symlink_to(lexicon / "es" / "persons.tsv.orig")
    run = ["curate", "becpro", "--lang", "es", "--lexicon", lexicon, "--out", tmp_path / "r"]
    line = one_error_line(run_cli(*run, check=False))
    assert line == (
        f"error: {lexicon / 'es' / 'templates.tsv'}: is a link to {tmp_path / 'elsewhere.txt'}, "
        f"outside {lexicon}; a lexicon's files are read from the lexicon itself: copy the file in"
    )
    assert "hunter2" not in line


def test_serve_on_an_address_the_machine_lacks_is_one_line_at_once(tmp_path):
    """Issue 47, item 8: this failed after 13-20 s pointing at a log whose cause was in another
    log; item 15: the failed start left its new data folder, credentials and TLS key behind."""
    import time

    data_dir = tmp_path / "argilla"
    started = time.monotonic()
    result = run_cli("annotate", "serve", "--host", "192.0.2.77", "--tls", "--port", "0",
                     "--data-dir", data_dir, check=False)  # fmt: skip
    line = one_error_line(result)
    assert line.startswith("error: --host 192.0.2.77: not an address of this machine (its "
                           "addresses: ")  # fmt: skip
    assert "127.0.0.1" in line.split("(its addresses: ")[1].split(")")[0].split(", ")
    assert line.endswith("); give one of them, or 0.0.0.0")
    assert time.monotonic() - started < 10
    assert not data_dir.exists()


@pytest.mark.parametrize("background", [False, True], ids=["foreground", "background"])
def test_serve_on_a_port_bound_but_not_listening_says_in_use_and_leaves_nothing(
    tmp_path, background
):
    """Issue 47, item 15: a port held by a socket that does not listen passed the check (a
    connect found nobody), and the start failed later, leaving the new data folder."""
    import socket

    data_dir = tmp_path / "argilla"
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))  # bound, never listening
        port = held.getsockname()[1]
        extra = ["--background"] if background else []
        result = run_cli("annotate", "serve", *extra, "--port", port, "--data-dir", data_dir,
                         check=False)  # fmt: skip
    assert one_error_line(result) == (
        f"error: port {port} on 127.0.0.1 is in use; choose another with --port"
    )
    assert not data_dir.exists()
