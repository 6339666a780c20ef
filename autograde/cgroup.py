"""A control group per student: one bound on the tasks (processes and threads) and the memory of everything in one
student's sandbox together, where the system lets the grader make one.

    group = StudentGroup.create("alice")      # None where the system offers none: `why_none()` says why
    subprocess.Popen(..., preexec_fn=group.join)   # the child and everything it starts are in the group
    group.peak()                              # {"memory_bytes": ..., "tasks": ...} the most it used at once
    group.remove()                            # once its processes are gone

Per-process rlimits alone do not bound a student: RLIMIT_DATA is per process (a notebook can start many), and
RLIMIT_NPROC counts every process of the sandbox's user, so students graded side by side (`--jobs`) share it. A group
counts the whole student, and only that student: past TASKS, fork and thread creation fail in the sandbox; past
MEMORY_BYTES, the kernel's OOM killer ends a process of that sandbox (the check fails, the next one starts a fresh
sandbox), never the grader's or another student's.

CPU: where the group can have a CPU controller, every student's group gets the same weight (v2 `cpu.weight`, v1
`cpu.shares`: the kernel's defaults, but set, and in a group of its own, so that a student with 200 spinning processes
gets one student's share, not 200 processes' worth beside a single honest one), and with `cpus` a cap (v2 `cpu.max`,
v1 `cpu.cfs_quota_us`; e.g. cores / --jobs). Without a CPU controller, the kernel's autogroup (if on) is all there is;
`describe()` says which.

Two kinds of system, tried in order:
- cgroup v2 (one hierarchy, `/sys/fs/cgroup/cgroup.controllers`): a child of the grader's own group, when that group
  is writable and delegates the `memory` and `pids` controllers (e.g. `systemd-run --user --scope -p Delegate=yes`, or
  a container that gives the grader its own group);
- cgroup v1 (`/sys/fs/cgroup/memory`, `/sys/fs/cgroup/pids`, writable by root): a child of the grader's group in
  each of the two hierarchies.
"""
from __future__ import annotations

import itertools
import os
import time
from pathlib import Path

from distlab.launching.deadline import Deadline

from autograde.limits import DEFAULT

ROOT = Path("/sys/fs/cgroup")
# everything of one student's sandbox at once (tmpfs files in its /tmp included), and its processes and threads
MEMORY_BYTES, TASKS = DEFAULT.memory_bytes, DEFAULT.tasks
CPU_WEIGHT, CPU_SHARES = 100, 1024  # the same for every student (v2, v1); the kernel's defaults
CPU_PERIOD_US = 100_000
_counter = itertools.count()


def _own_path(controller: str | None) -> str | None:
    """The grader's group in the hierarchy of `controller` (None: the v2 hierarchy), from /proc/self/cgroup."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if (controller is None and controllers == "") or (controller in controllers.split(",")):
            return path
    return None


class StudentGroup:
    """One student's group: a folder per hierarchy (v2: one; v1: memory and pids), with the limits it was set."""

    def __init__(self, folders: dict[str, Path], version: int, limits: dict, cpu: str | None = None):
        self.folders, self.version = folders, version
        self.limits = limits  # {"memory_bytes", "tasks", "cpus"} as set
        self.cpu = cpu  # the CPU controller's settings in words, or None without one

    @classmethod
    def create(cls, label: str, memory_bytes: int = MEMORY_BYTES, tasks: int = TASKS,
               cpus: float | None = None) -> StudentGroup | None:
        """A new group for one student, with its limits set; None where none can be made. `cpus`: a cap in cores
        (None: none), where there is a CPU controller."""
        name = f"distlab-{''.join(c if c.isalnum() else '-' for c in label)[:40]}-{os.getpid()}-{next(_counter)}"
        for version, make in ((2, _v2_folders), (1, _v1_folders)):
            try:
                folders = make(name, memory_bytes, tasks)
            except OSError:
                folders = None
            if folders is not None:
                cpu = (_v2_cpu if version == 2 else _v1_cpu)(folders, name, cpus)
                return cls(folders, version, {"memory_bytes": memory_bytes, "tasks": tasks, "cpus": cpus}, cpu)
        return None

    @staticmethod
    def why_none() -> str:
        """Why StudentGroup.create makes none here (for the grading report)."""
        if (ROOT / "cgroup.controllers").exists():
            return ("cgroup v2 without a writable group that delegates memory and pids to the grader (run it in one, "
                    "e.g. `systemd-run --user --scope -p Delegate=yes ...`)")
        if (ROOT / "memory").is_dir():
            return "cgroup v1: only root may make groups"
        return "no cgroup hierarchy mounted"

    @classmethod
    def available(cls, memory_bytes: int = MEMORY_BYTES, tasks: int = TASKS, cpus: float | None = None) -> str:
        """What grading here would get, in words: the kind of group and its limits, or why there is none."""
        group = cls.create("probe", memory_bytes, tasks, cpus)
        if group is None:
            return f"none: {cls.why_none()}"
        group.remove()
        return group.describe()

    def describe(self) -> str:
        gib = self.limits["memory_bytes"] / 2**30
        cpu = self.cpu or "no CPU controller (the kernel's autogroup, if on, is all that shares the cores)"
        return f"cgroup v{self.version}: {gib:g} GiB, {self.limits['tasks']} tasks per student; CPU: {cpu}"

    def join(self) -> None:
        """In a child process before it starts the sandbox (a preexec_fn): move it into the group."""
        for folder in self.folders.values():
            (folder / "cgroup.procs").write_text(str(os.getpid()))

    def peak(self) -> dict:
        """The most memory and tasks the group used at once (tasks: where the kernel keeps the peak, else now)."""
        if self.version == 2:
            folder = self.folders["v2"]
            memory = folder / "memory.peak"
            tasks = folder / "pids.peak"
            return {"memory_bytes": int(memory.read_text()) if memory.exists() else None,
                    "tasks": int((tasks if tasks.exists() else folder / "pids.current").read_text())}
        tasks = self.folders["pids"] / "pids.peak"
        return {"memory_bytes": int((self.folders["memory"] / "memory.max_usage_in_bytes").read_text()),
                "tasks": int((tasks if tasks.exists() else self.folders["pids"] / "pids.current").read_text())}

    def remove(self, wait_s: float = 5.0) -> None:
        """Remove the group's folders (after its processes ended; a group still in use is retried until wait_s)."""
        _remove(self.folders, wait_s)


def _v2_folders(name: str, memory_bytes: int, tasks: int) -> dict[str, Path] | None:
    """A cgroup v2 group `name`, its limits set, under the grader's own group; None without a v2 hierarchy."""
    if not (ROOT / "cgroup.controllers").exists() or _own_path(None) is None:
        return None
    parent = ROOT / _own_path(None).lstrip("/")
    enabled = (parent / "cgroup.subtree_control").read_text().split()
    missing = [c for c in ("memory", "pids") if c not in enabled]
    if missing:  # fails when the grader's own group holds processes (v2: no process in an inner group)
        (parent / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in missing))
    folder = parent / name
    folder.mkdir()
    try:
        (folder / "memory.max").write_text(str(memory_bytes))
        if (folder / "memory.swap.max").exists():
            (folder / "memory.swap.max").write_text("0")
        (folder / "pids.max").write_text(str(tasks))
    except OSError:
        folder.rmdir()
        raise
    return {"v2": folder}


def _v2_cpu(folders: dict[str, Path], name: str, cpus: float | None) -> str | None:
    """The v2 group's CPU weight (and cap), where the parent can hand the cpu controller down; its words, or None."""
    folder = folders["v2"]
    try:
        parent = folder.parent
        if "cpu" not in (parent / "cgroup.subtree_control").read_text().split():
            if "cpu" not in (parent / "cgroup.controllers").read_text().split():
                return None
            (parent / "cgroup.subtree_control").write_text("+cpu")
        (folder / "cpu.weight").write_text(str(CPU_WEIGHT))
        if cpus:
            (folder / "cpu.max").write_text(f"{int(cpus * CPU_PERIOD_US)} {CPU_PERIOD_US}")
    except OSError:
        return None
    return f"cpu.weight {CPU_WEIGHT} each" + (f", at most {cpus:g} core{'s' * (cpus != 1)}" if cpus else "")


def _v1_cpu(folders: dict[str, Path], name: str, cpus: float | None) -> str | None:
    """A v1 group of the student's in the cpu hierarchy, its shares (and cap) set; added to `folders`; its words."""
    own = _own_path("cpu")
    hierarchy = ROOT / "cpu"
    if own is None or not hierarchy.is_dir():
        return None
    folder = hierarchy / own.lstrip("/") / name
    try:
        folder.mkdir()
    except OSError:
        return None
    try:
        (folder / "cpu.shares").write_text(str(CPU_SHARES))
        if cpus:
            (folder / "cpu.cfs_period_us").write_text(str(CPU_PERIOD_US))
            (folder / "cpu.cfs_quota_us").write_text(str(int(cpus * CPU_PERIOD_US)))
    except OSError:
        _remove({"cpu": folder})
        return None
    folders["cpu"] = folder
    return f"cpu.shares {CPU_SHARES} each" + (f", at most {cpus:g} core{'s' * (cpus != 1)}" if cpus else "")


def _v1_folders(name: str, memory_bytes: int, tasks: int) -> dict[str, Path]:
    """A cgroup v1 group `name` in the memory and in the pids hierarchy, its limits set (OSError where it cannot)."""
    folders = {}
    try:
        for controller, limits in (("memory", {"memory.limit_in_bytes": memory_bytes}),
                                   ("pids", {"pids.max": tasks})):
            own = _own_path(controller)
            if own is None or not (ROOT / controller).is_dir():
                raise OSError(f"no cgroup v1 {controller} hierarchy")
            folder = ROOT / controller / own.lstrip("/") / name
            folder.mkdir()
            folders[controller] = folder
            for file, value in limits.items():
                (folder / file).write_text(str(value))
            if (folder / "memory.memsw.limit_in_bytes").exists():  # with swap accounting: no swapping past it
                (folder / "memory.memsw.limit_in_bytes").write_text(str(memory_bytes))
    except OSError:
        _remove(folders)
        raise
    return folders


def _remove(folders: dict[str, Path], wait_s: float = 5.0) -> None:
    """Remove a group's folders, each retried until wait_s while processes still leave it."""
    deadline = Deadline.after(wait_s)
    for folder in folders.values():
        while folder.exists():
            try:
                folder.rmdir()
            except OSError:
                if deadline.passed():
                    break
                time.sleep(0.05)
