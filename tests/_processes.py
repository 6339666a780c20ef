"""Test helper: kill every process left running in a test's folder (torchrun starts each rank in a session of its
own, so killing an agent's process group can leave ranks behind)."""
import os
from pathlib import Path

import psutil


def kill_processes_in(folder: Path) -> None:
    """SIGKILL every process whose working directory is `folder` or below it, until none is left (or fail)."""
    for _ in range(50):
        left = []
        for p in psutil.process_iter():
            try:
                if p.pid != os.getpid() and Path(p.cwd()).is_relative_to(folder):
                    p.kill()
                    left.append(p)
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                pass
        if not left:
            return
        psutil.wait_procs(left, timeout=1)
    raise AssertionError(f"processes in {folder} survived SIGKILL")
