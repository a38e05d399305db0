"""DeepL backend over the official ``deepl`` client (``DeepLClient.translate_text``).

The key comes from ``DEEPL_AUTH_KEY`` (never logged); ``server_url`` points the client at
another server (a DeepL-compatible test server, a gateway); otherwise the client picks the Free
or Pro endpoint from the key, as it always does. A ``user:password@`` in ``server_url`` is
passed on (``requests`` sends it as HTTP basic auth, for gateways that hold the DeepL key) but
never written anywhere: the engine id names the server without it (see
:func:`biasforge.translation_memory.server_identity`) and error messages and the client's log
lines have it masked. A glossary given as a ``{source: target}`` dict is created once on the
account under a content-derived name and reused by later runs.

Retries are the runner's job (so it can count them, pace them and report per item): this
backend turns the client's exceptions into :class:`TranslationError` with ``retryable`` /
``fatal`` set, and sets the client's documented module setting
``deepl.http_client.max_network_retries`` to 0 so a failing request is not retried twice.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

from biasforge.contract.redact import public_url
from biasforge.curation.translation.base import Request, TranslationError, Translator
from biasforge.errors import BiasforgeError
from biasforge.translation_memory import server_identity

#: contents of these XML tags are kept untranslated (the StereoSet slot marker)
IGNORE_TAGS = ["x"]
#: tags that mark words inside a sentence (never a sentence boundary)
INLINE_TAGS = ["a", "x"]
_OFFICIAL_HOSTS = {"api.deepl.com", "api-free.deepl.com"}
#: DeepL refuses a request body over 128 KiB; the rest of the body (languages, tag options,
#: glossary id) takes well under the margin kept here
REQUEST_LIMIT = 128 * 1024
MASK = "***"


def engine_id_for(server_url: str | None) -> str:
    """``deepl`` for DeepL's own API (Free or Pro, however written), else ``deepl@SERVER``."""
    if not server_url:
        return "deepl"
    identity = server_identity(server_url)
    host = identity.partition("/")[0].rpartition(":")[0] or identity.partition("/")[0]
    return "deepl" if host in _OFFICIAL_HOSTS else f"deepl@{identity}"


def _without_userinfo(url: str) -> str:
    """``url`` with everything between its scheme (if any) and the last ``@`` removed: plain
    string work, so it also serves the URLs :func:`urllib.parse.urlsplit` misreads (no
    scheme: ``user:pw@host`` parses as scheme ``user``, or a ``/`` in the password)."""
    if "@" not in url:
        return url
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    return f"{scheme}{sep}{rest.rpartition('@')[2]}"


def check_server_url(url: str | None) -> None:
    """Refuse a server URL the client cannot use, naming it without its credentials."""
    if url is None:
        return
    parts = urlsplit(url)
    problem = None
    if parts.scheme not in ("http", "https"):
        problem = "the scheme must be http or https"
    elif not parts.hostname:
        problem = "no host"
    else:
        try:
            parts.port  # noqa: B018  (parsing it is the check)
        except ValueError:
            problem = "the port is not a number in 0-65535"
    if problem:
        raise BiasforgeError(
            f"--server-url / DEEPL_SERVER_URL {_without_userinfo(url)!r}: {problem} "
            "(expected http(s)://host[:port])"
        )


def secrets_of(url: str | None) -> list[str]:
    """The strings of ``url`` that must never be written, longest first: the URL itself, its
    ``user:password`` part, the user and the password (also percent-decoded)."""
    if not url or "@" not in urlsplit(url).netloc:
        return []
    parts = urlsplit(url)
    found = [url, parts.netloc.rpartition("@")[0], parts.username, parts.password]
    found += [unquote(s) for s in found[1:] if s]
    return sorted({s for s in found if s}, key=len, reverse=True)


def mask(text: str, url: str | None) -> str:
    """``text`` with ``url`` written without credentials and any leftover secret masked."""
    secrets = secrets_of(url)
    if not secrets:
        return text
    text = text.replace(url or "", public_url(url) or "")  # checked: the port parses
    for secret in secrets:
        text = text.replace(secret, MASK)
    return text


class _MaskingFilter(logging.Filter):
    """Masks a server URL's credentials in the ``deepl`` client's log lines (it logs URLs)."""

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = mask(record.getMessage(), self.url)
        record.args = ()
        return True


def deepl_lang(code: str, *, target: bool) -> str:
    """ISO code → DeepL code (EN/PT need a regional variant as target languages)."""
    code = code.upper()
    if target and code == "EN":
        return "EN-US"
    if target and code == "PT":
        return "PT-PT"
    return code


def glossary_name(entries: Mapping[str, str], source: str, target: str) -> str:
    payload = "\n".join(f"{k}\t{v}" for k, v in sorted(entries.items()))
    digest = hashlib.sha256(f"{source}|{target}|{payload}".encode()).hexdigest()[:12]
    return f"biasforge-{source.lower()}-{target.lower()}-{digest}"


class DeepLTranslator(Translator):
    """:class:`biasforge.curation.translation.base.Translator` over the DeepL API."""

    max_batch = 50  # DeepL accepts up to 50 texts per request
    #: JSON bytes the texts and context of one request may take (see REQUEST_LIMIT)
    max_request_bytes = REQUEST_LIMIT - 4096

    def __init__(
        self,
        *,
        auth_key: str | None = None,
        server_url: str | None = None,
        formality: str | None = None,
        glossary: Mapping[str, str] | None = None,
        timeout: float = 10.0,
    ) -> None:
        server_url = server_url or None  # an empty DEEPL_SERVER_URL means "not set"
        check_server_url(server_url)
        self._auth_key = auth_key
        self._server_url = server_url
        self._timeout = timeout
        self._client_obj = None
        self.engine_id = engine_id_for(server_url)
        self.formality = formality
        self.glossary_entries = dict(glossary or {})
        self._glossary_ids: dict[tuple[str, str], str] = {}

    def _key(self) -> str:
        key = self._auth_key or os.environ.get("DEEPL_AUTH_KEY")
        if not key:
            raise BiasforgeError(
                "DeepL needs an API key: set DEEPL_AUTH_KEY "
                "(or use --dry-run to see what a run would cost first)"
            )
        return key

    def check_ready(self) -> None:
        """Raise the one-line error a run would meet at its first request (no key), before any
        work starts; called only when something has to be sent."""
        self._key()

    @property
    def _client(self):
        """The ``deepl.DeepLClient``, created on first use so a dry run needs no key."""
        if self._client_obj is None:
            import deepl

            key = self._key()
            log = logging.getLogger("deepl")
            masked = {f.url for f in log.filters if isinstance(f, _MaskingFilter)}
            if secrets_of(self._server_url) and self._server_url not in masked:
                log.addFilter(_MaskingFilter(self._server_url or ""))
            deepl.http_client.max_network_retries = 0
            deepl.http_client.min_connection_timeout = self._timeout
            self._deepl = deepl
            self._client_obj = deepl.DeepLClient(key, server_url=self._server_url)
            self._client_obj.set_app_info("biasforge", "0.1")
        return self._client_obj

    def options_key(self) -> dict[str, Any]:
        opts: dict[str, Any] = {}
        if self.formality:
            opts["formality"] = self.formality
        if self.glossary_entries:
            opts["glossary"] = glossary_name(self.glossary_entries, "", "")
        return opts

    def _glossary_id(self, source: str, target: str) -> str | None:
        if not self.glossary_entries:
            return None
        pair = (source.upper(), target.upper())
        if pair not in self._glossary_ids:
            name = glossary_name(self.glossary_entries, *pair)
            found = [
                g for g in self._call(self._client.list_glossaries) if g.name == name and g.ready
            ]
            info = (
                found[0]
                if found
                else self._call(
                    self._client.create_glossary,
                    name,
                    source_lang=pair[0],
                    target_lang=pair[1],
                    entries=self.glossary_entries,
                )
            )
            self._glossary_ids[pair] = info.glossary_id
        return self._glossary_ids[pair]

    def usage(self) -> tuple[int | None, int | None]:
        """Characters used and allowed in this billing period (None when unknown)."""
        usage = self._call(self._client.get_usage)
        return usage.character.count, usage.character.limit

    def send(self, request: Request) -> list[str]:
        """One DeepL request (context, XML tag handling, formality and glossary as asked)."""
        texts, source, target = request.texts, request.source, request.target
        if not texts:
            return []
        kwargs: dict[str, Any] = {
            "source_lang": deepl_lang(source, target=False),
            "target_lang": deepl_lang(target, target=True),
        }
        if request.context:
            kwargs["context"] = request.context
        if request.xml:
            kwargs["tag_handling"] = "xml"
            kwargs["ignore_tags"] = IGNORE_TAGS
            kwargs["non_splitting_tags"] = INLINE_TAGS  # the tags sit inside one sentence
        if self.formality:
            kwargs["formality"] = self.formality
        glossary_id = self._glossary_id(source, target)
        if glossary_id:
            kwargs["glossary"] = glossary_id
        results = self._call(self._client.translate_text, list(texts), **kwargs)
        if len(results) != len(texts):
            raise TranslationError(
                f"DeepL answered {len(results)} translations for {len(texts)} texts",
                retryable=True,
            )
        return [r.text for r in results]

    def _call(self, fn, *args, **kwargs):
        """``fn(...)``, with the client's exceptions as :class:`TranslationError` whose message
        never shows the server URL's credentials."""
        try:
            return self._call_unmasked(fn, *args, **kwargs)
        except TranslationError as exc:
            exc.args = (mask(str(exc), self._server_url),)
            exc.__cause__ = None  # its text may hold the URL as typed
            raise

    def _call_unmasked(self, fn, *args, **kwargs):
        import deepl

        try:
            return fn(*args, **kwargs)
        except deepl.QuotaExceededException as exc:
            raise TranslationError(
                f"DeepL quota exceeded (456): {exc}", status=456, retryable=False, fatal=True
            ) from exc
        except deepl.AuthorizationException as exc:
            raise TranslationError(
                f"DeepL rejected the key (403): {exc}", status=403, retryable=False, fatal=True
            ) from exc
        except deepl.TooManyRequestsException as exc:
            raise TranslationError(
                f"DeepL too many requests (429): {exc}", status=429, retryable=True
            ) from exc
        except deepl.ConnectionException as exc:
            raise TranslationError(
                f"network error talking to DeepL: {exc}", retryable=True
            ) from exc
        except deepl.DeepLException as exc:
            status = getattr(exc, "http_status_code", None)
            retryable = bool(getattr(exc, "should_retry", False)) or (
                status is not None and status >= 500
            )
            raise TranslationError(
                f"DeepL error ({status}): {exc}", status=status, retryable=retryable
            ) from exc
