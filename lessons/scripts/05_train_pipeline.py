"""Lesson 5's model trained with a pipeline of `torch.distributed.pipelining`, as a standalone script.

    torchrun --standalone --nproc-per-node=4 05_train_pipeline.py                          # 1F1B on 4 ranks (gloo)
    torchrun --standalone --nproc-per-node=4 05_train_pipeline.py --schedule interleaved   # 2 chunks per rank
    torchrun --nnodes=4 --nproc-per-node=1 ... 05_train_pipeline.py                         # one stage per node

`distlab.TinyTransformer` (8 layers, untied output layer) cut into `chunks * world_size` consecutive parts
(`distlab.models.ModelPart`, the lesson's `Part`): part 0 has the embeddings, the last part the final LayerNorm and the
output layer, and rank r holds parts r, r + world_size, ...
Each part is a `PipelineStage`; `ScheduleGPipe`, `Schedule1F1B` or `ScheduleInterleaved1F1B` (Huang et al. 2019;
Narayanan et al. 2021, §2.2) runs each step in microbatches, and AdamW updates each rank's parts. Every rank also
trains the whole model in one process, and the script fails unless every step's loss (sent from the last stage to
every rank) and the final weights of its parts agree with that one process within fp32 tolerance.
"""
from __future__ import annotations

import argparse

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleGPipe, ScheduleInterleaved1F1B

import distlab
from distlab.models import ModelConfig, ModelPart, TinyTransformer, random_batch

CONFIG = ModelConfig(vocab_size=64, dim=32, n_layers=8, n_heads=4, max_seq_len=32, tie_embeddings=False)
STEPS, BATCH, SEQ, MICROBATCHES, LR = 6, 16, 32, 8, 1e-2
SCHEDULES = {"gpipe": ScheduleGPipe, "1f1b": Schedule1F1B, "interleaved": ScheduleInterleaved1F1B}


def loss_fn(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten())


def train_pipeline(kind: str, device: torch.device) -> tuple[list[float], list[ModelPart]]:
    """STEPS steps of the pipeline; every rank returns the losses (broadcast from the last stage) and its parts."""
    p, rank = dist.get_world_size(), dist.get_rank()
    chunks = 2 if kind == "interleaved" else 1
    with torch.device(device):
        model = TinyTransformer(CONFIG, seed=0)
    parts = [ModelPart(model, c * p + rank, chunks * p) for c in range(chunks)]
    stages = [PipelineStage(part, c * p + rank, chunks * p, device) for c, part in enumerate(parts)]
    schedule = SCHEDULES[kind](stages if chunks > 1 else stages[0], n_microbatches=MICROBATCHES, loss_fn=loss_fn)
    optimizer = torch.optim.AdamW([w for part in parts for w in part.parameters()], lr=LR, foreach=False)
    losses = []
    for step in range(STEPS):
        tokens, targets = (t.to(device) for t in random_batch(CONFIG, BATCH, SEQ, seed=0))  # one batch, again
        microbatch_losses = []
        schedule.step(tokens if rank == 0 else None, target=targets if rank == p - 1 else None,
                      losses=microbatch_losses)
        optimizer.step()
        optimizer.zero_grad()
        loss = torch.stack(microbatch_losses).mean() if rank == p - 1 else torch.zeros((), device=device)
        dist.broadcast(loss, src=p - 1)
        losses.append(loss.item())
    return losses, parts


def train_one_process() -> tuple[list[float], TinyTransformer]:
    model = TinyTransformer(CONFIG, seed=0)
    optimizer = torch.optim.AdamW(model.parameters(), lr=LR, foreach=False)
    losses = []
    for step in range(STEPS):
        loss = model.loss(*random_batch(CONFIG, BATCH, SEQ, seed=0))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    return losses, model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--schedule", choices=sorted(SCHEDULES), default="1f1b")
    kind = parser.parse_args().schedule
    torch.set_num_threads(1)
    device = distlab.init_distributed()  # torchrun's RANK, WORLD_SIZE...; NCCL and GPU LOCAL_RANK, or gloo and CPU
    rank, p = dist.get_rank(), dist.get_world_size()
    chunks = 2 if kind == "interleaved" else 1
    if CONFIG.n_layers % (chunks * p) or MICROBATCHES % p:
        raise SystemExit(f"{chunks * p} parts must divide the {CONFIG.n_layers} layers, and {p} ranks the "
                         f"{MICROBATCHES} microbatches")
    pipeline_losses, parts = train_pipeline(kind, device)
    reference_losses, reference = train_one_process()  # the reference, on this rank's CPU
    for step, (got, want) in enumerate(zip(pipeline_losses, reference_losses)):
        assert abs(got - want) <= 1e-5 * max(1.0, abs(want)), f"rank {rank}, step {step}: {got}, one process {want}"
    assert pipeline_losses[-1] < pipeline_losses[0], "the loss should fall"
    for c, part in enumerate(parts):  # Adam divides by sqrt(v): fp32 rounding of tiny gradients grows
        want = ModelPart(reference, c * p + rank, chunks * p)
        for (name, w), v in zip(part.named_parameters(), want.parameters()):
            torch.testing.assert_close(w.detach().cpu(), v.detach(), rtol=1e-3, atol=1e-4,
                                       msg=lambda m: f"rank {rank}, part {c * p + rank}, {name}: {m}")
    print(f"rank {rank}: parts {[c * p + rank for c in range(chunks)]} equal one process's after {STEPS} steps",
          flush=True)
    if rank == 0:
        print(f"{kind}, {p} ranks, {MICROBATCHES} microbatches ({device.type}): loss {pipeline_losses[0]:.4f} -> "
              f"{pipeline_losses[-1]:.4f}; every step's loss equals one process's", flush=True)
    distlab.finish()  # not just destroy_process_group(): why, in distlab/shutdown.py


if __name__ == "__main__":
    main()
