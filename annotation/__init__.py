"""Annotation: push candidates to Argilla, collect reviews, measure agreement, decide."""
