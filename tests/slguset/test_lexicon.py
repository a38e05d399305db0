"""The gender lexicon: the paper's 16 pairs plus 他们/她们, symmetric counterparts, longest-form
matching, collective forms, bad rows and bad bytes."""

import shutil

import pytest

from biasforge.curation.slguset.lexicon import load_lexicon
from biasforge.errors import InputError


def test_sixteen_pairs_and_the_plural_pronouns_with_symmetric_counterparts(lexicon):
    assert len(lexicon.pairs) == 17 and lexicon.pairs[-1] == "他们/她们"
    for form in lexicon.forms.values():
        other = lexicon.forms[form.counterpart]
        assert other.counterpart == form.text
        assert other.pair == form.pair
        assert {form.gender, other.gender} == {"male", "female"}


def test_longest_form_wins(lexicon):
    found = [(m.group(), m.start()) for m in lexicon.pattern.finditer("他的儿子女儿和爸爸。")]
    assert found == [("他", 0), ("儿子", 2), ("女儿", 4), ("爸爸", 7)]
    assert lexicon.forms["女儿"].counterpart == "儿子"
    assert lexicon.forms["她"].counterpart == "他"


def test_malformed_row_names_file_and_line(tmp_path, lexicon):
    folder = tmp_path / "lex"
    shutil.copytree(lexicon.directory, folder)
    path = folder / "gender_pairs.tsv"
    path.write_text(path.read_text(encoding="utf-8") + "坏行\t男\n", encoding="utf-8")
    lines = path.read_text(encoding="utf-8").splitlines()
    with pytest.raises(InputError) as info:
        load_lexicon(folder)
    assert info.value.path == str(path)
    assert info.value.line == len(lines)


def _copy(tmp_path, lexicon):
    folder = tmp_path / "lex"
    shutil.copytree(lexicon.directory, folder)
    return folder


def test_collective_forms_name_their_decision_and_reason(lexicon):
    assert lexicon.collective["他们"].decision == "exclude"
    assert lexicon.collective["兄弟们"].decision == "flag"
    assert all(c.reason for c in lexicon.collective.values())
    assert {"兄弟们", "姐妹们"} <= set(lexicon.jieba_words())  # kept whole by jieba
    assert lexicon.directory / "collective_forms.tsv" in lexicon.files()


def test_a_lexicon_folder_without_collective_forms_has_none(tmp_path, lexicon):
    folder = _copy(tmp_path, lexicon)
    (folder / "collective_forms.tsv").unlink()
    copy = load_lexicon(folder)
    assert copy.collective == {} and copy.excluded() == frozenset()
    assert folder / "collective_forms.tsv" not in copy.files()


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("他们们\texclude\twhy", "not a form"),
        ("他们\tdrop\twhy", "choose exclude or flag"),
        ("他们\texclude", "need form, decision and reason"),
    ],
)
def test_bad_collective_row_names_file_and_line(tmp_path, lexicon, row, message):
    folder = _copy(tmp_path, lexicon)
    path = folder / "collective_forms.tsv"
    path.write_text(path.read_text(encoding="utf-8") + row + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=message) as info:
        load_lexicon(folder)
    assert info.value.path == str(path)
    assert info.value.line == len(path.read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize(
    "name", ["gender_pairs.tsv", "collective_forms.tsv", "non_gender_words.txt"]
)
def test_bytes_that_are_not_utf8_name_file_and_line(tmp_path, lexicon, name):
    folder = _copy(tmp_path, lexicon)
    path = folder / name
    path.write_bytes(path.read_bytes() + "他\t她\n".encode("gbk"))
    with pytest.raises(InputError, match=r"not valid utf-8 at byte .*--lexicon-encoding") as info:
        load_lexicon(folder)
    assert info.value.path == str(path)
    assert info.value.line == path.read_bytes().count(b"\n")


def test_a_byte_order_mark_is_accepted(tmp_path, lexicon):
    folder = _copy(tmp_path, lexicon)
    path = folder / "gender_pairs.tsv"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert load_lexicon(folder).forms == lexicon.forms
