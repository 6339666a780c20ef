"""Run a standalone script under `torchrun` from a notebook, its output streamed into the cell.

    distlab.torchrun("train_ddp.py", nproc_per_node=4, args=["--steps", "20"])

or, with the cell magic (available once distlab is imported in a notebook), write and run the cell as a script:

    %%torchrun --nproc-per-node 4 --timeout 120
    import torch.distributed as dist
    dist.init_process_group("gloo")
    print(dist.get_rank())

This is "now run it as you would on a cluster": the same `torchrun` command works on a real multi-GPU node.
"""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
import threading

from ..errors import LaunchError
from .process_tree import kill_tree


class TorchrunOutput(str):
    """What a torchrun run printed: a `str`, whose notebook display is one line, since the cell showed it already.

    `torchrun` streams every line into the cell as it comes and returns the same text; as a cell's last expression a
    plain `str` would then be displayed a second time, as its repr (Jupyter shows a cell's value).
    """

    def _repr_pretty_(self, printer, cycle):  # IPython's display of a cell's value; repr() and str() are unchanged
        printer.text(f"<torchrun output: {len(self.splitlines())} lines, printed above>")


class TorchrunFailed(LaunchError):
    """torchrun exited with an error, or ran past its deadline (then every process it started was killed)."""

    def __init__(self, message: str, returncode: int | None):
        super().__init__(message, unfinished=[])
        self.returncode = returncode


def torchrun_command(script: str, nproc_per_node: int = 4, args=(), torchrun_args=()) -> list[str]:
    """The command line, as you would type it on a cluster node (`--standalone`: a free port, one node).

    `torchrun_args` go to torchrun itself, before the script (e.g. `["--max-restarts=2"]`). `--tee=3` has torchrun
    copy each rank's stdout and stderr line by line, behind `[default<rank>]:`. Without it the ranks share one pipe,
    and two ranks' `print("hello from", rank)` interleave mid-line.
    """
    return [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={nproc_per_node}",
            "--tee=3", *map(str, torchrun_args), script, *map(str, args)]


def torchrun(script: str, nproc_per_node: int = 4, args=(), *, torchrun_args=(), timeout: float = 120.0,
             env: dict | None = None, threads: int = 1, echo: bool = True) -> TorchrunOutput:
    """Run `script` under torchrun, print its output as it comes, return it; raise `TorchrunFailed` on failure.

    The returned text is a `TorchrunOutput`: a `str` that a notebook does not display again as the cell's value.
    `echo` prints the command line first.

    `args` go to the script, `torchrun_args` to torchrun (e.g. `["--max-restarts=2"]`).
    """
    if not os.path.exists(script):
        raise FileNotFoundError(f"torchrun: no script at {script!r}")
    if echo:
        typed = torchrun_command(script, nproc_per_node, args, torchrun_args)
        print("$ torchrun " + " ".join(shlex.quote(c) for c in typed[3:]), flush=True)
    with tempfile.TemporaryDirectory(prefix="distlab-torchrun-logs-") as logs:  # else torchrun leaves one in /tmp
        command = torchrun_command(script, nproc_per_node, args, [f"--log-dir={logs}", *torchrun_args])
        return _run(command, script, timeout, env, threads)


def _run(command: list[str], script: str, timeout: float, env: dict | None, threads: int) -> TorchrunOutput:
    """Run torchrun's `command` in its own process group with a deadline, echo and return its output."""
    full_env = {**os.environ, "OMP_NUM_THREADS": str(threads), "PYTHONUNBUFFERED": "1",
                # After a restart (--max-restarts), a rank may otherwise read its peer's address from the previous
                # attempt from the shared rendezvous store and fail or hang (pytorch/pytorch#135712).
                "TORCH_DISABLE_SHARE_RDZV_TCP_STORE": "1", **(env or {})}
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=full_env,
                            start_new_session=True)  # its own process group: one kill reaches every rank
    lines: list[str] = []
    reader = threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True)
    reader.start()
    try:  # the finally takes every rank down with it: on success, deadline, Ctrl-C or the stop button alike
        returncode = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        raise TorchrunFailed(f"torchrun {script}: deadline of {timeout:g} s passed; every rank was killed", None)
    finally:
        kill_tree(proc, grace_s=3)  # SIGTERM: the agent stops its ranks; then whatever outlived it (its ranks too)
        reader.join(5)
    output = TorchrunOutput("".join(lines))
    if returncode != 0:
        raise TorchrunFailed(f"torchrun {script} exited with code {returncode}.\n\nThe first traceback it printed:\n"
                             + "".join(_first_traceback(lines)) + "\nIts last lines:\n" + "".join(lines[-12:]),
                             returncode)
    return output


def _first_traceback(lines: list[str]) -> list[str]:
    """The first Python traceback in the output (the failing rank's, usually), up to its exception line.

    torchrun prefixes what a rank prints on stderr with "[rank1]: ", so the traceback is matched behind its prefix;
    lines of other streams (the rank's stdout, other ranks) that torchrun interleaves with it are left out.
    """
    marker = "Traceback (most recent call last)"
    start = next((i for i, line in enumerate(lines) if marker in line), None)
    if start is None:
        return ["(none)\n"]
    prefix = lines[start][:lines[start].index(marker)]
    found = [lines[start]]
    for line in lines[start + 1:start + 400]:
        if not line.startswith(prefix):
            continue  # another stream's line, printed while the traceback was being written
        found.append(line)
        if line[len(prefix):][:1] not in (" ", "\t"):
            break  # the exception's own line ends the traceback
    return found


def _pump(stream, lines: list[str]) -> None:
    for line in stream:
        lines.append(line)
        sys.stdout.write(line)
        sys.stdout.flush()


def torchrun_cell_magic(line: str, cell: str) -> None:
    """`%%torchrun [--nproc-per-node N] [--timeout S] [script args...]`: run the cell's code as a script."""
    words = shlex.split(line)
    nproc, timeout, rest = 4, 120.0, []
    while words:
        word = words.pop(0)
        if word in ("--nproc-per-node", "--nproc_per_node"):
            nproc = int(words.pop(0))
        elif word == "--timeout":
            timeout = float(words.pop(0))
        else:
            rest.append(word)
    with tempfile.TemporaryDirectory(prefix="distlab-torchrun-") as folder:
        path = os.path.join(folder, "cell.py")
        with open(path, "w") as f:
            f.write(cell)
        torchrun(path, nproc, rest, timeout=timeout, echo=False)


def register_magic() -> None:
    """Make `%%torchrun` available in the running IPython kernel, if any."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None:
        shell.register_magic_function(torchrun_cell_magic, magic_kind="cell", magic_name="torchrun")
