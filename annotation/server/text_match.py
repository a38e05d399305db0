"""A parsed text query (``text_query``) as SQL over the search index (``sql_index``).

Whole words, prefixes, phrases, fuzzy terms and the operators between them are one FTS5
``MATCH`` expression over ``bf_words`` (FTS5 has AND, OR, NOT, phrases, prefixes and NEAR; a
fuzzy term becomes the OR of the dataset's words within its edits, found in ``bf_vocab`` with
``rapidfuzz``), ranked by FTS5's ``bm25`` (Lucene's default similarity, same k1 and b). The
row's kind (all fields, or the one field searched) is a marker token ANDed in, so ``-red``
alone means "every row of that kind without red".

A query with a CJK substring (``words.CJK``) is evaluated row by row on ``bf_text``: substrings
with ``instr`` on the lower-cased text, the word parts as ``rowid IN`` their ``MATCH``; the rows
looked at are those of a term every match must contain (the trigram index for a substring of
3+ characters, the gram index below that, the word index for words), all rows of the kind
only when no such term exists (a query of exclusions). Such a query ranks by how often its
substrings occur, as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

try:  # a module of biasforge.annotation.server (tests), or top-level in the server's venv
    from . import sql_index, text_query, words
    from .text_query import Bool, Everything, Fuzzy, Not, Nothing, Phrase, Prefix, Substring, Word
except ImportError:
    import sql_index
    import text_query
    import words
    from text_query import Bool, Everything, Fuzzy, Not, Nothing, Phrase, Prefix, Substring, Word


def _quote(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def expansions(conn, dataset_id: str, word: str, edits: int) -> list[str]:
    """The dataset's words within ``edits`` of ``word``, the ``MAX_EXPANSIONS`` nearest as
    Lucene's FuzzyQuery ranks them (1 - edits / the shorter length, then the word)."""
    near = conn.execute(
        "SELECT word FROM bf_vocab WHERE dataset_id = ? AND len BETWEEN ? AND ?",
        (dataset_id, len(word) - edits, len(word) + edits),
    ).fetchall()
    found = process.extract(
        word, [w for (w,) in near], scorer=Levenshtein.distance, score_cutoff=edits, limit=None
    )

    def rank(item) -> tuple[float, str]:
        candidate, distance, _ = item
        boost = 1.0 if distance == 0 else 1 - distance / min(len(candidate), len(word))
        return -boost, candidate

    return [candidate for candidate, *_ in sorted(found, key=rank)[: text_query.MAX_EXPANSIONS]]


def _has_substring(node) -> bool:
    if isinstance(node, Substring):
        return True
    if isinstance(node, Not):
        return _has_substring(node.node)
    if isinstance(node, Bool):
        return any(_has_substring(child) for child in node.children)
    return False


class TextMatch:
    """The SQL of the rows a query tree matches: ``(SELECT rowid >> SHIFT AS n, score …)``."""

    def __init__(self, conn, dataset_id: str, field: str | None, param: Callable[[Any], str]):
        self.conn, self.dataset_id, self.param = conn, dataset_id, param
        self.slot = _quote(words.field_marker(field) if field else words.ALL_FIELDS)
        self.field = field

    # -- FTS5 expressions (no substring inside) -------------------------------------------------
    def fts(self, node) -> str:
        if isinstance(node, Word):
            return _quote(words.encode(node.word))
        if isinstance(node, Prefix):
            return _quote(words.encode(node.start)) + " *"
        if isinstance(node, Fuzzy):
            near = expansions(self.conn, self.dataset_id, node.word, node.edits)
            tokens = [_quote(words.encode(w)) for w in near] or [_quote(words.NOTHING)]
            return "(" + " OR ".join(tokens) + ")"
        if isinstance(node, Phrase):
            tokens = [words.encode(w) for w in node.words]
            if node.slop == 0:
                return _quote(" ".join(tokens))
            return f"NEAR({' '.join(map(_quote, tokens))}, {int(node.slop)})"
        if isinstance(node, Everything):
            return self.slot
        if isinstance(node, Nothing):
            return _quote(words.NOTHING)
        if isinstance(node, Not):
            return f"({self.slot} NOT {self.fts(node.node)})"
        if node.op == "or":
            return "(" + " OR ".join(self.fts(child) for child in node.children) + ")"
        positive = [self.fts(c) for c in node.children if not isinstance(c, Not)]
        negative = [self.fts(c.node) for c in node.children if isinstance(c, Not)]
        both = "(" + " AND ".join(positive or [self.slot]) + ")"
        return f"({both} NOT ({' OR '.join(negative)}))" if negative else both

    def _matching_words(self, node) -> str:
        return f"SELECT rowid FROM bf_words WHERE bf_words MATCH {self.param(self.fts(node))}"

    # -- row by row, for queries with a CJK substring ---------------------------------------------
    def condition(self, node) -> str:
        if not _has_substring(node):
            return f"t.rowid IN ({self._matching_words(node)})"
        if isinstance(node, Substring):
            return f"instr(t.body, {self.param(node.text)}) > 0"
        if isinstance(node, Not):
            return f"NOT ({self.condition(node.node)})"
        joiner = " AND " if node.op == "and" else " OR "
        return "(" + joiner.join(self.condition(child) for child in node.children) + ")"

    def candidates(self, node) -> str | None:
        """Rows every match is among (a SELECT of rowids), or None: all rows."""
        if isinstance(node, Substring):
            if len(node.text) >= 3:
                trigram = self.param(_quote(node.text))
                return f"SELECT rowid FROM bf_text WHERE bf_text MATCH {trigram}"
            if node.text and not any(c.isspace() for c in node.text):
                grams = self.param(" AND ".join(sql_index.gram_tokens(node.text)))
                return f"SELECT rowid FROM bf_gram WHERE bf_gram MATCH {grams}"
            return None
        if isinstance(node, Everything | Not):
            return None
        if not _has_substring(node):
            return (
                f"SELECT rowid FROM bf_words WHERE bf_words MATCH {self.param(self.slot_fts(node))}"
            )
        sets = [self.candidates(child) for child in node.children]
        if node.op == "and":
            return next((found for found in sets if found is not None), None)
        return None if None in sets else " UNION ".join(sets)

    def slot_fts(self, node) -> str:
        return f"{self.slot} AND {self.fts(node)}"

    def _score(self, node) -> str:
        """How often the query's (not excluded) substrings occur in the row."""
        found: list[str] = []

        def walk(item) -> None:
            if isinstance(item, Substring) and item.text:
                found.append(item.text)
            elif isinstance(item, Bool):
                for child in item.children:
                    walk(child)

        walk(node)
        counts = [
            f"(length(t.body) - length(replace(t.body, {p}, ''))) / length({p})"
            for p in (self.param(text) for text in found)
        ]
        return " + ".join(counts) or "1.0"

    # -- the whole --------------------------------------------------------------------------------
    def hits(self, node) -> str:
        """``SELECT n, score`` of the matching rows of this kind (record number, rank)."""
        shift = sql_index.SHIFT
        if not _has_substring(node):
            expression = self.param(self.slot_fts(node))
            return (
                f"SELECT rowid >> {shift} AS n, -bm25(bf_words) AS score FROM bf_words "
                f"WHERE bf_words MATCH {expression}"
            )
        tests = [self.condition(node)]
        if self.field:
            tests.append(f"t.field = {self.param(self.field)}")
        else:
            tests.append(f"(t.rowid & {sql_index.MAX_FIELD_SLOTS}) = 0")
        among = self.candidates(node)
        if among is not None:
            tests.insert(0, f"t.rowid IN ({among})")
        return (
            f"SELECT t.rowid >> {shift} AS n, {self._score(node)} AS score FROM bf_text t "
            f"WHERE {' AND '.join(tests)}"
        )
