"""On a machine with a GPU: what one GPU allows. Every script in lessons/scripts/ at world size 1 on NCCL (its CUDA
path: model, batches and collectives on GPU 0), `distlab.launch` on NCCL, and gloo all-reducing CUDA tensors.
Skipped without CUDA (the choice of backend is tested on the CPU in tests/test_devices.py). Not yet run on a GPU.

    pytest tests/test_gpu.py
"""
from pathlib import Path

import pytest
import torch
import torch.distributed as dist

import distlab

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")

SCRIPTS = Path(__file__).resolve().parents[1] / "lessons" / "scripts"
ARGS = {"01_train_ddp.py": ["--epochs", "2"], "02_train_fsdp2.py": ["--out", "{tmp}/weights.pt"],
        "03_train_resume.py": ["--dir", "{tmp}/ckpt"], "04_train_tp.py": [], "05_train_pipeline.py": [],
        "06_train_amp.py": [], "07_decode_tp.py": [],
        "08_elastic.py": ["--dir", "{tmp}/ckpt"]}
SAYS = {"01_train_ddp.py": "(cuda)", "02_train_fsdp2.py": "(cuda;", "03_train_resume.py": "(cuda)",
        "04_train_tp.py": "(cuda)", "05_train_pipeline.py": "(cuda)", "06_train_amp.py": "cuda",
        "07_decode_tp.py": "(nccl)", "08_elastic.py": "ranks (cuda)"}


def test_every_script_is_listed():
    assert sorted(ARGS) == sorted(SAYS) == sorted(p.name for p in SCRIPTS.glob("*.py"))


@pytest.mark.parametrize("script", sorted(ARGS))
def test_each_script_on_one_gpu_with_nccl(script, tmp_path):
    args = [a.format(tmp=tmp_path) for a in ARGS[script]]
    output = distlab.torchrun(str(SCRIPTS / script), nproc_per_node=1, args=args, timeout=300, echo=False)
    assert SAYS[script] in output, output


def on_gpu():
    t = torch.ones(4, device="cuda")
    dist.all_reduce(t)
    return dist.get_backend(), t.device.type, t.sum().item()


def test_launch_uses_nccl_and_the_gpu():
    assert distlab.launch(on_gpu, 1, timeout=120) == [("nccl", "cuda", 4.0)]


def test_gloo_all_reduces_cuda_tensors():
    assert distlab.launch(on_gpu, 2, backend="gloo", timeout=120) == [("gloo", "cuda", 8.0)] * 2
