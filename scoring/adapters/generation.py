"""Greedy answers from a ``transformers`` model's own ``generate``, for tasks that read what a
model says rather than how likely it finds each option (a question-answering benchmark read as
its authors read a generative model's answers).

One prompt at a time, without padding, so that an answer does not depend on which prompts share
its batch; a decoder-only model's prompt is cut from the left to leave room for the answer (as
lm-evaluation-harness cuts it), an encoder's from the right at its maximum length.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from biasforge.scoring.interface import Capability

GREEDY = "greedy decoding"


class Generating:
    """Mixin of the transformers adapters that can write: ``generate`` and its capability."""

    decoder_only: ClassVar[bool] = True
    model: Any
    tokenizer: Any
    max_length: int
    device: Any
    pad_id: int
    name: str
    options: Any

    def generate(self, prompts: Sequence[str], max_new_tokens: int) -> list[str]:
        """Per prompt, the greedy continuation (see the module docstring)."""
        import torch

        answers = []
        with torch.inference_mode():
            for prompt in self._shown(prompts):
                ids = torch.tensor([self._prompt_ids(prompt, max_new_tokens)], device=self.device)
                out = self.model.generate(
                    input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=False,
                    max_new_tokens=max_new_tokens, pad_token_id=self.pad_id,
                )  # fmt: skip
                new = out[0, ids.shape[1] :] if self.decoder_only else out[0]
                text = self.tokenizer.decode(new.tolist(), skip_special_tokens=True)
                answers.append(text)
        return answers

    def _prompt_ids(self, prompt: str, max_new_tokens: int) -> list[int]:
        if not self.decoder_only:
            return list(self.tokenizer(prompt, truncation=True, max_length=self.max_length)[
                "input_ids"])  # fmt: skip
        ids = list(self.tokenizer(prompt)["input_ids"])
        room = max(1, self.max_length - max_new_tokens)
        return ids[-room:]

    def _shown(self, prompts: Sequence[str]) -> Sequence[str]:
        if not self.options.progress:
            return prompts
        from biasforge.progress import progress_bar

        return progress_bar(prompts, desc=f"{self.name} answers", unit="prompt", leave=False)


GENERATES = {Capability.GENERATE: GREEDY}
