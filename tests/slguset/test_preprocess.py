"""Sentence splitting, cleaning and quote repair, with expected values written by hand: the
pure functions, and the datatrove steps that apply them to a paragraph."""

from biasforge.curation.slguset.filters import PreprocessFilter
from biasforge.curation.slguset.preprocess import repair_quotes, split_sentences
from biasforge.curation.slguset.steps import QuoteRepair, SentenceSplitter
from tests.slguset.conftest import paragraph, run_steps


def sentences(text: str) -> list[tuple[str, int, str | None]]:
    """(sentence, quote repairs, problem or None) as the mining steps see each sentence."""
    docs = run_steps([SentenceSplitter(), QuoteRepair()], [paragraph(text)])
    rule = PreprocessFilter()
    out = []
    for doc in docs:
        passed, detail = rule.verdict(doc)
        out.append((doc.text, doc.metadata["quote_repairs"], None if passed else detail))
    return out


def test_split_keeps_closing_quotes_with_their_sentence():
    text = "他说：“今天下雨。”她笑了！！你去吗？好"
    assert split_sentences(text) == ["他说：“今天下雨。”", "她笑了！！", "你去吗？", "好"]


def test_spaces_and_indentation_are_stripped():
    assert sentences("\u3000\u3000他 在 家\t里。") == [("他在家里。", 0, None)]


def test_sentence_ids_and_raw_text_follow_the_paragraph():
    docs = run_steps([SentenceSplitter()], [paragraph("\u3000他来了。她走了。", line=7)])
    assert [d.id for d in docs] == ["t.txt:7#0", "t.txt:7#1"]
    assert docs[0].metadata["raw"] == "\u3000他来了。"


def test_quote_left_open_by_the_cut_is_completed():
    first, second = sentences("他说：“我们要努力。你们呢？”")
    assert first == ("他说：“我们要努力。”", 1, None)
    assert second == ("“你们呢？”", 1, None)


def test_dangling_quotes_at_the_edges_are_deleted():
    assert repair_quotes("”他走了。") == ("他走了。", 1, False)
    assert repair_quotes("他走了。“") == ("他走了。", 1, False)
    assert repair_quotes("他说“好”。") == ("他说“好”。", 0, False)


def test_crossed_quotes_cannot_be_repaired():
    assert repair_quotes("他《说“好》”。")[2] is True
    [(_, _, problem)] = sentences("他《说“好》”。")
    assert problem == "unbalanced_quotes"


def test_characters_outside_cjk_digits_punctuation_drop_the_sentence():
    ok, latin, headline = sentences("他得了3∶0的比分。他是NBA球员。标题没有句号")
    assert ok[2] is None
    assert latin[2] == "non_chinese_characters"
    assert headline[2] == "no_terminator"
