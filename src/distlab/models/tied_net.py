"""`TiedNet`: the exercises' smallest model with a tied weight and a frozen layer (sets 01 and 02)."""
from __future__ import annotations

import torch
import torch.nn as nn


class TiedNet(nn.Module):
    """A tiny language model with the two things a gradient synchroniser or a sharded optimizer must get right: the
    output layer reuses the embedding's weight (one parameter, reached twice), and the layer `frozen` has no gradient
    unless `frozen=False`. embed [vocab, dim] -> hidden [dim -> hidden] -> tanh -> frozen [hidden -> dim] -> out.

    Exercise sets 01 (`hidden=6`: every layer dim wide) and 02 (`hidden=7`: 42 + 7 elements, nothing divides evenly
    over the ranks) train it against one process. It seeds torch's global RNG with 0 and draws its weights from it,
    so every rank builds the same net.
    """

    def __init__(self, vocab: int = 11, dim: int = 6, hidden: int = 6, frozen: bool = True):
        super().__init__()
        torch.manual_seed(0)
        self.embed = nn.Embedding(vocab, dim)
        self.hidden = nn.Linear(dim, hidden)
        self.frozen = nn.Linear(hidden, dim)
        self.frozen.requires_grad_(not frozen)
        self.out = nn.Linear(dim, vocab, bias=False)
        self.out.weight = self.embed.weight  # tied

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.out(self.frozen(torch.tanh(self.hidden(self.embed(tokens)))))
