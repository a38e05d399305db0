"""Sentence splitting, cleaning and quote repair, with expected values written by hand."""

from curation.slguset.preprocess import repair_quotes, sentences_of, split_sentences


def test_split_keeps_closing_quotes_with_their_sentence():
    text = "他说：“今天下雨。”她笑了！！你去吗？好"
    assert split_sentences(text) == ["他说：“今天下雨。”", "她笑了！！", "你去吗？", "好"]


def test_spaces_and_indentation_are_stripped():
    [sentence] = sentences_of("\u3000\u3000他 在 家\t里。")
    assert sentence.text == "他在家里。"
    assert sentence.problem is None


def test_quote_left_open_by_the_cut_is_completed():
    first, second = sentences_of("他说：“我们要努力。你们呢？”")
    assert first.text == "他说：“我们要努力。”" and first.repaired_quotes == 1
    assert second.text == "“你们呢？”" and second.repaired_quotes == 1


def test_dangling_quotes_at_the_edges_are_deleted():
    assert repair_quotes("”他走了。") == ("他走了。", 1, False)
    assert repair_quotes("他走了。“") == ("他走了。", 1, False)
    assert repair_quotes("他说“好”。") == ("他说“好”。", 0, False)


def test_crossed_quotes_cannot_be_repaired():
    assert repair_quotes("他《说“好》”。")[2] is True


def test_characters_outside_cjk_digits_punctuation_drop_the_sentence():
    ok, latin, headline = sentences_of("他得了3∶0的比分。他是NBA球员。标题没有句号")
    assert ok.problem is None
    assert latin.problem == "non_chinese_characters"
    assert headline.problem == "no_terminator"
