"""``biasforge export release``: reviewed records (or a run) -> an immutable, versioned release.

``releases/NAME/VERSION/`` holds one ``CONFIG/test.parquet`` per config, ``README.md`` (the
dataset card), ``CHANGELOG.md`` (diff against the previous version of NAME) and
``manifest.json`` (sha256 of every file, the inputs' provenance). Everything is validated
before anything is written, the folder is staged and renamed into place, and a version that
exists is never overwritten.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from biasforge.contract import adaptation
from biasforge.contract.folders import biasforge_folder
from biasforge.contract.manifest import read_manifest
from biasforge.contract.release import verify_release, write_release
from biasforge.errors import BiasforgeError, InputError, OutputExistsError
from biasforge.exports.card import build_card
from biasforge.exports.changelog import changelog_md, diff_records, release_records
from biasforge.exports.configs import family_of_table, split_configs
from biasforge.exports.inputs import ReleaseInput, read_input
from biasforge.exports.inputs import exclude_changed as without_changed
from biasforge.exports.licence import check_licence
from biasforge.exports.parallel import is_shared, line_up
from biasforge.exports.validate import Violation, validate_table
from biasforge.exports.versions import existing_versions, parse_version, previous_version
from biasforge.families import Family
from biasforge.files import check_not_input, clean_leftovers, staged_directory
from biasforge.progress import progress_bar

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")


@dataclass
class ReleaseResult:
    path: Path
    name: str
    version: str
    previous: str | None
    configs: dict[str, int]
    changes: dict[str, int]
    skipped: list[dict[str, str]] = field(default_factory=list)
    already_existed: bool = False


def _check_name(name: str) -> None:
    if not _NAME.fullmatch(name) or name.endswith(".partial"):  # "$" also matches before "\n"
        raise BiasforgeError(
            f"invalid release name {name!r}: use letters, digits, '.', '_' or '-' "
            "(it becomes a folder name and a Hub repository name)"
        )


def _family(inputs: list[ReleaseInput]) -> Family:
    families = {family_of_table(item.table, str(item.path)).name: item for item in inputs}
    if len(families) != 1:
        raise BiasforgeError(
            "a release holds one family; these inputs mix "
            + ", ".join(f"{fam} ({item.path})" for fam, item in families.items())
        )
    return family_of_table(inputs[0].table, str(inputs[0].path))


def _check_one_family(name_dir: Path, family: Family) -> None:
    """A release name holds the versions of one family: a release of another family under it
    would be diffed against them and read as their next version."""
    for version, path in sorted(existing_versions(name_dir).items()):
        found = read_manifest(path, "release").get("family")
        if found != family.name:
            raise OutputExistsError(
                f"{name_dir} holds {found or 'unknown'} releases ({version} at {path}), not "
                f"{family.name}; a release name holds one family: choose another --name"
            )


def _validate(
    inputs: list[ReleaseInput], family: Family, skip_invalid: bool
) -> list[dict[str, str]]:
    """Check every input; raise on the first violation unless ``skip_invalid``, in which case
    structurally invalid records are dropped from the inputs and returned. Duplicate ids are
    always an error: which copy to keep is not ours to guess."""
    skipped: list[dict[str, str]] = []
    owner: dict[str, Path] = {}
    for item in inputs:
        missing = family.schema.missing(item.table.column_names)
        if missing:
            raise InputError(item.path, f"not {family.name} records: missing {', '.join(missing)}")
        violations: list[Violation] = validate_table(item.table, family)
        for rid in map(str, item.table.column("id").to_pylist()):
            if rid in owner:
                violations.append(
                    Violation(
                        rid, f"duplicate id: also released from {owner[rid]}", skippable=False
                    )
                )
            owner.setdefault(rid, item.path)
        fatal = [v for v in violations if not v.skippable or not skip_invalid]
        if fatal:
            first = fatal[0]
            more = f" ({len(fatal) - 1} more violation(s) in this input)" if len(fatal) > 1 else ""
            raise InputError(item.path, f"{first}{more}", record=first.record)
        if violations:
            bad = sorted({v.record for v in violations})
            keep = pc.invert(pc.is_in(item.table.column("id"), value_set=pa.array(bad)))
            item.table = item.table.filter(keep)
            skipped += [
                {"input": str(item.path), "record": v.record, "problem": v.message}
                for v in violations
            ]
    return skipped


def _concat(inputs: list[ReleaseInput]) -> pa.Table:
    tables = [item.table for item in inputs]
    try:
        return pa.concat_tables(tables, promote_options="default")
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise BiasforgeError(f"the inputs' columns do not agree in type: {exc}") from exc


@dataclass
class Plan:
    """Everything a release writes, decided before anything is written."""

    name: str
    version: str
    family: Family
    configs: dict[str, pa.Table]
    inputs: list[ReleaseInput]
    skipped: list[dict[str, str]]
    previous: str | None
    old: dict
    new: dict
    license: str | None
    hub_repo: str | None
    parallel: dict | None = None  # a parallel release: what it lines up (exports.parallel)
    undecided: int = 0  # items without an adaptation decision (counted as transferred)

    @cached_property
    def diff(self):
        return diff_records(self.old, self.new)


def _read_inputs(
    sources: list[str | Path], unreviewed: bool, exclude_changed: bool = False
) -> list[ReleaseInput]:
    if not sources:
        raise BiasforgeError("give at least one input folder (reviewed records or a run)")
    with progress_bar(sources, desc="reading inputs", leave=False) as bar:  # closed before an error
        inputs = [read_input(s, unreviewed=unreviewed) for s in bar]
    if exclude_changed:
        inputs = [without_changed(item) for item in inputs]
    if all(item.table.num_rows == 0 for item in inputs):
        raise BiasforgeError(
            "nothing to release: the inputs hold no accepted records "
            + "; ".join(f"{item.path}: {item.decisions or 'no rows'}" for item in inputs)
        )
    return inputs


def _plan(
    inputs: list[ReleaseInput], name_dir: Path, parsed, skip_invalid: bool, parallel: bool, **kw
) -> Plan:
    """Validate the inputs, group them into configs (lined up by language when ``parallel``)
    and diff them against the last version."""
    family = _family(inputs)
    _check_one_family(name_dir, family)
    skipped = _validate(inputs, family, skip_invalid)
    table = _concat(inputs)
    if table.num_rows == 0:
        raise BiasforgeError("nothing to release: the inputs hold no accepted records")
    undecided = 0
    if family.review.adaptation is not None:  # a family that translates (issue 44)
        undecided = adaptation.undecided(table)
        table = adaptation.with_adaptation(table)
    lined_up = None
    if parallel:
        configs, lined_up = line_up(table, family)
    else:
        configs = split_configs(table, family)
    prev = previous_version(name_dir, parsed)
    new = {  # a shared config repeats records of the languages' configs
        str(record["id"]): (config, record)
        for config, t in configs.items()
        if not (lined_up and is_shared(config))
        for record in t.to_pylist()
    }
    return Plan(
        name=name_dir.name,
        version=str(parsed),
        family=family,
        configs=configs,
        inputs=inputs,
        skipped=skipped,
        previous=str(prev[0]) if prev else None,
        old=release_records(prev[1]) if prev else {},
        new=new,
        parallel=lined_up,
        undecided=undecided,
        **kw,
    )


def _write(plan: Plan, final: Path) -> None:
    """Write the release into a staging folder that becomes ``final`` only when complete."""
    diff = plan.diff
    with staged_directory(final) as stage:
        card = build_card(
            plan.name, plan.version, plan.family, plan.configs, plan.inputs,
            previous=plan.previous, license=plan.license,
            skipped=len({s["record"] for s in plan.skipped}), hub_repo=plan.hub_repo,
            parallel=plan.parallel,
            undecided=plan.undecided,
        )  # fmt: skip
        write_release(
            stage,
            plan.configs,
            card=card,
            changelog=changelog_md(
                plan.name, plan.version, plan.previous, diff, plan.old, plan.new
            ),
            name=plan.name,
            version=plan.version,
            family=plan.family.name,
            license=plan.license or plan.family.card.license,
            previous_version=plan.previous,
            changes=diff.summary(),
            skipped=plan.skipped,
            inputs=[item.provenance() for item in plan.inputs],
            **({"parallel": plan.parallel} if plan.parallel else {}),
        )


def make_release(
    sources: list[str | Path],
    *,
    name: str,
    version: str,
    out: str | Path = "releases",
    unreviewed: bool = False,
    skip_invalid: bool = False,
    license: str | None = None,
    exist_ok: bool = False,
    hub_repo: str | None = None,
    exclude_changed: bool = False,
    parallel: bool = False,
) -> ReleaseResult:
    """Validate the inputs and write ``out/name/version`` atomically; return what was done.
    ``exclude_changed`` leaves out items whose labels review changed from the source's;
    ``parallel`` lines the inputs' languages up (:mod:`biasforge.exports.parallel`).

    An existing release is never overwritten. With ``exist_ok`` (for scripts that re-run, like
    the demo) it is accepted when it already holds exactly the records these inputs give,
    and an error otherwise.
    """
    _check_name(name)
    check_licence(license)
    parsed = parse_version(version)
    version = str(parsed)
    final = Path(out) / name / version
    check_not_input(final, sources)  # a release inside a run goes with the run's --overwrite
    holder = biasforge_folder(Path(out))
    if holder is not None:  # another run's --overwrite would refuse the files it did not write
        raise BiasforgeError(
            f"--out {out}: lies in the biasforge folder {holder} (a run, reviewed records or "
            "release is never written into); write it elsewhere"
        )
    if final.parent.is_dir():  # what killed releases of any version of this name left
        clean_leftovers(final, siblings=True)
    if final.exists() and not exist_ok:
        raise OutputExistsError(
            f"release {name} {version} already exists at {final}; releases are immutable: "
            "choose a new version (e.g. bump PATCH for corrections)"
        )
    inputs = _read_inputs(sources, unreviewed, exclude_changed)
    plan = _plan(
        inputs, final.parent, parsed, skip_invalid, parallel, license=license, hub_repo=hub_repo
    )
    if final.exists():  # only reached with exist_ok
        return _same_as_existing(final, name, version, plan.configs, plan.new)
    _write(plan, final)
    return ReleaseResult(
        path=final,
        name=name,
        version=version,
        previous=plan.previous,
        configs={c: t.num_rows for c, t in plan.configs.items()},
        changes=plan.diff.summary(),
        skipped=plan.skipped,
    )


def _same_as_existing(
    final: Path, name: str, version: str, configs: dict[str, pa.Table], new: dict
) -> ReleaseResult:
    manifest = verify_release(final)
    same = diff_records(release_records(final), new)
    if same.added or same.removed or same.changed:
        s = same.summary()
        raise OutputExistsError(
            f"release {name} {version} already exists at {final} with different records "
            f"({s['added']} added, {s['removed']} removed, {s['changed']} changed by these "
            "inputs); releases are immutable: choose a new version"
        )
    return ReleaseResult(
        path=final,
        name=name,
        version=version,
        previous=manifest.get("previous_version"),
        configs={c: t.num_rows for c, t in configs.items()},
        changes=manifest.get("changes", {}),
        already_existed=True,
    )
