"""Count the communication a rank performs: which `torch.distributed` calls ran, and how many bytes they moved.

    with distlab.count_comm() as comm:
        my_all_reduce(tensor)
    comm.bytes_sent, comm.bytes_received      # point-to-point payload of this rank
    comm.calls                                # Counter({'send': 3, 'recv': 3})
    comm.collective_calls                     # built-in collectives only, e.g. Counter({'all_reduce': 1})

It wraps the public functions of `torch.distributed` for the duration of the block (in this process only), so it
sees every call made through `dist.<name>` (and `torch.distributed.distributed_c10d.<name>`), including the
`P2POp`s of `batch_isend_irecv`. Calls made from inside another counted call (e.g. `all_gather_object` calling
`all_gather`) are counted once, as the outer call. What a C++ component such as DDP's reducer sends is not seen.
"""
from __future__ import annotations

import functools
import threading
from collections import Counter
from dataclasses import dataclass, field

import torch
import torch.distributed as dist
import torch.distributed.distributed_c10d as c10d

POINT_TO_POINT = {"send": "sent", "isend": "sent", "recv": "received", "irecv": "received"}
COLLECTIVES = (
    "broadcast", "all_reduce", "reduce", "all_gather", "all_gather_into_tensor", "gather", "scatter",
    "reduce_scatter", "reduce_scatter_tensor", "all_to_all", "all_to_all_single", "barrier",
    "all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list", "monitored_barrier",
    "reduce_scatter_single", "all_gather_single",
)
_lock = threading.Lock()


@dataclass
class CommCount:
    """What one rank did inside a `count_comm()` block."""

    calls: Counter = field(default_factory=Counter)
    bytes_sent: int = 0
    bytes_received: int = 0
    peers_sent_to: Counter = field(default_factory=Counter)  # peer rank -> bytes
    peers_received_from: Counter = field(default_factory=Counter)

    @property
    def collective_calls(self) -> Counter:
        """Only the built-in collectives (everything that is not point-to-point)."""
        return Counter({name: n for name, n in self.calls.items() if name not in POINT_TO_POINT})

    def summary(self) -> dict:
        """A plain dict (picklable, printable) of the counts."""
        return {"calls": dict(self.calls), "collective_calls": dict(self.collective_calls), "bytes_sent": self.bytes_sent, "bytes_received": self.bytes_received,
                "peers_sent_to": dict(self.peers_sent_to), "peers_received_from": dict(self.peers_received_from)}


class count_comm:  # noqa: N801 - used like a function: `with count_comm() as comm:`
    """Context manager that records this process's `torch.distributed` calls into a `CommCount`."""

    def __init__(self):
        self.count = CommCount()
        self._saved: list[tuple[object, str, object]] = []
        self._depth = threading.local()

    def __enter__(self) -> CommCount:
        _lock.acquire()
        for name in list(POINT_TO_POINT) + list(COLLECTIVES):
            original = getattr(c10d, name, None)
            if original is None:
                continue
            wrapped = self._wrap(name, original)
            for module in (dist, c10d):
                if getattr(module, name, None) is original:
                    self._saved.append((module, name, original))
                    setattr(module, name, wrapped)
        return self.count

    def __exit__(self, *exc) -> None:
        for module, name, original in reversed(self._saved):
            setattr(module, name, original)
        self._saved.clear()
        _lock.release()

    def _wrap(self, name: str, original):
        @functools.wraps(original)
        def counted(*args, **kwargs):
            depth = getattr(self._depth, "value", 0)
            if depth == 0:
                self._record(name, args, kwargs)
            self._depth.value = depth + 1
            try:
                return original(*args, **kwargs)
            finally:
                self._depth.value = depth
        return counted

    def _record(self, name: str, args, kwargs) -> None:
        self.count.calls[name] += 1
        direction = POINT_TO_POINT.get(name)
        if direction is None:
            return
        tensor = kwargs.get("tensor", args[0] if args else None)
        peer = _peer(name, args, kwargs)
        nbytes = tensor.numel() * tensor.element_size() if isinstance(tensor, torch.Tensor) else 0
        if direction == "sent":
            self.count.bytes_sent += nbytes
            self.count.peers_sent_to[peer] += nbytes
        else:
            self.count.bytes_received += nbytes
            self.count.peers_received_from[peer] += nbytes


def _peer(name: str, args, kwargs):
    """The peer's rank as the caller named it (`dst`/`src`, or `group_dst`/`group_src`)."""
    key = "dst" if name in ("send", "isend") else "src"
    if key in kwargs:
        return kwargs[key]
    if "group_" + key in kwargs:
        return kwargs["group_" + key]
    return args[1] if len(args) > 1 else None


class count_bytes_written:  # noqa: N801
    """Bytes this process handed to the kernel to write (sockets included) inside the block, as Linux counts them.

    This is the operating system's own tally (`wchar` in /proc/self/io), so it also sees what built-in collectives
    and C++ code send, which `count_comm` cannot. It counts every write: keep prints and file writes out of the block.

        with distlab.count_bytes_written() as written:
            dist.all_reduce(t)
        written.bytes   # about 2(N-1)/N * t.nbytes for gloo's ring all-reduce
    """

    def __enter__(self) -> "count_bytes_written":
        self.bytes = 0
        self._start = _wchar()
        return self

    def __exit__(self, *exc) -> None:
        self.bytes = _wchar() - self._start


def _wchar() -> int:
    try:
        with open("/proc/self/io") as f:
            return next(int(line.split(":")[1]) for line in f if line.startswith("wchar:"))
    except OSError as exc:
        raise NotImplementedError("count_bytes_written needs Linux's /proc/self/io") from exc
