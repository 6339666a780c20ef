"""The grader's worker: runs ONE student's notebook code inside the sandbox and answers the grader's requests.

    (started by autograde/sandbox.py inside bubblewrap; never run by hand)

Everything in this process is the student's to change: their cells run here, so they can patch torch, builtins,
this file's functions, anything. That is fine, because nothing here decides a grade. The grader (outside the
sandbox) sends plain data in, gets plain data back (torch.save bytes that it loads with weights_only=True), and
compares with values it computed itself. This file only has to be correct for honest submissions.

The protocol (requests, replies, frames, caps) is autograde/protocol.py, bound next to this file in the sandbox.
"""
import io
import os
import re
import sys
import traceback

try:  # in the sandbox the protocol is the file next to this one (/tmp/grader/protocol.py); in the grader, a module
    from autograde.protocol import OUTPUT_CAP, from_plain, plain, read_frame, write_frame  # noqa: F401
except ImportError:
    from protocol import OUTPUT_CAP, from_plain, plain, read_frame, write_frame  # noqa: F401


class CappedText(io.TextIOBase):
    """A stdout/stderr stand-in that keeps the first OUTPUT_CAP characters and counts the rest."""

    def __init__(self):
        self.parts, self.kept, self.dropped = [], 0, 0

    def writable(self):
        return True

    def write(self, text):
        text = str(text)
        room = max(OUTPUT_CAP - self.kept, 0)
        self.parts.append(text[:room])
        self.kept += min(len(text), room)
        self.dropped += max(len(text) - room, 0)
        return len(text)

    def text(self):
        note = f"\n[... {self.dropped} more characters of output not kept]\n" if self.dropped else ""
        return "".join(self.parts) + note


LEARNER_FILES = ("<ipython-input-",)  # where IPython's run_cell compiles the notebook's cells


def describe(exc: BaseException) -> dict:
    """The error as plain data; its traceback holds the learner's frames only (their cells: not the worker, not the
    rank-side procedures, not torch), innermost last, without the final `Type: message` line the grader already
    shows. Empty when no frame is theirs."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith(LEARNER_FILES)]
    return {"type_names": [c.__name__ for c in type(exc).__mro__],
            "message": str(exc)[:4000],
            "traceback": "".join(traceback.format_list(frames))[-8000:]}


def make_rank_entry(fn, args, kwargs, rank_args):
    """The function each rank runs: `fn(*args, *rank_args[rank], **kwargs)` (travels to the ranks by value)."""
    def rank_entry():
        import torch.distributed as dist
        extra = tuple(rank_args[dist.get_rank()]) if rank_args else ()
        return fn(*args, *extra, **kwargs)
    return rank_entry


def show_warning_on_stdout(message, category, filename, lineno, file=None, line=None):
    """A warning is advice, not an error: on stdout, as the exercise notebooks' imports cells do."""
    import warnings
    print(warnings.formatwarning(message, category, filename, lineno, line), end="")


LOOPED_IN = re.compile(r"line \d+ of `([A-Za-z_][A-Za-z0-9_]*)`")  # distlab's LaunchTimeout: where each rank was


class NotRunAgain(Exception):
    """Raised in place of a notebook function that ran past a deadline before (its loop costs one deadline)."""


def not_run_again(name: str, why: str):
    """A stand-in for the notebook's function `name` that raises NotRunAgain(why) at once (travels to the ranks)."""
    def stopped(*args, **kwargs):
        raise NotRunAgain(why)
    stopped.__name__ = stopped.__qualname__ = name
    return stopped


class Worker:
    def __init__(self):
        import warnings

        import distlab
        distlab.warm_up()  # the ranks' forkserver: already running (see main), this only checks it is alive
        from IPython.core.interactiveshell import InteractiveShell
        warnings.showwarning = show_warning_on_stdout
        self.namespace = {"__name__": "__main__"}
        self.shell = InteractiveShell.instance(user_ns=self.namespace)

    def handle(self, request: dict):
        op = request["op"]
        if op == "ping":  # the grader waits for this first answer: the worker has imported torch and is ready
            return None
        if op == "cell":
            result = self.shell.run_cell(request["source"], store_history=False)
            error = result.error_before_exec or result.error_in_exec
            if error is not None and not isinstance(error, SystemExit):
                raise error
            return None
        if op == "define":
            exec(compile(request["source"], request.get("filename", "<rank-side procedures>"), "exec"), self.namespace)
            return None
        if op == "has":
            return callable(self.namespace.get(request["name"]))
        if op == "stop_calling":
            for name, why in request["names"].items():
                self.namespace[name] = not_run_again(name, why)
            return None
        fn = self.namespace.get(request["name"])
        if not callable(fn):
            raise NameError(f"the notebook defines no function or class named {request['name']!r}")
        args, kwargs = tuple(request.get("args") or ()), dict(request.get("kwargs") or {})
        if op == "call":
            return fn(*args, **kwargs)
        if op == "launch":
            import distlab
            from distlab.errors import LaunchTimeout
            entry = make_rank_entry(fn, args, kwargs, request.get("rank_args"))
            try:
                return distlab.launch(entry, request["world_size"], timeout=request["timeout"],
                                      collective_timeout=request["collective_timeout"], backend="gloo")
            except LaunchTimeout as exc:
                exc.looped = self.stop_looped(str(exc))
                raise
        raise ValueError(f"unknown request {op!r}")

    def stop_looped(self, message: str) -> list[str]:
        """The functions of the notebook's cells that the ranks were in when a launch ran past its deadline, each
        replaced by a stand-in that raises at once (in later launches and calls too)."""
        names = [n for n in dict.fromkeys(LOOPED_IN.findall(message)) if getattr(getattr(
            self.namespace.get(n), "__code__", None), "co_filename", "").startswith(LEARNER_FILES)]
        for name in names:
            self.namespace[name] = not_run_again(name, f"`{name}` ran past a launch's deadline in an earlier "
                                                       "check; not run again, so that one loop costs one deadline")
        return names

    def serve(self, requests, replies):
        import torch
        while (frame := read_frame(requests)) is not None:
            request = from_plain(torch.load(io.BytesIO(frame), weights_only=True))
            write_frame(replies, reply_bytes(self.answer(request)))

    def answer(self, request: dict) -> dict:
        """The reply to one request: its result as plain data or its error, what it printed, the request's id."""
        captured, errors = CappedText(), CappedText()
        sys.stdout, sys.stderr = captured, errors
        try:
            reply = {"result": plain(self.handle(request))}
        except BaseException as exc:  # noqa: BLE001 - every failure of the student's code is reported
            reply = {"error": describe(exc)}
            if getattr(exc, "looped", None):
                reply["error"]["looped"] = list(exc.looped)
        finally:
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        reply["output"], reply["stderr"], reply["id"] = captured.text(), errors.text(), request.get("id")
        return reply


def reply_bytes(reply: dict) -> bytes:
    """The reply's torch.save bytes, as the grader will accept them; a result that is not plain data becomes a
    TypeError that says so."""
    import torch
    buffer = io.BytesIO()
    try:
        torch.save(reply, buffer)
        torch.load(io.BytesIO(buffer.getvalue()), weights_only=True)  # what the grader will accept
    except Exception as exc:  # noqa: BLE001 - e.g. a result that cannot be pickled, or is not plain data
        exc = TypeError(f"the result ({type(reply.get('result')).__name__}) is not plain data (tensors, "
                        f"numbers, strings, bytes, lists, dicts): {str(exc).splitlines()[0][:300]}")
        buffer = io.BytesIO()
        torch.save({"output": reply["output"], "stderr": reply["stderr"], "id": reply["id"],
                    "error": describe(exc)}, buffer)
    return buffer.getvalue()


def main():
    requests_fd, replies_fd = int(sys.argv[1]), int(sys.argv[2])  # the pipes sandbox.py passed down
    from distlab.launching.forkserver import PRELOAD, fork_server_from_here
    # torch is imported once, here, and the ranks' forkserver is forked from it: ~4 s of CPU less per student than a
    # forkserver that imports torch itself. Its copies of the pipes are closed, so the grader still sees our exit.
    # No torch._dynamo (0.6 s) for an exercise set whose ranks never import it (sandbox.py: --no-dynamo).
    modules = [m for m in PRELOAD if m != "torch._dynamo" or "--no-dynamo" not in sys.argv[3:]]
    fork_server_from_here(close_in_server=[requests_fd, replies_fd], modules=modules)
    requests = os.fdopen(requests_fd, "rb", buffering=0)
    replies = os.fdopen(replies_fd, "wb", buffering=0)
    Worker().serve(requests, replies)


if __name__ == "__main__":
    main()
