"""Two torchrun "nodes" on this machine, one of them killed mid-training: the elastic job goes on at the smaller size.

    run = distlab.elastic.run_shrinking_job("scripts/08_elastic.py", folder, kill_at=10, nproc_per_node=1)
    run.attempts[-1].world_size, run.attempts[-1].resumed_step     # 1, 8: one node left, from step 8's checkpoint

Both nodes run the same command (`--nnodes=1:2`: 1 to 2 nodes) and start together; both try to host the rendezvous
store at --rdzv-endpoint and one binds the port: that node must survive (on a cluster, the endpoint's machine), so the
other one is killed. Every rank pauses at step `kill_at` (DISTLAB_FAIL_AT ...:stop, SIGSTOP on the first attempt: the
moment is chosen by what the job did, not by a clock); the doomed node's torchrun and ranks are SIGKILLed together
(the machine died) and the survivor's ranks are let go (SIGCONT) into that step's collective. Every process is killed
by the deadline and reaped; each node's output is kept in `folder`.

What the surviving torchrun does (torch 2.13, torch/distributed/elastic/agent/server/api.py, `_invoke_run`): its
ranks' next collective fails (a killed process's sockets are reset by the kernel), the worker group is FAILED, and
the agent restarts it if `--max-restarts` allows, counting one restart: a shrink is a failure to torchrun. (Only a
*new* node waiting to join restarts the group without counting: "membership changes do not count as retries".) The
restart is a new rendezvous round (dynamic_rendezvous.py): the survivor waits while the dead node is still listed,
until its heartbeats are `keep_alive_interval x keep_alive_max_attempt` old, then joins, and with `min_nodes` (1)
present it closes the round after `last_call_timeout`. `RendezvousConf` shortens both.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from .launching.deadline import Deadline
from .launching.ports import free_port
from .launching.process_tree import kill_tree


@dataclass(frozen=True)
class RendezvousConf:
    """torchrun's `--rdzv-conf` for the c10d rendezvous, shortened for a demo (each name and default checked in torch
    2.13's torch/distributed/elastic/rendezvous/dynamic_rendezvous.py, `create_handler`; whole seconds)."""
    keep_alive_interval: int = 1  # a node's heartbeat period (default 5 s)
    keep_alive_max_attempt: int = 3  # missed heartbeats before a node is dead: detected after 3 s (default 3: 15 s)
    last_call_timeout: int = 2  # once min_nodes are in, wait this long for more (default 30 s); at the start, how long
    #                             the first node to join waits for the other (they join ~0.2 s apart, measured)
    join_timeout: int = 60  # a rendezvous round not closed by then fails the agent (default 600 s)

    def as_arg(self) -> str:
        return ",".join(f"{name}={getattr(self, name)}" for name in self.__dataclass_fields__)


@dataclass(frozen=True)
class Attempt:
    """One start of the job's ranks, as rank 0 printed it."""
    number: int  # counted in the checkpoint folder, over the whole job
    world_size: int
    resumed_step: int  # 0: started fresh
    written_by: int | None  # the world size that wrote the checkpoint it loaded (None: fresh)
    accumulation: int
    restart: int  # TORCHELASTIC_RESTART_COUNT on rank 0's node: how many of --max-restarts its torchrun has used
    losses: dict[int, float] = field(default_factory=dict)  # step -> loss of the global batch


@dataclass(frozen=True)
class ShrinkingRun:
    """What `run_shrinking_job` saw: the attempts in order, which node died, when things happened, both outputs."""
    attempts: list[Attempt]
    killed_at: int  # the step every rank paused at, before the kill
    survivor: str  # "node0" or "node1": the node that hosted the rendezvous store
    killed: str  # the other one
    seconds: dict[str, float]  # event -> seconds since the start: "store", "paused", "killed", "resumed", "finished"
    outputs: dict[str, str]  # node name -> what its torchrun and ranks printed

    @property
    def losses(self) -> dict[int, float]:
        """The loss of each step as the job finally computed it (a later attempt overrides the steps it redid)."""
        return {step: loss for attempt in self.attempts for step, loss in attempt.losses.items()}


def torchrun_args(port: int, nproc_per_node: int, conf: RendezvousConf, max_restarts: int = 3) -> list[str]:
    """torchrun's options for one node of an elastic job of 1 to 2 nodes, meeting at 127.0.0.1:`port`."""
    return ["--nnodes=1:2", f"--nproc-per-node={nproc_per_node}", f"--max-restarts={max_restarts}",
            "--rdzv-backend=c10d", f"--rdzv-endpoint=127.0.0.1:{port}", "--rdzv-id=elastic",
            f"--rdzv-conf={conf.as_arg()}"]


def run_shrinking_job(script: str, folder: str, kill_at: int = 10, nproc_per_node: int = 2, script_args=(),
                      conf: RendezvousConf = RendezvousConf(), collective_timeout: float = 15.0,
                      timeout: float = 90.0, echo: bool = True) -> ShrinkingRun:
    """Run `script` on two local nodes of `nproc_per_node` ranks, kill the node that does not host the rendezvous
    store when every rank reaches step `kill_at`, and wait for the other to finish alone.

    The checkpoints (`ckpt/`) and the nodes' logs go to `folder`, which must not hold an earlier job's. Raises
    TimeoutError (with both logs' last lines) if the job has not finished by `timeout` seconds, RuntimeError if the
    survivor fails or the job started without a node; either way every process is killed first.
    `collective_timeout`: how long the script's collectives wait for a peer (gloo's default: 30 minutes). Here a
    safety net (a killed process's sockets are reset by its kernel: its peers fail at once); a machine that lost
    power resets nothing, and only this timeout notices."""
    folder = Path(folder).resolve()
    if (folder / "ckpt").exists():
        raise FileExistsError(f"{folder / 'ckpt'} exists: the job would resume from an earlier job's checkpoints")
    folder.mkdir(parents=True, exist_ok=True)
    deadline, started, port, seconds = Deadline.after(timeout), time.monotonic(), free_port(), {}
    command = [sys.executable, "-m", "torch.distributed.run", *torchrun_args(port, nproc_per_node, conf),
               os.path.abspath(script), "--dir", str(folder / "ckpt"),
               f"--collective-timeout={collective_timeout}", *map(str, script_args)]
    if echo:
        print("$ TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 torchrun " + shlex.join(command[3:]), flush=True)
    env = {**os.environ, "TORCH_DISABLE_SHARE_RDZV_TCP_STORE": "1",  # pytorch/pytorch#135712 (see distlab.torchrun)
           "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1", "TMPDIR": str(folder),  # torchrun's log folders: here
           "DISTLAB_BACKEND": "gloo"}  # on a GPU machine both "nodes" would drive GPU 0 (LOCAL_RANK 0 on each)
    env.pop("DISTLAB_FAIL_AT", None)
    freeze = ",".join(f"{rank}:{kill_at}:stop@0" for rank in range(2 * nproc_per_node))  # every rank, first attempt
    nodes: dict[str, subprocess.Popen] = {}
    try:
        for name in ("node0", "node1"):  # together: the first to join waits last_call_timeout for the other
            nodes[name] = _start(command, folder / f"{name}.txt", {**env, "DISTLAB_FAIL_AT": freeze})
        _wait(lambda: _host(nodes, port), deadline, "a node to host the rendezvous store", folder, nodes)
        survivor = _host(nodes, port)
        doomed = next(name for name in nodes if name != survivor)
        seconds["store"] = time.monotonic() - started
        _wait(lambda: _all_in(folder, nodes, 2 * nproc_per_node, conf) and all(
              _frozen(proc) == nproc_per_node for proc in nodes.values()), deadline,
              f"every rank to pause at step {kill_at}", folder, nodes, alive=list(nodes))
        seconds["paused"] = time.monotonic() - started
        kill_tree(nodes[doomed], descendants_s=0)  # its torchrun and its ranks, at once: the machine died
        seconds["killed"] = time.monotonic() - started
        _resume(nodes[survivor])  # into step kill_at's collective, where the dead peers are missed
        if echo:
            print(f"{doomed} (not hosting the rendezvous) killed at step {kill_at}, {seconds['killed']:.1f} s after "
                  "the start", flush=True)
        resumed = re.compile(r"attempt [1-9]\d*: \d+ ranks, resumed")
        _wait(lambda: resumed.search((folder / f"{survivor}.txt").read_text()), deadline,
              f"{survivor}'s ranks to resume", folder, nodes, alive=[survivor])
        seconds["resumed"] = time.monotonic() - started
        _wait(lambda: nodes[survivor].poll() is not None, deadline, f"{survivor} to finish alone", folder, nodes)
        seconds["finished"] = time.monotonic() - started
    finally:
        for proc in nodes.values():
            kill_tree(proc)
    outputs = {name: (folder / f"{name}.txt").read_text() for name in nodes}
    if nodes[survivor].returncode != 0:
        raise RuntimeError(f"{survivor} exited with {nodes[survivor].returncode}:\n{outputs[survivor][-4000:]}")
    return ShrinkingRun(parse_attempts("".join(outputs.values())), kill_at, survivor, doomed, seconds, outputs)


_START = re.compile(r"attempt (\d+): (\d+) ranks, resumed at step (\d+) (?:from the checkpoint written by (\d+) "
                    r"ranks|\(fresh\)); global batch \d+ = \d+ ranks x \d+ x (\d+) accumulation steps; "
                    r"torchrun restart (\d+)")
_STEP = re.compile(r"attempt (\d+): step (\d+) loss ([-+.\deE]+|nan|inf)")


def parse_attempts(output: str) -> list[Attempt]:
    """The attempts rank 0 printed (08_elastic.py's lines), in the job's order, with each step's loss."""
    attempts = {int(m[1]): Attempt(int(m[1]), int(m[2]), int(m[3]), int(m[4]) if m[4] else None, int(m[5]),
                                  int(m[6]))
                for m in _START.finditer(output)}
    for m in _STEP.finditer(output):
        attempts[int(m[1])].losses[int(m[2])] = float(m[3])
    return [attempts[n] for n in sorted(attempts)]


def reference_losses(script: str, folder: str, world_size: int, checkpoint: str | None = None,
                     timeout: float = 60.0) -> dict[int, float]:
    """Step -> loss of `script`'s `train()` run uninterrupted on `world_size` ranks (distlab.launch) in `folder`:
    from scratch, or from a copy of `checkpoint` (a `step-N` folder of an earlier run), up to the script's STEPS."""
    from .launching.launcher import launch
    folder = Path(folder)
    if checkpoint is not None:
        shutil.copytree(checkpoint, folder / Path(checkpoint).name)
    return launch(_train, world_size, args=(os.path.abspath(script), str(folder)), timeout=timeout,
                  backend="gloo")[0]  # on the CPU, as the job (gloo: see run_shrinking_job)


def _train(script: str, folder: str) -> dict[int, float]:
    """In a launched rank: the script's train() in `folder`, silent, on one thread as under torchrun."""
    import importlib.util

    import torch
    torch.set_num_threads(1)
    spec = importlib.util.spec_from_file_location("elastic_script", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.train(folder, say=lambda *args, **kwargs: None)["losses"]


def _start(command: list[str], log: Path, env: dict) -> subprocess.Popen:
    with open(log, "w") as out:  # the child keeps its own copy of the file descriptor
        return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=log.parent,
                                start_new_session=True)  # its own group; kill_tree also finds its ranks' sessions


def _wait(condition, deadline: Deadline, what: str, folder: Path, nodes: dict, alive=()) -> None:
    """Poll `condition` until it holds; raise if the deadline passes first or a node named in `alive` exits."""
    while not condition():
        if deadline.passed():
            logs = "\n".join(f"--- {name}:\n{(folder / f'{name}.txt').read_text()[-3000:]}" for name in nodes)
            raise TimeoutError(f"elastic job: {deadline.seconds:g} s passed waiting for {what}; every process was "
                               f"killed\n{logs}")
        for name in alive:
            if nodes[name].poll() is not None:
                raise RuntimeError(f"{name} exited with {nodes[name].returncode} while waiting for {what}:\n"
                                   + (folder / f"{name}.txt").read_text()[-4000:])
        time.sleep(0.05)


def _all_in(folder: Path, nodes: dict, world_size: int, conf: RendezvousConf) -> bool:
    """True; raises if the job started without one node (it joined after the other's last call: it would wait in
    vain for a node that can only join once the job is over)."""
    for name in nodes:
        for size in re.findall(r"attempt \d+: (\d+) ranks", (folder / f"{name}.txt").read_text()):
            if int(size) != world_size:
                raise RuntimeError(f"the job started on {size} ranks, not {world_size}: a node joined more than "
                                   f"last_call_timeout={conf.last_call_timeout} s after the other (a busy machine?)")
    return True


def _host(nodes: dict, port: int) -> str | None:
    """The node whose torchrun listens on `port`: it hosts the rendezvous store (both tried; one bound the port)."""
    for name, proc in nodes.items():
        try:
            if any(c.status == psutil.CONN_LISTEN and c.laddr.port == port
                   for c in psutil.Process(proc.pid).net_connections("tcp")):
                return name
        except psutil.Error:
            pass
    return None


def _resume(proc: subprocess.Popen) -> None:
    """SIGCONT `proc`'s stopped descendants."""
    for child in psutil.Process(proc.pid).children(recursive=True):
        try:
            child.resume()
        except psutil.Error:
            pass


def _frozen(proc: subprocess.Popen) -> int:
    """How many of `proc`'s descendants are stopped (SIGSTOP)."""
    try:
        children = psutil.Process(proc.pid).children(recursive=True)
    except psutil.Error:
        return 0
    count = 0
    for child in children:
        try:
            count += child.status() == psutil.STATUS_STOPPED
        except psutil.Error:
            pass
    return count
