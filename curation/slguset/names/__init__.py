"""Person-name detection for Chinese news sentences: jieba tokens + a small logistic scorer.

jieba's POS tags alone (``nr*`` with HMM) find ~92 % of the People's Daily sentences that name
a person but flag many that do not (precision ~0.57): its dictionary tags ordinary words such
as 许可, 田野, 史实 as ``nr`` and misses names jieba does not tag (罗干 is ``ns``, 桥本 ``n``,
unknown names such as 素帕猜 come out of the segmentation HMM untagged). Every false positive
throws away a good sentence, so :class:`NameFinder` scores each *candidate token* with a
logistic model over cheap, readable features. Every token that starts with a surname or
transliteration character is scored whatever its jieba tag (jieba tags 许立群 ``m``, 常 ``d``).
The weights are fitted on the PKU People's Daily 1998-01 corpus (43k sentences) plus four fifths
of the dev gold file; :mod:`biasforge.curation.slguset.name_eval` reports precision/recall on
the held-out fifth.

One module per job: :mod:`.words` (the word lists, from data files), :mod:`.tokens` (jieba
tokens from a tokenizer the caller owns), :mod:`.priors` (what jieba's dictionary says about a
word), :mod:`.context` (what kind of word a neighbour is), :mod:`.features`, :mod:`.model`
(the shipped weights) and :mod:`.finder`.
"""

from biasforge.curation.slguset.names.features import FEATURES, NameFeatures
from biasforge.curation.slguset.names.finder import NameFinder, NameHit, jieba_nr_names
from biasforge.curation.slguset.names.lac_stage import LacNames
from biasforge.curation.slguset.names.model import MODEL_PATH, NameModel, load_models
from biasforge.curation.slguset.names.priors import DictionaryPriors
from biasforge.curation.slguset.names.thulac_stage import ThulacNames
from biasforge.curation.slguset.names.tokens import MODES, Token, Tokenizer
from biasforge.curation.slguset.names.words import NameWords, load_name_words

__all__ = [
    "FEATURES",
    "MODEL_PATH",
    "MODES",
    "DictionaryPriors",
    "LacNames",
    "NameFeatures",
    "NameFinder",
    "NameHit",
    "NameModel",
    "NameWords",
    "ThulacNames",
    "Token",
    "Tokenizer",
    "jieba_nr_names",
    "load_models",
    "load_name_words",
]
