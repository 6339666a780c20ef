"""`distlab.LaunchPreset`: a caller's launch deadlines declared once, passed to every launch, overridden per call.

    pytest tests/test_preset.py
"""
import inspect
import subprocess
import sys
import time
from dataclasses import FrozenInstanceError, fields

import pytest
import torch
import torch.distributed as dist

import distlab
from distlab.launching import launcher
from distlab.launching.preset import LaunchPreset
from _timing import sooner_than

LESSON = LaunchPreset(timeout=60, collective_timeout=15, backend="gloo")  # lessons 4 and 7 declare this one


def test_it_is_distlab_s_and_importing_distlab_for_it_imports_no_torch():
    code = ("import sys, distlab; distlab.LaunchPreset(timeout=30, backend='gloo').kwargs(); "
            "print(sorted(m for m in sys.modules if m == 'torch' or m.startswith('torch.')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.strip() == "[]"
    assert distlab.LaunchPreset is LaunchPreset


def test_every_field_is_a_keyword_of_launch_and_none_is_left_to_launch_s_default():
    signature = inspect.signature(distlab.launch)
    assert {field.name for field in fields(LaunchPreset)} <= set(signature.parameters)
    assert LESSON.kwargs() == {"timeout": 60, "collective_timeout": 15, "backend": "gloo"}
    assert LaunchPreset().kwargs() == {"timeout": 60.0}
    full = LaunchPreset(timeout=90, collective_timeout=30, startup_timeout=20, backend="nccl")
    assert full.kwargs() == {"timeout": 90, "collective_timeout": 30, "startup_timeout": 20, "backend": "nccl"}


def test_launch_passes_the_preset_s_keywords_and_a_call_s_overrides_win(monkeypatch):
    calls = []
    monkeypatch.setattr(launcher, "launch", lambda *args, **kwargs: calls.append((args, kwargs)) or ["result"])
    assert LESSON.launch(print, 2, args=(1,)) == ["result"]
    assert LESSON.launch(print, 3, (2,), {"sep": ""}, timeout=120, output="hide")
    assert calls == [((print, 2, (1,), None), {"timeout": 60, "collective_timeout": 15, "backend": "gloo"}),
                     ((print, 3, (2,), {"sep": ""}),
                      {"timeout": 120, "collective_timeout": 15, "backend": "gloo", "output": "hide"})]
    assert LESSON.kwargs()["timeout"] == 60  # an override is one call's, the preset is unchanged
    with pytest.raises(FrozenInstanceError):
        LESSON.timeout = 120


def _sum_of_ranks(offset):
    t = torch.tensor([dist.get_rank() + offset])
    dist.all_reduce(t)
    return dist.get_backend(), t.item()


def _rank_1_never_joins_the_all_reduce():
    if dist.get_rank() == 1:
        time.sleep(600)
    dist.all_reduce(torch.ones(1))


def test_a_real_launch_runs_with_the_preset_and_its_collective_timeout_ends_a_hang():
    preset = LaunchPreset(timeout=60, collective_timeout=1.5, backend="gloo")
    assert preset.launch(_sum_of_ranks, 2, args=(10,)) == [("gloo", 21)] * 2
    start = time.monotonic()
    with pytest.raises(distlab.RankFailed, match="rank 0"):
        preset.launch(_rank_1_never_joins_the_all_reduce, 2, output="hide")
    assert time.monotonic() - start < sooner_than(60)  # the preset's 1.5 s collective timeout, not the 60 s deadline


@pytest.mark.parametrize("fields_, message", [
    ({"timeout": 0}, r"LaunchPreset\.timeout must be a positive number of seconds, got 0"),
    ({"timeout": None}, r"LaunchPreset\.timeout must be a positive number of seconds, got None"),
    ({"collective_timeout": True}, r"LaunchPreset\.collective_timeout must be a positive number of seconds, got True"),
    ({"startup_timeout": -5}, r"LaunchPreset\.startup_timeout must be a positive number of seconds, got -5"),
    ({"startup_timeout": "30"}, r"LaunchPreset\.startup_timeout must be a positive number of seconds, got '30'"),
    ({"timeout": 10, "startup_timeout": 20}, r"LaunchPreset\.startup_timeout \(20 s\) is longer than the launch's"),
    ({"timeout": 10, "collective_timeout": 20}, r"LaunchPreset\.collective_timeout \(20 s\) is longer than the"),
    ({"backend": "mpi"}, r"LaunchPreset\.backend must be 'gloo', 'nccl' or None, got 'mpi'"),
    ({"backend": "GLOO"}, r"LaunchPreset\.backend must be 'gloo', 'nccl' or None, got 'GLOO'"),
])
def test_a_preset_out_of_range_is_refused_naming_the_field_and_the_value(fields_, message):
    with pytest.raises(ValueError, match=message):
        LaunchPreset(**fields_)


def test_every_value_in_range_is_accepted():
    for preset in (LaunchPreset(timeout=0.5), LaunchPreset(timeout=10, collective_timeout=10, startup_timeout=10),
                   LaunchPreset(timeout=1e6, backend="nccl"), LaunchPreset(timeout=3, startup_timeout=0.1)):
        assert preset.kwargs()["timeout"] == preset.timeout
