"""Scoring: run language models on a release and compute the papers' bias metrics.

Imports nothing from ``curation`` or ``annotation``: it reads releases (or any dataset with the
same schema) from files or the Hub.
"""
