"""distlab: the small library the Distributed AI course runs on.

Tools the notebooks use (launch ranks, count communication, run torchrun, plot); never the graded answers.
"""
import sys as _sys

from .comm import CommCount, count_bytes_written, count_comm
from .errors import LaunchError, LaunchTimeout, RankCrashed, RankFailed
from .launcher import default_backend, launch, warm_up
from .torchrun import TorchrunFailed, torchrun, torchrun_command

__all__ = ["launch", "count_comm", "CommCount", "count_bytes_written", "warm_up", "default_backend", "LaunchError", "LaunchTimeout", "RankCrashed", "RankFailed",
           "torchrun", "torchrun_command", "TorchrunFailed"]
__version__ = "0.1.0"

if "ipykernel" in _sys.modules:  # in a notebook: start the forkserver now, so the first launch is already warm
    warm_up()
    from .torchrun import register_magic as _register_magic
    _register_magic()
