"""Section 1: a group formed by hand. A TCPStore hosted here (as torchrun's agent hosts one), ranks started with
torchrun's variables; each sets its `ARRIVED` key and joins by env://. A rank that never comes is named."""
from __future__ import annotations

import datetime
import os
import time
from dataclasses import dataclass

import torch
import torch.distributed as dist

from ..errors import LaunchError, _ranks
from ..launching.deadline import Deadline
from ._workers import POLL_S, Workers

ARRIVED = "distlab/arrived/{rank}"  # the key each rank sets on the store as soon as it is connected


class RendezvousTimeout(LaunchError, TimeoutError):
    """Not every rank arrived at the store before the deadline; `missing` names those that did not."""

    def __init__(self, seconds: float, world_size: int, missing: list[int], arrived: list[int]):
        message = (f"rendezvous: rank(s) {_ranks(missing)} of {world_size} did not arrive within {seconds:g} s "
                   f"(rank(s) {_ranks(arrived) if arrived else 'none'} did, and waited for them); every process "
                   f"was killed")
        super().__init__(message, missing)
        self.seconds, self.missing, self.arrived = seconds, missing, arrived


def torchrun_env(rank: int, world_size: int, port: int, local_world_size: int | None = None) -> dict[str, str]:
    """The variables torchrun's agent gives each rank it starts (a subset: also GROUP_RANK, ROLE_*, TORCHELASTIC_*).

    TORCHELASTIC_USE_AGENT_STORE=True: `init_process_group("env://")` then connects to the store the agent hosts
    (here: ours) instead of rank 0 hosting one (torch/distributed/rendezvous.py, `_create_c10d_store`)."""
    local = local_world_size or world_size
    return {"RANK": str(rank), "LOCAL_RANK": str(rank % local), "WORLD_SIZE": str(world_size),
            "LOCAL_WORLD_SIZE": str(local), "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
            "TORCHELASTIC_USE_AGENT_STORE": "True"}


def _rendezvous_rank(report, env: dict, timeout_s: float) -> None:
    os.environ.update(env)
    rank = int(env["RANK"])
    store = dist.TCPStore(env["MASTER_ADDR"], int(env["MASTER_PORT"]), is_master=False,
                          timeout=datetime.timedelta(seconds=timeout_s))
    store.set(ARRIVED.format(rank=rank), str(os.getpid()))
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=timeout_s))  # env://: what a script calls
    total = torch.tensor([rank])
    dist.all_reduce(total)
    report.send({"rank": rank, "env": {k: v for k, v in env.items() if k != "TORCHELASTIC_USE_AGENT_STORE"},
                 "sum_of_ranks": int(total.item()), "world_size": dist.get_world_size()})
    dist.destroy_process_group()


@dataclass
class Rendezvous:
    """A group formed by hand: the store's port, each rank's report (its variables, an all-reduce), the store's keys."""
    port: int
    reports: list[dict]
    keys: list[str]


def rendezvous_by_hand(world_size: int = 4, absent=(), timeout: float = 10.0) -> Rendezvous:
    """Host a TCPStore (as torchrun's agent does), start `world_size` ranks (minus `absent`) with torchrun's
    variables; each sets its ARRIVED key, joins the gloo group by env:// and all-reduces its rank.

    Raises `RendezvousTimeout` naming the ranks that had not arrived after `timeout` s; every process is gone then."""
    deadline = Deadline.after(timeout)
    store = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False,
                          timeout=datetime.timedelta(seconds=timeout))  # port 0: the OS picks a free one
    with Workers(deadline) as workers:
        for rank in range(world_size):
            if rank not in absent:
                workers.start(_rendezvous_rank, torchrun_env(rank, world_size, store.port), timeout)
        arrived = _wait_for_arrivals(store, world_size, deadline)
        if len(arrived) < world_size:
            missing = [r for r in range(world_size) if r not in arrived]
            raise RendezvousTimeout(timeout, world_size, missing, sorted(arrived))
        reports = [events[0] for w in range(world_size) if (events := workers.receive(w, until=bool))]
        if len(reports) < world_size:
            raise LaunchError(f"rendezvous: only {len(reports)} of {world_size} ranks reported within {timeout:g} s",
                              [])
        return Rendezvous(store.port, sorted(reports, key=lambda r: r["rank"]), sorted(store.list_keys()))


def _wait_for_arrivals(store, world_size: int, deadline: Deadline) -> set[int]:
    arrived = set()
    while len(arrived) < world_size and not deadline.passed():
        arrived |= {r for r in range(world_size) if r not in arrived and store.check([ARRIVED.format(rank=r)])}
        time.sleep(POLL_S)
    return arrived
