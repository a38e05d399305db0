"""The ``biasforge curate NAME`` commands of the built-in families, one module each.

They live apart from the pipelines (and import them only when they run), so listing the
commands needs none of a pipeline's optional dependencies (datatrove, DeepL, spaCy): a family
names its command here by import string (``Family.curation``).
"""
