"""distlab.memory: bytes held (distinct storages) and bytes allocated (live, peak), against sizes known in advance;
on real ranks for what is sharded (FSDP2's DTensors, a tensor gathered and freed).

    pytest tests/test_memory.py
"""
import gc
import time

import pytest
import torch
import torch.distributed as dist
import torch.nn as nn

import distlab


def test_tensor_bytes_counts_each_storage_once():
    a, b = torch.zeros(100), torch.zeros(10, dtype=torch.bfloat16)
    assert distlab.tensor_bytes(a) == 400 and distlab.tensor_bytes(b) == 20
    assert distlab.tensor_bytes(a, a[:10], a.view(10, 10).t(), [a, {"x": (b, a)}]) == 420  # views: the storage once
    assert distlab.tensor_bytes(a[:1]) == 400  # a slice holds its whole storage
    assert distlab.tensor_bytes(a, b, exclude=[b]) == 400
    assert distlab.tensor_bytes([], {}, 3, "text") == 0


def test_tied_weights_count_once_and_model_state_bytes_splits_the_states():
    model = nn.Sequential(nn.Embedding(10, 4), nn.Linear(4, 10, bias=False))
    model[1].weight = model[0].weight  # tied: 40 parameters, not 80
    assert distlab.tensor_bytes(model) == 40 * 4
    optimizer = torch.optim.AdamW(model.parameters())
    model(torch.tensor([1, 2])).sum().backward()
    optimizer.step()
    states = distlab.model_state_bytes(model, optimizer)
    # AdamW: exp_avg and exp_avg_sq (4 bytes each per parameter) and one 4-byte float32 `step` per tensor
    assert states == {"parameters": 160, "gradients": 160, "optimizer_states": 2 * 160 + 4, "total": 644}
    assert distlab.tensor_bytes(optimizer) == 324


def test_buffers_count_as_parameters_and_a_missing_optimizer_as_zero():
    model = nn.BatchNorm1d(8)  # weight, bias (parameters); running_mean, running_var, num_batches_tracked (buffers)
    assert distlab.model_state_bytes(model) == {"parameters": 4 * 8 * 4 + 8, "gradients": 0, "optimizer_states": 0,
                                                "total": 136}


def test_track_memory_sees_allocations_not_views_and_frees():
    x = torch.randn(10, 100)
    with distlab.track_memory() as mem:
        y = torch.empty(1000)          # 4000 bytes
        _ = x.t(), x[:5], x.view(-1)   # views of an outside tensor: nothing
        x.mul_(2)                      # in place: nothing
        z = torch.zeros(500, dtype=torch.float64)  # 4000 bytes
        assert (mem.live, mem.peak, mem.allocations) == (8000, 8000, 2)
        del y
        gc.collect()
        assert mem.live == 4000 and mem.peak == 8000
        mem.reset_peak()
        w = torch.ones(250)            # 1000 bytes
        assert mem.peak == 5000 and mem.allocated == 9000
        with mem.paused():
            kept = torch.ones(1000)    # not counted, now or when freed
        assert mem.live == 5000
    del z, w, kept
    gc.collect()
    assert mem.live == 0  # freed after the block: still seen
    with distlab.track_memory() as after:
        pass
    assert after.summary() == {"live": 0, "peak": 0, "allocated": 0, "allocations": 0}


def test_track_memory_sees_backward_and_the_gradients_it_leaves():
    layer, x = nn.Linear(100, 100), torch.randn(10, 100)
    with distlab.track_memory() as mem:
        loss = torch.tanh(layer(x)).sum()  # tanh keeps its output (10 x 100) for backward
        loss.backward()
        del loss
    gc.collect()
    assert mem.live == (100 * 100 + 100) * 4  # exactly the two gradients stay
    assert mem.peak >= 10 * 100 * 4 * 2  # the linear's output and tanh's were alive together during forward


def test_track_memory_peak_of_gather_then_free_on_ranks():
    """A shard all-gathered into a full buffer, used, freed: the peak holds the buffer, the live bytes do not."""
    def gather_and_free():
        world = dist.get_world_size()
        shard = torch.ones(250)
        with distlab.track_memory() as mem:
            full = torch.empty(250 * world)
            dist.all_gather_into_tensor(full, shard)
            total = full.sum().item()
            del full
        # gloo's worker thread drops its own reference to `full` just after waking us (ProcessGroupGloo::runLoop
        # resets the finished work after completing it): under load that comes a moment later.
        deadline = time.monotonic() + 5
        while mem.live and time.monotonic() < deadline:
            time.sleep(0.01)
        return total, mem.summary()

    for total, mem in distlab.launch(gather_and_free, 4, timeout=30, collective_timeout=10):
        assert total == 1000.0
        assert mem["peak"] >= 4000 and mem["live"] == 0


def test_dtensor_counts_its_local_shard_fsdp2():
    """FSDP2 (fully_shard) keeps each rank's padded dim-0 shard of every parameter; tensor_bytes counts just it."""
    def shard():
        from torch.distributed.fsdp import fully_shard
        torch.manual_seed(0)
        model = nn.Linear(8, 6)  # weight 6 x 8, bias 6; rows split over 4 ranks as 2, 2, 2, 0 (padded to 2 each)
        before = distlab.tensor_bytes(model)
        fully_shard(model)
        kinds = {type(p).__name__ for p in model.parameters()}
        return before, distlab.tensor_bytes(model), kinds

    for before, after, kinds in distlab.launch(shard, 4, timeout=60, collective_timeout=10):
        assert kinds == {"DTensor"}
        assert before == (6 * 8 + 6) * 4
        assert after == (2 * 8 + 2) * 4  # 2 of the 6 rows (and bias entries), padding included


@pytest.mark.parametrize("bad", [object(), None])
def test_other_objects_hold_nothing(bad):
    assert distlab.tensor_bytes(bad) == 0


def test_a_storage_resized_in_place_counts_at_its_new_size():
    """FSDP2 frees a gathered parameter with untyped_storage().resize_(0) and refills it later: live and peak follow."""
    with distlab.track_memory() as mem:
        buffer = torch.empty(1000)                 # 4000 bytes
        buffer.untyped_storage().resize_(0)        # freed, the tensor object stays
        assert mem.live == 0 and mem.peak == 4000
        buffer.untyped_storage().resize_(2000)     # refilled, bigger
        assert mem.live == 2000 and mem.peak == 4000
    outside = torch.empty(0)
    with distlab.track_memory() as mem:
        outside.untyped_storage().resize_(800)     # grown from nothing inside the block: an allocation
        assert mem.live == mem.peak == 800


def test_fsdp2_training_leaves_exactly_its_model_states_allocated():
    def fsdp_step():
        from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 64))
        policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
        with distlab.track_memory() as mem:
            for layer in model:
                if isinstance(layer, nn.Linear):
                    fully_shard(layer, mp_policy=policy)
            fully_shard(model, mp_policy=policy)
            optimizer = torch.optim.AdamW(model.parameters())
            model(torch.randn(8, 64)).sum().backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=False)
        gc.collect()
        return mem.live, mem.peak, distlab.model_state_bytes(model, optimizer)

    for live, peak, states in distlab.launch(fsdp_step, 2, timeout=60, collective_timeout=10):
        psi = 2 * (64 * 64 + 64)
        # fp32 sharded parameters and gradients, AdamW's m and v of the shard, 4 `step` counters
        assert states == {"parameters": 2 * psi, "gradients": 2 * psi, "optimizer_states": 4 * psi + 16,
                          "total": 8 * psi + 16}
        assert live == states["total"]  # the gathered bf16 parameters were freed (resize_(0))
        assert peak >= live + 2 * (64 * 64 + 64)  # a gathered bf16 layer existed during the step


def test_saved_bytes_by_part_files_each_saved_storage_once_under_its_part():
    """A matmul saves both inputs, GeLU its input; the weight is excluded, a view of a counted storage adds nothing,
    and a marked tensor counts under its mark's part whoever saves it."""
    weight = torch.randn(8, 4, requires_grad=True)

    def run(part, mark):
        x = torch.randn(3, 4).requires_grad_()
        part("matmul")
        h = x @ weight.T                       # saves x (48 B) and the weight (excluded)
        mark("marked", h)
        part("gelu")
        y = torch.nn.functional.gelu(h)        # saves h: filed under "marked", 96 B
        return (y * x[:, :1]).sum()            # saves y (96 B) and a view of x (already counted)

    counts = distlab.memory.saved_bytes_by_part(run, exclude=[weight])
    assert counts == {"matmul": 3 * 4 * 4, "marked": 3 * 8 * 4, "gelu": 3 * 8 * 4}, counts
    assert distlab.memory.saved_bytes_by_part(lambda part, mark: run(part, mark))["matmul"] == 48 + 8 * 4 * 4


def test_settled_live_waits_out_a_buffer_freed_a_moment_later():
    """As gloo's worker thread drops a collective's buffer a moment after wait() returns: `live` still counts it,
    `settled_live()` does not; what is really kept stays counted."""
    import threading
    with distlab.track_memory() as mem:
        kept = torch.zeros(1000)  # 4,000 bytes that stay
        late = [torch.zeros(2000)]  # 8,000 bytes another thread lets go of 50 ms from now
        threading.Timer(0.05, late.clear).start()
        assert mem.live == 12_000
        assert mem.settled_live(seconds=2.0) == 4_000  # (2 s: the thread wakes within it even on a busy machine)
        assert mem.live == 4_000 and kept.numel() == 1000
