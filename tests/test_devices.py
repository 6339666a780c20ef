"""distlab.devices: NCCL and GPU LOCAL_RANK where the node has a GPU per local rank, gloo and the CPU otherwise; the
choice tested on the CPU with CUDA's availability patched (the NCCL path itself runs in tests/test_gpu.py, on a GPU).

    pytest tests/test_devices.py
"""
import pytest
import torch
import torch.distributed as dist

import distlab
from distlab import devices


def gpus(monkeypatch, count: int, nccl: bool = True) -> list:
    """Pretend this machine has `count` GPUs; record what would be called on them instead of calling it."""
    calls = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: count > 0)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: count)
    monkeypatch.setattr(dist, "is_nccl_available", lambda: nccl)
    monkeypatch.setattr(torch.cuda, "set_device", lambda device: calls.append(("set_device", device)))
    monkeypatch.setattr(dist, "init_process_group", lambda backend, **kw: calls.append((backend, kw)))
    return calls


@pytest.mark.parametrize("count, local_world_size, nccl, expected", [
    (0, 1, True, "gloo"),   # no GPU
    (1, 1, True, "nccl"),   # one GPU, one rank on this node
    (1, 2, True, "gloo"),   # two ranks cannot share one GPU under NCCL
    (8, 8, True, "nccl"),   # a full node
    (4, 4, False, "gloo"),  # a torch built without NCCL
])
def test_nccl_needs_a_gpu_per_rank_of_this_node(monkeypatch, count, local_world_size, nccl, expected):
    gpus(monkeypatch, count, nccl)
    assert distlab.pick_backend(local_world_size) == expected


def torchrun_env(monkeypatch, rank: int, local_rank: int, local_world_size: int, world_size: int) -> None:
    for name, value in (("RANK", rank), ("LOCAL_RANK", local_rank), ("LOCAL_WORLD_SIZE", local_world_size),
                        ("WORLD_SIZE", world_size)):
        monkeypatch.setenv(name, str(value))
    monkeypatch.delenv(devices.BACKEND_VAR, raising=False)


def test_two_nodes_of_two_gpus_use_nccl_and_the_local_gpu(monkeypatch):
    """Rank 3 of 4 is local rank 1 of its node: GPU 1, though the job has 4 ranks and the node only 2 GPUs."""
    calls = gpus(monkeypatch, 2)
    torchrun_env(monkeypatch, rank=3, local_rank=1, local_world_size=2, world_size=4)
    device = distlab.init_distributed()
    assert device == torch.device("cuda", 1)
    assert calls == [("set_device", device), ("nccl", {"device_id": device})]


def test_without_enough_gpus_it_is_gloo_on_the_cpu(monkeypatch):
    calls = gpus(monkeypatch, 1)
    torchrun_env(monkeypatch, rank=1, local_rank=1, local_world_size=2, world_size=2)
    assert distlab.init_distributed() == torch.device("cpu")
    assert calls == [("gloo", {})]


def test_the_environment_can_force_gloo_and_a_bad_name_is_refused(monkeypatch):
    calls = gpus(monkeypatch, 8)
    torchrun_env(monkeypatch, rank=0, local_rank=0, local_world_size=8, world_size=8)
    monkeypatch.setenv(devices.BACKEND_VAR, "gloo")
    assert distlab.init_distributed() == torch.device("cpu") and calls == [("gloo", {})]
    monkeypatch.setenv(devices.BACKEND_VAR, "mpi")
    with pytest.raises(ValueError, match="'gloo' or 'nccl', got 'mpi'"):
        distlab.init_distributed()


def test_launch_picks_nccl_only_with_a_gpu_per_rank(monkeypatch):
    gpus(monkeypatch, 2)
    from distlab.launching.launcher import _check_backend  # launch's choice when no backend is given

    assert _check_backend(None, 2) == "nccl" and _check_backend(None, 4) == "gloo"
