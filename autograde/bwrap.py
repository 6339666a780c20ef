"""The bubblewrap command line of a grading sandbox: what the student's code may read, its limits, its environment.

    from autograde.bwrap import bwrap_command, sandbox_problem
    sandbox_problem()        # None, or what is missing ("bubblewrap (bwrap) is not installed: install ...")

Read-only: /usr, /etc, the system's library folders, the Python installation, the virtual environment and distlab's
source (found the way the grader imports it), never the repository. An empty size-capped /tmp and /dev/shm, a new
/proc (its own PID namespace), no network but loopback, no environment variable but the few of `sandbox_env`.
"""
from __future__ import annotations

import functools
import importlib.util
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

WORKER = Path(__file__).resolve().parent / "worker.py"
SANDBOX_WORKER = "/tmp/grader/worker.py"
TMPFS_BYTES = 2 * 2**30  # the sandbox's /tmp and /dev/shm (in memory): a notebook cannot fill the grader's memory
LIMITS = {"RLIMIT_NPROC": 4096,  # processes of the sandbox's user (a fork bomb stops there)
          "RLIMIT_DATA": 8 * 2**30,  # heap and private memory per process
          "RLIMIT_FSIZE": 2**30,  # bytes per file written
          "RLIMIT_CORE": 0}
INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"


def sandbox_problem() -> str | None:
    """None when bubblewrap can run a sandbox here, else what is wrong and what to install."""
    if shutil.which("bwrap") is None:
        return f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}"
    probe = subprocess.run(["bwrap", *_isolation(), "--ro-bind", "/", "/", "--", "true"], capture_output=True,
                           text=True, timeout=30)
    if probe.returncode != 0:
        return f"bubblewrap cannot make a sandbox here: {probe.stderr.strip()} (user namespaces may be disabled)"
    return None


def _isolation() -> list[str]:
    # --disable-userns (bubblewrap >= 0.8): no nested user namespace, so no private network or mounts of its own in
    # which a notebook could move data past the grader's loopback count
    nested = ["--disable-userns"] if _supports("--disable-userns") else []
    return ["--unshare-all", "--unshare-user", *nested, "--uid", "1000", "--gid", "1000", "--die-with-parent",
            "--new-session"]


@functools.cache
def _supports(option: str) -> bool:
    return option in subprocess.run(["bwrap", "--help"], capture_output=True, text=True, timeout=30).stdout


def _read_only_paths() -> list[str]:
    """What the sandbox may read: the system, Python, the virtual environment, distlab's source (not the repo)."""
    spec = importlib.util.find_spec("distlab")
    distlab_dir = Path(spec.origin).resolve().parent if spec and spec.origin else None
    paths = ["/usr", "/etc", "/lib", "/lib64", "/bin", "/sbin", "/opt",
             os.path.realpath(sys.base_prefix), sys.prefix, os.path.realpath(sys.prefix)]
    if distlab_dir is not None:
        paths.append(str(distlab_dir))
    for entry in sys.path:  # site-packages outside the prefixes (a user site, a conda env), never the repo
        if entry.endswith("site-packages") and os.path.isdir(entry):
            paths.append(entry)
    return list(dict.fromkeys(paths))


def bwrap_command(python_path: str) -> list[str]:
    # bwrap mounts in the order given: the empty /tmp first, then the read-only paths, so that a virtual
    # environment or Python that lives under /tmp (a checkout in /tmp/...) is bound on top of it, not hidden by it
    command = ["bwrap", *_isolation(), "--proc", "/proc", "--dev", "/dev", "--size", str(TMPFS_BYTES),
               "--tmpfs", "/dev/shm", "--size", str(TMPFS_BYTES), "--tmpfs", "/tmp"]
    for path in _read_only_paths():
        command += ["--ro-bind-try", path, path]
    command += ["--ro-bind", str(WORKER), SANDBOX_WORKER, "--dir", "/tmp/home", "--chdir", "/tmp/home",
                "--clearenv"]
    for name, value in sandbox_env(python_path).items():
        command += ["--setenv", name, value]
    return command


def sandbox_env(python_path: str) -> dict[str, str]:
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": "/tmp/home", "TMPDIR": "/tmp",
           "LANG": "C.UTF-8", "MPLBACKEND": "Agg", "GLOO_SOCKET_IFNAME": "lo", "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONPATH": python_path, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    return env


def set_limits() -> None:
    """In the child, before bwrap starts: resource limits that everything in the sandbox inherits."""
    for name, value in LIMITS.items():
        kind = getattr(resource, name)
        hard = resource.getrlimit(kind)[1]
        resource.setrlimit(kind, (min(value, hard) if hard != resource.RLIM_INFINITY else value,) * 2)
