"""The options of a SlguSet run, declared once: the dataclass the pipeline takes and, through
its ``Annotated`` fields, the options of ``biasforge curate slguset``
(:func:`biasforge.curation.options.curate_command`).

Light on purpose: the command is built from this module when ``biasforge`` starts, so it
imports neither datatrove nor the name models; :meth:`Options.validate` loads what it checks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated

import typer

from biasforge.curation import options as common
from biasforge.curation.slguset.sample import BUNDLED_SAMPLE
from biasforge.errors import BiasforgeError

if TYPE_CHECKING:
    from biasforge.curation.slguset.lexicon import Lexicon


def _partition(value: str | None) -> str | None:
    """``--slurm-partition``: partition names as Slurm writes them, comma-separated.

    The value goes into the ``#SBATCH --partition`` line of the job script: a newline would
    add lines to the script, and a space, a quote or a leading ``-`` change what sbatch reads
    (:mod:`biasforge.curation.slguset.slurm_values` checks every value of the scripts).
    """
    if value is None:
        return None
    from biasforge.curation.slguset.slurm_values import check_partition

    return check_partition(value)


@dataclass(frozen=True)
class Options:
    """Everything a SlguSet run depends on (the run directory and overwriting aside)."""

    corpus: Annotated[
        list[str],
        typer.Option(
            "--corpus",
            show_default=False,
            help="text file (one paragraph per line), .jsonl file, or hf:PATH_OR_NAME[::SPLIT]; "
            "repeatable (default: the bundled People's Daily sample)",
        ),
    ] = (str(BUNDLED_SAMPLE),)  # type: ignore[assignment]  # a tuple: frozen, as stored
    #: datatrove tasks (run in parallel by the local executor)
    num_proc: Annotated[int, typer.Option("--num-proc", min=1, help="parallel datatrove tasks")] = 1
    encoding: Annotated[
        str, typer.Option(help="encoding of text/JSONL files, e.g. gb18030 or gbk")
    ] = "utf-8"
    text_field: Annotated[str, typer.Option(help="text field of JSONL / dataset rows")] = "text"
    #: count undecodable/malformed lines instead of failing
    skip_bad_lines: Annotated[
        bool, typer.Option(help="skip (and count) undecodable or malformed lines")
    ] = False
    lexicon_dir: common.path_option("folder with gender_pairs.tsv and word lists", "--lexicon") = (
        None
    )
    #: of the files of lexicon_dir (the bundled one is UTF-8)
    lexicon_encoding: Annotated[
        str,
        typer.Option(callback=common.encoding, help="encoding of the --lexicon folder's files"),
    ] = "utf-8"
    #: name-filter tokens; thulac: fast, then THULAC on what passed every rule
    tagger: common.choice_option(
        "fast", "posseg", "thulac",
        help="name filter: fast (jieba segmentation + name model), posseg (jieba POS + "
        "name model), thulac (fast, then THULAC on the sentences every rule kept: slow)",
    ) = "fast"  # fmt: skip
    #: the second-stage person-name check after every other rule
    name_check: common.choice_option(
        "lac", "none",
        help="second-stage person-name check on the sentences every rule kept: lac "
        "(Baidu LAC, PER tag; about 0.57x the mining throughput) or none",
    ) = "lac"  # fmt: skip
    name_eval: common.path_option(
        "gold JSONL (text, person_names) to measure the name filter's P/R"
    ) = None
    include_collective: Annotated[
        bool,
        typer.Option(
            help="keep sentences whose keyword is a collective form excluded by default "
            "(他们/她们, 他俩/她俩: collective_forms.tsv), each flagged for review with the reason"
        ),
    ] = False
    verbose: Annotated[bool, typer.Option(help="show datatrove's per-task logs")] = False
    executor: common.choice_option(
        "local", "ray", "slurm",
        help="datatrove executor: local (--num-proc forked workers), ray (a Ray cluster), "
        "slurm (submit a job array and a merge job with sbatch)",
    ) = "local"  # fmt: skip
    ray_address: Annotated[
        str | None,
        typer.Option(help="Ray cluster to join (default: start a local one with --num-proc CPUs)"),
    ] = None
    slurm_partition: Annotated[
        str | None,
        typer.Option(
            callback=_partition,
            help="Slurm partition of the jobs (--executor slurm); several: comma-separated",
        ),
    ] = None
    slurm_time: Annotated[str, typer.Option(help="Slurm time limit of one mining task")] = (
        "24:00:00"
    )
    slurm_env_command: str | None = None  # run before each job (default: this virtualenv's)
    slurm_sbatch_args: dict[str, str] = field(default_factory=dict)  # more #SBATCH lines

    def __post_init__(self) -> None:
        object.__setattr__(self, "corpus", tuple(str(c) for c in self.corpus))

    def validate(self) -> Lexicon:
        """Refuse a bad option before any process starts; return the lexicon it names."""
        from biasforge import textfiles
        from biasforge.curation.slguset import slurm_values
        from biasforge.curation.slguset.lexicon import load_lexicon
        from biasforge.curation.slguset.ray_head import check_reachable
        from biasforge.curation.slguset.readers import check_corpus_files, check_line_encoding

        if not self.corpus:
            raise BiasforgeError("give at least one --corpus")
        if self.num_proc < 1:
            raise BiasforgeError("--num-proc must be at least 1")
        common.check_choices(self)
        if self.ray_address and self.executor != "ray":
            raise BiasforgeError("--ray-address goes with --executor ray")
        if self.ray_address:
            check_reachable(self.ray_address)  # Ray itself would retry it for ever
        if self.executor == "slurm" and not self.slurm_partition:
            raise BiasforgeError("--executor slurm needs --slurm-partition")
        if self.slurm_partition and self.executor != "slurm":
            raise BiasforgeError("--slurm-partition goes with --executor slurm")
        if self.executor == "slurm":
            self._check_slurm_values()
        slurm_values.check_time(self.slurm_time)  # a bad value is refused even if unused
        check_corpus_files(list(self.corpus))
        if self.name_eval:
            from biasforge.curation.slguset.name_eval import read_gold

            read_gold(self.name_eval)  # a bad gold file is refused now, not after the mining
        check_line_encoding(self.encoding)
        return load_lexicon(self.lexicon_dir, textfiles.check_encoding(self.lexicon_encoding))

    def _check_slurm_values(self) -> None:
        """Every value that reaches a Slurm job script is one Slurm accepts for it."""
        from biasforge.curation.slguset import slurm_values

        slurm_values.check_partition(self.slurm_partition or "")
        slurm_values.check_time(self.slurm_time)
        slurm_values.check_sbatch_args(self.slurm_sbatch_args)
        slurm_values.check_env_command(self.slurm_env_command)
