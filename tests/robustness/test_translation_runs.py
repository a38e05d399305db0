"""A StereoSet translation run as a careless user starts it: a server URL without a scheme
holding a password, a source with a 3-million-character item, a dry run over texts the real
run must refuse, and a long run whose stderr goes to a log file instead of a terminal."""

from __future__ import annotations

import re

import pytest

from biasforge.contract.markdown import EXCERPT, excerpt
from tests.conftest import one_error_line, run_cli
from tests.fake_deepl import FakeDeepL
from tests.stereoset.conftest import inter, intra, write_jsonl

PASSWORD = "Sup3r-s3cret-9931"


def _good_items(n: int) -> list[dict]:
    return [
        inter(
            f"person{i}",
            f"Person {i} lives in town {i}.",
            f"They cook {i}.",
            f"They work {i}.",
            f"Cats fly {i}.",
        )
        for i in range(n)
    ]


@pytest.mark.parametrize(
    "url",
    [
        f"gateway:{PASSWORD}@localhost:8443",
        f"gateway:{PASSWORD}@localhost:8443/deepl/",
        f"gateway:{PASSWORD}@localhost:notaport",
        f"ftp://gateway:{PASSWORD}@localhost/",
        f"gateway:pa/{PASSWORD}@localhost",
        f"http://gateway:{PASSWORD}@localhost:99999",
    ],
)
@pytest.mark.parametrize("given", ["env", "option"])
def test_a_bad_server_url_is_named_without_its_password(tmp_path, url, given):
    home = tmp_path / "home"
    env = {"DEEPL_AUTH_KEY": "k", "BIASFORGE_HOME": str(home)}
    where = ["--server-url", url] if given == "option" else []
    env |= {"DEEPL_SERVER_URL": url} if given == "env" else {}
    for dry in (["--dry-run"], ["--out", tmp_path / "run"]):
        result = run_cli("curate", "stereoset", *dry, *where, env=env, check=False)
        line = one_error_line(result)
        assert "DEEPL_SERVER_URL" in line and "localhost" in line, line
        assert PASSWORD not in result.stdout + result.stderr
    logs = [p for p in tmp_path.rglob("*") if p.is_file() and PASSWORD.encode() in p.read_bytes()]
    assert logs == []
    assert not (tmp_path / "run").exists()


def test_excerpt_bounds_a_quote_and_keeps_a_short_one_whole():
    assert excerpt("a" * EXCERPT) == "a" * EXCERPT
    long = excerpt("b" * (EXCERPT + 1))
    assert long == "b" * EXCERPT + f"…({EXCERPT + 1} characters)"
    assert excerpt("two\nlines") == "two lines"


def test_a_huge_rejected_item_is_quoted_as_an_excerpt_in_the_report(tmp_path):
    """An intrasentence item without its BLANK is rejected by the audit; report.md quotes
    its 3M-character context and its target as bounded excerpts (the whole item is in
    rejected.parquet), in a same-language run (no translation)."""
    huge = "word " * 600_000 + "end."
    target = " and ".join(["nurse"] * 60_000)  # several terms: rejected, quoted in the detail
    source = write_jsonl(
        tmp_path / "source.jsonl",
        [
            intra("nurse", huge, "caring", "rude", "fox"),
            intra(target, "The nurse was BLANK.", "kind", "cruel", "cat"),
            *_good_items(3),
        ],
    )
    out = tmp_path / "run"
    run_cli("curate", "stereoset", "--lang", "en", "--source", source, "--out", out,
            env={"BIASFORGE_HOME": str(tmp_path / "home")})  # fmt: skip
    report = (out / "report.md").read_text(encoding="utf-8")
    assert len(report) < 50_000, len(report)
    assert f"…({len(huge)} characters)" in report
    assert re.search(r"…\(\d{6,} characters\)", report.split("several_targets", 1)[1])
    import pyarrow.parquet as pq

    rejected = pq.read_table(out / "rejected.parquet").to_pandas()
    assert huge in set(rejected["context"])  # nothing lost: the item is whole in the run


def test_the_dry_run_counts_what_the_run_sends_and_what_the_audit_rejects(tmp_path):
    """One item's context is a single 140 KB sentence (over DeepL's 128 KiB request limit),
    another's 168 KB of sentences: the audit rejects both before anything is sent (a StereoSet
    text is one sentence; issue 47, item 14); the dry run must count exactly the characters
    the fake DeepL server then receives, and say how many items the audit rejected."""
    one_sentence = "The nurse BLANK " + "very " * 28_000 + "tired"
    long_text = "A long story. " * 12_000  # sent cut at sentence ends: gaps are not sent
    items = [
        intra("nurse", one_sentence, "was", "is", "fox"),
        inter("mother", long_text.strip(), "They cook.", "They work.", "Cats fly."),
        *_good_items(4),
    ]
    source = write_jsonl(tmp_path / "source.jsonl", items)
    server = FakeDeepL().start()
    try:
        env = {"DEEPL_AUTH_KEY": server.auth_key, "DEEPL_SERVER_URL": server.url,
               "BIASFORGE_HOME": str(tmp_path / "home")}  # fmt: skip
        dry = run_cli("curate", "stereoset", "--source", source, "--dry-run", env=env)
        assert server.character_count == 0
        run = run_cli("curate", "stereoset", "--source", source, "--out", tmp_path / "run",
                      env=env, check=False)  # fmt: skip
        sent = server.character_count
    finally:
        server.stop()
    counted = int(re.search(r"would send \d+ texts = (\d+) characters", dry.stdout).group(1))
    assert counted == sent > 0, dry.stdout
    assert "items after the audit (2 rejected before translation)" in dry.stdout
    assert "would refuse" not in dry.stdout
    assert run.returncode == 0, run.stderr
    assert sent < 10_000  # the four good items only


def _progress_lines(stderr: str, label: str) -> list[str]:
    return [part for part in re.split(r"[\r\n]", stderr) if label in part]


def test_progress_in_a_log_is_a_few_plain_lines(tmp_path):
    """550 texts translated with stderr to a pipe (as under CI or `2> log`): the bar must
    print a bounded number of plain lines, not one redraw every 0.1 s.

    110 items are enough (1,300 before, 80 s of waiting on the fake server): each item's
    sentences share its context, so they go in a request of their own, 115 requests in all;
    at 0.06 s each the run lasts 7 s or more. Probed: plain tqdm (a redraw every 0.1 s) gives
    39 lines, a plain bar drawn on every update 117, both far above the bound of 20."""
    items = 110
    source = write_jsonl(tmp_path / "source.jsonl", _good_items(items))  # 5 texts per item
    server = FakeDeepL(delay=0.06).start()
    try:
        env = {"DEEPL_AUTH_KEY": server.auth_key, "DEEPL_SERVER_URL": server.url,
               "BIASFORGE_HOME": str(tmp_path / "home")}  # fmt: skip
        run = run_cli("curate", "stereoset", "--source", source, "--out", tmp_path / "run",
                      env=env)  # fmt: skip
        requests = server.translate_requests
    finally:
        server.stop()
    lines = _progress_lines(run.stderr, "translating en→fr")
    assert requests >= 100  # the bar had >100 updates to draw
    assert 2 <= len(lines) <= 20, run.stderr[-3000:]
    assert "\r" not in run.stderr
    assert f" {5 * items}/{5 * items} " in lines[-1], lines[-1]  # the last line: all done
