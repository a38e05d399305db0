"""StereoSet's option order is drawn with a private key of the dataset (the rule "annotators
judge blind"; issue 33 on stock Argilla, issue 38's private state).

Seeded by the record id alone, the order of every record could be computed by anyone who read
biasforge's source, and it was kept in metadata that a stock Argilla server returns to any
annotator. On a stock argilla-server 2.8 (``BIASFORGE_STOCK_SERVER=1``: none of biasforge's
patches, so an annotator's ``GET /api/v1/records/{id}`` returns everything stored), the
bundled 200-item StereoSet sample is pushed; the order each record shows is read as an
annotator reads it (the correction box's ``A:``/``B:``/``C:`` lines), never from the code
that made it, and compared with the order the maintainer's key derives and with the id-seeded
order of earlier versions.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import shutil
import stat
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import httpx
import pandas as pd
import pytest
from scipy.stats import binom

from biasforge import families
from biasforge.annotation.admin.users import add_users
from biasforge.annotation.client.api import questions
from biasforge.annotation.client.connection import WORKSPACE, Connection
from biasforge.annotation.client.secrets import owner_credentials, write_secret_json
from biasforge.annotation.review import controls, private_state
from biasforge.annotation.review.pull import pull
from biasforge.annotation.review.push import ensure_dataset, push_run, record_payloads
from biasforge.annotation.review.registry import remember_run
from biasforge.errors import BiasforgeError
from biasforge.families.base import DatasetKey
from biasforge.families.stereoset import CHECK_KEY, LABELS, option_order, order_check
from biasforge.files import stable_id
from tests.annotation.helpers import answer, login
from tests.annotation.keyed import pushed_key, seen_order
from tests.annotation.quality_helpers import whole_queue
from tests.annotation.test_families import make_run, stereoset_rows
from tests.annotation.test_scale_out import stock_server  # noqa: F401 (a fixture)
from tests.conftest import one_error_line, run_cli

STEREOSET = families.get("stereoset")
DATASET = "ss-keyed"
LEGACY = "ss-before-keys"
N = 200
#: agreements between two independent uniform orders of three options (p = 1/6) that 200
#: records exceed by chance once in a million runs (the id-seeded order agreed on all 200)
CHANCE = int(binom(N, 1 / 6).isf(1e-6))


def id_seeded(rid: str, options: int = 3) -> list[int]:
    """The order earlier versions showed: a shuffle seeded by the record id alone."""
    order = list(range(options))
    random.Random(f"stereoset-options:{rid}").shuffle(order)
    return order


def test_two_keys_order_the_same_records_differently_and_neither_as_the_id_would():
    rows = [
        {"id": stable_id("keyed", str(n)), "sentences": [{"label": label} for label in LABELS]}
        for n in range(N)
    ]
    one, two = DatasetKey(b"first dataset's key"), DatasetKey(b"second dataset's key")
    first = [option_order(r, key=one) for r in rows]
    second = [option_order(r, key=two) for r in rows]
    assert sum(a == b for a, b in zip(first, second, strict=True)) <= CHANCE
    for orders in (first, second):
        assert len({tuple(o) for o in orders}) == 6  # every order occurs
        assert sum(o == id_seeded(r["id"]) for o, r in zip(orders, rows, strict=True)) <= CHANCE
    assert [option_order(r, key=one) for r in rows] == first  # the same key, the same orders
    alike = [r for r, a, b in zip(rows, first, second, strict=True) if a == b]
    assert alike and all(order_check(r, key=one) != order_check(r, key=two) for r in alike)


def test_the_private_state_of_a_dataset_pushed_with_controls_before_is_kept(biasforge_home):
    """Control items' state lived in ``annotation/controls/`` before it also held the key."""
    args = ("http://127.0.0.1:1", "ws", "earlier")
    name = private_state.path(*args).name
    earlier = biasforge_home / "annotation" / "controls" / name
    earlier.parent.mkdir(parents=True, exist_ok=True)
    control = {"id": "c1", "row": {"id": "c1"}, "expected": {"grammatical": "no"}}
    write_secret_json(earlier, {"salt": "ab" * 16, "controls": [control]})
    assert [c.id for c in controls.load(*args)] == ["c1"]
    assert private_state.secret(*args) == "ab" * 16
    assert not earlier.exists() and private_state.path(*args).is_file()


def test_a_dataset_created_twice_at_once_on_one_machine_gets_one_key(biasforge_home):
    args = ("http://127.0.0.1:1", "ws", "raced")
    with ThreadPoolExecutor(8) as pool:
        made = set(pool.map(lambda _: private_state.ensure_secret(*args), range(8)))
    assert len(made) == 1 and made == {private_state.secret(*args)}
    assert stat.S_IMODE(private_state.path(*args).stat().st_mode) == 0o600


# ----------------------------------------------------------------------------- stock server


@pytest.fixture(scope="module")
def pushed(stock_server, stereoset_fr_run):  # noqa: F811
    key = owner_credentials(stock_server.data_dir)["api_key"]
    connection = Connection(stock_server.url, key, WORKSPACE, False)
    result = push_run(stereoset_fr_run, DATASET, connection, min_submitted=1, progress=False)
    remember_run(connection.url, connection.workspace, DATASET, stereoset_fr_run)
    (user,) = add_users(connection, [("keyed-ann", None)])
    annotator = login(stock_server.url, user.username, user.password)
    listed = whole_queue(annotator, result.dataset_id)
    # a stock server gives an annotator the record as stored: every metadata key, suggestions
    records = [annotator.get(f"/api/v1/records/{r['id']}").json() for r in listed]
    rows = pd.read_parquet(stereoset_fr_run / "candidates.parquet").to_dict("records")
    return {
        "connection": connection, "dataset_id": result.dataset_id, "annotator": annotator,
        "records": records, "rows": {str(r["id"]): r for r in rows}, "run": stereoset_fr_run,
        "api_key": key,
    }  # fmt: skip


def test_what_a_stock_server_gives_an_annotator_does_not_tell_the_order(pushed):
    connection, rows, records = pushed["connection"], pushed["rows"], pushed["records"]
    path = private_state.path(connection.url, connection.workspace, DATASET)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    key = pushed_key(connection, DATASET)
    assert len(records) == len(rows) == N
    seen = {r["external_id"]: seen_order(r, rows[r["external_id"]]) for r in records}
    assert all(seen[rid] == option_order(rows[rid], key=key) for rid in rows)  # the key's order
    assert sum(seen[rid] == id_seeded(rid) for rid in rows) <= CHANCE  # not the id's
    visible = {*STEREOSET.review.all_metadata, CHECK_KEY}
    for record in records:
        metadata = record["metadata"]
        assert set(metadata) == visible, metadata  # no option_order, nothing else
        order = seen[record["external_id"]]
        written = (",".join(map(str, order)), json.dumps(order))
        assert not any(w in json.dumps(v) for v in metadata.values() for w in written)
        (box,) = record["suggestions"]  # the correction box's text only, no label
        assert box["value"].startswith("context:")
    checks = [r["metadata"][CHECK_KEY] for r in records]
    assert len(set(checks)) == N  # a digest per record, not one per order


def test_answers_map_back_and_a_record_shown_with_another_key_is_refused(pushed, tmp_path):
    connection, rows, annotator = pushed["connection"], pushed["rows"], pushed["annotator"]
    answered = pushed["records"][:12]
    swapped = {r["external_id"] for r in answered[:4]}  # labels of options A and B swapped
    expected = {}
    for record in answered:
        rid = record["external_id"]
        order = seen_order(record, rows[rid])
        labels = [rows[rid]["sentences"][i]["label"] for i in order]  # A, B, C
        if rid in swapped:
            labels[0], labels[1] = labels[1], labels[0]
        answer(annotator, record["id"], {"validity": "valid", **dict(zip(
            ("label_A", "label_B", "label_C"), labels, strict=True))})  # fmt: skip
        stored = [None] * 3
        for j, i in enumerate(order):
            stored[i] = labels[j]
        expected[rid] = stored
    pull(DATASET, tmp_path / "out", connection, policy="unanimous")
    reviewed = pd.read_parquet(tmp_path / "out" / "reviewed.parquet").set_index("id")
    for rid, labels in expected.items():
        assert reviewed.loc[rid, "decision"] == "accept"
        assert [s["label"] for s in reviewed.loc[rid, "sentences"]] == labels
    assert all(
        [s["label"] for s in reviewed.loc[rid, "sentences"]] != list(LABELS) for rid in swapped
    )

    args = (connection.url, connection.workspace, DATASET)
    state = private_state.read(*args)
    private_state.write(*args, {**state, "secret": secrets.token_hex(16)})  # another key
    try:
        pull(DATASET, tmp_path / "other", connection, policy="unanimous")
    finally:
        private_state.write(*args, state)
    decisions = pd.read_parquet(tmp_path / "other" / "decisions.parquet").set_index("id")
    for rid in expected:
        assert decisions.loc[rid, "decision"] == "pending"
        assert "with another private key" in decisions.loc[rid, "reason"]


def test_a_machine_without_the_key_is_told_which_file_to_copy(pushed, tmp_path):
    connection, run = pushed["connection"], pushed["run"]
    secret = private_state.secret(connection.url, connection.workspace, DATASET)
    again = push_run(run, DATASET, connection, min_submitted=1, progress=False)
    assert again.created == 0  # idempotent, and with the same key
    assert private_state.secret(connection.url, connection.workspace, DATASET) == secret

    elsewhere = tmp_path / "another-machine"
    env = {"BIASFORGE_HOME": str(elsewhere), "ARGILLA_API_URL": connection.url,
           "ARGILLA_API_KEY": pushed["api_key"]}  # fmt: skip
    out = tmp_path / "out"
    pulled = run_cli("annotate", "pull", "--dataset", DATASET, "--out", out, "--run", run,
                     check=False, env=env)  # fmt: skip
    line = one_error_line(pulled)
    name = private_state.path(connection.url, connection.workspace, DATASET).name
    assert f"copy annotation/private/{name} from the BIASFORGE_HOME" in line
    assert not out.exists()
    pushing = run_cli("annotate", "push", run, "--dataset", DATASET, check=False, env=env)
    assert "its private key is not on this machine" in one_error_line(pushing)

    copy = elsewhere / "annotation" / "private" / name
    copy.parent.mkdir(parents=True)
    shutil.copy(private_state.path(connection.url, connection.workspace, DATASET), copy)
    os.chmod(copy, 0o644)
    opened = run_cli("annotate", "pull", "--dataset", DATASET, "--out", out, "--run", run,
                     check=False, env=env)  # fmt: skip
    assert "too open" in one_error_line(opened)
    os.chmod(copy, 0o600)
    run_cli("annotate", "pull", "--dataset", DATASET, "--out", out, "--run", run, env=env)
    assert (out / "reviewed.parquet").is_file()
    again = run_cli("annotate", "push", run, "--dataset", DATASET, env=env).stdout
    assert "0 records created" in again and f"private key, {copy} (0600" in again


def legacy_dataset(connection: Connection, rows: list[dict], orders: dict[str, str]) -> str:
    """A dataset as versions before keyed orders pushed it: the order in hidden metadata
    ``option_order`` (the options shown in that order), no private key anywhere."""
    earlier = replace(STEREOSET.review, hidden_metadata=("option_order",))
    dataset = ensure_dataset(connection, LEGACY, replace(STEREOSET, review=earlier), 1)
    legacy = {rid: {"option_order": order} for rid, order in orders.items()}
    shown = STEREOSET.with_key(DatasetKey(None, legacy))
    with httpx.Client(base_url=connection.url, headers={"X-Argilla-Api-Key": connection.api_key},
                      timeout=60) as api:  # fmt: skip
        ids = {q["name"]: q["id"] for q in questions(api, str(dataset.id))}
        items = record_payloads(shown, rows, ids)
        for item in items:
            item["metadata"]["option_order"] = orders[item["external_id"]]
        created = api.post(f"/api/v1/datasets/{dataset.id}/records/bulk", json={"items": items})
        assert created.status_code == 201, created.text
    return str(dataset.id)


def test_records_pushed_before_keyed_orders_still_pull(pushed, tmp_path):
    connection, annotator = pushed["connection"], pushed["annotator"]
    rows = [{**r, "id": f"old-{n}", "source_id": f"old-{n}"} for n, r in enumerate(
        stereoset_rows() * 3)]  # fmt: skip
    run = make_run(tmp_path / "run", rows, "stereoset")
    shown = rows[:-1]  # the last candidate was never pushed
    orders = {r["id"]: ",".join(map(str, id_seeded(r["id"]))) for r in shown}
    orders[shown[0]["id"]] = "2,1,0"  # read from the record, not recomputed from its id
    assert id_seeded(shown[0]["id"]) != [2, 1, 0]
    dataset_id = legacy_dataset(connection, shown, orders)
    remember_run(connection.url, connection.workspace, LEGACY, run)
    assert private_state.secret(connection.url, connection.workspace, LEGACY) is None
    expected = {}
    for listed in whole_queue(annotator, dataset_id):
        record = annotator.get(f"/api/v1/records/{listed['id']}").json()
        row = next(r for r in rows if r["id"] == record["external_id"])
        order = [int(i) for i in orders[row["id"]].split(",")]
        assert seen_order(record, row) == order
        relabel = ("anti-stereotype", "stereotype", "unrelated")  # what the annotator decides
        answer(annotator, record["id"], {"validity": "valid", **{
            f"label_{'ABC'[j]}": relabel[i] for j, i in enumerate(order)}})  # fmt: skip
        expected[row["id"]] = list(relabel)
    assert len(expected) == len(shown)
    pull(LEGACY, tmp_path / "out", connection, policy="unanimous")
    reviewed = pd.read_parquet(tmp_path / "out" / "reviewed.parquet").set_index("id")
    for rid, labels in expected.items():
        assert reviewed.loc[rid, "decision"] == "accept"
        assert [s["label"] for s in reviewed.loc[rid, "sentences"]] == labels
    report = (tmp_path / "out" / "report.md").read_text("utf-8")
    assert f"**Not blind:** {len(shown)} of the records were pushed before" in report
    with pytest.raises(BiasforgeError, match="created by an earlier biasforge"):
        push_run(run, LEGACY, connection, min_submitted=1, progress=False)
    env = {"ARGILLA_API_URL": connection.url, "ARGILLA_API_KEY": pushed["api_key"]}
    same = make_run(tmp_path / "pushed-run", shown, "stereoset")
    again = run_cli("annotate", "push", same, "--dataset", LEGACY, env=env).stdout
    assert "0 records created" in again and "pushed by an earlier biasforge" in again
