"""What a release needs to know about each family: configs, licence, and the card's prose.

The licence follows the source: StereoSet is CC BY-SA 4.0, so every derivative (translations
included) must be too; BEC-Pro (Bartl et al. 2020) is CC BY 4.0. SlguSet's sentences come
from newspaper corpora distributed for research, which no open licence covers: its releases
say so ("other") and users must check the source's terms.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from biasforge.errors import BiasforgeError

SPLIT = "test"

NADEEM_2021 = """@inproceedings{nadeem-etal-2021-stereoset,
  title = {{S}tereo{S}et: Measuring stereotypical bias in pretrained language models},
  author = {Nadeem, Moin and Bethke, Anna and Reddy, Siva},
  booktitle = {Proceedings of the 59th Annual Meeting of the Association for Computational Linguistics and the 11th International Joint Conference on Natural Language Processing (Volume 1: Long Papers)},
  year = {2021},
  pages = {5356--5371},
  publisher = {Association for Computational Linguistics},
  doi = {10.18653/v1/2021.acl-long.416}
}"""
ADAM_CUVILLIER_2024 = """@inproceedings{adam-cuvillier-etal-2024-stereoset-fr,
  title = {Les repr{\\'e}sentations contextuelles st{\\'e}r{\\'e}otyp{\\'e}es dans les mod{\\`e}les de langue fran{\\c{c}}ais : mieux les identifier pour ne pas les reproduire},
  author = {Adam-Cuvillier, L{\\'e}andre and Larpin, Pierre-Jean and Simoulin, Antoine},
  booktitle = {Actes de la 31{\\`e}me Conf{\\'e}rence sur le Traitement Automatique des Langues Naturelles (TALN 2024)},
  year = {2024},
  publisher = {ATALA}
}"""
BARTL_2020 = """@inproceedings{bartl-etal-2020-unmasking,
  title = {Unmasking Contextual Stereotypes: Measuring and Mitigating {BERT}'s Gender Bias},
  author = {Bartl, Marion and Nissim, Malvina and Gatt, Albert},
  booktitle = {Proceedings of the Second Workshop on Gender Bias in Natural Language Processing},
  year = {2020},
  pages = {1--16},
  publisher = {Association for Computational Linguistics}
}"""
AZPILLAGA_2021 = """@thesis{azpillaga-rivera-2021-sesgo,
  title = {An{\\'a}lisis del sesgo de g{\\'e}nero en los modelos {NLP}},
  author = {Azpillaga Rivera, Javier},
  type = {Trabajo de Fin de Grado (Grado en Ingenier{\\'i}a Inform{\\'a}tica)},
  note = {Directed by Olatz Arbelaitz Gallego and Olatz P{\\'e}rez de Vi{\\~n}aspre Garralda},
  year = {2021}
}"""
ZHAO_SLGUSET = """@article{zhao-etal-slguset,
  title = {{SlguSet}: a sentence-level gender-unbiased {C}hinese dataset for evaluating gender bias in pre-trained language models},
  author = {Zhao, Jishun and Du, Bingjie and Liu, Pengyuan and Zhu, Shucheng},
  note = {In Chinese. Beijing Language and Culture University; Tsinghua University. The title above describes the paper; cite its original Chinese title and venue}
}"""


@dataclass(frozen=True)
class Family:
    name: str
    pretty_name: str
    license: str
    license_note: str
    task_categories: tuple[str, ...]
    task_ids: tuple[str, ...]
    description: str
    limitations: tuple[str, ...]
    citations: tuple[str, ...]


FAMILIES = {
    "stereoset": Family(
        name="stereoset",
        pretty_name="StereoSet",
        license="cc-by-sa-4.0",
        license_note="CC BY-SA 4.0, inherited from StereoSet (Nadeem et al. 2021): derivatives, "
        "translations included, must be shared under the same licence.",
        task_categories=("fill-mask", "text-classification"),
        task_ids=(),
        description="StereoSet association tests (Nadeem et al. 2021): for a target term, "
        "three options realise a stereotypical, an anti-stereotypical and an unrelated "
        "association. *Intrasentence* items fill the `BLANK` of a context sentence (the three "
        "sentences differ only at the attribute); *intersentence* items continue a context "
        "sentence with one of three sentences. Scores: language-model score (LMS), "
        "stereotype score (SS) and ICAT per domain (gender, profession, race, religion).",
        limitations=(
            "StereoSet's stereotypes were written by crowd workers living in the United States "
            "and capture that culture's stereotypes; racial and religious stereotypes in "
            "particular are culture-specific, and a translation carries them over rather "
            "than finding the target culture's own (Adam-Cuvillier et al. 2024, §5).",
            "The four domains (gender, profession, race, religion) are neither exhaustive nor "
            "representative of the biases of a society; the size and nature of the items "
            "never allow concluding that a model with good scores is free of bias.",
            "Bias must be defined with respect to a use and the harms it may cause (Blodgett "
            "et al. 2020): these tests measure stereotyped associations in contextual "
            "representations, independently of any application, and must be adapted to the "
            "use case and its social context.",
            "Translated items depend on the machine translation and its review: independent "
            "translations broke the one-attribute structure of about half of the "
            "intrasentence items in the French adaptation, and unrelated options tend to be "
            "translated into sensible sentences; items were uniformised and checked, but "
            "residual translation artefacts are possible.",
        ),
        citations=(NADEEM_2021, ADAM_CUVILLIER_2024),
    ),
    "becpro": Family(
        name="becpro",
        pretty_name="BEC-Pro",
        license="cc-by-4.0",
        license_note="CC BY 4.0, as the Bias Evaluation Corpus with Professions (Bartl et al. 2020).",
        task_categories=("fill-mask",),
        task_ids=(),
        description="The Bias Evaluation Corpus with Professions (BEC-Pro, Bartl et al. 2020) "
        "and its Spanish and Basque versions (Azpillaga Rivera 2021): sentences from five "
        "templates × 60 professions (20 male-dominated, 20 female-dominated, 20 balanced by "
        "U.S. Bureau of Labor Statistics share of women) × person words. Each item stores "
        "character spans of the person word and the profession, so masked variants are "
        "rendered with each model's mask token. Score: association log(P_target / P_prior) "
        "by profession group × person gender.",
        limitations=(
            "The professions and their gender groups come from the U.S. labour market (BLS "
            "2020); several are uncommon in Spanish- or Basque-speaking societies and may be "
            "rare in the models' training text, which can affect the results "
            "(Azpillaga Rivera 2021, §4).",
            "In languages that mark grammatical gender on nouns and articles (Spanish, as "
            "German for Bartl et al.), the masked-association measure is confounded by "
            "agreement: the profession form itself signals the gender.",
            "Standard deviations of the association scores exceed their means and every group "
            "holds both positive and negative associations: conclusions hold for the general "
            "trend, not for individual professions.",
            "Only binary gender is covered (male and female person words).",
        ),
        citations=(BARTL_2020, AZPILLAGA_2021),
    ),
    "slguset": Family(
        name="slguset",
        pretty_name="SlguSet",
        license="other",
        license_note="The sentences come from newspaper corpora available for research; no "
        "open licence covers them. Check the source corpus's terms before redistribution.",
        task_categories=("fill-mask",),
        task_ids=(),
        description="SlguSet (Zhao et al.): Chinese news sentences whose context is gender-"
        "neutral once the gender keyword is masked, so an unbiased model should give the "
        "male and the female keyword of each pair the same probability. Score: "
        "Bias_c = log(p_male / p_female) at the masked keyword; |Bias_c| > 0.3 is a clear bias.",
        limitations=(
            "The hypothesis is that a gender-neutral context makes both keywords equally "
            "likely; the experiments show bias but do not explain its causes (Zhao et al., "
            "conclusion).",
            "The measure is defined for masked language models; how to measure the same "
            "bias in other kinds of models is left open.",
            "News text is usually assumed to be less biased, but it reflects the topics and "
            "style of newspapers of a given period and region.",
            "Only binary gender keyword pairs are covered.",
        ),
        citations=(ZHAO_SLGUSET,),
    ),
}


def family_of(table: pa.Table, where: str) -> Family:
    """The one family of a release's rows; releases never mix families."""
    if "family" not in table.column_names:
        raise BiasforgeError(f"{where}: no 'family' column; these are not biasforge candidates")
    names = sorted({str(f) for f in table.column("family").unique().to_pylist()})
    if len(names) != 1:
        raise BiasforgeError(
            f"{where}: a release holds one family, found {', '.join(names) or 'none'}; "
            "release each family under its own --name"
        )
    if names[0] not in FAMILIES:
        raise BiasforgeError(f"{where}: unknown family {names[0]!r}")
    return FAMILIES[names[0]]


def config_names(table: pa.Table, family: Family) -> list[str]:
    """One name per row: the config (subset) that row belongs to."""
    if family.name == "stereoset":
        return [str(s) for s in table.column("split").to_pylist()]
    if family.name == "becpro":
        variants = (
            table.column("variant").to_pylist()
            if "variant" in table.column_names
            else ["default"] * table.num_rows
        )
        langs = table.column("language").to_pylist()
        return [
            f"{lang}_{variant or 'default'}" for lang, variant in zip(langs, variants, strict=True)
        ]
    return ["default"] * table.num_rows


def split_configs(table: pa.Table, family: Family) -> dict[str, pa.Table]:
    """Rows grouped by config, each in input order; StereoSet's configs come intra first."""
    names = pa.array(config_names(table, family))
    order = ["intrasentence", "intersentence"] if family.name == "stereoset" else []
    present = sorted(
        set(names.to_pylist()),
        key=lambda n: (n not in order, order.index(n) if n in order else 0, n),
    )
    return {name: table.filter(pc.equal(names, name)) for name in present}
