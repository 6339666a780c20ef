"""What `distlab.count_comm` costs: a ring all-reduce (send/recv chunks, add) of 2^20 floats on 2 ranks, timed
without and with the block around it, the two interleaved round by round so that the machine's load hits both alike.

    python benchmarks/bench_comm.py             # 20 rounds, about 10 s on 2 cores
    python benchmarks/bench_comm.py --quick     # 2 rounds (tests/test_benchmarks.py)

The block patches nothing in torch.distributed's namespace: it counts at the dispatcher, once per operation, so its
cost is a few Python calls per message, whatever the message's size. The table gives each contender's minimum and
median over the rounds (rank 0's clock) and both as ratios to the plain ring: the ratio to read is the minimum's,
the least disturbed by other processes.
"""
from __future__ import annotations

import argparse
import statistics
import time

import torch
import torch.distributed as dist

import distlab


def ring(t: torch.Tensor) -> None:
    """The lesson 1 ring all-reduce, in place: 2 (N - 1) steps of one send to the next rank, one receive."""
    rank, world = dist.get_rank(), dist.get_world_size()
    chunks, incoming = t.tensor_split(world), torch.empty(t.numel() // world + 1)
    for step in range(2 * (world - 1)):
        send, recv = chunks[(rank - step) % world], chunks[(rank - step - 1) % world]
        buffer = incoming[: recv.numel()]
        for request in dist.batch_isend_irecv([dist.P2POp(dist.isend, send, (rank + 1) % world),
                                               dist.P2POp(dist.irecv, buffer, (rank - 1) % world)]):
            request.wait()
        if step < world - 1:
            recv.add_(buffer)  # reduce-scatter phase
        else:
            recv.copy_(buffer)  # all-gather phase


class _Nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None


def timed_rounds(numel: int, rounds: int) -> dict:
    """{contender: [seconds per round]}: the plain ring and the ring inside `count_comm`, alternating."""
    times = {"plain ring": [], "inside count_comm": []}
    for _ in range(rounds):
        for kind in times:
            t = torch.ones(numel)
            dist.barrier()
            start = time.perf_counter()
            with distlab.count_comm() if kind == "inside count_comm" else _Nothing():
                ring(t)
            times[kind].append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 rounds")
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    rounds = 2 if args.quick else args.rounds
    times = distlab.launch(timed_rounds, 2, args=(2**20, rounds), timeout=300, collective_timeout=60)[0]
    base = times["plain ring"]
    print(f"ring all-reduce of 2^20 floats on 2 ranks (gloo), {rounds} rounds\n")
    print("| contender | min (ms) | median (ms) | min / plain | median / plain |")
    print("|---|---|---|---|---|")
    for name, values in times.items():
        print(f"| {name} | {min(values) * 1e3:.2f} | {statistics.median(values) * 1e3:.2f} | "
              f"{min(values) / min(base):.2f} | {statistics.median(values) / statistics.median(base):.2f} |")


if __name__ == "__main__":
    main()
