"""How ranks are started: forked from a forkserver that imported torch once, so a launch costs a fork, not an import.

A plain fork of the notebook's kernel would be faster still, but a kernel that already ran torch ops has a live
OpenMP thread pool, and forking it deadlocks the child. The forkserver is a fresh process that only imported torch.
"""
import importlib
import io
import multiprocessing as mp
import multiprocessing.connection
import os
import socket
from multiprocessing import context, forkserver, popen_forkserver, reduction, spawn, util

from .deadline import Deadline

# torch._dynamo: building any optimizer or DDP imports it (~3 s of CPU); once here beats once per rank per launch.
POLL_S = 0.1  # longest uninterrupted wait of the notebook's main thread (see `launcher`: Ctrl-C)
FORKSERVER_START_S = 300.0  # a cold forkserver imports torch before it forks a rank: minutes on a loaded machine
PRELOAD = ["torch", "torch.distributed", "torch._dynamo", "cloudpickle", "distlab.launching.forkserver",
           "distlab.launching._worker"]


def get_context():
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx


class _NoMainPopen(popen_forkserver.Popen):
    """multiprocessing's forkserver start, minus re-running the parent's `__main__` script in each rank.

    The function travels by value (cloudpickle), so the rank never needs `__main__`; re-running it would execute a
    script's top level again in every rank (and a notebook has no file to re-run anyway).
    """

    def _launch(self, process_obj):
        prep_data = spawn.get_preparation_data(process_obj._name)
        prep_data.pop("init_main_from_path", None)
        prep_data.pop("init_main_from_name", None)
        buf = io.BytesIO()
        context.set_spawning_popen(self)
        try:
            reduction.dump(prep_data, buf)
            reduction.dump(process_obj, buf)
        finally:
            context.set_spawning_popen(None)
        self.sentinel, w = forkserver.connect_to_new_process(self._fds)
        self.finalizer = util.Finalize(self, util.close_fds, (os.dup(w), self.sentinel))
        with open(w, "wb", closefd=True) as f:
            f.write(buf.getbuffer())
        _wait_for_fork(self.sentinel)
        self.pid = forkserver.read_signed(self.sentinel)


def _wait_for_fork(sentinel) -> None:
    """Wait until the forkserver has forked the rank (on a first launch it is still importing torch).

    In short waits, so that a Ctrl-C meant for the main thread but delivered to another one is still seen; bounded,
    so that a forkserver that never gets going is an error rather than a hang.
    """
    deadline = Deadline.after(FORKSERVER_START_S)
    while not mp.connection.wait([sentinel], timeout=POLL_S):
        if deadline.passed():
            raise RuntimeError(f"distlab: the forkserver did not start a rank within {FORKSERVER_START_S:g} s "
                               "(it imports torch first); is the machine overloaded?")


class RankProcess(context.ForkServerProcess):
    """A forkserver process that starts without re-running `__main__` (see `_NoMainPopen`)."""

    @staticmethod
    def _Popen(process_obj):
        return _NoMainPopen(process_obj)


def warm_up() -> None:
    """Start the forkserver (which imports torch once, ~3 s) without waiting for it.

    Called when distlab is imported in a Jupyter kernel, so that the notebook's first launch is already warm.
    """
    get_context()
    forkserver.ensure_running()


def fork_server_from_here(close_in_server=(), modules=PRELOAD) -> None:
    """Import torch here, then fork this process's forkserver from it: one import of torch instead of two.

    For a process that must import torch itself anyway and has run no torch op yet (the grader's sandboxed worker):
    the child is exactly what `warm_up` would start (a process that imported PRELOAD and nothing else ran), minus
    its own 6 s import. `close_in_server`: file descriptors of this process that the server and its ranks must not
    hold (e.g. pipes whose end-of-file someone waits for). `modules`: what to import first (PRELOAD; without
    torch._dynamo, 3 s less, when no rank will build an optimizer or DDP).
    """
    for name in modules:
        importlib.import_module(name)
    get_context()
    server = forkserver._forkserver
    with socket.socket(socket.AF_UNIX) as listener:
        address = mp.connection.arbitrary_address("AF_UNIX")
        listener.bind(address)
        os.chmod(address, 0o600)
        listener.listen()
        alive_r, alive_w = os.pipe()  # the server exits when every client's end is closed
        pid = os.fork()
        if pid == 0:
            _serve(listener.fileno(), alive_r, [alive_w, *close_in_server])
        os.close(alive_r)
    server._forkserver_address, server._forkserver_alive_fd, server._forkserver_pid = address, alive_w, pid


def _serve(listener_fd: int, alive_r: int, close: list) -> None:
    """The forked child: multiprocessing's own forkserver loop, which never returns (its end is an exit)."""
    try:
        for fd in close:
            os.close(fd)
        forkserver.main(listener_fd, alive_r, [])
    finally:
        os._exit(0)
