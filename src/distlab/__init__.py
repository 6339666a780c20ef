"""distlab: the small library the Distributed AI course runs on.

Tools the notebooks use (launch ranks, count communication, run torchrun, record timelines, plot); never the graded
answers.

`import distlab` imports no torch: each name below is imported from its module on first use (PEP 562), so the
grader's own process, nbgrader's commands and the benchmarks' drivers can use the standard-library core
(`distlab.launching.deadline`, `.process_tree`, `.forkserver`) without paying torch's import.
"""
import importlib as _importlib
import sys as _sys

from .launching.forkserver import warm_up  # standard library only

if "ipykernel" in _sys.modules:
    # In a notebook: start the forkserver before this kernel imports torch, so that the two imports (~3 s each)
    # overlap and the notebook's first launch finds the ranks' torch already imported.
    warm_up()

# name -> the module it lives in (imported on first use)
_HOMES = {
    "CommCount": "comm", "count_bytes_written": "comm", "count_comm": "comm",
    "init_distributed": "devices", "pick_backend": "devices",
    "LaunchError": "errors", "LaunchTimeout": "errors", "RankCrashed": "errors", "RankFailed": "errors",
    "StartupTimeout": "errors",
    "fixed_layout_ddp": "ddp_layout", "per_parameter_allreduce": "ddp_layout",
    "FailAt": "faults", "FailurePlan": "faults", "InjectedFailure": "faults", "KillWhenPickled": "faults",
    "faults_from_env": "faults", "kill_after_open": "faults", "SlowRank": "faults",
    "launch": "launching.launcher", "LaunchPreset": "launching.preset",
    "MemoryTracker": "memory", "model_state_bytes": "memory", "tensor_bytes": "memory", "track_memory": "memory",
    "KVCache": "models", "ModelConfig": "models", "TinyTransformer": "models", "random_batch": "models",
    "Timeline": "timeline", "busy_seconds": "timeline", "plot_timeline": "timeline", "timeline_summary": "timeline",
    "OverlapWatch": "overlap", "overlap_summary": "overlap", "plot_overlap": "overlap", "watch_overlap": "overlap",
    "check_prediction": "predict",
    "FlightRecorder": "orchestration", "Preemption": "orchestration", "Rendezvous": "orchestration",
    "RendezvousTimeout": "orchestration", "preempt": "orchestration", "rendezvous_by_hand": "orchestration",
    "finish": "shutdown",
    "TorchrunFailed": "launching.torchrun", "TorchrunOutput": "launching.torchrun", "torchrun": "launching.torchrun",
    "torchrun_command": "launching.torchrun",
}
_MODULES = {"bandwidth", "comm", "ddp_layout", "devices", "elastic", "errors", "faults", "figures", "launching",
            "memory", "models", "notebook_source", "orchestration", "overlap", "predict", "serving", "shutdown",
            "timeline", "topology"}

__all__ = ["warm_up", *_HOMES]
__version__ = "0.1.0"


def __getattr__(name: str):
    """`distlab.launch`, `distlab.models`, ...: the name's module is imported the first time it is used."""
    if name in _HOMES:
        value = getattr(_importlib.import_module(f".{_HOMES[name]}", __name__), name)
    elif name in _MODULES:
        value = _importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module 'distlab' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted({*globals(), *_HOMES, *_MODULES})


if "ipykernel" in _sys.modules:
    from .launching.torchrun import register_magic as _register_magic
    _register_magic()
