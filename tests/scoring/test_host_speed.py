"""Host-side speed work (issue 13) keeps the scores: vectorised padding, chunked log-softmax,
batched tokenization, one host copy per call, the dtype-aware cheap-head check, ``--dtype
auto``, and ``--device-map`` / ``--max-memory`` reaching ``from_pretrained`` (CPU only)."""

from __future__ import annotations

import pytest

from biasforge.errors import BiasforgeError
from biasforge.scoring.adapters import base
from biasforge.scoring.adapters.base import (
    head_tolerance,
    log_softmax_chunk,
    max_memory_map,
    pad,
    parse_max_memory,
    resolve_dtype,
)
from biasforge.scoring.models import ModelOptions, load_model, placement
from biasforge.scoring.tasks.stereoset import score_intrasentence
from tests.scoring.conftest import stereoset_items


def _intra():
    items = stereoset_items()
    return items[items["split"] == "intrasentence"]


def test_pad_matches_the_row_by_row_version():
    rows = [[5, 6, 7], [1], [], [9, 9, 9, 9]]
    ids, mask = pad(rows, pad_id=-1)
    assert ids.tolist() == [[5, 6, 7, -1], [1, -1, -1, -1], [-1] * 4, [9, 9, 9, 9]]
    assert mask.tolist() == [[1, 1, 1, 0], [1, 0, 0, 0], [0] * 4, [1, 1, 1, 1]]
    assert str(ids.dtype) == "torch.int64" and str(mask.dtype) == "torch.int64"


def test_log_softmax_chunks_bound_the_vocabulary_block():
    assert log_softmax_chunk(262_144) == 64
    assert log_softmax_chunk(30_522) == 549
    assert log_softmax_chunk(10) == 4096 and log_softmax_chunk(10**9) == 1


def test_dtype_options():
    import torch

    assert resolve_dtype("auto", "cpu") == "float32"
    assert resolve_dtype("bfloat16", "cpu") == "bfloat16"
    with pytest.raises(BiasforgeError, match="unknown dtype"):
        resolve_dtype("int3", "cpu")
    assert head_tolerance(torch.float32) == 1e-3
    assert head_tolerance(torch.bfloat16) > head_tolerance(torch.float16) > 1e-3
    assert parse_max_memory("0=10GiB, cpu=30GiB") == (("0", "10GiB"), ("cpu", "30GiB"))
    assert max_memory_map(parse_max_memory("0=10GiB,cpu=30GiB")) == {0: "10GiB", "cpu": "30GiB"}
    with pytest.raises(BiasforgeError, match="DEVICE=LIMIT"):
        parse_max_memory("10GiB")
    with pytest.raises(BiasforgeError, match="needs --device-map"):
        placement(ModelOptions(max_memory=(("cpu", "1GiB"),)))


def test_dtype_auto_is_float32_on_cpu(tiny_models):
    lm = load_model(tiny_models["masked"], ModelOptions(progress=False, dtype="auto"))
    assert lm.identity.dtype == "float32" and lm.weight_dtype.is_floating_point


@pytest.mark.parametrize("kind", ["masked", "causal"])
def test_bfloat16_keeps_the_cheap_head_and_agrees_with_float32(tiny_models, kind):
    intra = _intra()
    full = load_model(tiny_models[kind], ModelOptions(progress=False))
    half = load_model(tiny_models[kind], ModelOptions(progress=False, dtype="bfloat16"))
    assert full._verified_head is not None
    assert half._verified_head is not None, "the bf16 self-check must keep the cheap head"
    a, b = score_intrasentence(full, intra), score_intrasentence(half, intra)
    assert max(abs(b[k] - a[k]) / a[k] for k in a) < 0.1


@pytest.mark.parametrize("kind", ["masked", "causal", "seq2seq"])
def test_small_log_softmax_chunks_give_the_same_scores(tiny_models, kind, monkeypatch):
    intra = _intra()
    lm = load_model(tiny_models[kind], ModelOptions(progress=False))
    reference = score_intrasentence(lm, intra)
    for module in (base, __import__(f"biasforge.scoring.adapters.{kind}", fromlist=["x"])):
        if hasattr(module, "log_softmax_chunk"):
            monkeypatch.setattr(module, "log_softmax_chunk", lambda vocab, budget=0: 3)
    chunked = score_intrasentence(lm, intra)
    # float32 log-softmax over blocks of another shape rounds differently: a few units in the
    # last place (1.5e-7 relative measured on scores near 0.01), never more
    assert max(abs(chunked[k] - reference[k]) / abs(reference[k]) for k in reference) < 1e-6


@pytest.mark.parametrize("kind", ["masked", "causal", "seq2seq"])
def test_tokenizer_batched_and_one_host_copy(tiny_models, kind, monkeypatch):
    """However many items and batches, a handful of tokenizer calls and host copies."""
    import torch

    intra = _intra()
    lm = load_model(tiny_models[kind], ModelOptions(progress=False, batch_tokens=64))
    reference = score_intrasentence(lm, intra)  # the cheap head is verified here, once
    calls = {"tokenizer": 0, "cpu": 0}
    tokenizer_call = type(lm.tokenizer).__call__
    tensor_cpu = torch.Tensor.cpu

    def count_tokenizer(self, *args, **kwargs):
        calls["tokenizer"] += 1
        return tokenizer_call(self, *args, **kwargs)

    def count_cpu(self, *args, **kwargs):
        calls["cpu"] += 1
        return tensor_cpu(self, *args, **kwargs)

    monkeypatch.setattr(type(lm.tokenizer), "__call__", count_tokenizer)
    monkeypatch.setattr(torch.Tensor, "cpu", count_cpu)
    again = score_intrasentence(lm, intra)
    monkeypatch.undo()
    assert again == reference
    assert len(intra) >= 4
    if kind == "seq2seq":  # two calls per pair (source, target); copies once per batch
        return
    assert calls["tokenizer"] <= 2, calls
    assert calls["cpu"] <= 1, calls


def test_device_map_and_max_memory_reach_from_pretrained(tiny_models, monkeypatch):
    """accelerate cannot split over CPU "devices": the options reach ``from_pretrained``, the
    model is placed by accelerate, and the scores do not change."""
    pytest.importorskip("accelerate")
    import copy

    import transformers

    intra = _intra()
    plain = score_intrasentence(
        load_model(tiny_models["masked"], ModelOptions(progress=False)), intra
    )
    seen = {}
    auto = transformers.AutoModelForMaskedLM.from_pretrained

    def spy(*args, **kwargs):
        seen.update(copy.deepcopy(kwargs))  # transformers converts max_memory in place
        return auto(*args, **kwargs)

    monkeypatch.setattr(transformers.AutoModelForMaskedLM, "from_pretrained", spy)
    options = ModelOptions(progress=False, device_map="auto", max_memory=(("cpu", "2GiB"),))
    lm = load_model(tiny_models["masked"], options)
    assert seen["device_map"] == "auto" and seen["max_memory"] == {"cpu": "2GiB"}
    placed = getattr(lm.model, "hf_device_map", {"": "cpu"})  # set only when split
    assert set(map(str, placed.values())) == {"cpu"}
    assert {p.device.type for p in lm.model.parameters()} == {"cpu"}
    assert str(lm.device) == "cpu"
    mapped = score_intrasentence(lm, intra)
    assert max(abs(mapped[k] - plain[k]) for k in plain) < 1e-9


def test_cli_passes_device_map_and_dtype(tiny_models, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from biasforge.scoring import runner
    from biasforge.scoring.cli import app
    from tests.scoring.conftest import stereoset_release

    captured = {}

    def fake_run(task, request, *rest, **named):
        captured["options"] = request.options.model

    monkeypatch.setattr(runner, "run_task", fake_run)
    release = stereoset_release(stereoset_items(), tmp_path / "release")
    args = ["stereoset", "-d", str(release), "-m", tiny_models["masked"], "-o", str(tmp_path / "o")]
    extra = ["--device-map", "auto", "--max-memory", "cpu=2GiB", "--no-progress"]
    result = CliRunner().invoke(app, [*args, *extra], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    options = captured["options"]
    assert options.dtype == "auto"
    assert options.device_map == "auto" and options.max_memory == (("cpu", "2GiB"),)
    bad = CliRunner().invoke(app, [*args, "--dtype", "int3"])
    assert bad.exit_code != 0 and "dtype" in bad.output
