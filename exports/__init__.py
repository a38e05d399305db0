"""Exports: versioned releases of reviewed items, dataset cards, and compatibility formats.

- :mod:`biasforge.exports.release` — ``export release``: inputs → validated, immutable
  ``releases/NAME/VERSION`` (parquet per config, card, changelog, manifest).
- :mod:`biasforge.exports.inputs` — reading reviewed records (``annotate pull``) or, explicitly, runs.
- :mod:`biasforge.exports.validate` — the family's schema plus release-wide identity checks, naming the
  offending record and column.
- :mod:`biasforge.exports.configs` — rows grouped into configs as the family (``biasforge.families``) says.
- :mod:`biasforge.exports.card` — the dataset card (``huggingface_hub.DatasetCardData`` header + body).
- :mod:`biasforge.exports.changelog` — content hashes and the diff against the previous version.
- :mod:`biasforge.exports.versions` — semantic versions and finding the previous release.
- :mod:`biasforge.exports.hub` — pushing a finished release to the Hub, one tag per version.
- :mod:`biasforge.exports.stereoset_json`, :mod:`biasforge.exports.becpro_tsv`, :mod:`biasforge.exports.crows_csv` — other
  tools' layouts for ``export convert``.
"""
