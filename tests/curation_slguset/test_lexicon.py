"""The gender lexicon: 16 pairs, symmetric counterparts, longest-form matching, bad rows."""

import shutil

import pytest

from biasforge.errors import InputError
from curation.slguset.lexicon import load_lexicon


def test_sixteen_pairs_with_symmetric_counterparts(lexicon):
    assert len(lexicon.pairs) == 16
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
