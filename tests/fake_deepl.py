"""An offline stand-in for the DeepL API v2 — a word-for-word substitute, NOT a translator.

It exists so that ``./dev demo`` and the tests can run the real ``deepl`` client and the whole
StereoSet pipeline (memory, batching, retries, quota, glossaries) without a key, a network or a
bill; it lives with the tests, not in the wheel. Its "French", "German", "Spanish", "Chinese"
and "Japanese" are fixed word lists substituted word by word, in English word order: never
publish, review or score what it produces. For real translations set ``DEEPL_AUTH_KEY`` (see
README.md).

It speaks the parts of DeepL's v2 wire protocol that biasforge uses: ``POST /v2/translate``
(JSON or form body; ``text`` list, ``source_lang``, ``target_lang``, ``context``,
``tag_handling=xml`` with ``ignore_tags``, ``formality``, ``glossary_id``), ``/v2/glossaries``
(create, list, get, entries, delete — the v2 routes that ``deepl`` 1.32's
``create_glossary``/``list_glossaries`` call), ``GET /v2/usage``, an API key check (403), a
character quota (456 once exceeded), DeepL's 128 KiB request size limit (413; every request's
body size is recorded so tests can check none was over it) and injectable errors (any status,
e.g. 429/503, or a dropped connection) for the next N translate requests.

Two stand-ins for what sits around a real DeepL server:

* ``basic_auth=(user, password)``: a gateway that holds the DeepL key and wants HTTP basic auth
  instead (a client reaches it with ``http://user:password@host``, which ``requests`` sends as
  an ``Authorization: Basic`` header in place of the DeepL key);
* ``fixed_text="…"``: DeepL's own mock server, which answers every text with one fixed text
  and drops XML tags — what a pipeline must notice instead of keeping collapsed items.

The substitution is deterministic and small, so tests can reason about it. A target language
with a word list in ``tests/data/fake_deepl/`` (``languages.tsv`` names them: ``DE``, ``ES``,
``ZH``, ``JA``) is substituted from it (:class:`WordList`): listed words are replaced, others
pass through unchanged; a word of class ``agrees`` takes the form of the noun it goes with
(German articles by gender and by the case the word before governs, Spanish articles and
adjectives by gender and number, Chinese demonstratives and numerals by the noun's measure
word); the Japanese copula becomes the noun's particle (は or が); Chinese and Japanese lose the
spaces between words and take their own punctuation. Every other target gets French:

* words in :data:`LEXICON` map to French; other words pass through unchanged;
* determiners agree with the next word (``the``→``le``/``la``, ``a``→``un``/``une``,
  ``his``/``her``→``son``/``sa``), the next word being feminine when its French form ends in
  ``e`` — so two StereoSet sentences that differ only in the attribute can get different
  frames, as with real MT;
* words in :data:`SENSES` translate one way alone and another way inside a sentence (an absurd
  "unrelated" word made plausible by context);
* ``they`` becomes ``elles`` when the ``context`` mentions a woman, else ``ils``;
  ``you`` is ``tu`` with ``formality=less``/``prefer_less``, else ``vous``;
* XML tags are kept in place; the content of ignored tags (``ignore_tags``) is left alone;
* glossary entries (single words, case-insensitive) win over the lexicon.

In a test: ``server = FakeDeepL().start()`` (127.0.0.1, a free port), then point the client at
``server.url`` with ``server.auth_key``; ``server.stop()`` at the end. Standalone (the demo):
``python -m tests.fake_deepl --port 8765`` (from the repository root) prints its URL alone on
the first line and serves on 127.0.0.1 until killed (key: any non-empty string unless ``--key`` is given).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import csv
import json
import re
import socket
import threading
import time
import uuid
from dataclasses import dataclass, field
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

LEXICON = {
    "the": "le",
    "a": "un",
    "an": "un",
    "his": "son",
    "her": "son",
    "was": "était",
    "is": "est",
    "are": "sont",
    "were": "étaient",
    "very": "très",
    "and": "et",
    "of": "de",
    "in": "dans",
    "to": "à",
    "he": "il",
    "she": "elle",
    "they": "ils",
    "you": "vous",
    "i": "je",
    "my": "mon",
    "people": "gens",
    "man": "homme",
    "men": "hommes",
    "woman": "femme",
    "women": "femmes",
    "mother": "mère",
    "sister": "sœur",
    "nurse": "infirmière",
    "engineer": "ingénieur",
    "chess": "échecs",
    "player": "joueur",
    "asian": "asiatique",
    "hispanic": "hispanique",
    "smart": "intelligent",
    "lazy": "paresseuse",
    "dog": "chien",
    "cat": "chatte",
    "house": "maison",
    "car": "voiture",
    "book": "livre",
    "good": "bon",
    "bad": "mauvais",
    "not": "pas",
    "from": "de",
    "with": "avec",
    "who": "qui",
    "at": "à",
    "heart": "cœur",
}
SENSES = {  # word: (alone, inside a sentence)
    "fox": ("renard", "rusé"),
    "box": ("boîte", "carré"),
    "watch": ("montre", "vigilant"),
}
_DETERMINERS = {
    "the": ("le", "la"),
    "a": ("un", "une"),
    "an": ("un", "une"),
    "his": ("son", "sa"),
    "her": ("son", "sa"),
}
#: DeepL's limit on the size of a request body
REQUEST_LIMIT = 128 * 1024
_FEMININE_CUES = re.compile(r"\b(she|her|woman|women|girl|mother|sister|mommy|schoolgirl)\b", re.I)
_TOKEN = re.compile(r"(<[^>]+>)|(\w+)|(\s+|[^\w<\s]+)", re.UNICODE)


def _case_like(model: str, word: str) -> str:
    if model[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def fake_translate(
    text: str,
    *,
    context: str | None = None,
    formality: str | None = None,
    glossary: dict[str, str] | None = None,
    ignore_tags: frozenset[str] = frozenset(),
    target_lang: str | None = None,
) -> str:
    """The fake's deterministic "translation" of one English text: into the language of
    ``target_lang`` where :data:`WORD_LISTS` has a word list for it, else into its French."""
    glossary = {k.lower(): v for k, v in (glossary or {}).items()}
    listed = word_list((target_lang or "FR").upper())
    if listed is not None:
        return listed.translate(text, glossary, ignore_tags)
    tokens = [m.group(0) for m in _TOKEN.finditer(text)]
    words = [re.fullmatch(r"\w+", t) is not None for t in tokens]
    alone = sum(words) <= 1

    def plain(word: str) -> str:
        low = word.lower()
        if low in glossary:
            return glossary[low]
        if low in SENSES:
            return SENSES[low][0 if alone else 1]
        if low == "they":
            return "elles" if context and _FEMININE_CUES.search(context) else "ils"
        if low == "you":
            return "tu" if formality in ("less", "prefer_less") else "vous"
        return LEXICON.get(low, word)

    out: list[str] = []
    for i, token, ignored in _scan(tokens, ignore_tags):
        if ignored or token.startswith("<") or not words[i]:
            out.append(token)
            continue
        low = token.lower()
        if low in _DETERMINERS and low not in glossary:
            nxt = next((tokens[j] for j in range(i + 1, len(tokens)) if words[j]), None)
            feminine = nxt is not None and plain(nxt).lower().endswith("e")
            out.append(_case_like(token, _DETERMINERS[low][1 if feminine else 0]))
            continue
        out.append(_case_like(token, plain(token)))
    return "".join(out)


#: the word lists of the languages the fake speaks besides French (``languages.tsv`` there)
WORD_LISTS = Path(__file__).resolve().parent / "data" / "fake_deepl"
_AGREES, _PARTICLE, _GOVERNS = "agrees", "particle", "governs:"


@dataclass(frozen=True)
class WordList:
    """One language's word list (``WORD_LISTS/<lang>.tsv``): English word -> (its substitute,
    its class), substituted word by word (see the module docstring and the file's header)."""

    words: dict[str, tuple[str, str]]
    spaces: bool

    def _class(self, token: str) -> str:
        return self.words.get(token.lower(), ("", ""))[1]

    def _noun(self, token: str) -> str | None:
        """The class of a noun (gender, measure word, particle), None for any other word."""
        cls = self._class(token)
        plain = not cls or cls in (_AGREES, _PARTICLE) or cls.startswith(_GOVERNS)
        return None if plain else cls

    def _agreement(self, tokens: list[str], i: int) -> str:
        """The class of the noun the word at ``i`` agrees with: the last of the run of nouns
        after it (tags, spaces and other agreeing words skipped: "the chess player", "the
        smart woman"), else the nearest noun before it ("the woman is smart"); "*" if none."""
        found = None
        for token in tokens[i + 1 :]:
            if token.startswith("<") or token.isspace():
                continue
            noun = self._noun(token)
            if noun is not None:
                found = noun
            elif found or self._class(token) != _AGREES:
                break
        nouns_before = (self._noun(t) for t in reversed(tokens[:i]))
        return found or next((n for n in nouns_before if n), "*")

    def _case(self, tokens: list[str], i: int) -> str:
        """The case the word before ``i`` governs (German ``mit`` + dative), or ""."""
        for token in reversed(tokens[:i]):
            if token.startswith("<") or token.isspace():
                continue
            cls = self._class(token)
            if cls == _AGREES:
                continue
            return cls[len(_GOVERNS) :] if cls.startswith(_GOVERNS) else ""
        return ""

    def word(self, tokens: list[str], i: int) -> str:
        """The substitute of the word ``tokens[i]`` in its sentence."""
        token = tokens[i]
        text, cls = self.words.get(token.lower(), (token, ""))
        if cls == _AGREES:
            forms = dict(pair.split("=", 1) for pair in text.split())
            noun, case = self._agreement(tokens, i), self._case(tokens, i)
            keys = [f"{case}.{noun}", noun, f"{case}.*", "*"] if case else [noun, "*"]
            text = next(forms[k] for k in keys if k in forms)
        elif cls == _PARTICLE:
            before = next((t for t in reversed(tokens[:i]) if t.strip() and t[0] != "<"), "")
            text = self._noun(before) or text
        return _case_like(token, text)

    def translate(self, text: str, glossary: dict[str, str], ignore_tags: frozenset[str]) -> str:
        """``text`` substituted word by word; tags kept, ignored tags' content left alone."""
        tokens = [m.group(0) for m in _TOKEN.finditer(text)]
        out: list[str] = []
        for i, token, ignored in _scan(tokens, ignore_tags):
            if ignored or token.startswith("<"):
                out.append(token)
            elif token.isspace():
                out.append(token if self.spaces else "\x00")
            elif re.fullmatch(r"\w+", token):
                low = token.lower()
                out.append(glossary[low] if low in glossary else self.word(tokens, i))
            else:  # punctuation, mark by mark
                out.append("".join(self.words.get(c, (c, ""))[0] for c in token))
        joined = "".join(out)  # words are joined where the language writes no spaces:
        # only two words left in English keep the space between them
        return re.sub(r"(?<=[A-Za-z0-9])\x00(?=[A-Za-z0-9])", " ", joined).replace("\x00", "")


def _scan(tokens: list[str], ignore_tags: frozenset[str]):
    """(index, token, inside an ignored tag) for each token; a tag itself is not inside."""
    ignored: list[str] = []
    for i, token in enumerate(tokens):
        if token.startswith("<"):
            name = re.match(r"</?\s*([\w-]+)", token)
            tag = name.group(1) if name else ""
            if tag in ignore_tags and not token.endswith("/>"):
                if token.startswith("</"):
                    if ignored:
                        ignored.pop()
                else:
                    ignored.append(tag)
            yield i, token, False
        else:
            yield i, token, bool(ignored)


@cache
def word_list(target_lang: str) -> WordList | None:
    """The word list for a DeepL target code (``ZH``, ``DE``), None for the fake's French."""
    for row in _rows(WORD_LISTS / "languages.tsv"):
        if row["target_lang"] == target_lang:
            rows = _rows(WORD_LISTS / row["file"])
            words = {r["english"]: (r["translation"], r["class"]) for r in rows}
            return WordList(words, row["spaces"] == "yes")
    return None


def _rows(path: Path) -> list[dict[str, str]]:
    lines = [line for line in path.read_text("utf-8").splitlines() if not line.startswith("#")]
    reader = csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE)
    return [{k: v or "" for k, v in row.items()} for row in reader]


@dataclass
class FakeDeepL:
    """The fake server's state; start() binds 127.0.0.1 on a free port."""

    auth_key: str | None = "fake-key:fx"
    character_limit: int = 10**12
    delay: float = 0.0
    basic_auth: tuple[str, str] | None = None
    fixed_text: str | None = None
    character_count: int = 0
    translate_requests: int = 0
    requests: list[dict] = field(default_factory=list)
    glossaries: dict[str, dict] = field(default_factory=dict)
    _errors: list[int | str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # --- control from tests ---------------------------------------------------------------
    def fail_next(self, status: int | str, times: int = 1) -> None:
        """The next ``times`` translate requests get ``status`` (or "drop": closed socket)."""
        with self._lock:
            self._errors.extend([status] * times)

    def texts_sent(self) -> list[str]:
        """Every text of every translate request that was answered with 200, in order."""
        return [t for r in self.requests if r["status"] == 200 for t in r["text"]]

    def reset_counters(self) -> None:
        with self._lock:
            self.requests.clear()
            self.translate_requests = 0

    def start(self) -> FakeDeepL:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


class _Handler(BaseHTTPRequestHandler):
    """DeepL's v2 routes over one :class:`FakeDeepL` (``state``, set by :func:`_handler`)."""

    protocol_version = "HTTP/1.1"
    state: FakeDeepL

    def log_message(self, *args) -> None:  # keep test output clean
        pass

    def setup(self) -> None:
        super().setup()
        # answer at once: without this, Nagle + delayed ACK add ~40 ms per keep-alive request
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _send(self, status: int, body: object = None, ctype: str = "application/json"):
        if body is None:
            payload = b""
        elif isinstance(body, str):
            payload = body.encode("utf-8")
        else:
            payload = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _body(self) -> dict:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if "json" in (self.headers.get("Content-Type") or ""):
            return json.loads(raw or b"{}")
        form = parse_qs(raw.decode("utf-8"))
        return {k: (v if k == "text" else v[0]) for k, v in form.items()}

    def _authorised(self) -> bool:
        got = self.headers.get("Authorization", "")
        if self.state.basic_auth is not None:
            user, password = self.state.basic_auth
            expected = base64.b64encode(f"{user}:{password}".encode()).decode()
            if got == f"Basic {expected}":
                return True
            self._send(403, {"message": "gateway: wrong user or password"})
            return False
        if not got.startswith("DeepL-Auth-Key ") or (
            self.state.auth_key and got != f"DeepL-Auth-Key {self.state.auth_key}"
        ):
            self._send(403, {"message": "Wrong endpoint or invalid auth key"})
            return False
        return True

    def do_GET(self) -> None:
        if not self._authorised():
            return
        state, path = self.state, urlparse(self.path).path
        if path == "/v2/usage":
            usage = {"character_count": state.character_count}
            self._send(200, {**usage, "character_limit": state.character_limit})
        elif path == "/v2/glossaries":
            self._send(200, {"glossaries": [_info(g) for g in state.glossaries.values()]})
        elif m := re.fullmatch(r"/v2/glossaries/([\w-]+)(/entries)?", path):
            glossary = state.glossaries.get(m.group(1))
            if glossary is None:
                self._send(404, {"message": "Glossary not found"})
            elif m.group(2):
                tsv = "\n".join(f"{k}\t{v}" for k, v in glossary["entries"].items())
                self._send(200, tsv, "text/tab-separated-values")
            else:
                self._send(200, _info(glossary))
        else:
            self._send(404, {"message": "Not found"})

    def do_DELETE(self) -> None:
        if not self._authorised():
            return
        m = re.fullmatch(r"/v2/glossaries/([\w-]+)", urlparse(self.path).path)
        if m and self.state.glossaries.pop(m.group(1), None) is not None:
            self._send(204)
        else:
            self._send(404, {"message": "Glossary not found"})

    def do_POST(self) -> None:
        if not self._authorised():
            return
        state, path = self.state, urlparse(self.path).path
        size = int(self.headers.get("Content-Length") or 0)
        if path == "/v2/translate" and size > REQUEST_LIMIT:
            self.rfile.read(size)
            with state._lock:
                state.translate_requests += 1
                state.requests.append({"text": [], "bytes": size, "status": 413})
            self._send(413, {"message": "Request Entity Too Large"})
            return
        body = self._body()
        body["_bytes"] = size
        if path == "/v2/glossaries":
            self._create_glossary(body)
        elif path == "/v2/translate":
            self._translate(body)
        else:
            self._send(404, {"message": "Not found"})

    def _create_glossary(self, body: dict) -> None:
        entries = dict(line.split("\t", 1) for line in body["entries"].splitlines() if "\t" in line)
        gid = str(uuid.uuid4())
        self.state.glossaries[gid] = {
            "glossary_id": gid,
            "name": body["name"],
            "source_lang": body["source_lang"].lower(),
            "target_lang": body["target_lang"].lower(),
            "entries": entries,
        }
        self._send(201, _info(self.state.glossaries[gid]))

    def _translate(self, body: dict) -> None:
        texts = body.get("text") or []
        if isinstance(texts, str):
            texts = [texts]
        record = {
            "text": list(texts),
            "context": body.get("context"),
            "tag_handling": body.get("tag_handling"),
            "formality": body.get("formality"),
            "glossary_id": body.get("glossary_id"),
            "target_lang": body.get("target_lang"),
            "bytes": body.get("_bytes", 0),
            "status": None,
        }
        state = self.state
        with state._lock:
            state.translate_requests += 1
            state.requests.append(record)
            injected = state._errors.pop(0) if state._errors else None
        if state.delay:
            time.sleep(state.delay)
        if self._refused(body, texts, record, injected):
            return
        glossary = (
            state.glossaries[body["glossary_id"]]["entries"] if body.get("glossary_id") else None
        )
        ignore = body.get("ignore_tags") or []
        if isinstance(ignore, str):
            ignore = ignore.split(",")
        settings = dict(
            context=body.get("context"),
            formality=body.get("formality"),
            glossary=glossary,
            ignore_tags=frozenset(ignore) if body.get("tag_handling") else frozenset(),
            target_lang=body.get("target_lang"),
        )
        out = [
            {
                "detected_source_language": "EN",
                "text": state.fixed_text
                if state.fixed_text is not None
                else fake_translate(t, **settings),
                "billed_characters": len(t),
            }
            for t in texts
        ]
        record["status"] = 200
        self._send(200, {"translations": out})

    def _refused(self, body: dict, texts: list, record: dict, injected) -> bool:
        """Answer an injected error, a request DeepL refuses (no text or target, an unknown
        glossary) or one over the quota; True when it was answered so."""
        state = self.state
        if injected == "drop":
            record["status"] = "drop"
            self.close_connection = True
            self.connection.shutdown(2)
            return True
        refusal = None
        if injected is not None:
            refusal = (int(injected), f"injected error {injected}")
        elif not texts or not body.get("target_lang"):
            refusal = (400, "Parameter 'text' or 'target_lang' missing")
        elif body.get("glossary_id") and body["glossary_id"] not in state.glossaries:
            refusal = (404, "Glossary not found")
        else:
            chars = sum(len(t) for t in texts)
            with state._lock:
                if state.character_count + chars > state.character_limit:
                    refusal = (456, "Quota Exceeded")
                else:
                    state.character_count += chars
        if refusal is None:
            return False
        record["status"] = injected if injected is not None else refusal[0]
        self._send(refusal[0], {"message": refusal[1]})
        return True


def _handler(state: FakeDeepL) -> type[BaseHTTPRequestHandler]:
    """The request handler class of one fake server's ``state``."""
    return type("Handler", (_Handler,), {"state": state})


def _info(glossary: dict) -> dict:
    return {
        "glossary_id": glossary["glossary_id"],
        "name": glossary["name"],
        "ready": True,
        "source_lang": glossary["source_lang"],
        "target_lang": glossary["target_lang"],
        "creation_time": "2024-01-01T00:00:00.000000Z",
        "entry_count": len(glossary["entries"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Offline word-for-word stand-in for the DeepL API (demos and tests only)"
    )
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--key", default=None, help="accepted key (default: any)")
    args = parser.parse_args()
    state = FakeDeepL(auth_key=args.key)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), _handler(state))
    # the URL alone on the first line, so scripts can read it (e.g. with --port 0)
    print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()


if __name__ == "__main__":
    main()
