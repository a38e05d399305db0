"""Argilla's *Push to Hub* refused for the datasets this server holds (a row of ``patches.PATCHES``).

A biasforge dataset is released with ``biasforge export release``: only decided records, with
their corrections applied and re-checked, a dataset card and a changelog. Argilla's own
dataset page offers owners a *Push to Hub* button that exports the raw records and answers
instead, bypassing all of that (issue 23). The web UI cannot be changed here, so the export
job it starts is replaced by a refusal that names the right command; the button shows the
message as an error.
"""

from __future__ import annotations

MESSAGE = (
    "Push to Hub is disabled on this biasforge server: release reviewed records with "
    "`biasforge annotate pull` then `biasforge export release` (it writes the dataset card "
    "and can push the release with --push-to-hub)"
)


class _Refused:
    """Stands for the rq job ``export_dataset_to_hub_job``: ``delay`` refuses."""

    def delay(self, **_: object) -> None:
        from argilla_server.errors.future import UnprocessableEntityError

        raise UnprocessableEntityError(MESSAGE)


def refuse(_export_job) -> _Refused:
    """What takes the place of ``hub_jobs.export_dataset_to_hub_job``."""
    return _Refused()
