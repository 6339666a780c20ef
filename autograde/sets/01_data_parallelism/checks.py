"""Trusted checks of exercise set 01 (data parallelism): one per test cell, named by its grade_id.

Run by the grader, never in the sandbox: inputs are made and expected values computed here; the student's code runs
in the sandbox through `student` (autograde/sandbox.py) and only plain data comes back.
"""
import math

import torch

from autograde import sets
from autograde.sets._common import (assert_number, assert_raises, assert_tensor, check, generator,
                                    spread_over_groups)
from autograde.netstat import RingWatch
from autograde.sandbox import StudentError
from distlab.models import TiedNet

from . import ranks  # model builders for the references

THIS_SET = __name__.split(".")[-2]  # this folder's name: autograde/sets/<THIS_SET>/checks.py
LAUNCH = sets.get(THIS_SET).launch.kwargs()  # the preset of set.toml, next to this file


def rank_inputs(world_size, numel, dtype=torch.float32, label=""):
    draw = generator(f"rank_inputs {world_size} {numel} {label}")
    return [(torch.randn(numel, generator=draw) * 100).to(dtype) for _ in range(world_size)]


def ring_results(student, inputs, **launch):
    return student.launch("rank_ring_all_reduce", len(inputs), rank_args=[(x,) for x in inputs], **LAUNCH, **launch)


@check
def ring_all_reduce_matches_builtin(student):
    """ring_all_reduce gives the sum over ranks, as dist.all_reduce does, and exactly the same values on every rank, on
    any number of ranks."""
    for world_size, numel in [(4, 1000), (2, 1000), (3, 999)]:
        inputs = rank_inputs(world_size, numel, torch.float64)
        expected = torch.stack(inputs).sum(0)
        results = ring_results(student, [x.float() for x in inputs])
        for rank, result in enumerate(results):
            where = f"{world_size} ranks, rank {rank}"
            assert_tensor(result["returned"], expected.float(), rtol=1e-5, atol=1e-3, where=where)
            assert torch.equal(result["returned"], results[0]["returned"]), f"{where}: different values from rank 0"
        print(f"{world_size} ranks: the sum over ranks, the same on every rank")


def exact_inputs(world_size, shape, dtype):
    """Integers (exact in any dtype and any order of addition); int64 ones near 2**58, which a float64 cannot hold."""
    numel = math.prod(shape)
    draw = generator(f"exact {world_size} {shape} {dtype}")
    base = 2**58 if dtype == torch.int64 else 0
    return [(torch.randint(-1000, 1000, (numel,), generator=draw) + base).to(dtype).reshape(shape)
            for _ in range(world_size)]


@check
def ring_all_reduce_uneven_sizes(student):
    """ring_all_reduce is exact for sizes not divisible by the world size, fewer elements than ranks, any shape,
    float32/float64/int64."""
    every_size = [((n,), dtype) for n in (0, 1, 2, 3, 5, 7, 9) for dtype in (torch.float32, torch.float64, torch.int64)]
    suites = {4: every_size + [((3, 5), torch.float64), ((2, 1, 3), torch.int64)],
              3: [((1001,), torch.float32), ((1001,), torch.float64), ((1001,), torch.int64), ((2,), torch.int64),
                  ((4, 4), torch.float32)],
              2: [((1,), torch.int64), ((9,), torch.float64), ((0,), torch.float32)]}
    for world_size, cases in suites.items():
        inputs = [exact_inputs(world_size, shape, dtype) for shape, dtype in cases]
        per_rank = [[case[rank] for case in inputs] for rank in range(world_size)]
        results = student.launch("rank_ring_all_reduce_many", world_size, rank_args=[(x,) for x in per_rank], **LAUNCH)
        for (shape, dtype), case in zip(cases, inputs):
            expected = sum(case[1:], case[0].clone())
            for rank in range(world_size):
                got = results[rank][cases.index((shape, dtype))]
                assert_tensor(got, expected, exact=True, where=f"{world_size} ranks, shape {shape}, {dtype}, rank {rank}")
        print(f"{world_size} ranks: exact for every size, shape and dtype tried")


@check
def ring_all_reduce_in_place(student):
    """ring_all_reduce writes the sum into the tensor it was given (same storage, same shape) and returns that same
    object."""
    for shape, dtype in [((10,), torch.float32), ((4, 5), torch.int64)]:
        inputs = [torch.full(shape, rank + 1, dtype=dtype) for rank in range(4)]
        for rank, result in enumerate(ring_results(student, inputs)):
            where = f"4 ranks, {dtype} {shape}, rank {rank}"
            assert result["same_object"], f"{where}: ring_all_reduce must return the tensor it was given"
            assert result["same_storage"], f"{where}: the tensor's storage was replaced; write the sum into it"
            assert_tensor(result["tensor"], torch.full(shape, 10, dtype=dtype), exact=True, where=f"{where} (input)")
            assert result["tensor"].is_contiguous(), f"{where}: the tensor's layout changed"
    print("in place, returns its argument")


# The point-to-point check's tensor: 256 KiB a rank (1.5 MiB around a 4-rank ring), far above what a rank sends its
# other peers besides (gloo's connection setup, the barriers): at most 344 bytes measured for the reference, against
# 394,512 that gloo's built-in all-reduce sends each rank's rank - 1.
WATCHED_NUMEL = 2**16
OFF_RING_BYTES = 16_000


@check
def ring_all_reduce_point_to_point_only(student):
    """ring_all_reduce calls no built-in collective (only point-to-point operations), and each rank sends its data to
    the next one, (rank + 1) % N, only, over its group's own connections (the grader reads the bytes on each connection
    from the kernel)."""
    world_size = 4
    inputs = exact_inputs(world_size, (WATCHED_NUMEL,), torch.float32)
    with RingWatch(student.network_pid(), world_size) as watch:
        try:
            results, on_loopback = student.launch("rank_ring_all_reduce_watched", world_size, args=(watch.port_base,),
                                                  rank_args=[(x,) for x in inputs], count_loopback=True, **LAUNCH)
        except StudentError:
            if watch.failure():  # the ranks waited for a reader that had given up
                raise AssertionError(f"the grader could not watch the ranks' connections: {watch.failure()}") from None
            raise
        flows = watch.flows()
    for rank, result in enumerate(results):
        assert_tensor(result["out"], sum(inputs[1:], inputs[0].clone()), exact=True, where=f"rank {rank}")
        assert not result["collectives"], f"rank {rank} called built-in collective(s) {result['collectives']}"
    nbytes = WATCHED_NUMEL * 4
    sent = flows["sent"]
    for rank in range(world_size):
        following = (rank + 1) % world_size
        for peer in range(world_size):
            if peer != following and sent[rank][peer] > OFF_RING_BYTES:
                raise AssertionError(
                    f"rank {rank} sent {sent[rank][peer]:,} bytes to rank {peer} ({sent[rank][peer] / nbytes:.2f} x "
                    f"its tensor): a ring sends only to the next rank, (rank + 1) % N = {following} (read from the "
                    f"kernel, per connection; gloo's built-in all-reduce sends to rank - 1)")
        assert flows["to_others"][rank] <= OFF_RING_BYTES, (
            f"rank {rank} sent {flows['to_others'][rank]:,} bytes on connections to no rank of the group")
    ring_total = 2 * (world_size - 1) * nbytes
    on_ring = sum(sent[rank][(rank + 1) % world_size] for rank in range(world_size))
    assert on_ring >= ring_total, (f"the ranks sent {on_ring:,} bytes to their next ranks, less than the ring's "
                                   f"2(N-1) * nbytes = {ring_total:,}")
    doubled = [pair for pair, count in flows["connections"].items() if count > 1]
    assert not doubled, (f"ranks {doubled[0]} talk over {flows['connections'][doubled[0]]} connections: use the "
                         f"group's own (a new process group opens new ones)")
    elsewhere = on_loopback - flows["total"]
    assert elsewhere <= ring_total * (LOOPBACK_PER_BYTE - 1) + LOOPBACK_FIXED_BYTES, (
        f"{elsewhere:,} bytes crossed the sandbox's loopback outside the ranks' connections open when the ring ended "
        f"(a connection opened and closed meanwhile?)")
    off_ring = max(sent[r][p] for r in range(world_size) for p in range(world_size) if p != (r + 1) % world_size)
    print(f"{world_size} ranks: each sent its data to the next rank ({on_ring:,} bytes around the ring, at most "
          f"{off_ring:,} to another rank), no built-in collective")


# Loopback bytes of one launch, beyond what its payload needs: gloo's connections and headers, TCP/IP headers.
# Measured for the reference solution: 6,310,656 bytes for a ring's 6,291,456 on 4 ranks (+0.3 %), 6,305,388 for
# 6,291,472 on 3; a ring of whole tensors sends 2x. The bound leaves room for other correct rings.
LOOPBACK_FIXED_BYTES = 100_000
LOOPBACK_PER_BYTE = 1.05


@check
def ring_all_reduce_bytes_match_cost(student):
    """The bytes the ranks send match the ring's cost model: 2(N-1) * nbytes in all, 2(N-1)/N * nbytes per rank (here
    counted by distlab.count_comm, with 2(N-1) sends per rank; the grader reads them from the sandbox's loopback, not
    from the ranks)."""
    for world_size, numel in [(4, 2**18), (3, 3 * 2**17 + 1)]:
        inputs = rank_inputs(world_size, numel, label="bytes")
        results, sent = ring_results(student, inputs, count_loopback=True)
        expected = torch.stack([x.double() for x in inputs]).sum(0).float()
        assert_tensor(results[0]["returned"], expected, rtol=1e-4, atol=1e-2, where=f"{world_size} ranks")
        nbytes = numel * 4
        ring_total = 2 * (world_size - 1) * nbytes
        where = f"{world_size} ranks, {nbytes} bytes each"
        assert sent >= ring_total, (f"{where}: the ranks sent {sent} bytes in all, less than a ring must send "
                                    f"(2(N-1) * nbytes = {ring_total}): is the data moved some other way?")
        bound = ring_total * LOOPBACK_PER_BYTE + LOOPBACK_FIXED_BYTES
        assert sent <= bound, (f"{where}: the ranks sent {sent} bytes in all ({sent / nbytes:.2f} x nbytes); a ring "
                               f"sends 2(N-1) * nbytes = {ring_total} ({2 * (world_size - 1)} x), plus headers")
        print(f"{where}: {sent} bytes on the wire in all; the ring's model says {ring_total} plus headers")


@check
def ring_all_reduce_subgroup(student):
    """With group=, ring_all_reduce sums over that subgroup's ranks only (peers translated to global ranks)."""
    for groups, shape, dtype in [([[0, 2], [1, 3]], (5,), torch.float32), ([[1, 2, 3]], (7,), torch.int64)]:
        inputs = exact_inputs(4, shape, dtype)
        results = student.launch("rank_ring_all_reduce_in_groups", 4, args=(groups,),
                                 rank_args=[(x,) for x in inputs], **LAUNCH)
        for rank in range(4):
            members = next((g for g in groups if rank in g), [rank])
            expected = sum((inputs[r] for r in members[1:]), inputs[members[0]].clone())
            assert_tensor(results[rank], expected, exact=True, where=f"groups {groups}, rank {rank}")
        print(f"groups {groups}: each rank holds the sum over its own group")


@check
def ring_all_reduce_cost_values(student):
    """ring_all_reduce_cost returns 2(N-1)/N * nbytes bytes per rank (the mean over ranks, not rounded) and 2(N-1)
    steps, and raises ValueError for world_size < 1 or nbytes < 0."""
    for world_size, nbytes in [(4, 4000), (1, 4000), (2, 4000), (3, 1000), (8, 2**20), (1000, 10**9), (4, 0)]:
        cost = student.call("ring_all_reduce_cost", world_size, nbytes)
        where = f"ring_all_reduce_cost({world_size}, {nbytes})"
        assert isinstance(cost, dict), f"{where} must return a dict, got {type(cost).__name__}"
        assert_number(cost.get("bytes_sent_per_rank"), 2 * (world_size - 1) / world_size * nbytes, abs_tol=1e-9,
                      where=f"{where}['bytes_sent_per_rank']")
        assert_number(cost.get("steps"), 2 * (world_size - 1), where=f"{where}['steps']")
    for bad in ((0, 100), (-2, 100), (4, -1)):
        assert_raises(student, ValueError, "ring_all_reduce_cost", *bad)
    print("ring_all_reduce_cost(4, 4000) =", student.call("ring_all_reduce_cost", 4, 4000))


def crossover(world_size, alpha, beta):
    """Where ring (2(N-1) alpha + 2(N-1)/N beta S) and recursive doubling (log2 N (alpha + beta S)) take equal time."""
    rounds = math.log2(world_size)
    saved_per_byte = (rounds - 2 * (world_size - 1) / world_size) * beta
    return math.inf if saved_per_byte <= 0 else (2 * (world_size - 1) - rounds) * alpha / saved_per_byte


@check
def ring_crossover_bytes_values(student):
    """ring_crossover_bytes gives the size above which the ring beats recursive doubling (math.inf if never), and raises
    ValueError unless world_size is a power of two >= 2, alpha >= 0 and beta > 0."""
    for world_size, alpha, beta in [(4, 10e-6, 1 / 25e9), (2, 1e-5, 4e-11), (2, 0.0, 1e-9), (8, 5e-6, 1e-11),
                                    (16, 0.0, 1e-9), (64, 2e-6, 1e-10), (1024, 1e-5, 4e-11)]:
        got = student.call("ring_crossover_bytes", world_size, alpha, beta)
        expected = crossover(world_size, alpha, beta)
        where = f"ring_crossover_bytes({world_size}, {alpha}, {beta})"
        if math.isinf(expected):
            assert got == math.inf, f"{where}: the ring is never faster here (expected math.inf), got {got!r}"
        else:
            assert_number(got, expected, abs_tol=1e-3, where=where)  # bytes: 0.001 of one is no difference
    for bad in ((3, 1e-5, 1e-10), (1, 1e-5, 1e-10), (0, 1e-5, 1e-10), (6, 1e-5, 1e-10), (4, -1e-6, 1e-10),
                (4, 1e-5, 0.0)):
        assert_raises(student, ValueError, "ring_crossover_bytes", *bad)
    print("ring_crossover_bytes(4, 10e-6, 1 / 25e9) =", student.call("ring_crossover_bytes", 4, 10e-6, 1 / 25e9))


def mlp_batches(steps, batch=8, label="mlp"):
    draw = generator(f"{label} {steps}")
    return [(torch.randn(batch, 4, generator=draw), torch.randn(batch, 1, generator=draw)) for _ in range(steps)]


def shares(batches, world_size):
    """Each rank's share of every batch: rank r gets the r-th slice (tensor_split) of each tensor."""
    return [[tuple(t.tensor_split(world_size)[rank] for t in batch) for batch in batches] for rank in range(world_size)]


@check
def average_gradients_matches_single_process(student):
    """SGD on N ranks, each with 1/N of the batch and average_gradients, gives the same weights as single-process
    full-batch SGD; with group=, each group trains as one process on its own batches."""
    for world_size, steps in [(2, 3), (4, 5)]:
        batches = mlp_batches(steps)
        expected = ranks.train_mlp(batches)
        results = student.launch("rank_train_mlp", world_size, rank_args=[(s,) for s in shares(batches, world_size)],
                                 **LAUNCH)
        for rank, params in enumerate(results):
            assert isinstance(params, list) and len(params) == len(expected), f"rank {rank}: not the parameter list"
            for i, (got, want) in enumerate(zip(params, expected, strict=True)):
                assert_tensor(got, want, rtol=1e-5, atol=1e-6,
                              where=f"{world_size} ranks, rank {rank}, parameter {i} after {steps} steps")
        print(f"{world_size} ranks: same weights as single-process training")
    groups = [[0, 2], [1, 3]]  # not contiguous: a group rank is not a global rank
    data = [mlp_batches(3, label=f"group {k}") for k in range(len(groups))]  # each group its own batches, as many
    per_group = [shares(batches, len(members)) for batches, members in zip(data, groups)]
    rank_args = [(groups, share) for share in spread_over_groups(groups, per_group)]
    results = student.launch("rank_train_mlp_in_groups", 4, rank_args=rank_args, **LAUNCH)
    for k, members in enumerate(groups):
        expected = ranks.train_mlp(data[k])
        for rank in members:
            params = results[rank]
            assert isinstance(params, list) and len(params) == len(expected), f"rank {rank}: not the parameter list"
            for i, (got, want) in enumerate(zip(params, expected, strict=True)):
                assert_tensor(got, want, rtol=1e-5, atol=1e-6, where=(
                    f"4 ranks in groups {groups}, average_gradients(model, group=...): rank {rank}, parameter {i}: "
                    f"not single-process training on its group's batches (average over the group's ranks only)"))
    print(f"4 ranks in groups {groups}: each group trains as one process on its own batches")


def assert_each_gradient_sent_once(comm, world_size, rank):
    """What the rank reports of its communication (distlab.count_comm in the rank, at the dispatcher: the elements
    handed in to every collective but broadcast and barrier, and the point-to-point bytes): each distinct gradient
    summed once. Averaging a tied weight twice gives the same
    values, so only the communication shows it. (A report from the rank is a claim: only a deliberately lying
    notebook could hide a second sum, and it would still have to train correctly.)"""
    trainable = [p for p in TiedNet().parameters() if p.requires_grad]  # distinct: the tied weight once
    elements = sum(p.numel() for p in trainable)
    ring_bound = sum(2 * (world_size - 1) * math.ceil(p.numel() / world_size) * p.element_size() for p in trainable)
    assert isinstance(comm, list) and comm, f"rank {rank}: no report of its communication"
    for summed, calls, bytes_sent in comm:
        assert summed <= elements + (world_size - 1) * calls, (
            f"rank {rank}: handed {summed} elements to collectives ({calls} calls), for {elements} elements "
            f"of distinct trainable parameters: is the tied weight summed twice?")
        assert bytes_sent <= ring_bound, (f"rank {rank}: sent {bytes_sent} bytes point-to-point, more than a ring "
                                          f"over each distinct gradient once ({ring_bound})")


def tied_batches(steps):
    draw = generator(f"tied {steps}")
    return [tuple(torch.randint(0, 11, (2, 8), generator=draw)) for _ in range(steps)]


@check
def average_gradients_frozen_and_tied(student):
    """average_gradients skips frozen parameters (grad stays None) and averages a tied weight once; training still
    matches single-process."""
    for world_size, steps in [(2, 3), (4, 4)]:
        batches = tied_batches(steps)
        expected = ranks.train_tied(batches)["state"]
        results = student.launch("rank_train_tied", world_size, rank_args=[(s,) for s in shares(batches, world_size)],
                                 **LAUNCH)
        for rank, result in enumerate(results):
            assert result["frozen_grad_is_none"] is True, f"rank {rank}: the frozen layer's .grad must stay None"
            assert result["tied"] is True, f"rank {rank}: the embedding and output layer no longer share one weight"
            for name, want in expected.items():
                assert_tensor(result["state"][name], want, rtol=1e-5, atol=1e-6,
                              where=f"{world_size} ranks, rank {rank}, {name} after {steps} steps")
            assert_each_gradient_sent_once(result["comm"], world_size, rank)
        print(f"{world_size} ranks: frozen layer untouched, tied weight trained as in a single process")
