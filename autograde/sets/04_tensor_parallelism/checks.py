"""Trusted checks of exercise set 04 (tensor parallelism): one per test cell, named by its grade_id.

Run by the grader, never in the sandbox: the weights, inputs, upstream gradients and targets are made here, and every
expected value is computed here (nn.Linear, the MLP and F.cross_entropy in one process; Table 2 as closed forms). The
student's code runs in the sandbox through `student` (autograde/sandbox.py), driven by the rank-side procedures of
ranks.py (next to this file), and only plain tensors come back.
"""
import contextlib
import math

import torch
import torch.nn.functional as F

from autograde import sets
from autograde.sets._common import (StudentError, assert_number, assert_raises, assert_tensor, check, draw_int,
                                    generator, statement_source)

from . import ranks  # rank_linear_from, for references

THIS_SET = __name__.split(".")[-2]  # this folder's name: autograde/sets/<THIS_SET>/checks.py
LAUNCH = sets.get(THIS_SET).launch.kwargs()  # the preset of set.toml, next to this file
# The statement's f and g, sent with each launch of the layers' checks (statement_source: never in the sandbox before)
F_AND_G = statement_source(THIS_SET, ["f_and_g"])
TOLERANCE = {"rtol": 1e-5, "atol": 1e-5}  # fp32: the ranks sum partial products in another order than one process


def randn(seed, *shape):
    """The notebook's `inputs(seed, *shape)`, drawn from this grading run's secret seed (a notebook cannot know it in
    advance): the same `seed` and shape give the same tensor within one run."""
    return torch.randn(*shape, generator=generator(f"04 inputs {seed} {shape}"))


def targets(seed, tokens, vocab):
    """Vocabulary ids, drawn from this grading run's secret seed."""
    return torch.randint(0, vocab, (tokens,), generator=generator(f"04 targets {seed} {tokens} {vocab}"))


def group_of(rank, tp):
    """The global ranks of `rank`'s tensor-parallel group (groups of `tp` consecutive ranks)."""
    first = rank // tp * tp
    return range(first, first + tp)


@contextlib.contextmanager
def naming(what):
    """A StudentError raised inside says `what` was being run first."""
    try:
        yield
    except StudentError as error:
        raise StudentError(error.type_names, f"{what}: {error.message}", error.traceback, error.output) from None


def launch_cases(student, name, world_size, cases, what):
    """One launch of the rank-side procedure `name` on `world_size` ranks for several cases, each (its arguments,
    a tuple of arguments per rank or None); per case, the list of the ranks' results. `what` names the cases."""
    shared = [args for args, _ in cases]
    mine = [[per_rank[rank] if per_rank else () for _, per_rank in cases] for rank in range(world_size)]
    with naming(what):
        results = student.launch("rank_cases", world_size, args=(name, shared), rank_args=[(m,) for m in mine],
                                 **LAUNCH)
    return [[results[rank][i] for rank in range(world_size)] for i in range(len(cases))]


# --- what each operator moves (counted in the rank by distlab.count_comm, at the dispatcher) ------------------------

def assert_moves(got, forward, backward, where):
    """The rank moved at most `forward` elements in its forward pass and `backward` in its backward (handed in to
    collectives, whatever their name; a barrier is free), and nothing point to point. The values alone cannot show
    an extra collective: by the convention, what a second one would combine is the same on every rank."""
    for phase, (limit, moved) in zip(("forward", "backward"), zip((forward, backward), got["moved"], strict=True)):
        what = f"{where}: the {phase} pass"
        assert moved["p2p_bytes"] == 0, f"{what} sent {moved['p2p_bytes']} bytes point to point; use collectives"
        if limit == 0:
            assert moved["elements"] == 0, (f"{what} handed {moved['elements']} elements to collectives; it must move "
                                            f"nothing (see the table of the statement)")
        else:
            assert moved["elements"] <= limit, (f"{what} handed {moved['elements']} elements to collectives, more "
                                                f"than the one all-reduce or all-gather it needs ({limit})")


# --- Part 1: f and g ----------------------------------------------------------------------------------------------

def check_f(student, world_size, cases):
    """f on `world_size` ranks, one launch for all (groups of tp, seed) cases: identity forward, each rank's x.grad
    the sum of its group's upstream gradients."""
    made = {seed: (randn(seed, 3, 5), [randn(seed + 1 + rank, 3, 5) for rank in range(world_size)])  # x, upstreams
            for _, seed in cases}
    launches = [((tp, made[seed][0]), [(u,) for u in made[seed][1]]) for tp, seed in cases]
    results = launch_cases(student, "rank_f", world_size, launches, f"f on {world_size} ranks")
    for (tp, seed), got in zip(cases, results, strict=True):
        x, upstream = made[seed]
        for rank, result in enumerate(got):
            where, members = f"{world_size} ranks, TP groups of {tp}, rank {rank}", group_of(rank, tp)
            assert_tensor(result["y"], x, **TOLERANCE, where=f"{where}: f's forward output (its input, unchanged)")
            assert_tensor(result["x_grad"], torch.stack([upstream[k] for k in members]).sum(0), **TOLERANCE,
                          where=f"{where}: x.grad after f's backward (the sum of the upstream gradients of ranks "
                                f"{members[0]}..{members[-1]})")
            assert_moves(result, 0, x.numel(), f"{where}: f")
        print(f"{world_size} ranks, groups of {tp}: f is the identity forward and sums the gradients backward")


@check
def copy_to_tp_region_forward_backward(student):
    """f: the forward pass returns the input unchanged; backward, each rank's input gradient is the sum over its
    group."""
    check_f(student, 2, [(2, 0)])
    check_f(student, 4, [(4, 3), (2, 5)])


def g_inputs(world_size, tp, seed):
    """Each rank's partial sum, and the upstream gradients (the same on every rank of a group)."""
    return ([randn(seed + rank, 4, 3) for rank in range(world_size)],
            [randn(seed + 100 + rank // tp, 4, 3) for rank in range(world_size)])


def check_g(student, world_size, cases):
    """g on `world_size` ranks, one launch for all (groups of tp, seed) cases: the group's sum forward, the gradient
    as is backward, the input left as it was."""
    made = [g_inputs(world_size, tp, seed) for tp, seed in cases]
    launches = [((tp,), list(zip(*inputs))) for (tp, _), inputs in zip(cases, made)]
    results = launch_cases(student, "rank_g", world_size, launches, f"g on {world_size} ranks")
    for (tp, _), (partial, upstream), got in zip(cases, made, results, strict=True):
        for rank, result in enumerate(got):
            where = f"{world_size} ranks, groups of {tp}, rank {rank}"
            assert_tensor(result["x_after"], partial[rank], exact=True, where=f"{where}: g's input after the call "
                          "(g must not change its input in place: reduce a copy)")
            assert_tensor(result["y"], torch.stack([partial[k] for k in group_of(rank, tp)]).sum(0), **TOLERANCE,
                          where=f"{where}: g's forward output (the group's sum)")
            assert_tensor(result["x_grad"], upstream[rank], **TOLERANCE, where=f"{where}: x.grad after g's backward "
                          "(the upstream gradient itself: it is already the same on every rank)")
            assert_moves(result, partial[rank].numel(), 0, f"{where}: g")
        print(f"{world_size} ranks, groups of {tp}: g sums forward and passes the gradient through backward")


@check
def reduce_from_tp_region_forward_backward(student):
    """g: the forward pass sums the ranks' partial tensors over the group; backward passes the gradient through as
    is."""
    check_g(student, 2, [(2, 0)])
    check_g(student, 4, [(4, 7), (2, 9)])


# --- Part 2: column- and row-parallel linear layers ---------------------------------------------------------------

def linear_reference(seed, in_f, out_f, bias, lead):
    """The full layer's weight and bias, input and upstream gradient, and what nn.Linear makes of them in one process:
    (weight, bias, x, upstream, y, x.grad, weight.grad, bias.grad)."""
    weight, full_bias = randn(seed, out_f, in_f) / math.sqrt(in_f), randn(seed + 1, out_f) if bias else None
    linear = ranks.rank_linear_from(weight, full_bias)
    x, upstream = randn(seed + 2, *lead, in_f), randn(seed + 3, *lead, out_f)
    xx = x.clone().requires_grad_()
    y = linear(xx)
    (y * upstream).sum().backward()
    return weight, full_bias, x, upstream, y.detach(), xx.grad, linear.weight.grad, linear.bias.grad if bias else None


def block(t, tp, rank, dim=-1):
    """`rank`'s block of `t` along `dim` in its group of `tp`."""
    return t.chunk(tp, dim=dim)[rank % tp]


def linear_launch(kind, flag, world_size, tp, reference):
    """The launch arguments of one case: the full weight and bias for every rank, then each rank's input (full, or
    its block for a row layer on a parallel input) and upstream gradient (its block for a column layer's block)."""
    weight, bias, x, upstream = reference[:4]
    x_blocks, upstream_blocks = kind == "row" and flag, kind == "column" and not flag
    per_rank = [(block(x, tp, r) if x_blocks else x, block(upstream, tp, r) if upstream_blocks else upstream)
                for r in range(world_size)]
    return (kind, tp, flag, weight, bias, F_AND_G), per_rank


def verify_linear(kind, flag, world_size, case, reference, results):
    """Each rank's registered parameters, output, x.grad and parameter gradients against nn.Linear's."""
    tp, in_f, out_f, bias = case[:4]
    y, x_grad, w_grad, b_grad = reference[4:]
    option = {"column": "gather_output", "row": "input_is_parallel"}[kind] + f"={flag}"
    for rank, got in enumerate(results):
        where = f"{kind} layer, {option}, {in_f}->{out_f}, {world_size} ranks in groups of {tp}, rank {rank}"
        names = ["bias", "weight"] if bias else ["weight"]
        assert got["names"] == names, f"{where}: registered parameters {got['names']}, expected {names}"
        assert_tensor(got["y"], block(y, tp, rank) if kind == "column" and not flag else y, **TOLERANCE,
                      where=f"{where}: forward output")
        assert_tensor(got["x_grad"], block(x_grad, tp, rank) if kind == "row" and flag else x_grad, **TOLERANCE,
                      where=f"{where}: x.grad")
        assert_tensor(got["weight_grad"], block(w_grad, tp, rank, 0 if kind == "column" else 1), **TOLERANCE,
                      where=f"{where}: weight.grad (this rank's block of the full one)")
        if bias:
            assert_tensor(got["bias_grad"], block(b_grad, tp, rank) if kind == "column" else b_grad, **TOLERANCE,
                          where=f"{where}: bias.grad")
        x_size, y_size = x_grad.numel(), y.numel()
        forward, backward = {("column", False): (0, x_size), ("column", True): (y_size // tp, x_size),
                             ("row", True): (y_size, 0), ("row", False): (y_size, x_size // tp)}[kind, flag]
        assert_moves(got, forward, backward, where)
    print(f"{kind}, {option}: {world_size} ranks in groups of {tp} match nn.Linear (output, x.grad, weight.grad)")


def check_linear(student, kind, flag, world_size, cases):
    """The student's `kind` layer on `world_size` ranks against nn.Linear, one launch for all cases, each (groups of
    tp, in_features, out_features, bias, seed, leading dimensions of the input)."""
    references = [linear_reference(seed, in_f, out_f, bias, lead) for _, in_f, out_f, bias, seed, lead in cases]
    launches = [linear_launch(kind, flag, world_size, case[0], ref) for case, ref in zip(cases, references)]
    results = launch_cases(student, "rank_linear", world_size, launches, f"{kind} layers on {world_size} ranks")
    for case, reference, got in zip(cases, references, results, strict=True):
        verify_linear(kind, flag, world_size, case, reference, got)


@check(last=True)  # hands over the statement's f and g: after every check of the learner's
def column_parallel_matches_linear(student):
    """ColumnParallelLinear (block output): each rank's output, x.grad (full) and parameter grads (its block) are
    right."""
    check_linear(student, "column", False, 2, [(2, 6, 8, True, 0, (4,))])
    check_linear(student, "column", False, 4, [(4, 5, 12, True, 11, (2, 3)), (2, 6, 4, False, 12, (4,))])


@check(last=True)  # hands over the statement's f and g: after every check of the learner's
def column_parallel_gather_output_backward(student):
    """ColumnParallelLinear(gather_output=True): the full output on every rank; its backward keeps this rank's
    block."""
    check_linear(student, "column", True, 2, [(2, 6, 8, True, 0, (4,))])
    check_linear(student, "column", True, 4, [(4, 3, 8, True, 13, (2, 5)), (2, 7, 6, False, 14, (4,))])


@check(last=True)  # hands over the statement's f and g: after every check of the learner's
def row_parallel_matches_linear(student):
    """RowParallelLinear on this rank's block of the input: the full output with the bias once, and every gradient
    right."""
    check_linear(student, "row", True, 2, [(2, 8, 6, True, 0, (4,))])
    check_linear(student, "row", True, 4, [(4, 12, 5, True, 15, (2, 3)), (2, 6, 3, False, 16, (4,))])


@check(last=True)  # hands over the statement's f and g: after every check of the learner's
def row_parallel_splits_full_input(student):
    """RowParallelLinear(input_is_parallel=False) splits the full input itself; x.grad is the full gradient
    everywhere."""
    check_linear(student, "row", False, 2, [(2, 8, 6, True, 0, (4,))])
    check_linear(student, "row", False, 4, [(4, 8, 3, True, 17, (3, 2)), (2, 10, 4, True, 18, (4,))])


@check
def parallel_linear_rejects_indivisible(student):
    """Both layers raise ValueError (with a message) when the dimension they split is not divisible by the group's
    size."""
    layers = {"column": "ColumnParallelLinear", "row": "RowParallelLinear"}
    for world_size, cases in [(2, [("column", 2, 4, 5), ("row", 2, 5, 4)]),
                              (4, [("column", 4, 8, 6), ("row", 2, 7, 8)])]:
        results = launch_cases(student, "rank_rejects", world_size, [(case, None) for case in cases],
                               f"from_linear on {world_size} ranks")
        for (kind, tp, in_f, out_f), got in zip(cases, results, strict=True):
            where = f"{layers[kind]}.from_linear(nn.Linear({in_f}, {out_f})), {world_size} ranks in groups of {tp}"
            for rank, raised in enumerate(got):
                assert raised is not None, f"{where}, rank {rank}: no ValueError"
                assert "ValueError" in raised["type_names"], (f"{where}, rank {rank}: raised "
                                                              f"{raised['type_names'][0]}: {raised['message']}; "
                                                              "expected ValueError")
                assert raised["message"].strip(), f"{where}, rank {rank}: the ValueError has no message"
    print("5 output (column) or input (row) features on 2 ranks, 6 on 4, 7 on groups of 2: refused")


def mlp_reference(seed, dim, lead):
    """The MLP's weights, input and upstream gradient, and its output and gradients in one process."""
    weights = [randn(seed, 4 * dim, dim) / math.sqrt(dim), randn(seed + 1, 4 * dim),
               randn(seed + 10, dim, 4 * dim) / math.sqrt(4 * dim), randn(seed + 11, dim)]
    up, down = ranks.rank_linear_from(*weights[:2]), ranks.rank_linear_from(*weights[2:])
    x, upstream = randn(seed + 20, *lead, dim), randn(seed + 21, *lead, dim)
    xx = x.clone().requires_grad_()
    y = down(F.gelu(up(xx)))
    (y * upstream).sum().backward()
    grads = {"output": y.detach(), "x.grad": xx.grad, "up.weight.grad": up.weight.grad, "up.bias.grad": up.bias.grad,
             "down.weight.grad": down.weight.grad, "down.bias.grad": down.bias.grad}
    return (*weights, x, upstream), grads


def check_mlp(student, world_size, cases):
    """column, GeLU, row on `world_size` ranks, one launch for all (groups of tp, seed, dim, leading dims) cases."""
    references = [mlp_reference(seed, dim, lead) for _, seed, dim, lead in cases]
    launches = [((tp, *args), None) for (tp, *_), (args, _) in zip(cases, references)]
    results = launch_cases(student, "rank_mlp", world_size, launches, f"the MLP on {world_size} ranks")
    split = {"up.weight.grad": 0, "up.bias.grad": 0, "down.weight.grad": 1}  # the rest is whole on every rank
    for (tp, *_), (_, full), got in zip(cases, references, results, strict=True):
        for rank, result in enumerate(got):
            for name, want in full.items():
                assert_tensor(result[name], block(want, tp, rank, split[name]) if name in split else want,
                              **TOLERANCE, where=f"MLP on {world_size} ranks in groups of {tp}, rank {rank}: {name}")
        print(f"MLP on {world_size} ranks in groups of {tp}: output and every gradient match one process")


@check
def tp_mlp_matches_single_process(student):
    """A tensor-parallel MLP (column, GeLU, row: nothing sent in between) matches one process: output and every
    gradient."""
    check_mlp(student, 2, [(2, 0, 8, (2, 3))])
    check_mlp(student, 4, [(4, 21, 8, (2, 3)), (2, 22, 6, (5,))])


# --- Part 3: cross-entropy over a sharded vocabulary --------------------------------------------------------------

def vocab_case(widths, tokens=6, seed=0, ignored=(), ignore_index=-100, scale=3.0, shift=0.0):
    """Full logits, targets (`ignored` positions set to ignore_index), and F.cross_entropy's loss and gradient."""
    vocab = sum(widths)
    logits = (randn(seed, tokens, vocab) * scale + shift).requires_grad_()
    target = targets(seed, tokens, vocab)
    target[list(ignored)] = ignore_index
    loss = F.cross_entropy(logits, target, ignore_index=ignore_index)
    loss.backward()
    return logits.detach(), target, loss.detach(), logits.grad


def vocab_launch(widths, logits, target, ignore_index):
    """The launch arguments of one case: the targets for every rank, each rank only its block of the logits."""
    return (target, ignore_index), [(shard.clone(),) for shard in logits.split(widths, dim=1)]


def describe_vocab_case(widths, tokens=6, seed=0, ignored=(), ignore_index=-100, scale=3.0, shift=0.0):
    """How a message names a case of vocab_case's arguments."""
    where = f"vocabulary split {widths}, {tokens} tokens, {len(ignored)} ignored (ignore_index={ignore_index})"
    return where + (f", logits around {shift:g}" if shift else "")


def check_vocab_ce(student, *cases):
    """vocab_parallel_cross_entropy against F.cross_entropy for each case (vocab_case's arguments), one launch per
    world size: the loss on every rank, and each shard's gradient."""
    for world_size in dict.fromkeys(len(case["widths"]) for case in cases):
        same = [case for case in cases if len(case["widths"]) == world_size]
        made = [vocab_case(**case) for case in same]
        launches = [vocab_launch(case["widths"], logits, target, case.get("ignore_index", -100))
                    for case, (logits, target, _, _) in zip(same, made)]
        results = launch_cases(student, "rank_vocab_ce", world_size, launches,
                               f"vocab_parallel_cross_entropy on {world_size} ranks")
        for case, (_, _, want, grad), got in zip(same, made, results, strict=True):
            where = describe_vocab_case(**case)
            for rank, result in enumerate(got):
                assert_tensor(result["loss"], want, **TOLERANCE, where=f"{where}, rank {rank}: loss (a 0-dim tensor)")
                assert_tensor(result["grad"], grad.split(case["widths"], dim=1)[rank], **TOLERANCE,
                              where=f"{where}, rank {rank}: gradient of its shard")
            print(f"{where}: loss {want.item():.4f} and gradients match F.cross_entropy on every rank")


@check
def vocab_parallel_ce_matches_cross_entropy(student):
    """vocab_parallel_cross_entropy on equal shards: the loss (on every rank) and each shard's gradient are right."""
    check_vocab_ce(student, {"widths": [5, 5]}, {"widths": [8, 8, 8, 8], "tokens": 10, "seed": 31},
                   {"widths": [16, 16], "tokens": 1, "seed": 32})


@check
def vocab_parallel_ce_uneven_shards(student):
    """vocab_parallel_cross_entropy on uneven shards (3 ranks, an odd vocabulary): each rank finds its own offset."""
    check_vocab_ce(student, {"widths": [4, 3, 4], "seed": 1}, {"widths": [2, 9, 6], "tokens": 12, "seed": 33},
                   {"widths": [7, 1, 5, 3], "tokens": 9, "seed": 34})


@check
def vocab_parallel_ce_ignore_index(student):
    """vocab_parallel_cross_entropy skips ignore_index targets in the loss and in the mean; all ignored gives nan."""
    check_vocab_ce(student, {"widths": [5, 5], "tokens": 8, "seed": 2, "ignored": [1, 6]},
                   {"widths": [4, 6, 5], "tokens": 10, "seed": 35, "ignored": [0, 3, 4, 9], "ignore_index": -1},
                   {"widths": [6, 6, 6, 6], "tokens": 7, "seed": 36, "ignored": [2], "ignore_index": 0})
    launch = vocab_launch([3, 3], randn(0, 3, 6) * 3, torch.full((3,), -100), -100)
    (results,) = launch_cases(student, "rank_vocab_ce", 2, [launch], "every target ignored")
    for rank, got in enumerate(results):
        loss = got["loss"]
        assert type(loss) is torch.Tensor and loss.dim() == 0, f"every target ignored, rank {rank}: not a 0-dim tensor"
        assert loss.isnan(), f"every target ignored, rank {rank}: F.cross_entropy gives nan, got {loss}"
    print("every target ignored: nan, like F.cross_entropy")


@check
def vocab_parallel_ce_large_logits(student):
    """vocab_parallel_cross_entropy is numerically stable: logits in the thousands give the same loss and
    gradients."""
    check_vocab_ce(student, {"widths": [5, 5], "seed": 3, "scale": 30.0, "shift": 2000.0},
                   {"widths": [3, 5, 4], "tokens": 9, "seed": 37, "scale": 50.0, "shift": -3000.0},
                   {"widths": [8, 8], "tokens": 5, "seed": 38, "scale": 1.0, "shift": 500.0})


# Loopback bytes of one launch (read by the grader from the sandbox's kernel: every rank's gloo traffic, TCP/IP headers
# included) beyond what the lesson's rule counts: gloo connects every pair of ranks the first time they talk, about
# 10 KB a pair with headers. Measured for the reference solution (one forward and backward, its first in the launch):
# 10.4-10.7 KB in all for 32 tokens on 2 ranks ([512, 512]: 128 KB of logits), 65-66 KB for 64 tokens on 4 ranks
# ([1000, 1500, 1200, 900]: 1.18 MB of logits); a variant that gathers per-token log-sum-exps in float64 8.2 KB and
# 55 KB; gathering the full logits instead moves 135 KB and 4.6 MB. The rule: what the ranks send, less
# LOOPBACK_BYTES_PER_PAIR for each pair of ranks, is under 1/8 of the bytes of all the shards of logits.
LOOPBACK_BYTES_PER_PAIR = 12_000


def check_bytes(student, tokens, widths, seed):
    """One forward and backward on `widths`: the loss is F.cross_entropy's on every rank, and the bytes on the wire
    are a few per token (a loss that moved nothing, e.g. `shard.sum() * 0`, fails here, not only in the other
    vocabulary checks)."""
    shards = [randn(seed + rank, tokens, width) for rank, width in enumerate(widths)]
    target = targets(seed, tokens, sum(widths))
    where = f"{tokens} tokens, vocabulary split {widths}"
    with naming(where):
        losses, sent = student.launch("rank_vocab_ce_loss", len(widths), args=(target,),
                                      rank_args=[(shard,) for shard in shards], count_loopback=True, **LAUNCH)
    want = F.cross_entropy(torch.cat(shards, dim=1), target)
    for rank, loss in enumerate(losses):
        assert type(loss) is torch.Tensor and loss.dim() == 0, f"{where}, rank {rank}: the loss is not a 0-dim tensor"
        assert_tensor(loss, want, **TOLERANCE, where=f"{where}, rank {rank}: loss")
    logits_bytes = sum(shard.nbytes for shard in shards)
    connecting = LOOPBACK_BYTES_PER_PAIR * len(widths) * (len(widths) - 1) // 2
    assert sent - connecting < logits_bytes / 8, (
        f"{where}: the ranks sent {sent} bytes in all for one forward and backward (read from the sandbox's network, "
        f"not counted by the ranks); beyond the {connecting} allowed for connecting the ranks, that is "
        f"{sent - connecting}, not under 1/8 of the {logits_bytes} bytes of the shards of logits "
        f"({logits_bytes // 8}): only a few numbers per token should cross ranks")
    print(f"{where}: {sent} bytes on the wire in all, {logits_bytes} bytes of logits in the shards")


@check
def vocab_parallel_ce_moves_per_token_bytes(student):
    """vocab_parallel_cross_entropy moves a few numbers per token: one forward and backward send less than 1/8 of the
    bytes of the shards of logits (here each rank's bytes written, from distlab.count_bytes_written; at grading all
    ranks' bytes, read from the sandbox's loopback)."""
    check_bytes(student, 32, [512, 512], seed=0)
    check_bytes(student, 64, [1150, 1150, 1150, 1150], seed=39)  # equal shards: uneven ones are another cell's


# --- Part 4: activation memory per layer --------------------------------------------------------------------------

def memory_cases():
    """(args, kwargs, bytes) of Korthikanti et al. 2022, Table 2, written out for each case."""
    tiny, sbh = (64, 2, 32, 4), 64 * 2 * 32  # the lesson's tiny model: s=64, b=2, h=32, a=4
    s, b, h, a, t = 1024, 3, 2560, 40, 4
    return [(tiny, {}, sbh * (34 + 5 * 4 * 64 / 32)),
            (tiny, {"t": 2}, sbh * (10 + 24 / 2 + 5 * 4 * 64 / (32 * 2))),
            (tiny, {"t": 2, "sequence_parallel": True}, sbh * (34 / 2 + 5 * 4 * 64 / (32 * 2))),
            (tiny, {"t": 2, "recompute": "selective"}, sbh * (10 + 24 / 2)),
            (tiny, {"t": 2, "sequence_parallel": True, "recompute": "selective"}, sbh * 34 / 2),
            (tiny, {"t": 2, "recompute": "full"}, 2 * sbh),
            (tiny, {"t": 2, "sequence_parallel": True, "recompute": "full"}, 2 * sbh / 2),
            (tiny, {"t": 1, "sequence_parallel": True}, sbh * (34 + 5 * 4 * 64 / 32)),
            (tiny, {"t": 1, "sequence_parallel": True, "recompute": "full"}, 2 * sbh),
            ((s, b, h, a, t), {}, s * b * h * (10 + 24 / t + 5 * a * s / (h * t))),
            ((s, b, h, a, t), {"sequence_parallel": True}, s * b * h * (34 / t + 5 * a * s / (h * t))),
            ((s, b, h, a), {"recompute": "selective"}, s * b * h * 34),
            ((s, b, h, a, 1), {}, s * b * h * (34 + 5 * a * s / h)),
            ((7, 5, 6, 3, 3, True, "full"), {}, 2 * 7 * 5 * 6 / 3)]


def table_2(s, b, h, a, t, sequence_parallel, recompute):
    """Korthikanti et al. 2022, Table 2: a layer's bytes of activations, the row of (sequence_parallel, recompute)."""
    sbh, attention_core = s * b * h, 5 * a * s / (h * t)
    rows = {(False, "none"): sbh * (10 + 24 / t + attention_core), (True, "none"): sbh * (34 / t + attention_core),
            (False, "selective"): sbh * (10 + 24 / t), (True, "selective"): sbh * 34 / t,
            (False, "full"): 2 * sbh, (True, "full"): 2 * sbh / t}
    return rows[sequence_parallel, recompute]


def integers(label):
    """number(low, high): integers from low to high included, drawn from this grading run's secret seed and `label`."""
    draw = generator(label)
    return lambda low, high: draw_int(draw, low, high)


def drawn_model():
    """(s, b, h, a, t) drawn from this grading run's secret seed, t dividing a and h (a notebook cannot know it)."""
    number = integers("04 activation memory model")
    t = 2 ** number(0, 3)
    a = t * number(1, 8)
    return number(16, 4096), number(1, 16), a * number(8, 128), a, t


@check
def activation_memory_matches_formula(student):
    """activation_memory_per_layer gives Table 2's bytes for every row, on the lesson's tiny model and a larger
    one."""
    s, b, h, a, t = drawn_model()
    drawn = [((s, b, h, a, t), {"sequence_parallel": sp, "recompute": recompute}, table_2(s, b, h, a, t, sp, recompute))
             for sp in (False, True) for recompute in ("none", "selective", "full")]
    for args, kwargs, expected in memory_cases() + drawn:
        got = student.call("activation_memory_per_layer", *args, **kwargs)  # numpy, Fraction: sent back as numbers
        shown = ", ".join([*map(repr, args), *(f"{k}={v!r}" for k, v in kwargs.items())])
        assert_number(got, expected, where=f"activation_memory_per_layer({shown})")
    print("tiny model, s=1024, b=3, h=2560, a=40 and one more model: every row of Table 2")


@check
def activation_memory_rejects_bad_input(student):
    """activation_memory_per_layer raises ValueError for non-positive sizes, t not dividing a or h, or a bad
    recompute."""
    for args, kwargs in [((64, 2, 32, 4), {"t": 3}), ((64, 2, 32, 4), {"recompute": "some"}),
                         ((0, 2, 32, 4), {}), ((64, -1, 32, 4), {}), ((64, 2, 0, 4), {}), ((64, 2, 32, 0), {}),
                         ((64, 2, 32, 4), {"t": 0}),
                         ((64, 2, 36, 8), {"t": 8}),  # t divides a, not h
                         ((64, 2, 32, 6), {"t": 4}),  # t divides h, not a
                         ((64, 2, 32, 4), {"recompute": None})]:
        assert_raises(student, ValueError, "activation_memory_per_layer", *args, **kwargs)
    print("rejects non-positive sizes, t not dividing a or h, and an unknown recompute")


# --- Part 5: a Llama layer, counted the same way -------------------------------------------------------------------

def llama_count(s, b, h, a, a_kv, f, t=1, sequence_parallel=False, recompute="none"):
    """The statement's rules, tensor by tensor (bytes): norms' and column layers' inputs whole on every TP rank (split
    along s with SP); Q, K and V at their own widths, the output projection's input, the softmax's output and the
    four MLP tensors divided by t."""
    sbh, whole = s * b * h, t if sequence_parallel else 1
    if recompute == "full":
        return 2 * sbh / whole
    kept_whole = {"norm inputs": 2 * 2 * sbh, "QKV input": 2 * sbh, "gate/up input": 2 * sbh}
    split = {"Q": 2 * sbh, "K": 2 * sbh * a_kv / a, "V": 2 * sbh * a_kv / a, "output projection input": 2 * sbh,
             "softmax output": 0 if recompute == "selective" else 2 * a * s * s * b,
             "gate output": 2 * s * b * f, "SiLU output": 2 * s * b * f, "up output": 2 * s * b * f,
             "product": 2 * s * b * f}
    return sum(kept_whole.values()) / whole + sum(split.values()) / t


LLAMA_LAYERS = {"Llama-3-8B": (4096, 32, 8, 14336), "Llama-3-70B": (8192, 64, 8, 28672),
                "Llama-2-7B": (4096, 32, 32, 11008)}  # h, a, a_kv, f (the models' config.json)


def llama_cases():
    """(args, kwargs) of the published layers at s=8192, b=1 under TP 1 and 8, and of a layer drawn per grading."""
    cases = [((8192, 1, h, a, a_kv, f), {"t": t, "sequence_parallel": sp, "recompute": recompute})
             for h, a, a_kv, f in LLAMA_LAYERS.values() for t in (1, 8) for sp in ((False, True) if t > 1 else (False,))
             for recompute in ("none", "selective", "full")]
    number = integers("04 llama activation memory")
    t = 2 ** number(0, 2)
    a_kv = t * number(1, 4)
    a, f = a_kv * number(1, 4), t * number(8, 512)
    drawn = (number(16, 2048), number(1, 8), a * number(4, 64), a, a_kv, f)
    return cases + [(drawn, {"t": t, "sequence_parallel": sp, "recompute": recompute})
                    for sp in (False, True) for recompute in ("none", "selective", "full")]


@check
def llama_activation_memory_matches_count(student):
    """llama_activation_memory_per_layer counts a Llama layer by the statement's rules: GQA's narrower K and V, the
    SwiGLU MLP's four tensors, the softmax, under TP, SP and both recomputations."""
    for args, kwargs in llama_cases():
        got = student.call("llama_activation_memory_per_layer", *args, **kwargs)
        shown = ", ".join([*map(repr, args), *(f"{k}={v!r}" for k, v in kwargs.items())])
        assert_number(got, llama_count(*args, **kwargs), where=f"llama_activation_memory_per_layer({shown})")
    print(f"Llama-3-8B, Llama-3-70B, Llama-2-7B and a layer drawn per grading, TP 1 and 8, with and without SP, every "
          f"recompute: the count")


@check
def llama_activation_memory_rejects_bad_input(student):
    """llama_activation_memory_per_layer raises ValueError for bad sizes, a_kv not dividing a, t not dividing a_kv or f,
    or an unknown recompute."""
    good = (8, 1, 16, 4, 2, 32)
    bad = [(good, {"t": 4}), ((8, 1, 16, 4, 3, 32), {}), ((8, 1, 16, 4, 2, 30), {"t": 4}),
           ((8, 1, 16, 4, 4, 30), {"t": 4}), (good, {"recompute": "all"}), (good, {"t": 0})]
    for index in range(len(good)):
        bad.append((good[:index] + (0,) + good[index + 1:], {}))
    for args, kwargs in bad:
        assert_raises(student, ValueError, "llama_activation_memory_per_layer", *args, **kwargs)
    print(f"{len(bad)} bad inputs rejected")


# --- Part 6: ring attention's merge and the zig-zag layout (pure functions: called, nothing launched) ---------------

MERGE_TOLERANCE = {torch.float32: 1e-5, torch.float64: 1e-12}  # rtol and atol: a few roundings of o, lse in each
MERGE_NAMES = ("o1", "lse1", "o2", "lse2")


def attention_part(scores, v, keys):
    """Softmax attention (float64) over the keys where `keys` is True, as (o, lse): o normalised, lse the row's
    log-sum-exp of the scores; a row with no key is (0, -inf)."""
    s = scores.masked_fill(~keys, -math.inf)
    lse = torch.logsumexp(s, -1)
    p = torch.where(keys, torch.exp(s - lse[..., None]), 0.0)
    return p @ v, lse


def merge_case(label, lead, q, k, d, empty_rows=0.0, level=0):
    """Scores [*lead, q, k] and values [*lead, k, d] (float64) and a random split of the k keys into two disjoint
    parts, drawn from this grading run's seed. The second part's scores are shifted far from the first's (up to
    +-40), so that a merge that does not weigh each part by its share exp(lse_i - lse) is far off, and every score is
    raised by `level` (in the hundreds: exp(lse) overflows float64, so a merge that adds exp(lse_i) is infinite);
    each key is masked out of its row with probability 0.3 (a causal-like mask). With `empty_rows`, that fraction of
    rows loses every key of part 1, of part 2, or of both."""
    draw = generator(f"04 ring merge {label}")
    scores = 3 * torch.randn(*lead, q, k, generator=draw, dtype=torch.float64)
    v = torch.randn(*lead, k, d, generator=draw, dtype=torch.float64)
    scores, v = scores.float().double(), v.float().double()  # float32 numbers
    in_first = torch.rand(k, generator=draw) < 0.5
    in_first[0], in_first[-1] = True, False  # both parts hold keys
    scores[..., ~in_first] += round(80 * (float(torch.rand(1, generator=draw)) - 0.5))
    scores += level
    keys = torch.rand(*lead, q, k, generator=draw) > 0.3
    keys[..., 0], keys[..., -1] = True, True  # every row has a key in each part
    if empty_rows:
        kind = torch.randint(0, 3, (*lead, q), generator=draw)
        hit = torch.rand(*lead, q, generator=draw) < empty_rows
        keys &= ~(hit & (kind != 1))[..., None] | ~in_first  # kind 0 or 2: no key of part 1
        keys &= ~(hit & (kind != 0))[..., None] | in_first  # kind 1 or 2: no key of part 2
    return scores, v, keys, in_first


def check_merge(student, cases):
    """For each (label, lead, q, k, d, empty_rows, level, dtype): merge_partial_attention of the two parts (in
    `dtype`) against attention over all the keys computed directly (float64, then cast), and its inputs left
    unchanged."""
    for label, lead, q, k, d, empty_rows, level, dtype in cases:
        scores, v, keys, in_first = merge_case(label, lead, q, k, d, empty_rows, level)
        parts = [t.to(dtype) for t in (*attention_part(scores, v, keys & in_first),
                                       *attention_part(scores, v, keys & ~in_first))]
        shown = (f"merge_partial_attention of two parts of {k} keys ({dtype}, o of shape {tuple(parts[0].shape)}"
                 f"{', rows with no key in a part or in either' if empty_rows else ''}"
                 f"{f', scores raised by {level}' if level else ''})")
        with naming(shown):
            got = student.call("merge_and_inputs", *parts)
        result = got["result"]
        assert isinstance(result, (list, tuple)) and len(result) == 2, (  # a list is as good as a tuple (course rule)
            f"{shown}: returned {type(result).__name__}, expected (o, lse): two tensors, as a tuple or a list")
        for name, unchanged in zip(MERGE_NAMES, got["unchanged"]):
            assert unchanged, f"{shown}: the input {name} changed (return new tensors; leave the inputs as they are)"
        assert not any(got["aliases"]), f"{shown}: a returned tensor is one of the inputs (return new tensors)"
        tolerance = MERGE_TOLERANCE[dtype]
        for name, g, want in zip(("o", "lse"), result, attention_part(scores, v, keys)):
            if isinstance(g, torch.Tensor) and g.is_floating_point() and g.isnan().any():
                rows = g.isnan().reshape(-1, *g.shape[len(lead) + 1:]).flatten(1).any(1).nonzero().flatten()[:5]
                raise AssertionError(f"{shown}: NaN in {name} (rows {rows.tolist()} of the flattened [..., q]; a row "
                                     f"with no key in a part, or in both, must not give NaN)")
            assert_tensor(g, want.to(dtype), rtol=tolerance, atol=tolerance,
                          where=f"{shown}: {name} (rtol = atol = {tolerance:g})")


@check
def merge_partial_attention_matches_full(student):
    """merge_partial_attention equals softmax attention over the union of the two key sets (o and lse, float32 and
    float64, parts at very different scales, scores in the hundreds); it returns new tensors and leaves its inputs
    unchanged."""
    level = 700 + draw_int(generator("04 ring merge level"), 0, 200)
    cases = [("a", (), 7, 10, 3, 0.0, 0, torch.float64), ("b", (2, 3), 16, 24, 8, 0.0, level, torch.float64),
             ("c", (4,), 32, 64, 16, 0.0, 0, torch.float32), ("d", (2, 2), 9, 5, 2, 0.0, 0, torch.float32)]
    check_merge(student, cases)
    print(f"{len(cases)} merges (float64 within 1e-12, float32 within 1e-5) equal attention over all the keys")


@check
def merge_partial_attention_empty_parts(student):
    """Rows with no key in one part take the other part's result; rows with no key at all come back as (0, -inf); no NaN
    anywhere."""
    cases = [("e", (3,), 24, 12, 4, 0.5, 0, torch.float64), ("f", (2, 2), 16, 8, 3, 0.6, 0, torch.float32),
             ("g", (), 12, 6, 2, 1.0, 0, torch.float64)]
    check_merge(student, cases)
    print(f"{len(cases)} merges with rows empty in a part or in both: no NaN, attention over the keys there are")


def zigzag_cases():
    """(world_size, chunks_per_rank) pairs: the lesson's c = 2 and larger even c, N up to 63 (one N drawn)."""
    drawn = draw_int(generator("04 zigzag"), 5, 63)
    c = 2 * draw_int(generator("04 zigzag chunks"), 3, 8)
    return [(1, 2), (2, 2), (4, 2), (drawn, 2), (1, 4), (3, 4), (8, 4), (16, 4), (2, c), (5, c), (drawn, c)]


@check
def zigzag_blocks_balance(student):
    """zigzag_blocks(N, c): every chunk of the c*N held by one rank, c per rank, and the same number of causal chunk
    pairs (sum of q + 1 over the rank's chunks q) on every rank; any such layout passes."""
    cases = zigzag_cases()
    for n, c in cases:
        shown = f"zigzag_blocks({n}, {c})" if c != 2 else f"zigzag_blocks({n})"
        got = student.call("zigzag_blocks", n) if c == 2 else student.call("zigzag_blocks", n, c)
        assert isinstance(got, (list, tuple)) and all(isinstance(b, (list, tuple)) for b in got) and all(
            isinstance(i, int) and not isinstance(i, bool) for b in got for i in b), (
            f"{shown} returned {got!r}: expected a list, per rank, of its chunk indices (ints)")
        assert len(got) == n, f"{shown} returned {len(got)} ranks' chunks, expected {n}: {got!r}"
        assert all(len(b) == c for b in got), f"{shown}: each rank must hold {c} chunks, got {got!r}"
        assert sorted(i for b in got for i in b) == list(range(c * n)), (
            f"{shown}: every chunk 0..{c * n - 1} must be held by exactly one rank, got {got!r}")
        pairs = [sum(q + 1 for q in b) for b in got]
        each = c * n * (c * n + 1) // 2 // n
        assert pairs == [each] * n, (f"{shown}: causal chunk pairs per rank {pairs}, expected {each} on every rank "
                                     f"(the total {c * n * (c * n + 1) // 2} over {n} ranks); layout {got!r}")
    print(f"(N, c) in {cases}: every chunk once, c per rank, the same causal chunk pairs on every rank")


@check
def ring_attention_rejects_bad_input(student):
    """merge_partial_attention raises ValueError naming the argument whose shape does not fit o1's; zigzag_blocks raises
    ValueError naming world_size for anything but a positive int, chunks_per_rank for anything but a positive even
    int."""
    o, row = torch.zeros(2, 5, 3), torch.zeros(2, 5)
    bad = [(2, torch.zeros(2, 5, 4)), (2, torch.zeros(2, 4, 3)), (1, torch.zeros(2, 4)), (3, torch.zeros(5)),
           (2, torch.zeros(2, 5, 1)), (3, torch.zeros(1, 5)), (0, torch.zeros(3))]
    for index, tensor in bad:
        args = [o, row, o, row]
        args[index] = tensor
        if index == 0:  # o1 of one dimension: then o2 and the rows do not fit either; o1 is the one to name
            args = [tensor, torch.zeros(()), tensor, torch.zeros(())]
        name = MERGE_NAMES[index]
        shown = f"merge_partial_attention with {name} of shape {tuple(tensor.shape)} (o1: {tuple(args[0].shape)})"
        try:
            student.call("merge_partial_attention", *args)
        except StudentError as error:
            assert "ValueError" in error.type_names, (
                f"{shown} raised {error.type_names[0]}: {error.message}; expected ValueError")
            assert name in error.message, f"{shown}: the message {error.message!r} must name {name}"
        else:
            raise AssertionError(f"{shown} returned; expected it to raise ValueError")
    bad_sizes = [((0,), "world_size"), ((-3,), "world_size"), ((2.0,), "world_size"), ((True,), "world_size"),
                 (("4",), "world_size"), ((None,), "world_size"), ((3, 3), "chunks_per_rank"),
                 ((3, 1), "chunks_per_rank"), ((3, 0), "chunks_per_rank"), ((3, -2), "chunks_per_rank"),
                 ((3, 4.0), "chunks_per_rank"), ((3, None), "chunks_per_rank")]
    for args, name in bad_sizes:
        error = assert_raises(student, ValueError, "zigzag_blocks", *args)
        shown = f"zigzag_blocks({', '.join(map(repr, args))})"
        assert name in error.message, f"{shown}: the message {error.message!r} must name {name}"
    print(f"{len(bad)} bad shapes and {len(bad_sizes)} bad world sizes or chunk counts raise ValueError, each naming "
          f"its argument")
