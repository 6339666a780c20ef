"""Trusted checks of exercise set 05 (pipeline schedules): one per test cell, named by its grade_id.

Run by the grader, never in the sandbox. The student's schedules come back as plain data and are judged here by an
independent simulator (`simulate` below: any order a stage may run, the dependencies of model part c*p + s), against
closed forms (Narayanan et al. 2021, §2.2: makespan (m + p - 1)(t_f + t_b) for GPipe and 1F1B, m(t_f + t_b) +
(p - 1)(t_f + t_b)/v interleaved; peaks in flight m, min(p - s, m), min(2(p - s - 1) + (v - 1)p + 1, mv)); the
student's simulator is fed schedules made here; and the student's schedules run on a real 4-rank pipeline
(autograde/sets/05_pipeline/ranks.py) whose gradients are compared with one process computed here. Part 5, zero
bubble (Qi et al. 2023): the student's ZB-H1 and its interleaved form are judged by properties (every op once, F
before B before W, runnable, makespan 3m + (p - 1)/v with a microbatch's F, B and W lasting 1 each when m >= p, the
least possible; no stage keeping more between F and W than the first stage without the split keeps between F and
B), not by one order; the student's B/W split runs on a small net and on 4 ranks, gradients against one process
computed here. Part 6, one mesh: the student's groups of a mesh, its dimensions in any order, against
torch.arange(n).reshape(mesh_shape) sliced here (the layout init_device_mesh builds), on the lesson's mesh, every
(dp, pp, tp) of 8 and 16 ranks in every order, and drawn meshes of 1 to 4 dimensions.
"""
import itertools
import math
import random

import torch

from autograde import sets
from autograde.sets._common import (GRADING_SEED, StudentError, assert_number, assert_raises, assert_tensor, check,
                                    draw_int, generator)
from distlab.models import ModelPart

from . import ranks  # the model and its batch, for the reference

THIS_SET = __name__.split(".")[-2]  # this folder's name: autograde/sets/<THIS_SET>/checks.py
LAUNCH = sets.get(THIS_SET).launch.kwargs()  # the preset of set.toml, next to this file


class Deadlock(AssertionError):
    pass


# --- the grader's own schedules and simulator --------------------------------------------------------------------

def reference_schedule(p, m, kind, v=1):
    """GPipe, 1F1B or Megatron's interleaved 1F1B, built here (for feeding the student's simulator)."""
    if kind == "gpipe":
        return [[("F", i, 0) for i in range(m)] + [("B", i, 0) for i in range(m)] for _ in range(p)]
    forward = [((j // (p * v)) * p + j % p, (j // p) % v) for j in range(m * v)]
    backward = [(i, v - 1 - c) for i, c in forward]
    schedule = []
    for s in range(p):
        warmup = min(p - s - 1, m) if kind == "1f1b" else min(2 * (p - s - 1) + (v - 1) * p, m * v)
        ops = [("F", *forward[j]) for j in range(warmup)]
        for j in range(m * v - warmup):
            ops += [("F", *forward[warmup + j]), ("B", *backward[j])]
        schedule.append(ops + [("B", *backward[j]) for j in range(m * v - warmup, m * v)])
    return schedule


def simulate(schedule, t_forward=1.0, t_backward=2.0):
    """(makespan, peaks in flight, timeline as {(stage, op, mb, chunk): (start, end)}); Deadlock if it cannot run.

    Event by event: among the stages whose next op has its input, run the one that can start first."""
    p = len(schedule)
    m, v = (1 + max(op[i] for ops in schedule for op in ops) for i in (1, 2))
    done, clock, nxt, timeline = {}, [0.0] * p, [0] * p, {}
    for _ in range(sum(len(ops) for ops in schedule)):
        ready = []
        for s in range(p):
            if nxt[s] == len(schedule[s]):
                continue
            op, mb, c = schedule[s][nxt[s]]
            part = c * p + s
            inputs = ([(op, mb, part - 1)] if part > 0 else []) if op == "F" else \
                [("F", mb, part)] + ([("B", mb, part + 1)] if part < p * v - 1 else [])
            if all(i in done for i in inputs):
                ready.append((max([clock[s]] + [done[i] for i in inputs]), s, op, mb, c, part))
        if not ready:
            waiting = [ops[n] if n < len(ops) else None for ops, n in zip(schedule, nxt)]
            raise Deadlock(f"the schedule deadlocks: each stage waits, its next ops {waiting}")
        start, s, op, mb, c, part = min(ready)
        end = start + (t_forward if op == "F" else t_backward) / v
        done[op, mb, part], clock[s] = end, end
        timeline[s, op, mb, c] = (start, end)
        nxt[s] += 1
    peaks = []
    for ops in schedule:
        counts = [sum(1 if o == "F" else -1 for o, _, _ in ops[:i + 1]) for i in range(len(ops))]
        peaks.append(max(counts))
    return max(clock), peaks, timeline


def closed_form(p, m, kind, v=1, t_forward=1.0, t_backward=2.0):
    """(makespan, peaks in flight) of GPipe, 1F1B and interleaved 1F1B."""
    step = t_forward + t_backward
    if kind == "interleaved":
        return m * step + (p - 1) * step / v, [min(2 * (p - s - 1) + (v - 1) * p + 1, m * v) for s in range(p)]
    return (m + p - 1) * step, [m] * p if kind == "gpipe" else [min(p - s, m) for s in range(p)]


# --- reading the student's answers ---------------------------------------------------------------------------------

def as_schedule(schedule, where):
    """The student's schedule as lists of (str, int, int) tuples, or an AssertionError saying what is malformed."""
    assert isinstance(schedule, (list, tuple)), f"{where}: expected a list of lists, got {type(schedule).__name__}"
    stages = []
    for s, ops in enumerate(schedule):
        assert isinstance(ops, (list, tuple)), f"{where}: stage {s} is a {type(ops).__name__}, not a list"
        for op in ops:
            assert isinstance(op, (list, tuple)) and len(op) == 3 and op[0] in ("F", "B") and \
                type(op[1]) is int and type(op[2]) is int, f"{where}: stage {s} has {op!r}, not (op, microbatch, chunk)"
        stages.append([tuple(op) for op in ops])
    return stages


def assert_every_op_once(schedule, p, m, v, where):
    assert len(schedule) == p, f"{where}: {len(schedule)} stages, expected {p}"
    every = sorted((op, mb, c) for op in "FB" for mb in range(m) for c in range(v))
    for s, ops in enumerate(schedule):
        assert sorted(ops) == every, f"{where}: stage {s} must run each (op, microbatch, chunk) once; it runs {ops}"


def student_schedule(student, p, m, kind, v=1, closed_forms=True):
    """The student's schedule, checked: every op once per stage, runnable, and (closed_forms) the closed-form
    makespan and peaks in flight of its kind."""
    where = f"pipeline_schedule({p}, {m}, {kind!r}" + (f", {v})" if kind == "interleaved" else ")")
    args = (p, m, kind, v) if kind == "interleaved" else (p, m, kind)
    schedule = as_schedule(student.call("pipeline_schedule", *args), where)
    assert_every_op_once(schedule, p, m, v, where)
    for t_f, t_b in [(1.0, 2.0), (1.0, 1.0)] if closed_forms else [(1.0, 2.0)]:
        try:
            makespan, peaks, _ = simulate(schedule, t_f, t_b)
        except Deadlock as error:
            raise AssertionError(f"{where}: {error}") from None
        expected_makespan, expected_peaks = closed_form(p, m, kind, v, t_f, t_b)
        assert math.isclose(makespan, expected_makespan) or not closed_forms, (
            f"{where}: with t_f={t_f}, t_b={t_b} it takes {makespan:g}, the schedule should take {expected_makespan:g}")
    assert peaks == expected_peaks or not closed_forms, (
        f"{where}: at most {peaks} microbatch-chunks in flight per stage; expected {expected_peaks}")
    return schedule


def leading_forwards(ops):
    return next(i for i, (op, _, _) in enumerate(ops) if op == "B")


# --- the checks -------------------------------------------------------------------------------------------------

PM = [(4, 8), (1, 1), (1, 5), (2, 1), (2, 3), (3, 7), (4, 4), (4, 2), (5, 16), (8, 3), (8, 8)]
PMV = [(4, 8, 2), (1, 3, 2), (2, 2, 2), (2, 4, 3), (2, 6, 2), (3, 3, 2), (3, 6, 2), (4, 4, 2), (4, 12, 3),
       (8, 16, 2), (8, 8, 4)]


@check
def pipeline_schedule_gpipe_and_1f1b(student):
    """GPipe and 1F1B: every op once per stage, GPipe's forwards all first, 1F1B's warm-up of min(p - s - 1, m)."""
    for p, m in PM:
        gpipe = student_schedule(student, p, m, "gpipe")
        assert [leading_forwards(ops) for ops in gpipe] == [m] * p, f"GPipe p={p}, m={m}: a backward before a forward"
        schedule = student_schedule(student, p, m, "1f1b")
        for s, ops in enumerate(schedule):
            where, warmup = f"1F1B p={p}, m={m}, stage {s}", min(p - s - 1, m)
            assert leading_forwards(ops) == min(warmup + 1, m), (
                f"{where}: {leading_forwards(ops)} forwards before the first backward; the warm-up is {warmup}, then "
                f"the steady state starts with a forward: {ops}")
            steady = [op for op, _, _ in ops[warmup:warmup + 2 * (m - warmup)]]
            assert steady == ["F", "B"] * (m - warmup), f"{where}: after the warm-up, one forward, one backward: {ops}"
            for kind in "FB":
                order = [mb for op, mb, _ in ops if op == kind]
                assert order == sorted(order), f"{where}: the {kind}s in microbatch order: {ops}"
    assert as_schedule(student.call("pipeline_schedule", 4, 8, "1f1b", 1), "") == reference_schedule(4, 8, "1f1b")
    print(f"GPipe and 1F1B for {len(PM)} (p, m): every op once, runnable, makespan (m+p-1)(t_f+t_b), "
          "peaks in flight m and min(p-s, m)")


@check
def pipeline_schedule_interleaved(student):
    """Interleaved 1F1B: every (op, microbatch, chunk) once per stage, Megatron's warm-up, chunk 0's first forwards."""
    for p, m, v in PMV:
        schedule = student_schedule(student, p, m, "interleaved", v)
        for s, ops in enumerate(schedule):
            assert leading_forwards(ops) == min(2 * (p - s - 1) + (v - 1) * p + 1, m * v), (
                f"interleaved p={p}, m={m}, v={v}, stage {s}: {leading_forwards(ops)} forwards before the first "
                f"backward; Megatron's warm-up is min(2(p-s-1) + (v-1)p, mv), then a forward: {ops}")
    print(f"interleaved for {len(PMV)} (p, m, v): every op once, runnable, makespan m(t_f+t_b) + (p-1)(t_f+t_b)/v, "
          "Megatron's peaks in flight")


@check
def pipeline_schedule_rejects_invalid(student):
    """pipeline_schedule raises ValueError (with a message) for invalid sizes, kinds and chunk counts."""
    for args in [(0, 4, "gpipe"), (-2, 4, "1f1b"), (4, 0, "1f1b"), (4, -8, "gpipe"), (4, 8, "zigzag"),
                 (4, 8, "GPipe"), (4, 8, "gpipe", 2), (4, 8, "1f1b", 2), (4, 8, "1f1b", 0), (4, 6, "interleaved", 2),
                 (4, 8, "interleaved", 1), (4, 8, "interleaved", 0), (3, 4, "interleaved", 2)]:
        assert_raises(student, ValueError, "pipeline_schedule", *args)
    for args in [(1, 1, "gpipe"), (4, 4, "interleaved", 2), (4, 8, "gpipe", 1)]:
        student.call("pipeline_schedule", *args)  # valid: must not raise
    print("invalid arguments raise ValueError; valid edge cases do not")


@check
def bubble_fraction_values(student):
    """bubble_fraction is (p - 1) / (v m), and rejects non-positive arguments."""
    for p, m, v in [(4, 8, 1), (1, 5, 1), (2, 1, 1), (8, 3, 1), (4, 8, 2), (8, 64, 4), (16, 12, 3), (1024, 7, 1)]:
        args = (p, m, v) if v > 1 else (p, m)
        assert_number(student.call("bubble_fraction", *args), (p - 1) / (v * m), rel=1e-9, abs_tol=1e-12,
                      where=f"bubble_fraction{args}")
    assert_number(student.call("bubble_fraction", 4, 8, 1), 3 / 8, where="bubble_fraction(4, 8, 1)")
    for args in [(0, 4), (4, 0), (-1, 4), (4, -3), (4, 4, 0), (4, 4, -1)]:
        assert_raises(student, ValueError, "bubble_fraction", *args)
    print("bubble_fraction(4, 8) =", student.call("bubble_fraction", 4, 8))


def random_valid_schedule(p, m, v, seed):
    """A valid but unusual schedule: each stage's order drawn at random among the ops that could run next."""
    rng, ops = random.Random(seed), [[] for _ in range(p)]
    done, last = set(), p * v - 1
    pending = {s: [(op, mb, c) for op in "FB" for mb in range(m) for c in range(v)] for s in range(p)}
    while any(pending.values()):
        runnable = [(s, (op, mb, c)) for s in range(p) for op, mb, c in pending[s]
                    if (op == "F" and (c * p + s == 0 or ("F", mb, c * p + s - 1) in done)) or
                    (op == "B" and ("F", mb, c * p + s) in done and
                     (c * p + s == last or ("B", mb, c * p + s + 1) in done))]
        s, (op, mb, c) = rng.choice(runnable)
        pending[s].remove((op, mb, c))
        ops[s].append((op, mb, c))
        done.add((op, mb, c * p + s))
    return ops


def fed_schedules():
    """(name, schedule) pairs for the student's simulator: the three kinds, backwards reversed, random valid orders."""
    cases = [(f"{kind} p={p} m={m} v={v}", reference_schedule(p, m, kind, v))
             for p, m, kind, v in [(4, 8, "gpipe", 1), (4, 8, "1f1b", 1), (3, 5, "1f1b", 1), (1, 3, "1f1b", 1),
                                   (4, 8, "interleaved", 2), (2, 4, "interleaved", 3), (6, 2, "gpipe", 1)]]
    reversed_gpipe = [[op for op in ops if op[0] == "F"] + [op for op in reversed(ops) if op[0] == "B"]
                      for ops in reference_schedule(4, 6, "gpipe")]
    no_warmup = [[op for mb in range(4) for op in (("F", mb, 0), ("B", mb, 0))] for _ in range(3)]
    cases += [("GPipe, backwards in reverse, p=4 m=6", reversed_gpipe), ("1F1B without warm-up, p=3 m=4", no_warmup)]
    # named by number, never by seed: the grading seed is secret (feedback pages show these names)
    cases += [(f"random valid order no. {i + 1}, p={p} m={m} v={v}", random_valid_schedule(p, m, v, GRADING_SEED + i))
              for i, (p, m, v) in enumerate([(3, 4, 1), (4, 3, 2), (2, 5, 1)])]
    return cases


def timings():
    """(t_forward, t_backward) pairs: the default, equal, and two drawn from this grading run's secret seed."""
    rng = random.Random(GRADING_SEED)
    drawn = [(round(rng.uniform(0.25, 4), 3), round(rng.uniform(0.25, 4), 3)) for _ in range(2)]
    return [(1.0, 2.0), (1.0, 1.0)] + drawn


def student_simulation(student, schedule, name, t_f, t_b):
    result = student.call("simulate_pipeline", schedule, t_forward=t_f, t_backward=t_b)
    where = f"simulate_pipeline({name}, t_forward={t_f}, t_backward={t_b})"
    assert isinstance(result, dict), f"{where} must return a dict, got {type(result).__name__}"
    missing = {"makespan", "bubble_fraction", "peak_in_flight", "timeline"} - set(result)
    assert not missing, f"{where}: the dict has no {sorted(missing)}"
    return result, where


@check
def simulate_pipeline_makespan_and_bubble(student):
    """simulate_pipeline: the makespan, bubble and timeline (every op's start and end) of schedules it did not make, for
    any t_forward and t_backward."""
    for name, schedule in fed_schedules():
        m = 1 + max(op[1] for ops in schedule for op in ops)
        for t_f, t_b in timings():
            result, where = student_simulation(student, schedule, name, t_f, t_b)
            makespan, _, timeline = simulate(schedule, t_f, t_b)
            assert_number(result["makespan"], makespan, rel=1e-9, where=f"{where}['makespan']")
            assert_number(result["bubble_fraction"], makespan / (m * (t_f + t_b)) - 1, rel=1e-9, abs_tol=1e-12,
                          where=f"{where}['bubble_fraction']")
            got = result["timeline"]
            assert isinstance(got, (list, tuple)) and len(got) == len(timeline), (
                f"{where}: the timeline has {len(got) if isinstance(got, (list, tuple)) else got!r} entries, "
                f"expected one per op ({len(timeline)})")
            seen = set()
            for entry in got:
                assert isinstance(entry, (list, tuple)) and len(entry) == 6, f"{where}: timeline entry {entry!r}"
                stage, op, mb, chunk, start, end = entry
                assert (stage, op, mb, chunk) not in seen, f"{where}: {(stage, op, mb, chunk)} is in the timeline twice"
                seen.add((stage, op, mb, chunk))
                want = timeline.get((stage, op, mb, chunk))
                assert want is not None and math.isclose(start, want[0], abs_tol=1e-9) and \
                    math.isclose(end, want[1], abs_tol=1e-9), f"{where}: {entry!r}; expected start and end {want}"
    print(f"{len(fed_schedules())} schedules x 4 timings: makespan, bubble and every op's start and end agree")


@check
def simulate_pipeline_peak_in_flight(student):
    """simulate_pipeline: the most microbatches in flight per stage (GPipe m, 1F1B min(p - s, m)), for any schedule, as
    Python ints."""
    for name, schedule in fed_schedules():
        result, where = student_simulation(student, schedule, name, 1.0, 2.0)
        _, peaks, _ = simulate(schedule)
        assert list(result["peak_in_flight"]) == peaks and all(type(n) is int for n in result["peak_in_flight"]), (
            f"{where}['peak_in_flight']: {result['peak_in_flight']!r}, expected {peaks}")
    print(f"{len(fed_schedules())} schedules: the peaks in flight agree")


@check
def simulate_pipeline_rejects_invalid(student):
    """simulate_pipeline raises ValueError for a stage missing an operation and for a schedule that deadlocks."""
    good = reference_schedule(3, 4, "1f1b")
    broken = {
        "a stage missing an op": [good[0][:-1], good[1], good[2]],
        "a stage running an op twice": [good[0], good[1] + [good[1][0]], good[2]],
        "a stage running another stage's op twice instead of one": [good[0], good[1][:-1] + [good[1][0]], good[2]],
        "an op that is neither F nor B": [good[0], good[1][:-1] + [("X", 3, 0)], good[2]],
        "a backward before its forward": [[("B", 0, 0), ("F", 0, 0)]],
        "the lesson's deadlock": [[("F", 0, 0), ("B", 0, 0), ("F", 1, 0), ("B", 1, 0)],
                                  [("F", 0, 0), ("F", 1, 0), ("B", 1, 0), ("B", 0, 0)]],
        "microbatches run in another order on the last stage": [
            [("F", 0, 0), ("F", 1, 0), ("F", 2, 0), ("B", 0, 0), ("B", 1, 0), ("B", 2, 0)],
            [("F", 0, 0), ("B", 0, 0), ("F", 1, 0), ("B", 2, 0), ("F", 2, 0), ("B", 1, 0)]],
        "interleaved chunks out of order": [[("F", 0, 1), ("F", 0, 0), ("B", 0, 0), ("B", 0, 1)],
                                            [("F", 0, 0), ("B", 0, 1), ("F", 0, 1), ("B", 0, 0)]],
    }
    for name, schedule in broken.items():
        try:
            result = student.call("simulate_pipeline", schedule)
        except StudentError as error:
            assert "ValueError" in error.type_names, f"{name}: raised {error.type_names[0]}: {error.message}, " \
                "expected ValueError"
            assert error.message.strip(), f"{name}: the ValueError needs a message"
            continue
        raise AssertionError(f"{name}: simulate_pipeline({schedule}) returned a makespan of {result.get('makespan')!r} "
                             "(a dict), expected ValueError")
    print(f"{len(broken)} broken schedules raise ValueError")


def one_process_reference(num_microbatches):
    model = ranks.TinyTransformer(ranks.GRADER_CONFIG, seed=0)
    tokens, targets = (torch.cat(t) for t in ranks.grader_batch(num_microbatches))
    loss = model.loss(tokens, targets)
    loss.backward()
    return model, loss.item()


@check
def schedules_run_on_a_real_pipeline(student):
    """Your GPipe, 1F1B and interleaved schedules run on 4 real ranks and give the gradients of one process (a
    schedule that the simulator cannot run is judged by its own cell and skipped here; at least one must run)."""
    p, ran, skipped = 4, 0, []
    for kind, m, v in [("1f1b", 8, 1), ("interleaved", 4, 2), ("gpipe", 2, 1)]:  # m < p for GPipe
        try:  # runnable: checked here first. One mistake, one deduction: a broken schedule costs its own cell
            schedule = student_schedule(student, p, m, kind, v, closed_forms=False)
        except (AssertionError, StudentError) as error:
            skipped.append(f"{kind}: {str(error)[:300]}")
            print(f"{kind}, m={m}, v={v}: your schedule cannot run ({str(error)[:200]}): skipped here, its own cell "
                  "judges it")
            continue
        ran += 1
        results = student.launch("rank_pipeline_step", p, args=(schedule, m), **LAUNCH)
        model, loss = one_process_reference(m)
        where = f"{kind}, m={m}, v={v} on 4 ranks"
        assert_number(results[p - 1]["loss"], loss, rel=1e-5, where=f"{where}: the loss of the last stage")
        for rank, result in enumerate(results):
            for c in range(v):
                part = ModelPart(model, c * p + rank, v * p)
                for (name, w), got in zip(part.named_parameters(), result["grads"][c], strict=True):
                    assert_tensor(got, w.grad, rtol=1e-4, atol=1e-6, where=f"{where}, rank {rank}, part "
                                                                           f"{c * p + rank}, {name}.grad")
        print(f"{where}: the loss and every gradient equal one process's "
              f"({sum(result['sends'] for result in results)} messages)")
    assert ran, "none of your schedules can run on the pipeline: " + "; ".join(skipped)


# --- Part 5: zero bubble (Qi et al. 2023, *Zero Bubble Pipeline Parallelism*, §2-3) --------------------------------

def reference_zb(p, m, v=1):
    """Zero bubble, built here: 1F1B's (v = 1: ZB-H1) or interleaved 1F1B's forwards and B's, and stage s runs each W
    s backwards after its B (the last s at the end), so that no stage keeps more than the first stage of the schedule
    without the split."""
    schedule = []
    for s, ops in enumerate(reference_schedule(p, m, "1f1b" if v == 1 else "interleaved", v)):
        backwards, split = [], []
        for op in ops:
            split.append(op)
            if op[0] == "B":
                backwards.append(op)
                if len(backwards) > s:
                    split.append(("W", *backwards[len(backwards) - 1 - s][1:]))
        schedule.append(split + [("W", *op[1:]) for op in backwards[max(len(backwards) - s, 0):]])
    return schedule


def zb_bound(p, m, v):
    """The most microbatch-chunks the schedule without the split keeps on its first stage between F and B."""
    return min(p, m) if v == 1 else min(2 * (p - 1) + (v - 1) * p + 1, m * v)


def simulate_zb(schedule):
    """(makespan, most kept per stage) of a schedule of F, B and W whose ops of one (microbatch, chunk) last 1/v
    (a stage's F, B and W of a microbatch 1 each); Deadlock if it cannot run. The F of part k needs the F of part k-1,
    the B of part k the B of part k + 1 (the last part's, its own F), a W its own B only; kept: the microbatch-chunks
    whose F has run and whose W has not. Times are counted in ticks of 1/v, exactly."""
    p = len(schedule)
    v = 1 + max(op[2] for ops in schedule for op in ops)
    last, done, clock, nxt = v * p - 1, {}, [0] * p, [0] * p
    for _ in range(sum(len(ops) for ops in schedule)):
        ready = []
        for s in range(p):
            if nxt[s] == len(schedule[s]):
                continue
            op, mb, chunk = schedule[s][nxt[s]]
            k = chunk * p + s
            inputs = {"F": [("F", mb, k - 1)] if k > 0 else [],
                      "B": [("F", mb, k)] + ([("B", mb, k + 1)] if k < last else []), "W": [("B", mb, k)]}[op]
            if all(i in done for i in inputs):
                ready.append((max([clock[s]] + [done[i] for i in inputs]), s, op, mb, k))
        if not ready:
            waiting = [ops[n] if n < len(ops) else None for ops, n in zip(schedule, nxt)]
            raise Deadlock(f"the schedule deadlocks: each stage waits, its next ops {waiting}")
        start, s, op, mb, k = min(ready)
        done[op, mb, k] = clock[s] = start + 1
        nxt[s] += 1
    kept = [max(itertools.accumulate(1 if op == "F" else -1 if op == "W" else 0 for op, _, _ in ops))
            for ops in schedule]
    return max(clock) / v, kept


def as_zb_schedule(schedule, p, m, v, where):
    """The student's schedule as lists of (str, int, int), each op once per stage, each (microbatch, chunk)'s B after
    its F and W after its B, or an AssertionError saying what is wrong."""
    assert isinstance(schedule, (list, tuple)), f"{where}: expected a list of lists, got {type(schedule).__name__}"
    assert len(schedule) == p, f"{where}: {len(schedule)} stages, expected {p}"
    every = sorted((op, mb, c) for op in "FBW" for mb in range(m) for c in range(v))
    stages = []
    for s, ops in enumerate(schedule):
        assert isinstance(ops, (list, tuple)), f"{where}: stage {s} is a {type(ops).__name__}, not a list"
        for op in ops:
            assert isinstance(op, (list, tuple)) and len(op) == 3 and op[0] in ("F", "B", "W") and \
                type(op[1]) is int and type(op[2]) is int, \
                f"{where}: stage {s} has {op!r}, not (op, microbatch, chunk) with op 'F', 'B' or 'W'"
        ops = [tuple(op) for op in ops]
        assert sorted(ops) == every, (f"{where}: stage {s} must run each (op, microbatch, chunk) once; it runs "
                                      f"{str(ops)[:300]}")
        position = {op: i for i, op in enumerate(ops)}
        for mb, c in itertools.product(range(m), range(v)):
            assert position["F", mb, c] < position["B", mb, c] < position["W", mb, c], (
                f"{where}: stage {s} must run microbatch {mb}, chunk {c}'s F, then its B, then its W; it runs "
                f"{str(ops)[:300]}")
        stages.append(ops)
    return stages


def student_zb_schedule(student, p, m, v=1):
    """The student's zb_schedule(p, m, v), checked: every op once, in order on each stage, runnable, at most the
    bound kept per stage, and (m >= p) the makespan 3m + (p - 1)/v of a microbatch's F, B and W lasting 1 each."""
    where = f"zb_schedule({p}, {m}, {v})"
    schedule = as_zb_schedule(student.call("zb_schedule", p, m, v), p, m, v, where)
    try:
        makespan, kept = simulate_zb(schedule)
    except Deadlock as error:
        raise AssertionError(f"{where}: {error}") from None
    bound = zb_bound(p, m, v)
    assert all(n <= bound for n in kept), (
        f"{where}: stages keep up to {kept} microbatch-chunks between their F and their W; without the split the "
        f"first stage keeps {bound} between F and B ({'min(p, m)' if v == 1 else 'min(2(p - 1) + (v - 1)p + 1, mv)'}):"
        " no stage may keep more")
    if m >= p:
        want = 3 * m + (p - 1) / v
        assert math.isclose(makespan, want), (
            f"{where}: with a microbatch's F, B and W lasting 1 each it takes {makespan:g}; the least possible is "
            f"3m + (p - 1)/v = {want:g} (without the split: {3 * m + 3 * (p - 1) / v:g})")
    return schedule, makespan, kept


ZB_PM = [(4, 8), (1, 1), (1, 4), (2, 2), (2, 5), (3, 3), (3, 7), (4, 4), (5, 9), (8, 8), (8, 20), (6, 13)]
ZB_SMALL_M = [(4, 2), (4, 1), (3, 2), (8, 5), (2, 1)]  # m < p: valid, memory bounded; no bubble claim
ZB_CHUNKED = [(4, 8, 2), (2, 2, 3), (3, 6, 2), (1, 3, 2), (2, 4, 4), (4, 4, 2), (4, 12, 3), (5, 10, 2), (8, 8, 2)]


@check
def zb_schedule_one_chunk(student):
    """ZB-H1 (one chunk): every op once per stage, F before B before W, runnable, makespan 3m + p - 1 (m >= p), at most
    min(p, m) microbatches between F and W on any stage."""
    rng = random.Random(GRADING_SEED ^ 0x2B)
    drawn = [(p, rng.randint(p, 3 * p)) for p in (rng.randint(2, 7), rng.randint(2, 7))]
    for p, m in ZB_PM + drawn:
        student_zb_schedule(student, p, m)
    for p, m in ZB_SMALL_M + [(7, rng.randint(1, 6))]:
        student_zb_schedule(student, p, m)
    print(f"ZB-H1 for {len(ZB_PM) + len(drawn)} (p, m) with m >= p: makespan 3m + p - 1, bubble (p - 1)/(3m) of the "
          f"ideal time; with m < p ({len(ZB_SMALL_M) + 1} cases) valid; at most min(p, m) kept per stage")


@check
def zb_schedule_interleaved(student):
    """Zero bubble with v >= 2 chunks: every (op, microbatch, chunk) once per stage, F before B before W, runnable,
    makespan 3m + (p - 1)/v, at most min(2(p - 1) + (v - 1)p + 1, mv) microbatch-chunks between F and W on any
    stage."""
    rng = random.Random(GRADING_SEED ^ 0x2C)
    drawn = [(p, p * rng.randint(1, 3), rng.randint(2, 4)) for p in (rng.randint(2, 6), rng.randint(2, 6))]
    for p, m, v in ZB_CHUNKED + drawn:
        student_zb_schedule(student, p, m, v)
    print(f"{len(ZB_CHUNKED) + len(drawn)} (p, m, v) with v >= 2: makespan 3m + (p - 1)/v, bubble (p - 1)/(3mv) of "
          "the ideal time; at most interleaved 1F1B's first-stage peak kept per stage")


@check
def zb_schedule_rejects_invalid(student):
    """zb_schedule raises ValueError (with a message) for non-positive or non-integer sizes, and for m not a multiple
    of p with v >= 2 chunks."""
    for args in [(0, 4), (-1, 4), (4, 0), (4, -2), (2.0, 4), (4, 3.5), (4, 8, 0), (4, 8, -1), (4, 8, 2.0), (4, 6, 2),
                 (3, 4, 3)]:
        assert_raises(student, ValueError, "zb_schedule", *args)
    for args in [(1, 1), (3, 1), (4, 6), (3, 3, 1), (1, 3, 2)]:
        student.call("zb_schedule", *args)  # valid: must not raise
    print("invalid sizes raise ValueError; p = m = 1, m < p with one chunk and m = 3 with p = 1, v = 2 do not")


@check
def backward_input_then_weight(student):
    """backward_input gives the input's gradient and touches no weight's .grad; backward_weight, called later, adds
    each weight's gradient into .grad; both for a tensor output with its gradient and for a scalar loss (None)."""
    gen = generator("backward_input_then_weight")
    d_in, hidden, d_out, n = 3 + int(torch.randint(3, (1,), generator=gen)), 5, 4, 3
    weights = [torch.randn(hidden, d_in, generator=gen), torch.randn(hidden, generator=gen),
               torch.randn(d_out, hidden, generator=gen), torch.randn(d_out, generator=gen)]
    inputs = [torch.randn(2, d_in, generator=gen) for _ in range(n)]
    grad_outputs = [torch.randn(2, d_out, generator=gen) for _ in range(n)]
    result = student.call("rank_backward_split", weights, inputs, grad_outputs)

    def net_of(x):
        params = [w.clone().requires_grad_() for w in weights]
        x = x.clone().requires_grad_()
        y = torch.tanh(x @ params[0].T + params[1]) @ params[2].T + params[3]
        return x, y, params

    sums = [torch.zeros_like(w) for w in weights]
    for i, (x, g) in enumerate(zip(inputs, grad_outputs)):
        x, y, params = net_of(x)
        y.backward(g)
        where = f"microbatch {i} of {n} (a Linear, tanh, Linear)"
        assert_tensor(result["input_grads"][i], x.grad, rtol=1e-5, atol=1e-6,
                      where=f"{where}: backward_input(output, input, grad_output)")
        assert not result["touched_in_b"][i], (
            f"{where}: backward_input changed a weight's .grad; the weight gradients are backward_weight's (W), "
            "computed later")
        sums = [total + w.grad for total, w in zip(sums, params)]
        for name, got, want in zip(["weight 0", "bias 0", "weight 1", "bias 1"], result["grads_after_w"][i], sums):
            assert_tensor(got, want, rtol=1e-5, atol=1e-6,
                          where=f"after backward_weight of microbatches 0..{i}: {name}.grad (the sum of their "
                                "gradients: W adds into .grad)")
    x, y, params = net_of(inputs[0])
    y.square().mean().backward()
    assert_tensor(result["loss_input_grad"], x.grad, rtol=1e-5, atol=1e-6,
                  where="backward_input(loss, input, None) for a scalar loss")
    assert not result["loss_touched_in_b"], "backward_input(loss, input, None) changed a weight's .grad"
    for name, got, w in zip(["weight 0", "bias 0", "weight 1", "bias 1"], result["loss_grads"], params):
        assert_tensor(got, w.grad, rtol=1e-5, atol=1e-6, where=f"backward_weight(loss, params, None): {name}.grad")
    print(f"{n} microbatches: every input gradient right, no weight gradient before W, W accumulates; a scalar loss "
          "too")


def zb_run_events_agree(schedule, result, rank, where):
    """The events a rank recorded around the student's B and W are the schedule's, with no weight gradient in B, one
    in every W, and (past the first rank) each input gradient sent before the W of its microbatch."""
    events = [tuple(e) for e in result["events"]]
    assert [e[:2] for e in events if e[0] != "sent"] == [(op, mb) for op, mb, _ in schedule[rank]], (
        f"{where}, rank {rank}: it ran {events}, not its schedule {schedule[rank]}")
    sent = set()
    for event in events:
        if event[0] == "B":
            assert event[2] is False, (f"{where}, rank {rank}: backward_input of microbatch {event[1]} changed a "
                                       "weight's .grad; the weight gradients wait for backward_weight (W)")
        elif event[0] == "sent":
            sent.add(event[1])
        elif event[0] == "W":
            assert event[2] is True, (
                f"{where}, rank {rank}: backward_weight of microbatch {event[1]} left every .grad as it was")
            assert rank == 0 or event[1] in sent, (
                f"{where}, rank {rank}: the W of microbatch {event[1]} ran before its input gradient was sent")


@check
def zero_bubble_runs_on_a_real_pipeline(student):
    """ZB-H1 on 4 real ranks with your backward_input (B) and backward_weight (W): the loss and every gradient of one
    process, no weight gradient in any B, each input gradient sent before its W, the most kept as simulated."""
    p = 4
    try:
        own = as_zb_schedule(student.call("zb_schedule", p, 8), p, 8, 1, "zb_schedule(4, 8)")
        simulate_zb(own)
        cases = [("your zb_schedule(4, 8)", own, 8)]
    except (AssertionError, StudentError) as error:  # the schedule's cell judges it: here, the grader's ZB-H1
        print(f"zb_schedule(4, 8) cannot run ({str(error)[:200]}): the grader's ZB-H1 runs instead")
        cases = [("the grader's ZB-H1, m=8", reference_zb(p, 8), 8)]
    cases.append(("the grader's ZB-H1, m=2", reference_zb(p, 2), 2))
    for where, schedule, m in cases:
        results = student.launch("rank_zero_bubble_step", p, args=(schedule, m), **LAUNCH)
        model, loss = one_process_reference(m)
        _, kept = simulate_zb(schedule)
        assert_number(results[p - 1]["loss"], loss, rel=1e-5, where=f"{where} on 4 ranks: the loss of the last stage")
        for rank, result in enumerate(results):
            zb_run_events_agree(schedule, result, rank, where)
            part = ModelPart(model, rank, p)
            for (name, w), got in zip(part.named_parameters(), result["grads"], strict=True):
                assert_tensor(got, w.grad, rtol=1e-4, atol=1e-6, where=f"{where}, rank {rank}, {name}.grad")
            assert result["most_kept"] == kept[rank], (
                f"{where}, rank {rank}: kept {result['most_kept']} microbatches between F and W at most; the "
                f"simulator says {kept[rank]}")
        print(f"{where} on 4 ranks: the loss and every gradient equal one process's; B before W, no weight gradient "
              f"in B; at most {kept} microbatches kept, as simulated")


# --- Part 6: the groups of a DeviceMesh, its dimensions in any order ------------------------------------------------

NAMES = ("dp", "pp", "tp", "cp", "ep")


def reference_mesh_groups(shape, names, dim):
    """The groups along `dim` of torch.arange(n).reshape(shape), the layout init_device_mesh builds (row-major, in the
    order of the names): the rows of the array with `dim` moved last, each sorted, ordered by their first rank."""
    axis = list(names).index(dim)
    ranks = torch.arange(math.prod(shape)).reshape(shape).movedim(axis, -1).reshape(-1, shape[axis])
    return sorted(row.tolist() for row in ranks)


def compare_mesh_groups(student, shape, names, dim):
    where = f"mesh_groups({shape}, {names}, {dim!r})"
    got = student.call("mesh_groups", shape, names, dim)
    assert isinstance(got, (list, tuple)) and all(
        isinstance(g, (list, tuple)) and all(type(r) is int for r in g) for g in got), (
        f"{where}: expected a list of lists of ints, got {str(got)[:200]}")
    got, want = [list(g) for g in got], reference_mesh_groups(shape, names, dim)
    if got != want:
        first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        raise AssertionError(f"{where}: {len(got)} groups, expected {len(want)}; group {first} is "
                             f"{got[first] if first < len(got) else 'missing'}, expected "
                             f"{want[first] if first < len(want) else 'none'} (expected {str(want)[:160]})")


def drawn_meshes(label, count, most):
    """`count` meshes (shape, names): 1 to 4 dimensions, each of size 1 to `most`, named in a drawn order, from this
    grading run's secret seed."""
    draw = generator(label)
    meshes = []
    for _ in range(count):
        n = draw_int(draw, 1, 4)
        order = torch.randperm(len(NAMES), generator=draw)[:n].tolist()
        meshes.append((tuple(draw_int(draw, 1, most) for _ in range(n)), tuple(NAMES[i] for i in order)))
    return meshes


def every_group_of(student, meshes):
    for shape, names in meshes:
        for dim in names:
            compare_mesh_groups(student, shape, names, dim)


@check
def mesh_groups_small_meshes(student):
    """mesh_groups: the lesson's 2 x 2 x 2 mesh along each dimension, tp outermost, four and one dimensions; and other
    shapes and orders: every rank in exactly one group, each group sorted and as long as its dimension, the groups
    ordered by their smallest rank."""
    lesson = ("dp", "pp", "tp")
    meshes = [((2, 2, 2), lesson), ((2, 2, 2), ("tp", "pp", "dp")), ((3, 1, 2), ("pp", "tp", "dp")),
              ((2, 1, 2, 2), ("dp", "pp", "cp", "tp")), ((5,), ("dp",)), ((1, 1), ("a", "b")), ((2, 3, 4), lesson),
              ((2, 3, 4), ("tp", "dp", "pp")), ((4, 1, 2), lesson), ((1, 5, 1), ("pp", "dp", "tp")),
              ((2, 3, 1, 2), ("pp", "dp", "tp", "ep")), ([3, 2], ["dp", "tp"])]
    meshes += drawn_meshes("mesh_groups_small_meshes", 12, 4)
    every_group_of(student, meshes)
    print(f"{len(meshes)} meshes (12 fixed, 12 drawn: 1 to 4 dimensions up to 4 each, in drawn orders), along each "
          "dimension: the groups of torch.arange(n).reshape(mesh_shape)")


@check
def mesh_groups_equal_device_mesh(student):
    """mesh_groups gives the groups init_device_mesh builds, for any mesh shape and any order of the dimension names
    (the visible cell compares with real DeviceMeshes of 8 ranks)."""
    shapes = [(a, b, n // (a * b)) for n in (8, 16) for a in range(1, n + 1) for b in range(1, n + 1)
              if n % (a * b) == 0]
    meshes = [(shape, names) for shape in shapes for names in itertools.permutations(("dp", "pp", "tp"))]
    draw = generator("mesh_groups_equal_device_mesh")
    for _ in range(4):  # larger: tp = 8 filling a node innermost, two other dimensions in a drawn order
        outer = [("dp", "pp", "cp")[i] for i in torch.randperm(3, generator=draw)[:2].tolist()]
        meshes.append(((draw_int(draw, 1, 6), draw_int(draw, 1, 6), 8), (*outer, "tp")))
    every_group_of(student, meshes)
    print(f"every (dp, pp, tp) of 8 and of 16 ranks in all 6 orders ({len(shapes) * 6} meshes), and 4 drawn with "
          "tp = 8 innermost: the groups init_device_mesh builds (torch.arange(n).reshape(mesh_shape))")


@check
def mesh_groups_rejects_invalid(student):
    """mesh_groups raises ValueError (with a message) for sizes that are not positive ints, names that are not as many
    distinct strings, and a dim that is not one of them."""
    lesson = ("dp", "pp", "tp")
    bad = [((0, 2, 2), lesson, "tp"), ((2, -1, 2), lesson, "dp"), ((2, 2, 2.0), lesson, "tp"),
           ((True, 2, 2), lesson, "pp"), ((), (), "tp"), ((2, 2, 2), lesson, "ep"), ((2, 2, 2), lesson, 2),
           ((2, 2), lesson, "dp"), ((2, 2, 2), ("dp", "dp", "tp"), "tp"), ((2, 2), ("dp", 1), "dp"),
           ((2, 0, 3), lesson, "dp"), ((1, 1, -4), lesson, "pp"), ((2, 2, 2), lesson, "TP"),
           ((2, "2", 2), lesson, "pp"),
           (8, ("dp",), "dp"), ((2, 2, 2), "dpt", "d"), ((2, 2, 2, 2), lesson, "tp")]
    for args in bad:
        assert_raises(student, ValueError, "mesh_groups", *args)
    print(f"{len(bad)} invalid sizes, names and dims raise ValueError")
