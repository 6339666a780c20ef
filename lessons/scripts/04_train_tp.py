"""Lesson 4's model trained with DTensor tensor parallelism, as a standalone script: what you would run on a node.

    torchrun --standalone --nproc-per-node=2 04_train_tp.py          # 2 ranks on this machine (gloo)
    torchrun --standalone --nproc-per-node=4 04_train_tp.py          # 4 GPUs of one node (NCCL; 4 heads: at most 4)

`distlab.TinyTransformer` (untied output layer) with every block split Megatron's way (Shoeybi et al. 2019, §3):
q/k/v and the MLP's first layer `ColwiseParallel` (whole heads per rank), the output projection and the MLP's second
layer `RowwiseParallel`; the output layer `ColwiseParallel` with its logits left sharded by vocabulary and the loss
computed by `loss_parallel()` without gathering them. Each rank also trains the same model in one process, and the
script fails unless every step's loss, and the final weights, agree within fp32 tolerance.
"""
from __future__ import annotations

import argparse

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, loss_parallel, parallelize_module

import distlab
from distlab.models import ModelConfig, TinyTransformer, random_batch

CONFIG = ModelConfig(vocab_size=64, dim=32, n_layers=2, n_heads=4, max_seq_len=64, tie_embeddings=False)
STEPS, BATCH, SEQ, LR = 8, 4, 32, 1e-2


def tensor_parallel(model: TinyTransformer, mesh) -> TinyTransformer:
    """Split every block by heads / MLP columns and rows, and the output layer by vocabulary, in place."""
    for block in model.blocks:
        parallelize_module(block, mesh, {
            "attn.q_proj": ColwiseParallel(), "attn.k_proj": ColwiseParallel(), "attn.v_proj": ColwiseParallel(),
            "attn.o_proj": RowwiseParallel(), "mlp.up": ColwiseParallel(), "mlp.down": RowwiseParallel()})
    parallelize_module(model.lm_head, mesh, ColwiseParallel(use_local_output=False))  # logits stay sharded
    return model


def train(model: TinyTransformer, parallel: bool, device: torch.device = torch.device("cpu")) -> list[float]:
    optimizer = torch.optim.AdamW(model.parameters(), lr=LR, foreach=False)
    losses = []
    for step in range(STEPS):
        tokens, targets = (t.to(device) for t in random_batch(CONFIG, BATCH, SEQ, seed=0))  # one batch, learnt by heart
        logits = model(tokens).flatten(0, 1)
        if parallel:
            with loss_parallel():
                loss = torch.nn.functional.cross_entropy(logits, targets.flatten())
                loss.backward()
            loss = loss.full_tensor()
        else:
            loss = torch.nn.functional.cross_entropy(logits, targets.flatten())
            loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    return losses


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n")[0]).parse_args()
    torch.set_num_threads(1)
    device = distlab.init_distributed()  # torchrun's RANK, WORLD_SIZE...; NCCL and GPU LOCAL_RANK, or gloo and CPU
    rank, t = dist.get_rank(), dist.get_world_size()
    if CONFIG.n_heads % t or CONFIG.vocab_size % t:
        raise SystemExit(f"{t} ranks must divide the {CONFIG.n_heads} heads and the vocabulary of {CONFIG.vocab_size}")
    mesh = init_device_mesh(device.type, (t,))
    with torch.device(device):
        parallel = tensor_parallel(TinyTransformer(CONFIG, seed=0), mesh)
    tp_losses = train(parallel, parallel=True, device=device)
    one_process = TinyTransformer(CONFIG, seed=0)  # the reference, on this rank's CPU
    reference = train(one_process, parallel=False)
    for step, (got, want) in enumerate(zip(tp_losses, reference)):
        assert abs(got - want) <= 1e-5 * max(1.0, abs(want)), f"rank {rank}, step {step}: TP {got}, one process {want}"
    assert tp_losses[-1] < tp_losses[0], "the loss should fall on a batch seen again and again"
    for name, p in parallel.named_parameters():  # Adam divides by sqrt(v): fp32 rounding of tiny gradients grows
        full = p.full_tensor() if hasattr(p, "full_tensor") else p  # a collective for DTensors: every rank calls it
        torch.testing.assert_close(full.detach().cpu(), one_process.get_parameter(name).detach(), rtol=1e-3,
                                   atol=1e-4, msg=lambda m: f"rank {rank}, {name}: {m}")
    if rank == 0:
        print(f"TP={t} ({device.type}): {STEPS} steps, loss {tp_losses[0]:.4f} -> {tp_losses[-1]:.4f}; every step's "
              "loss and the final weights equal one process's", flush=True)
    distlab.finish()  # not just destroy_process_group(): why, in distlab/shutdown.py


if __name__ == "__main__":
    main()
