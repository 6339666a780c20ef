"""Benchmark 03: saving and loading a 100 MB training state three ways, side by side in one run.

    python benchmarks/bench_03.py            # the full run: 100 MB, 5 rounds (about 30 s on 2 cores)
    python benchmarks/bench_03.py --quick    # smoke run, seconds: 4 MB, 1 round
    python benchmarks/bench_03.py --notebook exercises/03_fault_tolerance/fault_tolerance.ipynb   # your own save

The state: 25 float32 tensors of 1,048,576 elements (100 MiB in all; --quick: 1 tensor of 4 MiB). Contenders:

- `torch.save`: `torch.save(state, path)` and `torch.load(path, weights_only=True)` in this process. Not crash-safe
  (it truncates `path`, then writes) and not durable (no fsync): the baseline.
- atomic: the course's `save_checkpoint` / `load_checkpoint` (the cells of that name in the solution notebook, exec'd
  by `distlab.notebook_source.load_solution`): a temporary file beside `path`, `torch.save`, flush, fsync,
  `os.replace`, fsync of the folder; loading with `weights_only=True`.
- DCP, 2 ranks: `torch.distributed.checkpoint.save` / `.load` from 2 ranks of `distlab.launch` (gloo), each holding
  half of every tensor (a `DTensor` sharded by rows), so each rank writes and reads 50 MiB, in parallel. Time is the
  slowest rank's, between two barriers (the launch itself is not timed).

Each round saves with each contender in turn, then loads with each (into a fresh folder per round and contender), and
checks that what was loaded equals what was saved. The figures are medians over rounds and ratios to `torch.save`.
Loads read from the page cache (the file was just written): they measure deserialization, not the disk.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import torch
import torch.distributed as dist

import distlab

REPO = Path(__file__).resolve().parents[1]
NOTEBOOK = REPO / "solutions" / "03_fault_tolerance" / "fault_tolerance.ipynb"
MiB = 2**20
FULL = {"tensors": 25, "numel": MiB, "rounds": 5}
QUICK = {"tensors": 1, "numel": MiB, "rounds": 1}
CONTENDERS = ["torch.save", "atomic (save_checkpoint)", "DCP, 2 ranks"]


def make_state(tensors: int, numel: int) -> dict:
    g = torch.Generator().manual_seed(0)
    return {f"layer{i}.weight": torch.randn(numel, generator=g) for i in range(tensors)}


def load_atomic(notebook: Path):
    """The notebook's save_checkpoint and load_checkpoint, exec'd from their cells."""
    from distlab.notebook_source import load_solution

    names = {"os": os, "tempfile": tempfile, "contextlib": contextlib}
    return (load_solution(notebook, "save_checkpoint", names)["save_checkpoint"],
            load_solution(notebook, "load_checkpoint", names)["load_checkpoint"])


def timed(fn, *args):
    start = time.perf_counter()
    value = fn(*args)
    return time.perf_counter() - start, value


def check_equal(loaded: dict, state: dict, who: str) -> None:
    if set(loaded) != set(state) or not all(torch.equal(loaded[k], state[k]) for k in state):
        raise AssertionError(f"{who}: what was loaded is not what was saved")


def dcp_rank(folder: str, tensors: int, numel: int) -> tuple[float, float]:
    """On each of the ranks: save this rank's rows of every tensor with DCP, load them back; (save s, load s)."""
    import torch.distributed.checkpoint as dcp
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import DTensor, Shard

    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    full = make_state(tensors, numel)
    mine = {k: DTensor.from_local(v.chunk(dist.get_world_size())[dist.get_rank()].clone(), mesh, [Shard(0)])
            for k, v in full.items()}
    dist.barrier()
    save_s, _ = timed(lambda: dcp.save(mine, checkpoint_id=folder))
    dist.barrier()
    empty = {k: DTensor.from_local(torch.zeros_like(v.to_local()), mesh, [Shard(0)]) for k, v in mine.items()}
    dist.barrier()
    load_s, _ = timed(lambda: dcp.load(empty, checkpoint_id=folder))
    dist.barrier()
    if not all(torch.equal(empty[k].to_local(), mine[k].to_local()) for k in mine):
        raise AssertionError("DCP: what was loaded is not what was saved")
    return save_s, load_s


def one_round(root: str, state: dict, config: dict, save_checkpoint, load_checkpoint) -> dict[str, tuple]:
    """{contender: (save s, load s)} for one round, each contender in a fresh folder."""
    times = {}
    folders = {name: tempfile.mkdtemp(dir=root) for name in CONTENDERS}
    path = os.path.join(folders["torch.save"], "state.pt")
    save_s, _ = timed(torch.save, state, path)
    load_s, loaded = timed(lambda p: torch.load(p, weights_only=True), path)
    check_equal(loaded, state, "torch.save")
    times["torch.save"] = (save_s, load_s)

    path = os.path.join(folders["atomic (save_checkpoint)"], "state.pt")
    save_s, _ = timed(save_checkpoint, path, state)
    load_s, loaded = timed(load_checkpoint, path)
    check_equal(loaded, state, "atomic")
    times["atomic (save_checkpoint)"] = (save_s, load_s)

    per_rank = distlab.launch(dcp_rank, 2, args=(folders["DCP, 2 ranks"], config["tensors"], config["numel"]),
                              timeout=300, backend="gloo", output="hide")
    times["DCP, 2 ranks"] = (max(s for s, _ in per_rank), max(s for _, s in per_rank))
    for folder in folders.values():
        shutil.rmtree(folder, ignore_errors=True)
    return times


def table(rounds: list[dict[str, tuple]], nbytes: int) -> str:
    median = {name: [statistics.median(r[name][i] for r in rounds) for i in (0, 1)] for name in CONTENDERS}
    base = median["torch.save"]
    rows = ["| contender | save median s | load median s | save MiB/s | save / torch.save | load / torch.save |",
            "|---|---:|---:|---:|---:|---:|"]
    for name in CONTENDERS:
        save_s, load_s = median[name]
        rows.append(f"| {name} | {save_s:.3f} | {load_s:.3f} | {nbytes / MiB / save_s:.0f} | "
                    f"{save_s / base[0]:.2f} | {load_s / base[1]:.2f} |")
    return "\n".join(rows)


def main() -> None:
    start = time.perf_counter()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="seconds: one 4 MiB tensor, one round (the smoke test)")
    parser.add_argument("--notebook", type=Path, default=NOTEBOOK,
                        help="the notebook whose save_checkpoint / load_checkpoint cells to time")
    parser.add_argument("--dir", default=None, help="where to write (default: a temporary folder, removed after)")
    args = parser.parse_args()
    os.environ["OMP_NUM_THREADS"] = "1"
    torch.set_num_threads(1)
    config = QUICK if args.quick else FULL
    save_checkpoint, load_checkpoint = load_atomic(args.notebook)
    state = make_state(config["tensors"], config["numel"])
    nbytes = sum(t.numel() * t.element_size() for t in state.values())
    root = tempfile.mkdtemp(prefix="bench03-", dir=args.dir)
    try:
        rounds = [one_round(root, state, config, save_checkpoint, load_checkpoint) for _ in range(config["rounds"])]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"bench_03 {time.strftime('%Y-%m-%d %H:%M')}: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, "
          f"torch {torch.__version__}, {'--quick' if args.quick else 'full'}: {nbytes / MiB:.0f} MiB state "
          f"({config['tensors']} tensors), {config['rounds']} round(s), folder on {root.split(os.sep)[1] or '/'}")
    print("\nSave and load of one training state:\n\n" + table(rounds, nbytes))
    print(f"\nbenchmark ran {time.perf_counter() - start:.0f} s; load at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
