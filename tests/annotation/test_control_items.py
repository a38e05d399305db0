"""Control items (issue 38) on the real server and in a real browser.

Forty English BEC-Pro items are pushed with ``--control-share 0.1`` (four controls: drawn
sentences with a planted misprint, whose known answer is "not grammatical"; the four items
they were made from are not pushed, issue 47, item 2). A control must look like any item to
an annotator — the API record they get differs from what the item it was made from would
have shown only in the item's own text, and the page shows the same marks as an ordinary
item's — and its answers must stay out of decisions, agreement figures, reviewed records and
releases, while ``pull`` gives each annotator an accuracy on them.
"""

from __future__ import annotations

import json
import re
import stat

import httpx
import pandas as pd
import pytest

from biasforge.annotation.admin.users import add_users
from biasforge.annotation.client.api import iter_records
from biasforge.annotation.client.connection import find_server
from biasforge.annotation.review import controls, private_state
from biasforge.annotation.review.pull import WITHHELD, pull
from biasforge.annotation.review.push import record_payloads
from biasforge.exports.release import make_release
from biasforge.families import family_of
from biasforge.families.base import failed_rules
from tests.annotation.conftest import subset_run
from tests.annotation.helpers import login, question, sign_in
from tests.annotation.quality_helpers import answer_in_bulk
from tests.conftest import one_error_line, run_cli

DATASET = "becpro-controls"
TEAM = ("ctl-ann1", "ctl-ann2")
PER_RECORD = {"id", "record_id", "external_id", "inserted_at", "updated_at"}


def seen_by(api, dataset_id: str) -> list[dict]:
    """Every record of the annotator's queue as the UI asks for it (with suggestions)."""
    found = api.post(
        f"/api/v1/me/datasets/{dataset_id}/records/search",
        params={"include": ["responses", "suggestions"], "limit": 100},
        json={},
    )
    assert found.status_code == 200, found.text
    return [item["record"] for item in found.json()["items"]]


def without_ids(value):
    """The record with what every record has of its own (ids, timestamps) blanked."""
    if isinstance(value, dict):
        return {k: "…" if k in PER_RECORD else without_ids(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_ids(v) for v in value]
    return value


@pytest.fixture(scope="module")
def review(server, becpro_run, tmp_path_factory):
    base = tmp_path_factory.mktemp("controls")
    run = subset_run(becpro_run, base / "run", 40)
    pushed = run_cli(
        "annotate", "push", run, "--dataset", DATASET, "--min-submitted", "2",
        "--control-share", "0.1", "--data-dir", server.data_dir,
    )  # fmt: skip
    connection = find_server(server.data_dir)
    planted = controls.load(connection.url, connection.workspace, DATASET)
    team = {u.username: u.password for u in add_users(connection, [(n, None) for n in TEAM])}
    dataset_id = re.search(r"/dataset/([0-9a-f-]+)/", pushed.stdout).group(1)
    rows = pd.read_parquet(run / "candidates.parquet")
    return {"base": base, "run": run, "connection": connection, "planted": planted,
            "team": team, "dataset_id": dataset_id, "rows": rows, "stdout": pushed.stdout,
            "data_dir": server.data_dir}  # fmt: skip


def original_of(review, control: controls.ControlItem) -> dict:
    """The run's item a control was made from (same template, person and profession slot)."""
    rows = review["rows"]
    (row,) = rows[rows["source_id"] == control.row["source_id"]].to_dict("records")
    return row


def shown(row: dict) -> dict:
    """The fields and metadata a record pushed for ``row`` holds."""
    row = {k: v.tolist() if hasattr(v, "tolist") else v for k, v in row.items()}  # numpy
    family = family_of([row["family"]], "test")
    (payload,) = record_payloads(family, [row], {})
    return {"fields": payload["fields"], "metadata": payload["metadata"]}


def test_push_keeps_the_control_key_in_private_state(review):
    planted = review["planted"]
    assert len(planted) == 4 and "4 control items (4 created now)" in review["stdout"]
    assert all(c.expected == {"grammatical": "no"} for c in planted)
    connection = review["connection"]
    path = private_state.path(connection.url, connection.workspace, DATASET)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    ids = set(review["rows"]["id"])
    assert not ids & {c.id for c in planted}
    assert all(re.fullmatch(r"[0-9a-f]{16}", c.id) for c in planted)  # ids of the same form
    again = run_cli("annotate", "push", review["run"], "--dataset", DATASET, "--control-share",
                    "0.1", "--data-dir", review["data_dir"]).stdout  # fmt: skip
    assert "0 records created, 36 already there" in again and "(0 created now)" in again
    assert controls.load(connection.url, connection.workspace, DATASET) == planted
    # created among the items, not after them (an annotator sees when a record was created)
    owner = httpx.Client(base_url=connection.url, headers={"X-Argilla-Api-Key": connection.api_key})
    created = [r["external_id"] for r in iter_records(owner, review["dataset_id"])]
    places = sorted(created.index(c.id) for c in planted)
    assert len(created) == 40 and places != list(range(36, 40)), places
    # issue 47, item 2: no control beside the item it was made from (spotted as a repeat)
    withheld = {original_of(review, c)["id"] for c in planted}
    assert withheld == controls.withheld(connection.url, connection.workspace, DATASET)
    assert not withheld & set(created)


def test_a_control_and_its_item_look_alike_through_the_annotators_api(review):
    api = login(review["connection"].url, "ctl-ann1", review["team"]["ctl-ann1"])
    records = {r["external_id"]: r for r in seen_by(api, review["dataset_id"])}
    assert len(records) == 40
    meta = api.get(f"/api/v1/me/datasets/{review['dataset_id']}/metadata-properties").json()
    assert not [m for m in meta["items"] if "control" in json.dumps(m)]
    for control in review["planted"]:
        item = original_of(review, control)
        seen, ordinary = records[control.id], next(iter(records.values()))
        assert set(seen) == set(ordinary)  # the same keys as any record
        would = shown(item)  # what the item would have shown had it been pushed
        text = json.dumps({k: seen[k] for k in ("fields", "metadata")}, ensure_ascii=False)
        typo, profession = control.row["profession"], item["profession"]
        assert typo != profession and typo in text
        assert json.loads(text.replace(typo, profession)) == would  # only its own text differs
        # the record endpoint an annotator may call answers the same way for both
        one, other = (api.get(f"/api/v1/records/{r['id']}") for r in (seen, ordinary))
        assert one.status_code == other.status_code
        if one.status_code == 200:
            assert set(one.json()) == set(other.json())


def test_a_control_and_an_item_look_alike_in_the_browser(review, browser, artifacts):
    url, dataset_id = review["connection"].url, review["dataset_id"]
    api = login(url, "ctl-ann2", review["team"]["ctl-ann2"])
    order = [r["external_id"] for r in seen_by(api, dataset_id)]  # the UI's order
    control = review["planted"][0]
    # an item the rules flagged as they flagged the control (the flags box shows them)
    item = next(i for i in review["rows"].to_dict("records")
                if i["id"] in order and failed_rules(i) == failed_rules(control.row))  # fmt: skip
    page = sign_in(browser, url, "ctl-ann2", review["team"]["ctl-ann2"])
    texts, roles = {}, {}
    for name, rid in (("control", control.id), ("item", item["id"])):
        page.goto(f"{url}/dataset/{dataset_id}/annotation-mode?page={order.index(rid) + 1}")
        question(page, "grammatical").wait_for(timeout=60_000)
        page.get_by_text(f"{order.index(rid) + 1} of", exact=False).first.wait_for()
        page.wait_for_load_state("networkidle")  # the record's fields, not the page's frame
        page.screenshot(path=artifacts / f"control-look-alike-{name}.png", full_page=True)
        texts[name] = page.inner_text("body")
        roles[name] = page.locator("mark").evaluate_all("ms => ms.map(m => m.dataset.role)")
    page.context.close()
    typo = control.row["profession"]
    assert typo in texts["control"] and typo not in texts["item"]
    assert control.row["sentence"] in texts["control"] and item["sentence"] in texts["item"]
    # the same page around the two sentences (the items' own texts and figures aside)
    for name, row in (("control", control.row), ("item", item)):
        for column in ("sentence", "person", "profession"):
            texts[name] = texts[name].replace(str(row[column]), "…")
        texts[name] = re.sub(r"\d+(?:\.\d+)?", "N", texts[name])  # place, the profession's %
    assert texts["control"] == texts["item"]
    assert roles["control"] == roles["item"] and len(roles["item"]) >= 4


@pytest.fixture(scope="module")
def pulled(review):
    """Both annotators answer every record; ann1 spots every misprint, ann2 two of four."""
    planted = {c.id: i for i, c in enumerate(review["planted"])}
    for who in TEAM:
        api = login(review["connection"].url, who, review["team"][who])
        answers = []
        for record in seen_by(api, review["dataset_id"]):
            index = planted.get(record["external_id"])
            spotted = index is not None and (who == "ctl-ann1" or index < 2)
            values = {"grammatical": "no" if spotted else "yes", "agreement": "yes"}
            answers.append((record["id"], values, "submitted"))
        answer_in_bulk(api, answers)
    out = review["base"] / "reviewed"
    manifest = pull(DATASET, out, review["connection"], policy="unanimous")
    return {**review, "out": out, "manifest": manifest}


def test_pull_reports_each_annotators_accuracy_on_the_controls(pulled):
    summary = json.loads((pulled["out"] / "agreement.json").read_text())
    accuracy = summary["controls"]["per_annotator"]
    assert summary["controls"]["items"] == 4
    assert {w: (a["answers"], a["accuracy"]) for w, a in accuracy.items()} == {
        "ctl-ann1": (4, 1.0),
        "ctl-ann2": (4, 0.5),
    }
    report = (pulled["out"] / "report.md").read_text()
    # answered: the 36 items and the 4 controls, as the per-question counts (issue 47, item 9)
    assert "| annotator | answered (controls included) |" in report
    assert "accuracy (answers, controls included)" in report
    assert re.search(r"\| ctl-ann1 \| 40 \| 0 \| 1\.00 \| 1\.00 \(4\) \|", report), report
    assert re.search(r"\| ctl-ann2 \| 40 \| 0 \| 1\.00 \| 0\.50 \(4\) \|", report), report


def test_controls_reach_no_decision_agreement_figure_or_release(pulled):
    ids = set(pulled["rows"]["id"])
    planted = {c.id for c in pulled["planted"]}
    withheld = {original_of(pulled, c)["id"] for c in pulled["planted"]}
    for name in ("reviewed.parquet", "decisions.parquet"):
        assert set(pd.read_parquet(pulled["out"] / name)["id"]) == ids, name
    assert set(pd.read_parquet(pulled["out"] / "responses.parquet")["id"]) == ids - withheld
    decisions = pd.read_parquet(pulled["out"] / "decisions.parquet").set_index("id")
    assert set(decisions.loc[sorted(withheld), "reason"]) == {WITHHELD}
    summary = json.loads((pulled["out"] / "agreement.json").read_text())
    assert {q: f["items"] for q, f in summary["questions"].items()} == {
        "grammatical": 36, "agreement": 36,
    }  # fmt: skip
    assert summary["questions"]["grammatical"]["values"] == {"yes": 72}  # no control answer
    release = make_release([pulled["out"]], name=DATASET, version="1.0.0",
                           out=pulled["base"] / "rel")  # fmt: skip
    released = {rid for path in release.path.glob("*/test.parquet")
                for rid in pd.read_parquet(path)["id"]}  # fmt: skip
    assert released == ids - withheld and not released & planted
    card = (release.path / "README.md").read_text()
    assert "4 control items with known answers were mixed, unmarked" in card
    assert "| grammatical | 36 |" in card
    printed = run_cli("annotate", "agreement", "--dataset", DATASET,
                      "--data-dir", pulled["data_dir"]).stdout  # fmt: skip
    assert re.findall(r"^(\w+): .* items=(\d+)", printed, re.MULTILINE) == [
        ("grammatical", "36"), ("agreement", "36"),
    ], printed  # fmt: skip


def becpro_line(run) -> str:
    (row,) = pd.read_parquet(run / "candidates.parquet").head(1).to_dict("records")
    return json.dumps({k: v.tolist() if hasattr(v, "tolist") else v for k, v in row.items()})


@pytest.mark.parametrize(
    ("content", "options", "message"),
    [
        ("{item}\n{{oops\n", (), ":2: --controls: not a JSON object"),
        ("{item}\n", (), ":1: --controls: no 'expected' answers, and becpro items imply none"),
        ('{{"family": "becpro", "id": "x"}}\n', (), ":1: --controls: not a becpro item: missing"),
        (None, ("--control-share", "1.5"), "--control-share 1.5: give a fraction between 0 and 1"),
    ],
)
def test_bad_control_options_are_one_error_line(becpro_run, tmp_path, content, options, message):
    """Refused before any server is looked for (there is none at --data-dir)."""
    run = subset_run(becpro_run, tmp_path / "run", 3)
    args = list(options)
    if content is not None:
        (tmp_path / "controls.jsonl").write_text(content.format(item=becpro_line(run)))
        args += ["--controls", str(tmp_path / "controls.jsonl")]
    result = run_cli("annotate", "push", run, "--dataset", "never-pushed", *args,
                     "--data-dir", tmp_path / "no-server", check=False)  # fmt: skip
    assert message in one_error_line(result)


def test_controls_that_repeat_items_of_the_run_are_refused(becpro_run, tmp_path):
    """issue 47, item 2: items of the run given as controls (here with their known answer),
    under their own id or another, made the dataset hold each twice; refused in one line
    naming the overlap, before any server is looked for."""
    run = subset_run(becpro_run, tmp_path / "run", 3)
    rows = pd.read_parquet(run / "candidates.parquet").to_dict("records")
    first = rows[0]["id"]
    for name, new_id in (("same-id", first), ("new-id", "0123456789abcdef")):
        lines = [json.loads(becpro_line(run)) | {"id": new_id, "expected": {"grammatical": "yes"}}]
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        result = run_cli("annotate", "push", run, "--dataset", "never-pushed", "--controls",
                         path, "--data-dir", tmp_path / "no-server", check=False)  # fmt: skip
        assert one_error_line(result) == (
            f"error: {path} (record {new_id}): --controls: item {new_id} repeats item {first} "
            "of the run: a control must not be a copy of an item of the same dataset, or "
            "annotators see it as a repeat; give validated items that are not in this run"
        )
