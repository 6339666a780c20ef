"""A pipeline stage's consecutive layers of a `TinyTransformer`: `ModelPart` (lesson 5 derives it)."""
from __future__ import annotations

import torch
import torch.nn as nn

from .transformer import TinyTransformer


class ModelPart(nn.Module):
    """Model part k of n of a `TinyTransformer`, for a pipeline: the embeddings if k = 0, layers k*L/n ...
    (k+1)*L/n - 1, and the final LayerNorm and output layer if k = n - 1 (the model's own modules, shared, not copied:
    running parts 0 ... n-1 in turn is the model, bit for bit). forward: tokens [b, s] (part 0) or activations
    [b, s, dim] -> activations, or logits (the last part).

    Lesson 5 derives it (its `Part`, checked equal to this one in tests/test_models.py); its script and exercise set
    05's grader cut the model with it. Consecutive parts, as GPipe (Huang et al. 2019) and Megatron-LM's pipeline
    (Narayanan et al. 2021, §2.2) cut a model.
    """

    def __init__(self, model: TinyTransformer, k: int, n: int):
        super().__init__()
        layers = model.config.n_layers // n
        self.first, self.last = k == 0, k == n - 1
        self.tok_emb, self.pos_emb = (model.tok_emb, model.pos_emb) if self.first else (None, None)
        self.blocks = model.blocks[k * layers:(k + 1) * layers]
        self.ln_f, self.lm_head = (model.ln_f, model.lm_head) if self.last else (None, None)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.first:
            x = self.tok_emb(x) + self.pos_emb(torch.arange(x.shape[-1], device=x.device))
        for block in self.blocks:
            x = block(x)
        return self.lm_head(self.ln_f(x)) if self.last else x
