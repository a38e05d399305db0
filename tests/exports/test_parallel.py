"""A parallel release (issue 44, done-when): CrowS-Pairs in English, French (with native
pairs) and Brazilian Portuguese (a pack written by the test), through the fake DeepL; one
Portuguese item removed by its ``adaptation`` column. The ``shared`` config holds exactly the
source items kept in all three, and ``score compare --languages`` compares the languages on
it with paired intervals (tiny models)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from biasforge import families
from biasforge.contract.adaptation import schema_with_adaptation
from biasforge.contract.rundir import read_run, write_run
from tests.cli_runner import run_cli
from tests.conftest import one_error_line
from tests.languages.test_native import NATIVE_CSV
from tests.languages.test_your_pack import write_pack

LIMIT = "12"


def _removed_in_portuguese(run: Path, out: Path, source_id: str) -> Path:
    """The Portuguese run again, one item's ``adaptation`` set to ``removed`` (as a review
    that found the stereotype not held there would), written through the run contract."""
    read = read_run(run)
    frame = read.candidates
    frame["adaptation"] = [("removed" if s == source_id else None) for s in frame["source_id"]]
    frame["adaptation_note"] = ["not held in Brazil" if s == source_id else "" for s in
                                frame["source_id"]]  # fmt: skip
    frame["origin"] = "translated"
    schema = schema_with_adaptation(families.get("crowspairs").schema)
    write_run(out, schema=schema, candidates=frame, rejected=read.rejected, stats=read.stats,
              report_md="# pt-br, one item removed\n", inputs=[], config={})  # fmt: skip
    return out


@pytest.fixture(scope="module")
def lined_up(tmp_path_factory) -> dict:
    from tests.fake_deepl import FakeDeepL

    root = tmp_path_factory.mktemp("parallel")
    (root / "native.csv").write_text(NATIVE_CSV, encoding="utf-8")
    fake = FakeDeepL().start()
    try:
        env = {"DEEPL_AUTH_KEY": fake.auth_key, "DEEPL_SERVER_URL": fake.url}
        common = ("--limit", LIMIT, "--memory", root / "tm.sqlite")
        run_cli("curate", "crowspairs", "--lang", "en", *common, "--out", root / "en")
        run_cli("curate", "crowspairs", "--lang", "fr", *common, "--native", root / "native.csv",
                "--out", root / "fr", env=env)  # fmt: skip
        run_cli("curate", "crowspairs", "--lang", "pt-br", *common, "--language-pack",
                write_pack(root / "pack"), "--out", root / "pt-run", env=env)  # fmt: skip
    finally:
        fake.stop()
    kept = {lang: read_run(root / folder).table.to_pylist()
            for lang, folder in (("en", "en"), ("fr", "fr"), ("pt-br", "pt-run"))}  # fmt: skip
    translated = {
        lang: {r["source_id"] for r in rows if r.get("origin") != "native"}
        for lang, rows in kept.items()
    }
    removed = sorted(set.intersection(*translated.values()))[0]
    _removed_in_portuguese(root / "pt-run", root / "pt-br", removed)
    run_cli("export", "release", root / "en", root / "fr", root / "pt-br", "--parallel",
            "--unreviewed", "--name", "crows-par", "--version", "1.0.0",
            "--out", root / "releases")  # fmt: skip
    shared = set.intersection(*translated.values()) - {removed}
    return {"root": root, "release": root / "releases" / "crows-par" / "1.0.0",
            "shared": shared, "removed": removed}  # fmt: skip


def test_shared_holds_exactly_the_items_kept_in_all_three(lined_up):
    release = lined_up["release"]
    manifest = json.loads((release / "manifest.json").read_text())
    assert list(manifest["configs"]) == ["en", "fr", "pt-br", "shared"]
    shared = pq.read_table(release / "shared" / "test.parquet").to_pylist()
    assert len(lined_up["shared"]) >= 3
    for lang in ("en", "fr", "pt-br"):
        assert {r["source_id"] for r in shared if r["language"] == lang} == lined_up["shared"]
    assert len(shared) == 3 * len(lined_up["shared"])
    portuguese = pq.read_table(release / "pt-br" / "test.parquet").to_pylist()
    gone = [r for r in portuguese if r["source_id"] == lined_up["removed"]]
    assert [(r["adaptation"], r["adaptation_note"]) for r in gone] == [
        ("removed", "not held in Brazil")
    ]
    french = pq.read_table(release / "fr" / "test.parquet").to_pylist()
    assert sum(r["origin"] == "native" for r in french) == 2
    assert not any(r.get("origin") == "native" for r in shared)
    assert manifest["parallel"]["shared_items"] == len(lined_up["shared"])
    card = (release / "README.md").read_text()
    assert "**parallel release** of en, fr, pt-br" in card
    assert "**Native items**: 2 items were written" in card and "**not reviewed**" in card
    # the adaptation table counts each language's items once, not again in the shared config
    items = sum(pq.read_table(release / lang / "test.parquet").num_rows
                for lang in ("en", "fr", "pt-br"))  # fmt: skip
    total = next(line for line in card.splitlines() if line.startswith("| total |"))
    assert int(total.split("|")[6]) == items, total


def test_score_compare_across_the_languages(lined_up, tiny_models, tmp_path):
    shared = lined_up["release"] / "shared"
    scores = tmp_path / "scores"
    run_cli("score", "crowspairs", "--dataset", shared, "--model", tiny_models["masked"],
            "--out", scores, "--no-progress", "--bootstrap", "0")  # fmt: skip
    out = run_cli("score", "compare", "--languages", scores, "--dataset", shared,
                  "--bootstrap", "300").stdout  # fmt: skip
    n = len(lined_up["shared"])
    lines = [line for line in out.splitlines() if "| overall |" in line]
    assert [re.split(r"\s*\|\s*", line)[2:5] for line in lines] == [
        ["en", "fr", str(n)], ["en", "pt-br", str(n)], ["fr", "pt-br", str(n)]
    ]  # fmt: skip
    # the difference, by hand from the per-pair rows: items paired by source id
    rows = {r["id"]: r for r in pq.read_table(shared / "test.parquet").to_pylist()}
    pairs = [line.split(",") for line in (scores / "pairs.csv").read_text().splitlines()]
    header = pairs[0]
    won = {
        (rows[p[header.index("id")]]["language"], rows[p[header.index("id")]]["source_id"]):
        p[header.index("stereotypical")] == "True"
        for p in pairs[1:]
    }  # fmt: skip
    by_hand = 100 * sum(won["en", s] - won["fr", s] for s in lined_up["shared"]) / n
    cells = re.split(r"\s*\|\s*", lines[0])
    assert float(cells[6]) == pytest.approx(by_hand, abs=0.01)
    assert float(cells[7]) <= float(cells[6]) <= float(cells[8])
    assert "paired bootstrap percentile interval" in out


def test_mixing_families_or_one_language_is_refused(lined_up, stereoset_fr_run, tmp_path):
    root = lined_up["root"]
    mixed = run_cli("export", "release", root / "en", stereoset_fr_run, "--parallel",
                    "--unreviewed", "--name", "x", "--version", "1.0.0",
                    "--out", tmp_path, check=False)  # fmt: skip
    assert "a release holds one family" in one_error_line(mixed)
    alone = run_cli("export", "release", root / "fr", "--parallel", "--unreviewed",
                    "--name", "x", "--version", "1.0.0", "--out", tmp_path, check=False)  # fmt: skip
    assert one_error_line(alone).endswith("--parallel: the inputs hold one language (fr); a "
                                          "parallel release lines up two or more (give runs "
                                          "or reviewed records of each)")  # fmt: skip


def test_native_items_reviewed_are_named_with_their_annotators(lined_up, tmp_path):
    """Reviewed records (as ``annotate pull`` writes them) of the French run: the card names
    who answered the native items."""
    import pyarrow as pa

    from biasforge.contract.manifest import write_manifest

    run = read_run(lined_up["root"] / "fr")
    out = tmp_path / "reviewed-fr"
    out.mkdir()
    table = run.table.append_column("decision", pa.array(["accept"] * run.table.num_rows))
    pq.write_table(table, out / "reviewed.parquet")
    natives = [r["id"] for r in run.table.to_pylist() if r["origin"] == "native"]
    answers = [(natives[0], "ana"), (natives[1], "ana"), (natives[1], "ben"), ("other", "cy")]
    pq.write_table(pa.Table.from_pylist([
        {"id": i, "annotator": who, "status": "submitted", "question": "stereotype",
         "value": "yes"} for i, who in answers
    ]), out / "responses.parquet")  # fmt: skip
    write_manifest(out, "reviewed", dataset="fr", family="crowspairs",
                   run_manifest=dict(run.manifest), run_stats=run.stats)  # fmt: skip
    run_cli("export", "release", out, "--name", "fr", "--version", "1.0.0",
            "--out", tmp_path / "releases")  # fmt: skip
    card = (tmp_path / "releases" / "fr" / "1.0.0" / "README.md").read_text()
    assert "`reviewed-fr`: 2 native items, reviewed by ana (2), ben (1)" in card


def test_a_family_that_splits_keeps_its_split_inside_each_language():
    """StereoSet's configs are its splits: a parallel release has ``fr_intrasentence`` …
    ``shared_intersentence``; an item kept in one language only is not shared."""
    import pyarrow as pa

    from biasforge.exports.parallel import line_up
    from tests.exports.builders import stereoset_rows

    english = stereoset_rows()[:12]
    french = [
        dict(r, id=r["id"] + "-fr", language="fr",
             sentences=[dict(s, id=s["id"] + "-fr") for s in r["sentences"]])
        for r in english[1:]
    ]  # fmt: skip
    table = pa.Table.from_pylist([*english, *french])
    configs, summary = line_up(table, families.get("stereoset"))
    splits = sorted({r["split"] for r in english[1:]})
    assert sorted(configs) == sorted(f"{p}_{s}" for p in ("en", "fr", "shared") for s in splits)
    shared = [r for name, t in configs.items() if name.startswith("shared") for r in t.to_pylist()]
    assert {r["source_id"] for r in shared} == {r["source_id"] for r in english[1:]}
    assert summary["shared_items"] == 11 and summary["key"] == ["source_id", "variant"]
