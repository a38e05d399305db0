"""Load a checkpoint as the right adapter: one registry maps each kind to its classes.

``REGISTRY`` is the only place that ties a kind ("masked", "causal", "seq2seq") to its
``transformers`` auto-class, its adapter, and the architecture names that declare it; detection
(``detect_kind``), loading (``load_model``) and the CLI's ``--kind`` choices all read it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from biasforge.errors import BiasforgeError
from biasforge.scoring.adapters.base import (
    ModelOptions,
    TransformersLM,
    max_memory_map,
    resolve_dtype,
    torch_dtype,
)
from biasforge.scoring.adapters.causal import CausalLM
from biasforge.scoring.adapters.masked import MaskedLM
from biasforge.scoring.adapters.seq2seq import Seq2SeqLM
from biasforge.scoring.interface import ModelIdentity
from biasforge.scoring.model_spec import ModelSpec

__all__ = ["KINDS", "REGISTRY", "KindSpec", "ModelOptions", "detect_kind", "load_model"]


@dataclass(frozen=True)
class KindSpec:
    """How one kind of model is recognised, loaded and adapted."""

    adapter: type[TransformersLM]
    auto_class: str  # the ``transformers`` auto-class that loads it
    architectures: tuple[str, ...] = ()  # suffixes of ``config.architectures`` declaring it


REGISTRY: dict[str, KindSpec] = {
    spec.adapter.kind: spec
    for spec in (
        KindSpec(
            MaskedLM,
            "AutoModelForMaskedLM",
            ("ForMaskedLM", "ForPreTraining", "ForNextSentencePrediction"),
        ),
        KindSpec(
            CausalLM,
            "AutoModelForCausalLM",
            ("ForCausalLM", "LMHeadModel", "ForConditionalGeneration"),
        ),
        # recognised by ``config.is_encoder_decoder`` (T5 and BART are "ForConditionalGeneration")
        KindSpec(Seq2SeqLM, "AutoModelForSeq2SeqLM"),
    )
}
KINDS = tuple(REGISTRY)
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".gguf")


def detect_kind(config: Any) -> str:
    """Masked, causal or seq2seq, from the checkpoint's declared architecture."""
    if getattr(config, "is_encoder_decoder", False):
        return Seq2SeqLM.kind
    for arch in getattr(config, "architectures", None) or []:
        for kind, spec in REGISTRY.items():
            if spec.architectures and arch.endswith(spec.architectures):
                return kind
    from transformers.models.auto.modeling_auto import MODEL_FOR_MASKED_LM_MAPPING_NAMES

    masked = config.model_type in MODEL_FOR_MASKED_LM_MAPPING_NAMES
    return MaskedLM.kind if masked else CausalLM.kind


def _first_line(exc: Exception) -> str:
    """The first line of a loader's error (some run over several), or its type's name."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def load_model(
    spec: ModelSpec | str, options: ModelOptions | None = None, name: str | None = None
) -> TransformersLM:
    """Load a hub id or local path (or the ``gemma3-270m`` alias) as the right adapter,
    named ``name`` (default: ``spec.name``) in progress bars and errors. A string is parsed
    here (the Python API); commands pass the spec they parsed from ``--model``."""
    import transformers

    spec = ModelSpec.parse(spec) if isinstance(spec, str) else spec
    options = options or ModelOptions()
    if options.dtype == "auto":
        options = replace(options, dtype=resolve_dtype(options.dtype, options.device))
    path = spec.location()
    try:
        config = transformers.AutoConfig.from_pretrained(path)
        tokenizer = transformers.AutoTokenizer.from_pretrained(path)
    except Exception as exc:  # a config value of the wrong type raises huggingface_hub's own
        raise BiasforgeError(f"cannot load model {spec.given!r}: {_first_line(exc)}") from exc
    check_tokenizer(spec.given, tokenizer)
    kind = detect_kind(config) if options.kind == "auto" else options.kind
    if kind not in REGISTRY:
        raise BiasforgeError(f"unknown model kind {kind!r}; choose one of {', '.join(KINDS)}")
    entry, dtype = REGISTRY[kind], torch_dtype(options.dtype)
    try:
        model = getattr(transformers, entry.auto_class).from_pretrained(
            path, dtype=dtype, **placement(options)
        )
    except Exception as exc:  # corrupt weights raise the loader's own types (SafetensorError…)
        raise BiasforgeError(
            f"cannot load model {spec.given!r} as a {kind} model: {_first_line(exc)}"
        ) from exc
    if not options.device_map:
        model.to(options.device)
    adapter = entry.adapter(name or spec.name, model, tokenizer, options, path)
    adapter.identity = model_identity(spec, adapter, config)
    return adapter


def check_tokenizer(spec: str, tokenizer: Any) -> None:
    """Refuse a tokenizer that knows nothing but its special tokens.

    A checkpoint folder without tokenizer files still loads: ``transformers`` builds a
    tokenizer of the five special tokens, every word reads as unknown, and the model would be
    scored on nothing (issue 27: LMS 0.0 without a warning)."""
    special = set(getattr(tokenizer, "all_special_tokens", []) or [])
    words = [token for token in tokenizer.get_vocab() if token not in special]
    if not words:
        raise BiasforgeError(
            f"cannot load model {spec!r}: its tokenizer has no vocabulary besides the special "
            f"tokens ({', '.join(sorted(special)) or 'none'}); the folder lacks tokenizer files "
            "(tokenizer.json, vocab.txt, …)"
        )


def placement(options: ModelOptions) -> dict[str, Any]:
    """``from_pretrained`` keywords for ``--device-map`` / ``--max-memory`` (accelerate splits
    the layers over the devices, within each device's limit); none without a device map."""
    if not options.device_map:
        if options.max_memory:
            raise BiasforgeError("--max-memory needs --device-map (e.g. --device-map auto)")
        return {}
    import importlib.util

    if importlib.util.find_spec("accelerate") is None:
        raise BiasforgeError("--device-map needs accelerate: pip install accelerate")
    kwargs: dict[str, Any] = {"device_map": options.device_map}
    memory = max_memory_map(options.max_memory)
    if memory:
        kwargs["max_memory"] = memory
    return kwargs


def model_identity(spec: ModelSpec, lm: TransformersLM, config: Any) -> ModelIdentity:
    """Name, source, revision or weight sha256, dtype and quantisation of a loaded model."""
    from biasforge.scoring import gemma

    fields: dict[str, Any] = {}
    if spec.kind == "alias":
        fields = gemma.identity_fields(lm.options.dtype)
    elif spec.folder is not None:
        fields = dict(zip(("sha256", "sha256_of"), weights_sha256(spec.folder), strict=True))
    revision = getattr(config, "_commit_hash", None)
    quantisation = getattr(config, "quantization_config", None)
    if isinstance(quantisation, dict):
        quantisation = quantisation.get("quant_method")
    fields.setdefault("revision", str(revision or ""))
    fields.setdefault(
        "quantisation", str(getattr(quantisation, "quant_method", quantisation) or "none")
    )
    return ModelIdentity(
        name=lm.name,
        source=spec.source,
        kind=lm.kind,
        dtype=lm.options.dtype,
        parameters=lm.parameter_count(),
        **fields,
    )


def weights_sha256(folder: Path) -> tuple[str, str]:
    """sha256 of a checkpoint folder's weight file, or of the list of "name sha256" lines when
    the weights are sharded; and which files it covers."""
    import hashlib

    from biasforge.files import sha256_file

    files = sorted(p for p in folder.iterdir() if p.suffix in _WEIGHT_SUFFIXES and p.is_file())
    if not files:
        return "", ""
    digests = [(p.name, sha256_file(p)) for p in files]
    if len(digests) == 1:
        return digests[0][1], digests[0][0]
    listing = "".join(f"{name} {digest}\n" for name, digest in digests)
    return hashlib.sha256(listing.encode()).hexdigest(), ", ".join(n for n, _ in digests)
