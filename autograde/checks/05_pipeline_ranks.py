"""Rank-side procedures of exercise set 05: run in the sandbox, in the namespace of the student's notebook. They hold
no expected values: `rank_pipeline_step` runs a schedule (plain data, made by the student's `pipeline_schedule` and
already checked by the grader's own simulator) on a real pipeline of ranks and returns the loss and gradients, which
autograde/checks/05_pipeline.py compares with one process. The grader imports this file for the model and its parts.
"""
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

from distlab.models import ModelConfig, TinyTransformer, random_batch

GRADER_CONFIG = ModelConfig(vocab_size=32, dim=16, n_layers=8, n_heads=2, max_seq_len=8, tie_embeddings=False)
GRADER_BATCH, GRADER_SEQ = 8, 8


class GraderPart(nn.Module):
    """Model part k of n: the embeddings (k = 0), layers k*L/n ... (k+1)*L/n - 1, the head (k = n - 1)."""

    def __init__(self, model, k, n):
        super().__init__()
        layers, self.first, self.last = model.config.n_layers // n, k == 0, k == n - 1
        self.embed = nn.ModuleList([model.tok_emb, model.pos_emb]) if self.first else None
        self.blocks = model.blocks[k * layers:(k + 1) * layers]
        self.head = nn.Sequential(model.ln_f, model.lm_head) if self.last else None

    def forward(self, x):
        if self.first:
            x = self.embed[0](x) + self.embed[1](torch.arange(x.shape[-1]))
        for block in self.blocks:
            x = block(x)
        return self.head(x) if self.last else x


def grader_batch(num_microbatches):
    tokens, targets = random_batch(GRADER_CONFIG, GRADER_BATCH, GRADER_SEQ, seed=1)
    return tokens.chunk(num_microbatches), targets.chunk(num_microbatches)


def rank_pipeline_step(schedule, num_microbatches):
    """Run schedule[rank] on this rank's parts (chunk c = part c*p + rank) -> {"loss", "grads" per chunk, "sends"}."""
    p, rank = dist.get_world_size(), dist.get_rank()
    v = 1 + max(op[2] for ops in schedule for op in ops)
    model, last = TinyTransformer(GRADER_CONFIG, seed=0), v * p - 1
    parts = [GraderPart(model, c * p + rank, v * p) for c in range(v)]
    tokens, targets = grader_batch(num_microbatches)
    stash, sends, loss = {}, [], 0.0
    tag = lambda op, mb, k: 2 * (1000 * mb + k) + (op == "B")  # noqa: E731
    for op, mb, chunk in (tuple(op) for op in schedule[rank]):
        k = chunk * p + rank
        received = None
        if (op == "F" and k > 0) or (op == "B" and k < last):
            received = torch.empty(*tokens[mb].shape, GRADER_CONFIG.dim)
            dist.recv(received, src=(k - 1 if op == "F" else k + 1) % p, tag=tag(op, mb, k))
        if op == "F":
            x = tokens[mb] if k == 0 else received.requires_grad_()
            y = parts[chunk](x)
            if k == last:
                y = F.cross_entropy(y.flatten(0, 1), targets[mb].flatten()) / num_microbatches
                loss += y.item()
            else:
                sends.append(dist.isend(y.detach(), dst=(k + 1) % p, tag=tag("F", mb, k + 1)))
            stash[mb, chunk] = (x, y)
        else:
            x, y = stash.pop((mb, chunk))
            y.backward(received)
            if k > 0:
                sends.append(dist.isend(x.grad, dst=(k - 1) % p, tag=tag("B", mb, k - 1)))
    for work in sends:
        work.wait()
    return {"loss": loss, "grads": [[w.grad for w in part.parameters()] for part in parts], "sends": len(sends)}
