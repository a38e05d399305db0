"""A user name and password inside the server URL (``http://user:pw@host``) are used to reach
the server and written nowhere: not in the run's files (parquet bytes included), the memory,
the release made from the run, the console, nor the client's log lines."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from biasforge.curation.translation import TranslationMemory, Unit, translate_units
from biasforge.curation.translation.deepl_backend import DeepLTranslator, mask
from tests.conftest import one_error_line, run_cli
from tests.fake_deepl import FakeDeepL
from tests.stereoset.conftest import inter, intra, write_jsonl

USER, PASSWORD = "team-gateway", "S3cret-pw-4242"


@pytest.fixture
def gateway():
    """A DeepL-compatible gateway that wants HTTP basic auth (it holds the DeepL key)."""
    server = FakeDeepL(basic_auth=(USER, PASSWORD)).start()
    yield server
    server.stop()


def _with_credentials(url: str, password: str = PASSWORD) -> str:
    return url.replace("http://", f"http://{USER}:{password}@")


def _leaks(folder: Path, *texts: str) -> list[str]:
    """Files under ``folder`` (read as bytes) and texts that hold the user or the password."""
    found = [
        str(path)
        for path in folder.rglob("*")
        if path.is_file()
        and (PASSWORD.encode() in path.read_bytes() or USER.encode() in path.read_bytes())
    ]
    return found + [text for text in texts if PASSWORD in text or USER in text]


@pytest.mark.parametrize("given", ["env", "option"])
def test_password_in_the_server_url_reaches_no_output(gateway, tmp_path, given):
    url = _with_credentials(gateway.url)
    env = {"DEEPL_AUTH_KEY": "held-by-the-gateway", "BIASFORGE_HOME": str(tmp_path / "home")}
    where = ["--server-url", url] if given == "option" else []
    env |= {"DEEPL_SERVER_URL": url} if given == "env" else {}
    gateway.fail_next(503, times=2)  # some items fail: their reasons go to rejected.parquet
    out = tmp_path / "out" / "run"
    args = ["curate", "stereoset", "--out", out, "--retries", "2", "--retry-delay", "0.01"]
    dry = run_cli("curate", "stereoset", "--dry-run", *where, env=env)
    run = run_cli(*args, *where, env=env, check=False)
    assert run.returncode == 1 and "503" in run.stderr  # failed items are reported
    assert gateway.character_count > 0  # the credentials did reach the gateway
    release = run_cli(
        "export", "release", out, "--name", "ss", "--version", "0.1.0", "--unreviewed",
        "--out", tmp_path / "out" / "releases", env=env,
    )  # fmt: skip
    leaks = _leaks(tmp_path, dry.stdout, dry.stderr, run.stdout, run.stderr, release.stdout)
    assert leaks == []
    port = gateway.url.rpartition(":")[2]
    assert f'"engine": "deepl@localhost:{port}"' in (out / "manifest.json").read_text()


def test_unreachable_server_with_a_password_is_reported_per_item_without_it(tmp_path):
    closed = FakeDeepL().start()
    url = _with_credentials(closed.url)
    closed.stop()  # nothing listens there any more: every request fails to connect
    env = {"DEEPL_AUTH_KEY": "k", "DEEPL_SERVER_URL": url}
    out = tmp_path / "run"
    src = write_jsonl(
        tmp_path / "s.jsonl",
        [
            intra("nurse", "The nurse was BLANK.", "caring", "rude", "fox", "profession"),
            inter("mother", "My mother is at home.", "They cook.", "They work.", "Cats fly."),
        ],
    )
    run = run_cli(
        "curate", "stereoset", "--source", src, "--out", out, "--retries", "1", env=env,
        check=False,
    )  # fmt: skip
    assert run.returncode == 1 and "network error" in run.stderr
    assert _leaks(tmp_path, run.stdout, run.stderr) == []


def test_wrong_password_stops_before_writing_a_run_and_does_not_echo_it(gateway, tmp_path):
    url = _with_credentials(gateway.url, password="Wr0ng-pw-1717")
    env = {"DEEPL_AUTH_KEY": "k", "DEEPL_SERVER_URL": url}
    result = run_cli("curate", "stereoset", "--out", tmp_path / "run", env=env, check=False)
    line = one_error_line(result)
    assert "(403)" in line and "no run was written" in line
    assert not (tmp_path / "run").exists()
    assert "Wr0ng-pw-1717" not in result.stdout + result.stderr


def test_the_client_s_log_lines_show_the_server_without_credentials(gateway, tmp_path, caplog):
    translator = DeepLTranslator(auth_key="k", server_url=_with_credentials(gateway.url))
    with caplog.at_level(logging.DEBUG, logger="deepl"), TranslationMemory(tmp_path / "m") as tm:
        outcomes, _ = translate_units([Unit("a dog")], translator, tm, source="en", target="fr")
    assert outcomes[Unit("a dog")].text == "un chien"
    assert "127.0.0.1" in caplog.text  # the deepl client logs its URLs …
    assert PASSWORD not in caplog.text and USER not in caplog.text  # … without credentials


def test_masking_covers_every_form_of_the_credentials():
    url = "http://us%40er:p%40ss@gateway.example:8443/deepl/"
    text = f"failed at {url}v2/translate as us@er with p@ss (us%40er:p%40ss)"
    assert mask(text, url) == (
        "failed at http://gateway.example:8443/deepl/v2/translate as *** with *** (***)"
    )
    assert mask("nothing secret", "http://gateway.example/") == "nothing secret"
    assert DeepLTranslator(server_url=url).engine_id == "deepl@gateway.example:8443/deepl"
