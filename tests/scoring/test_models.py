"""The model interface and its adapters: batching invariance, dtype option, the registry,
capabilities and the one clear refusal."""

from __future__ import annotations

import numpy as np
import pytest

from biasforge.errors import BiasforgeError
from biasforge.scoring.adapters.base import length_batches
from biasforge.scoring.interface import (
    Capability,
    FilledSentence,
    LanguageModel,
    MaskedRead,
    Slot,
)
from biasforge.scoring.model_spec import ModelSpec
from biasforge.scoring.models import KINDS, REGISTRY, ModelOptions, detect_kind, load_model
from biasforge.scoring.tasks.stereoset import score_intrasentence
from tests.scoring.conftest import stereoset_items


def test_a_model_spec_says_once_what_was_given(tmp_path, monkeypatch):
    """--model is parsed once: what it is, its short name, how reports and the manifest name it
    (never a path of this machine), and which folder's weights are hashed."""
    folder = tmp_path / "ckpt"
    folder.mkdir()
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    local = ModelSpec.parse(str(folder))
    assert (local.kind, local.name, local.folder) == ("local", "ckpt", folder)
    assert (local.source, local.listed) == ("local folder ckpt", "ckpt")
    monkeypatch.chdir(tmp_path)
    assert ModelSpec.parse("./ckpt").listed == "ckpt"  # relative: as given
    hub = ModelSpec.parse("org/not-here")
    assert (hub.kind, hub.name, hub.source, hub.listed, hub.folder) == (
        "hub",
        "org/not-here",
        "org/not-here",
        "org/not-here",
        None,
    )
    (tmp_path / "gemma3-270m").mkdir()
    alias = ModelSpec.parse("gemma3-270m")  # the alias wins over a folder of its name
    assert (alias.kind, alias.folder, alias.source) == ("alias", None, "gemma3-270m")


def test_length_batches_respect_budget_and_sort():
    lengths = [5, 9, 3, 9, 7, 1]
    batches = list(length_batches(lengths, batch_tokens=18, max_batch=8))
    assert sorted(i for b in batches for i in b) == list(range(6))
    for batch in batches:
        assert len(batch) * max(lengths[i] for i in batch) <= 18
    flat = [lengths[i] for b in batches for i in b]
    assert flat == sorted(flat, reverse=True)


@pytest.mark.parametrize("kind", ["masked", "causal", "seq2seq"])
def test_scores_do_not_depend_on_batching_and_bfloat16_is_close(tiny_models, kind):
    items = stereoset_items()
    intra = items[items["split"] == "intrasentence"]
    one = score_intrasentence(
        load_model(tiny_models[kind], ModelOptions(progress=False, max_batch=1)), intra
    )
    many = score_intrasentence(load_model(tiny_models[kind], ModelOptions(progress=False)), intra)
    assert max(abs(one[k] - many[k]) for k in one) < 1e-6
    half = score_intrasentence(
        load_model(tiny_models[kind], ModelOptions(progress=False, dtype="bfloat16")), intra
    )
    assert max(abs(half[k] - many[k]) / many[k] for k in many) < 0.1


def test_kind_detection_and_errors(tiny_models, tmp_path):
    from transformers import AutoConfig

    kinds = {k: detect_kind(AutoConfig.from_pretrained(p)) for k, p in tiny_models.items()}
    assert kinds == {"masked": "masked", "causal": "causal", "seq2seq": "seq2seq"}
    with pytest.raises(BiasforgeError, match="cannot load model"):
        load_model(str(tmp_path / "missing-model"), ModelOptions(progress=False))
    with pytest.raises(BiasforgeError, match="unknown dtype"):
        load_model(tiny_models["masked"], ModelOptions(progress=False, dtype="int3"))
    with pytest.raises(BiasforgeError, match="unknown model kind"):
        load_model(tiny_models["masked"], ModelOptions(progress=False, kind="diffusion"))


def test_registry_is_the_one_kind_table(tiny_models):
    assert KINDS == ("masked", "causal", "seq2seq")
    for kind, path in tiny_models.items():
        lm = load_model(path, ModelOptions(progress=False), name=f"my-{kind}")
        assert isinstance(lm, REGISTRY[kind].adapter) and lm.kind == kind
        assert lm.name == f"my-{kind}" and lm.path == path
    # forcing a kind picks that row's auto-class and adapter: BERT's checkpoint as a masked LM
    forced = load_model(tiny_models["masked"], ModelOptions(progress=False, kind="masked"))
    assert type(forced).__name__ == "MaskedLM"


REFUSED = {
    Capability.READ_MASKED: lambda lm: lm.masked_logprobs([MaskedRead((2, 5, 3), ((1, 6),))]),
    Capability.SCORE_SENTENCE: lambda lm: lm.sentence_logprobs(
        [FilledSentence(Slot.at_marker("a BLANK"), "a b")]
    ),
    Capability.SCORE_CONTINUATION: lambda lm: lm.continuation_logprobs([("a", "b")]),
    Capability.READ_PAIRS: lambda lm: lm.pair_features([("a b", "c")]),
    Capability.TRAIN_PAIR_ENCODER: lambda lm: [lm.pair_encoder()],
    Capability.GENERATE: lambda lm: lm.generate(["a b"], 2),
}
ANSWERS = {  # what each kind answers (issue 24: the adapters answer generic questions only)
    "masked": {Capability.READ_MASKED, Capability.READ_PAIRS, Capability.TRAIN_PAIR_ENCODER},
    "causal": {
        Capability.SCORE_SENTENCE,
        Capability.SCORE_CONTINUATION,
        Capability.READ_PAIRS,
        Capability.TRAIN_PAIR_ENCODER,
        Capability.GENERATE,
    },
    "seq2seq": {
        Capability.SCORE_SENTENCE,
        Capability.SCORE_CONTINUATION,
        Capability.READ_PAIRS,
        Capability.TRAIN_PAIR_ENCODER,
        Capability.GENERATE,
    },
}


@pytest.mark.parametrize("kind", ["masked", "causal", "seq2seq"])
def test_adapters_answer_what_they_declare_and_refuse_the_rest(tiny_models, kind):
    lm = load_model(tiny_models[kind], ModelOptions(progress=False))
    assert {c for c in Capability if lm.supports(c)} == ANSWERS[kind]
    for capability, ask in REFUSED.items():
        if lm.supports(capability):
            assert len(ask(lm)) == 1 and lm.how(capability)
        else:
            with pytest.raises(BiasforgeError, match=f"{lm.name} is a {kind} model and cannot"):
                ask(lm)
    assert lm.pair_features([("a b", "c"), ("a", "b c")]).shape[0] == 2
    assert lm.parameter_count() > 0
    assert set(REFUSED) == set(Capability)  # every capability is exercised


def test_identity_names_the_weights(tiny_models):
    from biasforge.files import sha256_file

    lm = load_model(tiny_models["masked"], ModelOptions(progress=False, dtype="bfloat16"))
    identity = lm.identity
    assert identity.name == "tiny-bert" and identity.kind == "masked"
    assert identity.dtype == "bfloat16" and identity.quantisation == "none"
    assert identity.sha256_of == "model.safetensors"
    assert identity.sha256 == sha256_file(f"{tiny_models['masked']}/model.safetensors")
    assert identity.parameters == lm.parameter_count() and identity.label == "tiny-bert"


def test_gemma_alias_identity_without_loading():
    from biasforge.scoring import gemma

    fields = gemma.identity_fields("float32")
    assert fields["display"] == "Gemma 3 270M (Q4_K_M GGUF, dequantised to fp32)"
    assert fields["sha256_of"] == "gemma-3-270m-q4_k_m.gguf" and len(fields["sha256"]) == 64
    assert "run in bfloat16" in gemma.identity_fields("bfloat16")["display"]


def test_capability_declaration_must_match_the_methods():
    with pytest.raises(TypeError, match="READ_MASKED"):

        class Undeclared(LanguageModel):
            def masked_logprobs(self, requests):
                return []

    with pytest.raises(TypeError, match="SCORE_SENTENCE"):

        class Unanswered(LanguageModel):
            capabilities = {Capability.SCORE_SENTENCE: "claimed"}  # noqa: RUF012


def test_slot_marker_finds_every_occurrence_and_fills_them_all():
    slot = Slot.at_marker("x BLANK y BLANK.")
    assert slot.spans == ((2, 7), (10, 15))
    assert slot.filled("z") == "x z y z."
    with pytest.raises(ValueError, match="no slot"):
        Slot.at_marker("nothing here")
    with pytest.raises(ValueError, match="read at position 3 of a 3-token input"):
        MaskedRead((1, 2, 3), ((3, 7),))
    with pytest.raises(ValueError, match="one value per token"):
        MaskedRead((1, 2, 3), ((1, 7),), attention=(1, 1))


class WordTable(LanguageModel):
    """A masked model that is not ``transformers`` at all: a whitespace tokenizer and a fixed
    table of log-probabilities; the tasks only see the interface."""

    kind = "fake"
    capabilities = {Capability.READ_MASKED: "a fixed table"}  # noqa: RUF012
    mask_token, mask_id = "<m>", 0

    def __init__(self, table: dict[str, float]) -> None:
        super().__init__("fixed")
        self.table = table
        self.vocab = ["<m>", "<s>", "</s>", *sorted(table)]
        self.seen: list[MaskedRead] = []

    def encode(self, text):
        words = text.replace(".", " .").replace("<m>", " <m> ").split()
        return [self._id(w) for w in words]

    def encode_many(self, texts):
        return [self.encode(t) for t in texts]

    def _id(self, word):
        if word not in self.vocab:
            self.vocab.append(word)
        return self.vocab.index(word)

    def tokenize(self, texts, truncate=True):
        return [[1, *self.encode(t), 2] for t in texts]

    def decode(self, ids):
        return " ".join(self.vocab[i] for i in ids)

    def masked_logprobs(self, requests):
        self.seen += requests
        return [tuple(self.table[self.vocab[t]] for _, t in r.reads) for r in requests]

    def parameter_count(self):
        return 0

    def close(self):
        pass


def test_tasks_ask_the_interface_only():
    table = {"asian": np.log(0.5), "hispanic": np.log(0.25), "fox": np.log(0.125)}
    lm = WordTable(table)
    items = stereoset_items().head(1)
    scores = score_intrasentence(lm, items)
    assert scores == pytest.approx(
        {"intra0-stereotype": 0.5, "intra0-anti-stereotype": 0.25, "intra0-unrelated": 0.125}
    )
    # one masked text for the three one-word attributes, read three times at the slot
    masked = [lm.decode(r.ids) for r in lm.seen]
    assert set(masked) == {"<s> The chess player was <m> . </s>"}
    assert sorted(lm.vocab[t] for r in lm.seen for _, t in r.reads) == sorted(table)
    assert {p for r in lm.seen for p, _ in r.reads} == {5}


def test_a_model_folder_without_tokenizer_files_is_refused(tiny_models, tmp_path):
    """Issue 27 item 8: transformers builds a five-token tokenizer for such a folder and every
    word reads as unknown; the model is refused with one line (exit 2) before any scoring."""
    import shutil

    from tests.conftest import one_error_line, run_cli
    from tests.scoring.conftest import stereoset_release

    bare = tmp_path / "bare-bert"
    bare.mkdir()
    for name in ("config.json", "model.safetensors"):
        shutil.copy(f"{tiny_models['masked']}/{name}", bare / name)
    with pytest.raises(BiasforgeError, match="no vocabulary besides the special tokens"):
        load_model(str(bare), ModelOptions(progress=False))
    load_model(tiny_models["masked"], ModelOptions(progress=False))  # the full folder loads

    release = stereoset_release(stereoset_items(), tmp_path)
    result = run_cli(
        "score", "stereoset", "--dataset", release, "--model", bare, "--out", tmp_path / "out",
        "--no-progress", "--bootstrap", "0", check=False,
    )  # fmt: skip
    line = one_error_line(result)
    assert "bare-bert" in line and "tokenizer files" in line
    assert not (tmp_path / "out").exists()


def test_a_task_with_one_procedure_per_kind_names_every_question_it_could_ask():
    """CrowS-Pairs reads masked positions or scores continuations: a model answering neither
    is refused before any work, naming both questions and what answers them."""
    from biasforge.scoring.tasks.crowspairs import score_pairs

    class Bare(LanguageModel):
        kind = "bare"

        def parameter_count(self):
            return 0

        def close(self):
            pass

    with pytest.raises(
        BiasforgeError,
        match="bare is a bare model and cannot read log-probabilities at masked positions or "
        "score a continuation after a context: CrowS-Pairs needs a masked language model or a "
        "causal or encoder-decoder language model",
    ):
        score_pairs(Bare("bare"), stereoset_items().head(0))
