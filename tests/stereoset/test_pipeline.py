"""``biasforge curate stereoset`` end to end, as a user runs it, against the fake DeepL server."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import pyarrow.parquet as pq

from biasforge.contract.rundir import read_run
from biasforge.translation_memory import TranslationMemory
from tests.conftest import one_error_line, run_cli
from tests.fake_deepl import fake_translate
from tests.stereoset.conftest import FULL_SOURCE, inter, intra, write_jsonl

# possessives and object pronouns (subject pronouns he/she carry over)
PRONOUNS = {"his", "her", "him", "hers", "their", "theirs", "my", "mine", "your", "its", "our"}


def table(report: str, heading: str) -> dict[str, list[int]]:
    """The first markdown table after ``heading``, as {first cell: [ints]}."""
    section = report.split(heading, 1)[1]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    out: dict[str, list[int]] = {}
    started = False
    for line in section.splitlines():
        if line.startswith("|"):
            started = True
            cells = [c.strip() for c in line.strip("|").split("|")]
            if all(re.fullmatch(r"\d+", c) for c in cells[1:]):
                out[cells[0]] = [int(c) for c in cells[1:]]
        elif started:
            break
    assert rows, f"no table after {heading!r}"
    return out


def expected_table1(source: Path) -> dict[str, list[int]]:
    """Table 1 computed independently: drop what the paper's audit drops, count fake targets."""
    terms: dict[tuple[str, str], set[str]] = defaultdict(set)
    tests: dict[tuple[str, str], int] = defaultdict(int)
    for line in source.open(encoding="utf-8"):
        r = json.loads(line)
        if r["type"] == "intrasentence":
            if r["context"].count("BLANK") != 1:
                continue
            pre, suf = r["context"].split("BLANK")
            words = [
                r[k][len(pre) : len(r[k]) - len(suf)].split()
                for k in ("stereotype", "anti-stereotype")
            ]
            if any(w and w[0].lower() in PRONOUNS for w in words):
                continue
        key = (r["bias_type"], r["type"])
        terms[key].add(fake_translate(r["target"]))
        tests[key] += 1
    out = {}
    for domain in ("gender", "profession", "race", "religion"):
        out[domain] = [
            len(terms[(domain, "intrasentence")]),
            tests[(domain, "intrasentence")],
            len(terms[(domain, "intersentence")]),
            tests[(domain, "intersentence")],
        ]
    out["total"] = [sum(v[i] for v in out.values()) for i in range(4)]
    return out


def test_full_source_completes_with_table1_and_second_run_sends_nothing(
    fake_deepl, deepl_env, tmp_path
):
    out = tmp_path / "run"
    result = run_cli(
        "curate", "stereoset", "--lang", "fr", "--source", FULL_SOURCE, "--out", out, env=deepl_env
    )
    assert "4224 items kept" in result.stdout
    report = (out / "report.md").read_text(encoding="utf-8")
    got = table(report, "## Table 1")
    assert got == expected_table1(FULL_SOURCE)
    assert got["total"][1] + got["total"][3] == 4224
    assert table(report, "## Rejections per rule") == {
        "blank_slot": [2],
        "possessive_attribute": [3],
    }
    first_requests = fake_deepl.translate_requests
    first_chars = fake_deepl.character_count
    assert first_requests > 0

    run_cli(
        "curate", "stereoset", "--source", FULL_SOURCE, "--out", out, "--overwrite", env=deepl_env
    )
    assert fake_deepl.translate_requests == first_requests  # zero translation requests
    assert fake_deepl.character_count == first_chars
    second = read_run(out)
    assert second.stats["translation"]["characters_sent"] == 0
    assert second.candidates["translation"].map(lambda t: t["cache_hit"]).all()


def test_sample_run_structure_flags_and_contract(fake_deepl, deepl_env, tmp_path):
    out = tmp_path / "run"
    run_cli("curate", "stereoset", "--out", out, env=deepl_env)  # bundled sample by default
    run = read_run(out)
    cands = run.candidates
    schema = pq.read_schema(out / "candidates.parquet")
    for column in (
        "id",
        "family",
        "language",
        "source_id",
        "source_language",
        "source_text",
        "split",
        "bias_type",
        "target",
        "context",
        "sentences",
        "checks",
        "needs_review",
        "review_reasons",
        "translation",
    ):
        assert column in schema.names
    assert cands["id"].is_unique and (cands["family"] == "stereoset").all()
    assert (cands["language"] == "fr").all()
    intra_rows = cands[cands["split"] == "intrasentence"]
    for row in intra_rows.itertuples():
        assert row.context.count("BLANK") == 1
        for s in row.sentences:
            assert s["sentence"] == row.context.replace("BLANK", s["attribute"])
        assert [s["label"] for s in row.sentences] == ["stereotype", "anti-stereotype", "unrelated"]
    assert run.stats["structure"]["uniformised"] > 0
    # "The chess player was BLANK." -> unrelated "fox" becomes "rusé" in context (fake senses)
    chess = intra_rows[intra_rows["source_text"] == "The chess player was BLANK."]
    fox = chess[chess["source_sentences"].map(lambda s: s[2].endswith("fox."))].iloc[0]
    assert fox["sentences"][2]["attribute"] == "rusé"
    assert any(r.startswith("unrelated_plausible:") for r in fox["review_reasons"])
    # "a BLANK" -> un/une: agreement outside the slot is flagged with the plural suggestion
    agreement = [
        r for rs in intra_rows["review_reasons"] for r in rs if r.startswith("gender_agreement:")
    ]
    assert agreement and all("plural" in r for r in agreement)
    # intersentence: continuations are whole sentences, attribute = the continuation
    inter_rows = cands[cands["split"] == "intersentence"]
    assert all(s["attribute"] == s["sentence"] for ss in inter_rows["sentences"] for s in ss)
    # audit rejections are in rejected.parquet with their reasons
    rules = sorted(r.split(":")[0] for rs in run.rejected["reasons"] for r in rs)
    assert rules == [
        "blank_slot",
        "blank_slot",
        "possessive_attribute",
        "possessive_attribute",
        "possessive_attribute",
    ]
    port = fake_deepl.url.rpartition(":")[2]
    assert run.manifest["config"]["engine"] == f"deepl@localhost:{port}"  # the server, one way


def test_intersentence_context_is_translated_once_and_given_with_continuations(
    fake_deepl, deepl_env, tmp_path
):
    src = write_jsonl(
        tmp_path / "s.jsonl",
        [inter("mother", "My mother is at home.", "They cook.", "They work.", "Cats fly.")],
    )
    run_cli("curate", "stereoset", "--source", src, "--out", tmp_path / "run", env=deepl_env)
    with_context = [r for r in fake_deepl.requests if r["context"]]
    assert len(with_context) == 1
    assert with_context[0]["context"] == "My mother is at home."
    assert with_context[0]["text"] == ["They cook.", "They work.", "Cats fly."]
    sent = fake_deepl.texts_sent()
    assert sent.count("My mother is at home.") == 1
    cand = read_run(tmp_path / "run").candidates.iloc[0]
    # the fake makes "they" feminine only when the context mentions a woman
    assert [s["sentence"] for s in cand["sentences"]] == ["Elles cook.", "Elles work.", "Cats fly."]


def test_dry_run_needs_no_key_and_predicts_what_is_sent(fake_deepl, deepl_env, tmp_path):
    dry = run_cli(
        "curate", "stereoset", "--dry-run", "--server-url", fake_deepl.url,
        "--price-per-million", "25", env={"DEEPL_AUTH_KEY": None},
    )  # fmt: skip
    chars = int(re.search(r"would send \d+ texts = (\d+) characters", dry.stdout).group(1))
    cost = float(re.search(r"per million characters: ([\d.]+)", dry.stdout).group(1))
    assert fake_deepl.translate_requests == 0
    assert cost == round(chars * 25 / 1e6, 2)
    run_cli("curate", "stereoset", "--out", tmp_path / "run", env=deepl_env)
    assert fake_deepl.character_count == chars
    again = run_cli("curate", "stereoset", "--dry-run", env=deepl_env)
    assert "= 0 characters" in again.stdout


def test_quota_midway_stops_without_a_run_then_rerun_sends_only_what_is_missing(
    fake_deepl, deepl_env, tmp_path
):
    fake_deepl.character_limit = 15_000  # the sample needs ~36,000
    out = tmp_path / "run"
    first = run_cli(
        "curate", "stereoset", "--out", out, "--retry-delay", "0.01", env=deepl_env, check=False
    )
    line = one_error_line(first)
    assert "quota exceeded (456)" in line and "no run was written" in line
    assert not out.exists()  # a run of rejected items would look like a result
    answered = set(fake_deepl.texts_sent())
    assert answered and sum(map(len, answered)) <= 15_000
    fake_deepl.character_limit = 10**9
    fake_deepl.reset_counters()
    run_cli("curate", "stereoset", "--out", out, env=deepl_env)
    resent = set(fake_deepl.texts_sent()) & answered
    assert resent == set()  # what the quota let through was kept in the memory
    run = read_run(out)
    assert len(run.candidates) == 200 and run.stats["translation_failed"] == 0


def test_persistent_server_errors_write_the_run_with_each_item_s_reason(
    fake_deepl, deepl_env, tmp_path
):
    fake_deepl.fail_next(503, times=2)  # the first request, tried twice
    out = tmp_path / "run"
    args = ["curate", "stereoset", "--out", out, "--retries", "2", "--retry-delay", "0.01"]
    first = run_cli(*args, env=deepl_env, check=False)
    assert first.returncode == 1 and "could not be translated" in first.stderr
    run = read_run(out)
    failed = run.rejected[run.rejected["reasons"].map(lambda rs: any("503" in r for r in rs))]
    assert len(failed) > 0 and run.stats["translation_failed"] == len(failed)
    assert len(run.candidates) + len(run.rejected) == 205
    assert "### Failures" in (out / "report.md").read_text()
    run_cli(*args, "--overwrite", env=deepl_env)
    assert len(read_run(out).candidates) == 200


def test_killed_run_restarts_without_resending(fake_deepl, deepl_env, tmp_path):
    fake_deepl.delay = 0.01
    out = tmp_path / "run"
    exe = str(Path(sys.executable).with_name("biasforge"))
    proc = subprocess.Popen(
        [exe, "curate", "stereoset", "--out", str(out)],
        env={**os.environ, **deepl_env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 60
    while fake_deepl.translate_requests < 30 and time.time() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert not out.exists()  # no half-written run directory
    answered = [r for r in fake_deepl.requests if r["status"] == 200]
    assert len(answered) >= 29
    fake_deepl.delay = 0.0
    before = {t for r in answered for t in r["text"]}
    fake_deepl.reset_counters()
    run_cli("curate", "stereoset", "--out", out, env=deepl_env)
    resent = set(fake_deepl.texts_sent()) & before
    # at most the one request in flight when the process died is sent again
    assert resent <= set(answered[-1]["text"])
    assert len(read_run(out).candidates) == 200


def test_reviewer_preferred_translation_wins_on_rerun(fake_deepl, deepl_env, tmp_path):
    src = write_jsonl(
        tmp_path / "s.jsonl",
        [intra("nurse", "The nurse was BLANK.", "caring", "rude", "fox", "profession")],
    )
    out = tmp_path / "run"
    run_cli("curate", "stereoset", "--source", src, "--out", out, env=deepl_env)
    cand = read_run(out).candidates.iloc[0]
    assert any(
        r.startswith("no_exact_translation:") and "infirmier/infirmière" in r
        for r in cand["review_reasons"]
    )
    with TranslationMemory() as memory:  # $BIASFORGE_HOME, as the CLI uses
        memory.prefer(
            cand["source_text"], "en", "fr", "La personne soignante était BLANK.", "test:reviewer"
        )
        memory.prefer(
            cand["source_sentences"][0],
            "en",
            "fr",
            "La personne soignante était attentionnée.",
            "test",
        )
    requests = fake_deepl.translate_requests
    run_cli("curate", "stereoset", "--source", src, "--out", out, "--overwrite", env=deepl_env)
    assert fake_deepl.translate_requests == requests
    cand = read_run(out).candidates.iloc[0]
    assert cand["context"] == "La personne soignante était BLANK."
    assert cand["sentences"][0]["sentence"] == "La personne soignante était attentionnée."
    assert cand["sentences"][0]["attribute"] == "attentionnée"
    assert cand["sentences"][2]["sentence"] == "La personne soignante était rusé."


def test_malformed_source_is_one_line_error(tmp_path, deepl_env):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "intrasentence"}\n', encoding="utf-8")
    result = run_cli(
        "curate", "stereoset", "--source", bad, "--out", tmp_path / "r", env=deepl_env, check=False
    )
    assert result.returncode == 2
    assert f"{bad}:1" in result.stderr and "missing field" in result.stderr


def test_glossary_formality_and_memory_path_from_the_command_line(fake_deepl, deepl_env, tmp_path):
    src = write_jsonl(
        tmp_path / "s.jsonl",
        [intra("engineer", "The engineer was BLANK.", "smart", "lazy", "fox", "profession")],
    )
    glossary = tmp_path / "glossary.tsv"
    glossary.write_text("source\ttarget\nengineer\tingénieur·e\n", encoding="utf-8")
    memory = tmp_path / "tm.sqlite"
    out = tmp_path / "run"
    args = ["curate", "stereoset", "--source", src, "--memory", memory, "--out", out]
    run_cli(*args, "--glossary", glossary, "--formality", "prefer_more", env=deepl_env)
    assert memory.is_file()
    assert len(fake_deepl.glossaries) == 1
    assert all(r["glossary_id"] and r["formality"] == "prefer_more" for r in fake_deepl.requests)
    cand = read_run(out).candidates.iloc[0]
    assert cand["target"] == "ingénieur·e"
    assert cand["context"] == "La ingénieur·e était BLANK."  # the fake agrees "la" with -e
    assert cand["translation"]["glossary"].startswith("biasforge-")
    # without the glossary the memory holds nothing for these options: everything is sent again
    requests = fake_deepl.translate_requests
    run_cli(*args, "--overwrite", env=deepl_env)
    assert fake_deepl.translate_requests > requests
    assert read_run(out).candidates.iloc[0]["target"] == "ingénieur"


def test_dry_run_with_a_key_compares_with_the_account_quota(fake_deepl, deepl_env):
    fake_deepl.character_limit = 1000
    fake_deepl.character_count = 400
    result = run_cli("curate", "stereoset", "--dry-run", env=deepl_env)
    assert "400 of 1000 characters used this period, 600 left" in result.stdout
    assert "does NOT fit" in result.stdout
    assert fake_deepl.translate_requests == 0
