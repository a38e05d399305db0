"""BBQ's intersectional categories: the authors' published totals, three contrasts in equal
numbers, a seed gives one output, and each instance's ``target_loc`` and ``label_type`` as the
second half of the authors' ``BBQ_results_metadata.R`` gives them. (Their published files and
``additional_metadata.csv`` are not in the bundled snapshot, so no instance-level comparison
with them here: the targets are checked against the answer tags and a few by hand.)"""

from __future__ import annotations

import ast
import functools
import json
from collections import Counter

import pytest

from biasforge.curation.bbq.generate import read_templates
from biasforge.curation.bbq.intersectional import generate
from biasforge.curation.bbq.target_intersectional import label_typer, locator

#: the authors' data/Race_x_gender.jsonl and data/Race_x_SES.jsonl line counts (the paper's 58,492)
PUBLISHED_COUNTS = {"Race_x_gender": 15960, "Race_x_SES": 11160}
TEMPLATES = {"Race_x_gender": 42, "Race_x_SES": 26}


@functools.cache
def generated(category: str) -> tuple[dict, ...]:
    """``generate(category, seed=0)``, made once per module (no test changes it)."""
    return tuple(generate(category, seed=0))


@pytest.mark.parametrize("category", sorted(PUBLISHED_COUNTS))
def test_intersectional_counts_and_structure(category: str) -> None:
    rows = generated(category)
    assert len(rows) == PUBLISHED_COUNTS[category]
    assert [r["example_id"] for r in rows] == list(range(len(rows)))
    assert len({r["question_index"] for r in rows}) == TEMPLATES[category]
    thirds = Counter(r["additional_metadata"]["subcategory"] for r in rows)
    assert set(thirds.values()) == {len(rows) // 3}
    for quartet in zip(rows[::4], rows[1::4], rows[2::4], rows[3::4], strict=True):
        ambiguous = quartet[0]["context"]
        assert quartet[1]["context"].startswith(ambiguous)
        assert quartet[2]["context"] == ambiguous
        assert len({json.dumps(r["answer_info"]) for r in quartet}) == 1
        unknown = [k for k, v in quartet[0]["answer_info"].items() if v[1] == "unknown"]
        assert quartet[0]["label"] == quartet[2]["label"] == int(unknown[0][-1])
        assert "{{" not in json.dumps(quartet)


def test_an_intersectional_seed_gives_one_output() -> None:
    runs = [json.dumps(generate("Race_x_SES", seed=s)) for s in (0, 6)]
    assert json.dumps(list(generated("Race_x_SES"))) == runs[0] != runs[1]


#: the template whose "women"/"men" answers both carry an M- tag in the authors' generator
#: (as in their published data): no answer names the targeted women, so no target
NO_TARGET = {"Race_x_gender": {"21"}, "Race_x_SES": set()}


def _tag_parts(info: str) -> tuple[str, str]:
    """An answer tag's second dimension (gender or SES level) and race."""
    second, _, race = info.partition("-")
    return second, race.removeprefix("M-").removeprefix("F-")


@pytest.mark.parametrize("category", sorted(PUBLISHED_COUNTS))
def test_the_target_is_the_stereotyped_group_or_in_a_non_negative_question_the_other(
    category: str,
) -> None:
    """Read from the tags, not from the port's string cuts: a negative question's target is the
    answer with the template's known gender/SES and one of its known races; a non-negative
    question's is the other person."""
    templates = read_templates(category).set_index("Q_id")
    locate = locator(category)
    missing = set()
    for row in generated(category):
        found = locate(row)
        template = templates.loc[int(row["question_index"])]
        if found is None:
            missing.add(row["question_index"])
            continue
        infos = [row["answer_info"][k][1] for k in ("ans0", "ans1", "ans2")]
        people = [n for n, info in enumerate(infos) if info != "unknown"]
        assert found in people
        stereotyped = found if row["question_polarity"] == "neg" else (set(people) - {found}).pop()
        second, race = _tag_parts(infos[stereotyped])
        if not infos[stereotyped]:  # two Latina templates' generator leaves the tag empty;
            answer = row[f"ans{stereotyped}"]  # the script reads the person from the answer
            second, race = ("F" if " woman" in answer else "M"), "Latino"
            assert row["question_index"] in {"13", "36"}
        assert second == template.Known_stereotyped_var2
        # the script matches a race as a substring of the known list, so "African" counts as
        # "African American" (its single-category half repairs that; this half does not), and
        # for Race_x_gender without its first two letters ("rican" is in "Native American")
        cut = 2 if category == "Race_x_gender" else 0
        assert race[cut:] in ", ".join(ast.literal_eval(template.Known_stereotyped_race))
    assert missing == NO_TARGET[category]


def test_two_instances_by_hand() -> None:
    rows = generated("Race_x_gender")
    # template 1 (Black men): 'The Black woman' / 'Not known' / 'The Black man'
    assert [rows[0]["answer_info"][k][1] for k in ("ans0", "ans2")] == ["F-Black", "M-Black"]
    assert locator("Race_x_gender")(rows[0]) == 2  # neg: the Black man
    assert rows[2]["question_polarity"] == "nonneg"
    assert locator("Race_x_gender")(rows[2]) == 0  # nonneg: the other, the Black woman
    ses = generated("Race_x_SES")[0]
    # 'lowSES-Hispanic' / unknown / 'highSES-Hispanic', template 1 knows lowSES Black or Latino
    assert locator("Race_x_SES")(ses) == 0


@pytest.mark.parametrize("category", sorted(PUBLISHED_COUNTS))
def test_proper_name_templates_are_reported_apart(category: str) -> None:
    templates = read_templates(category)
    typed = label_typer(category)
    for q, proper in zip(templates.Q_id, templates.Proper_nouns_only, strict=True):
        assert typed(str(q)) == ("name" if proper == "TRUE" else "label")
    assert {typed(str(q)) for q in templates.Q_id} == {"name", "label"}
