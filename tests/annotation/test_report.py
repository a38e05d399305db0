"""The pull report lists only records with something to report and counts the rest; it says
what the maintainer must do about adjudication (issue 23)."""

from __future__ import annotations

from biasforge.annotation.review.report import adjudication_md, agreement_md, decisions_md


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


def test_a_dry_run_report_says_what_would_be_sent_and_to_do():
    """Issue 47, item 9: a dry run's report said "Sent now to …" and its To-do named a panel
    that was never created."""
    panels = {"ws-adjudication-1": {"adjudicators": ["judge"], "sent": 2}}
    asked = {"panels": panels, "waiting": 2, "sent_back": 0, "moved": 0, "removed": 0,
             "merged": 0, "dataset": "x-adjudication"}  # fmt: skip
    real = "\n".join(adjudication_md(asked, {}))
    dry = "\n".join(adjudication_md({**asked, "dry_run": True}, {}))
    assert "Sent now to `x-adjudication`" in real and "**To do:**" in real
    assert "Sent now" not in dry and "Would be sent to `x-adjudication`" in dry
    assert "**To do:**" not in dry
    assert "**To do after a pull without `--dry-run`:**\n- Ask judge to adjudicate" in dry


def test_reasons_are_cut_between_words_and_agreement_counts_are_explained():
    """Issue 47, item 9: reasons in the Why table were cut mid-word; the α and κ item counts
    differed without a word of why."""
    reason = ("majority: impossible labels (label_A=stereotype, label_B=stereotype) because "
              "each of them must be given once: adjudication")  # fmt: skip
    text = "\n".join(decisions_md([detail("r1", "pending", reason, to_adjudication=True)]))
    why = text.split("### Why", 1)[1].split("###", 1)[0]
    assert "| pending | majority |" in why  # the kind is what comes before the first colon
    long = "waiting for the adjudicators of the panel named after the workspace of this dataset"
    text = "\n".join(decisions_md([detail("r2", "pending", long + ": 2")]))
    row = next(line for line in text.split("### Why", 1)[1].splitlines() if "| pending |" in line)
    kind = row.split("|")[2].strip()
    assert kind.endswith(" …") and long.startswith(kind.removesuffix(" …"))
    assert long.split()[len(kind.removesuffix(" …").split()) - 1] == kind.split()[-2]  # whole
    figures = {"items": 5, "krippendorff_alpha": 0.5, "rated_items": 5, "fleiss_kappa": 0.4,
               "fleiss_items": 4, "percent_unanimous": 60.0, "per_annotator": {}}  # fmt: skip
    agreement = "\n".join(agreement_md({"grammatical": figures}))
    assert "Fleiss' κ needs the same number of answers on every item" in agreement
