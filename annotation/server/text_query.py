"""The text search of Argilla's search box, parsed as Elasticsearch parses it.

Argilla 2.8 sends the box's text to Elasticsearch as a ``simple_query_string`` query
(``argilla_server/search_engine/commons.py``: ``default_operator: AND``,
``fuzzy_max_expansions: 10``, ``fuzzy_transpositions: false``, no wildcard analysis) over the
record's fields, analysed by the ``standard`` analyzer. :func:`parse` follows Lucene's
``SimpleQueryParser`` (which Elasticsearch runs for that query) step by step:

* terms are separated by whitespace; ``+`` (and, the default), ``|`` (or) and ``(`` ``)`` group
  them, read left to right: a change of operator makes what was read so far one operand
  (``a b | c`` is ``(a and b) or c``);
* ``-`` before a term, phrase or group excludes what it matches;
* ``"a phrase"`` matches those words in that order, ``"a phrase"~N`` within N positions;
* ``word*`` matches words starting with ``word``;
* ``word~N`` matches words within N edits (Levenshtein, no transpositions), ``word~`` within 2
  (Lucene's default), at most 2; the 10 nearest words of the dataset (Elasticsearch's
  ``fuzzy_max_expansions``), nearest first;
* ``\\`` escapes the next character; a lone ``*`` matches every record; an unclosed quote or
  parenthesis is ignored.

A term is cut into words as the index cuts text (``words.words``) and needs all of them;
whole words only, case-insensitive, accents kept. The exception (``words.CJK``): a term,
prefix, fuzzy term or phrase that contains a Chinese, Japanese or Korean character is
matched as a case-insensitive substring of the text, as typed.

No parser on PyPI implements this syntax (``luqum`` and others parse Lucene's *classic*
syntax, where ``|`` is no operator and ``AND``/``OR``/``NOT`` are keywords): the state machine
below is a port of Lucene's, kept small. Only the standard library is imported here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

try:  # a module of biasforge.annotation.server (tests), or top-level in the server's venv
    from . import words
except ImportError:
    import words

#: Lucene's LevenshteinAutomata.MAXIMUM_SUPPORTED_DISTANCE, and its default for ``word~``
MAX_EDITS = 2
#: Elasticsearch's ``fuzzy_max_expansions`` as Argilla sets it
MAX_EXPANSIONS = 10
_WHITESPACE = " \t\n\r"
_ENDS_TOKEN = '"|+()' + _WHITESPACE


# -- the query tree ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Word:
    word: str


@dataclass(frozen=True)
class Prefix:
    start: str


@dataclass(frozen=True)
class Fuzzy:
    word: str
    edits: int


@dataclass(frozen=True)
class Phrase:
    words: tuple[str, ...]
    slop: int


@dataclass(frozen=True)
class Substring:
    text: str


@dataclass(frozen=True)
class Everything:
    pass


@dataclass(frozen=True)
class Nothing:
    pass


@dataclass(frozen=True)
class Not:
    node: Any


@dataclass
class Bool:
    op: str  # "and" | "or"
    children: list = field(default_factory=list)


# -- leaves, as Elasticsearch's newDefaultQuery / newPrefixQuery / newFuzzyQuery / newPhraseQuery
def _default(text: str):
    if words.is_cjk(text):
        return Substring(text.lower())
    return _analysed(text, lambda found: Bool("and", [Word(w) for w in found]))


def _prefix(text: str):
    return Substring(text.lower()) if words.is_cjk(text) else Prefix(text.lower())


def _fuzzy(text: str, edits: int):
    return Substring(text.lower()) if words.is_cjk(text) else Fuzzy(text.lower(), edits)


def _phrase(text: str, slop: int):
    if words.is_cjk(text):
        return Substring(text.lower().strip(_WHITESPACE)) if text.strip(_WHITESPACE) else None
    return _analysed(text, lambda found: Phrase(tuple(found), slop))


def _analysed(text: str, several: Callable[[list[str]], Any]):
    """``text`` as the analyzer leaves it: nothing (no word), a ``Word`` (one), else
    ``several(the words)``, as both newDefaultQuery and newPhraseQuery build it."""
    found = words.words(text)
    if not found:
        return None
    if len(found) == 1:
        return Word(found[0])
    return several(found)


# -- the parser: Lucene's SimpleQueryParser, all operators on ----------------------------------
class _State:
    def __init__(self, data: str, start: int, end: int) -> None:
        self.data, self.index, self.length = data, start, end
        self.top = None
        self.current: str | None = None  # operation for the next operand
        self.previous: str | None = None
        self.nots = 0


def parse(query: str):
    """The query tree of ``query`` (``Nothing()`` when no term survives the analysis)."""
    if query.strip() == "*":
        return Everything()
    state = _State(query, 0, len(query))
    _sub_query(state)
    return state.top if state.top is not None else Nothing()


def _sub_query(state: _State) -> None:
    while state.index < state.length:
        char = state.data[state.index]
        if char == "(":
            _group(state)
        elif char == ")":
            state.index += 1
        elif char == '"':
            _quoted(state)
        elif char in "+|":
            if state.current is None and state.top is not None:
                state.current = "and" if char == "+" else "or"
            state.index += 1
        elif char == "-":
            state.nots += 1
            state.index += 1
            continue  # the not applies to what comes next
        elif char in _WHITESPACE:
            state.index += 1
        else:
            _token(state)
        state.nots = 0


def _group(state: _State) -> None:
    start = state.index = state.index + 1
    depth, escaped = 1, False
    while state.index < state.length:
        char = state.data[state.index]
        if not escaped:
            if char == "\\":
                escaped = True
                state.index += 1
                continue
            if char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
                if depth == 0:
                    break
        escaped = False
        state.index += 1
    if _closed(state, start):
        inner = _State(state.data, start, state.index)
        _sub_query(inner)
        _add(state, inner.top)
        state.index += 1


def _quoted(state: _State) -> None:
    start = state.index = state.index + 1
    buffer: list[str] = []
    escaped = has_slop = False
    while state.index < state.length:
        char = state.data[state.index]
        if not escaped:
            if char == "\\":
                escaped = True
                state.index += 1
                continue
            if char == '"':
                following = state.data[state.index + 1 : state.index + 2]
                if following == "~":
                    state.index += 1
                    has_slop = state.length > state.index + 1
                break
        escaped = False
        buffer.append(char)
        state.index += 1
    if _closed(state, start):
        slop = _fuzziness(state) if has_slop else 0
        _add(state, _phrase("".join(buffer), slop))
        state.index += 1


def _closed(state: _State, start: int) -> bool:
    """After a group or a quote was read up to its closing character: True when it holds
    something. Never closed, the opening character is ignored (reading goes on after it);
    empty (``()``, ``""``), the pending operation has nothing to apply to."""
    if state.index == state.length:
        state.index = start
        return False
    if state.index == start:
        state.current = None
        state.index += 1
        return False
    return True


def _token(state: _State) -> None:
    buffer: list[str] = []
    escaped = prefix = fuzzy = False
    while state.index < state.length:
        char = state.data[state.index]
        if not escaped:
            if char == "\\":
                escaped, prefix = True, False
                state.index += 1
                continue
            if char in _ENDS_TOKEN:
                break
            if buffer and char == "~":
                fuzzy = True
                break
            prefix = bool(buffer) and char == "*"
        escaped = False
        buffer.append(char)
        state.index += 1
    if not buffer:
        return
    text = "".join(buffer)
    if fuzzy:
        edits = min(_fuzziness(state), MAX_EDITS)
        _add(state, _fuzzy(text, edits) if edits else _default(text))
    elif prefix:
        _add(state, _prefix(text[:-1]))
    else:
        _add(state, _default(text))


def _fuzziness(state: _State) -> int:
    """The number after ``~`` (Lucene: none means 2; not a number means 0)."""
    if state.data[state.index] != "~":
        return 0
    digits: list[str] = []
    while state.index < state.length:
        state.index += 1
        if state.index < state.length:
            if state.data[state.index] in _ENDS_TOKEN:
                break
            digits.append(state.data[state.index])
    text = "".join(digits)
    if not text:
        return MAX_EDITS
    try:
        return max(0, int(text))  # Java's parseInt: an optional sign, then digits
    except ValueError:
        return 0


def _add(state: _State, branch) -> None:
    """Lucene's buildQueryTree: negation, then the operand joins the tree."""
    if branch is None:
        return
    if state.nots % 2 == 1:
        branch = Not(branch)
    if state.top is None:
        state.top = branch
    else:
        if state.current is None:
            state.current = "and"
        if state.previous != state.current:
            state.top = Bool(state.current, [state.top])
        state.top.children.append(branch)
        state.previous = state.current
    state.current = None
