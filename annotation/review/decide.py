"""The decision rules of review: every record reaches a decision, or a stated reason and count.

One record's answers (submitted and discarded) are combined under a policy:

* ``unanimous`` (SlguSet's rule): every annotator who answered gave the same value;
* ``majority``: more than half of those who answered did;
* ``dawid-skene`` and ``mace``: the answer the annotator model (crowd-kit, fitted on every
  answer of the dataset by :mod:`biasforge.annotation.review.competence`) finds most probable, so a
  competent annotator outweighs careless ones. Corrections (free text, which the models do not
  read) are voted on by majority under these rules.

A *discard* is a vote "cannot judge": it counts among those who answered, so under
``unanimous`` it always sends the record to adjudication, and under ``majority`` the others
must still be more than half. Its note (the ``note`` question) is reported as its reason.

A *correction* is a changed text in the correction box (compared after
:func:`biasforge.families.base.normalise`; the untouched pre-filled text is "no change").
Each answer votes for one text: its correction, or the original. The text that wins under the
policy replaces the original; if anyone proposed a correction that did not win, the record goes
to adjudication (a correction is never dropped silently). When a correction wins, the
family's ``accepts_corrected`` decides and the questions it ``settled_by_correction`` need no
agreement.

A record is complete when ``min_submitted`` annotators answered (submitted or discarded), or
when nobody left in the workspace can answer it (a discard never stalls a record). An
adjudicator's answer replaces every vote of the record.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from biasforge.annotation.review import adapting
from biasforge.families import Family
from biasforge.families.base import NOTE_QUESTION, Row, normalise

POLICIES = ("unanimous", "majority", "dawid-skene", "mace")
MODEL_POLICIES = ("dawid-skene", "mace")  # decided by an annotator model's estimate
ORIGINAL = "\x00original"  # an answer's vote for the original text
CHOICE = "text_choice"  # adjudication: which text is right
LETTERS = "ABCDE"  # proposed corrections shown to adjudicators (more: "own" + copy)
CHOICES = {
    "original": "Keep the original text",
    **{letter: f"Correction {letter}" for letter in LETTERS},
    "own": "My own correction (in the box below)",
}


@dataclass(frozen=True)
class Answer:
    """One person's response to one record."""

    user: str
    status: str  # submitted | discarded | draft
    values: dict[str, Any]

    @property
    def note(self) -> str:
        return str(self.values.get(NOTE_QUESTION[0]) or "").strip()


@dataclass(frozen=True)
class Proposal:
    """One distinct correction and who proposed it."""

    text: str
    by: tuple[str, ...]


@dataclass(frozen=True)
class Adjudicated:
    """An adjudicator's answer and the corrections they were shown (letters A, B, …)."""

    answer: Answer
    proposals: tuple[str, ...] = ()


@dataclass
class Decision:
    decision: str  # accept | reject | pending
    reason: str
    submitted: int = 0
    discarded: int = 0
    missing: int = 0
    decided: dict[str, str] = field(default_factory=dict)
    correction: str | None = None  # the winning corrected text
    corrected_by: tuple[str, ...] = ()
    adjudicate: bool = False  # send to adjudication
    adjudicated_by: str | None = None
    proposals: tuple[Proposal, ...] = ()
    discards: tuple[tuple[str, str], ...] = ()  # (user, note)
    sent_back: bool = False  # an adjudication that could not be used, asked again
    adaptation: str | None = None  # what was done about the item's culture (issue 44)
    adaptation_note: str = ""  # the replacement (modified) or the reason (removed)

    def adapted(self, value: adapting.Adapted) -> Decision:
        """This decision with the decided adaptation (None: not asked) set."""
        if value is not None:
            self.adaptation, self.adaptation_note = value
        return self


def combine(
    values: list[str], policy: str, total: int | None = None, estimate: str | None = None
) -> str | None:
    """The decided value of one question, or None when the policy is not met.

    ``total`` counts everyone who answered the record, discards included (default: the
    values given), so a discard is a vote for no value. Under a model policy the decided value
    is the model's ``estimate`` for the record.
    """
    if not values:
        return None
    if policy in MODEL_POLICIES:
        return estimate
    total = len(values) if total is None else total
    value, count = Counter(values).most_common(1)[0]
    if policy == "unanimous":
        return value if count == total else None
    return value if count * 2 > total else None


def _counts(values: list[str]) -> str:
    return ", ".join(f"{v} {n}" for v, n in Counter(values).most_common())


def _discards_text(discards: tuple[tuple[str, str], ...]) -> str:
    if not discards:
        return ""
    notes = "; ".join(
        f"{who}: {note!r}" if note else f"{who}: no reason given" for who, note in discards
    )
    return f"{len(discards)} discarded ({notes})"


def proposals_of(family: Family, row: Row, submitted: list[Answer]) -> tuple[Proposal, ...]:
    """The distinct changed corrections, most proposed first (ties: first proposed)."""
    if not family.review.correction:
        return ()
    original = normalise(family.review.original_text(row) or "")
    by: dict[str, list[str]] = {}
    for answer in submitted:
        text = normalise(answer.values.get(family.review.correction[0]) or "")
        if text and text != original:
            by.setdefault(text, []).append(answer.user)
    order = sorted(by, key=lambda t: -len(by[t]))  # stable: first proposed wins ties
    return tuple(Proposal(text, tuple(by[text])) for text in order)


def _text_vote(
    family: Family, row: Row, submitted: list[Answer], responded: int, policy: str
) -> tuple[Proposal | None, str | None]:
    """The winning correction (None: the original wins) or why adjudication must decide."""
    proposals = proposals_of(family, row, submitted)
    if not proposals:
        return None, None
    policy = "majority" if policy in MODEL_POLICIES else policy  # the models read no text
    votes = [ORIGINAL] * (len(submitted) - sum(len(p.by) for p in proposals))
    for proposal in proposals:
        votes += [proposal.text] * len(proposal.by)
    winner = combine(votes, policy, responded)
    if winner is not None and winner != ORIGINAL:
        return next(p for p in proposals if p.text == winner), None
    who = "; ".join(f"{', '.join(p.by)} proposed one" for p in proposals)
    unchanged = votes.count(ORIGINAL)
    kept = f", {unchanged} kept the text" if unchanged else ""
    return (
        None,
        f"no {policy} correction ({who}{kept}){_contradictions(family, submitted, proposals)}",
    )


def _contradictions(
    family: Family, submitted: list[Answer], proposals: tuple[Proposal, ...]
) -> str:
    """Proposers who also answered that the text needs no change (issue 23: a lone correction
    typed by someone who answered "valid as is" is likely a slip, and the reason must say so)."""
    as_is = family.review.as_is
    if not as_is:
        return ""
    proposers = {who for p in proposals for who in p.by}
    slips = [
        a.user for a in submitted
        if a.user in proposers and all(str(a.values.get(q)) == v for q, v in as_is.items())
    ]  # fmt: skip
    answered = ", ".join(f"{q}={v}" for q, v in as_is.items())
    return f"; {', '.join(slips)} answered {answered} yet typed a correction" if slips else ""


def _doubtful_correction(
    family: Family, row: Row, submitted: list[Answer], winner: Proposal | None
) -> str | None:
    """Why a winning correction needs an adjudicator (issue 47, item 3), or None: one of its
    proposers also answered that the text needs no change, or it changes a slot word (a
    fixed misprint of a profession is a new profession, worth a second look)."""
    if winner is None:
        return None
    slip = _contradictions(family, submitted, (winner,)).lstrip("; ")
    changed = family.review.changed_slots(row, winner.text)
    slots = f"the correction changes {', '.join(changed)}" if changed else ""
    return "; ".join(part for part in (slip, slots) if part) or None


def _criteria_vote(
    family: Family,
    submitted: list[Answer],
    responded: int,
    policy: str,
    settled: set[str],
    estimated: dict[str, str],
) -> tuple[dict[str, str], list[str]]:
    """Decided value per question, and a description of each undecided one. The review's
    joint criteria are voted on as one answer (an annotator's whole combination)."""
    review = family.review
    decided, undecided = {}, []
    for question in [q for q in review.criteria if q not in review.joint]:
        values = [str(a.values[question]) for a in submitted if a.values.get(question) is not None]
        value = combine(values, policy, responded, estimated.get(question))
        if value is not None:
            decided[question] = value
        elif question not in settled:
            undecided.append(f"{question} ({_counts(values) or 'no answer'})")
    if review.joint:
        values = [v for a in submitted if (v := review.joint_value(a.values)) is not None]
        value = combine(values, policy, responded, estimated.get(review.joint_name or ""))
        if value is not None:
            decided.update(review.joint_parts(value))
        elif not set(review.joint) <= settled:
            undecided.append(f"{review.joint_name} ({_counts(values) or 'no answer'})")
    return decided, undecided


def _incomplete(
    submitted: int, discarded: int, min_submitted: int, can_answer: int
) -> Decision | None:
    """A pending decision while answers are missing (None when the record is complete)."""
    responded = submitted + discarded
    missing = max(0, min_submitted - responded)
    counts = dict(submitted=submitted, discarded=discarded, missing=missing)
    if missing and can_answer > 0:
        return Decision(
            "pending",
            f"waiting for answers: {submitted} submitted, {discarded} discarded, {missing} missing",
            **counts,
        )
    if responded == 0:
        return Decision(
            "pending", "nobody in the workspace can answer it: add annotators", **counts
        )
    if missing:
        return Decision(
            "pending",
            f"stalled: {responded} of {min_submitted} answers and no annotator left to answer",
            adjudicate=True,
            **counts,
        )
    return None


def decide(
    family: Family,
    row: Row,
    answers: list[Answer],
    *,
    policy: str,
    min_submitted: int,
    can_answer: int = 0,
    adjudicated: Adjudicated | None = None,
    estimated: dict[str, str] | None = None,
) -> Decision:
    """Decide one record; see the module docstring for the rules. ``estimated``: the
    annotator model's answer per question (model policies only)."""
    submitted = [a for a in answers if a.status == "submitted"]
    discarded = [a for a in answers if a.status == "discarded"]
    discards = tuple((a.user, a.note) for a in discarded)
    counts = dict(submitted=len(submitted), discarded=len(discarded), discards=discards)
    if adjudicated is not None:
        current = proposals_of(family, row, submitted)
        decision = decide_adjudicated(family, row, adjudicated, {p.text: p.by for p in current})
        if decision.sent_back:
            decision.proposals = current
        decision.submitted, decision.discarded, decision.discards = (
            len(submitted), len(discarded), discards,
        )  # fmt: skip
        return decision
    waiting = _incomplete(len(submitted), len(discarded), min_submitted, can_answer)
    if waiting is not None:
        waiting.discards = discards
        return waiting
    if not submitted:
        return Decision("pending", f"all {_discards_text(discards)}", adjudicate=True, **counts)
    return _decide_votes(family, row, submitted, discards, policy, estimated or {})


def _decide_votes(
    family: Family,
    row: Row,
    submitted: list[Answer],
    discards: tuple[tuple[str, str], ...],
    policy: str,
    estimated: dict[str, str],
) -> Decision:
    """A complete record's decision from its votes (corrections first, then the criteria)."""
    counts = dict(submitted=len(submitted), discarded=len(discards), discards=discards)
    proposals = proposals_of(family, row, submitted)
    responded = len(submitted) + len(discards)
    winner, split = _text_vote(family, row, submitted, responded, policy)
    settled = set(family.review.settled_by_correction) if winner else set()
    decided, undecided = _criteria_vote(family, submitted, responded, policy, settled, estimated)
    adapted, unadapted = adapting.vote(family, submitted, policy, combine)
    problems = [f"no {policy} answer on " + ", ".join(undecided)] if undecided else []
    problems += [p for p in (split, unadapted) if p]
    if problems:
        reason = "; ".join([*problems, _discards_text(discards)]).strip("; ")
        return Decision(
            "pending", reason, decided=decided, adjudicate=True, proposals=proposals, **counts
        )
    doubt = _doubtful_correction(family, row, submitted, winner)
    impossible = family.review.problem(decided) or doubt
    if impossible:
        reason = "; ".join([f"{policy}: {impossible}", _discards_text(discards)]).strip("; ")
        return Decision(
            "pending", reason, decided=decided, adjudicate=True, proposals=proposals, **counts
        )
    despite = f" despite {_discards_text(discards)}" if discards else ""
    if not family.review.keeps(decided, corrected=winner is not None):
        answered = ", ".join(f"{q}={v}" for q, v in decided.items())
        return Decision(
            "reject", f"{policy}: {answered}{despite}", decided=decided, **counts
        ).adapted(adapted)
    by = winner.by if winner else ()
    what = f"corrected by {', '.join(by)}" if by else "all criteria met"
    return Decision(
        "accept", f"{policy}: {what}{despite}", decided=decided,
        correction=winner.text if winner else None, corrected_by=by, proposals=proposals, **counts,
    ).adapted(adapted)  # fmt: skip


def _adjudicated_text(
    family: Family, row: Row, adjudicated: Adjudicated
) -> tuple[str | None, tuple[str, ...], str | None]:
    """(corrected text or None, who proposed it, problem) from the adjudicator's choice."""
    if not family.review.correction:
        return None, (), None
    answer = adjudicated.answer
    choice = str(answer.values.get(CHOICE) or "original")
    if choice in LETTERS:
        index = LETTERS.index(choice)
        if index >= len(adjudicated.proposals):
            return None, (), f"chose correction {choice}, which was not proposed"
        return adjudicated.proposals[index], (), None  # credited by the caller
    if choice == "own":
        text = normalise(answer.values.get(family.review.correction[0]) or "")
        if not text or text == normalise(family.review.original_text(row) or ""):
            return None, (), "chose their own correction but left the text unchanged"
        return text, (answer.user,), None
    return None, (), None


def decide_adjudicated(
    family: Family, row: Row, adjudicated: Adjudicated, proposed: dict[str, tuple[str, ...]]
) -> Decision:
    """The adjudicator's answer replaces every vote of the record; a confirmed correction is
    credited to those who proposed it (``proposed``: text -> who)."""
    answer = adjudicated.answer
    who = answer.user
    decided = {
        q: str(answer.values[q]) for q in family.review.criteria if answer.values.get(q) is not None
    }
    correction, by, problem = _adjudicated_text(family, row, adjudicated)
    missing = [q for q in family.review.criteria if q not in decided]
    if family.review.correction and set(adjudicated.proposals) != set(list(proposed)[:5]):
        problem = problem or "answered while the annotators' corrections were different"
    impossible = None if missing else family.review.problem(decided)
    problem = problem or (f"gave {impossible}" if impossible else None)
    adapted, unadapted = adapting.adjudicated(family, answer.values, combine)
    problem = problem or unadapted
    if problem or missing:
        reason = problem or f"left {', '.join(missing)} unanswered"
        return Decision(
            "pending",
            f"sent back to adjudication: {who} {reason}; the record was created again with the "
            "current answers for an adjudicator to answer",
            adjudicate=True,
            sent_back=True,
        )
    if not family.review.keeps(decided, corrected=correction is not None):
        answered = ", ".join(f"{q}={v}" for q, v in decided.items())
        return Decision(
            "reject", f"adjudicated by {who}: {answered}", decided=decided, adjudicated_by=who
        ).adapted(adapted)
    if correction and not by:
        by = proposed.get(correction, (who,))
    what = f"correction by {', '.join(by)}" if correction else "all criteria met"
    return Decision(
        "accept", f"adjudicated by {who}: {what}", decided=decided, correction=correction,
        corrected_by=by, adjudicated_by=who,
    ).adapted(adapted)  # fmt: skip
