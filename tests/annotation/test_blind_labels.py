"""Blind label validation (issue 23): StereoSet options are shown in a seeded shuffled order
under neutral names, nothing an annotator sees names a label, and answers map back.

Also the re-check of corrected items (StereoSet target, BEC-Pro misprint flags).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from biasforge import families
from biasforge.families.base import flags_markdown
from biasforge.families.stereoset import CHECK_KEY, LABELS, editable_text, option_order
from biasforge.files import stable_id
from tests.annotation.keyed import TEST_KEY, keyed_review
from tests.annotation.test_families import stereoset_rows

STEREOSET = keyed_review("stereoset")
BECPRO = families.get("becpro").review
SAMPLE = Path(__file__).resolve().parents[2] / "curation/data/stereoset/sample_dev_en.jsonl"
LABEL_WORD = re.compile(r"stereotype|unrelated", re.IGNORECASE)


def flagged_row(ident: str) -> dict:
    """A StereoSet row whose rule flags name labels, as the curation writes them."""
    row = {**stereoset_rows()[0], "id": ident}
    row["checks"] = [
        {"rule": "unrelated_plausible", "passed": False, "severity": "review",
         "detail": "unrelated 'blue' became 'bleu' in the sentence but is 'bleu' alone"},
        {"rule": "structure", "passed": False, "severity": "review",
         "detail": "anti-stereotype: sentence differs; stereotype: fine"},
    ]  # fmt: skip
    row["review_reasons"] = [f"{c['rule']}: {c['detail']}" for c in row["checks"]]
    return row


def visible_text(record: dict) -> str:
    return json.dumps(
        [record["fields"], record["metadata"], record["suggestions"]], ensure_ascii=False
    )


def test_option_a_is_the_stereotype_in_about_a_third_of_the_bundled_sample():
    ids = []
    for line in SAMPLE.read_text("utf-8").splitlines():
        raw = json.loads(line)
        texts = [raw["type"], raw["target"], raw["bias_type"], raw["context"]]
        source_id = stable_id("stereoset", *texts, *(raw[label] for label in LABELS))
        ids.append(stable_id("stereoset", "fr", source_id, ""))
    rows = [{"id": i, "sentences": [{"label": label} for label in LABELS]} for i in ids]
    first = [option_order(row, key=TEST_KEY)[0] == 0 for row in rows]  # index 0: stereotype
    assert len(rows) > 200
    assert 0.25 <= sum(first) / len(rows) <= 0.45
    same = option_order(dict(rows[0]), key=TEST_KEY)
    assert option_order(rows[0], key=TEST_KEY) == same  # keyed: same every time


def test_what_annotators_are_sent_names_no_label_and_keeps_the_order_hidden():
    for ident in ("ss-a", "ss-b", "ss-c", "ss-d"):
        row = flagged_row(ident)
        record = STEREOSET.record(row)
        assert not LABEL_WORD.search(visible_text(record)), visible_text(record)
        assert "option_order" not in record["metadata"]
        assert CHECK_KEY in record["metadata"] and CHECK_KEY in STEREOSET.hidden_metadata
        assert set(record["suggestions"]) == {"correction"}
        lines = record["suggestions"]["correction"].splitlines()
        assert [line.split(":")[0] for line in lines] == ["context", "A", "B", "C"]
    # the control: the same flags without the family's blinding do name labels
    assert LABEL_WORD.search(flags_markdown(flagged_row("ss-a")))


def test_answers_and_corrections_map_back_through_the_order():
    row = next(
        r for r in ({**stereoset_rows()[0], "id": f"ss-{n}"} for n in range(50))
        if option_order(r, key=TEST_KEY)[0] != 0
    )  # fmt: skip
    order = option_order(row, key=TEST_KEY)
    decided = {f"label_{'ABC'[j]}": LABELS[i] for j, i in enumerate(order)}
    decided["validity"] = "valid"
    assert decided["label_A"] != "stereotype"
    assert [s["label"] for s in STEREOSET.apply_answers(row, decided)["sentences"]] == list(LABELS)
    swapped = {**decided, "label_A": decided["label_B"], "label_B": decided["label_A"]}
    relabelled = [s["label"] for s in STEREOSET.apply_answers(row, swapped)["sentences"]]
    assert relabelled[order[0]] == LABELS[order[1]] and relabelled[order[1]] == LABELS[order[0]]
    text = editable_text(row, key=TEST_KEY).replace("bleu", "vert")
    fixed = STEREOSET.apply_correction(row, text)
    assert fixed["sentences"][2]["sentence"] == "La mère est vert."  # the unrelated one
    assert fixed["sentences"][2]["label"] == "unrelated"


def test_a_corrected_context_carries_its_target_along():
    row = {**stereoset_rows()[0], "id": "ss-t", "target": "Ethiopia"}
    row["context"] = "Beaucoup de gens vivent en Ethiopia BLANK."
    for s, fill in zip(row["sentences"], ("maigres", "gros", "bleus"), strict=True):
        s["sentence"], s["attribute"] = row["context"].replace("BLANK", fill), fill
    text = editable_text(row, key=TEST_KEY).replace("Ethiopia", "Éthiopie")
    fixed = STEREOSET.recheck(row, STEREOSET.apply_correction(row, text))
    assert fixed["target"] == "Éthiopie"
    assert not fixed["needs_review"] and fixed["review_reasons"] == []
    lost = text.replace(" en Éthiopie", "")  # the target deleted: the reviewer must set one
    flagged = STEREOSET.recheck(row, STEREOSET.apply_correction(row, lost))
    assert flagged["needs_review"]
    assert any("no longer contains the target" in r for r in flagged["review_reasons"])


def test_a_context_corrected_to_the_plural_keeps_the_items_target_term():
    """Issue 37, item 8: ``Le tailleur`` corrected to ``Les tailleurs`` made the target
    ``tailleurs``, a second target term that split the per-target statistics."""
    row = {**stereoset_rows()[0], "id": "ss-p", "target": "tailleur"}
    row["context"] = "Le tailleur est BLANK."
    for s, fill in zip(row["sentences"], ("pauvre", "riche", "bleu"), strict=True):
        s["sentence"], s["attribute"] = row["context"].replace("BLANK", fill), fill
    text = editable_text(row, key=TEST_KEY).replace("Le tailleur est", "Les tailleurs sont")
    text = text.replace("pauvre.", "pauvres.").replace("riche.", "riches.")
    fixed = STEREOSET.recheck(row, STEREOSET.apply_correction(row, text))
    assert fixed["context"] == "Les tailleurs sont BLANK."
    assert fixed["target"] == "tailleur"
    assert not fixed["needs_review"], fixed["review_reasons"]


def becpro_misprint() -> dict:
    sentence = "Él es un repcionista."
    note = "printed 'repcionista' in Table B.1; probably a misprint of 'recepcionista'"
    invariant = "es_invariant_noun: 'repcionista' has no gendered form in the table"
    return {
        "id": "b1", "family": "becpro", "language": "es", "sentence": sentence, "person": "Él",
        "person_span": {"start": 0, "end": 2}, "profession": "repcionista",
        "profession_span": {"start": 9, "end": 20}, "profession_word_spans": [{"start": 9, "end": 20}],
        "lexicon_notes": [note],
        "checks": [
            {"rule": "spans_point_at_words", "passed": True, "severity": "reject", "detail": "ok"},
            {"rule": "lexicon_notes", "passed": False, "severity": "review", "detail": note},
            {"rule": "es_inflection", "passed": False, "severity": "review", "detail": invariant},
        ],
        "needs_review": True, "review_reasons": [f"lexicon_notes: {note}", f"es_inflection: {invariant}"],
    }  # fmt: skip


@pytest.mark.parametrize(
    ("fix", "flagged"),
    [("Él es un recepcionista.", False), ("Él es un buen repcionista.", True)],
)
def test_a_corrected_becpro_misprint_is_checked_again(fix, flagged):
    row = becpro_misprint()
    fixed = BECPRO.recheck(row, BECPRO.apply_correction(row, fix))
    assert fixed["needs_review"] is flagged
    assert bool(fixed["lexicon_notes"]) is flagged
    assert any("misprint" in r for r in fixed["review_reasons"]) is flagged
    assert any("es_inflection" in r for r in fixed["review_reasons"]) is flagged


def test_each_flag_is_shown_once():
    row = becpro_misprint()
    shown = flags_markdown(row)
    assert shown.count("misprint of") == 1 and shown.count("**FLAG**") == 2
    assert shown.startswith("**Flagged for review:**")
    extra = {**row, "review_reasons": [*row["review_reasons"], "checked by hand: odd"]}
    assert flags_markdown(extra).count("checked by hand: odd") == 1  # a reason no check says
