"""distlab: the small library the Distributed AI course runs on.

Tools the notebooks use (launch ranks, count communication, run torchrun, record timelines, plot); never the graded
answers.
"""
import sys as _sys

from .launching.forkserver import warm_up  # standard library only: cheap to import before torch

if "ipykernel" in _sys.modules:
    # In a notebook: start the forkserver before this kernel imports torch, so that the two imports (~3 s each)
    # overlap and the notebook's first launch finds the ranks' torch already imported.
    warm_up()

from .comm import CommCount, count_bytes_written, count_comm
from .devices import default_backend, init_distributed, pick_backend
from .errors import LaunchError, LaunchTimeout, RankCrashed, RankFailed, StartupTimeout
from .exact import fixed_layout_ddp, per_parameter_allreduce
from .faults import FailAt, FailurePlan, InjectedFailure, KillWhenPickled, faults_from_env, kill_after_open
from .launching.launcher import launch
from .memory import MemoryTracker, model_state_bytes, tensor_bytes, track_memory
from .models import KVCache, ModelConfig, TinyTransformer, random_batch
from .timeline import Timeline, busy_seconds, plot_timeline, timeline_summary
from .overlap import OverlapWatch, overlap_summary, plot_overlap, watch_overlap
from .predict import check_prediction
from .shutdown import finish
from .torchrun import TorchrunFailed, TorchrunOutput, torchrun, torchrun_command

__all__ = [
    "launch", "warm_up", "default_backend", "LaunchError", "LaunchTimeout", "RankCrashed", "RankFailed",
    "StartupTimeout",
    "count_comm", "CommCount", "count_bytes_written", "torchrun", "torchrun_command", "TorchrunFailed",
    "TorchrunOutput",
    "init_distributed", "pick_backend", "finish",
    "tensor_bytes", "model_state_bytes", "track_memory", "MemoryTracker",
    "FailAt", "FailurePlan", "InjectedFailure", "KillWhenPickled", "faults_from_env", "kill_after_open",
    "fixed_layout_ddp", "per_parameter_allreduce",
    "ModelConfig", "TinyTransformer", "KVCache", "random_batch",
    "Timeline", "plot_timeline", "timeline_summary", "busy_seconds",
    "OverlapWatch", "watch_overlap", "overlap_summary", "plot_overlap",
    "check_prediction",
]
__version__ = "0.1.0"

if "ipykernel" in _sys.modules:
    from .torchrun import register_magic as _register_magic
    _register_magic()
