"""Control items: items whose answer is known, mixed into the review queue (issue 38).

A control is shown exactly as an ordinary item (the family's fields, metadata and pre-filled
correction box, an id of the same form, created in the same batches at random places among
the items), so nothing tells an annotator which records are controls. Which ones are, and
their known answers, is kept out of Argilla altogether — hidden metadata would not do: any
workspace member reads a record's every metadata key (and every response) through
``GET /api/v1/records/{id}`` on a stock Argilla server — in the dataset's private state
(:mod:`biasforge.annotation.review.private_state`, mode 0600), whose secret also seeds where
controls go and which items a share draws. ``pull`` reads it to give each
annotator an accuracy on the controls, and leaves controls out of decisions, agreement
figures, reviewed records and releases (it decides the run's candidates only).

Controls come from a file (``push --controls FILE``): a release, reviewed records or a run of
validated items of the same family (the family's ``known_answers`` hook gives their answers,
e.g. StereoSet's labels), or a JSONL file of items each with an ``expected`` object
(question → answer). Or they are drawn from the run (``push --control-share F``) by the
family's ``make_controls`` hook (BEC-Pro: a sentence with a planted misprint); the items a
share is made from are withheld from the dataset (recorded in the private state as
``withheld``), and a file's items may not repeat an item of the run: a control beside its own
item is spotted as a repeat (issue 47, item 2). ``pull`` leaves withheld items pending, with
that reason.
"""

from __future__ import annotations

import json
import random
import secrets
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from biasforge.annotation.review import private_state
from biasforge.errors import BiasforgeError, InputError
from biasforge.families import Family
from biasforge.families.base import Control, DatasetKey
from biasforge.files import stable_id

EXPECTED = "expected"  # the key/column of a controls file that gives the known answers


@dataclass(frozen=True)
class ControlItem:
    """One control as pushed: its record id, the item shown, the known answers."""

    id: str
    row: dict[str, Any]
    expected: dict[str, str]


# ----------------------------------------------------------------------------- state


def load(url: str, workspace: str, dataset: str) -> list[ControlItem]:
    """The controls pushed to the dataset (none when it has none)."""
    state = private_state.read(url, workspace, dataset)
    return [ControlItem(c["id"], c["row"], c["expected"]) for c in state.get("controls", [])]


def control_ids(url: str, workspace: str, dataset: str) -> set[str]:
    return {c.id for c in load(url, workspace, dataset)}


def withheld(url: str, workspace: str, dataset: str) -> set[str]:
    """Ids of the run's items a ``--control-share`` made controls of: never pushed as items
    themselves (issue 47, item 2), so no control sits beside the item it was made from."""
    return set(private_state.read(url, workspace, dataset).get("withheld", []))


# ----------------------------------------------------------------------------- sources


def _expected_problem(family: Family, expected: Any) -> str | None:
    """Why ``expected`` is not a usable answer key for ``family``, or None."""
    if not isinstance(expected, dict) or not expected:
        return f"{EXPECTED!r} must be a non-empty object of question -> answer"
    for question, value in expected.items():
        if question not in family.review.criteria:
            known = ", ".join(family.review.criteria)
            return f"{EXPECTED!r} names question {question!r}; {family.name} asks {known}"
        labels = family.review.criteria[question][1]
        if value not in labels:
            return f"{question}={value!r} is not one of {', '.join(labels)}"
    return None


def _known(family: Family, row: dict[str, Any], given: Any) -> dict[str, str] | str:
    """The known answers of a control row, or why there are none."""
    if given is None:
        if family.review.known_answers is None:
            return (
                f"no {EXPECTED!r} answers, and {family.name} items imply none: give each "
                f"item an {EXPECTED!r} object (question -> answer)"
            )
        # checked under a throwaway key: which option carries an answer may depend on the
        # dataset's key (StereoSet's order), whether the answers are valid does not
        probe = family.review.with_key(DatasetKey(secrets.token_bytes(16)))
        given = probe.known_answers(row)
    if isinstance(given, str):
        try:
            given = json.loads(given)
        except json.JSONDecodeError:
            return f"{EXPECTED!r} is not a JSON object"
    problem = _expected_problem(family, given)
    return problem if problem else {str(k): str(v) for k, v in given.items()}


def _jsonl_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    from biasforge.textfiles import read_text

    rows = []  # read_text: a pipe or a device given as the file is refused, not waited on
    for number, line in enumerate(read_text(path).splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                path, f"--controls: not a JSON object: {exc.msg}", line=number
            ) from None
        if not isinstance(row, dict):
            raise InputError(path, "--controls: not a JSON object", line=number)
        rows.append((number, row))
    return rows


def _folder_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    from biasforge.contract.folders import read_items

    items = read_items(path)
    rows = [r for table in items.tables.values() for r in table.to_pylist()]
    return [(None, row) for row in rows]  # type: ignore[misc]


def read_controls_file(path: str | Path, family: Family) -> list[tuple[dict, dict | None]]:
    """The control items of ``path`` and their known answers when given (None: implied by
    the item, to be derived once it has its control id, which e.g. StereoSet's option order
    depends on); one clear error naming the line (JSONL) or record otherwise. Items must be
    valid ``family`` items."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, "--controls: no such file or folder")
    rows = _jsonl_rows(path) if path.suffix == ".jsonl" else _folder_rows(path)
    if not rows:
        raise InputError(path, "--controls: the file holds no items")
    controls: list[Control] = []
    for line, raw in rows:
        row = {k: v for k, v in raw.items() if k != EXPECTED}
        where = {"line": line} if line else {"record": str(row.get("id"))}
        if row.get("family") != family.name:
            message = f"a {row.get('family')!r} item; the run holds {family.name} items"
            raise InputError(path, f"--controls: {message}", **where)
        problems = _row_problems(family, row)
        if problems:
            raise InputError(path, f"--controls: {problems}", **where)
        known = _known(family, row, raw.get(EXPECTED))
        if isinstance(known, str):
            raise InputError(path, f"--controls: {known}", **where)
        given = known if raw.get(EXPECTED) is not None else None
        controls.append(({k: row.get(k) for k in family.schema.names}, given))
    return controls


def _row_problems(family: Family, row: dict[str, Any]) -> str | None:
    missing = family.schema.missing(row)
    if missing:
        return f"not a {family.name} item: missing {', '.join(missing)}"
    try:
        table = pa.Table.from_pylist(
            [{k: row.get(k) for k in family.schema.names}], schema=family.schema.arrow
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        return f"not a {family.name} item: {str(exc).splitlines()[0]}"
    problems = family.schema.check(table)
    return "; ".join(map(str, problems)) or None


def _shown(review, row: dict[str, Any]) -> tuple[str, ...]:
    """What an annotator reads of an item, order aside: its fields' texts, sorted (where a
    family arranges the fields by the dataset's key, as StereoSet's options, the same item
    under another id shows the same texts in another order)."""
    fields = review.to_record(row)["fields"]
    return tuple(sorted(str(value) for value in fields.values() if value))


def check_overlap(
    family: Family, path: str | Path, items: list[dict[str, Any]], rows: list[dict[str, Any]]
) -> None:
    """Refuse control items that repeat an item of the run (same id, or the same texts
    shown): annotators would spot a control as a repeat (issue 47, item 2: the release of
    the same run given as controls made 200 items 400 records, pairwise identical)."""
    review = family.review.with_key(DatasetKey(secrets.token_bytes(16)))
    by_id = {str(row["id"]) for row in rows}
    by_text = {_shown(review, row): str(row["id"]) for row in rows}
    repeats = []
    for item in items:
        cid = str(item.get("id"))
        same = cid if cid in by_id else by_text.get(_shown(review, item))
        if same is not None:
            repeats.append((cid, same))
    if repeats:
        (cid, same), more = repeats[0], len(repeats) - 1
        others = f" ({more} more)" if more else ""
        raise InputError(
            path, f"--controls: item {cid} repeats item {same} of the run{others}: a control "
            "must not be a copy of an item of the same dataset, or annotators see it as a "
            "repeat; give validated items that are not in this run", record=cid,
        )  # fmt: skip


def draw_controls(
    family: Family, rows: list[dict[str, Any]], share: float, seed: str
) -> list[Control]:
    """``share`` of the run's size as controls made by the family's ``make_controls`` hook."""
    check_options(family, None, share)
    wanted = max(1, round(share * len(rows)))
    made = family.review.make_controls(rows, wanted, random.Random(seed))
    if not made:
        raise BiasforgeError(f"--control-share: no {family.name} item of the run can be a control")
    return made


def check_options(
    family: Family,
    from_file: str | Path | None,
    share: float | None,
    rows: list[dict[str, Any]] | None = None,
) -> None:
    """Refuse bad ``--controls``/``--control-share`` before any server is contacted; with
    the run's ``rows``, controls that repeat one of them too."""
    if from_file is not None:
        items = read_controls_file(from_file, family)
        if rows is not None:
            check_overlap(family, from_file, [row for row, _ in items], rows)
    if share is not None:
        if not 0 < share < 1:
            raise BiasforgeError(f"--control-share {share}: give a fraction between 0 and 1")
        if family.review.make_controls is None:
            raise BiasforgeError(
                f"--control-share: {family.name} items cannot be turned into controls with a "
                "known answer; give validated items with --controls FILE"
            )


# ----------------------------------------------------------------------------- planning


def state_seed(url: str, workspace: str, dataset: str) -> str:
    """The dataset's secret seed (where controls go, which items a share draws); "" if none."""
    return private_state.secret(url, workspace, dataset) or ""


def plan(
    url: str,
    workspace: str,
    dataset: str,
    family: Family,
    *,
    from_file: str | Path | None,
    share: float | None,
    rows: list[dict[str, Any]],
    has_records: bool,
) -> list[ControlItem]:
    """The dataset's controls after this push: those already planned, plus the new ones.

    New controls are refused once the dataset holds records: created later, they would
    stand apart by their creation time. The plan is saved (0600) before anything is pushed,
    so an interrupted push resumes with the same controls. ``family`` is bound to the
    dataset's key (``Family.with_key``) where its known answers depend on it.
    """
    known = load(url, workspace, dataset)
    # the first push created the secret; without one here, no control can be added anyway
    salt = state_seed(url, workspace, dataset) or secrets.token_hex(16)
    wanted: list[tuple[str, dict, dict | None]] = []
    if from_file is not None:
        read = read_controls_file(from_file, family)
        check_overlap(family, from_file, [row for row, _ in read], rows)
        wanted += [("file", row, given) for row, given in read]
    if share is not None:
        wanted += [("drawn", row, known) for row, known in draw_controls(family, rows, share, salt)]
    sources = {str(row.get("id")) for origin, row, _ in wanted if origin == "drawn"}
    have = {c.id for c in known}
    candidates = {str(r["id"]) for r in rows}
    new = []
    for origin, row, given in wanted:
        rid = stable_id("control", salt, origin, str(row.get("id")))
        if rid in have or rid in {c.id for c in new}:
            continue
        if rid in candidates:
            raise BiasforgeError(f"control id {rid} collides with a candidate id")
        shown = {**row, "id": rid}
        implied = family.review.known_answers
        expected = given if given is not None or implied is None else implied(shown)
        new.append(ControlItem(rid, shown, expected or {}))
    if new and has_records:
        raise BiasforgeError(
            f"dataset {dataset!r} already holds records: controls added now would stand apart "
            "(created later than the items); push the run with its controls to a new dataset"
        )
    if new:
        state = private_state.read(url, workspace, dataset)
        state.pop("salt", None)  # the secret's name before it also keyed orders
        state.update(secret=salt, family=family.name, controls=[asdict(c) for c in [*known, *new]])
        state["withheld"] = sorted(set(state.get("withheld", [])) | sources)
        private_state.write(url, workspace, dataset, private_state.dump(state))
    return [*known, *new]


def interleave(rows: list[dict[str, Any]], controls: list[dict[str, Any]], seed: str) -> list[dict]:
    """``rows`` in their order with ``controls`` at random places among them (seeded), so
    controls are created in the same batches as the items around them."""
    rng = random.Random(seed)
    out = list(rows)
    for control in controls:
        out.insert(rng.randint(0, len(out)), control)
    return out


# ----------------------------------------------------------------------------- accuracy


def accuracy(controls: list[ControlItem], answers: dict[str, list[Any]]) -> dict[str, Any]:
    """Each annotator's accuracy on the controls they answered: per question and overall,
    with counts (a discard is counted apart, as neither right nor wrong)."""
    per: dict[str, dict[str, Any]] = {}
    for control in controls:
        for answer in answers.get(control.id, []):
            mine = per.setdefault(answer.user, {"controls": 0, "discarded": 0, "questions": {}})
            if answer.status == "discarded":
                mine["discarded"] += 1
                continue
            if answer.status != "submitted":
                continue
            mine["controls"] += 1
            for question, value in control.expected.items():
                given = answer.values.get(question)
                if given is None:
                    continue
                right, total = mine["questions"].get(question, (0, 0))
                mine["questions"][question] = (right + (str(given) == value), total + 1)
    for mine in per.values():
        right = sum(r for r, _ in mine["questions"].values())
        total = sum(t for _, t in mine["questions"].values())
        mine["answers"] = total
        mine["accuracy"] = right / total if total else None
        mine["questions"] = {
            q: {"right": r, "answers": t, "accuracy": r / t}
            for q, (r, t) in mine["questions"].items()
        }
    return per
