"""One student's notebook code, run in a bubblewrap sandbox and driven from the grader: the `student` of a check.

    from autograde.sandbox import Submission
    with Submission(cells=["def f(x):\\n    return 2 * x"]) as student:
        assert student.call("f", 21) == 42      # f ran in the sandbox; 42 came back as plain data

The grader (this module, trusted) starts `autograde/sandbox_worker.py` inside `bwrap`: a read-only system (/usr, /etc,
the Python installation, the virtual environment, distlab's source), its own empty /tmp, its own PID, network (loopback
only), IPC and user namespaces, no environment but a few harmless variables. The repository, the instructor's home, the
gradebook, the other submissions and this module are not there to read. Requests and replies are frames of torch.save
bytes on two pipes; replies are loaded with `weights_only=True` (plain data only: no code runs here on load) and then
compared, by the checks, with values the grader computed itself.

Time and output are bounded from here: every request has a deadline (within the student's whole budget); a request
past it, or a worker that dies or writes an oversized or malformed frame, ends the sandbox — every process in it,
`setsid` daemons too, since the PID namespace goes with it — and the next request starts a fresh one (up to
`max_restarts` times within one check: `begin_check`). A loop costs one deadline, not one per check: a function of
the notebook that ran past a deadline (a call's, or a launch's: the ranks were in it) is not run again; later calls of
it fail at once with the same reason, in the grader and in the sandbox (`stop_calling`), while checks that never call
it still run. A notebook whose own cells stop the sandbox stops every start the same way: told once, not retried.
Printed output is kept up to OUTPUT_CAP characters per request; what the replayed cells print is theirs
(`cell_results`), never a check's.
"""
from __future__ import annotations

import fcntl
import importlib.util
import io
import os
import select
import subprocess
import sys
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path

import torch
from distlab.launching.deadline import Deadline
from distlab.launching.process_tree import kill_tree

from autograde.bwrap import (SANDBOX_WORKER, WORKER, bwrap_command, sandbox_env,  # noqa: F401 - re-exported
                             apply_limits, sandbox_problem, set_limits)
from autograde.cgroup import StudentGroup
from autograde.limits import DEFAULT
from autograde.protocol import (ERROR_CAP, HEADER, MAX_ENTRIES, MAX_FRAME, MAX_PICKLE, OUTPUT_CAP,  # noqa: F401
                                RAW_OUTPUT_CAP, frame, from_plain, plain)

WORKER_START_S = 120.0  # for the worker to import torch and fork the ranks' forkserver: seconds, minutes if loaded
LAUNCH_MARGIN_S = 30.0  # beyond a launch's own deadline: the worker's distlab stops it first


class StudentError(Exception):
    """The student's code raised (in the sandbox). `type_names`: the exception's class and its bases."""

    def __init__(self, type_names, message, traceback_text="", output=""):
        self.type_names, self.message, self.traceback, self.output = list(type_names), message, traceback_text, output
        super().__init__(f"{type_names[0] if type_names else 'Exception'}: {message}")


class SandboxError(Exception):
    """The sandbox stopped answering: a deadline passed, the worker died, or it broke the protocol."""


class DeadlinePassed(SandboxError):
    """A request's deadline passed before the sandbox answered (it was stopped)."""


class Submission:
    """A student's notebook code in a sandbox; `call` and `launch` run its definitions and bring plain data back.

    Its pieces: a `Deadline` for the whole budget; a `SandboxProcess` per start of the sandbox (bwrap's process, the
    `Channel` of frames to the worker in it); at each start the notebook's cells run again (`_replay_cells`);
    `RawOutput` and `Printed` keep what the student's code wrote."""

    def __init__(self, cells: list[str], rank_source: str = "", *, sandbox: bool = True,
                 budget_s: float = DEFAULT.budget_s, cell_timeout_s: float = DEFAULT.cell_timeout_s,
                 rank_filename: str = "<rank-side procedures>", preload_dynamo: bool = True,
                 label: str = "student", memory_bytes: int | None = None, tasks: int | None = None,
                 cpus: float | None = None, call_timeout_s: float = DEFAULT.call_timeout_s,
                 max_restarts: int = DEFAULT.max_restarts):
        self.cells, self.rank_source, self.sandbox = list(cells), rank_source, sandbox
        # one control group bounds everything of this submission together, where the system offers one
        limits = {k: v for k, v in (("memory_bytes", memory_bytes), ("tasks", tasks), ("cpus", cpus)) if v is not None}
        self.group = StudentGroup.create(label, **limits) if sandbox else None
        self.group_peak: dict | None = None  # the group's peak use, once the submission is closed
        self.preload_dynamo = preload_dynamo  # False: no torch._dynamo (autograde.sets.ExerciseSet)
        self.rank_filename = rank_filename
        self.cell_timeout_s, self.call_timeout_s, self.max_restarts = cell_timeout_s, call_timeout_s, max_restarts
        self.budget = Deadline.after(budget_s)
        self.worker: SandboxProcess | None = None  # the running sandbox, None until started and once stopped
        self.restarts = -1  # fresh starts after the first, in all
        self.restarts_in_check = 0  # since `begin_check`
        self.cells_stopped: str | None = None  # why the notebook's own cells stopped the sandbox: every start would
        self.not_run_again: dict[str, str] = {}  # the notebook's functions that ran past a deadline: why
        self.cell_results: list[dict] | None = None  # what each cell printed or raised, from the first start
        self.raw_output = RawOutput()  # every start's together
        self.printed = Printed()

    # --- what checks use ------------------------------------------------------------------------------------

    def begin_check(self) -> None:
        """A new check starts: it may start fresh sandboxes again (up to `max_restarts`) after a stop."""
        self.restarts_in_check = 0

    def call(self, name: str, *args, timeout: float | None = None, **kwargs):
        """`name(*args, **kwargs)` in the sandbox within `timeout` (default: the submission's `call_timeout_s`); its
        result as plain data, or StudentError if it raised. Plain data: None, bool, int, float, str, bytes, plain CPU
        tensors, torch.dtype, and lists, tuples and dicts of these (numpy numbers and arrays come back as numbers and
        tensors). A `name` that ran past a deadline before fails at once (SandboxError), and so does this call past
        its own."""
        self._check_budget()
        if name in self.not_run_again:
            raise SandboxError(self.not_run_again[name])
        self._ensure_started()  # its own failures are not this call's deadline
        try:
            reply = self._request({"op": "call", "name": name, "args": args, "kwargs": kwargs},
                                  self.call_timeout_s if timeout is None else timeout)
        except DeadlinePassed as exc:
            self.not_run_again[name] = (f"`{name}` ran past a deadline in an earlier call ({exc}); not run again, "
                                        "so that one loop costs one deadline")
            raise
        return result_of(reply)

    def launch(self, name: str, world_size: int, args=(), kwargs=None, rank_args=None, timeout: float = 20,
               collective_timeout: float = 5, count_loopback: bool = False):
        """distlab.launch(name, world_size) in the sandbox; per-rank results (rank r also gets *rank_args[r]).
        With count_loopback=True, returns (results, bytes the sandbox's loopback carried meanwhile)."""
        request = {"op": "launch", "name": name, "world_size": world_size, "args": tuple(args),
                   "kwargs": dict(kwargs or {}), "rank_args": [tuple(a) for a in rank_args] if rank_args else None,
                   "timeout": timeout, "collective_timeout": collective_timeout}
        self._ensure_started()
        before = self.loopback_bytes()
        reply = self._request(request, timeout + LAUNCH_MARGIN_S)
        after = self.loopback_bytes()
        self._remember_looped(reply)
        results = one_result_per_rank(reply, name, world_size)
        return (results, after - before) if count_loopback else results

    def has(self, name: str) -> bool:
        """Whether the notebook defines a function or class `name` (top level)."""
        return result_of(self._request({"op": "has", "name": name}, self.call_timeout_s)) is True

    def loopback_bytes(self) -> int:
        """Bytes sent on the sandbox's loopback interface so far (read from the kernel, outside the sandbox)."""
        return loopback_bytes(self.worker.inner_pid() if self.sandbox and self.worker is not None else None)

    def network_pid(self) -> int | None:
        """A process in the network namespace the ranks will use (the grader's own, unsandboxed), to read their
        connections from outside (autograde/netstat.py); starts the sandbox if none runs."""
        self._ensure_started()
        return self.worker.inner_pid() if self.sandbox else os.getpid()

    def take_printed(self) -> tuple[str, str]:
        """What the student's code printed on stdout and on stderr since the last call of this method."""
        return self.printed.take()

    @property
    def process(self) -> subprocess.Popen | None:
        """The sandbox's outermost process (bwrap's), while one runs."""
        return self.worker.process if self.worker is not None else None

    # --- lifecycle ------------------------------------------------------------------------------------------

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        if self.group is not None:
            self.group_peak = self.group.peak()
            self.group.remove()

    def close(self):
        if self.worker is not None:
            worker, self.worker = self.worker, None
            worker.stop()

    def _ensure_started(self):
        if self.worker is not None and self.worker.running():
            return
        self.close()
        if self.cells_stopped is not None:  # the same cells would stop a fresh sandbox the same way
            raise SandboxError(f"{self.cells_stopped} (not run again)")
        if self.restarts >= 0:
            self.restarts_in_check += 1
            if self.restarts_in_check > self.max_restarts:
                raise SandboxError(f"the notebook's code stopped its sandbox {self.restarts_in_check} times in this "
                                   "check; not run again in it")
        self.restarts += 1
        self.worker = SandboxProcess(self.sandbox, self.preload_dynamo, self.group, self.raw_output)
        try:  # startup gets its own allowance: the cells' limits then time the student's code only
            self._request({"op": "ping"}, WORKER_START_S, start=False)
        except SandboxError as exc:
            raise SandboxError(f"the sandbox did not start: {exc}") from None
        results = self._replay_cells()
        if self.cell_results is None:
            self.cell_results = results
        if self.worker is None:
            self.cells_stopped = results[-1]["error"]["message"] if results else "the sandbox stopped"
            raise SandboxError(self.cells_stopped)
        if self.rank_source:
            result_of(self._request({"op": "define", "source": self.rank_source, "filename": self.rank_filename},
                                    self.call_timeout_s, start=False))
        if self.not_run_again:  # in this fresh sandbox too, what looped fails at once (in the ranks as well)
            result_of(self._request({"op": "stop_calling", "names": dict(self.not_run_again)}, self.call_timeout_s,
                                    start=False))

    def _remember_looped(self, reply: dict) -> None:
        """The notebook's functions the ranks were in when a launch ran past its deadline (the worker found them,
        and stops calling them itself): not run again. The worker is the student's; a false report only costs them."""
        looped = (reply.get("error") or {}).get("looped") if isinstance(reply.get("error"), dict) else None
        for name in looped if isinstance(looped, list) else []:
            if isinstance(name, str) and name.isidentifier() and len(self.not_run_again) < 100:
                self.not_run_again[name] = (f"`{name}` ran past a launch's deadline in an earlier check; not run "
                                            "again, so that one loop costs one deadline")

    def _replay_cells(self) -> list[dict]:
        """Run the notebook's cells in the fresh sandbox, each within the cell timeout; what each printed or raised,
        up to the first that stopped the sandbox."""
        results = []
        for number, source in enumerate(self.cells, 1):
            try:
                reply = self._request({"op": "cell", "source": source}, self.cell_timeout_s, start=False)
            except SandboxError as exc:
                message = f"code cell {number} of the notebook (tests not counted) stopped it: {exc}"
                results.append({"output": "", "error": {"type_names": ["SandboxError"], "message": message,
                                                       "traceback": ""}})
                break
            results.append(reply)
        return results

    # --- requests -------------------------------------------------------------------------------------------

    def _request(self, request: dict, timeout: float, start: bool = True) -> dict:
        self._check_budget()
        if start:
            self._ensure_started()
            self._check_budget()
        limit = min(timeout, self.budget.left())
        request = {**plain(request), "id": os.urandom(8).hex()}  # a reply forged in advance can't match
        try:
            self.worker.channel.send(request_frame(request), limit)
            reply = load_reply(self.worker.channel.receive(limit))
            if start:  # a check's request; what starting (the cells' replay) printed is in cell_results
                self.printed.add(reply)
            if reply.get("id") != request["id"]:
                raise SandboxError("the sandbox answered a request that was not asked (a forged reply)")
            return reply
        except SandboxError:
            self.close()
            raise

    def _check_budget(self):
        if self.budget.passed():
            self.close()
            raise SandboxError(f"the submission used up its time budget of {self.budget.seconds:g} s")


class Printed:
    """What the student's code printed, on stdout and on stderr, reply by reply, until taken."""

    def __init__(self):
        self.stdout: list[str] = []
        self.stderr: list[str] = []

    def add(self, reply: dict) -> None:
        self.stdout.append(reply["output"])
        self.stderr.append(reply["stderr"])

    def take(self) -> tuple[str, str]:
        printed, errors = "".join(self.stdout)[:OUTPUT_CAP + 200], "".join(self.stderr)[:OUTPUT_CAP + 200]
        self.stdout, self.stderr = [], []
        return printed, errors


class RawOutput:
    """The first RAW_OUTPUT_CAP bytes the workers wrote to their own stdout/stderr file descriptors (not a request's
    output: what a dying worker said)."""

    def __init__(self):
        self.data = b""

    def drain(self, fd: int) -> threading.Thread:
        """Read `fd` to its end in a thread of its own, keeping what fits."""
        thread = threading.Thread(target=self._read, args=(fd,), daemon=True)
        thread.start()
        return thread

    def _read(self, fd: int) -> None:
        with os.fdopen(fd, "rb", buffering=0) as raw:
            while chunk := raw.read(65536):
                if len(self.data) < RAW_OUTPUT_CAP:
                    self.data += chunk[: RAW_OUTPUT_CAP - len(self.data)]

    def tail(self) -> str:
        return self.data[-2000:].decode(errors="replace").strip()


class SandboxProcess:
    """One start of the sandbox: autograde/sandbox_worker.py in bwrap (or, unsafe, in a plain process), the grader's
    ends of its pipes (`channel`), its stdout and stderr drained into `raw_output`."""

    def __init__(self, sandbox: bool, preload_dynamo: bool, group: StudentGroup | None, raw_output: RawOutput):
        self.sandbox, self.group, self.raw_output = sandbox, group, raw_output
        requests_read, requests_write = os.pipe()
        replies_read, replies_write = os.pipe()
        raw_read, raw_write = os.pipe()
        python_path = str(Path(importlib.util.find_spec("distlab").origin).resolve().parents[1])
        worker_args = [sys.executable, "-u", SANDBOX_WORKER if sandbox else str(WORKER),
                       str(requests_read), str(replies_write), *([] if preload_dynamo else ["--no-dynamo"])]
        command = bwrap_command(python_path) + ["--"] + worker_args if sandbox else worker_args
        # bwrap's own process is the sandbox's PID 1, owned by its user: its /proc/1/environ is readable inside, so
        # bwrap starts with the sandbox's few variables, never the grader's (secrets, DISTLAB_GRADING_SEED)
        env = sandbox_env(python_path) if sandbox else {**sandbox_env(python_path),
                                                         "HOME": os.environ.get("HOME", "/tmp")}
        try:
            self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=raw_write, stderr=raw_write,
                                            pass_fds=(requests_read, replies_write), env=env,
                                            start_new_session=True, cwd=None if sandbox else "/tmp",
                                            preexec_fn=self._prepare_child if sandbox else apply_limits)
        finally:
            for fd in (requests_read, replies_write, raw_write):
                os.close(fd)
        self.channel = Channel(requests_write, replies_read, self.died)
        self.raw_thread = raw_output.drain(raw_read)

    def _prepare_child(self):
        """In the child, before bwrap starts: into the student's group (while still allowed to: before dropping
        root), then the rlimits and the user `nobody` (set_limits)."""
        if self.group is not None:
            self.group.join()
        set_limits()

    def running(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        kill_tree(self.process, descendants_s=0)  # bwrap's session and, through its PID namespace, all inside
        self.channel.close()

    def died(self) -> str:
        """Why the pipes broke: the worker's exit status and the end of what it wrote."""
        code = self.process.wait(timeout=5)
        tail = self.raw_output.tail()
        return f"the notebook's code ended its process (exit status {code})" + (f": {tail}" if tail else "")

    def inner_pid(self) -> int | None:
        """A process inside the sandbox's namespaces (bwrap's child), to read its network counters."""
        try:
            children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children").read_text().split()
        except OSError:
            return None
        return int(children[0]) if children else None


class Channel:
    """The grader's ends of the worker's two pipes: a frame (4-byte big-endian length, then the bytes) out, a frame
    back, each within its own limit."""

    def __init__(self, requests_fd: int, replies_fd: int, died: Callable[[], str]):
        self.requests_fd, self.replies_fd = requests_fd, replies_fd
        self.died = died  # the message when a pipe breaks

    def send(self, data: bytes, limit: float) -> None:
        deadline = Deadline.after(limit)
        fcntl.fcntl(self.requests_fd, fcntl.F_SETFL, os.O_NONBLOCK)
        view = memoryview(data)
        while view:
            _, writable, _ = select.select([], [self.requests_fd], [], max(deadline.left(), 0))
            if not writable:
                raise DeadlinePassed(f"the sandbox took no request for {deadline.seconds:g} s")
            try:
                view = view[os.write(self.requests_fd, view):]
            except BrokenPipeError:
                raise SandboxError(self.died()) from None

    def receive(self, limit: float) -> bytes:
        """One frame's payload, at most MAX_FRAME bytes."""
        deadline = Deadline.after(limit)
        (size,) = HEADER.unpack(self._read_exactly(HEADER.size, deadline))
        if size > MAX_FRAME:
            raise SandboxError(f"the sandbox sent a reply of {size} bytes (more than {MAX_FRAME})")
        return self._read_exactly(size, deadline)

    def _read_exactly(self, size: int, deadline: Deadline) -> bytes:
        data = b""
        while len(data) < size:
            readable, _, _ = select.select([self.replies_fd], [], [], max(deadline.left(), 0))
            if not readable:
                raise DeadlinePassed(f"no answer from the notebook's code within {deadline.seconds:g} s (stopped)")
            chunk = os.read(self.replies_fd, min(size - len(data), 2**20))
            if not chunk:
                raise SandboxError(self.died())
            data += chunk
        return data

    def close(self) -> None:
        for fd in (self.requests_fd, self.replies_fd):
            os.close(fd)


def request_frame(request: dict) -> bytes:
    """A request as the worker reads it: its torch.save bytes, after their length."""
    buffer = io.BytesIO()
    torch.save(request, buffer)
    return frame(buffer.getvalue())


def load_reply(payload: bytes) -> dict:
    """A reply frame's payload as plain data, its printed output capped; SandboxError for anything else."""
    problem = _not_as_torch_saves(payload)
    if problem:
        raise SandboxError(f"the sandbox's reply is not what torch.save writes: {problem}")
    try:
        reply = torch.load(io.BytesIO(payload), weights_only=True)
    except Exception as exc:  # noqa: BLE001 - a reply that is not plain data
        raise SandboxError(f"the sandbox's reply is not plain data (tensors, numbers, strings, lists, "
                           f"dicts): {str(exc).splitlines()[0][:300]}") from None
    if not isinstance(reply, dict) or "output" not in reply:
        raise SandboxError("the sandbox's reply is malformed")
    reply = from_plain(reply)
    reply["output"] = str(reply["output"])[:OUTPUT_CAP + 200]  # + the worker's note of what it left out
    reply["stderr"] = str(reply.get("stderr", ""))[:OUTPUT_CAP + 200]
    return reply


def result_of(reply: dict):
    """A reply's result, or the StudentError it reports (its texts capped)."""
    if "error" in reply:
        error = reply["error"] or {}
        raise StudentError([str(t)[:200] for t in (error.get("type_names") or ["Exception"])][:20],
                           _capped(error.get("message", "")), _capped(error.get("traceback", "")),
                           reply.get("output", ""))
    return reply.get("result")


def one_result_per_rank(reply: dict, name: str, world_size: int) -> list:
    """A launch's results, counted: what distlab.launch returns is a list of one result per rank. A notebook that
    swaps `launch` for one answering [] or a single result must not pass a zip() check."""
    results = result_of(reply)
    if not isinstance(results, list) or len(results) != world_size:
        got = f"{len(results)} results" if isinstance(results, (list, tuple)) else type(results).__name__
        raise StudentError(["ResultsNotOnePerRank"], f"the launch of `{name}` on {world_size} ranks brought back "
                           f"{got}, not a list of one result per rank", "", reply.get("output", ""))
    return results


def loopback_bytes(pid: int | None) -> int:
    """Bytes sent so far on the loopback interface of the network namespace of `pid` (None: the grader's own)."""
    path = f"/proc/{pid}/net/dev" if pid else "/proc/net/dev"
    for line in Path(path).read_text().splitlines():
        name, _, fields = line.partition(":")
        if name.strip() == "lo":
            return int(fields.split()[8])  # transmit bytes
    return 0


def _capped(text) -> str:
    text = str(text)
    return text if len(text) <= ERROR_CAP else text[:ERROR_CAP] + f"... [{len(text) - ERROR_CAP} characters cut]"


def _not_as_torch_saves(payload: bytes) -> str | None:
    """Why `payload` is not a zip as torch.save writes it (every entry stored, uncompressed), or is one that would
    take long to load (MAX_PICKLE, MAX_ENTRIES), or None.

    A frame is capped at MAX_FRAME bytes, but a DEFLATE entry of 300 KB can inflate to gigabytes inside torch.load;
    torch.save never compresses, so a compressed entry is refused before anything is inflated. A 48 MB pickle of
    small objects took the grader ~20 s to load, past the request's deadline."""
    try:
        with zipfile.ZipFile(io.BytesIO(payload)) as archive:
            entries = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        return f"not a zip ({exc})"
    if len(entries) > MAX_ENTRIES:
        return f"{len(entries)} entries (tensors), more than {MAX_ENTRIES}"
    compressed = [e.filename for e in entries if e.compress_type != zipfile.ZIP_STORED]
    if compressed:
        return f"{len(compressed)} compressed entries (e.g. {compressed[0][:80]!r})"
    if sum(e.file_size for e in entries) > MAX_FRAME:
        return f"entries of more than {MAX_FRAME} bytes in all"
    pickled = sum(e.file_size for e in entries if e.filename.endswith(".pkl"))
    if pickled > MAX_PICKLE:
        return f"a pickle of {pickled} bytes, more than {MAX_PICKLE} (only tensors' own bytes may be large)"
    return None
