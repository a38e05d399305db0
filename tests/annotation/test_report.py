"""The pull report lists only records with something to report and counts the rest; it says
what the maintainer must do about adjudication (issue 23)."""

from __future__ import annotations

from biasforge.annotation.review.report import adjudication_md, decisions_md


def detail(rid: str, decision: str, reason: str, **extra) -> dict:
    base = {"id": rid, "decision": decision, "reason": reason, "submitted": 0, "discarded": 0,
            "missing": 3, "to_adjudication": False, "adjudicated_by": None, "corrected": False}  # fmt: skip
    return {**base, **extra}


def test_untouched_records_are_counted_not_listed():
    waiting = [
        detail(f"w{i}", "pending", "waiting for answers: 0 submitted, 0 discarded, 3 missing")
        for i in range(198)
    ]
    accepted = [detail("ok", "accept", "unanimous: all criteria met", missing=0, submitted=3)]
    split = detail("split", "pending", "no unanimous answer on grammatical (yes 2, no 1)",
                   to_adjudication=True, submitted=3, missing=0)  # fmt: skip
    text = "\n".join(decisions_md([*waiting, *accepted, split]))
    assert "| split |" in text and "| w0 |" not in text and "| ok |" not in text
    assert "199 other records have nothing to report" in text


def test_the_report_says_what_to_do_with_sent_back_and_owner_only_records():
    sent_back = {"panels": {"ws-adjudication-owners": {"adjudicators": ["owners only"], "sent": 2}},
                 "waiting": 2, "sent_back": 1, "moved": 0, "removed": 0, "merged": 0,
                 "dataset": "x-adjudication"}  # fmt: skip
    text = "\n".join(adjudication_md(sent_back, {}))
    assert "**To do:**" in text and "1 adjudicated records were sent back" in text
    assert "name adjudicators with `annotate pull --adjudicators" in text
    quiet = {"panels": {}, "waiting": 0, "sent_back": 0, "moved": 0, "removed": 0, "merged": 0,
             "dataset": "x-adjudication"}  # fmt: skip
    assert "**To do:**" not in "\n".join(adjudication_md(quiet, {}))
