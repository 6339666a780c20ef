"""Soak: every script in lessons/scripts/ under torchrun, many times, counting runs that did not exit 0.

    python benchmarks/bench_exit.py                          # 50 runs of each script at 2 ranks, 20 at 4 (~1 h)
    python benchmarks/bench_exit.py --runs 10 --four 0 --scripts 01_train_ddp 03_train_resume 06_train_amp

A script that finished its work can still die at exit: with torch 2.13 and gloo, a DDP script that ends with
`dist.destroy_process_group()` alone aborts in about 1 run of 10 ("terminate called without an active exception",
SIGABRT; why: src/distlab/shutdown.py). The `control_*` rows are a minimal DDP script (20 backward passes of a
Linear(32, 32)) that joins and ends as the scripts did (`init_process_group`, `destroy_process_group`), as they do
now (`distlab.init_distributed`, `distlab.finish`), and with `finish()` after a plain `init_process_group`: the table
shows that the soak sees the abort, and that `finish()` removes it either way. A row's "aborts" counts the
runs whose output shows SIGABRT or "terminate called"; "failed" every run that did not exit 0 (aborts included).
Exits 1 with the table's last line when any course script failed (the destroy-only control is expected to).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from distlab.launching.process_tree import kill_processes_in, kill_tree

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "lessons" / "scripts"
RUN_TIMEOUT_S = 180.0  # one torchrun of one script; they take 3-8 s on 2 idle cores

CONTROL = """
import torch, torch.distributed as dist, torch.nn as nn
import distlab
def train():
    model = nn.parallel.DistributedDataParallel(nn.Linear(32, 32))
    for _ in range(20):
        model(torch.randn(8, 32)).sum().backward()
{start}
torch.set_num_threads(1)
train()
{ending}
"""
CONTROLS = {  # name: (how it joins, how it ends)
    "control_destroy_only": ('dist.init_process_group("gloo")', "dist.destroy_process_group()"),  # the old scripts
    "control_finish": ("distlab.init_distributed()", "distlab.finish()"),  # the scripts now
    "control_plain_init_finish": ('dist.init_process_group("gloo")', "distlab.finish()"),  # finish() ends it itself
}


def script_args(name: str, folder: Path) -> list[str]:
    """The arguments a script needs to run in `folder` (each run gets a fresh one)."""
    needs = {"02_train_fsdp2": ["--out", str(folder / "weights.pt")],
             "03_train_resume": ["--dir", str(folder / "ckpt")]}
    return needs.get(name, [])


def run_once(path: Path, nproc: int, folder: Path) -> tuple[int | None, str]:
    """One torchrun of `path` in `folder`: (exit code or None on a timeout, output). Nothing is left running."""
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={nproc}", str(path),
               *script_args(path.stem, folder)]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "TORCH_DISABLE_SHARE_RDZV_TCP_STORE": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=RUN_TIMEOUT_S)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        code, output = None, ""
    finally:
        kill_all_in(proc, folder)
    return code, output


def kill_all_in(proc: subprocess.Popen, folder: Path) -> None:
    """The agent, its session and its descendants (torchrun gives each rank a session of its own), and every process
    still working in `folder` (a rank whose agent died first is no longer its descendant)."""
    kill_tree(proc)
    kill_processes_in(folder)


def aborted(code: int | None, output: str) -> bool:
    return code not in (0, None) and ("SIGABRT" in output or "terminate called" in output)


def four_ranks_accepted(name: str) -> bool:
    return not name.startswith("control")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50, help="runs of each script at 2 ranks")
    parser.add_argument("--four", type=int, default=20, help="runs of each script at 4 ranks (0: none)")
    parser.add_argument("--scripts", nargs="*", help="script names without .py (default: all, and the controls)")
    parser.add_argument("--no-controls", action="store_true")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bench_exit_"))
    paths = {p.stem: p for p in sorted(SCRIPTS.glob("[0-9][0-9]_*.py"))}
    if not args.no_controls:
        for name, (start, ending) in CONTROLS.items():
            paths[name] = work / f"{name}.py"
            paths[name].write_text(CONTROL.format(start=start, ending=ending))
    chosen = args.scripts or list(paths)
    unknown = [name for name in chosen if name not in paths]
    if unknown:
        parser.error(f"no such script: {', '.join(unknown)} (known: {', '.join(paths)})")
    plan = [(name, 2, args.runs) for name in chosen]
    plan += [(name, 4, args.four) for name in chosen if args.four and four_ranks_accepted(name)]
    print(f"bench_exit {time.strftime('%Y-%m-%d %H:%M')}: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, "
          f"{sys.version.split()[0]}", flush=True)
    rows, bad = [], []
    try:
        for name, nproc, runs in plan:
            failed = aborts = timeouts = 0
            start = time.perf_counter()
            for i in range(runs):
                folder = work / f"{name}-{nproc}-{i}"
                folder.mkdir()
                code, output = run_once(paths[name], nproc, folder)
                if code != 0:
                    failed += 1
                    aborts += aborted(code, output)
                    timeouts += code is None
                    if not name.startswith("control"):
                        bad.append(f"{name} at {nproc} ranks, run {i}: exit {code}\n{output[-3000:]}")
                shutil.rmtree(folder, ignore_errors=True)
            seconds = (time.perf_counter() - start) / max(runs, 1)
            rows.append(f"| {name} | {nproc} | {runs} | {failed} | {aborts} | {timeouts} | {seconds:.1f} |")
            print(f"{name} at {nproc} ranks: {runs} runs, {failed} failed, {aborts} aborted ({seconds:.1f} s a run)",
                  flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("\n| script | ranks | runs | failed (exit != 0) | aborts (SIGABRT) | timeouts | s per run |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    for failure in bad:
        print("\n" + failure)
    print(f"\n{len(bad)} failed runs of the course's scripts")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
