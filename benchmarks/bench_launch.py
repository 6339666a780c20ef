"""Launch soak: how long does starting 4 ranks take, how often does it fail, alone and with two launchers at once?

    python benchmarks/bench_launch.py              # the full run: 200 launches per contender and mode (~5 min, 2 cores)
    python benchmarks/bench_launch.py --quick      # smoke run: 2 launches per contender and mode (tests)
    python benchmarks/bench_launch.py --launches 400

Each launch runs the same rank function, the one that used to stall one grading check in ten (issue 16): an
`all_reduce`, two `new_group`s, a subgroup `all_reduce` and a `barrier`, with a 5 s collective timeout, and is timed
from the call until every rank's result is back. A launch that raises or passes its 20 s deadline is a failure.
Contenders, each 4 ranks forked from a forkserver that already imported torch:
- `distlab.launch`: ranks join through a `FileStore` in the launch's temporary folder;
- plain torch, `TCPStore`: a `TCPStore` master in the launching process, each rank a client (what distlab did before);
- plain torch, `FileStore`: the same, with the store a file in a temporary folder.
Modes: "alone", one launcher looping; "two at once", two launcher processes looping side by side (what `--jobs 2`
grading does). Contenders run in rounds of `--round` launches, one contender after the other, so that a change in the
machine's load hits all of them alike. Reported: p50 / p99 / max launch time, launches over 1 s, failures.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta

import torch
import torch.distributed as dist

WORLD_SIZE = 4
DEADLINE_S = 20.0
COLLECTIVE_S = 5.0
CONTENDERS = ["distlab.launch", "plain torch, TCPStore", "plain torch, FileStore"]


def work() -> int:
    """The grading check's start-up pattern: collectives on the world and on subgroups."""
    t = torch.ones(1)
    dist.all_reduce(t)
    evens, odds = dist.new_group([0, 2]), dist.new_group([1, 3])
    dist.all_reduce(t, group=evens if dist.get_rank() % 2 == 0 else odds)
    dist.barrier()
    return int(t.item())


# --- the plain-torch contenders ------------------------------------------------------------------------------------

def _plain_rank(rank: int, store_spec, result) -> None:
    try:
        torch.set_num_threads(1)
        timeout = timedelta(seconds=COLLECTIVE_S)
        if store_spec[0] == "tcp":
            store = dist.TCPStore("127.0.0.1", store_spec[1], WORLD_SIZE, is_master=False, timeout=timeout)
        else:
            store = dist.FileStore(store_spec[1], WORLD_SIZE)
            store.set_timeout(timeout)
        dist.init_process_group("gloo", store=store, rank=rank, world_size=WORLD_SIZE, timeout=timeout)
        result.send(("ok", work()))
        dist.destroy_process_group()
    except Exception as exc:
        result.send(("error", f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"))


def plain_launch(ctx, store_kind: str) -> None:
    """One launch of plain torch: raises on any rank's error or after DEADLINE_S."""
    tmp = tempfile.mkdtemp(prefix="bench-launch-")
    master = None
    if store_kind == "tcp":
        master = dist.TCPStore("127.0.0.1", 0, WORLD_SIZE + 1, is_master=True, wait_for_workers=False)
        spec = ("tcp", master.port)
    else:
        spec = ("file", os.path.join(tmp, "store"))
    pipes, procs = [], []
    for rank in range(WORLD_SIZE):
        recv, send = ctx.Pipe(duplex=False)
        procs.append(ctx.Process(target=_plain_rank, args=(rank, spec, send), daemon=True))
        procs[-1].start()
        send.close()
        pipes.append(recv)
    try:
        deadline = time.monotonic() + DEADLINE_S
        for recv in pipes:
            if not recv.poll(max(deadline - time.monotonic(), 0)):
                raise TimeoutError(f"no result within {DEADLINE_S:g} s")
            kind, value = recv.recv()
            if kind != "ok":
                raise RuntimeError(value)
    finally:
        for proc in procs:
            proc.kill()
            proc.join()
        del master
        shutil.rmtree(tmp, ignore_errors=True)


# --- one launcher process: a loop of launches ---------------------------------------------------------------------

def loop(contender: str, launches: int) -> dict:
    """Times of `launches` launches of one contender in this process, and its failures."""
    if contender == "distlab.launch":
        import distlab
        distlab.launch(work, WORLD_SIZE, timeout=DEADLINE_S, collective_timeout=COLLECTIVE_S, output="hide")  # warm
        one = lambda: distlab.launch(work, WORLD_SIZE, timeout=DEADLINE_S, collective_timeout=COLLECTIVE_S,  # noqa
                                     output="hide")
    else:
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["__main__", "torch", "torch.distributed"])
        store_kind = "tcp" if "TCPStore" in contender else "file"
        plain_launch(ctx, store_kind)  # warm: the forkserver imports torch once
        one = lambda: plain_launch(ctx, store_kind)  # noqa: E731
    times, failures = [], []
    for _ in range(launches):
        start = time.monotonic()
        try:
            one()
            times.append(time.monotonic() - start)
        except Exception as exc:
            failures.append(f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}")
    return {"times": times, "failures": failures}


def run_loops(contenders: list[str], launches: int, launchers: int) -> list[dict]:
    """`launchers` processes side by side, each looping `launches` launches of each of `contenders` in turn."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    procs = [subprocess.Popen([sys.executable, __file__, "--loop", ";".join(contenders), str(launches)], env=env,
                              stdout=subprocess.PIPE, text=True) for _ in range(launchers)]
    timeout = len(contenders) * (launches * DEADLINE_S + 120)
    outputs = [proc.communicate(timeout=timeout)[0] for proc in procs]
    return [json.loads(out.strip().splitlines()[-1]) for out in outputs]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def table(results: dict) -> str:
    lines = ["| contender | mode | launches | failures | p50 (s) | p99 (s) | max (s) | over 1 s | p99 / distlab's |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for mode in ("alone", "two at once"):
        base = percentile(results[("distlab.launch", mode)]["times"], 0.99)
        for contender in CONTENDERS:
            r = results[(contender, mode)]
            t = r["times"] or [float("nan")]
            p99 = percentile(t, 0.99)
            lines.append(f"| {contender} | {mode} | {len(r['times']) + len(r['failures'])} | {len(r['failures'])} | "
                         f"{statistics.median(t):.3f} | {p99:.3f} | {max(t):.3f} | {sum(x > 1 for x in t)} | "
                         f"{p99 / base:.2f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 launches per contender and mode")
    parser.add_argument("--launches", type=int, default=200, help="launches per contender and mode")
    parser.add_argument("--round", type=int, default=50, help="launches per contender before the next one runs")
    parser.add_argument("--loop", nargs=2, metavar=("CONTENDER", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.loop:
        print(json.dumps({c: loop(c, int(args.loop[1])) for c in args.loop[0].split(";")}))
        return
    launches, per_round = (2, 2) if args.quick else (args.launches, args.round)
    results = {(c, m): {"times": [], "failures": []} for c in CONTENDERS for m in ("alone", "two at once")}
    done = 0
    # --quick: one launcher process runs every contender in turn (3 imports of torch instead of 9: it is a smoke run);
    # the full run gives each contender fresh launcher processes of its own.
    groups = [CONTENDERS] if args.quick else [[c] for c in CONTENDERS]
    while done < launches:
        n = min(per_round, launches - done)
        for group in groups:
            for mode, launchers in (("alone", 1), ("two at once", 2)):
                per_launcher = n if launchers == 1 else max(1, n // 2)
                for r in run_loops(group, per_launcher, launchers):
                    for contender, result in r.items():
                        results[(contender, mode)]["times"] += result["times"]
                        results[(contender, mode)]["failures"] += result["failures"]
        done += n
    print(f"{WORLD_SIZE} ranks, torch {torch.__version__}, {os.cpu_count()} cores\n")
    print(table(results))
    failures = {f"{c} ({m})": r["failures"][:3] for (c, m), r in results.items() if r["failures"]}
    if failures:
        print("\nFirst failures:", json.dumps(failures, indent=1))


if __name__ == "__main__":
    main()
