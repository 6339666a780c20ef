"""Count the communication a rank performs: which `torch.distributed` calls ran, and how many bytes they moved.

    with distlab.count_comm() as comm:
        my_all_reduce(tensor)
    comm.bytes_sent, comm.bytes_received      # point-to-point payload of this rank
    comm.peers_sent_to, comm.peers_received_from  # Counter({global rank: bytes})
    comm.calls                                # Counter({'send': 3, 'recv': 3})
    comm.collective_calls                     # built-in collectives only, e.g. Counter({'all_reduce': 1})
    comm.collective_bytes                     # their payload, e.g. Counter({'all_reduce': 4096})
    comm.elements_in                          # elements handed in to them, e.g. Counter({'all_reduce': 1024})
    comm.summary()                            # all of the above as plain dicts (picklable)

Where it counts. Every `torch.distributed` call, whatever name the caller used for it (`dist.isend`, an `isend`
imported before the block, a `P2POp` inside `batch_isend_irecv`, DDP's C++ reducer, a DTensor redistribution),
reaches PyTorch's dispatcher as an operator of the `c10d` namespace (`c10d.send`, `c10d.allreduce_`, ...) or, for
functional collectives and DTensor, `_c10d_functional`. `count_comm` is a `TorchDispatchMode` that records those
operators; it changes nothing in `torch.distributed`'s namespace (swapping names there missed names imported earlier,
and made `P2POp(isend, ...)` raise `Invalid op`).

Cost. The mode sees every ATen operation of the block; one that is not communication is passed on after a dictionary
look-up. What costs is the dispatch mode itself: about 12 us per operation on a CPU (3 -> 15 us for a small add; a
bare TorchDispatchMode costs the same). Negligible where messages dominate (a 2-rank ring all-reduce of 1M floats,
12 operations: 3.8 -> 4.8 ms), but a block around many small computations runs several times slower (3-5x for the
forward and backward of a small MLP): keep the block around the communication when timing the rest.

Names. The dispatcher sees `c10d.send` for both `send` and `isend`: `send` *is* `isend(...).wait()`, so nothing below
Python tells them apart, yet the lessons check `calls == {'send': 3, 'recv': 3}`. The name recorded is therefore that
of the outermost public function of `torch.distributed.distributed_c10d` on this thread's Python stack when the
operator runs (read, not hooked: found by code object, so any alias counts), `batch_isend_irecv` excepted: its
operations are named after their `P2POp`'s function (`isend`/`irecv`), as before. Without such a function on the
stack (DDP's reducer, functional collectives, DTensor) the operator's public name is used ('allreduce_': 'all_reduce').

Calls. A call is one execution of that public function: `all_gather_object`, which runs two `all_gather`s, counts
as one 'all_gather_object', and its bytes are everything its inner operations moved. To tell calls apart, the
frame of a call that went through another public function (e.g. `send` -> `isend`) is referenced until the next
communication or the end of the block.

Bytes. `bytes_sent`/`bytes_received` and `peers_*` count point-to-point operations only (any name, including
`send_object_list`): the bytes of the tensors sent or received. `collective_bytes[name]` adds, for every operator of a
collective, its size as nccl-tests reports it: the bytes of its largest buffer (all_reduce, broadcast: the tensor;
all_gather: the gathered output; reduce_scatter: the input; barrier: 0). Bytes on the wire follow from it: a ring
all-reduce sends 2(N-1)/N of it per rank, an all-gather or reduce-scatter (N-1)/N. `elements_in[name]` counts the
elements of what this rank handed in (its input: all_reduce's tensor, all_gather's input, reduce_scatter's whole
input, all_to_all's input, what a scatter's source scatters): how many times a tensor took part in collectives,
whatever their algorithm (one all_gather of a tensor and a local sum count it once, as one all_reduce does).

Peers are global ranks, whatever group the call used and however the peer was named (`dst=` or `group_dst=`), so one
peer is one key: the operator carries the group rank and the process group, converted with
`dist.get_process_group_ranks`. (Before, the rank was reported as the caller named it.) A receive from any source
(`recv` without `src`) has peer None.

Nesting and threads. Blocks nest: in one thread both count everything, each in its own `CommCount`. Nothing global
changes, so nothing is locked and nothing can deadlock. Dispatch modes are per thread: only operations issued by the
thread that opened the block are counted (what another thread sends is not). Re-entering a block that is already open
raises RuntimeError. DDP's C++ reducer issues its all-reduces as `c10d.allreduce_` operators from autograd hooks, on
CPU in the thread that called backward: counted, one 'all_reduce' per bucket. Not counted: what C++ code sends
without a dispatcher operator (gloo's own messages, the store), nor torch's internal functional point-to-point
operators (`_c10d_functional.isend/irecv/batch_p2p_ops`).
"""
from __future__ import annotations

import inspect
import os
import sys
from collections import Counter
from dataclasses import dataclass, field
from types import FunctionType

import torch
import torch.distributed as dist
import torch.distributed.distributed_c10d as c10d
from torch.utils._python_dispatch import TorchDispatchMode

from .topology import BARRIER, POINT_TO_POINT, RECV, RECV_ANY, SEND, global_rank, op_spec

_TRANSPARENT = {"batch_isend_irecv"}  # named after the P2POps it runs


def _public_codes() -> dict:
    """Code object -> name of every public function defined in torch.distributed.distributed_c10d (unwrapped from
    its logging/deprecation decorators, whose wrapper code all decorated functions share)."""
    codes = {}
    for name, value in vars(c10d).items():
        # type(), not isinstance(): the latter reads __class__, and `reduce_op` warns when touched
        function = inspect.unwrap(value) if type(value) is FunctionType else None
        if function is not None and not name.startswith("_") and function.__module__ == c10d.__name__:
            codes[function.__code__] = name
    return codes


_PUBLIC = _public_codes()
_SPECS: dict = {}  # operator -> op_spec(operator), filled as operators are seen: one look-up per ATen operation


@dataclass
class CommCount:
    """What one rank did inside a `count_comm()` block."""

    calls: Counter = field(default_factory=Counter)  # public name -> number of calls
    bytes_sent: int = 0  # point-to-point only
    bytes_received: int = 0
    peers_sent_to: Counter = field(default_factory=Counter)  # global peer rank -> bytes
    peers_received_from: Counter = field(default_factory=Counter)
    collective_bytes: Counter = field(default_factory=Counter)  # collective name -> payload bytes (nccl-tests size)
    elements_in: Counter = field(default_factory=Counter)  # collective name -> elements this rank handed in

    @property
    def collective_calls(self) -> Counter:
        """Only the built-in collectives (everything that is not point-to-point)."""
        return Counter({name: n for name, n in self.calls.items() if name not in POINT_TO_POINT})

    def summary(self) -> dict:
        """A plain dict (picklable, printable) of the counts."""
        return {"calls": dict(self.calls), "collective_calls": dict(self.collective_calls),
                "bytes_sent": self.bytes_sent, "bytes_received": self.bytes_received,
                "peers_sent_to": dict(self.peers_sent_to), "peers_received_from": dict(self.peers_received_from),
                "collective_bytes": dict(self.collective_bytes), "elements_in": dict(self.elements_in)}


class count_comm(TorchDispatchMode):  # noqa: N801 - used like a function: `with count_comm() as comm:`
    """Context manager that records this thread's communication operators into a `CommCount`."""

    def __init__(self):
        super().__init__()
        self.count = CommCount()
        self._call_frame = None  # the frame of the call still issuing operators (see "Calls" above)
        self._open = False

    def __enter__(self) -> CommCount:
        if self._open:
            raise RuntimeError("this count_comm() block is already open: nest a new count_comm() instead")
        self._open = True
        super().__enter__()
        return self.count

    def __exit__(self, *exc) -> None:
        self._call_frame, self._open = None, False  # no frame (nor its tensors) outlives the block
        super().__exit__(*exc)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if types and _is_dtensor(types):
            return NotImplemented  # let DTensor run first: the redistributions it issues then come through here
        out = func(*args, **(kwargs or {}))
        spec = _SPECS.get(func, False)
        if spec is False:
            spec = _SPECS[func] = op_spec(func)
        if spec is not None:
            self._record(*spec, args, out)
        return out

    def _record(self, fallback: str, kind: str, position, args, out) -> None:
        name, frame, composite = _caller(sys._getframe(2))
        name = name or fallback
        if frame is None or frame is not self._call_frame:  # a new call (not the next operator of the same one)
            self.count.calls[name] += 1
        self._call_frame = frame if composite else None  # a simple call issues one operator: nothing to keep
        if kind in (SEND, RECV, RECV_ANY):
            self._record_point_to_point(kind, args)
        else:  # the largest buffer among the arguments and the result (functional collectives return theirs)
            size = 0 if kind == BARRIER else max([_nbytes(a) for a in args] + [_nbytes(out)])
            self.count.collective_bytes[name] += size
            if position is not None:
                self.count.elements_in[name] += _numel(args[position])

    def _record_point_to_point(self, kind: str, args) -> None:
        nbytes = _nbytes(args[0])  # (tensors, process group, peer's group rank, tag); no peer for RECV_ANY
        peer = None if kind == RECV_ANY else _global_rank(args[1], args[2])
        if kind == SEND:
            self.count.bytes_sent += nbytes
            self.count.peers_sent_to[peer] += nbytes
        else:
            self.count.bytes_received += nbytes
            self.count.peers_received_from[peer] += nbytes


def _caller(frame) -> tuple:
    """(name, frame, composite) of the outermost public torch.distributed function on the stack, batch_isend_irecv
    skipped; composite: it went through another public function. (None, None, False) if there is none."""
    outer, name, inner = None, None, None
    while frame is not None:
        public = _PUBLIC.get(frame.f_code)
        if public is not None and public not in _TRANSPARENT:
            outer, name, inner = frame, public, inner or frame
        frame = frame.f_back
    return name, outer, outer is not inner


def _global_rank(boxed_group, group_rank: int):
    """The global rank of `group_rank` in the operator's (boxed) process group; the group rank if torch.distributed
    does not know the group (one made in C++)."""
    try:
        return global_rank(dist.ProcessGroup.unbox(boxed_group), group_rank)
    except (ValueError, RuntimeError, TypeError):
        return group_rank


def _nbytes(value) -> int:
    """Bytes of the tensors in value (a tensor, or lists/tuples of them); 0 for anything else."""
    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, (list, tuple)):
        return sum(_nbytes(v) for v in value)
    return 0


def _numel(value) -> int:
    """Elements of the tensors in value (a tensor, or nested lists/tuples of them)."""
    if isinstance(value, torch.Tensor):
        return value.numel()
    if isinstance(value, (list, tuple)):
        return sum(_numel(v) for v in value)
    return 0


def _is_dtensor(types) -> bool:
    module = sys.modules.get("torch.distributed.tensor")  # not imported: no DTensor can exist
    dtensor = getattr(module, "DTensor", None)
    return dtensor is not None and any(issubclass(t, dtensor) for t in types)


class count_bytes_written:  # noqa: N801
    """Bytes this process handed to the kernel to write (sockets included) inside the block, as Linux counts them.

    This is the operating system's own tally (`wchar` in /proc/self/io), so it also sees what built-in collectives
    and C++ code really send (`count_comm` gives a collective's payload, not gloo's messages). It counts every write:
    keep prints and file writes out of the block.

        with distlab.count_bytes_written() as written:
            dist.all_reduce(t)
        written.bytes   # about 2(N-1)/N * t.nbytes for gloo's ring all-reduce

    Linux only: macOS and Windows keep no per-process count of bytes written that a process can read, and gloo's
    sockets live in C++, out of Python's reach. There `count_bytes_written.available()` is False and `written.bytes`
    is None (no error: a notebook skips its comparison and says why). $DISTLAB_PROC_IO names another file to read,
    which is how the tests force that path on Linux.
    """

    @staticmethod
    def available() -> bool:
        """Whether this operating system reports the bytes a process writes (Linux's /proc/self/io)."""
        return _wchar() is not None

    def __enter__(self) -> "count_bytes_written":
        self.bytes = None
        self._start = _wchar()
        return self

    def __exit__(self, *exc) -> None:
        end = _wchar()
        self.bytes = None if self._start is None or end is None else end - self._start


def _wchar() -> int | None:
    """This process's `wchar` from /proc/self/io, or None where the file does not exist (macOS, Windows)."""
    try:
        with open(os.environ.get("DISTLAB_PROC_IO", "/proc/self/io")) as f:
            return next(int(line.split(":")[1]) for line in f if line.startswith("wchar:"))
    except (OSError, StopIteration):
        return None
