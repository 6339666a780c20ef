"""Per-rank memory accounting: how many bytes of tensors a rank holds, and how many it allocated at the peak.

    held = distlab.tensor_bytes(model, optimizer)        # distinct storages reachable from them, each counted once
    distlab.model_state_bytes(model, optimizer)          # {'parameters': .., 'gradients': .., 'optimizer_states': ..,
                                                         #  'total': ..}
    with distlab.track_memory() as mem:                  # tensors allocated inside the block (any device but meta)
        loss = model(x).sum(); loss.backward()
    mem.live, mem.peak                                   # bytes still alive now; the most alive at any moment
    (inside the block, `with mem.paused(): ...` leaves out bookkeeping such as copies kept for a later check)
    distlab.memory.saved_bytes_by_part(run, exclude=params)  # {part: bytes autograd keeps for the backward}

The model states of ZeRO (Rajbhandari et al., "ZeRO: Memory optimizations toward training trillion parameter
models", SC 2020, section 3.1) are parameters, gradients and optimizer states; activations and temporary buffers
are "residual states", which `track_memory` sees as the peak above what stays alive.

Counting rules. A tensor holds its whole storage: a view (a slice, a transpose, a tied weight) adds nothing once
its storage is counted, and a slice alone counts its whole storage (`tensor_bytes(big[:1]) == big.nbytes`). A
`DTensor` (FSDP2's sharded parameters) counts its local shard's storage only: what this rank really holds.

`track_memory` is a `TorchDispatchMode`: every ATen operation run in this thread inside the block (autograd's
backward included) reports its outputs; an output whose storage is not one of the operation's inputs is a new
allocation, counted until Python's weak reference to its storage dies (`weakref.finalize`). A storage resized in
place with `UntypedStorage.resize_` (FSDP2 frees its gathered parameters with `resize_(0)` and refills them later)
counts at its new size (the first `track_memory` replaces `UntypedStorage.resize_`, for the rest of the process, by
a wrapper that reports to the running trackers). It cannot see what C++ code allocates without an ATen operation
(e.g. gloo's internal buffers) nor what a `DTensor` allocates inside its own dispatch, only the result. A
collective's output tensor is freed when its last reference dies, and gloo's worker thread drops its own a moment
after the collective returns: `live` can lag by that tensor for a few milliseconds (`settled_live()` waits that out).
On CUDA,
`torch.cuda.max_memory_allocated()` gives the allocator's own peak.
"""
from __future__ import annotations

import contextlib
import functools
import threading
import time
import weakref

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from .launching.deadline import Deadline

__all__ = ["tensor_bytes", "model_state_bytes", "track_memory", "MemoryTracker", "saved_bytes_by_part"]


def _local(tensor: torch.Tensor) -> torch.Tensor:
    """A DTensor's local shard (what this rank stores); any other tensor itself."""
    local = getattr(tensor, "_local_tensor", None)
    return local if isinstance(local, torch.Tensor) else tensor


def _storage_key(tensor: torch.Tensor):
    storage = _local(tensor).untyped_storage()
    return (storage.device.type, storage.device.index, storage.data_ptr()), storage.nbytes()


def _tensors(obj, seen_objects: set):
    """Every tensor reachable from obj: tensors, modules (parameters, buffers), optimizers (state), containers."""
    if id(obj) in seen_objects:
        return
    seen_objects.add(id(obj))
    if isinstance(obj, torch.Tensor):
        yield obj
    elif isinstance(obj, torch.nn.Module):
        yield from obj.parameters()
        yield from obj.buffers()
    elif isinstance(obj, torch.optim.Optimizer):
        yield from _tensors(list(obj.state.values()), seen_objects)
    elif isinstance(obj, dict):
        for value in obj.values():
            yield from _tensors(value, seen_objects)
    elif isinstance(obj, (list, tuple, set, frozenset)):
        for value in obj:
            yield from _tensors(value, seen_objects)


def tensor_bytes(*objects, exclude=()) -> int:
    """Bytes of the distinct storages reachable from `objects` (tensors, modules, optimizers, dicts, lists, tuples),
    each storage counted once; storages reachable from `exclude` are not counted.

    A module counts its parameters and buffers (not their gradients: pass `[p.grad for p in ...]` for those);
    an optimizer counts its state (e.g. Adam's exp_avg, exp_avg_sq and step), not the parameters it updates.
    """
    skip = {_storage_key(t)[0] for t in _tensors(list(exclude), set())}
    counted: dict = {}
    for tensor in _tensors(list(objects), set()):
        key, nbytes = _storage_key(tensor)
        if key not in skip and tensor.device.type != "meta":
            counted[key] = nbytes
    return sum(counted.values())


def model_state_bytes(model: torch.nn.Module, optimizer: torch.optim.Optimizer | None = None) -> dict:
    """ZeRO's model states held by this rank, in bytes: {'parameters', 'gradients', 'optimizer_states', 'total'}.

    Each storage is counted once, in the first of these that reaches it (a gradient that shares a parameter's
    storage, or an optimizer state that is a parameter, is not counted twice). Buffers count as parameters.
    """
    parameters = list(model.parameters())
    gradients = [p.grad for p in parameters if p.grad is not None]
    states = [optimizer] if optimizer is not None else []
    result = {"parameters": tensor_bytes(model),
              "gradients": tensor_bytes(gradients, exclude=[model]),
              "optimizer_states": tensor_bytes(*states, exclude=[model, gradients])}
    result["total"] = sum(result.values())
    return result


class MemoryTracker:
    """What `track_memory()` measured: `live` (bytes allocated inside the block and alive now), `peak` (the most
    that were alive at once since the block began or `reset_peak()`), `allocated` (every byte allocated in the
    block, freed or not) and `allocations` (how many new storages)."""

    def __init__(self):
        self.live = self.peak = self.allocated = self.allocations = 0
        self._sizes: dict = {}
        self._lock = threading.Lock()
        self._paused = 0

    def reset_peak(self) -> None:
        """Start a new peak from what is alive now."""
        self.peak = self.live

    def settled_live(self, seconds: float = 0.2) -> int:
        """`live` once the collectives' buffers are gone: the least value seen over `seconds` (gloo's worker thread
        drops a collective's buffer a moment after `wait()` returns; what is really kept never goes)."""
        low, deadline = self.live, Deadline.after(seconds)
        while not deadline.passed():
            time.sleep(0.005)
            low = min(low, self.live)
        return low

    @contextlib.contextmanager
    def paused(self):
        """Inside `with mem.paused():` allocations are not counted (bookkeeping that is not part of the measurement)."""
        self._paused += 1
        try:
            yield self
        finally:
            self._paused -= 1

    def _add(self, storage) -> None:
        key, nbytes = storage._cdata, storage.nbytes()  # _cdata: the storage itself, the same after a resize_
        if storage.device.type == "meta" or key in self._sizes:
            return
        with self._lock:
            self._sizes[key] = 0
        weakref.finalize(storage, self._free, key)
        self._resized(key, nbytes)

    def _resized(self, key, nbytes: int) -> None:
        with self._lock:
            grown = nbytes - self._sizes[key]
            self._sizes[key] = nbytes
            self.live += grown
            self.allocated += max(grown, 0)
            self.allocations += grown > 0
            self.peak = max(self.peak, self.live)

    def _free(self, key) -> None:
        with self._lock:
            self.live -= self._sizes.pop(key, 0)

    def summary(self) -> dict:
        """A plain dict of the measurements (picklable: returns from a rank)."""
        return {"live": self.live, "peak": self.peak, "allocated": self.allocated, "allocations": self.allocations}


class _Mode(TorchDispatchMode):
    def __init__(self, tracker: MemoryTracker):
        super().__init__()
        self.tracker = tracker

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if self.tracker._paused:
            return out
        inputs = {_local(t).untyped_storage()._cdata for t in _flat_tensors((args, kwargs), []) if _has_storage(t)}
        for tensor in _flat_tensors(out, []):
            if _has_storage(tensor):
                storage = _local(tensor).untyped_storage()
                if storage._cdata not in inputs:  # not a view of, or written into, an input
                    self.tracker._add(storage)
        return out


def _flat_tensors(obj, found: list) -> list:
    """The tensors in an operator's arguments or outputs (nested lists, tuples, dicts): what torch's tree_flatten
    finds there, at a fraction of its cost (it ran for every operator, and made a tracked block ~2x slower)."""
    if isinstance(obj, torch.Tensor):
        found.append(obj)
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            _flat_tensors(item, found)
    elif isinstance(obj, dict):
        for item in obj.values():
            _flat_tensors(item, found)
    return found


def _has_storage(tensor: torch.Tensor) -> bool:
    try:
        _local(tensor).untyped_storage()
        return True
    except (RuntimeError, NotImplementedError):  # a wrapper subclass without storage, or a fake tensor
        return False


class track_memory:  # noqa: N801 - used like a function: `with track_memory() as mem:`
    """Context manager: measure the live and peak bytes of the tensors allocated inside the block, in this thread.

        with distlab.track_memory() as mem:
            out = layer(x)            # allocations are counted; views and in-place writes are not
        mem.live, mem.peak            # `live` keeps decreasing after the block as its tensors are freed
    """

    def __enter__(self) -> MemoryTracker:
        self.tracker = MemoryTracker()
        self._mode = _Mode(self.tracker)
        _patch_storage_resize()
        _active.append(self.tracker)
        self._mode.__enter__()
        return self.tracker

    def __exit__(self, *exc) -> None:
        self._mode.__exit__(*exc)
        _active.remove(self.tracker)


_active: list[MemoryTracker] = []  # trackers whose block is running (a storage resized in place notifies them)


def _patch_storage_resize() -> None:
    """Make `UntypedStorage.resize_` (how FSDP2 frees and refills its all-gather buffers, without an ATen operation)
    report to the running trackers: a storage they track changes size; one grown from nothing is a new allocation."""
    original = torch.UntypedStorage.resize_
    if getattr(original, "_distlab", False):
        return

    @functools.wraps(original)
    def resize_(storage, size):
        result = original(storage, size)
        for tracker in list(_active):
            if storage._cdata in tracker._sizes:
                tracker._resized(storage._cdata, storage.nbytes())
            elif storage.nbytes() > 0 and not tracker._paused and storage.device.type != "meta":
                tracker._add(storage)
        return result

    resize_._distlab = True
    torch.UntypedStorage.resize_ = resize_


def saved_bytes_by_part(run, exclude=()) -> dict[str, int]:
    """{part: bytes of the storages autograd saved for the backward while `run(part, mark)` ran}.

    `run` calls `part(name)` when it enters a part of its code: a storage autograd saves counts under the part
    current when it is first saved. `mark(name, *tensors)` files the tensors' storages under `name` instead (a tensor
    that a later operation saves but that belongs to an earlier part: Q and K, saved by the attention core's matmul).
    Each storage counts once, at its whole size; the storages of `exclude` (the parameters: tensors, modules or
    containers of them) not at all; before the first `part()` the part is "?". This is how Korthikanti et al. (2022,
    §4.1) count a layer's activations: what the backward needs, seen through
    `torch.autograd.graph.saved_tensors_hooks`.
    """
    exclude = exclude if isinstance(exclude, (torch.Tensor, torch.nn.Module, dict)) else list(exclude)
    skip = {_storage_key(tensor) for tensor in _tensors(exclude, set())}
    seen, counts, current, marked = set(), {}, ["?"], {}

    def pack(tensor):
        key = _storage_key(tensor)
        if key not in seen and key not in skip:
            seen.add(key)
            name = marked.get(key, current[0])
            counts[name] = counts.get(name, 0) + tensor.untyped_storage().nbytes()
        return tensor

    def mark(name, *tensors):
        marked.update({_storage_key(tensor): name for tensor in tensors})

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        run(lambda name: current.__setitem__(0, name), mark)
    return counts
