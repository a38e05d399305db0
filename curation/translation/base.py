"""The translator protocol every backend implements, and the errors it may raise.

A backend only translates: ``translate(texts, source, target) -> texts`` in the same order.
Two optional keywords carry what StereoSet needs: ``context`` (text that guides the
translation but is not translated nor billed, as DeepL's ``context`` parameter) and ``xml``
(the texts contain XML tags that must come back around the corresponding words). Memory,
batching, retries and per-item failure reports live in :mod:`biasforge.curation.translation.runner`,
so a new backend stays a few lines long.

Two optional members, read with ``getattr`` so a minimal backend needs neither:
``max_request_bytes`` (the JSON bytes of texts plus context one request may carry; the runner
cuts requests to it) and ``check_ready()`` (raise the one-line error a first request would
meet, e.g. no API key; called before anything is sent, only when something must be sent).
A third, ``prime(memory)``, is for a backend that answers from stored translations
(``--translator written``): it puts them into the memory before the run plans its requests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Translator(Protocol):
    """A machine translation backend."""

    #: identifies the engine in the translation memory and in every output: the server it
    #: reaches, never a way of writing its URL nor credentials (``deepl``, ``deepl@host:port``)
    engine_id: str
    #: how many texts one call may carry
    max_batch: int

    def options_key(self) -> dict[str, Any]:
        """Settings that change the output (formality, glossary…), part of the memory key."""
        ...

    def translate(
        self,
        texts: Sequence[str],
        source: str,
        target: str,
        *,
        context: str | None = None,
        xml: bool = False,
    ) -> list[str]:
        """Translate ``texts`` from ``source`` to ``target`` (ISO codes such as en, fr).

        Any object with this method is a backend. A backend class that subclasses
        ``Translator`` gets it as written here and answers ``send`` (one ``Request``) instead,
        so the signature is written once."""
        send = getattr(self, "send", None)
        if send is None:
            raise NotImplementedError(f"{type(self).__name__}: define translate or send")
        return send(Request(list(texts), source, target, context, xml))


@dataclass(frozen=True)
class Request:
    """One ``translate`` call, as a backend subclassing ``Translator`` receives it."""

    texts: list[str]
    source: str
    target: str
    context: str | None = None
    xml: bool = False


class TranslationError(Exception):
    """A failed translation call.

    ``retryable``: worth retrying after a pause (429, 5xx, network). ``fatal``: no further
    call can succeed in this run (quota exhausted, bad key), so the runner stops sending and
    reports every remaining item as not translated.
    """

    def __init__(
        self, message: str, *, status: int | None = None, retryable: bool, fatal: bool = False
    ):
        super().__init__(message)
        self.status = status
        self.retryable = retryable
        self.fatal = fatal
