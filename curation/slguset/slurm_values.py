"""What may reach the Slurm job scripts of ``curate slguset --executor slurm``.

datatrove writes each value into the script as it is: ``#SBATCH --time=VALUE`` lines and shell
lines that name paths unquoted. A newline in a value adds a directive or a command of the
user's choosing (``--slurm-time $'1\\n#SBATCH --evil'``), a space adds an option to the line
(``"1 --wrap=evil"``), and ``%`` in a log path is a Slurm file-name pattern. So every value is
checked against what Slurm accepts for it before any file is written, and a refusal is one
line naming the option.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from biasforge.errors import BiasforgeError

#: ``--time``: the formats sbatch(1) lists — minutes, minutes:seconds, hours:minutes:seconds,
#: days-hours, days-hours:minutes, days-hours:minutes:seconds (at most 6 digits a field)
TIME = re.compile(r"\d{1,6}(?::\d{1,6}){0,2}|\d{1,6}-\d{1,6}(?::\d{1,6}){0,2}")
TIME_FORMATS = (
    "minutes, minutes:seconds, hours:minutes:seconds, days-hours, days-hours:minutes or "
    "days-hours:minutes:seconds (e.g. 90, 24:00:00, 2-12)"
)
#: a Slurm partition name: letters, digits, ``_``, ``.`` and ``-``, not starting with ``-``
#: (sbatch would read it as an option); ``--partition`` also takes a comma-separated list
PARTITION = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")
#: an ``#SBATCH --NAME=VALUE`` directive of ``Options.slurm_sbatch_args``: sbatch's long
#: option names, and values without spaces, quotes, comment signs or control characters
SBATCH_NAME = re.compile(r"[a-z][a-z0-9-]{0,63}")
SBATCH_VALUE = re.compile(r"[A-Za-z0-9_.,:=@%/+&|!*-]{0,256}")
#: characters of a path the scripts name unquoted (the job folder next to ``--out``): no
#: space, quote, shell sign or Slurm ``%`` pattern; any letter or digit, also non-ASCII
PATH_SIGNS = frozenset("_./+,=@:-")


def check_time(value: str) -> str:
    """``--slurm-time``: one of Slurm's time formats."""
    if not TIME.fullmatch(value):
        raise BiasforgeError(f"--slurm-time {value[:80]!r}: use {TIME_FORMATS}")
    return value


def check_partition(value: str) -> str:
    """``--slurm-partition``: partition names as Slurm writes them, comma-separated."""
    bad = [name for name in value.split(",") if not PARTITION.fullmatch(name)]
    if bad:
        raise BiasforgeError(
            f"--slurm-partition {value[:80]!r}: {bad[0][:80]!r} is not a Slurm partition name "
            "(letters, digits, _ . - ; at most 64 characters; not starting with -; "
            "several: comma-separated)"
        )
    return value


def check_sbatch_args(args: Mapping[str, str]) -> None:
    """``Options.slurm_sbatch_args``: more ``#SBATCH --NAME=VALUE`` lines, one each."""
    for name, value in args.items():
        if not SBATCH_NAME.fullmatch(str(name)):
            raise BiasforgeError(
                f"slurm_sbatch_args: {str(name)[:80]!r} is not an sbatch option name "
                "(lower-case letters, digits and -, without the leading --)"
            )
        if not SBATCH_VALUE.fullmatch(str(value)):
            raise BiasforgeError(
                f"slurm_sbatch_args: --{name} {str(value)[:80]!r}: no spaces, quotes, # or "
                "control characters in an #SBATCH value"
            )


def check_env_command(value: str | None) -> None:
    """``Options.slurm_env_command``: one shell line, run before each job."""
    if value is not None and any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise BiasforgeError(
            f"slurm_env_command {value[:80]!r}: one shell line, without newlines or control "
            "characters"
        )


def check_path(path: str, option: str = "--out") -> str:
    """A path the job scripts name unquoted (``option`` is where it came from)."""
    bad = next((c for c in path if not (c.isalnum() or c in PATH_SIGNS)), None)
    if bad is not None:
        raise BiasforgeError(
            f"{option}: {path[:120]!r} is named unquoted in the Slurm job scripts, where "
            f"{bad!r} would change them; use letters, digits and {' '.join(sorted(PATH_SIGNS))}"
        )
    return path
