"""Trusted checks of exercise set 08 (orchestration): one per test cell, named by its grade_id.

Run by the grader, never in the sandbox. Parts 1 and 2 run real processes in the sandbox (ranks.py): a rendezvous's
processes, forked by `distlab.launch`, arrive in an order drawn here and meet on a `torch.distributed.FileStore` (a
file in the sandbox's /tmp, which its processes share: no free port to find, nothing on the loopback); a training under
`run_preemptible` gets a real SIGTERM during a step drawn here and, past its grace period, a real SIGKILL. What comes
back is plain data (names, ranks, messages, the steps each process started, the checkpoint's bytes, loaded here with
`torch.load(weights_only=True)`), judged against what this module computes: the sorted names, the state of each step
of the grader's training chain (`ranks.chain_step`, from a start drawn per grading). Parts 3 and 4 are pure Python,
against this module's own references: an exhaustive search over the plans, and the median rule on compute times
drawn per grading.

What the sandbox observes is a claim: the times a process started and returned, the steps a training started, the
signals the scheduler sent and the checkpoint's bytes are recorded by ranks.py in the sandbox, in the processes where
the student's code runs (it could forge them; no secret can hide there from it). They grade honest mistakes, not
attacks, as set 03's sandbox-side observations do; a grader that watched the processes from outside the sandbox would
need a launch in autograde/sandbox.py that reports exit signals and file contents itself.
"""
import io
import math
import re
import statistics

import torch

from autograde.sets._common import assert_raises, check, draw_int, generator

from . import ranks

SLACK_S = 5.0  # a deadline kept: what a process may take past it on a loaded 2-core machine
LAUNCH_S = 20.0  # a launch's own deadline: a rendezvous or a training that never returns costs this much
GRACE_S = 3.0  # the grace period between SIGTERM and SIGKILL that the statement promises for a save


# --- helpers --------------------------------------------------------------------------------------------------------


def draw_names(draw, count):
    """`count` distinct host-like names of equal length (so that none is inside another), e.g. 'node-3fa9'."""
    names = set()
    while len(names) < count:
        names.add("node-" + "".join("0123456789abcdef"[draw_int(draw, 0, 15)] for _ in range(4)))
    return sorted(names)


def shuffled(draw, items):
    """`items` in an order drawn from `draw` that is not their sorted order."""
    while True:
        order = [items[i] for i in torch.randperm(len(items), generator=draw).tolist()]
        if order != sorted(items):
            return order


def launched(seen, what):
    """The per-process reports of a launch; a launch that failed as a whole is the failure, named."""
    assert not isinstance(seen, dict), f"{what}: the processes' launch failed: {seen.get('launch')}"
    for report in seen:
        assert "gate" not in report, f"{what}: process {report['name']!r}: {report['gate']}"
    return seen


def error_of(report):
    """'SomeError: its message' of a process that raised."""
    return f"{report['error'][0]}: {report['message']}"


# --- Part 1: rendezvous ----------------------------------------------------------------------------------------------


@check
def rendezvous_assigns_ranks(student):
    """Processes that arrive in any order each get (rank, names): the names of all, sorted, and their own position in
    it; each returns only once all have arrived; one process alone is rank 0."""
    draw = generator("08 rendezvous ranks")
    for round_ in range(2):
        names = draw_names(draw, draw_int(draw, 3, 5))
        arrival = shuffled(draw, names)
        what = f"{len(names)} processes arriving in the order {arrival}"
        seen = launched(student.call("rank_rendezvous", arrival, len(names), 10.0, LAUNCH_S, timeout=LAUNCH_S + 10),
                        what)
        last_arrival = max(report["started"] for report in seen)
        for report in seen:
            name = report["name"]
            assert "error" not in report, f"{what}: rendezvous on {name!r} raised {error_of(report)}"
            value = report["value"]
            assert isinstance(value, list) and len(value) == 2, (
                f"{what}: rendezvous on {name!r} returned {value!r}; expected (rank, names)")
            rank, members = value
            assert members == names, f"{what}: {name!r} got the names {members!r}; expected all of them sorted: {names}"
            assert type(rank) is int and rank == names.index(name), (
                f"{what}: {name!r} got rank {rank!r}; expected {names.index(name)}, its position in the sorted names")
            assert report["returned"] >= last_arrival, (
                f"{what}: {name!r} returned before the last process had arrived: a rendezvous waits for all")
    alone = student.call("rank_call_rendezvous", "solo-node", 1, 5.0)
    assert "error" not in alone, f"rendezvous(store, 'solo-node', 1, 5.0) raised {error_of(alone)}"
    assert alone["value"] == [0, ["solo-node"]], (
        f"rendezvous(store, 'solo-node', 1, 5.0) returned {alone['value']!r}; expected (0, ['solo-node'])")
    print("every process got its position among the sorted names, once all had arrived, whatever the order")


@check
def rendezvous_deadline_names_missing(student):
    """When fewer than world_size processes arrive, each raises TimeoutError once timeout_s has passed (not before),
    naming every process that arrived and saying how many are missing ('<k> missing')."""
    draw = generator("08 rendezvous deadline")
    world_size = draw_int(draw, 4, 6)
    names = draw_names(draw, draw_int(draw, 2, world_size - 1))
    arrival, timeout_s, missing = shuffled(draw, names), 1.0, world_size - len(names)
    what = f"{len(names)} of world_size={world_size} arriving (timeout_s={timeout_s})"
    seen = launched(student.call("rank_rendezvous", arrival, world_size, timeout_s, LAUNCH_S, timeout=LAUNCH_S + 10),
                    what)
    for report in seen:
        name = report["name"]
        assert "error" in report, f"{what}: rendezvous on {name!r} returned {report['value']!r} instead of raising"
        assert "TimeoutError" in report["error"], f"{what}: {name!r} raised {error_of(report)}; expected TimeoutError"
        waited = report["returned"] - report["started"]
        assert waited >= timeout_s - 0.05, f"{what}: {name!r} gave up after {waited:.2f} s, before timeout_s"
        assert waited <= timeout_s + SLACK_S, f"{what}: {name!r} raised only after {waited:.2f} s"
        absent = [other for other in names if other not in report["message"]]
        assert not absent, f"{what}: {name!r}'s error does not name {absent} who arrived: {report['message']!r}"
        assert f"{missing} missing" in report["message"], (
            f"{what}: {name!r}'s error should say '{missing} missing': {report['message']!r}")
    print(f"{len(names)} of {world_size} arrived: each raised TimeoutError after {timeout_s} s, naming them, "
          f"'{missing} missing'")


@check
def rendezvous_rejects_bad_arguments(student):
    """rendezvous raises ValueError (with a message) for an empty name, a world_size that is not an int >= 1, and a
    timeout_s that is not a finite number > 0."""
    cases = [("", 1, 5.0), ("node-a", 0, 5.0), ("node-a", -2, 5.0), ("node-a", 2.0, 5.0), ("node-a", 1, 0),
             ("node-a", 1, -1.0), ("node-a", 1, math.nan), ("node-a", 1, math.inf)]
    for name, world_size, timeout_s in cases:
        shown = f"rendezvous(store, {name!r}, {world_size!r}, {timeout_s!r})"
        report = student.call("rank_call_rendezvous", name, world_size, timeout_s, timeout=30)
        assert "error" in report, f"{shown} returned {report['value']!r}; expected ValueError"
        assert "ValueError" in report["error"], f"{shown} raised {error_of(report)}; expected ValueError"
        assert report["message"].strip(), f"{shown} raised ValueError without a message"
    print("empty name, world_size < 1 or not an int, timeout_s not finite and > 0: ValueError")


# --- Part 2: preemption ----------------------------------------------------------------------------------------------


def chain(x0, steps):
    """The grader's training state after `steps` steps from the tensor x0."""
    x = x0.clone()
    for step in range(steps):
        x = ranks.chain_step(x, step)
    return {"step": steps, "x": x}


def training(label):
    """A training drawn per grading: its start x0, total_steps, save_every and the step `term_at` during which SIGTERM
    comes (at least one periodic checkpoint before it, and the step after it not one)."""
    draw = generator(label)
    x0 = torch.randint(1, 2**31 - 1, (16,), generator=draw, dtype=torch.int64)
    save_every = draw_int(draw, 3, 6)
    total_steps = draw_int(draw, 5 * save_every, 7 * save_every)
    while True:
        term_at = draw_int(draw, save_every, total_steps - 3)
        if (term_at + 1) % save_every:
            return dict(total_steps=total_steps, save_every=save_every, x0=x0, term_at=term_at, stall=False,
                        resume_state=None)


def checkpoint(seen, what):
    """The checkpoint file the training left, loaded here with weights_only=True."""
    data = seen["file"]
    assert data is not None, f"{what}: there is no checkpoint file at `path`"
    try:
        state = torch.load(io.BytesIO(data.numpy().tobytes()), weights_only=True)
    except Exception as error:  # noqa: BLE001 - whatever refuses to load is the failure
        raise AssertionError(f"{what}: the file at `path` does not load with torch.load(weights_only=True) "
                             f"({type(error).__name__}): a partial file?") from None
    assert isinstance(state, dict) and "step" in state and "x" in state, (
        f"{what}: the checkpoint holds {type(state).__name__} "
        f"{sorted(state) if isinstance(state, dict) else ''}; expected the state train_step returned")
    return state


def assert_state(state, spec, steps, what):
    """The saved state is the grader's after `steps` steps."""
    want = chain(spec["x0"], steps)
    assert state["step"] == steps, f"{what}: the checkpoint is of step {state['step']!r}; expected {steps}"
    assert type(state["x"]) is torch.Tensor and torch.equal(state["x"], want["x"]), (
        f"{what}: the checkpoint's 'x' is not the state train_step returned at step {steps}")


def ran_to_return(seen, what):
    """The training's process returned a value (it was neither killed nor failed)."""
    assert "crashed" not in seen, f"{what}: the training's process was killed ({seen['crashed']})"
    assert "failed" not in seen, f"{what}: {seen['failed']}"
    result = seen["result"]
    assert result["handler_restored"], f"{what}: run_preemptible left its SIGTERM handler installed after returning"
    return result["value"]


@check
def preemption_finishes_step_and_saves(student):
    """On SIGTERM during a step, run_preemptible finishes that step, starts no other, saves the state atomically
    (no temporary file left) and returns the steps done within the grace period; its handler is removed after."""
    spec = training("08 preemption")
    term_at = spec["term_at"]
    what = (f"SIGTERM during step {term_at} (total_steps={spec['total_steps']}, save_every={spec['save_every']}, "
            f"grace {GRACE_S} s)")
    seen = student.call("rank_preempt", spec, GRACE_S, LAUNCH_S, timeout=LAUNCH_S + 10)
    assert seen.get("sigterm") == "sent", f"{what}: {seen.get('sigterm')}"
    assert not seen.get("sigkill"), (f"{what}: run_preemptible had not returned {GRACE_S} s after SIGTERM: SIGKILL"
                                     f"{' (it was still saving)' if seen.get('saving') else ''}")
    steps = ran_to_return(seen, what)
    assert seen["started"] == list(range(term_at + 1)), (
        f"{what}: the steps started were {seen['started']}; expected 0 to {term_at}, and none after the signal")
    assert steps == term_at + 1, f"{what}: run_preemptible returned {steps!r}; expected the steps done, {term_at + 1}"
    assert_state(checkpoint(seen, what), spec, term_at + 1, what)
    assert seen["listing"] == ["checkpoint.pt"], f"{what}: files left beside the checkpoint: {seen['listing']}"
    print(f"SIGTERM during step {term_at}: finished it, saved step {term_at + 1} and returned "
          f"{seen['returned_after_s']:.3f} s after the signal")


@check
def preemption_resumes_from_checkpoint(student):
    """run_preemptible started where a checkpoint exists continues from its step (not from initial_state) to
    total_steps, and saves the final state."""
    spec = training("08 resume")
    resume_at = spec["term_at"]
    spec.update(term_at=None, resume_state=chain(spec["x0"], resume_at))
    total = spec["total_steps"]
    what = f"a checkpoint of step {resume_at} at `path` (total_steps={total})"
    seen = student.call("rank_preempt", spec, GRACE_S, LAUNCH_S, timeout=LAUNCH_S + 10)
    steps = ran_to_return(seen, what)
    assert seen["started"] == list(range(resume_at, total)), (
        f"{what}: the steps started were {seen['started']}; expected {resume_at} to {total - 1}")
    assert steps == total, f"{what}: run_preemptible returned {steps!r}; expected {total}"
    assert_state(checkpoint(seen, what), spec, total, what)
    assert seen["listing"] == ["checkpoint.pt"], f"{what}: files left beside the checkpoint: {seen['listing']}"
    print(f"resumed at step {resume_at}, trained to {total}, saved it")


@check
def preemption_kill_keeps_last_checkpoint(student):
    """A save still running when the grace period ends is killed (SIGKILL): the file at `path` is then the last
    periodic checkpoint, whole (the run loses only the steps since it)."""
    spec = dict(training("08 kill"), stall=True)
    term_at, every = spec["term_at"], spec["save_every"]
    last = term_at // every * every
    what = f"SIGTERM during step {term_at}, the save then stalled and SIGKILLed 1 s later (save_every={every})"
    seen = student.call("rank_preempt", spec, 1.0, LAUNCH_S, timeout=LAUNCH_S + 10)
    assert seen.get("sigterm") == "sent", f"{what}: {seen.get('sigterm')}"
    assert "failed" not in seen, f"{what}: {seen['failed']}"
    assert_state(checkpoint(seen, what), spec, last, what)
    print(f"killed while saving step {term_at + 1}: the file holds step {last}, the last periodic checkpoint, whole")


# --- Part 3: elastic plan --------------------------------------------------------------------------------------------


def reference_plan(global_batch, world_size, max_micro_batch, max_accumulation):
    """Every (ranks, micro_batch, accumulation) that keeps the global batch, searched exhaustively; the best by the
    statement's rule (the most ranks, then the fewest accumulation steps), or None."""
    plans = [(r, global_batch // (r * a), a) for r in range(1, world_size + 1) for a in range(1, max_accumulation + 1)
             if global_batch % (r * a) == 0 and global_batch // (r * a) <= max_micro_batch]
    return max(plans, key=lambda plan: (plan[0], -plan[2])) if plans else None


EXAMPLES = [(512, 8, 16, 8), (512, 7, 16, 8), (96, 7, 8, 4), (96, 5, 8, 4), (1024, 6, 32, 16), (30, 4, 4, 4),
            (64, 64, 1, 1), (7, 3, 8, 8), (12, 16, 12, 1)]
IMPOSSIBLE = [(512, 1, 16, 8), (97, 8, 16, 4), (96, 3, 4, 4), (7, 3, 3, 2), (1024, 2, 8, 16)]


def plan_cases(label, want_plan, count):
    """The fixed cases of the kind asked (with a plan or without), then `count` drawn per grading."""
    draw = generator(label)
    cases = [case for case in EXAMPLES + IMPOSSIBLE if (reference_plan(*case) is not None) == want_plan]
    while len(cases) < len(EXAMPLES) + count:
        global_batch = draw_int(draw, 2, 16) * 2 ** draw_int(draw, 0, 6) + draw_int(draw, 0, 1) * draw_int(draw, 0, 3)
        case = (global_batch, draw_int(draw, 1, 12), draw_int(draw, 1, 48), draw_int(draw, 1, 12))
        if (reference_plan(*case) is not None) == want_plan:
            cases.append(case)
    return cases


def assert_plan(student, case, what):
    got, want = student.call("elastic_plan", *case), reference_plan(*case)
    shown = f"elastic_plan{case}"
    if want is None:
        assert got is None, f"{shown} returned {got!r}; expected None: no plan keeps the global batch{what}"
        return
    assert isinstance(got, (tuple, list)) and len(got) == 3, f"{shown} returned {got!r}; expected {want}"
    assert all(type(v) is int for v in got), f"{shown} returned {got!r}: expected three ints"
    ranks_used, micro, accumulation = got
    assert ranks_used * micro * accumulation == case[0], (
        f"{shown} returned {tuple(got)}: {ranks_used} x {micro} x {accumulation} is not the global batch {case[0]}")
    assert tuple(got) == want, f"{shown} returned {tuple(got)}; expected {want} (the most ranks, then the fewest steps)"


@check
def elastic_plan_values(student):
    """elastic_plan returns the (ranks, micro_batch, accumulation) that keeps the global batch exactly within the
    limits: the most ranks, then the fewest accumulation steps."""
    cases = plan_cases("08 elastic plans", True, 30)
    for case in cases:
        assert_plan(student, case, "")
    print(f"{len(cases)} plans: the most ranks, then the fewest accumulation steps")


@check
def elastic_plan_impossible(student):
    """elastic_plan returns None where no plan keeps the global batch (micro-batch and accumulation limits)."""
    cases = plan_cases("08 elastic none", False, 10)
    for case in cases:
        assert_plan(student, case, " within the limits")
    print(f"{len(cases)} cases without a plan: None")


@check
def elastic_plan_rejects_bad_input(student):
    """elastic_plan raises ValueError for an argument that is not an int >= 1 (0, negative, a float, a bool)."""
    good = dict(global_batch=64, world_size=4, max_micro_batch=8, max_accumulation=4)
    for name in good:
        for bad in (0, -4, 8.0, True):
            assert_raises(student, ValueError, "elastic_plan", **dict(good, **{name: bad}))
    print("0, negative, float and bool arguments: ValueError")


# --- Part 4: stragglers ----------------------------------------------------------------------------------------------


def reference_stragglers(compute_times, warmup, factor):
    """The statement's rule: each rank's median after `warmup`, against `factor` times the median of those."""
    paces = [statistics.median(times[warmup:]) for times in compute_times]
    reference = statistics.median(paces)
    return [rank for rank, pace in enumerate(paces) if pace > factor * reference]


# Fixed cases: (compute_times, warmup, factor). A pace exactly at the threshold is not a straggler; four ranks' paces
# [1, 1, 2, 2.5] put the median (1.5) between the low (1) and the high (2) middle values; a rank slow only while
# warming up; one huge step on a rank (noise: the median ignores it, a mean would not).
FIXED = [([[1.0] * 6, [1.0] * 6, [1.5] * 6, [1.0] * 6], 0, 1.5),
         ([[1.0] * 5, [1.0] * 5, [2.0] * 5, [2.5] * 5], 0, 1.5),
         ([[9.0, 9.0, 9.0, 1.0, 1.0], [1.0] * 5, [1.0] * 5], 3, 1.5),  # warm-up is most steps: kept, the median is 9
         ([[9.0, 9.0, 9.0, 1.0, 1.0], [1.0] * 5, [1.0] * 5], 0, 1.5),
         ([[0.1, 0.1, 5.0, 0.1, 0.1, 0.1], [0.1] * 6, [0.1] * 6, [0.35] * 6], 1, 2.0),
         ([[0.2] * 4, [0.2, 0.6, 0.6, 0.2], [0.2] * 4], 0, 1.5)]


def drawn_compute_times(draw):
    """A job drawn per grading: 2 to 12 ranks, a warm-up slower for all, a few stragglers 1.6 to 4 times slower, noise
    and one spike on some ranks."""
    world_size, steps, warmup = draw_int(draw, 2, 12), draw_int(draw, 6, 20), draw_int(draw, 0, 4)
    base = 0.05 + 0.2 * float(torch.rand((), generator=draw))
    slow = {rank for rank in range(world_size) if float(torch.rand((), generator=draw)) < 0.25}
    times = []
    for rank in range(world_size):
        pace = base * (1.6 + 2.4 * float(torch.rand((), generator=draw)) if rank in slow else 1.0)
        row = [pace * (1 + 0.1 * float(torch.rand((), generator=draw))) for _ in range(steps)]
        for step in range(min(warmup, steps)):
            row[step] *= 5.0
        if float(torch.rand((), generator=draw)) < 0.3:
            row[draw_int(draw, warmup, steps - 1)] *= 20.0  # one noisy step
        times.append(row)
    return times, min(warmup, steps - 1), 1.3 + 0.2 * draw_int(draw, 0, 3)


def as_ranks(got, shown):
    """A list (or tuple) of ints, as the grader compares it."""
    assert isinstance(got, (list, tuple)) and all(type(r) is int for r in got), (
        f"{shown} returned {got!r}; expected a list of ranks (ints)")
    return list(got)


@check
def find_stragglers_values(student):
    """find_stragglers returns, in increasing order, the ranks whose median compute time after warm-up is more than
    factor times the median of the ranks' medians (at the threshold: not a straggler; one noisy step does not count)."""
    draw = generator("08 stragglers")
    cases = FIXED + [drawn_compute_times(draw) for _ in range(20)]
    for number, (compute_times, warmup, factor) in enumerate(cases):
        shown = f"find_stragglers(<case {number}: {len(compute_times)} ranks>, warmup={warmup}, factor={factor})"
        got = as_ranks(student.call("find_stragglers", compute_times, warmup, factor), shown)
        want = reference_stragglers(compute_times, warmup, factor)
        assert got == want, f"{shown} returned {got}; expected {want} (compute times: {compute_times})"
    print(f"{len(cases)} jobs: the stragglers by the median rule")


def assert_names(student, args, words, shown):
    """find_stragglers(*args) raises ValueError whose message names each of `words` (e.g. 'rank 3', 'step 2')."""
    error = assert_raises(student, ValueError, "find_stragglers", *args)
    for word in words:
        assert re.search(rf"\b{word}\b", error.message), f"{shown}: the ValueError should name {word}: {error.message}"


@check
def find_stragglers_rejects_bad_input(student):
    """find_stragglers raises ValueError for ragged lists (naming the rank), a time that is NaN, infinite, negative or
    not a number (naming the rank and the step), no ranks, a warmup that leaves no step, or a factor not > 1."""
    draw = generator("08 stragglers input")
    world_size, steps = draw_int(draw, 3, 8), draw_int(draw, 5, 9)
    good = [[0.1] * steps for _ in range(world_size)]
    rank, step = draw_int(draw, 1, world_size - 1), draw_int(draw, 0, steps - 1)
    ragged = [row[:] for row in good]
    ragged[rank] = ragged[rank][:-1]
    assert_names(student, (ragged, 0, 1.5), [f"rank {rank}"], f"rank {rank} with {steps - 1} times, the others {steps}")
    for bad in (math.nan, math.inf, -0.1, "0.1"):
        times = [row[:] for row in good]
        times[rank][step] = bad
        assert_names(student, (times, 0, 1.5), [f"rank {rank}", f"step {step}"], f"{bad!r} at rank {rank}, step {step}")
    assert_raises(student, ValueError, "find_stragglers", [], 0, 1.5)
    assert_raises(student, ValueError, "find_stragglers", good, steps, 1.5)
    for factor in (1.0, 0.5, math.nan):
        assert_raises(student, ValueError, "find_stragglers", good, 0, factor)
    print("ragged lists, NaN, inf, negative or non-number times (rank and step named), no ranks, warmup too long, "
          "factor <= 1: ValueError")
