"""The grader's protocol with the worker in a student's sandbox: frames, plain data, and the caps on both.

    from autograde.protocol import frame, read_frame, plain, from_plain

Both sides import this file: the grader (autograde/sandbox.py, trusted) as `autograde.protocol`, and the worker
(autograde/sandbox_worker.py, inside the sandbox, where the student can change anything) as the `protocol` next to it
(bubblewrap binds it to /tmp/grader/protocol.py). Nothing the worker's copy does decides a grade: the grader checks
every frame it reads against the caps below itself. Standard library only (torch is imported by the two converters).

Protocol: on the file descriptor given as argv[1] the grader writes frames (4-byte big-endian length, then torch.save
bytes of a dict); on argv[2] this worker answers each request with one frame. Requests:
    {"op": "ping"}                                         answered once the worker is ready (torch imported)
    {"op": "cell", "source": str}                          run one notebook cell (IPython syntax)
    {"op": "define", "source": str}                        run the rank-side procedures (plain Python)
    {"op": "has", "name": str}                             whether the notebook defines a callable `name`
    {"op": "call", "name", "args", "kwargs"}               call a top-level name of the notebook once
    {"op": "launch", "name", "world_size", "args", "kwargs", "rank_args", "timeout", "collective_timeout"}
    {"op": "stop_calling", "names": {name: why}}          the notebook's functions that looped: raise at once
Replies: {"output": str, "stderr": str, "result": ...} or {..., "error": {"type_names", "message", "traceback"}}:
what the request printed on stdout and on stderr (warnings are shown on stdout), and its result or error. A launch
past its deadline also says which of the notebook's functions the ranks were in ("looped"), and stops calling them.
"""
import struct

HEADER = struct.Struct(">I")  # a frame: its payload's length, 4 bytes big-endian, then the payload
MAX_FRAME = 64 * 2**20  # bytes of one reply; a larger one ends the sandbox
# What a reply's torch.save archive may hold beside its tensors' raw bytes (which load at memory speed): loading a
# pickle costs ~0.3 s a MiB and ~50 us a tensor, so these bound a reply's load to about a second. The largest honest
# replies of the seven sets: a 250 KB pickle, 342 tensors (measured with autograde/try_checks.py).
MAX_PICKLE = 2 * 2**20
MAX_ENTRIES = 5_000
OUTPUT_CAP = 64 * 1024  # characters of printed output kept per request (the worker keeps these, the grader caps again)
ERROR_CAP = 8 * 1024  # characters of a student's error message, and of its traceback, kept
RAW_OUTPUT_CAP = 64 * 1024  # bytes kept of what the worker writes to its own stdout/stderr file descriptors


def frame(payload: bytes) -> bytes:
    """`payload` as one frame: its length, then itself."""
    return HEADER.pack(len(payload)) + payload


def read_exactly(stream, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def read_frame(stream):
    header = read_exactly(stream, 4)
    return None if header is None else read_exactly(stream, HEADER.unpack(header)[0])


def write_frame(stream, payload: bytes):
    stream.write(frame(payload))
    stream.flush()


BYTES_TAG = "__bytes__"  # bytes travel as {"__bytes__": uint8 tensor}: torch.load(weights_only=True) refuses bytes


def plain(value):
    """`value` as torch.load(weights_only=True) accepts it, the one converter both ways (a reply here, a request in
    autograde/sandbox.py; `from_plain` undoes the tags): numpy's numbers and arrays as Python numbers and tensors, a
    Fraction as a float (what the learner's own checks accept, they compare numbers), tuple, list and dict subclasses
    as tuples, lists and dicts, bytes tagged."""
    if type(value) in (bytes, bytearray):
        import torch
        data = bytearray(value)  # frombuffer shares this copy's memory, and refuses an empty buffer
        return {BYTES_TAG: torch.frombuffer(data, dtype=torch.uint8) if data else torch.empty(0, dtype=torch.uint8)}
    kind = type(value).__module__
    if kind == "numpy" and hasattr(value, "item") and getattr(value, "shape", None) == ():
        return value.item()
    if kind == "numpy" and hasattr(value, "shape"):
        import torch
        return torch.from_numpy(value.copy())
    if type(value).__name__ == "Fraction" and kind == "fractions":
        return float(value)
    if isinstance(value, (list, tuple)):  # a namedtuple or a list subclass arrives as a plain tuple or list
        return (tuple if isinstance(value, tuple) else list)(plain(v) for v in value)
    if isinstance(value, dict):  # OrderedDict, defaultdict: a dict
        return {k: plain(v) for k, v in value.items()}
    return value


def from_plain(value):
    """`value` as `plain` was given it: tagged uint8 tensors back into bytes (the grader's requests here, the
    sandbox's replies in the grader: autograde/sandbox.py)."""
    import torch
    if type(value) is dict and set(value) == {BYTES_TAG} and type(value[BYTES_TAG]) is torch.Tensor:
        return value[BYTES_TAG].numpy().tobytes()
    if type(value) in (list, tuple):
        return type(value)(from_plain(v) for v in value)
    if type(value) is dict:
        return {k: from_plain(v) for k, v in value.items()}
    return value
