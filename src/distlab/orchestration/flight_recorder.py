"""Section 4: hangs. A flight recorder of collectives, a file per rank (so a frozen rank's record survives), and one
sentence from each rank's last entry: who is behind, where the others wait."""
from __future__ import annotations

import json
from pathlib import Path

import torch.distributed as dist

from ..errors import _ranks


class FlightRecorder:
    """Each rank's collectives, numbered, as started and completed: `recorder.all_reduce(t)` instead of
    `dist.all_reduce(t)`. The record is a file per rank, appended before and after each call, so it survives a rank
    that is frozen or killed (torch's flight recorder keeps a ring buffer in memory and dumps it on a timeout:
    TORCH_NCCL_TRACE_BUFFER_SIZE, TORCH_NCCL_DUMP_ON_TIMEOUT; a frozen rank dumps nothing there)."""

    def __init__(self, folder):
        self.path = Path(folder) / f"rank{dist.get_rank()}.jsonl"
        self.seq = 0

    def _log(self, **entry) -> None:
        with open(self.path, "a") as f:
            f.write(json.dumps(entry) + "\n")

    def all_reduce(self, tensor, **kwargs):
        self.seq += 1
        self._log(seq=self.seq, op="all_reduce", state="started")
        dist.all_reduce(tensor, **kwargs)
        self._log(seq=self.seq, op="all_reduce", state="completed")


def last_collectives(folder) -> dict[int, dict]:
    """{rank: its last recorded entry} from a FlightRecorder's folder."""
    last = {}
    for path in sorted(Path(folder).glob("rank*.jsonl")):
        lines = path.read_text().splitlines()
        if lines:
            last[int(path.stem[4:])] = json.loads(lines[-1])
    return last


def diagnose_hang(last: dict[int, dict], world_size: int) -> str:
    """One sentence from each rank's last collective: who is behind, and where the others wait.

    The rank whose last collective is furthest behind (by sequence number), or that recorded none, is the one the
    others wait for; that is what torch's flight-recorder analyser reports too (`torch.distributed.flight_recorder`,
    "fr_trace": a collective that some ranks started and others never did)."""
    ahead = max(entry["seq"] for entry in last.values())
    behind = [r for r in range(world_size) if r not in last or last[r]["seq"] < ahead]
    waiting = [r for r in range(world_size) if r in last and last[r]["seq"] == ahead and last[r]["state"] == "started"]
    phrases = []
    for r in behind:
        entry = last.get(r)
        phrases.append(f"rank {r} never started collective #{ahead}" + (
            f" (its last: {entry['op']} #{entry['seq']}, {entry['state']})" if entry else " (it recorded none)"))
    return "; ".join(phrases) + f"; rank(s) {_ranks(waiting)} wait in {last[waiting[0]]['op']} #{ahead}" \
        if waiting else "; ".join(phrases) or "every rank is at the same collective"
