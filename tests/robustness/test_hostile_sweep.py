"""What ``tests/robustness/hostile_sweep.py`` found after round 3 (issue 37), each now refused where
the bad input enters with one line naming the file/line or the option, exit 2:

- ``inf`` for a price or a pause (``curate stereoset --price-per-million/--retry-delay``);
- a control character (NUL, escape) in a CrowS-Pairs or StereoSet sentence;
- an empty ``--corpus`` file, a corpus file given twice, a bad ``--slurm-time`` that is unused;
- a release name or version that ends in a newline (``$`` matches before it);
- a release written inside one of its own inputs (the run's ``--overwrite`` would delete it);
- ``score --overwrite`` over a score folder of another family;
- a model whose ``config.json`` holds a value of the wrong type (a ``TypeError`` traceback).

Most cases call the real entry point in-process (``biasforge.cli.main``), which is what the
console script runs.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from biasforge.cli import main
from biasforge.curation.crowspairs.source import BUNDLED_SAMPLE as CROWS_SAMPLE
from biasforge.curation.stereoset.source import BUNDLED_SAMPLE as STEREOSET_SAMPLE
from tests.helpers import snapshot

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def _cli(monkeypatch, capsys, *args: object) -> tuple[int, str]:
    """Exit status and stderr of ``biasforge ARGS``, run in this process."""
    monkeypatch.setattr(sys, "argv", ["biasforge", *map(str, args)])
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    return code, capsys.readouterr().err


def _error(monkeypatch, capsys, *args: object) -> str:
    code, err = _cli(monkeypatch, capsys, *args)
    assert code == 2, err
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, err
    return lines[0]


# ------------------------------------------------------------------ numbers


@pytest.mark.parametrize("option", ["--price-per-million", "--retry-delay"])
@pytest.mark.parametrize("value", ["inf", "1e999", "Infinity"])
def test_non_finite_numbers_are_refused(option, value, monkeypatch, capsys):
    line = _error(monkeypatch, capsys, "curate", "stereoset", option, value, "--dry-run")
    assert option in line


def test_finite_numbers_still_pass(monkeypatch, capsys):
    code, err = _cli(monkeypatch, capsys, "curate", "stereoset", "--price-per-million", "0",
                     "--retry-delay", "0.5", "--dry-run", "--limit", "2")  # fmt: skip
    assert code == 0, err


# ------------------------------------------------------------------ control characters

CROWS_HEADER = "sent_more,sent_less,stereo_antistereo,bias_type\n"


def _crows(folder: Path, sentence: str) -> tuple[list[object], int]:
    source = folder / "cp.csv"
    source.write_text(CROWS_HEADER + f"{sentence},The rich are lazy.,stereo,socioeconomic\n")
    return ["curate", "crowspairs", "--lang", "en", "--source", source, "--out", folder / "o"], 2


def _stereoset(folder: Path, sentence: str) -> tuple[list[object], int]:
    row = json.loads(STEREOSET_SAMPLE.read_text(encoding="utf-8").splitlines()[1])
    row["stereotype"] = sentence
    source = folder / "ss.jsonl"
    source.write_text(json.dumps(row) + "\n", encoding="utf-8")
    return ["curate", "stereoset", "--lang", "en", "--source-lang", "en", "--source", source,
            "--out", folder / "o"], 1  # fmt: skip


@pytest.mark.parametrize("make", [_crows, _stereoset], ids=["crowspairs", "stereoset"])
@pytest.mark.parametrize("char", ["\x00", "\x1b", "\x7f"], ids=["nul", "escape", "delete"])
def test_a_control_character_in_a_sentence_is_refused(make, char, tmp_path, monkeypatch, capsys):
    args, number = make(tmp_path, f"The chess player was as{char}ian.")
    line = _error(monkeypatch, capsys, *args)
    assert f"{args[args.index('--source') + 1]}:{number}: " in line
    assert repr(char) in line and "control character" in line
    assert not (tmp_path / "o").exists()


def test_white_space_controls_still_pass(tmp_path):
    """The published CrowS-Pairs holds a sentence with a newline inside (row 1293): read."""
    from biasforge.curation.crowspairs.source import read_pairs

    pairs = read_pairs(SHARED / "crows_pairs" / "crows_pairs_anonymized.csv")
    assert pairs["sent_less"].str.contains("\n").any()
    assert len(read_pairs(CROWS_SAMPLE)) > 0


# ------------------------------------------------------------------ SlguSet corpus and options


def _slguset_options(corpus: list, **extra):
    from biasforge.curation.slguset import Options

    return Options(corpus=[str(c) for c in corpus], name_check="none", **extra)


def _corpus(folder: Path, name: str = "zh.txt", text: str = "他是一位老师。\n") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_an_empty_corpus_file_is_refused(tmp_path):
    from biasforge.errors import InputError

    empty = _corpus(tmp_path, "empty.txt", "")
    with pytest.raises(InputError, match=r"empty\.txt: is empty"):
        _slguset_options([empty]).validate()
    # an empty shard in a folder of shards is not the user's mistake
    _corpus(tmp_path / "shards", "a.txt")
    _corpus(tmp_path / "shards", "b.txt", "")
    _slguset_options([tmp_path / "shards"]).validate()


@pytest.mark.parametrize("how", ["same path", "through ..", "through a link", "in a folder"])
def test_a_corpus_file_given_twice_is_refused(how, tmp_path):
    from biasforge.errors import InputError

    corpus = _corpus(tmp_path / "c")
    again = {
        "same path": corpus,
        "through ..": tmp_path / "c" / ".." / "c" / corpus.name,
        "through a link": tmp_path / "link.txt",
        "in a folder": tmp_path / "c",
    }[how]
    if how == "through a link":
        again.symlink_to(corpus)
    with pytest.raises(InputError, match="again: it would be mined twice"):
        _slguset_options([corpus, again]).validate()
    _slguset_options([corpus, _corpus(tmp_path, "other.txt")]).validate()  # two files: fine


def test_a_bad_slurm_time_is_refused_even_with_the_local_executor(tmp_path):
    from biasforge.errors import BiasforgeError

    corpus = _corpus(tmp_path)
    with pytest.raises(BiasforgeError, match="--slurm-time 'garbage'"):
        _slguset_options([corpus], slurm_time="garbage").validate()
    _slguset_options([corpus], slurm_time="90").validate()


# ------------------------------------------------------------------ releases


@pytest.mark.parametrize(
    ("name", "version", "says"),
    [
        ("abc\n", "1.0.0", "invalid release name"),
        ("abc", "1.0.0\n", "invalid version"),
        ("abc", " 1.0.0", "invalid version"),
    ],
)
def test_release_names_and_versions_with_white_space_are_refused(name, version, says, tmp_path):
    from biasforge.errors import BiasforgeError
    from biasforge.exports.release import make_release

    with pytest.raises(BiasforgeError, match=says):
        make_release([tmp_path / "run"], name=name, version=version, out=tmp_path / "rel")
    assert not (tmp_path / "rel").exists()


@pytest.mark.parametrize("where", [".", "releases"])
def test_a_release_inside_its_own_input_is_refused(where, good, tmp_path, monkeypatch, capsys):
    run = Path(shutil.copytree(good["becpro_run"], tmp_path / "run"))
    before = snapshot(run)
    line = _error(monkeypatch, capsys, "export", "release", run, "--name", "x", "--version",
                  "1.0.0", "--unreviewed", "--out", run / where)  # fmt: skip
    assert "lies in the input" in line and str(run) in line
    assert snapshot(run) == before and sorted(p.name for p in run.iterdir()) == sorted(before)


# ------------------------------------------------------------------ scoring


def test_score_overwrite_replaces_only_a_score_folder_of_its_family(
    good, tmp_path, monkeypatch, capsys
):
    out = tmp_path / "scores"
    args = ["score", "becpro", "-d", good["becpro_release"], "-m", good["masked_model"],
            "-o", out, "--limit", "2", "--bootstrap", "0", "--no-progress"]  # fmt: skip
    code, err = _cli(monkeypatch, capsys, *args)
    assert code == 0, err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["family"] == "becpro"
    # the same folder as another family's (the manifest is not under its own checksums)
    (out / "manifest.json").write_text(json.dumps({**manifest, "family": "stereoset"}))
    before = snapshot(out)
    line = _error(monkeypatch, capsys, *args, "--overwrite")
    assert "of stereoset, not becpro" in line
    assert snapshot(out) == before
    # its own family's folder is replaced
    (out / "manifest.json").write_text(json.dumps(manifest))
    code, err = _cli(monkeypatch, capsys, *args, "--overwrite")
    assert code == 0, err


def test_a_config_value_of_the_wrong_type_is_one_line(good, tmp_path):
    from biasforge.errors import BiasforgeError
    from biasforge.scoring.models import load_model

    model = Path(shutil.copytree(good["masked_model"], tmp_path / "model"))
    config = json.loads((model / "config.json").read_text())
    (model / "config.json").write_text(json.dumps({**config, "num_hidden_layers": "two"}))
    with pytest.raises(BiasforgeError, match=r"cannot load model .*num_hidden_layers"):
        load_model(str(model))


# ------------------------------------------------------------------ named pipes


def _predictions(path: Path) -> None:
    from biasforge.scoring.stereoset_eval import read_predictions

    read_predictions(path)


def _lm_eval_results(path: Path) -> None:
    from biasforge.scoring.lm_eval_import import read_runs

    read_runs([path.parent], {}, "crowspairs")


def _users(path: Path) -> None:
    from biasforge.annotation.admin.users import read_users_csv

    read_users_csv(path)


def _certificate(path: Path) -> None:
    from biasforge.annotation.admin.tls import user_certificate

    user_certificate(path, path)


def _manifest(path: Path) -> None:
    from biasforge.contract.manifest import read_json_object

    read_json_object(path)


def _controls(path: Path) -> None:
    from biasforge.annotation.review.controls import read_controls_file
    from biasforge.families import get

    read_controls_file(path, get("becpro"))


PIPE_READERS = {
    "stereoset-eval --predictions": (_predictions, "p.json"),
    "import-lm-eval results": (_lm_eval_results, "results_2024.json"),
    "annotate users --csv": (_users, "u.csv"),
    "annotate serve --tls-cert": (_certificate, "c.pem"),
    "a manifest": (_manifest, "manifest.json"),
    "annotate push --controls": (_controls, "controls.jsonl"),
}


@pytest.mark.parametrize("reader", PIPE_READERS, ids=list(PIPE_READERS))
def test_a_named_pipe_is_refused_not_waited_on(reader, tmp_path):
    """A pipe where a file is expected: opening it would wait for ever for a writer."""
    import os

    from biasforge.errors import InputError

    read, name = PIPE_READERS[reader]
    pipe = tmp_path / "in" / name
    pipe.parent.mkdir()
    os.mkfifo(pipe)
    _unblock_later(pipe)  # a reader that opened it anyway gets an empty file: a failure, no hang
    with pytest.raises(InputError, match=r"a named pipe, not "):
        read(pipe)


def _unblock_later(pipe: Path, seconds: float = 3.0) -> None:
    """Open ``pipe`` for writing (and close it) after ``seconds`` if someone is reading it."""
    import contextlib
    import os
    import threading
    import time

    def writer() -> None:
        time.sleep(seconds)
        with contextlib.suppress(OSError):  # nobody reads it: nothing to unblock
            os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))

    threading.Thread(target=writer, daemon=True).start()
