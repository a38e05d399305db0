"""The paper's annotation criteria as datatrove steps that flag sentences for review.

People decide these (three annotators, all must agree), so a rule only flags: the sentence is
kept, its verdict goes on ``checks`` and a failure on ``review_reasons``. ``other_gender_term``
(criterion 2: another gender term may co-refer and leak the gender), ``biological_sex``
(criterion 3), ``counterpart_sense`` (criterion 1: swapping the keyword makes another word, as
男儿 → 女儿), ``collective_keyword`` (criterion 1: the keyword names a group, 兄弟们, or an
excluded collective form the run includes, 他们: the reviewer reads why).
"""

from __future__ import annotations

from datatrove.data import Document

from biasforge.curation.rule_steps import RuleStep
from biasforge.curation.slguset.matching import target_of
from biasforge.curation.slguset.resources import UsesResources


class ReviewFlag(UsesResources, RuleStep):
    """A review rule: never drops a sentence, counts ``total`` and ``flagged``."""

    type = "🚩 - FLAG"
    severity = "review"


class OtherGenderTermFlag(ReviewFlag):
    rule = "other_gender_term"
    description = "criterion 2: another gender term in the sentence may co-refer with the keyword"

    def verdict(self, doc: Document) -> tuple[bool, str]:
        matches = doc.metadata["matches"]
        target = target_of(matches)
        others = [m.form for m in matches if m.genuine and m is not target]
        terms = self.resources.lexicon.other_gender_terms
        others += [t.word for t in doc.metadata["tokens"] if t.word in terms]
        if others:
            return False, "other gender terms may co-refer: " + "、".join(others)
        return True, "no other gender term"


class BiologicalSexFlag(ReviewFlag):
    rule = "biological_sex"
    description = "criterion 3: biological-sex information (经期, 孕期, 哺乳期 …)"

    def verdict(self, doc: Document) -> tuple[bool, str]:
        terms = self.resources.lexicon.biological_terms
        found = sorted(t for t in terms if t in doc.text)
        if found:
            return False, "biological-sex terms: " + "、".join(found)
        return True, "no biological-sex term"


class CounterpartSenseFlag(ReviewFlag):
    rule = "counterpart_sense"
    description = (
        "criterion 1: the counterpart swap turns the keyword into another term (男儿→女儿)"
    )

    def verdict(self, doc: Document) -> tuple[bool, str]:
        lexicon, sentence = self.resources.lexicon, doc.text
        target = target_of(doc.metadata["matches"])
        form = lexicon.forms[target.form]
        swapped = sentence[: target.start] + form.counterpart + sentence[target.end :]
        end = target.start + len(form.counterpart)
        clash = [
            m.group()
            for m in lexicon.pattern.finditer(swapped, max(0, target.start - 3), end + 3)
            if m.start() < end
            and m.end() > target.start
            and (m.start(), m.end()) != (target.start, end)
        ]
        if clash:
            return False, (
                f"swapping {target.form}→{form.counterpart} makes 「{clash[0]}」, another term"
            )
        return True, f"{target.form}→{form.counterpart}"


class CollectiveKeywordFlag(ReviewFlag):
    rule = "collective_keyword"
    description = (
        "criterion 1: the keyword is a collective form kept for review (兄弟们; 他们/她们 "
        "with --include-collective), with the reason from collective_forms.tsv"
    )

    def verdict(self, doc: Document) -> tuple[bool, str]:
        target = target_of(doc.metadata["matches"])
        collective = self.resources.lexicon.collective.get(target.form)
        if collective is not None:
            return False, f"{target.form}: {collective.reason}"
        return True, "not a collective form"
