"""Annotation: push candidates to Argilla, collect reviews, measure agreement, decide.

Three rooms (``client``: talking to a server; ``admin``: running one; ``review``: the review
itself) and ``server``, the code that runs inside the server's own virtualenv; see
``docs/architecture.md``.
"""
