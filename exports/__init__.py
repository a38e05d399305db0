"""Exports: versioned releases of reviewed items, dataset cards, and compatibility formats.

- :mod:`exports.release` — ``export release``: inputs → validated, immutable
  ``releases/NAME/VERSION`` (parquet per config, card, changelog, manifest).
- :mod:`exports.inputs` — reading reviewed records (``annotate pull``) or, explicitly, runs.
- :mod:`exports.validate` — the family's schema plus release-wide identity checks, naming the
  offending record and column.
- :mod:`exports.configs` — rows grouped into configs as the family (``biasforge.families``) says.
- :mod:`exports.card` — the dataset card (``huggingface_hub.DatasetCardData`` header + body).
- :mod:`exports.changelog` — content hashes and the diff against the previous version.
- :mod:`exports.versions` — semantic versions and finding the previous release.
- :mod:`exports.hub` — pushing a finished release to the Hub, one tag per version.
- :mod:`exports.stereoset_json`, :mod:`exports.becpro_tsv`, :mod:`exports.crows_csv` — other
  tools' layouts for ``export convert``.
"""
