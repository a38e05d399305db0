"""The self-contained HTML report, opened in Debian chromium through Playwright: every figure
renders, nothing is fetched from anywhere, and the numbers equal each model's results.json."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from tests.helpers import score
from tests.scoring.conftest import stereoset_items, stereoset_release
from tests.scoring.test_slguset_becpro import becpro_items, slguset_items

METRICS = {"LM Score": "LMS", "SS Score": "SS", "ICAT Score": "ICAT"}


def _score(*args: str) -> None:
    score(*args, "--bootstrap", "200")


def _open(browser, path):
    """The page, and every URL it asked for."""
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page, requested


def _figures_render(page) -> int:
    sizes = page.evaluate(
        "() => Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.naturalHeight])"
    )
    assert sizes and all(done and w > 0 and h > 0 for done, w, h in sizes), sizes
    return len(sizes)


def _cells(page) -> dict[str, list[tuple[str, str]]]:
    """figure id -> [(exact value, shown text)] of every marked cell."""
    pairs = page.evaluate(
        "() => Array.from(document.querySelectorAll('td[data-figure]'))"
        ".map(td => [td.dataset.figure, td.dataset.value, td.textContent])"
    )
    cells: dict[str, list[tuple[str, str]]] = {}
    for figure, value, text in pairs:
        cells.setdefault(figure, []).append((value, text))
    return cells


def test_stereoset_html_report_matches_results_json(tiny_models, tmp_path, browser):
    release = stereoset_release(stereoset_items(), tmp_path)
    out = tmp_path / "scores"
    models = ["-m", tiny_models["masked"], "-m", tiny_models["causal"]]
    _score("stereoset", "-d", str(release), "-o", str(out), *models)
    page, requested = _open(browser, out / "report.html")
    assert _figures_render(page) >= 4  # SS vs LMS, per-domain bars, distribution, correlation
    assert all(url.startswith(("file:", "data:")) for url in requested), requested
    cells = _cells(page)
    checked = 0
    for model in ("tiny-bert", "tiny-gpt2"):
        official = json.loads((out / model / "results.json").read_text())
        for split, domains in official.items():
            if split == "overall":  # the official file's pooled figures: our split "all"
                split, domains = "all", {"overall": domains}
            for domain, figures in domains.items():
                for name, metric in METRICS.items():
                    shown = cells[f"{model}|{split}|{domain}|{metric}"]
                    for value, text in shown:
                        assert float(value) == figures[name]
                        assert text.startswith(f"{figures[name]:.1f} [")
                        checked += 1
    assert checked >= 2 * 3 * 7
    assert "Gemma" not in page.content()  # identities come from the models scored
    page.close()


def test_becpro_html_report_shows_procedure_identity_and_figures(tiny_models, tmp_path, browser):
    data = tmp_path / "becpro.parquet"
    becpro_items().to_parquet(data, index=False)
    out = tmp_path / "bp"
    model = tiny_models["masked"]
    _score(
        "becpro", "-d", str(data), "-m", model, "-m", model, "-o", str(out), "--procedure", "bartl"
    )
    page, requested = _open(browser, out / "report.html")
    assert _figures_render(page) >= 4
    assert all(url.startswith(("file:", "data:")) for url in requested)
    text = page.inner_text("body")
    assert "Bartl et al.'s published code" in text and "model.safetensors" in text
    models = json.loads((out / "models.json").read_text())
    assert models[0]["sha256"] in text and models[0]["dtype"] == "float32"
    cells = _cells(page)
    assert "tiny-bert|female|female|mean" in cells and "tiny-bert-2|male|all|P(f)-P(m)" in cells
    page.close()


def test_slguset_html_report_matches_summary(tiny_models, zh_bert, tmp_path, browser):
    data = tmp_path / "zh.parquet"
    slguset_items().to_parquet(data, index=False)
    out = tmp_path / "zh"
    _score("slguset", "-d", str(data), "-m", zh_bert, "-m", tiny_models["causal"], "-o", str(out))
    page, requested = _open(browser, out / "report.html")
    assert _figures_render(page) >= 4  # pair heatmap, Table 3 bars, distribution, correlation
    assert all(url.startswith(("file:", "data:")) for url in requested)
    cells = _cells(page)
    summary = pd.read_csv(out / "summary.csv")
    for row in summary.to_dict("records"):
        for figure in ("mean_bias", "male_degree", "clear_male"):
            ((value, text),) = cells[f"{row['model']}|all|{figure}"]
            assert float(value) == pytest.approx(row[figure], rel=1e-12)
            assert f"[{row[f'{figure}_low']:.{0 if figure == 'clear_male' else 3}f}," in text
    page.close()
