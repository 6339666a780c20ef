"""distlab.count_comm on real ranks (gloo): every call path counted, by its public name, with bytes and global peers;
torch.distributed's namespace untouched; nesting, exceptions, threads. What the block costs in time is
measured by benchmarks/bench_comm.py, side by side with the plain ring (never by a timed unit test).

    pytest -q -p no:xdist tests/test_comm.py
"""
import pickle
import sys
import threading
import warnings
import weakref

import pytest
import torch
import torch.distributed as dist
import torch.distributed.distributed_c10d as c10d
from torch.distributed import all_reduce, irecv, isend  # imported before any block: count_comm must still see them

import distlab
from distlab.topology import global_rank, rank_or_zero, world_size_or_one

F32 = 4  # bytes per float32


def launch(fn, world_size, *args):
    return distlab.launch(fn, world_size, args=args, timeout=60, collective_timeout=20)


# --- point-to-point -------------------------------------------------------------------------------------------

def _ring_with_imported_names(numel):
    rank, world = dist.get_rank(), dist.get_world_size()
    out, incoming = torch.ones(numel), torch.empty(numel)
    with distlab.count_comm() as comm:
        requests = [isend(out, (rank + 1) % world), irecv(incoming, (rank - 1) % world)]
        for request in requests:
            request.wait()
    return comm.summary()


def test_imported_isend_and_irecv_are_counted_with_bytes_and_peers():
    for rank, c in enumerate(launch(_ring_with_imported_names, 3, 10)):
        assert c["calls"] == {"isend": 1, "irecv": 1} and c["collective_calls"] == {}
        assert c["bytes_sent"] == c["bytes_received"] == 10 * F32
        assert c["peers_sent_to"] == {(rank + 1) % 3: 10 * F32}
        assert c["peers_received_from"] == {(rank - 1) % 3: 10 * F32}


def _batched_ring(numel):
    rank, world = dist.get_rank(), dist.get_world_size()
    out, incoming = torch.full((numel,), float(rank)), torch.empty(numel)
    with distlab.count_comm() as comm:
        ops = [dist.P2POp(isend, out, (rank + 1) % world), dist.P2POp(irecv, incoming, (rank - 1) % world)]
        for request in dist.batch_isend_irecv(ops):
            request.wait()
    return comm.summary(), incoming[0].item()


def test_p2pop_of_an_imported_isend_works_in_the_block_and_is_counted_by_op():
    for rank, (c, got) in enumerate(launch(_batched_ring, 4, 6)):
        assert got == (rank - 1) % 4  # the message really arrived
        assert c["calls"] == {"isend": 1, "irecv": 1}  # named after the P2POps, not 'batch_isend_irecv'
        assert c["peers_sent_to"] == {(rank + 1) % 4: 6 * F32}
        assert c["peers_received_from"] == {(rank - 1) % 4: 6 * F32}


def _star(numel):
    rank, world = dist.get_rank(), dist.get_world_size()
    t = torch.ones(numel)
    with distlab.count_comm() as comm:
        if rank == 0:
            for peer in range(1, world):
                dist.recv(t, src=peer)
                dist.send(t, dst=peer)
        else:
            dist.send(t, dst=0)
            dist.recv(t, src=0)
    return comm.summary()


def test_blocking_send_and_recv_are_named_send_and_recv():
    root, *others = launch(_star, 3, 5)
    assert root["calls"] == {"send": 2, "recv": 2}  # not 'isend', which send() runs inside
    assert root["bytes_sent"] == root["bytes_received"] == 2 * 5 * F32
    assert root["peers_sent_to"] == root["peers_received_from"] == {1: 5 * F32, 2: 5 * F32}
    for c in others:
        assert c["calls"] == {"send": 1, "recv": 1} and c["peers_sent_to"] == {0: 5 * F32}


def _subgroup_exchange():
    rank = dist.get_rank()
    groups = [dist.new_group([0, 2]), dist.new_group([1, 3])]  # every rank creates every group
    group, t = groups[rank % 2], torch.ones(3)
    with distlab.count_comm() as comm:
        if rank < 2:
            dist.send(t, group_dst=1, group=group)  # group rank 1: global rank 2 or 3
            isend(t, dst=rank + 2, group=group).wait()  # the same peer, named by its global rank
        else:
            dist.recv(t, group_src=0, group=group)
            irecv(t, src=rank - 2, group=group).wait()
    return comm.summary()


def test_peers_in_a_subgroup_are_reported_as_global_ranks():
    results = launch(_subgroup_exchange, 4)
    for rank in (0, 1):
        assert results[rank]["peers_sent_to"] == {rank + 2: 2 * 3 * F32}
        assert results[rank + 2]["peers_received_from"] == {rank: 2 * 3 * F32}


def _global_ranks_in_subgroups():
    groups = [dist.new_group([0, 2]), dist.new_group([1, 3])]
    group = groups[dist.get_rank() % 2]
    return [global_rank(group, r) for r in range(2)], global_rank(None, 3), global_rank(dist.group.WORLD, 3)


def test_global_rank_translates_a_group_rank_and_the_default_group_is_the_identity():
    assert launch(_global_ranks_in_subgroups, 4) == [([0, 2], 3, 3), ([1, 3], 3, 3)] * 2
    assert global_rank(None, 5) == 5  # no process group needed


def _ranks_and_sizes_in_subgroups():
    groups = [dist.new_group([0, 2]), dist.new_group([1, 3])]
    mine = groups[dist.get_rank() % 2]
    return rank_or_zero(), world_size_or_one(), rank_or_zero(mine), world_size_or_one(mine)


def test_rank_or_zero_is_the_rank_in_the_group_and_zero_of_one_without_a_process_group():
    assert launch(_ranks_and_sizes_in_subgroups, 4) == [(0, 4, 0, 2), (1, 4, 0, 2), (2, 4, 1, 2), (3, 4, 1, 2)]
    assert (rank_or_zero(), world_size_or_one()) == (0, 1)  # this process has no process group


# --- collectives ----------------------------------------------------------------------------------------------

def _collectives(numel):
    world = dist.get_world_size()
    t = torch.ones(numel)
    with distlab.count_comm() as comm:
        dist.all_reduce(t)
        dist.all_gather_into_tensor(torch.empty(world * numel), t)
        dist.reduce_scatter_tensor(torch.empty(numel // world), t)
        dist.broadcast(t, src=0)
        dist.all_gather([torch.empty(numel) for _ in range(world)], t)
        dist.barrier()
    return comm.summary()


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_collectives_are_counted_by_public_name_with_their_payload():
    numel, world = 8, 2
    for c in launch(_collectives, world, numel):
        names = ["all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor", "broadcast", "all_gather", "barrier"]
        assert c["calls"] == c["collective_calls"] == dict.fromkeys(names, 1)
        assert c["collective_bytes"] == {  # the largest buffer of each, as nccl-tests sizes them
            "all_reduce": numel * F32, "all_gather_into_tensor": world * numel * F32,
            "reduce_scatter_tensor": numel * F32, "broadcast": numel * F32, "all_gather": world * numel * F32,
            "barrier": 0}
        assert c["bytes_sent"] == c["bytes_received"] == 0 and c["peers_sent_to"] == {}  # point-to-point only
        assert c["elements_in"] == dict.fromkeys(names[:-1], numel)  # what this rank handed in (a barrier: nothing)


def _handed_in(numel):
    """A tensor taking part in collectives under other names: imported before the block, functional, all_to_all."""
    import torch.distributed._functional_collectives as functional
    world, t = dist.get_world_size(), torch.ones(numel)
    with distlab.count_comm() as comm:
        all_reduce(t)  # imported by name before any block
        functional.all_reduce(t, "sum", dist.group.WORLD).wait()
        dist.all_to_all_single(torch.empty(numel), t)
        dist.scatter(torch.empty(numel // world), list(t.chunk(world)) if dist.get_rank() == 0 else None, src=0)
    return comm.summary()["elements_in"]


def test_elements_handed_in_are_counted_whatever_the_name_or_path():
    numel, world = 8, 2
    counts = launch(_handed_in, world, numel)
    for rank, c in enumerate(counts):
        assert c.get("all_to_all_single") == numel and c.get("scatter") == (numel if rank == 0 else 0), c
        assert sum(v for k, v in c.items() if "all_reduce" in k) == 2 * numel, c  # by name and functional


def _object_collective():
    gathered = [None] * dist.get_world_size()
    with distlab.count_comm() as comm:
        dist.all_gather_object(gathered, {"rank": dist.get_rank()})
    return comm.summary(), gathered


def test_an_object_collective_counts_once_with_the_bytes_its_inner_collectives_moved():
    for c, gathered in launch(_object_collective, 2):
        assert gathered == [{"rank": 0}, {"rank": 1}]
        assert c["calls"] == {"all_gather_object": 1}  # its two inner all_gathers are part of it
        assert c["collective_bytes"]["all_gather_object"] > 2 * len(pickle.dumps({"rank": 0}))


def _ddp_backward():
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 3))
    with distlab.count_comm() as comm:
        model(torch.ones(2, 4)).sum().backward()
    return comm.summary()


def test_ddps_cpp_reducer_all_reduces_are_counted():
    for c in launch(_ddp_backward, 2):
        assert c["collective_calls"] == {"all_reduce": 1}  # one bucket
        assert c["collective_bytes"] == {"all_reduce": (4 * 3 + 3) * F32}


def _dtensor_redistribute(numel):
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Replicate, Shard, distribute_tensor

    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    a = distribute_tensor(torch.ones(numel, numel), mesh, [Shard(0)])
    b = distribute_tensor(torch.ones(numel, numel), mesh, [Shard(1)])
    with distlab.count_comm() as comm:
        (a + b).redistribute(mesh, [Replicate()])  # a + b: DTensor redistributes b inside its own dispatch
    return comm.summary()


def test_dtensor_collectives_are_counted_even_inside_dtensors_dispatch():
    for c in launch(_dtensor_redistribute, 2, 4):
        assert sum(c["collective_calls"].values()) >= 2, c  # one for `a + b`, one for the Replicate
        assert c["collective_bytes"]["all_gather_into_tensor"] >= 4 * 4 * F32


# --- the block itself -----------------------------------------------------------------------------------------

def _namespace_inside_the_block():
    names = [n for n in dir(dist) if callable(getattr(dist, n)) and not n.startswith("_")]
    before = {n: getattr(dist, n) for n in names} | {"c10d." + n: getattr(c10d, n) for n in dir(c10d)}
    with distlab.count_comm():
        inside = {n: getattr(dist, n) for n in names} | {"c10d." + n: getattr(c10d, n) for n in dir(c10d)}
    return [n for n in before if inside[n] is not before[n]], dist.isend is isend


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_torch_distributed_namespace_is_untouched_inside_the_block():
    for changed, same_isend in launch(_namespace_inside_the_block, 1):
        assert changed == [] and same_isend


def _nested():
    t = torch.ones(4)
    with distlab.count_comm() as outer:
        dist.all_reduce(t)
        with distlab.count_comm() as inner:
            dist.all_reduce(t)
            dist.barrier()
        dist.barrier()
    block = distlab.count_comm()
    with block:
        with pytest.raises(RuntimeError, match="already open"):
            block.__enter__()
    return outer.summary()["calls"], inner.summary()["calls"]


def test_nested_blocks_both_count_and_reentering_one_block_is_refused():
    for outer, inner in launch(_nested, 2):
        assert outer == {"all_reduce": 2, "barrier": 2}
        assert inner == {"all_reduce": 1, "barrier": 1}


def _after_an_exception():
    t = torch.ones(4)
    with pytest.raises(ValueError, match="learner's bug"):
        with distlab.count_comm() as comm:
            dist.all_reduce(t)
            raise ValueError("learner's bug")
    dist.all_reduce(t)  # after the block: not counted
    return comm.summary()["calls"], torch._C._len_torch_dispatch_stack(), dist.all_reduce is c10d.all_reduce


def test_an_exception_leaves_nothing_behind():
    for calls, modes_left, same in launch(_after_an_exception, 2):
        assert calls == {"all_reduce": 1} and modes_left == 0 and same


def _other_thread():
    with distlab.count_comm() as comm:
        worker = threading.Thread(target=dist.all_reduce, args=(torch.ones(4),))
        worker.start()
        worker.join()
    return comm.summary()["calls"]


def test_operations_of_another_thread_are_not_counted():
    assert launch(_other_thread, 2) == [{}, {}]  # dispatch modes are per thread (documented)


def _frames_released():
    t = torch.ones(1000)
    alive = weakref.ref(t)
    with distlab.count_comm():
        if dist.get_rank() == 0:
            dist.send(t, dst=1)
        else:
            dist.recv(t, src=0)
    del t
    return alive() is None


def test_no_tensor_is_kept_alive_after_the_block():
    assert launch(_frames_released, 2) == [True, True]


def _warnings_are_errors():
    warnings.simplefilter("error")  # nbgrader zeroes a graded cell that writes to stderr
    t = torch.ones(4)
    with distlab.count_comm() as comm:
        _star(4)
        dist.all_reduce(t)
        dist.all_gather_object([None, None], dist.get_rank())
    return comm.summary()["calls"]


def test_the_block_itself_warns_nothing():
    assert launch(_warnings_are_errors, 2)[0] == {"send": 1, "recv": 1, "all_reduce": 1, "all_gather_object": 1}


def test_summary_is_picklable_and_plain():
    summary = launch(_star, 2, 3)[0]  # came back from a rank: pickled once already
    assert pickle.loads(pickle.dumps(summary)) == summary
    assert set(summary) == {"calls", "collective_calls", "bytes_sent", "bytes_received", "peers_sent_to",
                            "peers_received_from", "collective_bytes", "elements_in"}
    assert all(type(v) in (dict, int) for v in summary.values())


# --- count_bytes_written: the operating system's count, and where there is none --------------------------------

def _written_by_all_reduce(numel):
    t = torch.ones(numel)
    dist.all_reduce(t)  # connections set up outside the block
    with distlab.count_bytes_written() as written:
        dist.all_reduce(t)
    return written.bytes, distlab.count_bytes_written.available()


@pytest.mark.skipif(sys.platform != "linux", reason="/proc/self/io is Linux's")
def test_count_bytes_written_sees_gloos_ring_on_linux():
    numel = 2**16
    for written, available in launch(_written_by_all_reduce, 2, numel):
        assert available
        assert numel * F32 <= written <= 1.05 * numel * F32  # 2(N-1)/N * S = S on 2 ranks, plus headers


def test_without_proc_self_io_bytes_is_none_and_nothing_raises(monkeypatch, tmp_path):
    monkeypatch.setenv("DISTLAB_PROC_IO", str(tmp_path / "absent"))  # what macOS looks like
    assert distlab.count_bytes_written.available() is False
    with distlab.count_bytes_written() as written:
        print("written inside the block")
    assert written.bytes is None
