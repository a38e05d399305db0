"""Corpus readers: plain text, JSONL and Hugging Face datasets, streamed and shardable.

A corpus is split into *units* that tasks share round-robin, so the same reader serves one
process or a thousand: a plain-text or JSONL file larger than ``chunk_bytes`` is cut into byte
ranges that start after a newline (safe for UTF-8, GBK and GB18030, whose multi-byte sequences
never contain the byte 0x0A), gzip files are one unit each, a Hugging Face dataset is cut with
``Dataset.shard``. Every record keeps its file and 1-based line number, so a record that cannot
be decoded is an :class:`~biasforge.errors.InputError` naming both — or, with
``skip_bad_lines``, a counted skip. :class:`CorpusReader` is the datatrove reader over them.
"""

from __future__ import annotations

import codecs
import gzip
import json
import re
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from datatrove.data import Document, DocumentsPipeline
from datatrove.pipeline.readers.base import BaseReader
from tqdm import tqdm

from biasforge.errors import BiasforgeError, InputError
from biasforge.textfiles import check_encoding

CHUNK_BYTES = 32 << 20
MAX_LINE_BYTES = 1 << 20


@dataclass(frozen=True)
class Unit:
    """A piece of the corpus one task reads: a byte range of a file, or a dataset shard."""

    source: str  # file path, or "hf:NAME"
    kind: str  # "text" | "jsonl" | "hf"
    start: int = 0
    end: int = -1  # -1: to the end
    shard: int = 0
    shards: int = 1


@dataclass(frozen=True)
class Record:
    text: str
    source: str
    line: int  # 1-based line (text/jsonl) or row number (hf)
    piece: int = 0  # > 0 for the later parts of a line too long to read at once

    @property
    def id(self) -> str:
        return f"{Path(self.source).name if not self.source.startswith('hf:') else self.source}:{self.line}"


@dataclass
class ReadStats:
    records: int = 0
    raw_chars: int = 0
    bad_lines: int = 0


def kind_of(path: str) -> str:
    if path.startswith("hf:"):
        return "hf"
    name = path.lower().removesuffix(".gz")
    return "jsonl" if name.endswith((".jsonl", ".json", ".ndjson")) else "text"


CORPUS_SUFFIXES = (".txt", ".text", ".jsonl", ".json", ".ndjson", ".gz")


def expand_corpus(corpus: list[str]) -> list[str]:
    """Folders become their corpus files (sorted, recursive; hidden files skipped)."""
    out: list[str] = []
    for source in corpus:
        path = Path(source)
        if not source.startswith("hf:") and path.is_dir() and not (path / "state.json").exists():
            files = sorted(
                str(p)
                for p in path.rglob("*")
                if p.is_file()
                and p.name.lower().endswith(CORPUS_SUFFIXES)
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
            )
            if not files:
                raise InputError(path, f"no corpus files ({', '.join(CORPUS_SUFFIXES)}) in folder")
            out += files
        elif not source.startswith("hf:") and path.is_dir():
            out.append(f"hf:{source}")  # a dataset saved with save_to_disk
        else:
            out.append(source)
    return out


def check_corpus_files(corpus: list[str]) -> None:
    """Refuse an empty corpus file given as --corpus (one in a folder of shards may be), and a
    file given twice (itself, through a link, or in a folder also given): its sentences would
    be mined and counted twice."""
    for source in corpus:
        if Path(source).is_file() and Path(source).stat().st_size == 0:
            raise InputError(source, "is empty: no text to mine")
    seen: dict[str, str] = {}
    for source in expand_corpus(corpus):
        path = Path(source)
        if source.startswith("hf:") or not path.is_file():
            continue  # read (and refused when missing) by the reader
        key = str(path.resolve())
        if key in seen:
            raise InputError(path, f"is the --corpus {seen[key]} again: it would be mined twice")
        seen[key] = source
        _refuse_binary(path)


#: how much of each corpus file is looked at for NUL bytes before anything is mined
BINARY_PROBE_BYTES = 64 * 1024


def _refuse_binary(path: Path) -> None:
    """Refuse a corpus file with a NUL byte near its start: the encodings a corpus may have
    are ASCII-compatible, so no text has one, and a binary file (an image, a disk image, a
    compressed file without ``.gz``) would be read to its end for no sentence at all."""
    try:
        opener = gzip.open if path.name.endswith(".gz") else open
        with opener(path, "rb") as handle:
            head = handle.read(BINARY_PROBE_BYTES)
    except (OSError, EOFError, zlib.error):
        return  # the reader names what is wrong with it
    if b"\x00" in head:
        at = head.index(b"\x00")
        raise InputError(
            path,
            f"holds a NUL byte at byte {at + 1}: a binary file, not text (a compressed corpus "
            "must end in .gz)",
            line=head.count(b"\n", 0, at) + 1,
        )


def plan_units(
    corpus: list[str], world_size: int = 1, chunk_bytes: int = CHUNK_BYTES
) -> list[Unit]:
    """Cut the corpus into units; large files into at least ``world_size`` byte ranges."""
    units: list[Unit] = []
    for source in expand_corpus(corpus):
        kind = kind_of(source)
        if kind == "hf":
            units += [Unit(source, kind, shard=i, shards=world_size) for i in range(world_size)]
            continue
        path = Path(source)
        if not path.is_file():
            raise InputError(path, "corpus file not found")
        size = path.stat().st_size
        if source.endswith(".gz") or size < (1 << 20):
            units.append(Unit(source, kind))
            continue
        pieces = max(-(-size // chunk_bytes), world_size)
        bounds = [size * i // pieces for i in range(pieces + 1)]
        units += [Unit(source, kind, bounds[i], bounds[i + 1]) for i in range(pieces)]
    # corpus order (source, then position): every task reads its units in this order, so the
    # rows it writes are sorted and the merge can stream them
    return sorted(units, key=lambda u: (u.source, u.shard, u.start))


def units_for_rank(units: list[Unit], rank: int, world_size: int) -> list[Unit]:
    return units[rank::world_size]


def check_line_encoding(encoding: str) -> None:
    """Refuse unknown encodings (``textfiles.check_encoding``) and ones where a newline is not
    the byte 0x0A (UTF-16/32): lines and byte-range shards are found by that byte."""
    check_encoding(encoding)
    if "\n".encode(encoding) != b"\n" or "他".encode(encoding).count(b"\n"):
        raise BiasforgeError(
            f"encoding {encoding!r} is not ASCII-compatible; convert the corpus to UTF-8 or "
            "GB18030 first (e.g. with iconv)"
        )


def _line_number(path: str, offset: int) -> int:
    """1-based number of the line that starts at byte ``offset`` (counted, not guessed)."""
    count = 0
    with open(path, "rb") as handle:
        remaining = offset
        while remaining > 0:
            block = handle.read(min(remaining, 1 << 24))
            if not block:
                break
            count += block.count(b"\n")
            remaining -= len(block)
    return count + 1


def _line_chunks(handle, lineno: int) -> Iterator[tuple[int, bytes, bool]]:
    """The current line in chunks of at most MAX_LINE_BYTES: (line, bytes, last chunk?)."""
    started = False
    while True:
        chunk = handle.readline(MAX_LINE_BYTES)
        if not chunk:
            if started:  # the file ended mid-line exactly at a chunk boundary
                yield lineno, b"", True
            return
        started = True
        final = chunk.endswith(b"\n") or len(chunk) < MAX_LINE_BYTES
        yield lineno, chunk, final
        if final:
            return


def _file_lines(unit: Unit) -> Iterator[tuple[int, bytes, bool]]:
    """(line number, bytes, last chunk of the line?) for every line that *starts* inside the
    unit's byte range; a line longer than MAX_LINE_BYTES comes in several chunks, so a file
    without newlines is still streamed."""
    if unit.source.endswith(".gz"):
        lineno = 1
        try:
            with gzip.open(unit.source, "rb") as handle:
                while True:
                    got = False
                    for item in _line_chunks(handle, lineno):
                        got = True
                        yield item
                    if not got:
                        return
                    lineno += 1
        except (OSError, EOFError, zlib.error) as exc:  # not gzip, truncated, corrupt
            raise InputError(unit.source, f"cannot read as gzip: {exc}", line=lineno) from None
    with open(unit.source, "rb") as handle:
        pos = unit.start
        lineno = 1
        if unit.start > 0:
            handle.seek(unit.start - 1)
            if handle.read(1) != b"\n":  # mid-line: that line belongs to the previous unit
                while True:
                    skipped = handle.readline(MAX_LINE_BYTES)
                    pos += len(skipped)
                    if not skipped or skipped.endswith(b"\n"):
                        break
            lineno = _line_number(unit.source, pos)
        handle.seek(pos)
        while unit.end < 0 or pos < unit.end:
            got = False
            for item in _line_chunks(handle, lineno):
                got = True
                pos += len(item[1])
                yield item
            if not got:
                break
            lineno += 1


_CUT = re.compile(r"[。？！?!][”’」』）)》]*")


def read_unit(
    unit: Unit,
    *,
    encoding: str = "utf-8",
    text_field: str = "text",
    skip_bad_lines: bool = False,
    stats: ReadStats | None = None,
) -> Iterator[Record]:
    """Stream the records of one unit; the file is never loaded whole. A very long text line
    is cut after its last sentence terminator into several records (``piece`` 0, 1, …)."""
    stats = stats if stats is not None else ReadStats()
    if unit.kind == "hf":
        yield from _read_hf(unit, text_field, stats)
        return
    check_line_encoding(encoding)
    decoder = codecs.getincrementaldecoder(encoding)()
    buffer: list[str] = []
    piece = 0
    skipping = False
    for lineno, raw, final in _file_lines(unit):
        if skipping:
            skipping = not final
            continue
        try:
            text = decoder.decode(raw, final=final)
        except UnicodeDecodeError as exc:
            decoder.reset()
            buffer, piece = [], 0
            if skip_bad_lines:
                stats.bad_lines += 1
                skipping = not final
                continue
            raise InputError(
                unit.source,
                f"cannot decode as {encoding} at byte {exc.start + 1} of the line "
                f"(near {raw[exc.start : exc.start + 4]!r}); pass "
                "--encoding (e.g. gb18030) or --skip-bad-lines",
                line=lineno,
            ) from exc
        if not final and unit.kind == "text":
            # emit what is complete, keep the unfinished sentence: only the new chunk is
            # searched (what is kept holds no terminator), so a line without any costs its
            # length, not its length squared
            cut = max((m.end() for m in _CUT.finditer(text)), default=0)
            if cut:
                complete = "".join(buffer) + text[:cut]
                stats.records += 1
                stats.raw_chars += len(complete)
                yield Record(complete, unit.source, lineno, piece)
                piece += 1
                buffer, text = [], text[cut:]
        buffer.append(text)
        if not final:
            continue
        line = "".join(buffer)
        buffer, current, piece = [], piece, 0
        if unit.kind == "jsonl":
            if not line.strip():
                continue
            try:
                text = json.loads(line)[text_field]
                if not isinstance(text, str):
                    raise TypeError(f"field {text_field!r} is not a string")
            except (ValueError, KeyError, TypeError, RecursionError) as exc:
                if skip_bad_lines:
                    stats.bad_lines += 1
                    continue
                raise InputError(
                    unit.source,
                    f"not a JSON object with a text field {text_field!r}: {exc}",
                    line=lineno,
                ) from exc
        else:
            text = line.rstrip("\r\n")
        stats.records += 1
        stats.raw_chars += len(text)
        yield Record(text, unit.source, lineno, current)


def _read_hf(unit: Unit, text_field: str, stats: ReadStats) -> Iterator[Record]:
    """A Hugging Face dataset: ``hf:PATH`` saved with ``save_to_disk``, ``hf:FILE.parquet``
    (or .arrow/.csv), or anything ``datasets.load_dataset`` accepts (``hf:NAME`` or
    ``hf:NAME::SPLIT``)."""
    import datasets

    spec = unit.source[3:]
    name, _, split = spec.partition("::")
    try:
        if (Path(name) / "state.json").exists() or (Path(name) / "dataset_dict.json").exists():
            ds = datasets.load_from_disk(name)
        elif name.endswith((".parquet", ".arrow", ".csv")):
            builder = {"parquet": "parquet", "arrow": "arrow", "csv": "csv"}[name.rsplit(".", 1)[1]]
            ds = datasets.load_dataset(builder, data_files=name, split="train")
        else:
            ds = datasets.load_dataset(name, split=split or "train")
    except Exception as exc:  # the library raises many types; the user needs the name
        raise InputError(unit.source, f"cannot load the dataset: {exc}") from exc
    if isinstance(ds, datasets.DatasetDict):
        ds = ds[split or next(iter(ds))]
    if text_field not in ds.column_names:
        raise InputError(unit.source, f"no column {text_field!r} (has {ds.column_names})")
    total = len(ds)
    div, mod = divmod(total, unit.shards)
    first = div * unit.shard + min(unit.shard, mod)  # where a contiguous shard starts
    ds = ds.shard(num_shards=unit.shards, index=unit.shard, contiguous=True)
    row = first
    for batch in ds.iter(batch_size=1000):
        for value in batch[text_field]:
            row += 1
            if isinstance(value, str):
                stats.records += 1
                stats.raw_chars += len(value)
                yield Record(value, unit.source, row)


class CorpusReader(BaseReader):
    """Plain text / JSONL / Hugging Face corpus units → one Document per line or record.

    Each task reads its share of the units (:func:`units_for_rank`). A record that cannot be
    read is an :class:`~biasforge.errors.InputError`; exceptions cross process boundaries
    badly, so the reader also leaves its facts in ``error-RANK.json`` under ``errors_dir``.
    """

    name = "SlguSet corpus reader"

    def __init__(
        self,
        units: list[Unit],
        *,
        encoding: str = "utf-8",
        text_field: str = "text",
        skip_bad_lines: bool = False,
        errors_dir: str | None = None,
    ) -> None:
        super().__init__(text_key=text_field)
        self.units = units
        self.encoding = encoding
        self.skip_bad_lines = skip_bad_lines
        self.errors_dir = errors_dir

    def run(self, data: DocumentsPipeline = None, rank: int = 0, world_size: int = 1):
        stats = ReadStats()
        progress = tqdm(
            desc=f"slguset task {rank}",
            unit="char",
            unit_scale=True,
            position=rank,
            leave=False,
            disable=not sys.stderr.isatty(),
        )
        try:
            for unit in units_for_rank(self.units, rank, world_size):
                for record in read_unit(
                    unit,
                    encoding=self.encoding,
                    text_field=self.text_key,
                    skip_bad_lines=self.skip_bad_lines,
                    stats=stats,
                ):
                    progress.update(len(record.text))
                    yield _document(record)
        except InputError as exc:
            self._leave_error(exc, rank)
            raise RuntimeError(str(exc)) from None
        finally:
            progress.close()
        self.stat_update("documents", value=stats.records)
        self.stat_update("raw_chars", value=stats.raw_chars)
        self.stat_update("bad_lines", value=stats.bad_lines)

    def _leave_error(self, exc: InputError, rank: int) -> None:
        if not self.errors_dir:
            return
        folder = Path(self.errors_dir)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"error-{rank:05d}.json").write_text(
            json.dumps(
                {"path": exc.path, "line": exc.line, "message": str(exc)}, ensure_ascii=False
            ),
            encoding="utf-8",
        )


def _document(record: Record) -> Document:
    return Document(
        text=record.text,
        id=record.id,
        metadata={"source": record.source, "line": record.line, "piece": record.piece},
    )
