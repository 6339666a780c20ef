"""Benchmark 01: what a launch costs, and the course's ring all-reduce next to gloo's.

    python benchmarks/bench_01.py            # the full run: two markdown tables (~6 min on 2 cores)
    python benchmarks/bench_01.py --quick    # smoke run, seconds: warm launches and tiny tensors only

Part 1, time to results: 4 ranks run `all_reduce_then_rank` (one all_reduce, return the rank) and the results reach
the caller. Contenders: `distlab.launch` warm (repeated in this process, forkserver running); `distlab.launch` cold
(a fresh `python` that imports distlab and launches once); `torch.multiprocessing.spawn` of a module-level function,
as the call alone (what each repeated call costs) and as a whole fresh process; `torchrun --standalone
--nproc-per-node 4` running the same function as a script. A fresh process is timed from its start to its exit.
Ratios are against warm `distlab.launch`.

Part 2, bus bandwidth of all-reduce at 4 ranks: the solution notebook's `ring_all_reduce` (grade_id
`ring_all_reduce`, exec'd from the cell and sent to the ranks by value) against gloo's `dist.all_reduce`, float32,
nccl-tests' definition: busbw = algbw * 2(N-1)/N, algbw = bytes / time, time = the slowest rank's after a barrier,
median over repeats after a warm-up.

Fairness: every rank of every contender uses gloo and one intra-op thread (OMP_NUM_THREADS=1 for every subprocess,
torch.set_num_threads(1) in every rank). Fresh-process contenders run in rounds, one of each per round, and ring and
gloo alternate repeat by repeat, so that a change in the machine's load hits all of them alike.
"""
from __future__ import annotations

import argparse
import inspect
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
import torch.distributed as dist

import distlab
from distlab.launching.process_tree import kill_tree
from distlab.bandwidth import bus_bandwidth, time_all_reduces

REPO = Path(__file__).resolve().parents[1]
NOTEBOOK = REPO / "solutions" / "01_data_parallelism" / "data_parallelism.ipynb"
MiB = 2**20
FULL = {"rounds": 5, "warm_per_round": 4, "fresh": True, "sizes": (1 * MiB, 16 * MiB), "repeats": 30, "warmup": 5}
QUICK = {"rounds": 1, "warm_per_round": 3, "fresh": False, "sizes": (4096, 64 * 1024), "repeats": 3, "warmup": 1}
WARM = "distlab.launch, warm (repeated in one process)"
SPAWN_CALL = "mp.spawn call, in a process that already imported torch"
ROWS = [WARM, "distlab.launch, cold (fresh process)", SPAWN_CALL, "mp.spawn, fresh process", "torchrun subprocess"]


def all_reduce_then_rank():
    t = torch.ones(1)
    dist.all_reduce(t)  # one collective: every rank must really have joined the group
    return dist.get_rank()


# --- part 1: time to results (the fresh-process contenders are scripts, the rank function pasted into each) --

DISTLAB_SCRIPT = """
import sys
import torch, torch.distributed as dist, distlab
{fn}
if __name__ == "__main__":
    print("RESULTS", distlab.launch(all_reduce_then_rank, int(sys.argv[1]), backend="gloo", threads=1, output="hide"))
"""

SPAWN_SCRIPT = """
import socket, sys, time
import torch, torch.distributed as dist, torch.multiprocessing as mp
{fn}
def rank_main(rank, world_size, port, results):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{{port}}", rank=rank, world_size=world_size)
    results.put(all_reduce_then_rank())
    dist.destroy_process_group()

def spawn_once(world_size):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    results = mp.get_context("spawn").SimpleQueue()  # mp.spawn returns nothing: results come back through this
    mp.spawn(rank_main, args=(world_size, port, results), nprocs=world_size)
    return sorted(results.get() for _ in range(world_size))

if __name__ == "__main__":
    start = time.perf_counter()  # the call alone: what each further call would cost in this process
    print("RESULTS", spawn_once(int(sys.argv[1])), "SECONDS", time.perf_counter() - start)
"""

TORCHRUN_SCRIPT = """
import sys
import torch, torch.distributed as dist
{fn}
if __name__ == "__main__":
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    print(f"RESULTS [{{all_reduce_then_rank()}}]", flush=True)  # torchrun shows it as "[default<rank>]:RESULTS ..."
    dist.destroy_process_group()
"""


def write_scripts(folder: str) -> dict[str, str]:
    fn = inspect.getsource(all_reduce_then_rank)
    paths = {}
    for name, text in (("distlab", DISTLAB_SCRIPT), ("spawn", SPAWN_SCRIPT), ("torchrun", TORCHRUN_SCRIPT)):
        paths[name] = os.path.join(folder, f"{name}_all_reduce.py")
        Path(paths[name]).write_text(text.format(fn=fn))
    return paths


def run_fresh(command: list[str], timeout: float = 300.0) -> tuple[float, str]:
    """Seconds from the process's start to its exit, and its output; afterwards nothing it started is left."""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=timeout)
        seconds = time.perf_counter() - start
    finally:  # also on Ctrl-C and on a deadline: its group and every descendant (torchrun's ranks have sessions of
        kill_tree(proc)  # their own)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited with code {proc.returncode}:\n{output[-3000:]}")
    return seconds, output


def checked_results(output: str, world_size: int) -> list[float]:
    """The SECONDS a script printed, after checking that every rank's result reached the caller."""
    lines = re.findall(r"^(?:\[default\d+\]:)?RESULTS \[([\d, ]*)\]", output, re.M)  # torchrun's prefix, if any
    results = sorted(r for line in lines for r in line.split(", "))
    if results != sorted(str(r) for r in range(world_size)):
        raise RuntimeError(f"wrong results from a contender:\n{output[-3000:]}")
    return [float(s) for s in re.findall(r"SECONDS ([\d.]+)", output)]


def fresh_commands(scripts: dict[str, str], world_size: int) -> dict[str, list[str]]:
    return {"distlab.launch, cold (fresh process)": [sys.executable, scripts["distlab"], str(world_size)],
            "mp.spawn, fresh process": [sys.executable, scripts["spawn"], str(world_size)],
            "torchrun subprocess": distlab.torchrun_command(scripts["torchrun"], world_size)}


def time_fresh_round(commands: dict[str, list[str]], world_size: int) -> dict[str, list[float]]:
    """Wall seconds of one run of each fresh-process contender, and of the `mp.spawn` call alone."""
    seconds = {}
    for name, command in commands.items():
        elapsed, output = run_fresh(command)
        seconds[name] = [elapsed]
        spawn_call = checked_results(output, world_size)  # only the spawn script prints SECONDS
        if spawn_call:
            seconds[SPAWN_CALL] = spawn_call
    return seconds


def time_warm_launches(world_size: int, repeats: int) -> list[float]:
    """Seconds of each of `repeats` `distlab.launch` calls in this process (its forkserver already running)."""
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        results = distlab.launch(all_reduce_then_rank, world_size, backend="gloo", threads=1, output="hide")
        seconds.append(time.perf_counter() - start)
        assert results == list(range(world_size)), results
    return seconds


def bench_launch(world_size: int, config: dict) -> dict[str, list[float]]:
    """Seconds of each contender, in rounds: some warm launches, then one run of each fresh-process contender."""
    distlab.launch(all_reduce_then_rank, world_size, backend="gloo", output="hide")  # starts the forkserver: untimed
    seconds = {name: [] for name in ROWS}
    with tempfile.TemporaryDirectory(prefix="bench01-") as folder:
        commands = fresh_commands(write_scripts(folder), world_size) if config["fresh"] else {}  # not with --quick
        for _ in range(config["rounds"]):
            seconds[WARM] += time_warm_launches(world_size, config["warm_per_round"])
            for name, times in time_fresh_round(commands, world_size).items():
                seconds[name] += times
    return {name: times for name, times in seconds.items() if times}


def launch_table(seconds: dict[str, list[float]]) -> str:
    warm = seconds[WARM]
    rows = ["| contender | runs | median s | min s | median / warm median | min / warm min |",
            "|---|---:|---:|---:|---:|---:|"]
    for name, times in seconds.items():
        median = statistics.median(times)
        rows.append(f"| {name} | {len(times)} | {median:.3f} | {min(times):.3f} | "
                    f"{median / statistics.median(warm):.1f} | {min(times) / min(warm):.1f} |")
    return "\n".join(rows)


# --- part 2: bus bandwidth of the ring all-reduce and of gloo's -------------------------------------------------

def load_ring(notebook: Path):
    """The notebook's `ring_all_reduce`, exec'd from its cell into a module-less namespace: sent to ranks by value."""
    from distlab.notebook_source import load_solution

    return load_solution(notebook, "ring_all_reduce")["ring_all_reduce"]


def check_ring(ring, world_size: int) -> None:
    """Fail in seconds rather than after part 1's minutes if the ring does not sum (e.g. an unfinished exercise)."""
    distlab.launch(time_all_reduces, world_size, args=({"ring": ring}, 1001, 1, 0), backend="gloo", output="hide")


def bench_busbw(ring, world_size: int, config: dict) -> dict[int, dict[str, list[float]]]:
    """Per size in bytes, per implementation, the slowest rank's seconds of each repeat."""
    impls = {"ring": ring, "gloo": dist.all_reduce}
    times = {}
    for nbytes in config["sizes"]:
        per_rank = distlab.launch(time_all_reduces, world_size, args=(impls, nbytes // 4, config["repeats"],
                                  config["warmup"]), timeout=600, backend="gloo", threads=1, output="hide")
        times[nbytes] = {name: [max(ts) for ts in zip(*(r[name] for r in per_rank))] for name in impls}
    return times


def busbw_table(times: dict[int, dict[str, list[float]]], world_size: int) -> str:
    rows = ["| size | ring busbw GB/s | gloo busbw GB/s | ring / gloo | ring median ms | gloo median ms |",
            "|---|---:|---:|---:|---:|---:|"]
    for nbytes, by_impl in times.items():
        median = {name: statistics.median(ts) for name, ts in by_impl.items()}
        bw = {name: float(bus_bandwidth(nbytes, t, world_size)) / 1e9 for name, t in median.items()}
        size = f"{nbytes // MiB} MiB" if nbytes >= MiB else f"{nbytes // 1024} KiB"
        rows.append(f"| {size} | {bw['ring']:.3g} | {bw['gloo']:.3g} | {bw['ring'] / bw['gloo']:.2f} | "
                    f"{median['ring'] * 1e3:.2f} | {median['gloo'] * 1e3:.2f} |")
    return "\n".join(rows)


# --- the run ------------------------------------------------------------------------------------------------------

def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="a few seconds: warm launches and tiny tensors only (the smoke test)")
    parser.add_argument("--world-size", type=int, default=4)
    parser.add_argument("--notebook", type=Path, default=NOTEBOOK,
                        help="the notebook whose `ring_all_reduce` cell to time (yours, to compare with gloo)")
    return parser.parse_args()


def header(args) -> str:
    return (f"bench_01 {time.strftime('%Y-%m-%d %H:%M')}: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, "
            f"torch {torch.__version__}, Python {sys.version.split()[0]}, {args.world_size} ranks, "
            f"{'--quick' if args.quick else 'full'}, 1 thread per rank")


def main() -> None:
    start = time.perf_counter()
    args = parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # unwind, so that every process we started is killed
    os.environ["OMP_NUM_THREADS"] = "1"
    torch.set_num_threads(1)
    config = QUICK if args.quick else FULL
    ring = load_ring(args.notebook)
    check_ring(ring, args.world_size)
    print(header(args), flush=True)
    print("\nTime to results, one all_reduce on each rank:\n\n" + launch_table(bench_launch(args.world_size, config)),
          flush=True)
    print("\nAll-reduce bus bandwidth (nccl-tests definition), float32:\n\n"
          + busbw_table(bench_busbw(ring, args.world_size, config), args.world_size))
    print(f"\nbenchmark ran {time.perf_counter() - start:.0f} s; load at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
