"""Trusted checks of exercise set 06_mixed_precision: one function per test cell of
solutions/06_mixed_precision/mixed_precision.ipynb, named by the cell's grade_id.

They run in the grader's process, never where the learner's code runs. Every input is generated here and every
expected value computed here: the scaler's with `torch.amp.GradScaler("cpu")` driven through the same gradients, the
buckets with a real `DistributedDataParallel` (its reducer's rebuilt buckets, read after a few iterations) and with
DDP's own bucketing function, the FP8 scales and a spike's cost with the rules of Transformer Engine's delayed scaling
written out here (`reference_scale`, `reference_spike_cost`). The inputs (gradients, overflow patterns, batches, caps,
lists of sizes, amax histories and sequences) are drawn from the grading run's secret seed (`generator(label)`). What
the learner's code returns, through the procedures of ranks.py (next to this file) or called directly, is only a claim,
compared with those.
"""
from __future__ import annotations

import math

import torch
import torch.distributed as dist
import torch.nn.functional as F

from autograde import sets
from autograde.sets._common import (StudentError, assert_number, assert_raises, assert_tensor, check, draw_int,
                                    generator, statement_source)

THIS_SET = __name__.split(".")[-2]  # this folder's name: autograde/sets/<THIS_SET>/checks.py
LAUNCH = sets.get(THIS_SET).launch.kwargs()  # the preset of set.toml, next to this file

TINY = dict(vocab_size=64, dim=32, n_layers=2, n_heads=4, max_seq_len=64)  # the lesson's model


# --- the scaler: gradients generated here, GradScaler's run as the reference ------------------------------------

def gradients(label, steps, numel, overflow_rate=0.0, nan_share=0.3, magnitudes=(-3, 1), overflow_steps=()):
    """Random gradient rows, each its own magnitude (10^-3 to 10^1 by default), with an inf, a -inf or a NaN planted
    in a random element at a fraction `overflow_rate` of the steps (and at `overflow_steps`); and a mask of the steps
    that call unscale_ before step. Drawn from `generator(label)`."""
    draw = generator(label)
    low, high = magnitudes
    upstreams = torch.randn(steps, numel, generator=draw)
    upstreams *= 10 ** (low + (high - low) * torch.rand(steps, 1, generator=draw))
    planted = (torch.rand(steps, generator=draw) < overflow_rate).nonzero().flatten().tolist()
    for step in sorted(set(planted) | set(overflow_steps)):
        where, kind = torch.randint(numel, (1,), generator=draw).item(), torch.rand(1, generator=draw).item()
        upstreams[step, where] = float("nan") if kind < nan_share else float("inf") if kind < 0.8 else -float("inf")
    unscale_first = (torch.rand(steps, generator=draw) < 0.3).tolist()
    return upstreams, unscale_first


def split_parameters(initial, groups):
    """drive_scaler's parameters, built the same way (06_mixed_precision_ranks.split_parameters, which cannot be
    imported here: that file refuses GradScaler in the process that runs it, unconditionally, since a guard a
    notebook could set, such as `__name__`, would let it opt out): one parameter in one group, or (groups=2) two
    halves in two param groups beside a parameter that never gets a gradient."""
    if groups == 1:
        w = torch.nn.Parameter(initial.clone())
        return [w], [{"params": [w]}]
    half = len(initial) // 2
    first, second = torch.nn.Parameter(initial[:half].clone()), torch.nn.Parameter(initial[half:].clone())
    idle = torch.nn.Parameter(torch.ones(2))
    return [first, second], [{"params": [first]}, {"params": [second, idle]}]


def gradscaler_run(scaler_kwargs, initial, upstreams, unscale_first, lr, resume_at=-1, groups=1):
    """drive_scaler's loop with torch.amp.GradScaler("cpu"); also what happened at each step, to explain a mismatch."""
    class CountingSGD(torch.optim.SGD):
        calls = 0

        def step(self, closure=None):
            super().step(closure)
            self.calls += 1
            return self.calls

    trained, param_groups = split_parameters(initial, groups)
    optimizer, scaler = CountingSGD(param_groups, lr=lr), torch.amp.GradScaler("cpu", **scaler_kwargs)
    scales, weights, returned, events = [], [], [], []
    for step in range(len(upstreams)):
        if step == resume_at:
            state = scaler.state_dict()
            scaler = torch.amp.GradScaler("cpu")
            scaler.load_state_dict(state)
        scaler.scale((torch.cat(trained) * upstreams[step]).sum()).backward()
        overflow = not all(bool(torch.isfinite(p.grad).all()) for p in trained)
        if unscale_first[step]:
            scaler.unscale_(optimizer)
        returned.append(scaler.step(optimizer))
        scaler.update()
        optimizer.zero_grad()
        scales.append(scaler.get_scale())
        weights.append(torch.cat(trained).detach().clone())
        events.append({"overflow": overflow, "tracker": int(scaler._growth_tracker)})
    return torch.tensor(scales, dtype=torch.float64), torch.stack(weights), returned, events


def show(scale: float) -> str:
    """2^k for a power of two, else 9 significant digits (fp32 numbers need them)."""
    if scale > 0 and math.isfinite(scale) and math.frexp(scale)[0] == 0.5:
        return f"2^{math.frexp(scale)[1] - 1}"
    return f"{scale:.9g}"


def explain(step, init_scale, want_scales, events, interval):
    """What GradScaler did at `step`, in words."""
    before = init_scale if step == 0 else float(want_scales[step - 1])
    after, event = float(want_scales[step]), events[step]
    if event["overflow"]:
        what = f"an inf/NaN in the gradients: GradScaler skipped the step and backed off from {show(before)}"
    elif event["tracker"] == 0:
        what = (f"clean step {interval} of growth_interval={interval}: GradScaler " +
                (f"kept {show(before)} (the grown scale would be inf in fp32)" if after == before else
                 f"grew {show(before)} to {show(after)}"))
    else:
        what = f"clean step {event['tracker']} of growth_interval={interval}: GradScaler kept {show(before)}"
    return what + ("; the step before had an inf/NaN" if step and events[step - 1]["overflow"] else "")


def scaler_call(kwargs: dict) -> str:
    """DynamicLossScaler(...) as the learner would write it, powers of two shown as such."""
    shown = [f"{key}={show(value) if key == 'init_scale' else repr(value)}" for key, value in kwargs.items()]
    return f"DynamicLossScaler({', '.join(shown)})".replace("=2^", "=2.0**")


def compare_runs(where, got, want, scaler_kwargs):
    """The first step where the learner's scale, step() return or weights differ from GradScaler's, explained."""
    scales, weights, returned, floats = got
    want_scales, want_weights, want_returned, events = want
    assert floats, f"{where}: get_scale() must return a Python float"
    assert type(scales) is torch.Tensor and scales.shape == want_scales.shape, f"{where}: {len(scales)} scales"
    assert type(weights) is torch.Tensor and weights.shape == want_weights.shape, f"{where}: weights {weights.shape}"
    assert isinstance(returned, list) and len(returned) == len(want_returned), (  # zip() below would hide a short one
        f"{where}: {len(returned) if isinstance(returned, list) else returned!r} step() returns for "
        f"{len(want_returned)} steps")
    bad_scale = (scales != want_scales).nonzero().flatten().tolist()
    bad_return = [step for step, (a, b) in enumerate(zip(returned, want_returned)) if a != b]
    bad_weights = (weights != want_weights).any(dim=1).nonzero().flatten().tolist()
    first = min(bad_scale[:1] + bad_return[:1] + bad_weights[:1], default=None)
    if first is None:
        return
    init = float(torch.tensor(scaler_kwargs.get("init_scale", 2.0**16), dtype=torch.float32))
    interval = scaler_kwargs.get("growth_interval", 2000)
    context = f"{where}, step {first} ({explain(first, init, want_scales, events, interval)})"
    if bad_scale[:1] == [first]:
        raise AssertionError(f"{context}: your scale is {show(float(scales[first]))}, GradScaler's "
                             f"{show(float(want_scales[first]))}")
    if bad_return[:1] == [first]:
        raise AssertionError(f"{context}: step() returned {returned[first]!r}, expected {want_returned[first]!r} "
                             "(None when the step is skipped, else what optimizer.step() returned)")
    raise AssertionError(f"{context}: the weights after the step are {weights[first].tolist()}, with GradScaler "
                         f"{want_weights[first].tolist()} (a skipped step leaves them unchanged; unscale_ multiplies "
                         "the gradients by float32(1/S), once)")


_REFERENCE_RUNS: dict = {}  # GradScaler's runs, computed once for all the submissions a grader process grades


def drive_and_compare(student, where, scaler_kwargs, upstreams, unscale_first, lr=0.01, resume_at=-1, groups=1):
    initial = torch.linspace(-1, 1, upstreams.shape[1])
    try:
        got = student.call("drive_scaler", scaler_kwargs, initial, upstreams, unscale_first, lr, resume_at, groups,
                           timeout=120)
    except StudentError:
        print(f"{where}: your scaler raised (its traceback below)")  # the case, then the learner's own traceback
        raise
    key = (repr(sorted(scaler_kwargs.items())), upstreams.numpy().tobytes(), tuple(unscale_first), lr, resume_at,
           groups)
    if key not in _REFERENCE_RUNS:
        _REFERENCE_RUNS[key] = gradscaler_run(scaler_kwargs, initial, upstreams, unscale_first, lr, resume_at, groups)
    want = _REFERENCE_RUNS[key]
    compare_runs(where, got, want, scaler_kwargs)
    return want


@check
def scaler_scales_and_unscales(student):
    """scale(loss) is loss * S; unscale_ multiplies each gradient by float32(1/S) in place; get_scale() is a float."""
    draw = generator("06 scale and unscale")
    upstream, weights = torch.randn(2, 6, generator=draw) * 3
    for init_scale in (1024.0, 3.0, 12345.678, 2.0**-10, 1e30):
        where = f"DynamicLossScaler(init_scale={init_scale})"
        scaled, scaled_grad, grad, scale, is_float = student.call("scale_and_unscale", {"init_scale": init_scale},
                                                                  weights, upstream)
        s = float(torch.tensor(init_scale, dtype=torch.float32))
        w = weights.clone().requires_grad_()
        loss = (w * upstream).sum()
        want_scaled = loss.detach() * s
        (loss * s).backward()
        assert is_float, f"{where}: get_scale() must return a Python float"
        assert scale == s, f"{where}: get_scale() is {scale!r}; S is init_scale rounded to fp32, {s!r}"
        assert_tensor(scaled, want_scaled, exact=True, where=f"{where}: scale(loss) (loss * S)")
        assert_tensor(scaled_grad, w.grad, exact=True, where=f"{where}: the gradients of scale(loss)")
        inverse = float(torch.tensor(1 / s, dtype=torch.float32))
        assert_tensor(grad, w.grad * inverse, exact=True, where=f"{where}: the gradients after unscale_ (multiplied "
                      f"in place by float32(1/S) = {inverse!r}, as GradScaler does; dividing by S differs in the "
                      "last bit)")
    print("5 initial scales (powers of two, 3, 12345.678, 2^-10, 1e30): scale(loss), the gradients before and "
          "after unscale_, and get_scale() exact")


# Steps of each of scaler_matches_gradscaler's sequences: over 25 drawn grading seeds every case reached the top of
# fp32 (by step 713 at the latest) and then overflowed there on its own (S*g past fp32) at least 41 times; 2,500
# steps cost every graded student 2.5 times as long for no other behaviour.
SEQUENCE_STEPS = 1000


@check
def scaler_matches_gradscaler(student):
    """The scale and the weights after every step equal torch.amp.GradScaler("cpu")'s, through overflows and growth."""
    cases = [(dict(growth_interval=1), 0.02), (dict(growth_interval=2), 0.05),
             (dict(growth_interval=3, init_scale=2.0**10), 0.03),
             (dict(growth_interval=4, growth_factor=4.0, backoff_factor=0.25), 0.05),
             (dict(growth_interval=5, init_scale=2.0**20), 0.01)]
    for kwargs, rate in cases:
        upstreams, unscale_first = gradients(f"06 sequence {kwargs}", steps=SEQUENCE_STEPS, numel=6, overflow_rate=rate)
        want = drive_and_compare(student, f"{scaler_call(kwargs)}, {rate:.0%} of steps with an inf/NaN",
                                 kwargs, upstreams, unscale_first)
        overflows = sum(event["overflow"] for event in want[3])
        print(f"{scaler_call(kwargs)}: {SEQUENCE_STEPS} steps, {overflows} with an inf/NaN (planted or S*g past "
              f"fp32), scales {show(float(want[0].min()))} to {show(float(want[0].max()))}: every scale and weight as "
              "GradScaler")


@check
def scaler_skips_overflowing_steps(student):
    """step() skips the optimizer on inf/NaN (returns None), else returns optimizer.step()'s value; unscales once, every
    parameter of every param group (one without a gradient skipped)."""
    draw = generator("06 skips")
    upstreams = torch.rand(12, 3, generator=draw) * 4 - 2
    bad = torch.randperm(12, generator=draw)[:6].tolist()  # an inf, a -inf, a NaN, two of them, S * g past fp32
    for step, (where, value) in zip(bad, [(0, math.inf), (1, -math.inf), (2, math.nan), ((0, 1), math.nan),
                                          (1, 3e38), (2, -3e38)]):
        upstreams[step, where] = value
    for unscale_first, what in [([False] * 12, "step() alone"), ([True] * 12, "unscale_() then step()"),
                                ([step % 2 == 0 for step in range(12)], "unscale_() every other step")]:
        shown = [[float(f"{x:.3g}") for x in row] for row in upstreams.tolist()]
        drive_and_compare(student, f"{what}, gradients {shown}", dict(init_scale=4.0, growth_interval=2), upstreams,
                          unscale_first, lr=0.5)
    # the drawn cases may back S off to 1, where dividing twice changes nothing: clean steps at S = 2^10 cannot
    clean = torch.rand(4, 3, generator=draw) * 4 - 2
    drive_and_compare(student, f"unscale_() then step(), clean gradients {clean.tolist()} at S = 2^10",
                      dict(init_scale=2.0**10, growth_interval=100), clean, [True] * 4, lr=0.5)
    for unscale_first, what in [([False] * 12, "step() alone"), ([True] * 12, "unscale_() then step()")]:
        drive_and_compare(student, f"{what}, an optimizer with two param groups and a parameter without a gradient, "
                          f"gradients {shown}", dict(init_scale=4.0, growth_interval=2), upstreams, unscale_first,
                          lr=0.5, groups=2)
    print("inf, -inf, NaN and S*g past fp32 skip the step (step() returns None); clean steps return the optimizer's "
          "value; after unscale_(), step() does not divide again; every param group is unscaled, a parameter "
          "without a gradient skipped")
    grad = student.call("unscale_twice", {"init_scale": 8.0}, False)
    assert_tensor(grad, torch.ones(3), exact=True, where="one unscale_() after scale(w.sum()).backward()")
    try:
        student.call("unscale_twice", {"init_scale": 8.0}, True)
    except StudentError as error:
        assert "RuntimeError" in error.type_names, f"a second unscale_() before update() raised {error}, expected a " \
                                                   "RuntimeError"
    else:
        raise AssertionError("a second unscale_() before update() must raise RuntimeError (as GradScaler's does: the "
                             "gradients would be divided by S twice)")
    print("a second unscale_() before update() raises RuntimeError")


@check
def scaler_at_the_top_of_fp32(student):
    """S is fp32: at the top of the range it stays (no inf, no clamp); odd scales and factors round as GradScaler's."""
    small, _ = gradients("06 top small", steps=40, numel=4, magnitudes=(-6, -3))  # S * g finite even at 2^127
    cases = [(dict(init_scale=2.0**126, growth_interval=1), small, "grows to 2^127, then stays"),
             (dict(init_scale=3e38, growth_factor=1.1, growth_interval=1), small, "3e38 * 1.1 fits, * 1.1 again not"),
             (dict(init_scale=2.0**120, growth_factor=1.5, growth_interval=2), small, "1.5x steps to the top"),
             (dict(init_scale=2.0**100, growth_interval=1), gradients("06 top", 300, 4, overflow_rate=0.02)[0],
              "S * g overflows near the top")]
    for kwargs in [dict(init_scale=12345.678, growth_factor=1.5, backoff_factor=0.3, growth_interval=2),
                   dict(init_scale=0.7, growth_factor=3.0, backoff_factor=0.9, growth_interval=1),
                   dict(init_scale=1e5, growth_factor=1.0001, backoff_factor=0.999, growth_interval=1),
                   dict(init_scale=33.3, growth_factor=2.5, backoff_factor=0.1, growth_interval=3)]:
        cases.append((kwargs, gradients(f"06 odd {kwargs}", 400, 4, overflow_rate=0.05)[0],
                      "odd factors: rounding to fp32"))
    for kwargs, upstreams, what in cases:
        unscale_first = [False] * len(upstreams)
        want = drive_and_compare(student, f"{scaler_call(kwargs)} ({what})", kwargs, upstreams, unscale_first)
        print(f"{scaler_call(kwargs)}: {len(upstreams)} steps, the scale ends at {show(float(want[0][-1]))}, "
              "as GradScaler")


@check
def scaler_state_dict_resumes(student):
    """A scaler built with other arguments that loads state_dict() continues exactly as the one that saved it."""
    kwargs = dict(init_scale=2.0**8, growth_factor=1.5, backoff_factor=0.3, growth_interval=4)
    draw = generator("06 resume")
    overflows = torch.randint(3, 55, (4,), generator=draw).tolist()
    upstreams, unscale_first = gradients("06 resume", steps=60, numel=4, overflow_steps=overflows)
    events = drive_and_compare(student, f"{scaler_call(kwargs)}, uninterrupted", kwargs, upstreams, unscale_first)[3]
    just_after_overflow = next((s + 1 for s in range(59) if events[s]["overflow"]), 20)
    # saved with clean steps counted (tracker t >= 1) and the growth they lead to still ahead, before any overflow
    # would reset the count anyway: a scaler that forgets the count grows later, and its scales differ
    mid_interval = next((r for r in range(1, 60) if (t := events[r - 1]["tracker"]) >= 1 and r + kwargs[
        "growth_interval"] - t < 60 and not any(e["overflow"] for e in events[r:r + kwargs["growth_interval"] - t])),
        40)
    for resume_at in sorted({just_after_overflow, mid_interval, 1, 59}):
        drive_and_compare(student, f"{scaler_call(kwargs)} saved after {resume_at} steps and loaded into "
                          "DynamicLossScaler() (through torch.save and torch.load(weights_only=True))", kwargs,
                          upstreams, unscale_first, resume_at=resume_at)
    print(f"saved after steps {sorted({just_after_overflow, mid_interval, 1, 59})} (right after an overflow, mid "
          "growth interval), resumed into DynamicLossScaler() through torch.save/torch.load(weights_only=True): every "
          "scale and weight as GradScaler's")


@check
def scaler_rejects_bad_arguments(student):
    """DynamicLossScaler raises ValueError for init_scale <= 0, growth_factor <= 1, backoff_factor outside (0, 1)..."""
    for kwargs in [dict(init_scale=0.0), dict(init_scale=-1.0), dict(growth_factor=1.0), dict(growth_factor=0.5),
                   dict(backoff_factor=0.0), dict(backoff_factor=1.0), dict(backoff_factor=1.5),
                   dict(backoff_factor=-0.5), dict(growth_interval=0), dict(growth_interval=-3)]:
        assert_raises(student, ValueError, "make_scaler", kwargs)
    for kwargs in [dict(init_scale=1e-30, growth_factor=1.0001, backoff_factor=0.9999, growth_interval=1),
                   dict(init_scale=2.0**127, growth_factor=16.0, backoff_factor=1e-3, growth_interval=10**6)]:
        try:
            scale = student.call("make_scaler", kwargs)
        except StudentError:
            print(f"{scaler_call(kwargs)} is valid, but raised (its traceback below)")
            raise
        assert scale == float(torch.tensor(kwargs["init_scale"], dtype=torch.float32)), (kwargs, scale)
    print("10 bad arguments raise ValueError; valid extremes (init_scale 1e-30 and 2^127, factors near 1) do not")


def reference_training(scaler_kwargs, config_kwargs, steps, lr, batch, seq, batch_seed, world_size=2):
    """train_tiny's run in one process: DDP's gradient is the average of the ranks' (each divided by the world size,
    then summed: at 2 ranks the order of the sum does not matter), then GradScaler as usual."""
    from distlab.models import ModelConfig, TinyTransformer, random_batch

    torch.set_num_threads(1)
    config = ModelConfig(**config_kwargs)
    model = TinyTransformer(config, seed=0)
    optimizer, scaler = torch.optim.SGD(model.parameters(), lr=lr), torch.amp.GradScaler("cpu", **scaler_kwargs)
    losses, scales = [[] for _ in range(world_size)], []
    for step in range(steps):
        average = None
        for rank in range(world_size):
            tokens, targets = random_batch(config, batch, seq, seed=batch_seed + rank)
            with torch.autocast("cpu", dtype=torch.float16):
                loss = F.cross_entropy(model(tokens).flatten(0, 1), targets.flatten())
            scaler.scale(loss).backward()
            losses[rank].append(loss.item())
            grads = [p.grad / world_size for p in model.parameters()]
            average = grads if average is None else [a + g for a, g in zip(average, grads)]
            optimizer.zero_grad()
        for p, g in zip(model.parameters(), average):
            p.grad = g
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
        scales.append(scaler.get_scale())
    weights = torch.cat([p.detach().flatten() for p in model.parameters()])
    return [torch.tensor(rank_losses, dtype=torch.float64) for rank_losses in losses], \
        torch.tensor(scales, dtype=torch.float64), weights


_REFERENCE_TRAINING: dict = {}


@check
def scaler_trains_the_tiny_model(student):
    """Under DDP on 2 ranks with fp16 autocast, training with your scaler gives GradScaler's losses and scales."""
    for kwargs, steps in [(dict(init_scale=2.0**24, growth_interval=3), 12),
                          (dict(init_scale=2.0**30, growth_factor=1.5, backoff_factor=0.3, growth_interval=2), 10)]:
        where = f"2 ranks, DDP, fp16 autocast, SGD, {scaler_call(kwargs)}"
        batch_seed = int(torch.randint(2**30, (1,), generator=generator(f"06 training {kwargs}")))
        results = student.launch("train_tiny", 2, args=(kwargs, TINY, steps, 0.1, 4, 16, batch_seed), **LAUNCH)
        key = repr((sorted(kwargs.items()), steps, batch_seed))
        if key not in _REFERENCE_TRAINING:
            _REFERENCE_TRAINING[key] = reference_training(kwargs, TINY, steps, 0.1, 4, 16, batch_seed)
        want_losses, want_scales, want_weights = _REFERENCE_TRAINING[key]
        for rank, (losses, scales, weights) in enumerate(results):
            for step in range(steps):
                assert scales[step] == want_scales[step], (
                    f"{where}, rank {rank}, step {step}: your scale {show(float(scales[step]))}, GradScaler's "
                    f"{show(float(want_scales[step]))} (its scales up to there: "
                    f"{[show(float(s)) for s in want_scales[:step + 1]]})")
            assert_tensor(losses, want_losses[rank], rtol=1e-6, atol=1e-6, where=f"{where}, rank {rank}: the losses")
            assert_tensor(weights, want_weights, rtol=1e-5, atol=1e-6, where=f"{where}, rank {rank}: the final weights")
        skipped = sum(1 for a, b in zip([kwargs["init_scale"]] + want_scales.tolist(), want_scales.tolist()) if b < a)
        print(f"{where}: {steps} steps, {skipped} skipped on overflow, scale {show(kwargs['init_scale'])} -> "
              f"{show(float(want_scales[-1]))}, loss {want_losses[0][0]:.3f} -> {want_losses[0][-1]:.3f}: "
              "as GradScaler")


# --- FP8 delayed scaling: the grader's own reference, from Transformer Engine's rules ------------------------------

FP32_MAX = torch.finfo(torch.float32).max  # Transformer Engine's cap on a scale that is inf in fp32


def reference_scale(history, fp8_max, margin=0, algo="max", previous_scale=1.0):
    """Transformer Engine's _default_sf_compute on the amax of _default_get_amax (torch.max: a NaN wins), in Python
    floats: (fp8_max / amax) / 2^margin; previous_scale with no usable amax; FP32_MAX above fp32's range."""
    if not history:
        return previous_scale
    amax = history[-1] if algo == "most_recent" else (math.nan if any(map(math.isnan, history)) else max(history))
    if not (amax > 0 and math.isfinite(amax)):
        return previous_scale
    scale = fp8_max / amax / 2**margin
    return FP32_MAX if scale > FP32_MAX else scale


def chosen_amax(amaxes, step, history_len, algo):
    """The amax step `step`'s scale is computed from: the window of the history_len steps before it, by algo."""
    window = amaxes[max(0, step - history_len):step]
    return window[-1] if algo == "most_recent" else max(window)


def reference_spike_cost(amaxes, spike_step, history_len, algo):
    """(the smallest margin with amaxes[spike_step] <= 2^margin * its chosen amax, exact with ldexp; the number of
    later steps whose window holds spike_step and whose chosen amax equals amaxes[spike_step])."""
    chosen, margin = chosen_amax(amaxes, spike_step, history_len, algo), 0
    while amaxes[spike_step] > math.ldexp(chosen, margin):
        margin += 1
    later = range(spike_step + 1, min(len(amaxes), spike_step + history_len + 1))
    return margin, sum(1 for step in later if chosen_amax(amaxes, step, history_len, algo) == amaxes[spike_step])


def uniform(draw, low, high):
    return low + (high - low) * float(torch.rand(1, generator=draw))


def fp8_max_of(draw):
    """E4M3's 448, E5M2's 57344, or another maximum (0.1 to 10^6)."""
    return [448.0, 57344.0, float(f"{10 ** uniform(draw, -1, 6):.6g}")][draw_int(draw, 0, 2)]


def amaxes_of(draw, n, spikes=0.0):
    """n amaxes of one tensor, 10^-8 to 10^3 (each sequence its own level), with a fraction `spikes` of them 2 to 100
    times larger than the level, as after a loss spike."""
    level = 10 ** uniform(draw, -6, 1)
    values = []
    for _ in range(n):
        value = level * 10 ** uniform(draw, -1, 1)
        values.append(value * 10 ** uniform(draw, 0.3, 2) if float(torch.rand(1, generator=draw)) < spikes else value)
    return values


def scale_call(history, fp8_max, margin, algo, previous_scale=None):
    shown = f"delayed_scale({history}, {fp8_max!r}, margin={margin}, algo={algo!r}"
    return shown + (f", previous_scale={previous_scale!r})" if previous_scale is not None else ")")


def call_scale(student, history, fp8_max, margin, algo, previous_scale):
    try:
        return student.call("delayed_scale", history, fp8_max, margin=margin, algo=algo,
                            previous_scale=previous_scale)
    except StudentError:
        print(f"{scale_call(history, fp8_max, margin, algo, previous_scale)} raised (its traceback below)")
        raise


@check
def delayed_scale_formula(student):
    """delayed_scale is (fp8_max / amax) / 2^margin, amax the largest or the most recent; at most fp32's largest."""
    draw = generator("06 fp8 formula")
    cases = [([2.0, 8.0, 4.0], 448.0, 0, "max"), ([2.0, 8.0, 4.0], 448.0, 0, "most_recent"),
             ([2.0, 8.0, 4.0], 448.0, 3, "max"), ([0.1, 1e-3], 57344.0, 1, "most_recent"), ([3.0], 1.0, 0, "max")]
    for _ in range(40):
        cases.append((amaxes_of(draw, draw_int(draw, 1, 12), spikes=0.3), fp8_max_of(draw), draw_int(draw, 0, 4),
                      ["max", "most_recent"][draw_int(draw, 0, 1)]))
    for case in cases:
        history, fp8_max, margin, algo = case
        previous = float(f"{10 ** uniform(draw, -2, 4):.4g}")
        got = call_scale(student, history, fp8_max, margin, algo, previous)
        amax = max(history) if algo == "max" else history[-1]
        assert_number(got, reference_scale(history, fp8_max, margin, algo, previous),
                      where=f"{scale_call(history, fp8_max, margin, algo, previous)} (amax {amax!r}, "
                            f"{'the largest' if algo == 'max' else 'the most recent'})")
        assert type(got) is float, f"{scale_call(history, fp8_max, margin, algo)}: {got!r} is not a Python float"
    tiny = 0
    for _ in range(8):  # scales above fp32's largest number (inf in fp32): that number
        history = [10 ** uniform(draw, -44, -39) for _ in range(draw_int(draw, 1, 4))]
        fp8_max, margin, algo = [448.0, 57344.0][draw_int(draw, 0, 1)], draw_int(draw, 0, 4), ["max", "most_recent"][
            draw_int(draw, 0, 1)]
        if draw_int(draw, 0, 1) and algo == "max":
            history.append(history[0] * 1e-3)  # a tinier one beside it: "max" takes the larger
        got = call_scale(student, history, fp8_max, margin, algo, 2.0)
        assert got == FP32_MAX, (f"{scale_call(history, fp8_max, margin, algo, 2.0)}: {got!r}; the scale is above "
                                 f"the largest fp32 number, so expected that number, {FP32_MAX!r}")
        tiny += 1
    print(f"{len(cases)} histories (both algorithms, margins 0 to 4, fp8_max 448, 57344 and others) and {tiny} "
          "tiny amaxes: the formula, and fp32's largest number where the scale would be inf in fp32")


@check
def delayed_scale_keeps_previous_scale(student):
    """With no amax to go by (empty history, amax 0, inf or NaN), the scale stays previous_scale."""
    draw = generator("06 fp8 previous")
    nan, inf = math.nan, math.inf
    cases = [([], "max"), ([], "most_recent"), ([0.0], "max"), ([0.0, 0.0], "max"), ([2.0, inf], "max"),
             ([inf, 2.0], "max"), ([nan, 2.0], "max"), ([2.0, nan], "max"), ([1.0, nan, 3.0], "max"),
             ([1.0, 0.0], "most_recent"), ([nan, 1.0, inf], "most_recent"), ([3.0, nan], "most_recent")]
    for _ in range(16):  # a 0, inf or NaN planted at a random place of a "max" history, or at the end
        history, algo = amaxes_of(draw, draw_int(draw, 1, 8)), ["max", "most_recent"][draw_int(draw, 0, 1)]
        where = len(history) - 1 if algo == "most_recent" else draw_int(draw, 0, len(history) - 1)
        history[where] = [0.0, inf, nan][draw_int(draw, 0, 2)] if algo == "most_recent" else [inf, nan][
            draw_int(draw, 0, 1)]
        if algo == "max" and draw_int(draw, 0, 2) == 0:
            history = [0.0] * len(history)
        cases.append((history, algo))
    for history, algo in cases:
        previous = float(f"{10 ** uniform(draw, -3, 6):.5g}")
        got = call_scale(student, history, 448.0, 0, algo, previous)
        assert got == previous, (f"{scale_call(history, 448.0, 0, algo, previous)}: {got!r}; amax is "
                                 f"{reference_amax(history, algo)}, so the scale stays previous_scale, {previous!r}")
    for history in ([nan, 2.0], [2.0, 4.0, nan, 1.0]):  # "most_recent" looks at the last amax only
        got = call_scale(student, history, 448.0, 0, "most_recent", 5.0)
        assert_number(got, 448.0 / history[-1], where=f"{scale_call(history, 448.0, 0, 'most_recent', 5.0)} "
                                                       "(the most recent amax is finite)")
    print(f"{len(cases)} histories (empty; amax 0, inf, NaN anywhere in a 'max' history, last in a 'most_recent' "
          "one): previous_scale; 2 with a NaN before a 'most_recent' amax: the formula")


def _rejects(student, bad, valid):
    """Each (name, args, kwargs, argument) of `bad` raises ValueError naming the argument; each call of `valid` runs."""
    for name, args, kwargs, argument in bad:
        error = assert_raises(student, ValueError, name, *args, **kwargs)
        shown = ", ".join([*map(repr, args), *(f"{k}={v!r}" for k, v in kwargs.items())])
        assert argument in error.message, (f"{name}({shown}) raised ValueError({error.message!r}): the message must "
                                           f"name the argument, {argument}")
    for name, args, kwargs in valid:
        try:
            student.call(name, *args, **kwargs)
        except StudentError:
            print(f"{name}{args} {kwargs} is valid, but raised (its traceback below)")
            raise
    print(f"{len(bad)} bad arguments raise ValueError naming the argument; {len(valid)} valid extremes do not")


@check  # before spike_cost's checks, which hand the statement's delayed_scale to the learner's spike_cost: no stand-in
def delayed_scale_rejects_bad_input(student):  # it could have kept can answer these (and spike_cost has its own cell)
    """delayed_scale raises ValueError naming the argument that is wrong."""
    bad = [("delayed_scale", ([1.0], 0.0), {}, "fp8_max"), ("delayed_scale", ([1.0], -448.0), {}, "fp8_max"),
           ("delayed_scale", ([1.0], math.inf), {}, "fp8_max"), ("delayed_scale", ([1.0], math.nan), {}, "fp8_max"),
           ("delayed_scale", ([1.0], 448.0), dict(margin=-1), "margin"),
           ("delayed_scale", ([1.0], 448.0), dict(margin=0.5), "margin"),
           ("delayed_scale", ([1.0], 448.0), dict(margin=2.0), "margin"),
           ("delayed_scale", ([1.0], 448.0), dict(margin=True), "margin"),  # a bool is not an int here (47.9)
           ("delayed_scale", ([1.0], 448.0), dict(algo="mean"), "algo"),
           ("delayed_scale", ([1.0], 448.0), dict(algo="MAX"), "algo"),
           ("delayed_scale", ([1.0], 448.0), dict(algo=None), "algo"),
           ("delayed_scale", ([1.0, -2.0, 3.0], 448.0), {}, "amax_history"),
           ("delayed_scale", ([-0.5], 448.0), dict(algo="most_recent"), "amax_history"),
           ("delayed_scale", ([-1.0, 2.0], 448.0), dict(algo="most_recent"), "amax_history")]
    _rejects(student, bad, [("delayed_scale", ([0.0], 1e-30), dict(margin=40)),
                            ("delayed_scale", ([], 448.0), dict(algo="most_recent"))])


def reference_amax(history, algo):
    if not history:
        return "missing (an empty history)"
    amax = history[-1] if algo == "most_recent" else (math.nan if any(map(math.isnan, history)) else max(history))
    return f"{amax!r}" + (" (a NaN in the history makes the largest NaN, as torch.max)" if algo == "max" and
                          math.isnan(amax) else "")


LESSON_SPIKE = [1.0] * 16 + [8.0] + [1.0] * 20  # the lesson's: 8 times the amax at step 16


def spike_cases(label):
    """(amaxes, spike_step, history_len, algo) to ask spike_cost about: fixed ones, then random sequences with a
    spike planted at a random step, some of them exactly 2^k times the amax its scale comes from (the boundary a
    `>=` gets wrong), the others at least 10^-6 (relative) away from any such power (where log2 needs no care)."""
    cases = [(LESSON_SPIKE, 16, 16, "max"), (LESSON_SPIKE, 16, 3, "max"), (LESSON_SPIKE, 16, 16, "most_recent"),
             (LESSON_SPIKE[:21], 16, 16, "max"), ([1.0] * 16 + [8.5] + [1.0] * 4, 16, 16, "max"),
             ([1.0, 1.0, 4.0, 1.0, 16.0, 1.0, 1.0], 2, 4, "max"), ([1.0, 9.0, 1.0, 4.0, 1.0], 3, 3, "max"),
             ([4.0, 1.0, 1.0, 3.0], 3, 2, "max"), ([4.0, 1.0, 1.0, 3.0], 3, 3, "max"), ([1.0, 2.0], 1, 5, "max"),
             ([3.0, 1.0, 2.0], 1, 1, "most_recent")]
    draw = generator(label)
    while len(cases) < 60:
        n = draw_int(draw, 2, 40)
        amaxes, step = amaxes_of(draw, n, spikes=0.15), draw_int(draw, 1, n - 1)
        history_len, algo = draw_int(draw, 1, n + 3), ["max", "most_recent"][draw_int(draw, 0, 1)]
        chosen = chosen_amax(amaxes, step, history_len, algo)
        if draw_int(draw, 0, 2) == 0:
            amaxes[step] = math.ldexp(chosen, draw_int(draw, 0, 7))  # exactly 2^k: absorbed by a margin of k
        elif draw_int(draw, 0, 1):
            amaxes[step] = chosen * 10 ** uniform(draw, 0.2, 3)  # a spike
        exponent = math.log2(amaxes[step] / chosen)
        if amaxes[step] != math.ldexp(chosen, round(exponent)) and abs(exponent - round(exponent)) < 2e-6:
            continue  # within 10^-6 of a power of two, not on it
        cases.append((amaxes, step, history_len, algo))
    return cases


def spike_call(amaxes, spike_step, history_len, algo):
    shown = amaxes if len(amaxes) <= 24 else f"<{len(amaxes)} amaxes, {amaxes[spike_step]!r} at step {spike_step}>"
    return f"spike_cost({shown}, {spike_step}, history_len={history_len}, algo={algo!r})"


def call_spike_cost(student, amaxes, spike_step, history_len, algo):
    """The learner's spike_cost, run with the statement's delayed_scale in the place of theirs (a learner may build
    on it): a delayed_scale mistake costs delayed_scale's cells only (issue 47.11). Checked to be 2 ints."""
    call = spike_call(amaxes, spike_step, history_len, algo)
    try:
        got = student.call("spike_cost_alone", amaxes, spike_step, history_len, algo,
                           statement_source(THIS_SET, ["delayed_scale"]))
    except StudentError:
        print(f"{call} raised (its traceback below)")
        raise
    assert isinstance(got, tuple) and len(got) == 2 and all(type(x) is int for x in got), (
        f"{call} returned {got!r}; expected a tuple of two ints, (margin, steps)")
    return call, got


@check
def spike_cost_margin(student):
    """spike_cost's margin: the smallest with which the spike's amax is at most 2^margin times its scale's amax."""
    cases = spike_cases("06 fp8 spike margin")
    for amaxes, spike_step, history_len, algo in cases:
        call, (margin, _) = call_spike_cost(student, amaxes, spike_step, history_len, algo)
        chosen = chosen_amax(amaxes, spike_step, history_len, algo)
        want = reference_spike_cost(amaxes, spike_step, history_len, algo)[0]
        bounds = "at most 1 = 2^0" if want == 0 else f"above 2^{want - 1} and at most 2^{want}"
        assert margin == want, (
            f"{call}: margin {margin}, expected {want}: step {spike_step}'s scale comes from the amax {chosen!r} "
            f"({'the largest' if algo == 'max' else 'the most recent'} of the {history_len} steps before it, or of "
            f"all there are), and {amaxes[spike_step]!r} / {chosen!r} = {amaxes[spike_step] / chosen:.9g} is {bounds}")
    print(f"{len(cases)} spikes (the lesson's, 8.5x, windows that still hold a larger amax, jumps of exactly 2^k): "
          "the smallest margin that absorbs each")


@check
def spike_cost_steps(student):
    """spike_cost's steps: the later steps whose window holds the spike and whose chosen amax is the spike's."""
    cases = spike_cases("06 fp8 spike steps")
    for amaxes, spike_step, history_len, algo in cases:
        call, (_, steps) = call_spike_cost(student, amaxes, spike_step, history_len, algo)
        want = reference_spike_cost(amaxes, spike_step, history_len, algo)[1]
        holding = [step for step in range(spike_step + 1, min(len(amaxes), spike_step + history_len + 1))
                   if chosen_amax(amaxes, step, history_len, algo) == amaxes[spike_step]]
        assert steps == want, (
            f"{call}: steps {steps}, expected {want}: the steps whose window of {history_len} holds step "
            f"{spike_step} and whose chosen amax ({algo!r}) is {amaxes[spike_step]!r} are {holding}")
    print(f"{len(cases)} spikes (history_len steps with 'max', fewer where the run ends or a larger amax comes; "
          "one with 'most_recent'): the steps each one sets the scale of")


@check
def spike_cost_rejects_bad_input(student):
    """spike_cost raises ValueError naming the argument that is wrong."""
    bad = [("spike_cost", ([1.0, 0.0, 2.0], 2, 1), {}, "amaxes"), ("spike_cost", ([1.0, -2.0], 1, 1), {}, "amaxes"),
           ("spike_cost", ([1.0, math.inf], 1, 1), {}, "amaxes"),
           ("spike_cost", ([math.nan, 1.0, 2.0], 2, 1), {}, "amaxes"),
           ("spike_cost", ([1.0, 2.0], 0, 1), {}, "spike_step"), ("spike_cost", ([1.0, 2.0], 2, 1), {}, "spike_step"),
           ("spike_cost", ([1.0, 2.0], -1, 1), {}, "spike_step"),
           ("spike_cost", ([1.0, 2.0], 1.0, 1), {}, "spike_step"),
           ("spike_cost", ([1.0, 2.0], True, 1), {}, "spike_step"),  # a bool is not an int here
           ("spike_cost", ([1.0], 0, 1), {}, "spike_step"),
           ("spike_cost", ([1.0, 2.0], 1, 0), {}, "history_len"),
           ("spike_cost", ([1.0, 2.0], 1, -3), {}, "history_len"),
           ("spike_cost", ([1.0, 2.0], 1, 1.5), {}, "history_len"),
           ("spike_cost", ([1.0, 2.0], 1, 2.0), {}, "history_len"),
           ("spike_cost", ([1.0, 2.0], 1, True), {}, "history_len"),
           ("spike_cost", ([1.0, 2.0], 1, 1), dict(algo="mean"), "algo"),
           ("spike_cost", ([1.0, 2.0], 1, 1), dict(algo="MOST_RECENT"), "algo")]
    _rejects(student, bad, [("spike_cost", ([1e-30, 1e30], 1, 1), {}),
                            ("spike_cost", ([2.0, 1.0, 5.0], 2, 10**6), dict(algo="most_recent"))])


# --- the buckets: DDP's own, from its reducer and from its bucketing function ---------------------------------------

def ddp_layouts(setups):
    """On each rank: for each (model config, DDP keyword arguments, first bucket bytes or None), train a real DDP for
    3 iterations and read the buckets its reducer rebuilt in gradient-ready order (logged when the 3rd starts).
    Returns, per setup, (gradient sizes in ready order, buckets as lists of positions in that order)."""
    from torch.nn.parallel import DistributedDataParallel

    from distlab.models import ModelConfig, TinyTransformer, random_batch

    layouts = []
    default_first = dist._DEFAULT_FIRST_BUCKET_BYTES
    for config_kwargs, ddp_kwargs, first_bytes in setups:
        dist._DEFAULT_FIRST_BUCKET_BYTES = first_bytes or default_first  # what DDP(model) reads for its first bucket
        config = ModelConfig(**config_kwargs)
        model = DistributedDataParallel(TinyTransformer(config, seed=0), **ddp_kwargs)
        for iteration in range(3):
            tokens, targets = random_batch(config, 2, 8, seed=iteration)
            F.cross_entropy(model(tokens).flatten(0, 1), targets.flatten()).backward()
        logged = model._get_ddp_logging_data()["rebuilt_per_bucket_param_indices"]  # "34 35 33 32, 31 30, ..."
        buckets = [[int(i) for i in bucket.split()] for bucket in logged.split(",")]
        sizes = [p.numel() * p.element_size() for p in model.module.parameters()]
        ready = [i for bucket in buckets for i in bucket]
        positions, start = [], 0
        for bucket in buckets:
            positions.append(list(range(start, start + len(bucket))))
            start += len(bucket)
        layouts.append(([sizes[i] for i in ready], positions))
    dist._DEFAULT_FIRST_BUCKET_BYTES = default_first
    return layouts


def ddp_function(sizes, cap, first):
    """DDP's bucketing function (dist._compute_bucket_assignment_by_size, which the reducer calls when it rebuilds
    its buckets) on tensors of these sizes (bytes on the meta device: nothing is allocated), in this order."""
    tensors = [torch.empty(n, dtype=torch.uint8, device="meta") for n in sizes]
    buckets, _ = dist._compute_bucket_assignment_by_size(tensors, [first, cap], [False] * len(sizes),
                                                         list(range(len(sizes))))
    return [list(bucket) for bucket in buckets]


def compare_buckets(student, cases, where):
    """assign_buckets on each (sizes, cap, first) against `where(i)`'s expected buckets."""
    results = student.call("assign_many", [case for case, _ in cases], timeout=120)
    assert len(results) == len(cases), f"assign_many returned {len(results)} results for {len(cases)} cases"
    for i, (((sizes, cap, first), expected), got) in enumerate(zip(cases, results, strict=True)):
        call = (f"assign_buckets({sizes if len(sizes) <= 40 else f'<{len(sizes)} sizes>'}, bucket_cap_bytes={cap}, "
                f"first_bucket_bytes={first})")
        assert not isinstance(got, str), f"{where(i)}: {call} raised {got}"
        if got != expected:
            closed = [sum(sizes[j] for j in bucket) for bucket in expected]
            raise AssertionError(f"{where(i)}: {call} returned {got}; expected {expected} (bytes per bucket "
                                 f"{closed})")


@check
def assign_buckets_examples(student):
    """assign_buckets closes a bucket when it reaches its limit; the first bucket has its own limit."""
    cases = [(([4, 4, 4, 4], 8, 4), [[0], [1, 2], [3]]), (([3, 3, 3], 5, 5), [[0, 1], [2]]),
             (([100, 1, 1], 10, 10), [[0], [1, 2]]), (([1, 1, 1, 1, 1], 2, 3), [[0, 1, 2], [3, 4]]),
             (([7], 3, 100), [[0]]), (([5, 5, 5, 5, 5], 5, 5), [[0], [1], [2], [3], [4]]),
             (([1, 2, 3, 4, 5, 6], 6, 100), [[0, 1, 2, 3, 4, 5]]), (([2, 2, 2, 2, 9, 1], 4, 6), [[0, 1, 2], [3, 4],
                                                                                                   [5]])]
    for (sizes, cap, first), expected in cases:
        assert ddp_function(sizes, cap, first) == expected, (sizes, cap, first)  # the grader's own sanity check
    draw = generator("06 buckets small")
    for _ in range(30):  # small cases drawn for this grading, where limits are often reached exactly
        sizes = torch.randint(1, 9, (int(torch.randint(1, 9, (1,), generator=draw)),), generator=draw).tolist()
        cap, first = (int(x) for x in torch.randint(1, 13, (2,), generator=draw))
        cases.append(((sizes, cap, first), ddp_function(sizes, cap, first)))
    compare_buckets(student, cases, lambda i: f"example {i + 1}")
    mib = 2**20
    results = student.call("assign_many", [([mib, mib, 24 * mib, 4], 25 * mib, mib)])
    default = student.call("assign_buckets", [mib, mib, 24 * mib, 4])
    assert results[0] == [[0], [1, 2], [3]] and [list(b) for b in default] == [[0], [1, 2], [3]], (
        f"assign_buckets([1 MiB, 1 MiB, 24 MiB, 4]) with the defaults (first bucket 1 MiB, then 25 MiB): {default}")
    print("38 small cases (8 by hand, 30 drawn) and the defaults (first bucket 1 MiB, then 25 MiB): the buckets of "
          "DDP's bucketing function")


_REFERENCE_LAYOUTS: dict = {}


@check
def assign_buckets_matches_ddp(student):
    """assign_buckets gives the buckets a real DDP built for the lesson's model (bucket_cap_mb=0.01: ~10 KiB each)."""
    import distlab

    mib = 2**20
    draw = generator("06 buckets ddp")
    cap_a, cap_b = (float(f"{x:.3g}") for x in (0.004 + 0.05 * torch.rand(2, generator=draw)).tolist())
    first_a, first_b = (int(x) for x in torch.randint(2_000, 40_000, (2,), generator=draw))
    gqa = dict(TINY, n_kv_heads=2, tie_embeddings=False)
    wide = dict(vocab_size=256, dim=128, n_layers=3, n_heads=4, max_seq_len=64)  # 2.4 MB of fp32 gradients
    setups = [(TINY, dict(bucket_cap_mb=0.01), None, int(0.01 * mib), int(0.01 * mib)),
              (TINY, dict(bucket_cap_mb=cap_a), None, int(cap_a * mib), int(cap_a * mib)),
              (gqa, dict(bucket_cap_mb=cap_b), None, int(cap_b * mib), int(cap_b * mib)),
              (dict(TINY, bias=False), {}, first_a, 25 * mib, first_a),   # DDP(model): 25 MiB after a first bucket
              (dict(TINY, n_layers=4), {}, first_b, 25 * mib, first_b),
              (wide, {}, None, 25 * mib, mib),                             # DDP(model) as it comes: 1 MiB, 25 MiB
              (wide, dict(bucket_cap_mb=0.5), None, int(0.5 * mib), int(0.5 * mib))]
    key = repr([s[:3] for s in setups])
    if key not in _REFERENCE_LAYOUTS:  # the same real DDP runs for every submission
        _REFERENCE_LAYOUTS[key] = distlab.launch(ddp_layouts, 2, args=([s[:3] for s in setups],), timeout=180,
                                                 output="hide")[0]
    layouts = _REFERENCE_LAYOUTS[key]
    cases, names = [], []
    for (config, ddp_kwargs, first_bytes, cap, first), (sizes, buckets) in zip(setups, layouts):
        cases.append(((sizes, cap, first), buckets))
        names.append(f"DDP(TinyTransformer({config}), {ddp_kwargs}" +
                     (f", first bucket {first_bytes} bytes)" if first_bytes else ")") +
                     f": {len(sizes)} gradients in ready order, {len(buckets)} buckets")
    compare_buckets(student, cases, lambda i: names[i])
    print(f"{len(setups)} real DDP runs (4 models; caps from {min(s[3] for s in setups):,} bytes to 25 MiB; first "
          "buckets set apart): DDP's own buckets")
    draw = generator("06 buckets random")
    cases = []
    for _ in range(1500):
        n = int(torch.randint(1, 60, (1,), generator=draw))
        sizes = (2 ** (torch.rand(n, generator=draw) * 14)).long().add(1).tolist()
        cap, first = (int(2 ** (torch.rand(1, generator=draw) * 16) + 1) for _ in range(2))
        cases.append(((sizes, cap, first), ddp_function(sizes, cap, first)))
    compare_buckets(student, cases, lambda i: f"random case {i + 1} (DDP's bucketing function)")
    print("1500 random lists of sizes and limits: as DDP's bucketing function "
          "(dist._compute_bucket_assignment_by_size)")


@check
def assign_buckets_rejects_bad_input(student):
    """assign_buckets raises ValueError for a limit or a size that is not positive."""
    for args, kwargs in [(([4, 4],), dict(bucket_cap_bytes=0)), (([4, 4],), dict(first_bucket_bytes=-1)),
                         (([4, 4],), dict(bucket_cap_bytes=-5, first_bucket_bytes=8)), (([4, 0, 4],), {}),
                         (([4, -4, 4],), {}), (([0],), dict(bucket_cap_bytes=8, first_bucket_bytes=8))]:
        assert_raises(student, ValueError, "assign_buckets", *args, **kwargs)
    print("6 bad inputs (limits of 0 or below, sizes of 0 or below) raise ValueError")
