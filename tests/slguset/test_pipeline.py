"""End to end through the CLI: run directory, spans, reasons, determinism across processes."""

import dataclasses
import json

import pandas as pd
import pytest

from biasforge.contract.rundir import read_run
from biasforge.curation.slguset.sample import BUNDLED_SAMPLE
from tests.conftest import run_cli


@pytest.fixture(scope="module")
def sample_run(tmp_path_factory, peoples_daily):
    out = tmp_path_factory.mktemp("slguset") / "run"
    result = run_cli(
        "curate", "slguset", "--corpus", BUNDLED_SAMPLE, "--out", out, "--name-eval", peoples_daily
    )
    assert "candidates kept" in result.stdout
    return read_run(out)


def test_candidates_have_the_contract_columns_and_right_spans(sample_run, lexicon):
    kept = sample_run.candidates
    assert len(kept) > 50
    assert list(kept.columns) == [
        "id", "family", "language", "source_id", "source_language", "source_text",
        "sentence", "keyword", "keyword_start", "keyword_end", "gender", "counterpart",
        "checks", "needs_review", "review_reasons",
    ]  # fmt: skip
    for row in kept.itertuples():
        assert row.sentence[row.keyword_start : row.keyword_end] == row.keyword
        form = lexicon.forms[row.keyword]
        assert (row.gender, row.counterpart) == (form.gender, form.counterpart)
        assert row.family == "slguset" and row.language == "zh"
    assert kept["id"].is_unique and kept["sentence"].is_unique


def test_rejected_rows_say_why(sample_run):
    rejected = sample_run.rejected
    assert len(rejected) > 0
    rules = {"sentence_length", "preprocess", "non_gender_word", "collective_form"}
    rules |= {"person_name", "person_name_lac"}
    for reasons in rejected["reasons"]:
        assert len(reasons) >= 1 and reasons[0].split(":")[0] in rules


def test_stats_and_report(sample_run):
    stats = sample_run.stats
    assert stats["duplicates"] >= 2  # the sample repeats two paragraphs
    assert sum(r["male"] + r["female"] for r in stats["per_keyword"]) == len(sample_run.candidates)
    by_rule = {r["rule"]: r for r in stats["rules"]}
    assert by_rule["person_name"]["failed"] == stats["rejections_per_rule"]["person_name"]
    assert all("seconds" in r for r in stats["rules"])
    report = (sample_run.path / "report.md").read_text(encoding="utf-8")
    for heading in (
        "## Kept candidates per keyword pair",
        "## Kept candidates per form",
        "## Rules",
        "## Timings",
    ):
        assert heading in report
    heldout = stats["name_filter_eval"]["heldout"]["model"]
    assert (heldout["sentences"], heldout["positives"]) == (451, 117)
    assert f"| heldout | this filter | 451 | 117 | {heldout['flagged']} |" in report
    assert "| 4-fold CV (parts 1-4) | this filter (fast-token model" in report
    assert "| PKU 1998-01, 4 quarters (recorded) | this filter (fast-token model" in report
    assert "## Throughput per rule" in report and "| jieba segmentation |" in report
    candidates = stats["name_filter_eval"]["heldout"]["candidates"]
    assert candidates["named_share"]["n"] < candidates["named_share_first_stage"]["n"]
    assert "| part | naming a person, name model only | after `lac` | clean lost |" in report
    assert "| PKU 1998-01, 4 quarters (recorded) | 2.9 % [2.4, 3.4] (119/4139) |" in report
    assert (
        by_rule["person_name_lac"]["seen"]
        == len(sample_run.candidates) + by_rule["person_name_lac"]["failed"]
    )
    assert "LAC (second stage) read" in report


def test_report_gives_shares_per_pair_and_form_and_the_collective_forms(sample_run):
    stats, kept = sample_run.stats, sample_run.candidates
    pairs = {r["pair"]: r for r in stats["per_keyword"]}
    forms = {r["form"]: r for r in stats["per_form"]}
    assert sum(r["kept"] for r in pairs.values()) == len(kept)
    assert sum(r["flagged"] for r in pairs.values()) == stats["needs_review"]
    assert sum(r["share"] for r in pairs.values()) == pytest.approx(1.0, abs=1e-3)
    he = pairs["他/她"]
    assert he["share"] == round(he["kept"] / len(kept), 4)
    assert he["flagged_share"] == round(he["flagged"] / he["kept"], 4)
    # 他们 is excluded by default: never a kept keyword, its sentences rejected with the reason
    assert pairs["他们/她们"]["kept"] == 0 and not (kept["keyword"] == "他们").any()
    assert forms["他们"]["collective"] == "exclude"
    assert (
        forms["他们"]["rejected_as_collective"] == stats["rejections_per_rule"]["collective_form"]
    )
    assert forms["他们"]["rejected_as_collective"] >= 23  # the demo run of issue 16
    report = (sample_run.path / "report.md").read_text(encoding="utf-8")
    share = f"{100 * he['share']:.1f} %"
    flagged = f"{100 * he['flagged_share']:.1f} %"
    assert f"| 他/她 | {he['kept']} | {share} | {he['flagged']} | {flagged} |" in report
    assert "| 他们 | 他们/她们 | male | exclude | 0 | 0.0 % |" in report
    assert "excluded (default)" in report


def test_included_collective_forms_are_kept_and_flagged(tmp_path):
    out = tmp_path / "run"
    run_cli("curate", "slguset", "--out", out, "--include-collective")
    run = read_run(out)
    plural = run.candidates[run.candidates["keyword"] == "他们"]
    # 23 他们 sentences in the sample; the name filter rejects one of them (吸纳百川 → 纳百川)
    assert len(plural) >= 22
    reason = "collective_keyword: 他们: generic masculine plural"
    assert all(any(r.startswith(reason) for r in rs) for rs in plural["review_reasons"])
    assert run.stats["include_collective"]
    assert "collective_form" not in run.stats["rejections_per_rule"]
    assert run.manifest["config"]["include_collective"] is True


def test_two_processes_give_the_same_candidates_as_one(tmp_path):
    big = tmp_path / "corpus.txt"
    text = BUNDLED_SAMPLE.read_text(encoding="utf-8")
    big.write_text(text * 8, encoding="utf-8")  # > 1 MB: split into byte ranges
    one, two = tmp_path / "one", tmp_path / "two"
    run_cli("curate", "slguset", "--corpus", big, "--out", one)
    # a process of its own: the local executor forks its workers from the command's process
    run_cli("curate", "slguset", "--corpus", big, "--out", two, "--num-proc", "2", process=True)
    a, b = read_run(one), read_run(two)
    assert b.stats["num_proc"] == 2
    pd.testing.assert_frame_equal(a.candidates, b.candidates)
    pd.testing.assert_frame_equal(a.rejected, b.rejected)
    assert a.stats["duplicates"] == b.stats["duplicates"] > 0


def test_jsonl_corpus_with_gbk_encoding(tmp_path):
    path = tmp_path / "news.jsonl"
    rows = [
        {"id": 1, "content": "这位女教师每天很早就到学校。"},
        {"id": 2, "content": "其他人都走了。"},
    ]
    path.write_bytes(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in rows).encode("gbk") + b"\n"
    )
    out = tmp_path / "run"
    run_cli(
        "curate", "slguset", "--corpus", path, "--out", out,
        "--encoding", "gbk", "--text-field", "content",
    )  # fmt: skip
    run = read_run(out)
    assert list(run.candidates["sentence"]) == ["这位女教师每天很早就到学校。"]
    assert run.candidates.iloc[0]["source_id"] == "news.jsonl:1#0"


def test_undecodable_corpus_is_a_one_line_error_naming_file_and_line(tmp_path):
    path = tmp_path / "gbk.txt"
    path.write_bytes("他来了。\n".encode() + "他走了。\n".encode("gbk"))
    result = run_cli("curate", "slguset", "--corpus", path, "--out", tmp_path / "r", check=False)
    assert result.returncode == 2
    assert f"{path}:2:" in result.stderr
    ok = run_cli(
        "curate", "slguset", "--corpus", path, "--out", tmp_path / "r2", "--skip-bad-lines"
    )
    assert "candidates kept" in ok.stdout
    assert read_run(tmp_path / "r2").stats["bad_lines_skipped"] == 1


def test_same_steps_under_another_executor_configuration(tmp_path):
    """The steps of build_pipeline under datatrove's own LocalPipelineExecutor with 3 tasks run
    one after another (as a cluster scheduler would hand them out), then finish_run: the same
    candidates as the CLI's run."""
    from datatrove.executor import LocalPipelineExecutor

    from biasforge.curation.slguset import Options
    from biasforge.curation.slguset.pipeline import build_pipeline, finish_run

    big = tmp_path / "corpus.txt"
    big.write_text(BUNDLED_SAMPLE.read_text(encoding="utf-8") * 8, encoding="utf-8")
    parts, logs = tmp_path / "parts", tmp_path / "logs"
    options = Options(corpus=[big], num_proc=3, verbose=True)  # keep datatrove's logs on here
    steps, tasks = build_pipeline(options, parts)
    assert tasks == 3
    LocalPipelineExecutor(pipeline=steps, tasks=tasks, workers=1, logging_dir=str(logs)).run()
    result = finish_run(options, parts, tmp_path / "cluster", logging_dir=logs)
    assert result.stats["task_cpu_seconds"].keys() == {"0", "1", "2"}
    run_cli("curate", "slguset", "--corpus", big, "--out", tmp_path / "cli")
    a, b = read_run(tmp_path / "cluster"), read_run(tmp_path / "cli")
    pd.testing.assert_frame_equal(a.candidates, b.candidates)
    pd.testing.assert_frame_equal(a.rejected, b.rejected)
    for key in ("raw_chars", "documents", "duplicates", "sentences_seen", "quote_repairs"):
        assert a.stats[key] == b.stats[key], key


def test_slurm_and_ray_executors_take_the_same_steps(tmp_path):
    """No cluster here: the executors are built with the steps, and the pipeline survives the
    dill round trip that ships it to a Slurm job (each task then loads its own jieba)."""
    import dill
    from datatrove.executor import RayPipelineExecutor, SlurmPipelineExecutor

    from biasforge.curation.slguset import Options
    from biasforge.curation.slguset.pipeline import build_pipeline

    steps, tasks = build_pipeline(Options(), tmp_path / "parts", tasks=4)
    slurm = SlurmPipelineExecutor(
        pipeline=steps, tasks=tasks, time="01:00:00", partition="cpu", logging_dir=str(tmp_path)
    )
    ray = RayPipelineExecutor(pipeline=steps, tasks=tasks, logging_dir=str(tmp_path / "ray"))
    assert slurm.world_size == ray.world_size == 1  # the sample is one unit
    shipped = dill.loads(dill.dumps(slurm))
    names = [getattr(s, "name", None) for s in shipped.pipeline]
    assert names[:3] == ["datatrove logs", "SlguSet corpus reader", "keyword_prefilter (document)"]
    assert "person_name" in names and names[-1] == "task usage"


def test_python_entry_point_returns_the_run(tmp_path):
    from biasforge.contract.rundir import RunResult
    from biasforge.curation.slguset import Options, curate

    options = Options(corpus=[BUNDLED_SAMPLE], tagger="posseg")
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.tagger = "fast"  # type: ignore[misc]
    result = curate(options, tmp_path / "run")
    assert isinstance(result, RunResult) and result.path == tmp_path / "run"
    assert result.stats["tagger"] == "posseg" and result.stats["kept"] > 50
    assert read_run(result.path).stats == result.stats
    with pytest.raises(Exception, match="already exists"):
        curate(options, tmp_path / "run")


def test_bad_options_are_refused_before_any_work(tmp_path):
    from biasforge.curation.slguset import Options, curate
    from biasforge.errors import BiasforgeError

    for options, message in [
        (Options(corpus=[]), "at least one --corpus"),
        (Options(num_proc=0), "--num-proc"),
        (Options(tagger="hanlp"), "unknown --tagger"),
        (Options(encoding="utf-16"), "ASCII-compatible"),
    ]:
        with pytest.raises(BiasforgeError, match=message):
            curate(options, tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_the_name_check_is_chosen_on_the_command_line(sample_run, tmp_path):
    """--name-check none skips the LAC stage (more candidates, the rule never fires); an
    unknown check is refused with one line before anything is written."""
    out = tmp_path / "run"
    run_cli("curate", "slguset", "--out", out, "--name-check", "none")
    without = read_run(out)
    assert without.stats["name_check"] == "none"
    assert "person_name_lac" not in without.stats["rejections_per_rule"]
    assert sample_run.stats["rejections_per_rule"].get("person_name_lac", 0) > 0
    assert len(without.candidates) > len(sample_run.candidates)
    bad = run_cli(
        "curate", "slguset", "--out", tmp_path / "bad", "--name-check", "ner", check=False
    )
    assert bad.returncode == 2
    assert len(bad.stderr.strip().splitlines()) == 1 and "--name-check 'ner'" in bad.stderr
    assert not (tmp_path / "bad").exists()
