"""The bubblewrap command line of a grading sandbox: what the student's code may read, its limits, its environment.

    from autograde.bwrap import bwrap_command, sandbox_problem
    sandbox_problem()        # None, or what is missing ("bubblewrap (bwrap) is not installed: install ...")

Read-only: /usr, /etc, the system's library folders, the Python installation, the virtual environment and distlab's
source (found the way the grader imports it), never the repository. An empty size-capped /tmp and /dev/shm, a new
/proc (its own PID namespace), no network but loopback, no environment variable but the few of `sandbox_env`.

Graded as root, the sandbox would be root too (its user namespace maps its user to the caller's): it could read
/etc/shadow and would not be held by RLIMIT_NPROC. So a root grader starts bubblewrap as `nobody` (`set_limits`
drops to it); `sandbox_problem` says so, and what to change, when `nobody` cannot reach a path the sandbox needs
(e.g. a Python installed under /root, whose mode is 700: `chmod o+x /root` lets others pass through, not list it).
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

WORKER = Path(__file__).resolve().parent / "sandbox_worker.py"
SANDBOX_WORKER = "/tmp/grader/sandbox_worker.py"
PROTOCOL = WORKER.parent / "protocol.py"  # the worker imports it as the file next to it
SANDBOX_PROTOCOL = "/tmp/grader/protocol.py"
TMPFS_BYTES = 2 * 2**30  # the sandbox's /tmp and /dev/shm (in memory): a notebook cannot fill the grader's memory
LIMITS = {"RLIMIT_NPROC": 4096,  # processes of the sandbox's user (a fork bomb stops there)
          "RLIMIT_DATA": 8 * 2**30,  # heap and private memory per process
          "RLIMIT_FSIZE": 2**30,  # bytes per file written
          "RLIMIT_CORE": 0}
INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"


NOBODY = 65534  # the user a root grader's sandboxes run as


def _first_closed_folder(path: str) -> str | None:
    """The first folder on the way to `path` that others may not pass through (no o+x), or None."""
    current = Path(path).resolve()
    for folder in [*reversed(current.parents), current]:
        if folder.is_dir() and not folder.stat().st_mode & 0o001:
            return str(folder)
    return None


def _nobody_reaches(path: str) -> bool:
    """Whether a user in no group of the path's (nobody) can reach and read `path` (by its permission bits)."""
    resolved = Path(path).resolve()
    mode = resolved.stat().st_mode
    return _first_closed_folder(str(resolved.parent)) is None and bool(mode & 0o004)


def sandbox_problem() -> str | None:
    """None when bubblewrap can run a sandbox here, else what is wrong and what to install."""
    if shutil.which("bwrap") is None:
        return f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}"
    probe = subprocess.run(["bwrap", *_isolation(), "--ro-bind", "/", "/", "--", "true"],
                           capture_output=True, text=True, timeout=30, preexec_fn=_drop_root)
    if os.geteuid() == 0:
        unreachable = [p for p in [*_read_only_paths(), str(WORKER), str(PROTOCOL)]
                       if os.path.exists(p) and not _nobody_reaches(p)]
        if unreachable:
            blocked = _first_closed_folder(unreachable[0])
            return (f"grading as root runs each sandbox as the user nobody, who cannot reach {unreachable[0]} (the "
                    f"folder {blocked} lets no one else through): `chmod o+x {blocked}`, or grade as another user")
    if probe.returncode != 0:
        who = " as user nobody (the grader runs as root and drops to it)" if os.geteuid() == 0 else ""
        return (f"bubblewrap cannot make a sandbox here{who}: {probe.stderr.strip()} (unprivileged user namespaces "
                "may be disabled: sysctl kernel.unprivileged_userns_clone=1)")
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
    command += ["--ro-bind", str(WORKER), SANDBOX_WORKER, "--ro-bind", str(PROTOCOL), SANDBOX_PROTOCOL]
    command += ["--dir", "/tmp/home", "--chdir", "/tmp/home", "--clearenv"]
    for name, value in sandbox_env(python_path).items():
        command += ["--setenv", name, value]
    return command


def sandbox_env(python_path: str) -> dict[str, str]:
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": "/tmp/home", "TMPDIR": "/tmp",
           "LANG": "C.UTF-8", "MPLBACKEND": "Agg", "GLOO_SOCKET_IFNAME": "lo", "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONPATH": python_path, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    return env


def set_limits() -> None:
    """In the child, before bwrap starts: resource limits that everything in the sandbox inherits; as root, then
    the user nobody (no supplementary group), so that the sandbox is nobody too."""
    apply_limits()
    _drop_root()


def apply_limits() -> None:
    """The resource limits alone (--unsafe-no-sandbox: the student's code runs as the grader)."""
    for name, value in LIMITS.items():
        kind = getattr(resource, name)
        hard = resource.getrlimit(kind)[1]
        resource.setrlimit(kind, (min(value, hard) if hard != resource.RLIM_INFINITY else value,) * 2)


def _drop_root() -> None:
    if os.geteuid() == 0:
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
