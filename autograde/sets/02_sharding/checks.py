"""Trusted checks of exercise set 02 (ZeRO sharding): one per test cell, named by its grade_id.

Run by the grader, never in the sandbox: inputs are made and expected values computed here (the memory formula's
closed forms; one-process training with the torch optimizer itself); the student's code runs in the sandbox through
`student` (autograde/sandbox.py) and only plain data comes back.
"""
from fractions import Fraction

import torch

from autograde import sets
from autograde.sets._common import (assert_number, assert_raises, assert_tensor, check, generator,
                                    spread_over_groups)

from . import ranks  # models, batches, reference training

THIS_SET = __name__.split(".")[-2]  # this folder's name: autograde/sets/<THIS_SET>/checks.py
LAUNCH = sets.get(THIS_SET).launch.kwargs()  # the preset of set.toml, next to this file
BATCH_SEED = int(torch.randint(2**31, (1,), generator=generator("02_sharding batches")))


def batch(kind, step):
    """Step `step`'s full batch, drawn from this grading run's secret seed (a notebook cannot know it in advance)."""
    return ranks.batch(kind, step, seed=BATCH_SEED)


# --- Part 1: zero_memory_per_gpu ---------------------------------------------------------------------------------

def expected_bytes(psi, n, stage, k=12):
    """Bytes of model states per device (ZeRO, section 3.1): (4+K)Ψ, 4Ψ + KΨ/N, 2Ψ + (2+K)Ψ/N, (4+K)Ψ/N."""
    return [(4 + k) * psi, 4 * psi + k * psi / n, 2 * psi + (2 + k) * psi / n, (4 + k) * psi / n][stage]


def assert_memory_values(student, cases, rel=1e-12):
    """zero_memory_per_gpu returns a float equal to `expected` for each (Ψ, N, stage, K or None, expected) of
    `cases` (None: k is not passed, its default applies)."""
    calls = [((psi, n, stage), {} if k is None else {"k": k}) for psi, n, stage, k, _ in cases]
    results = student.call("zero_memory_values", calls)
    assert isinstance(results, list) and len(results) == len(cases), "zero_memory_values: not one result per case"
    for (psi, n, stage, k, expected), result in zip(cases, results, strict=True):
        where = f"zero_memory_per_gpu({psi!r}, {n}, {stage}{'' if k is None else f', k={k}'})"
        assert result["is_float"], f"{where} must return a float, got {result['type']}"
        assert_number(result["value"], expected, rel=rel, where=f"{where} (bytes per device)")


@check
def zero_memory_paper_example(student):
    """zero_memory_per_gpu reproduces the ZeRO paper's example (7.5B parameters, 64 devices, K = 12) at every stage."""
    paper = [120e9, 31.40625e9, 16.640625e9, 1.875e9]  # Figure 1 of the paper: 120, 31.4, 16.6 and 1.9 GB
    assert_memory_values(student, [(7.5e9, 64, stage, 12, want) for stage, want in enumerate(paper)], rel=1e-9)
    assert_memory_values(student, [(7.5e9, 64, stage, None, want) for stage, want in enumerate(paper)], rel=1e-9)
    print("stages 0-3: 120, 31.4, 16.6 and 1.9 GB per device, as in the paper")


@check
def zero_memory_other_sizes(student):
    """zero_memory_per_gpu is right for other model sizes, device counts and K, including N = 1 and N not dividing
    Ψ."""
    cases = [(1000, 1, stage, None) for stage in range(4)]  # one device: nothing to shard
    cases += [(1000, 4, 3, 12), (1_000_003, 3, 0, None), (7, 1024, 3, 0), (10, 2, 1, 16)]
    cases += [(1_000_003, 3, stage, None) for stage in range(4)]  # N does not divide Ψ
    cases += [(1e9, 8, stage, 8) for stage in range(4)]  # K = 8: fp32 moments, no master copy
    assert_memory_values(student, [(psi, n, stage, k, expected_bytes(psi, n, stage, 12 if k is None else k))
                                   for psi, n, stage, k in cases])
    print("N = 1, N not dividing Ψ, K = 0, 8, 12 and 16: right")


@check
def zero_memory_rejects_bad_input(student):
    """zero_memory_per_gpu raises ValueError, with a message, for a stage outside 0-3, non-positive sizes or a
    negative k."""
    for args in [(1000, 4, 4), (1000, 4, -1), (1000, 4, 1.5), (1000, 0, 1), (0, 4, 1), (-10, 4, 3), (1000, -2, 2)]:
        assert_raises(student, ValueError, "zero_memory_per_gpu", *args)
    assert_raises(student, ValueError, "zero_memory_per_gpu", 1000, 4, 2, k=-1)
    print("rejects stages 4, -1 and 1.5, zero or negative sizes, and k = -1")


# --- Part 1b: min_devices_to_fit ---------------------------------------------------------------------------------

GiB = 2**30


def expected_devices(psi, memory, stage, k=12):
    """The smallest N >= 1 with expected_bytes(psi, N, stage, k) <= memory, or None: solved in exact fractions
    (replicated + sharded / N <= memory), so that the expected answer has no rounding of its own."""
    psi, memory = Fraction(psi), Fraction(memory)
    replicated = [4 + k, 4, 2, 0][stage] * psi
    sharded = (4 + k) * psi - replicated
    if sharded == 0:
        return 1 if replicated <= memory else None
    if memory <= replicated:
        return None
    return max(1, -(-sharded // (memory - replicated)))


def assert_devices(student, cases):
    """min_devices_to_fit returns the int (or None) of expected_devices for each (Ψ, memory, stage, K or None)."""
    calls = [((psi, memory, stage), {} if k is None else {"k": k}) for psi, memory, stage, k in cases]
    results = student.call("min_devices_values", calls)
    assert isinstance(results, list) and len(results) == len(cases), "min_devices_values: not one result per case"
    for (psi, memory, stage, k), result in zip(cases, results, strict=True):
        where = f"min_devices_to_fit({psi!r}, {memory!r}, {stage}{'' if k is None else f', k={k}'})"
        assert result["valid"], f"{where} must return an int or None, got {result['type']}"
        want = expected_devices(psi, memory, stage, 12 if k is None else k)
        assert result["value"] == want, f"{where}: got {result['value']}, expected {want}"


@check
def min_devices_paper_model(student):
    """min_devices_to_fit answers for the ZeRO paper's 7.5B-parameter model on GPUs with 80, 24 and 16 GiB for model
    states."""
    assert_devices(student, [(7.5e9, gib * GiB, stage, k) for gib in (80, 24, 16) for stage in range(4)
                             for k in (None, 12)])
    print("7.5B parameters on 80, 24 and 16 GiB, stages 0-3: right")


def fitting_cases(count):
    """(Ψ, memory, stage, K) whose answer N0 is drawn from 1 to 10^7, with the memory that makes the exact ratio
    sharded / (memory - replicated) a random point between N0 - 1 and N0, never within rounding of an integer."""
    draw = generator("02_sharding min_devices")
    cases = []
    for _ in range(count):
        psi = int(torch.randint(10**6, 10**12, (1,), generator=draw))
        stage = int(torch.randint(1, 4, (1,), generator=draw))
        k = [8, 12, 16][int(torch.randint(3, (1,), generator=draw))]
        n0 = [1, 2, 7, 1000, 10**7][int(torch.randint(5, (1,), generator=draw))]
        x = n0 - 1 + 0.1 + 0.8 * float(torch.rand(1, generator=draw))  # the ratio memory must give
        replicated = [4 + k, 4, 2, 0][stage] * psi
        cases.append((psi, float(replicated + ((4 + k) * psi - replicated) / x), stage, k))
    return cases


@check
def min_devices_other_models(student):
    """min_devices_to_fit is right for other models, memories and K: floors met exactly, one device, answers in the
    millions."""
    cases = [(1000, 16000, 0, None), (1000, 15999, 0, None), (1000, 4000, 1, None), (1000, 4001, 1, None),
             (1000, 2000, 2, None), (1000, 3000, 2, 8), (1000, 10**9, 3, None), (1e12, 1e6, 3, None),
             (12345, 10**6, 3, 16), (10**9, 2 * 10**9 + 2**20, 2, 12)]
    assert_devices(student, cases + fitting_cases(12))
    print("one device, floors met exactly, K = 8, 12 and 16, answers from 1 to 16 million: right")


# --- Part 2: ShardedOptimizer --------------------------------------------------------------------------------------

def shares(batches, world_size):
    """Each rank's share of every batch: rank r gets the r-th slice (tensor_split) of each tensor, as a copy."""
    return [[tuple(t.tensor_split(world_size)[rank].clone() for t in batch) for batch in batches]
            for rank in range(world_size)]


def train_on_ranks(student, kind, world_size, steps, optimizer_name, kwargs):
    """ShardedOptimizer(torch.optim.<optimizer_name>) trained on `world_size` ranks, each with its share of the
    batches; per rank, what rank_train returned."""
    batches = [batch(kind, step) for step in range(steps)]
    return student.launch("rank_train", world_size, args=(kind, optimizer_name, kwargs),
                          rank_args=[(share,) for share in shares(batches, world_size)], **LAUNCH)


def rank_state(result, expected, where):
    """The state dict a rank returned, checked to hold every expected name as a tensor of the right dtype and shape."""
    state = result.get("state") if isinstance(result, dict) else None
    assert isinstance(state, dict), f"{where}: no state dict came back"
    for name, want in expected.items():
        got = state.get(name)
        assert type(got) is torch.Tensor, f"{where}: {name} is {type(got).__name__}, not a tensor"
        assert (got.dtype, got.shape) == (want.dtype, want.shape), (
            f"{where}: {name} is {got.dtype} {tuple(got.shape)}, expected {want.dtype} {tuple(want.shape)}")
    return state


def assert_no_frozen_grad(result, where):
    """The rank's own report (a claim) that no frozen parameter holds a gradient after training: only a notebook
    that lies on purpose could hide one, and its frozen values are still checked against the reference."""
    assert not result.get("frozen_with_grad"), (
        f"{where}: frozen parameter(s) {sorted(result['frozen_with_grad'])} got a gradient")


def assert_holds_the_state(results, reference, kind, where):
    """The optimizer_cls instances ShardedOptimizer made hold, after training, the state torch.optim keeps in one
    process (`reference`: [(parameter index, {key: tensor})]), each parameter's on exactly one rank: values alone
    would let a one-process optimizer answer for a class never written (issue 45)."""
    names = [name for name, _ in ranks.make_net(kind).named_parameters()]
    held = [result.get("held") for result in results]
    assert all(isinstance(h, list) for h in held), f"{where}: a rank did not report its optimizer_cls instances' state"
    found = assert_state_partitioned(held, reference, names, where)
    for index, want in reference:
        rank, got = found[index]
        for key, value in want.items():
            if value.dim() == 0:
                assert torch.equal(got[key].double(), value.double()), (
                    f"{where}: {names[index]}'s {key} on rank {rank} is {got[key].item():g}, one process's "
                    f"{value.item():g}")
            else:
                assert_close(got[key].double(), value.double(), f"{names[index]}'s {key} on rank {rank} is not one "
                             f"process's", where)


def assert_trains_like_one_process(student, kind, world_size, steps, optimizer_name, kwargs, rtol=1e-4, atol=1e-5):
    """Every rank ends with identical parameters, those of torch.optim.<optimizer_name> on the full batches here, and
    the optimizer state that one process keeps, each parameter's on one rank."""
    reference = ranks.train(kind, [batch(kind, step) for step in range(steps)], optimizer_name, kwargs)
    expected = reference["state"]
    results = train_on_ranks(student, kind, world_size, steps, optimizer_name, kwargs)
    where = f"{kind} model, {world_size} ranks, {optimizer_name}{kwargs}, {steps} steps"
    states = [rank_state(result, expected, f"{where}, rank {rank}") for rank, result in enumerate(results)]
    for rank, (result, state) in enumerate(zip(results, states, strict=True)):
        assert_no_frozen_grad(result, f"{where}, rank {rank}")
        for name in expected:
            assert torch.equal(state[name], states[0][name]), (
                f"{where}: rank {rank}'s {name} differs from rank 0's: the ranks must hold identical parameters")
    for name, want in expected.items():  # identical on every rank: rank 0's are every rank's
        assert_tensor(states[0][name], want, rtol=rtol, atol=atol,
                      where=f"{where}: {name} differs from one-process training")
    assert_holds_the_state(results, reference["held"], kind, where)
    return states


@check
def sharded_optimizer_matches_adamw(student):
    """ShardedOptimizer(AdamW) trains like AdamW in one process on the full batch, with identical parameters on every
    rank, also where a rank owns no parameter."""
    # group= is judged by sharded_optimizer_averages_gradients, with SGD (issue 47.12)
    assert_trains_like_one_process(student, "mlp", 2, 10, "AdamW", {"lr": 0.01, "weight_decay": 0.1})
    print("2 ranks, 10 steps of AdamW: same parameters as one process")
    assert_trains_like_one_process(student, "mlp", 3, 10, "AdamW", {"lr": 0.01, "betas": (0.8, 0.99)})
    print("3 ranks, 10 steps of AdamW with other betas: same parameters as one process")
    assert_trains_like_one_process(student, "tiny", 3, 10, "AdamW", {"lr": 0.01})
    print("3 ranks, a model of 2 tensors (a rank owns nothing): same parameters as one process")


def assert_groups_train_like_one_process(student, groups, kind, steps, optimizer_name, kwargs):
    """ShardedOptimizer(..., group=g) on the groups of `groups` (lists of global ranks), each with its own batches:
    every rank ends with the parameters of one-process training on its group's batches. Not contiguous groups: a
    group rank is not a global rank (src/dst of a collective are global)."""
    data = [[ranks.batch(kind, step, seed=BATCH_SEED + 1000 * (k + 1)) for step in range(steps)]
            for k in range(len(groups))]
    per_group = [shares(batches, len(members)) for batches, members in zip(data, groups)]
    rank_args = [(groups, kind, optimizer_name, kwargs, share) for share in spread_over_groups(groups, per_group)]
    results = student.launch("rank_train_in_groups", len(rank_args), rank_args=rank_args, **LAUNCH)
    for k, members in enumerate(groups):
        expected = ranks.train(kind, data[k], optimizer_name, kwargs)["state"]
        for rank in members:
            where = f"{len(rank_args)} ranks in groups {groups}, ShardedOptimizer(..., group=...), rank {rank}"
            state = rank_state(results[rank], expected, where)
            for name, want in expected.items():
                assert_tensor(state[name], want, rtol=1e-4, atol=1e-5, where=(
                    f"{where}: {name} is not one-process training on its group's batches (average over the group; "
                    f"name src/dst by global rank)"))


def sgd_factor(student, world_size):
    """How many times the true average gradient one step of ShardedOptimizer(SGD) applied (1.0 when right)."""
    before = {name: t.detach() for name, t in ranks.make_net("mlp").state_dict().items()}
    expected = ranks.train("mlp", [batch("mlp", 0)], "SGD", {"lr": 0.1})["state"]
    results = train_on_ranks(student, "mlp", world_size, 1, "SGD", {"lr": 0.1})
    got = rank_state(results[0], expected, f"{world_size} ranks, one SGD step, rank 0")
    moved = torch.cat([(got[name] - before[name]).flatten() for name in before])
    should = torch.cat([(expected[name] - before[name]).flatten() for name in before])
    return (moved @ should / (should @ should)).item()


@check
def sharded_optimizer_averages_gradients(student):
    """ShardedOptimizer.step() averages the gradients over the ranks exactly once (checked with plain SGD, which shows
    the scale), and with group= over that group's ranks only (divided by the group's size, src/dst named by global
    rank)."""
    for world_size in (2, 4):
        factor = sgd_factor(student, world_size)
        assert abs(factor - 1) < 1e-3, (
            f"{world_size} ranks: one SGD step moved the parameters by {factor:.3f} x the averaged gradient; expected "
            f"1 ({world_size} would mean summed, not averaged; {1 / world_size:g} averaged twice; 0 never updated)")
        print(f"{world_size} ranks: one SGD step applies the averaged gradient once")
    assert_trains_like_one_process(student, "mlp", 2, 10, "SGD", {"lr": 0.05, "momentum": 0.9})
    print("2 ranks: 10 steps of SGD with momentum match one process")
    # SGD, not AdamW: AdamW's update hardly changes with the gradients' scale and would hide a wrong divisor (47.7)
    assert_groups_train_like_one_process(student, [[0, 2], [1, 3]], "mlp", 6, "SGD", {"lr": 0.05, "momentum": 0.9})
    print("4 ranks in groups [[0, 2], [1, 3]]: each group trains as one process on its own batches (SGD with momentum)")


@check
def sharded_optimizer_tied_and_frozen(student):
    """ShardedOptimizer handles a tied weight (one parameter) and a frozen layer (no gradient, never changed), on 2
    and 3 ranks."""
    frozen = {f"frozen.{name}": t.detach() for name, t in ranks.make_net("tied").frozen.state_dict().items()}
    for world_size, steps, kwargs in [(2, 10, {"lr": 0.02}), (3, 12, {"lr": 0.02, "weight_decay": 0.05})]:
        states = assert_trains_like_one_process(student, "tied", world_size, steps, "AdamW", kwargs)
        for rank, state in enumerate(states):
            for name, want in frozen.items():
                assert torch.equal(state[name], want), f"{world_size} ranks, rank {rank}: the frozen layer changed"
        print(f"{world_size} ranks: tied weight trained as one parameter, frozen layer untouched")


# --- memory: measured from the optimizer state the ranks return --------------------------------------------------

def state_nbytes(held):
    """Bytes of the state tensors in `held` ([(parameter index, {key: tensor})]), measured here from the tensors."""
    return sum(t.numel() * t.element_size() for _, tensors in held for t in tensors.values())


def reference_state(kind, optimizer_name, kwargs):
    """[(parameter index, {key: tensor})] that torch.optim.<optimizer_name> keeps after one full-batch step, here."""
    model = ranks.make_net(kind)
    ranks.loss_of(kind, model, *batch(kind, 0)).backward()
    optimizer = getattr(torch.optim, optimizer_name)(model.parameters(), **kwargs)
    optimizer.step()
    return ranks.state_of([optimizer], list(model.parameters()))


def layout(tensors):
    """{key: (dtype, shape)} of one parameter's state tensors."""
    return {key: (t.dtype, tuple(t.shape)) for key, t in tensors.items()}


def assert_state_partitioned(held_by_rank, reference, names, where):
    """Each parameter that has optimizer state in one process has it on exactly one rank, with the same keys, dtypes
    and shapes (tensors the ranks returned, from the optimizer_cls instances ShardedOptimizer made). Returns
    {parameter index: (owner, its state tensors)}."""
    owners, wanted, found = {index: [] for index, _ in reference}, {i: layout(t) for i, t in reference}, {}
    for rank, held in enumerate(held_by_rank):
        for index, tensors in held:
            assert index in owners, (f"{where}, rank {rank}: optimizer state for a tensor that is not one of the "
                                     f"model's trainable parameters (give optimizer_cls the parameters themselves)")
            owners[index].append(rank)
            found[index] = rank, tensors
            assert layout(tensors) == wanted[index], (f"{where}, rank {rank}: the state kept for {names[index]} is "
                                                      f"{layout(tensors)}, the optimizer's is {wanted[index]}")
    for index, holders in owners.items():
        assert len(holders) == 1, (f"{where}: {names[index]} has optimizer state on ranks {holders}; exactly one rank, "
                                   f"its owner, must keep it (with its own optimizer_cls instance)")
    return found


def assert_close(got, want, what, where, rtol=1e-3):
    """float64 values of the state arithmetic, close relative to the largest of `want`."""
    scale = want.abs().max().item()
    assert torch.allclose(got, want, rtol=rtol, atol=rtol * scale + 1e-12), (
        f"{where}: {what} (largest difference {(got - want).abs().max().item():.3g}, of values up to {scale:.3g})")


def assert_adamw_history(history, initial, kwargs, names, where):
    """The state each owner's AdamW keeps is the one its steps used, step after step: its step count is the number of
    steps, its moments follow from the previous ones (exp_avg_sq = beta2 * before + (1 - beta2) * g^2, with the
    gradient g that exp_avg's change implies), and the owner's copy of the parameter moved by exactly the update they
    give. True of any gradients (a wrong average is judged by the other cells), false of a state re-made or dropped
    between steps. `history`: per step, ({index: (owner, state)}, [each rank's parameters])."""
    lr, decay, eps = kwargs.get("lr", 1e-3), kwargs.get("weight_decay", 1e-2), kwargs.get("eps", 1e-8)
    beta1, beta2 = kwargs.get("betas", (0.9, 0.999))
    moments = {}  # {index: (exp_avg, exp_avg_sq)} after the previous step
    for t, (owned, parameters) in enumerate(history, start=1):
        for index, (rank, state) in owned.items():
            here = f"{where}, after step {t}, {names[index]} (owned by rank {rank})"
            count = state["step"].double().item()
            assert count == t, f"{here}: the optimizer's step count is {count:g}: its state was not kept between steps"
            m, v = state["exp_avg"].double(), state["exp_avg_sq"].double()
            m0, v0 = moments.get(index, (torch.zeros_like(m), torch.zeros_like(v)))
            g = (m - beta1 * m0) / (1 - beta1)
            assert_close(v, beta2 * v0 + (1 - beta2) * g * g, "exp_avg_sq is not what the state before this step and "
                         "its gradient make: the state was not kept between steps", here)
            old = (history[t - 2][1][rank] if t > 1 else initial)[index].double()
            new = parameters[rank][index].double()
            update = (m / (1 - beta1 ** t)) / ((v / (1 - beta2 ** t)).sqrt() + eps)
            assert_close(new - old * (1 - lr * decay), -lr * update, "the parameter did not move by the update this "
                         "state gives: it is not the state its optimizer stepped with", here)
            moments[index] = m, v


def assert_kept_memory_report(results, plain, where):
    """The ranks' own report (a claim) of what ShardedOptimizer kept allocated after each step() (distlab.track_memory):
    catches state or buffers kept beside the optimizer_cls instances, which the returned state cannot show. Each rank's
    least reading over the steps: gloo's thread lets go of a collective's buffer a moment after the collective returns,
    so one reading right after step() can still count a buffer step() freed (distlab.memory); a stale buffer only adds,
    and what the optimizer really keeps shows after every step."""
    kept = [min(result["kept_bytes"][:STATE_STEPS]) for result in results]
    for rank, nbytes in enumerate(kept):
        assert nbytes <= plain / 2, (f"{where}: rank {rank} kept at least {nbytes} bytes allocated after each of "
                                     f"{STATE_STEPS} steps, AdamW alone keeps {plain} for the whole model: is the "
                                     f"optimizer state really sharded?")
    assert sum(kept) <= 1.6 * plain, (f"{where}: the ranks together kept {sum(kept)} bytes allocated after each step, "
                                      f"{sum(kept) / plain:.2f} x AdamW's {plain}")


STATE_STEPS = 3  # steps of the memory check: a state dropped after a step to look small shows in the next one


@check
def sharded_optimizer_state_is_sharded(student):
    """Measured: the optimizer state ShardedOptimizer keeps after each step() is at most half of AdamW's on every rank,
    each parameter's state on its owner only (equal to one process's), and all ranks together hold about one copy."""
    kwargs = {"lr": 0.01}
    reference = reference_state("wide", "AdamW", kwargs)
    plain = state_nbytes(reference)
    names = [name for name, _ in ranks.make_net("wide").named_parameters()]
    initial = [p.detach() for p in ranks.make_net("wide").parameters()]
    batches = [batch("wide", step) for step in range(STATE_STEPS)]
    for world_size in (4, 3):
        where = f"{world_size} ranks"
        results = student.launch("rank_optimizer_state", world_size, args=("wide", "AdamW", kwargs),
                                 rank_args=[(share,) for share in shares(batches, world_size)], **LAUNCH)
        assert all(isinstance(r, dict) and len(r.get("steps", [])) == len(r.get("kept_bytes", [])) == STATE_STEPS
                   for r in results), f"{where}: a rank did not report its {STATE_STEPS} steps"
        history = [(assert_state_partitioned([r["steps"][t]["held"] for r in results], reference, names,
                                             f"{where}, after step {t + 1}"),
                    [r["steps"][t]["parameters"] for r in results]) for t in range(STATE_STEPS)]
        assert_adamw_history(history, initial, kwargs, names, where)
        held = [state_nbytes(r["steps"][-1]["held"]) for r in results]
        for rank, nbytes in enumerate(held):
            assert nbytes <= plain / 2, (f"{where}: rank {rank} keeps {nbytes} bytes of optimizer state, AdamW alone "
                                         f"keeps {plain} for the whole model: is the optimizer state really sharded?")
        assert_kept_memory_report(results, plain, where)
        print(f"{world_size} ranks: each keeps {held} bytes of optimizer state after each of {STATE_STEPS} steps, the "
              f"state its own steps used; AdamW alone keeps {plain}")


# --- Part 3: Zero2Optimizer ----------------------------------------------------------------------------------------

def trainable(kind):
    """The distinct trainable parameters of a fresh `kind` model, in order (Zero2Optimizer's flat layout)."""
    return [p for p in dict.fromkeys(ranks.make_net(kind).parameters()) if p.requires_grad]


def zero2_trains_like_one_process(student, kind, world_size, steps, optimizer_name, kwargs):
    """Zero2Optimizer(torch.optim.<optimizer_name>) on `world_size` ranks ends with identical parameters on every rank,
    those of one-process training on the full batches."""
    batches = [batch(kind, step) for step in range(steps)]
    expected = ranks.train(kind, batches, optimizer_name, kwargs)["state"]
    results = student.launch("rank_zero2_train", world_size, args=(kind, optimizer_name, kwargs),
                             rank_args=[(share,) for share in shares(batches, world_size)], **LAUNCH)
    where = (f"Zero2Optimizer, {kind} model ({sum(p.numel() for p in trainable(kind))} trainable elements), "
             f"{world_size} ranks, {optimizer_name}{kwargs}, {steps} steps")
    states = [rank_state(result, expected, f"{where}, rank {rank}") for rank, result in enumerate(results)]
    for rank, (result, state) in enumerate(zip(results, states, strict=True)):
        assert_no_frozen_grad(result, f"{where}, rank {rank}")
        for name in expected:
            assert torch.equal(state[name], states[0][name]), (
                f"{where}: rank {rank}'s {name} differs from rank 0's: every rank must hold the gathered parameters")
    for name, want in expected.items():
        assert_tensor(states[0][name], want, rtol=1e-4, atol=1e-5, where=f"{where}: {name} differs from one process")
    return states


@check
def zero2_matches_adamw(student):
    """Zero2Optimizer trains like one process on the full batch, identical on every rank: AdamW (Ψ not dividing N, a
    shard of padding only, a tied weight, a frozen layer) and SGD, which shows the gradients' scale."""
    zero2_trains_like_one_process(student, "mlp", 2, 10, "AdamW", {"lr": 0.01, "weight_decay": 0.1})
    print("2 ranks, 10 steps of AdamW: same parameters as one process")
    frozen = {f"frozen.{name}": t.detach() for name, t in ranks.make_net("tied").frozen.state_dict().items()}
    states = zero2_trains_like_one_process(student, "tied", 3, 10, "AdamW", {"lr": 0.02, "betas": (0.8, 0.99)})
    for rank, state in enumerate(states):
        for name, want in frozen.items():
            assert torch.equal(state[name], want), f"tied model, 3 ranks, rank {rank}: the frozen layer changed"
    print("3 ranks: a tied weight, a frozen layer, 115 elements in 3 shards of 39: same as one process")
    zero2_trains_like_one_process(student, "tiny", 4, 6, "AdamW", {"lr": 0.01})
    print("4 ranks, 6 elements in shards of 2: the last rank's shard is padding only, and all is right")
    zero2_trains_like_one_process(student, "mlp", 3, 10, "SGD", {"lr": 0.05, "momentum": 0.9})
    print("3 ranks, 10 steps of SGD with momentum: the gradients are averaged once")


RS_NAMES = {"reduce_scatter", "reduce_scatter_tensor", "reduce_scatter_single"}
GATHER_NAMES = {"all_gather", "all_gather_into_tensor", "all_gather_single", "broadcast"}


def assert_zero2_comm(comm, psi, world_size, where):
    """One step()'s communication (a count_comm summary): reduce-scatters whose inputs hold each gradient element once
    (Ψ to N·S elements: padded or not), gathers (or broadcasts from owners) of Ψ to N·S elements, nothing else."""
    padded = world_size * -(-psi // world_size)
    calls = comm["collective_calls"]
    others = sorted(set(calls) - RS_NAMES - GATHER_NAMES - {"barrier"})
    assert not others, (f"{where}: step() called {others}; ZeRO-2 moves the gradients with a reduce-scatter and the "
                        f"parameters with an all-gather (or broadcasts from their owners), and nothing else")
    assert comm["bytes_sent"] == comm["bytes_received"] == 0, (
        f"{where}: step() sent {comm['bytes_sent']} bytes point to point; use the collectives")
    rs_bytes = sum(comm["collective_bytes"].get(name, 0) for name in RS_NAMES)
    rs_in = sum(comm["elements_in"].get(name, 0) for name in RS_NAMES)
    gathered = sum(comm["collective_bytes"].get(name, 0) for name in GATHER_NAMES)
    assert 4 * psi <= rs_bytes <= 4 * padded and rs_in <= padded, (
        f"{where}: the reduce-scatters took {rs_bytes} bytes ({rs_in} elements) in; expected the {psi} fp32 gradient "
        f"elements once, padded to at most N·S = {padded} (between {4 * psi} and {4 * padded} bytes)")
    assert 4 * psi <= gathered <= 4 * padded, (
        f"{where}: the all-gathers (or broadcasts) moved {gathered} bytes; expected the {psi} fp32 parameters once, "
        f"padded to at most N·S = {padded} (between {4 * psi} and {4 * padded} bytes)")
    return rs_bytes, gathered


@check
def zero2_moves_reduce_scatter_and_all_gather(student):
    """Each step() of Zero2Optimizer reduce-scatters the gradients and all-gathers the parameters, no all-reduce and no
    point-to-point message: each moves the flat buffer once, Ψ to N·S fp32 elements (counted at the dispatcher); with
    group=, in shards of the group's size, and the group trains as one process on its batches."""
    # a tied weight, no frozen layer: flattening a frozen parameter is zero2_matches_adamw's mistake, not this cell's
    kind, world_size, steps = "tied-trainable", 3, 3
    psi = sum(p.numel() for p in trainable(kind))
    batches = [batch(kind, step) for step in range(steps)]
    results = student.launch("rank_zero2_comm", world_size, args=(None, kind, "AdamW", {"lr": 0.01}),
                             rank_args=[(share,) for share in shares(batches, world_size)], **LAUNCH)
    for rank, result in enumerate(results):
        assert isinstance(result, dict) and len(result.get("comm", [])) == steps, f"rank {rank}: not {steps} steps"
        for step, comm in enumerate(result["comm"]):
            rs_bytes, gathered = assert_zero2_comm(comm, psi, world_size, f"{world_size} ranks, rank {rank}, "
                                                                          f"step {step + 1}")
    wire = 2 * (world_size - 1) * 4 * -(-psi // world_size)
    print(f"{world_size} ranks, Ψ = {psi}: each step() reduce-scatters {rs_bytes} B and gathers {gathered} B, no "
          f"all-reduce: each rank sends 2(N-1)/N of them, {wire} B")
    groups, kind, steps = [[0, 2], [1, 3]], "mlp", 4
    psi = sum(p.numel() for p in trainable(kind))
    data = [[ranks.batch(kind, step, seed=BATCH_SEED + 1000 * (k + 1)) for step in range(steps)]
            for k in range(len(groups))]
    per_group = [shares(batches, len(members)) for batches, members in zip(data, groups)]
    # SGD shows a divisor other than the group's size, which AdamW would hide (issue 47.7)
    sgd = {"lr": 0.05, "momentum": 0.9}
    rank_args = [(groups, kind, "SGD", sgd, share) for share in spread_over_groups(groups, per_group)]
    results = student.launch("rank_zero2_comm", len(rank_args), rank_args=rank_args, **LAUNCH)
    for k, members in enumerate(groups):
        expected = ranks.train(kind, data[k], "SGD", sgd)["state"]
        for rank in members:
            where = f"4 ranks in groups {groups}, Zero2Optimizer(..., group=...), rank {rank}"
            state = rank_state(results[rank], expected, where)
            assert len(results[rank].get("comm", [])) == steps, f"{where}: not {steps} steps"
            for step, comm in enumerate(results[rank]["comm"]):
                assert_zero2_comm(comm, psi, len(members), f"{where}, step {step + 1} (shards of the group's size)")
            for name, want in expected.items():
                assert_tensor(state[name], want, rtol=1e-4, atol=1e-5, where=(
                    f"{where}: {name} is not one-process SGD on its group's batches (average over the group: divide by "
                    f"its size)"))
    print(f"groups {groups}: each group's step() moves its own 2 shards, and trains as one process on its batches")


def zero2_reference(kind, batches, kwargs):
    """One-process AdamW on the full batches: after each step, the flat averaged gradient it used, its flat state
    (exp_avg, exp_avg_sq) and the flat parameters after it."""
    model = ranks.make_net(kind)
    params = [p for p in dict.fromkeys(model.parameters()) if p.requires_grad]
    optimizer = torch.optim.AdamW(params, **kwargs)
    flat = lambda tensors: torch.cat([t.detach().flatten() for t in tensors])  # noqa: E731
    after = []
    for x, y in batches:
        optimizer.zero_grad()
        ranks.loss_of(kind, model, x, y).backward()
        grad = flat([p.grad for p in params])
        optimizer.step()
        after.append({"grad": grad, "exp_avg": flat([optimizer.state[p]["exp_avg"] for p in params]),
                      "exp_avg_sq": flat([optimizer.state[p]["exp_avg_sq"] for p in params]),
                      "parameters": flat(params)})
    return after


def assert_holds_one_shard(step_result, reference, t, rank, world_size, where):
    """After step t, rank `rank` holds no model gradient and one optimizer_cls tensor: its shard of S elements, equal
    to elements [rS, (r+1)S) of the parameters the rank gathered (the padding beyond Ψ is not judged), with that piece
    of the averaged gradient as .grad (in a storage of its own size) and AdamW's state for it; returns the bytes it
    holds. The shard is not compared with one process's parameters here: AdamW's first steps move an element by about
    lr * g / (|g| + eps), which a gradient near 0 turns from a rounding difference into 1e-4 (seen once in CI); the
    gradient and the state, smooth in g, are compared with one process, and the parameters in zero2_matches_adamw."""
    psi = reference["grad"].numel()
    s = -(-psi // world_size)
    lo, hi = min(rank * s, psi), min((rank + 1) * s, psi)
    grads = step_result["model_grads"]
    assert not grads, (f"{where}: after step(), the model's {sorted(grads)} still hold gradients "
                       f"({sum(grads.values())} bytes): ZeRO-2 keeps only the rank's averaged shard and frees the full "
                       f"gradients")
    held = step_result["held"]
    assert len(held) == 1, (f"{where}: the optimizer_cls instances hold {len(held)} tensors; expected one, the rank's "
                            f"shard of S = {s} elements")
    shard = held[0]
    value, grad, state = shard["value"], shard["grad"], shard["state"]
    assert type(value) is torch.Tensor and value.dtype == torch.float32 and tuple(value.shape) == (s,), (
        f"{where}: the optimizer_cls instance holds a {getattr(value, 'dtype', type(value).__name__)} tensor of shape "
        f"{tuple(getattr(value, 'shape', ()))}; expected the rank's shard, float32 of shape ({s},)")
    own = torch.cat([p.flatten() for p in step_result["parameters"]])
    assert torch.equal(value[: hi - lo], own[lo:hi]), (
        f"{where}: the shard is not elements [{lo}, {hi}) of the flat parameters the rank holds after this step")
    assert grad is not None and tuple(grad.shape) == (s,), (
        f"{where}: the shard's .grad is {None if grad is None else tuple(grad.shape)}; expected its averaged gradient, "
        f"shape ({s},)")
    assert_tensor(grad[: hi - lo], reference["grad"][lo:hi], rtol=1e-4, atol=1e-6,
                  where=f"{where}: the shard's .grad is not elements [{lo}, {hi}) of the gradient averaged over the "
                        f"ranks")
    assert shard["grad_storage"] <= 4 * s, (
        f"{where}: the shard's .grad lives in a storage of {shard['grad_storage']} bytes, more than its own {4 * s}: "
        f"a view of a full gradient keeps the whole gradient alive")
    for key in ("exp_avg", "exp_avg_sq"):
        got = state.get(key)
        assert type(got) is torch.Tensor and tuple(got.shape) == (s,), f"{where}: no AdamW {key} of shape ({s},)"
        assert_close(got[: hi - lo].double(), reference[key][lo:hi].double(), f"AdamW's {key} for the shard is not "
                     f"one process's for elements [{lo}, {hi}): the state was not kept, or not of these gradients",
                     where)
    count = state.get("step")
    assert type(count) is torch.Tensor and count.double().item() == t, (
        f"{where}: the optimizer's step count is {count}: its state must be kept from step to step")
    return sum(x.numel() * x.element_size() for x in [value, grad, *state.values()])


@check
def zero2_holds_one_shard(student):
    """After each step(), each rank holds one shard: no full gradient; its optimizer_cls instance holds one tensor of S
    = ceil(Ψ/N) elements, whose .grad is its piece of the averaged gradient and whose state is AdamW's for those
    elements; the grader also measures that about 16 bytes per owned element stay allocated, no more."""
    kwargs, kind = {"lr": 0.01}, "wide"
    batches = [batch(kind, step) for step in range(STATE_STEPS)]
    reference = zero2_reference(kind, batches, kwargs)
    psi = reference[0]["grad"].numel()
    for world_size in (4, 3):
        results = student.launch("rank_zero2_held", world_size, args=(kind, "AdamW", kwargs),
                                 rank_args=[(share,) for share in shares(batches, world_size)], **LAUNCH)
        assert all(isinstance(r, list) and len(r) == STATE_STEPS for r in results), (
            f"{world_size} ranks: a rank did not report its {STATE_STEPS} steps")
        for t in range(STATE_STEPS):
            for rank, result in enumerate(results):
                where = f"{world_size} ranks, Ψ = {psi}, rank {rank}, after step {t + 1}"
                held = assert_holds_one_shard(result[t], reference[t], t + 1, rank, world_size, where)
                kept = result[t]["kept_bytes"]
                assert kept <= 1.25 * held + 1024, (
                    f"{where}: step() left {kept} bytes allocated, its shard, gradient and state are {held}: a full "
                    f"gradient, flat buffer or optimizer state kept between steps is what ZeRO-2 does without")
                assert torch.equal(torch.cat([p.flatten() for p in result[t]["parameters"]]),
                                   torch.cat([p.flatten() for p in results[0][t]["parameters"]])), (
                    f"{where}: the rank's parameters differ from rank 0's: gather every shard after the step")
        s = -(-psi // world_size)
        print(f"{world_size} ranks: after each step each holds one shard of {s} of Ψ = {psi} elements, its averaged "
              f"gradient and AdamW's state for it ({16 * s} bytes; AdamW's state alone: {8 * psi}), no full gradient")


@check
def zero2_rejects_bad_input(student):
    """Zero2Optimizer raises ValueError naming the argument for params without a trainable tensor (empty, all frozen,
    not tensors) and for an optimizer_cls that is not a torch.optim.Optimizer class."""
    found = student.launch("rank_zero2_errors", 1, **LAUNCH)[0]
    assert isinstance(found, dict) and len(found) == 6, "rank_zero2_errors: not one verdict per case"
    for case, (raised, message) in found.items():
        argument = case.split(":")[0]
        assert raised == "ValueError", (f"Zero2Optimizer with {case}: raised {raised or 'nothing'} "
                                        f"{message!r}; expected ValueError")
        assert argument in message, f"Zero2Optimizer with {case}: the ValueError {message!r} must name `{argument}`"
    print(f"ValueError naming the argument for: {', '.join(found)}")
