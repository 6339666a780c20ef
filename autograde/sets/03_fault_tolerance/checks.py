"""Trusted checks of exercise set 03 (fault tolerance): one per test cell, named by its grade_id.

Run by the grader, never in the sandbox: the states to save, the files to load, the crash plans and every expected
value are made here. The student's code runs in the sandbox through `student` (autograde/sandbox.py), in the
sandbox's own scratch folders, and only plain data comes back: the bytes of a file their save_checkpoint wrote (loaded
here with torch.load(weights_only=True)), what their load_checkpoint returned (as torch.save bytes, loaded the same
way), tensors and losses of their resumed training. The references they are compared with are computed here: the
uninterrupted single-process training in this process, the uninterrupted 2- and 4-rank trainings on gloo ranks
started from here (trusted code only), Young's and Daly's intervals as closed forms.

One exception: whether save_checkpoint fsyncs and picks a temporary name of its own cannot be seen from outside (the
grader cannot cut the power), so the sandbox wraps os.fsync / os.replace and reports the calls it saw
(rank_observe_saves). That report is a sandbox-side observation, a claim the student's code could forge: it grades
an honest omission, not an attack.
"""
import contextlib
import io
import math
import random
import re

import numpy as np
import torch

import distlab
from autograde.sets._common import StudentError, assert_number, assert_tensor, check, generator

from . import ranks  # the training harness, for references
REFERENCES = {}  # {key: reference run}: the same for every student, computed once per grading process
# The seed the trainings that get captured start from: secret, drawn per grading run. A restore is never told it, so
# replaying the public harness from its start cannot stand in for restoring what was captured.
TRAINING_SEED = int(torch.randint(0, 2**31 - 200, (1,), generator=generator("03 training seed")))


# --- helpers ------------------------------------------------------------------------------------------------------


def run(student, where, name, *args, **kwargs):
    """student.call(name, ...); if the student's code raises, the error names the case `where`."""
    try:
        return student.call(name, *args, **kwargs)
    except StudentError as error:
        message = f"{where}: {error.message}" if error.message.strip() else where
        raise StudentError(error.type_names, message, error.traceback, error.output) from None


def described(error):
    """'SomeError: its message' (without the colon when the message is empty)."""
    return error.type_names[0] + (f": {error.message}" if error.message.strip() else "")


def torch_bytes(value):
    """torch.save bytes of `value`, as a uint8 tensor (how file contents travel to and from the sandbox)."""
    buffer = io.BytesIO()
    torch.save(value, buffer)
    return torch.frombuffer(bytearray(buffer.getvalue()), dtype=torch.uint8)


def load_bytes(data, where, hint=""):
    """torch.load(weights_only=True) of file contents that came from the sandbox (a uint8 tensor): only plain data
    loads, no code runs."""
    assert type(data) is torch.Tensor and data.dtype == torch.uint8 and data.dim() == 1, (
        f"{where}: expected the file's bytes, got {type(data).__name__}")
    try:
        return torch.load(io.BytesIO(data.numpy().tobytes()), weights_only=True)
    except Exception as error:  # noqa: BLE001 - whatever refuses to load is the failure
        reason = str(error).strip().splitlines()[0].split(". ")[0][:200] if str(error).strip() else ""
        raise AssertionError(f"{where}: torch.load(weights_only=True) refuses it ({type(error).__name__}"
                             f"{': ' + reason if reason else ''}){hint}") from None


def assert_same(got, want, where):
    """`got` equals `want`: the same keys, the same container types, tensors of the same dtype, shape and values."""
    if isinstance(want, torch.Tensor):
        assert_tensor(got, want, exact=True, where=where)
    elif isinstance(want, dict):
        keys = sorted(map(str, got)) if isinstance(got, dict) else f"a {type(got).__name__}"
        assert isinstance(got, dict) and set(got) == set(want), (f"{where}: keys {keys}, expected "
                                                                f"{sorted(map(str, want))}")
        for key in want:
            assert_same(got[key], want[key], f"{where}[{key!r}]")
    elif isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want), f"{where}: got {got!r}, expected {want!r}"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_same(g, w, f"{where}[{i}]")
    else:
        assert got == want and type(got) is type(want), f"{where}: got {got!r}, expected {want!r}"


def assert_identical(got, want, where):
    """Bit-identical tensors; when the values differ, the message gives the largest difference."""
    if type(got) is torch.Tensor and got.dtype == want.dtype and got.shape == want.shape:
        assert torch.equal(got, want), (f"{where} differs from the run that never failed "
                                        f"(max |diff| {(got - want).abs().max():.3g})")
    assert_tensor(got, want, exact=True, where=where)


# --- Part 1: save_checkpoint, load_checkpoint -------------------------------------------------------------------


def round_trip_states():
    """The states the round trip saves: every kind of value a checkpoint holds, nested."""
    generator = torch.Generator().manual_seed(3)
    first = {"step": 12, "loss": 0.25, "name": "run-a", "history": [1.0, 2.0, 3.0], "shape": (3, 4), "note": None,
             "weights": {"w": torch.randn(3, 4, generator=generator), "b": torch.arange(5)}}
    newer = {"step": 13, "weights": {"w": torch.zeros(2)}}
    other = {"f64": torch.randn(5, dtype=torch.float64, generator=generator), "mask": torch.tensor([True, False]),
             "i8": torch.tensor([-3, 4], dtype=torch.int8), "empty": torch.empty(0, 7),
             "nested": {"a": [{"b": (1, 2.5)}]}}
    return first, newer, other


def file_state(student, path, where):
    """The checkpoint file at `path` in the sandbox, loaded here (weights_only=True)."""
    data = run(student, where, "rank_read", path)
    assert data is not None, f"{where}: there is no file at `path`"
    return load_bytes(data, f"{where}: the file at `path`")


def save_then_load(student, path, state, where, as_pathlib=False):
    """save_checkpoint(path, state) writes `state` in torch.save's format, and load_checkpoint(path) gives it back."""
    run(student, where, "rank_save", path, state, as_pathlib)
    assert_same(file_state(student, path, where), state, f"{where}: the file save_checkpoint wrote")
    loaded = run(student, where, "rank_load", path, as_pathlib)
    assert_same(load_bytes(loaded, f"{where}: what load_checkpoint returned"), state, f"{where}: load_checkpoint")


def assert_listing(student, folder, expected, where):
    """The sandbox's `folder` holds exactly the files `expected` (no temporary file left)."""
    listing = student.call("rank_listing", folder)
    assert listing == expected, f"files left in the folder {where}: {listing} (expected only {expected})"


@check
def save_load_round_trip(student):
    """save_checkpoint then load_checkpoint gives back the same dict (tensors, numbers, strings, containers), `path` a
    str or a pathlib.Path; a second save replaces the first; no temporary file is left, not even by a save that
    raised."""
    first, newer, other = round_trip_states()
    folder = student.call("rank_scratch", "roundtrip")
    path, other_path = f"{folder}/checkpoint.pt", f"{folder}/other.pt"
    save_then_load(student, path, first, "a first save to checkpoint.pt")
    save_then_load(student, path, newer, "a second save to checkpoint.pt")
    assert_listing(student, folder, ["checkpoint.pt"], "after two saves")
    save_then_load(student, other_path, other, "a save to a pathlib.Path (other.pt)", as_pathlib=True)
    assert_same(load_bytes(run(student, "other.pt as a str", "rank_load", other_path), "load_checkpoint(str)"),
                other, "load_checkpoint of other.pt given as a str")
    assert_listing(student, folder, ["checkpoint.pt", "other.pt"], "after a save to other.pt")
    raised = run(student, "a save of a state holding a lambda", "rank_save_unpicklable", path)
    assert raised is not None, "saving a state that holds a lambda should raise (pickle cannot serialize it)"
    assert_listing(student, folder, ["checkpoint.pt", "other.pt"], "after a save that raised")
    assert_same(file_state(student, path, "after a save that raised"), newer, "the previous checkpoint, after a "
                "save that raised")
    print("saved, loaded, replaced: same contents; no file left behind, not even by a save that raised")


def assert_load_raises(student, path, expected, what):
    """load_checkpoint(path) raises `expected` (or a subclass) whose message names the file."""
    name = path.rsplit("/", 1)[1]
    try:
        student.call("rank_load", path)
    except StudentError as error:
        assert expected in error.type_names, (f"load_checkpoint({name!r}) ({what}): expected {expected}, got "
                                              f"{described(error)}")
        assert name in error.message, (f"load_checkpoint({name!r}) ({what}): the {expected} must name the file: "
                                       f"{error.message}")
        return
    raise AssertionError(f"load_checkpoint({name!r}) ({what}) returned instead of raising {expected}")


@check
def load_checkpoint_errors(student):
    """load_checkpoint raises FileNotFoundError for a missing file, and ValueError for one that is not a checkpoint, is
    cut short or is empty; each error names the file."""
    folder = student.call("rank_scratch", "errors")
    assert_load_raises(student, f"{folder}/no-such-checkpoint.pt", "FileNotFoundError", "no such file")
    whole = torch_bytes({"weights": torch.randn(1000, generator=torch.Generator().manual_seed(4))})
    files = {"notes.txt": (torch.frombuffer(bytearray(b"not a checkpoint\n"), dtype=torch.uint8), "a text file"),
             "cut-short.pt": (whole[: len(whole) // 2].clone(), "a checkpoint cut in half"),
             "empty.pt": (torch.empty(0, dtype=torch.uint8), "an empty file")}
    for name, (data, what) in files.items():
        student.call("rank_write", f"{folder}/{name}", data)
        assert_load_raises(student, f"{folder}/{name}", "ValueError", what)
    print("missing file: FileNotFoundError; not a checkpoint, cut short, empty: ValueError")


def load_outcome(student, path):
    """None if load_checkpoint(path) raised ValueError, else what it did instead."""
    try:
        student.call("rank_load", path)
    except StudentError as error:
        return None if "ValueError" in error.type_names else f"raised {described(error)}"
    return "returned"


@check
def load_checkpoint_refuses_code(student):
    """load_checkpoint refuses (ValueError) a file whose unpickling would run code (here: create a folder), in
    torch.save's format or a plain pickle, and that code never runs."""
    folder = student.call("rank_scratch", "malicious")
    for name, container in (("model.pt", "torch.save"), ("plain.pkl", "pickle")):
        path, marker = f"{folder}/{name}", f"{folder}/pwned-by-{name}"
        student.call("rank_write_malicious", path, marker, container)  # made in the sandbox: no code runs here
        outcome = load_outcome(student, path)
        assert student.call("rank_exists", marker) is False, (
            f"loading {name} ran the code hidden in it (it created {marker}): load with weights_only=True")
        assert outcome is None, (f"load_checkpoint({name!r}) {outcome}; it must raise ValueError: the file holds an "
                                 f"object weights_only refuses")
    print("refused, and nothing ran")


OLD = {"step": 1, "weights": torch.full((1000,), 1.0)}
NEW = {"step": 2, "weights": torch.full((100_000,), 2.0)}


def kill_a_save(student, path, kill_point):
    """save_checkpoint(path, NEW) in another process, SIGKILLed while serializing or right after opening `path`."""
    report = run(student, f"killed while {kill_point}", "rank_kill_a_save", path, kill_point, NEW)
    if report["finished"]:
        assert kill_point != "serializing", ("save_checkpoint finished although serializing the state should have "
                                             "killed it: use torch.save")
        return
    assert report["signal"] == "SIGKILL", (f"killed while {kill_point}: expected the save to be killed by SIGKILL, "
                                           f"its process ended with exit code {report['exitcode']}")


def assert_old_checkpoint_survives(student, kill_point):
    """After a save killed at `kill_point`, `path` holds the previous checkpoint, complete (or the complete new one)."""
    path = f"{student.call('rank_scratch', 'kill')}/checkpoint.pt"
    student.call("rank_write", path, torch_bytes(OLD))
    kill_a_save(student, path, kill_point)
    data = student.call("rank_read", path)
    assert data is not None, f"killed while {kill_point}: the previous checkpoint at `path` is gone"
    state = load_bytes(data, f"killed while {kill_point}: `path` holds a partial file that cannot be loaded",
                       "; write to a temporary file, then os.replace")
    assert isinstance(state, dict), f"killed while {kill_point}: `path` holds a {type(state).__name__}, not a dict"
    old = state.get("step") == 1 and torch.equal(state.get("weights", torch.empty(0)), OLD["weights"])
    new = state.get("step") == 2 and torch.equal(state.get("weights", torch.empty(0)), NEW["weights"])
    assert old or new, f"killed while {kill_point}: `path` holds neither the previous checkpoint nor the new one"


@check
def save_checkpoint_survives_kill(student):
    """A save killed by SIGKILL halfway through, in another process, leaves the previous checkpoint (or the complete new
    one) at `path`, never a partial file: killed while serializing or right after opening `path`; a first save killed
    halfway leaves no file there."""
    for kill_point in ("serializing", "writing"):
        assert_old_checkpoint_survives(student, kill_point)
        print(f"killed while {kill_point}: the previous checkpoint is intact")
    path = f"{student.call('rank_scratch', 'kill-first')}/checkpoint.pt"
    kill_a_save(student, path, "serializing")
    assert student.call("rank_read", path) is None, "a first save killed halfway left a partial file at `path`"
    print("a first save killed halfway: no file at `path`")


def observed_saves(student, what):
    """Two saves to one `checkpoint.pt`, with the sandbox recording save_checkpoint's fsync and rename calls (a
    sandbox-side observation: see rank_observe_saves): the record, and per save its rename onto `path`."""
    folder = student.call("rank_scratch", what)
    first, newer, _ = round_trip_states()
    record = run(student, "two saves to checkpoint.pt", "rank_observe_saves", folder, [first, newer])
    path = f"{record['folder']}/checkpoint.pt"
    assert len(record["saves"]) == 2, f"{len(record['saves'])} saves were recorded for the 2 made"
    renames = []
    for number, events in enumerate(record["saves"], 1):
        onto = [e for e in events if e["call"] in ("replace", "rename") and e["dst"] == path]
        assert onto, (f"save {number}: no os.replace (or os.rename) onto `path` was seen: write a temporary file, "
                      f"then os.replace(tmp, path)")
        renames.append(onto[-1])
    return record, renames


def synced(events, is_dir, inode):
    """Whether `events` hold an fsync (or fdatasync) of the folder (is_dir) or file with this inode."""
    return any(e["call"] in ("fsync", "fdatasync") and e["is_dir"] == is_dir and e["inode"] == inode for e in events)


@check
def save_checkpoint_fsyncs(student):
    """save_checkpoint fsyncs the temporary file before renaming it onto `path`, and the folder after (observed:
    os.fsync and os.replace are wrapped while it runs)."""
    record, renames = observed_saves(student, "fsync")
    for number, (events, rename) in enumerate(zip(record["saves"], renames, strict=True), 1):
        at = events.index(rename)
        assert synced(events[:at], False, rename["inode"]), (
            f"save {number}: the temporary file was not fsync'd before os.replace: after a power cut `path` could "
            f"name a file whose bytes never reached the disk (f.flush(), then os.fsync(f.fileno()))")
        assert synced(events[at + 1:], True, record["folder_inode"]), (
            f"save {number}: the folder was not fsync'd after os.replace: the rename itself may not survive a power "
            f"cut (os.open(folder, os.O_RDONLY), os.fsync, os.close)")
    print("the temporary file is fsync'd before the rename, the folder after it")


@check
def save_checkpoint_unique_temp_name(student):
    """save_checkpoint writes to a temporary file in the folder of `path`, under a name no other save uses (two saves in
    one process use two names; observed: os.replace is wrapped while it runs)."""
    record, renames = observed_saves(student, "unique")
    for number, rename in enumerate(renames, 1):
        assert rename["src"].rsplit("/", 1)[0] == record["folder"], (
            f"save {number}: the temporary file {rename['src']} is not in the folder of `path`: a rename is atomic "
            f"only within one file system")
    names = [rename["src"].rsplit("/", 1)[1] for rename in renames]
    assert names[0] != names[1], (
        f"two saves to the same `path` used the same temporary name {names[0]!r}: two saves at the same time (another "
        f"thread, another process) would write into one file; let tempfile.mkstemp(dir=folder) choose the name")
    print("temporary files in the folder of `path`, a new name each time")


# --- Part 2: capture_training_state, restore_training_state ---------------------------------------------------------


@check
def capture_state_loads_weights_only(student):
    """capture_training_state returns a dict that torch.save writes and torch.load(weights_only=True) reads back."""
    data = run(student, "captured after 2 steps", "rank_capture_bytes", 2)
    state = load_bytes(data, "the captured state", "; is NumPy's RNG state stored as a NumPy array?")
    assert isinstance(state, dict), f"capture_training_state must return a dict, got {type(state).__name__}"
    print(f"captured state: {len(data):,} bytes, loads with weights_only=True")


@contextlib.contextmanager
def generators_kept_one_thread():
    """Run the training here on one thread (as the sandbox does) without touching the grader's global generators."""
    saved = torch.get_rng_state(), np.random.get_state(), random.getstate(), torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_rng_state(saved[0])
        np.random.set_state(saved[1])
        random.setstate(saved[2])
        torch.set_num_threads(saved[3])


def single_process_reference(total_steps):
    """The training that never stopped, in this process (from the secret seed): its losses and final parameters."""
    if ("plain", total_steps) not in REFERENCES:
        with generators_kept_one_thread():
            REFERENCES["plain", total_steps] = ranks.train_plain(total_steps, seed=TRAINING_SEED)
    return REFERENCES["plain", total_steps]


def assert_continues_exactly(result, expected, steps_before, where):
    """The restored run's losses and parameters are those of the run that never stopped."""
    losses = result["losses"]
    assert losses == expected["losses"][steps_before:], (f"{where}: after restoring, the losses differ from the "
                                                         f"uninterrupted run:\n got      {losses}\n expected "
                                                         f"{expected['losses'][steps_before:]}")
    assert len(result["parameters"]) == len(expected["parameters"]), f"{where}: not the model's parameters"
    for i, (got, want) in enumerate(zip(result["parameters"], expected["parameters"], strict=True)):
        assert_identical(got, want, f"{where}: parameter {i}")


def values_in(state):
    """Every value a capture holds, found wherever its layout puts it, as flat float64 tensors: its tensors, its lists
    and tuples of numbers (a key saved with .tolist(), random.getstate()'s tuple), its numbers, and the numbers
    written in its strings (a state saved as JSON text)."""
    found = []

    def walk(value, depth=0):
        if depth > 50:
            return
        if type(value) is torch.Tensor:
            if not value.is_complex():
                found.append(value.detach().reshape(-1).double())
        elif isinstance(value, (bool, int, float)):
            found.append(torch.tensor([float(value)], dtype=torch.float64))
        elif isinstance(value, str) and len(value) > 100:
            numbers = re.findall(r"-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?", value)
            found.append(torch.tensor([float(n) for n in numbers], dtype=torch.float64))
        elif isinstance(value, dict):
            for item in value.values():
                walk(item, depth + 1)
        elif isinstance(value, (list, tuple)):
            if value and all(isinstance(v, (bool, int, float)) for v in value):
                found.append(torch.tensor([float(v) for v in value], dtype=torch.float64))
            for item in value:
                walk(item, depth + 1)

    walk(state)
    return found


def holds(found, want):
    """Whether some value of `found` holds `want` (a tensor), element for element, as itself or as a run of a longer
    one (Python's 624 key words are followed by the position; weights may be kept as one flat vector)."""
    want = want.reshape(-1).double()
    return any(len(got) >= len(want) > 0 and bool((got.unfold(0, len(want), 1) == want).all(1).any())
               for got in found)


def assert_capture_holds(state, want, step, where):
    """The capture holds, in any layout, what the grader's own run held at `step`: every weight, Adam's moments, the
    torch generator's state, NumPy's and Python's MT19937 keys and NumPy's cached Gaussian. Continuing exactly is
    judged apart: this is what the capture must contain (a seed and a replay of the training does not)."""
    found = values_in(state)
    missing = [f"{sum(not holds(found, t) for t in want[key])} of the {len(want[key])} {what}"
               for key, what in [("parameters", "weights"), ("moments", "Adam moments (exp_avg, exp_avg_sq)")]
               if not all(holds(found, t) for t in want[key])]
    missing += [what for what, key in [("torch's generator state (torch.get_rng_state())", "torch"),
                                       ("NumPy's generator key", "numpy_key"),
                                       ("Python's random state (random.getstate())", "python_key")]
                if not holds(found, want[key])]
    if want["numpy_gauss"] is not None and not holds(found, torch.tensor([want["numpy_gauss"]], dtype=torch.float64)):
        missing.append("NumPy's cached Gaussian")
    assert not missing, (f"{where}: the capture does not hold {', '.join(missing)} as they were at step {step} (the "
                         f"grader's own run of the same training; compared value by value, in any layout): it must "
                         f"hold the model's and the optimizer's state_dict() and the three generators' states")


@check
def training_state_round_trip(student):
    """restore_training_state(capture_training_state(...)) continues training bit-identically in one process, returns
    the step, and the capture is a snapshot that holds the weights, Adam's moments and the three generators' states."""
    for token, (steps_before, steps_after) in enumerate([(3, 4), (0, 3), (7, 5)]):
        where = f"captured at step {steps_before}, restored into fresh objects"
        taken = run(student, where, "rank_capture_then_train", token, steps_before, steps_after, TRAINING_SEED)
        result = run(student, where, "rank_restore_then_train", token, steps_after)  # never told the seed
        assert result["step"] == steps_before, (f"{where}: restore_training_state returned {result['step']!r}, "
                                                f"expected the captured step {steps_before}")
        expected = single_process_reference(steps_before + steps_after)
        assert_continues_exactly(result, expected, steps_before, where)
        assert_capture_holds(load_bytes(taken, f"{where}: the capture"), expected["holdings"][steps_before],
                             steps_before, where)
        print(f"capture at step {steps_before}, restore into fresh objects: the next {steps_after} steps are "
              f"bit-identical")


def reference_on_ranks(total_steps, world_size):
    """The run that never failed, on `world_size` gloo ranks started from here (trusted code only, no checkpoints),
    from the secret seed."""
    if ("ranks", total_steps, world_size) not in REFERENCES:
        REFERENCES["ranks", total_steps, world_size] = distlab.launch(
            ranks.train_on_rank, world_size, args=(None, total_steps, None, None, False, TRAINING_SEED, True),
            timeout=120,
            collective_timeout=30,
            backend="gloo", output="hide")
    return REFERENCES["ranks", total_steps, world_size]


def crash_plans():
    """(world size, steps, checkpoint interval, [(rank killed, step)]): the notebook's plans, from its random draws.
    No rank but 0 is killed right after a checkpoint: whether rank 0 marked it complete first would be a race."""
    chooser = random.Random(2026)
    crash_step = chooser.randrange(5, 12)
    first, second = chooser.randrange(6, 10), chooser.randrange(11, 15)
    return [(2, 12, 4, [(1, crash_step)]),
            (2, 15, 5, [(0, first), (1, second)]),  # killed twice, once on each rank: resumes at 5, then 10
            (2, 15, 3, [(0, 3)]),  # killed right after a checkpoint (rank 0: after it marked it complete)
            (4, 12, 4, [(3, chooser.randrange(5, 12))])]  # each parameter all-reduced on its own: a fixed sum order


def crash_and_resume(student, folder, plan, where):
    """Run the plan's killed attempts, each resuming from the last checkpoint, then the final resumed run. Only the
    first attempt is told the secret seed."""
    world_size, total_steps, every, crashes = plan
    for attempt, (rank, step) in enumerate(crashes):
        report = run(student, where, "rank_train_run", folder, total_steps, every, world_size, (rank, step),
                     attempt > 0, None if attempt else TRAINING_SEED)
        ended = "the run finished" if "ranks" in report else f"rank {report.get('crashed')} was killed"
        assert report.get("crashed") == rank, f"{where}: expected rank {rank} to be killed at step {step}; {ended}"
    return run(student, where, "rank_train_run", folder, total_steps, every, world_size, None, True)["ranks"]


def assert_matches_reference(resumed, reference, resume_step, where):
    """Every rank resumed at the last checkpoint, and its losses and final parameters are the reference's, bit for
    bit."""
    assert len(resumed) == len(reference), f"{where}: {len(resumed)} results for {len(reference)} ranks"
    for rank, (got, want) in enumerate(zip(resumed, reference, strict=True)):
        assert got["resumed_at"] == resume_step, (f"{where}: rank {rank} resumed at step {got['resumed_at']}, not at "
                                                  f"the last checkpoint (step {resume_step})")
        assert sorted(got["losses"]) == list(range(resume_step, len(want["losses"]))), (
            f"{where}: rank {rank} ran the steps {sorted(got['losses'])} after resuming")
        assert len(got["parameters"]) == len(want["parameters"]), f"{where}: rank {rank}: not the model's parameters"
        for step, loss in got["losses"].items():
            assert loss == want["losses"][step], (f"{where}: rank {rank}: after resuming, the loss of step {step} is "
                                                  f"{loss!r}, the run that never failed had {want['losses'][step]!r}")
        for i, (g, w) in enumerate(zip(got["parameters"], want["parameters"], strict=True)):
            assert_identical(g, w, f"{where}: rank {rank}, parameter {i}")


@check
def resume_is_bit_exact(student):
    """Training on several ranks, killed (SIGKILL) at a random step and resumed from its last checkpoint, ends
    bit-identical to a run that never failed; the checkpoint it resumed from holds what each rank held then."""
    for plan in crash_plans():
        world_size, total_steps, every, crashes = plan
        where = f"{world_size} ranks, {total_steps} steps, a checkpoint every {every}, killed at (rank, step) {crashes}"
        resume_step = every * (crashes[-1][1] // every)
        folder = student.call("rank_scratch", "resume")
        resumed = crash_and_resume(student, folder, plan, where)
        reference = reference_on_ranks(total_steps, world_size)
        assert_matches_reference(resumed, reference, resume_step, where)
        for rank in range(world_size):  # the checkpoint it resumed from holds what the run held at that step
            data = run(student, where, "rank_read", f"{folder}/step-{resume_step}-rank{rank}.pt")
            assert data is not None, f"{where}: rank {rank}'s checkpoint of step {resume_step} is gone"
            assert_capture_holds(load_bytes(data, f"{where}: rank {rank}'s checkpoint"),
                                 reference[rank]["holdings"][resume_step], resume_step, f"{where}, rank {rank}")
        print(f"{world_size} ranks: killed at {crashes}, resumed at step {resume_step}: bit-identical to the run "
              f"that never failed")


# --- Part 3: young_interval, daly_interval --------------------------------------------------------------------------


def young(cost, mtbf):
    """Young (1974): sqrt(2 * cost * MTBF)."""
    return math.sqrt(2 * cost * mtbf)


def daly(cost, mtbf):
    """Daly (2006): sqrt(2 cost M) [1 + sqrt(cost / 2M) / 3 + (cost / 2M) / 9] - cost, or M when cost >= 2M."""
    if cost >= 2 * mtbf:
        return float(mtbf)
    ratio = cost / (2 * mtbf)
    return young(cost, mtbf) * (1 + math.sqrt(ratio) / 3 + ratio / 9) - cost


INVALID = [(0.0, 10_800.0), (30.0, 0.0), (-1.0, 100.0), (10.0, -5.0), (float("nan"), 100.0), (10.0, float("nan")),
           (float("inf"), 100.0), (10.0, float("inf"))]


def assert_interval(student, which, cost, mtbf, expected):
    """{which}_interval(cost, mtbf) returns a float within 1e-6 (relative) of `expected`; returns it."""
    name = f"{which}_interval({cost}, {mtbf})"
    result = run(student, name, "rank_interval", which, cost, mtbf)
    assert result["is_float"] is True, f"{which}_interval must return a float, got {result['type']}"
    assert_number(result["value"], expected, rel=1e-6, where=name)
    return result["value"]


def assert_rejects(student, which, cost, mtbf):
    """{which}_interval(cost, mtbf) raises ValueError (or a subclass)."""
    name = f"{which}_interval({cost}, {mtbf})"
    try:
        result = student.call("rank_interval", which, cost, mtbf)
    except StudentError as error:
        assert "ValueError" in error.type_names, f"{name} must raise ValueError, it raised {described(error)}"
        return
    raise AssertionError(f"{name} must raise ValueError, it returned {result['value']!r}")


@check
def young_interval_values(student):
    """young_interval is sqrt(2 * cost * MTBF) and rejects costs or MTBFs that are not finite and > 0."""
    values = [assert_interval(student, "young", cost, mtbf, young(cost, mtbf))
              for cost, mtbf in [(30.0, 10_800.0), (60.0, 86_400.0), (2.0, 1.0), (1e-3, 5.0)]]
    for cost, mtbf in INVALID:
        assert_rejects(student, "young", cost, mtbf)
    print(f"young_interval(30 s, 3 h) = {values[0]:.1f} s")


@check
def daly_interval_values(student):
    """daly_interval follows Daly's formula, falls back to the MTBF when the cost is at least twice the MTBF, and
    rejects invalid input."""
    values = [assert_interval(student, "daly", cost, mtbf, daly(cost, mtbf))
              for cost, mtbf in [(30.0, 10_800.0), (100.0, 40.0), (60.0, 86_400.0), (1.0, 1.0), (2.0, 1.0), (1.9, 1.0)]]
    for cost, mtbf in INVALID:
        assert_rejects(student, "daly", cost, mtbf)
    print(f"daly_interval(30 s, 3 h) = {values[0]:.1f} s")
