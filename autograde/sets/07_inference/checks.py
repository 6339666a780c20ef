"""Trusted checks of exercise set 07 (distributed inference): one per test cell, named by its grade_id.

Run by the grader, never in the sandbox. The expected values come from this module's own reference of the cost
model (`reference_*`, written from the exercise's statement), from the published sizes of Llama 2 (Touvron et al.
2023, Table 1 and the models' config.json) and Llama 3 (Dubey et al. 2024, Table 3), from an exhaustive search over
every configuration, and from `distlab.TinyTransformer` decoding in this process. The student's functions run in the
sandbox through `plain_call` (autograde/sets/07_inference/ranks.py), which brings numpy numbers back as plain ones.
"""
import math

import torch

from autograde import sets
from autograde.sets._common import StudentError, check, draw_int, generator, statement_source
from distlab.models import ModelConfig, TinyTransformer, random_batch

THIS_SET = __name__.split(".")[-2]  # this folder's name: autograde/sets/<THIS_SET>/checks.py
LAUNCH = sets.get(THIS_SET).launch.kwargs()  # the preset of set.toml, next to this file

REL = 1e-6  # the exercise promises "within a relative 1e-6"


def model(n_params, n_layers, d_model, n_heads, n_kv_heads, head_dim=128, bytes_per_param=2, vocab_size=32000):
    return dict(n_params=n_params, n_layers=n_layers, d_model=d_model, n_heads=n_heads, n_kv_heads=n_kv_heads,
                head_dim=head_dim, bytes_per_param=bytes_per_param, vocab_size=vocab_size)


# Published configurations; parameter counts as computed from them (embeddings and output layer untied); vocabularies
# from the models' config.json: 32,000 tokens for Llama 2, 128,256 for Llama 3
LLAMA2_7B = model(6.74e9, 32, 4096, 32, 32)
LLAMA2_13B = model(13.02e9, 40, 5120, 40, 40)
LLAMA2_70B = model(68.98e9, 80, 8192, 64, 8)
LLAMA3_8B = model(8.03e9, 32, 4096, 32, 8, vocab_size=128256)
LLAMA3_70B = model(70.6e9, 80, 8192, 64, 8, vocab_size=128256)
LLAMA3_405B = model(405.85e9, 126, 16384, 128, 8, vocab_size=128256)
# Llama-3.2-1B's shape (Meta's config.json; 1.24e9 parameters with its output layer tied to the embedding), untied:
# the output layer is a fifth of what a device reads, so the last stage differs most from the others
LLAMA32_1B = model(1.50e9, 16, 2048, 32, 8, head_dim=64, vocab_size=128256)
# Devices: H100 SXM and A100 SXM 80 GB (NVIDIA's datasheets: HBM bandwidth, dense bf16, NVLink each way), a 24 GB
# PCIe card, and ideal links. Latencies are assumptions, as in the lesson.
H100 = dict(hbm_bytes=80e9, hbm_bandwidth=3.35e12, flops=989e12, link_bandwidth=450e9, link_latency=2e-6)
A100 = dict(hbm_bytes=80e9, hbm_bandwidth=2.039e12, flops=312e12, link_bandwidth=300e9, link_latency=3e-6)
PCIE_24GB = dict(hbm_bytes=24e9, hbm_bandwidth=300e9, flops=121e12, link_bandwidth=32e9, link_latency=10e-6)
IDEAL = dict(H100, link_bandwidth=1e18, link_latency=0.0)
TOY = model(1e9, 4, 1024, 8, 8)  # compute-bound from batch 16 on TOY_DEVICE: every larger batch makes the same tokens/s
TOY_DEVICE = dict(hbm_bytes=1e12, hbm_bandwidth=1e12, flops=1e13, link_bandwidth=1e18, link_latency=0.0)
# A near tie: FLOP/s set so that batch 16 is memory-bound by a relative 5e-11 (its step reads TOY's weights and one
# token's cache per sequence), every larger batch compute-bound and 5e-11 faster per token. Within the statement's
# 1e-9 all of them tie, and the smallest batch, 16, wins; counting only exact equality as a tie picks a larger one.
_TOY_READ = TOY["n_params"] - TOY["vocab_size"] * TOY["d_model"]  # all but the input embedding
_READ_16 = (_TOY_READ * TOY["bytes_per_param"] + 16 * 2 * 4 * 8 * 128 * 2) / TOY_DEVICE["hbm_bandwidth"]
NEAR_TIE_DEVICE = dict(TOY_DEVICE, flops=2 * _TOY_READ * 16 / (_READ_16 * (1 - 5e-11)))
# A multi-query model (one KV head) on 6 devices, 8192 tokens of context: every KV head is replicated on each TP
# rank, so TP2 needs a larger batch (32) than TP1 PP3 (16) before it is compute-bound, and both then tie; TP1 PP2,
# whose first stage holds 2 of the 3 layers, does not fit batch 16 in 1.48 GB (found by a search over the device's
# FLOP/s and memory). The statement's order (the smaller tp * pp first) picks TP2 batch 32; ordering by batch first
# would pick TP1 PP3 batch 16. With 8 KV heads, as in every other tie here, the two orders agree.
MQA_TIE = model(1e9, 3, 1024, 6, 1)
MQA_70B = dict(LLAMA3_70B, n_kv_heads=1)  # Llama-3-70B's sizes with one KV head
MQA_TIE_DEVICE = dict(TOY_DEVICE, flops=14e12, hbm_bytes=1.48e9)


# --- the reference, from the exercise's statement -------------------------------------------------------------

def reference_kv_bytes(n_layers, n_kv_heads, head_dim, bytes_per_elem=2):
    return 2 * n_layers * n_kv_heads * head_dim * bytes_per_elem


def reference_shard_heads(n_heads, n_kv_heads, tp, rank):
    """The expected (query heads, KV heads), or None where a ValueError is expected."""
    if min(n_heads, n_kv_heads, tp) <= 0 or n_heads % tp or n_heads % n_kv_heads or not 0 <= rank < tp:
        return None
    if tp % n_kv_heads and n_kv_heads % tp:
        return None
    query = list(range(rank * n_heads // tp, (rank + 1) * n_heads // tp))
    group = n_heads // n_kv_heads
    return query, sorted({h // group for h in query})


def reference_layers(m, pp, stage):
    """Layers of stage `stage` of `pp`: the first n_layers % pp stages one more (Part 2)."""
    return m["n_layers"] // pp + (1 if stage < m["n_layers"] % pp else 0)


def reference_device_params(m, tp, pp, stage):
    """(parameters a device of `stage` holds, parameters it reads in a pass): its 1/tp of the stage's layers, of the
    input embedding on the first stage (held, not read: a pass gathers rows of it) and of the output layer on the
    last (held and read)."""
    embedding = m["vocab_size"] * m["d_model"]
    layers = reference_layers(m, pp, stage) * (m["n_params"] - 2 * embedding) / m["n_layers"]
    first, last = embedding * (stage == 0), embedding * (stage == pp - 1)
    return (layers + first + last) / tp, (layers + last) / tp


def reference_stage_seconds(m, hw, tp, pp, tokens, context_len):
    """Each stage's seconds for a pass of `tokens` rows with `context_len` tokens of KV cache each (0 in prefill):
    the longer of its reads and its FLOPs, then 2 ring all-reduces per layer; and the seconds of one hop."""
    b, size = m["bytes_per_param"], tokens * m["d_model"] * m["bytes_per_param"]
    ring = 2 * (tp - 1) / tp * size / hw["link_bandwidth"] + 2 * (tp - 1) * hw["link_latency"] if tp > 1 else 0.0
    seconds = []
    for stage in range(pp):
        _, read = reference_device_params(m, tp, pp, stage)
        kv = tokens * context_len * reference_device_kv_bytes(m, tp, pp, stage * tp)
        seconds.append(max((read * b + kv) / hw["hbm_bandwidth"], 2 * read * tokens / hw["flops"])
                       + reference_layers(m, pp, stage) * 2 * ring)
    return seconds, hw["link_latency"] + size / hw["link_bandwidth"]


def reference_step_time(m, hw, tp, pp, batch, context_len):
    """A token crosses the stages one after the other, and pp - 1 hops."""
    seconds, hop = reference_stage_seconds(m, hw, tp, pp, batch, context_len)
    return sum(seconds) + (pp - 1) * hop


def reference_prefill_time(m, hw, tp, pp, prompt_len, chunk_len=None):
    """The prompt in chunks of chunk_len tokens (None: one chunk) through the pipeline, simulated by the statement's
    rule: a stage starts chunk i when it has finished chunk i - 1 and chunk i has arrived (one hop after it left the
    stage before). Nothing cached yet: no KV cache to read. (The stand-in uses the flow shop's closed form: the two
    agree within rounding.)"""
    chunk = prompt_len if chunk_len is None else chunk_len
    seconds, hop = reference_stage_seconds(m, hw, tp, pp, chunk, 0)
    finished = [0.0] * pp
    for _ in range(prompt_len // chunk):
        arrived = 0.0
        for stage, time in enumerate(seconds):
            finished[stage] = max(finished[stage], arrived) + time
            arrived = finished[stage] + hop
    return finished[-1]


def reference_fits(m, hw, tp, pp, batch, context_len):
    """Every device holds its weights and the KV cache of the pp batches in flight within hbm_bytes."""
    return all(reference_device_params(m, tp, pp, stage)[0] * m["bytes_per_param"]
               + pp * batch * context_len * reference_device_kv_bytes(m, tp, pp, stage * tp) <= hw["hbm_bytes"]
               for stage in range(pp))


def every_config(m, hw, num_devices, context_len, max_batch=1024):
    """Every configuration the exercise names, feasible in memory or not, with its latency and throughput."""
    for tp in range(1, num_devices + 1):
        for pp in range(1, num_devices + 1):
            if num_devices % (tp * pp) or pp > m["n_layers"] or reference_shard_heads(m["n_heads"], m["n_kv_heads"],
                                                                                       tp, 0) is None:
                continue
            for batch in (2**k for k in range(max_batch.bit_length()) if 2**k <= max_batch):
                step = reference_step_time(m, hw, tp, pp, batch, context_len)
                replicas = num_devices // (tp * pp)
                yield dict(tp=tp, pp=pp, replicas=replicas, batch=batch, tokens_per_s=replicas * pp * batch / step,
                           latency_ms=1000 * step, fits=reference_fits(m, hw, tp, pp, batch, context_len))


def reference_best(m, hw, num_devices, slo_ms, context_len, max_batch=1024, ttft_slo_ms=None, prompt_len=None):
    """Exhaustive search: the most throughput among configurations that keep the promises; the statement's ties."""
    kept = [c for c in every_config(m, hw, num_devices, context_len, max_batch) if c["fits"]
            and c["latency_ms"] <= slo_ms and (ttft_slo_ms is None or 1000 * reference_prefill_time(
                m, hw, c["tp"], c["pp"], prompt_len) <= ttft_slo_ms)]
    if not kept:
        return None, kept
    most = max(c["tokens_per_s"] for c in kept)
    best = min((c for c in kept if c["tokens_per_s"] >= most * (1 - 1e-9)),
               key=lambda c: (c["tp"] * c["pp"], c["batch"], c["tp"]))
    return best, kept


# --- calling the student ------------------------------------------------------------------------------------

# What each part calls of the earlier ones: the sandbox puts the statement's in their place for the call, so that a
# mistake in an earlier part costs only that part's cells (07_inference_ranks.isolated_call)
EARLIER = {"kv_cache_bytes_per_token": ["shard_heads"],
           "decode_step_time": ["kv_cache_bytes_per_token", "shard_heads"],
           "prefill_time": ["shard_heads"],
           "best_config": ["kv_cache_bytes_per_token", "shard_heads", "decode_step_time", "prefill_time"]}


def statement(name: str) -> str:
    """The statement's versions of what `name` calls of the earlier parts, sent with the call (never kept in the
    sandbox: a notebook cannot answer an earlier part with them)."""
    return statement_source(THIS_SET, EARLIER[name])


def call(student, name, *args, **kwargs):
    if name in EARLIER:
        return student.call("isolated_call", name, list(args), kwargs, EARLIER[name], statement(name))
    return student.call("plain_call", name, list(args), kwargs)


def shown(name, args, kwargs=None):
    parts = [_short(a) for a in args] + [f"{k}={v!r}" for k, v in (kwargs or {}).items()]
    return f"{name}({', '.join(parts)})"


def _short(value):
    for label, known in NAMES.items():
        if value is known:
            return label
    return repr(value)


NAMES = {"LLAMA2_7B": LLAMA2_7B, "LLAMA2_13B": LLAMA2_13B, "LLAMA2_70B": LLAMA2_70B, "LLAMA3_8B": LLAMA3_8B,
         "LLAMA3_70B": LLAMA3_70B, "LLAMA3_405B": LLAMA3_405B, "H100": H100, "A100": A100, "PCIE_24GB": PCIE_24GB,
         "IDEAL": IDEAL, "TOY": TOY, "TOY_DEVICE": TOY_DEVICE, "NEAR_TIE_DEVICE": NEAR_TIE_DEVICE,
         "MQA_TIE": MQA_TIE, "MQA_TIE_DEVICE": MQA_TIE_DEVICE, "MQA_70B": MQA_70B}


def assert_value_error(student, name, *args, naming=None, **kwargs):
    """`name(*args, **kwargs)` raises ValueError with a message (that contains `naming`, if given)."""
    where = shown(name, args, kwargs)
    try:
        result = call(student, name, *args, **kwargs)
    except StudentError as error:
        assert "ValueError" in error.type_names, (
            f"{where} raised {error.type_names[0]}: {error.message}; expected ValueError")
        assert error.message.strip(), f"{where} raised ValueError without a message"
        assert naming is None or naming in error.message, f"{where}: the message {error.message!r} must name {naming}"
        return
    raise AssertionError(f"{where} returned {result!r}; expected it to raise ValueError")


def assert_seconds(got, expected, where, rel=REL):
    assert type(got) in (int, float), f"{where}: expected a number of seconds, got {got!r}"
    assert math.isclose(got, expected, rel_tol=rel), f"{where}: got {got!r} s, expected {expected!r} s"


# --- Part 1: shard_heads ------------------------------------------------------------------------------------

def assert_layouts(student, layouts):
    for n_heads, n_kv_heads, tp in layouts:
        for rank in range(tp):
            args = (n_heads, n_kv_heads, tp, rank)
            got = call(student, "shard_heads", *args)
            expected = [list(part) for part in reference_shard_heads(*args)]
            assert got == expected, f"{shown('shard_heads', args)}: got {got}, expected {expected}"


@check
def shard_heads_contiguous_groups(student):
    """shard_heads gives contiguous query heads and the KV heads they read, with tp <= n_kv_heads (GQA and MHA)."""
    layouts = [(4, 2, 2), (4, 2, 1), (8, 8, 4), (64, 8, 8), (64, 8, 4), (32, 8, 2), (40, 40, 8), (128, 8, 8),
               (12, 4, 4), (6, 6, 3), (16, 4, 2)]
    assert_layouts(student, layouts)
    print(f"{len(layouts)} layouts, every rank: contiguous query heads, the KV heads they read")


@check
def shard_heads_replicates_kv_heads(student):
    """shard_heads with more ranks than KV heads: each KV head is held by every rank whose query heads read it."""
    layouts = [(4, 2, 4), (8, 1, 2), (64, 8, 16), (64, 8, 32), (128, 8, 64), (8, 2, 8), (12, 3, 6), (32, 1, 32)]
    assert_layouts(student, layouts)
    print(f"{len(layouts)} layouts with tp > n_kv_heads: one KV head per rank, replicated")


@check
def shard_heads_rejects_bad_input(student):
    """shard_heads raises ValueError when tp does not divide n_heads, n_kv_heads does not divide n_heads, or neither of
    tp and n_kv_heads divides the other."""
    for args in [(4, 2, 3, 0), (6, 4, 2, 0), (48, 6, 4, 0), (24, 6, 4, 1), (64, 8, 3, 0), (32, 12, 4, 0),
                 (4, 2, 2, 2), (4, 2, 2, -1), (4, 0, 2, 0), (4, 2, 0, 0), (0, 2, 2, 0)]:
        assert reference_shard_heads(*args) is None
        assert_value_error(student, "shard_heads", *args)
    print("rejects every layout a rank could not hold whole heads of, and ranks out of range")


# --- the real decode with the student's shard_heads -------------------------------------------------------------

DECODES = [  # (model config, ranks, seed of the weights, seed of the prompt, batch, prompt length, new tokens)
    (dict(vocab_size=64, dim=32, n_layers=2, n_heads=4, n_kv_heads=2, max_seq_len=32), 2, 0, 1, 2, 6, 10),
    (dict(vocab_size=96, dim=64, n_layers=2, n_heads=8, n_kv_heads=2, max_seq_len=32), 4, 5, 6, 2, 4, 8),
]


@check
def tp_decode_matches_single_process(student):
    """A real tensor-parallel decode with your shard_heads gives the same tokens as one process, and each rank caches
    only its KV heads."""
    for config_kwargs, world_size, seed, prompt_seed, batch, length, n_new in DECODES:
        config = ModelConfig(**config_kwargs)
        prompt, _ = random_batch(config, batch, length, seed=prompt_seed)
        expected = TinyTransformer(config, seed).generate(prompt, n_new)  # one process, here in the grader
        results = student.launch("rank_tp_decode", world_size, args=(config_kwargs, seed, prompt, n_new), **LAUNCH)
        where = f"{config.n_heads} query heads, {config.n_kv_heads} KV heads on {world_size} ranks"
        for rank, result in enumerate(results):
            query, kv = reference_shard_heads(config.n_heads, config.n_kv_heads, world_size, rank)
            assert result["query_heads"] == query and result["kv_heads"] == kv, (
                f"{where}, rank {rank}: shard_heads gave query heads {result['query_heads']} and KV heads "
                f"{result['kv_heads']}; expected {query} and {kv}")
            assert torch.equal(result["tokens"], expected), (
                f"{where}, rank {rank}: the decode gave other tokens than one process\n{result['tokens']}\n{expected}")
            kv_bytes = batch * (length + n_new - 1) * reference_kv_bytes(config.n_layers, len(kv), config.head_dim, 4)
            assert result["kv_bytes"] == kv_bytes, (
                f"{where}, rank {rank}: its KV cache holds {result['kv_bytes']} bytes, its {len(kv)} KV head(s) "
                f"need {kv_bytes}")
        print(f"{where}: {n_new} tokens identical to one process; each rank caches {len(kv)} KV head(s)")


# --- Part 2: the KV cache a device holds ----------------------------------------------------------------------------

def reference_device_kv_bytes(m, tp, pp, rank):
    """KV bytes per token on device `rank` of a tp x pp replica (tensor-parallel ranks next to each other, the first
    n_layers % pp stages a layer more), or None where a ValueError is expected."""
    heads = reference_shard_heads(m["n_heads"], m["n_kv_heads"], tp, rank % tp) if tp > 0 else None
    if heads is None or not 1 <= pp <= m["n_layers"] or not 0 <= rank < tp * pp:
        return None
    stage = rank // tp
    layers = m["n_layers"] // pp + (1 if stage < m["n_layers"] % pp else 0)
    return reference_kv_bytes(layers, len(heads[1]), m["head_dim"], m["bytes_per_param"])


def assert_device_kv_bytes(student, layouts):
    """Every device of each (model, tp, pp) layout, in one call to the sandbox (with the statement's shard_heads)."""
    every = student.call("isolated_call", "every_device_kv_bytes", [layouts], {}, EARLIER["kv_cache_bytes_per_token"],
                         statement("kv_cache_bytes_per_token"))
    for (m, tp, pp), got in zip(layouts, every, strict=True):
        expected = [reference_device_kv_bytes(m, tp, pp, rank) for rank in range(tp * pp)]
        if got != expected:
            rank = next((r for r, (g, e) in enumerate(zip(got, expected)) if g != e), 0)
            raise AssertionError(
                f"{shown('kv_cache_bytes_per_token', (m, tp, pp, rank))}: got {got[rank]!r}, expected {expected[rank]} "
                f"(tp={tp} x pp={pp}, {m['n_layers']} layers, {m['n_heads']} query heads, {m['n_kv_heads']} KV heads; "
                f"every device: got {got}, expected {expected})"[:1500])


@check
def kv_cache_bytes_published_models(student):
    """kv_cache_bytes_per_token on one device (tp = pp = 1): the published models' KV bytes per token, as an int."""
    cases = [("Llama-3-8B", LLAMA3_8B), ("Llama-3-70B", LLAMA3_70B), ("Llama-3-405B", LLAMA3_405B),
             ("Llama-2-7B", LLAMA2_7B), ("Llama-2-13B", LLAMA2_13B), ("Llama-2-70B", LLAMA2_70B),
             ("Llama-3-8B in fp32", dict(LLAMA3_8B, bytes_per_param=4)),
             ("Llama-3-70B in FP8", dict(LLAMA3_70B, bytes_per_param=1)),
             ("a one-layer MQA model", model(1e8, 1, 512, 8, 1, head_dim=64))]
    for label, m in cases:
        for args in [(m,), (m, 1, 1, 0)]:
            got = call(student, "kv_cache_bytes_per_token", *args)
            expected = reference_device_kv_bytes(m, 1, 1, 0)
            where = f"{label}: {shown('kv_cache_bytes_per_token', args)}"
            assert type(got) is int, f"{where}: expected an int, got {got!r}"
            assert got == expected, f"{where}: got {got}, expected {expected}"
    print("Llama 2 7B/13B/70B and Llama 3 8B/70B/405B: " + ", ".join(
        f"{reference_device_kv_bytes(m, 1, 1, 0) // 1024} KiB" for _, m in cases[:6]) + " per token (bf16)")


def drawn_layouts(label, count, uneven):
    """`count` (model, tp, pp) drawn for this grading: 1 to 16 KV heads, 1 to 8 query heads each, head_dim 64 or 128,
    2 or 1 bytes; pp dividing n_layers (uneven=False) or not; tp any that shard_heads accepts, or (uneven) one that
    divides the KV heads, so that these cases judge the layers alone."""
    draw, layouts = generator(label), []
    while len(layouts) < count:
        n_kv_heads = 2 ** draw_int(draw, 0, 4)
        n_heads = n_kv_heads * draw_int(draw, 1, 8)
        n_layers = draw_int(draw, 2, 40)
        m = model(1e9, n_layers, 1024, n_heads, n_kv_heads, head_dim=(64, 128)[draw_int(draw, 0, 1)],
                  bytes_per_param=draw_int(draw, 1, 2))
        tps = [t for t in range(1, n_heads + 1) if reference_shard_heads(n_heads, n_kv_heads, t, 0) is not None
               and (not uneven or n_kv_heads % t == 0)]
        pps = [p for p in range(1, min(n_layers, 8) + 1) if (n_layers % p != 0) == uneven]
        if not pps:
            continue
        layouts.append((m, tps[draw_int(draw, 0, len(tps) - 1)], pps[draw_int(draw, 0, len(pps) - 1)]))
    return layouts


@check
def kv_cache_bytes_of_a_rank(student):
    """kv_cache_bytes_per_token on every device of a replica whose stages hold as many layers: its stage's layers and
    the KV heads shard_heads gives its tensor-parallel rank, a replicated KV head included."""
    layouts = [(LLAMA3_70B, 8, 1), (LLAMA3_70B, 4, 2), (LLAMA3_70B, 1, 8), (LLAMA3_70B, 16, 1), (LLAMA3_70B, 32, 2),
               (LLAMA3_405B, 8, 2), (LLAMA3_405B, 64, 1), (LLAMA2_7B, 4, 4), (LLAMA2_13B, 5, 1), (LLAMA2_70B, 2, 4),
               (dict(LLAMA3_8B, n_kv_heads=1), 4, 2), (dict(LLAMA3_8B, n_kv_heads=2, bytes_per_param=1), 8, 2)]
    layouts += drawn_layouts("kv_cache_bytes_of_a_rank", 12, uneven=False)
    assert_device_kv_bytes(student, layouts)
    print(f"{len(layouts)} layouts with pp dividing n_layers (12 of them drawn for this grading), every device: its "
          "stage's layers, its KV heads (replicated when tp > n_kv_heads)")


@check
def kv_cache_bytes_uneven_stages(student):
    """kv_cache_bytes_per_token when pp does not divide n_layers: the first n_layers % pp stages hold one layer more,
    and device rank is tensor-parallel rank rank % tp of stage rank // tp."""
    layouts = [(dict(LLAMA3_8B, n_layers=10), 2, 4), (dict(LLAMA3_8B, n_layers=7), 1, 3), (LLAMA3_405B, 8, 16),
               (LLAMA3_405B, 2, 5), (LLAMA3_70B, 4, 3), (LLAMA3_70B, 8, 7), (LLAMA2_13B, 1, 3), (LLAMA2_7B, 2, 5)]
    layouts += drawn_layouts("kv_cache_bytes_uneven_stages", 12, uneven=True)
    assert_device_kv_bytes(student, layouts)
    print(f"{len(layouts)} layouts with pp not dividing n_layers (12 of them drawn for this grading), every device: "
          "the first stages a layer more, tensor-parallel ranks next to each other")


@check
def kv_cache_bytes_rejects_bad_input(student):
    """kv_cache_bytes_per_token raises ValueError for a tp that shard_heads rejects, a pp that leaves a stage without a
    layer, and a rank that is not one of the tp * pp devices."""
    cases = [(LLAMA3_8B, 3, 1, 0), (dict(LLAMA3_8B, n_kv_heads=6), 2, 1, 0), (LLAMA3_8B, 0, 1, 0),
             (dict(LLAMA3_8B, n_heads=48, n_kv_heads=6), 4, 1, 0), (LLAMA3_8B, 1, 33, 0), (LLAMA3_8B, 1, 0, 0),
             (LLAMA3_8B, 1, -2, 0), (LLAMA3_8B, 2, 2, 4), (LLAMA3_8B, 2, 2, -1), (LLAMA3_8B, 1, 1, 1),
             (LLAMA3_405B, 8, 16, 128), (dict(LLAMA3_8B, n_layers=10), 2, 11, 0)]
    for args in cases:
        assert reference_device_kv_bytes(*args) is None
        assert_value_error(student, "kv_cache_bytes_per_token", *args)
    print(f"{len(cases)} bad layouts rejected: a tp shard_heads rejects, a stage without a layer, a device not there")


# --- Part 3: decode_step_time ---------------------------------------------------------------------------------

@check
def decode_step_time_weights_bound(student):
    """decode_step_time at batch 1 and a short context is the weights-only bound: each device reads its share of its
    layers and, on the last stage, of the output layer, not the input embedding: Llama-3-70B in bf16 on 8 devices of
    3.35 TB/s reads (70.6e9 - 128256 * 8192) * 2 bytes / 8 per step."""
    for m, hw, tp, pp, label in [(LLAMA3_70B, IDEAL, 8, 1, "Llama-3-70B on 8 H100s"),
                                 (LLAMA3_8B, H100, 1, 1, "Llama-3-8B on 1 H100"),
                                 (LLAMA3_405B, IDEAL, 8, 2, "Llama-3-405B on 8 x 2 H100s"),
                                 (LLAMA2_70B, dict(A100, link_bandwidth=1e18, link_latency=0.0), 4, 1,
                                  "Llama-2-70B on 4 A100s")]:
        args = (m, hw, tp, pp, 1, 1)
        got = call(student, "decode_step_time", *args)
        read = m["n_params"] - m["vocab_size"] * m["d_model"]  # the stages in turn: all but the input embedding
        bound = read * m["bytes_per_param"] / tp / hw["hbm_bandwidth"]
        assert_seconds(got, reference_step_time(*args), f"{label}, batch 1: {shown('decode_step_time', args)}")
        assert abs(got / bound - 1) < 1e-3, f"{label}: {got} s is not the weights-only bound {bound} s"
        print(f"{label}, batch 1: {got * 1e3:.2f} ms per token, the weights-only bound")


STEP_CASES = [  # (model, device, tp, pp, batch, context): every regime and term of the cost model
    (LLAMA3_8B, H100, 1, 1, 1, 8192), (LLAMA3_8B, H100, 1, 1, 512, 128), (LLAMA3_8B, H100, 2, 2, 8, 1000),
    (LLAMA3_70B, H100, 8, 1, 64, 4096), (LLAMA3_70B, H100, 16, 1, 64, 4096), (LLAMA3_70B, H100, 4, 2, 32, 2048),
    (LLAMA3_70B, H100, 1, 8, 16, 2048), (LLAMA3_70B, H100, 2, 4, 1024, 16), (LLAMA3_405B, H100, 8, 2, 16, 8192),
    (LLAMA3_405B, H100, 32, 1, 8, 32768), (LLAMA2_13B, A100, 8, 1, 4, 4096), (LLAMA2_70B, A100, 2, 4, 128, 1024),
    (LLAMA2_7B, IDEAL, 4, 4, 8, 512), (dict(LLAMA3_8B, bytes_per_param=1), H100, 2, 1, 256, 2048),
    (LLAMA3_70B, PCIE_24GB, 8, 2, 2, 1024), (dict(LLAMA3_8B, n_kv_heads=1), A100, 4, 2, 32, 4096),
]


@check
def decode_step_time_full_model(student):
    """decode_step_time adds the KV cache, compute, 2 all-reduces per layer and the pipeline's hops as the model
    says."""
    for args in STEP_CASES:
        got = call(student, "decode_step_time", *args)
        assert_seconds(got, reference_step_time(*args), shown("decode_step_time", args))
    print(f"{len(STEP_CASES)} cases (memory- and compute-bound, tp up to 32, pp up to 8, GQA, MHA, MQA, FP8): "
          "as the cost model says")


UNEQUAL_STEP_CASES = [  # (model, device, tp, pp, batch, context): pp not dividing n_layers, stages in both regimes
    (LLAMA3_8B, IDEAL, 1, 3, 1, 1), (LLAMA32_1B, H100, 2, 3, 512, 128), (LLAMA32_1B, H100, 2, 5, 512, 128),
    (LLAMA32_1B, H100, 4, 3, 512, 128), (LLAMA32_1B, H100, 1, 16, 256, 64), (LLAMA3_8B, H100, 1, 3, 256, 64),
    (LLAMA3_70B, H100, 8, 3, 256, 512), (LLAMA3_405B, H100, 8, 5, 64, 4096), (LLAMA2_7B, A100, 4, 3, 32, 1024),
    (dict(LLAMA32_1B, n_kv_heads=1), H100, 4, 7, 512, 256),
]


def drawn_step_cases(label, count):
    """`count` (model, device, tp, pp, batch, context) drawn for this grading: a Llama-3-sized vocabulary on 1 to 40
    layers, pp from 2 to n_layers (most not dividing it), batches and contexts around where stages change regime."""
    draw, cases = generator(label), []
    while len(cases) < count:
        n_kv_heads = 2 ** draw_int(draw, 0, 3)
        n_heads = n_kv_heads * 2 ** draw_int(draw, 0, 2)
        n_layers = draw_int(draw, 2, 40)
        d_model = 1024 * draw_int(draw, 1, 4)
        m = model(draw_int(draw, 3, 40) * 0.1e9 * d_model / 1024 + 2 * 128256 * d_model, n_layers, d_model, n_heads,
                  n_kv_heads, head_dim=64, vocab_size=128256)
        tp = 2 ** draw_int(draw, 0, 2)
        if reference_shard_heads(n_heads, n_kv_heads, tp, 0) is None:
            continue
        cases.append((m, (H100, A100, PCIE_24GB)[draw_int(draw, 0, 2)], tp, draw_int(draw, 2, n_layers),
                      2 ** draw_int(draw, 4, 10), 2 ** draw_int(draw, 0, 12)))
    return cases


@check
def decode_step_time_unequal_stages(student):
    """decode_step_time with stages that differ: the last stage also reads the output layer, the first n_layers % pp
    stages hold a layer more (pp need not divide n_layers), and each stage is memory- or compute-bound on its own."""
    cases = UNEQUAL_STEP_CASES + drawn_step_cases("decode_step_time_unequal_stages", 10)
    for args in cases:
        got = call(student, "decode_step_time", *args)
        assert_seconds(got, reference_step_time(*args), shown("decode_step_time", args))
    print(f"{len(cases)} replicas whose stages differ (10 drawn for this grading; pp up to 16, not dividing n_layers): "
          "the output layer on the last stage, the extra layers on the first, a regime per stage")


@check
def decode_step_time_rejects_bad_input(student):
    """decode_step_time raises ValueError for a negative latency, a pp above n_layers, a split that shard_heads rejects
    (a tp, or n_kv_heads, that does not divide the heads), and a vocab_size that leaves no parameters for the layers."""
    good = (LLAMA3_8B, H100, 2, 1, 4, 100)
    bad = [dict(hardware=dict(H100, link_latency=-1e-6)), dict(pp=33), dict(tp=3), dict(tp=0), dict(pp=0),
           dict(model=dict(LLAMA3_8B, vocab_size=0)), dict(model=dict(LLAMA3_8B, n_layers=1), pp=2),
           dict(batch=0), dict(context_len=0), dict(batch=-2), dict(hardware=dict(H100, hbm_bandwidth=0)),
           dict(hardware=dict(H100, flops=-1.0)), dict(hardware=dict(H100, link_bandwidth=0)),
           dict(hardware=dict(H100, hbm_bytes=0)), dict(model=dict(LLAMA3_8B, n_params=0)),
           dict(model=dict(LLAMA3_8B, d_model=0)), dict(model=dict(LLAMA3_8B, bytes_per_param=0)),
           dict(model=dict(LLAMA3_8B, n_kv_heads=6)), dict(model=dict(LLAMA3_8B, head_dim=-128)),
           dict(model=dict(LLAMA3_8B, n_layers=0))]
    names = ["model", "hardware", "tp", "pp", "batch", "context_len"]
    for change in bad:
        args = [change.get(name, value) for name, value in zip(names, good)]
        assert_value_error(student, "decode_step_time", *args)
    for m in [dict(LLAMA3_8B, vocab_size=10**6), dict(LLAMA3_8B, vocab_size=8.03e9 / 2 / 4096)]:  # 2E >= n_params
        assert_value_error(student, "decode_step_time", m, H100, 1, 1, 4, 100, naming="vocab_size")
    # A latency of 0 is allowed; whether the value is right is decode_step_time_full_model's to judge
    got = call(student, "decode_step_time", LLAMA3_8B, IDEAL, 2, 1, 4, 100)
    assert type(got) in (int, float) and got > 0, (
        f"decode_step_time(LLAMA3_8B, IDEAL, 2, 1, 4, 100), link_latency=0 (an ideal link): expected seconds, "
        f"got {got!r}")
    print(f"{len(bad) + 2} bad inputs rejected (a vocabulary as large as the model named); link_latency=0 accepted")


# --- Part 4: best_config ------------------------------------------------------------------------------------------

def assert_best(student, m, hw, num_devices, slo_ms, context_len, **kwargs):
    args = (m, hw, num_devices, slo_ms, context_len)
    where = shown("best_config", args, kwargs)
    expected, kept = reference_best(*args, **kwargs)
    got = call(student, "best_config", *args, **kwargs)
    if expected is None:
        assert got is None, f"{where}: no configuration keeps the promise (or fits), expected None; got {got}"
        return None
    assert isinstance(got, dict), f"{where}: expected a dict, got {got!r}"
    keys = ("tp", "pp", "replicas", "batch")
    config = {k: got.get(k) for k in keys}
    want = {k: expected[k] for k in keys}
    if config != want:
        mine = next((c for c in every_config(m, hw, num_devices, context_len, kwargs.get("max_batch", 1024))
                     if all(c[k] == config[k] for k in keys)), None)
        ttft = kwargs.get("ttft_slo_ms")
        first = None if mine is None or ttft is None else 1000 * reference_prefill_time(
            m, hw, mine["tp"], mine["pp"], kwargs["prompt_len"])
        why = ("it is not a configuration of the search" if mine is None else
               "it does not fit in memory" if not mine["fits"] else
               f"its step takes {mine['latency_ms']:.3f} ms, over the promise" if mine["latency_ms"] > slo_ms else
               f"its prefill takes {first:.3f} ms, over the first-token promise" if first is not None and first > ttft
               else
               f"it makes {mine['tokens_per_s']:.6g} tokens/s, the best {expected['tokens_per_s']:.6g}"
               + (f" (a relative {abs(mine['tokens_per_s'] / expected['tokens_per_s'] - 1):.1e} apart, within 1e-9: "
                  "a tie, which the smaller tp * pp, then batch, then tp wins)"
                  if abs(mine["tokens_per_s"] / expected["tokens_per_s"] - 1) <= 1e-9 else ""))
        raise AssertionError(f"{where}: got {config}, expected {want}: {why}")
    for key in ("tokens_per_s", "latency_ms"):
        value = got.get(key)
        assert type(value) in (int, float) and math.isclose(value, expected[key], rel_tol=REL), (
            f"{where}: {key} {value!r}, expected {expected[key]!r}")
    return expected


BEST_CASES = [  # (model, device, devices, promise in ms, context, max_batch)
    (LLAMA3_70B, H100, 8, 20, 2048, 1024), (LLAMA3_70B, H100, 8, 50, 2048, 1024),
    (LLAMA3_70B, H100, 8, 12, 2048, 1024), (LLAMA3_70B, H100, 16, 35, 4096, 1024),
    (LLAMA3_70B, H100, 8, 200, 2048, 1024), (LLAMA3_70B, H100, 16, 200, 1024, 4096),
    (LLAMA3_405B, H100, 16, 50, 4096, 1024), (LLAMA3_405B, H100, 16, 100, 1024, 1024),
    (LLAMA3_70B, A100, 8, 100, 1024, 1024), (LLAMA3_70B, PCIE_24GB, 16, 300, 4096, 1024),
    (LLAMA3_8B, H100, 1, 10, 8192, 1024), (LLAMA3_8B, H100, 4, 30, 32768, 1024), (LLAMA3_8B, H100, 6, 15, 2048, 100),
    (LLAMA2_13B, A100, 4, 40, 4096, 1024), (LLAMA2_7B, A100, 2, 25, 4096, 64),
    # degrees that are not powers of two win: TP5 (40 heads), PP5 (80 layers), PP5 x TP4 where no power of two fits
    (LLAMA2_13B, H100, 5, 20, 1024, 1024), (LLAMA3_70B, H100, 10, 50, 1024, 1024),
    (LLAMA3_70B, PCIE_24GB, 20, 300, 4096, 1024),
    # one KV head (multi-query) on 2 devices: TP2 keeps the whole KV cache on each rank (replicated), so PP2 fits 32
    # sequences where TP2 fits fewer; counting n_kv_heads // tp = 0 heads per rank would make TP2 look roomier
    (MQA_70B, H100, 2, 50, 4096, 1024),
]


@check(last=True)  # hands over the statement's decode_step_time and prefill_time: after their checks
def best_config_is_the_best(student):
    """best_config gives the configuration with the most throughput under the between-token promise, over every tp
    and pp the statement allows (not only powers of two)."""
    for m, hw, devices, slo, context, max_batch in BEST_CASES:
        best = assert_best(student, m, hw, devices, slo, context, max_batch=max_batch)
        shown_best = "None" if best is None else (f"TP{best['tp']} PP{best['pp']} x{best['replicas']}, batch "
                                                  f"{best['batch']}")
        print(f"{_short(m)} on {devices} x {_short(hw)}, {slo} ms, context {context}: {shown_best}")


@check(last=True)  # hands over the statement's decode_step_time and prefill_time: after their checks
def best_config_slo_memory_ties(student):
    """best_config returns None when no configuration keeps the promise, and keeps batch within max_batch and memory."""
    for m, hw, devices, slo, context in [(LLAMA3_70B, H100, 8, 5, 2048), (LLAMA3_405B, H100, 8, 1000, 1024),
                                         (LLAMA3_70B, H100, 1, 1000, 128), (LLAMA3_8B, PCIE_24GB, 1, 1, 1024)]:
        assert assert_best(student, m, hw, devices, slo, context) is None
    print("None when the promise is below every step time or the weights fit nowhere")
    for args, kwargs in [((LLAMA3_70B, H100, 8, 50, 2048), dict(max_batch=100)),
                         ((LLAMA3_70B, H100, 8, 1000, 32768), {}), ((LLAMA3_8B, H100, 1, 1000, 131072), {}),
                         ((LLAMA3_70B, H100, 16, 1000, 8192), dict(max_batch=2048))]:
        best = assert_best(student, *args, **kwargs)
        print(f"{shown('best_config', args, kwargs)}: batch {best['batch']} (max_batch and memory)")
    for devices, slo in [(2, 1000), (4, 1000), (2, 10), (1, 1000)]:
        best = assert_best(student, TOY, TOY_DEVICE, devices, slo, 1)
        print(f"ties on {devices} device(s): TP{best['tp']} PP{best['pp']} x{best['replicas']}, batch {best['batch']}")
    best = assert_best(student, TOY, NEAR_TIE_DEVICE, 1, 1000, 1)
    print(f"a near tie (throughputs within a relative 5e-11): batch {best['batch']}, the smallest of the tied")
    best = assert_best(student, MQA_TIE, MQA_TIE_DEVICE, 6, 1000, 8192)
    print(f"a tie of TP2 batch 32 and TP1 PP3 batch 16 (one KV head, replicated): TP{best['tp']} PP{best['pp']}, "
          f"batch {best['batch']}: the smaller tp * pp wins before the smaller batch")
    assert_on_the_promise(student, LLAMA3_70B, H100, 8, 2048)


FIT_CASES = [  # (model, device, devices, promise in ms, context): the device that holds the most decides
    (LLAMA3_8B, dict(H100, hbm_bytes=6.2e9), 3, 1000, 256), (LLAMA3_70B, PCIE_24GB, 6, 1000, 2048),
    (LLAMA3_70B, PCIE_24GB, 12, 1000, 2048), (LLAMA3_70B, PCIE_24GB, 7, 1000, 1024),
    (LLAMA3_405B, H100, 12, 1000, 4096), (LLAMA3_405B, H100, 14, 1000, 8192),
    (LLAMA32_1B, dict(H100, hbm_bytes=1.1e9), 3, 1000, 1024), (LLAMA32_1B, dict(H100, hbm_bytes=0.7e9), 5, 1000, 512),
    (LLAMA3_8B, dict(H100, hbm_bytes=4e9), 5, 1000, 4096), (dict(LLAMA3_8B, n_layers=7), dict(H100, hbm_bytes=9e9), 3,
                                                           1000, 1024),
]


@check(last=True)  # hands over the statement's decode_step_time and prefill_time: after their checks
def best_config_fits_every_device(student):
    """best_config counts a configuration as fitting only when every device fits: the stages hold different weights and
    KV caches, and the device that holds the most decides."""
    for m, hw, devices, slo, context in FIT_CASES:
        best = assert_best(student, m, hw, devices, slo, context)
        shown_best = "None" if best is None else f"TP{best['tp']} PP{best['pp']}, batch {best['batch']}"
        print(f"{_short(m)} on {devices} devices of {hw['hbm_bytes'] / 1e9:g} GB, context {context}: {shown_best}")


def assert_on_the_promise(student, m, hw, devices, context):
    """A promise exactly equal to the best configuration's latency: `1000 * decode_step_time(...) <= promise` keeps
    it (a strict `<` would not). best_config runs with the statement's decode_step_time in place of the learner's
    (isolated_call), which computes as the grader does; should it round one ulp above the promise, the case is
    skipped."""
    base, _ = reference_best(m, hw, devices, 1000.0, context)
    promise = base["latency_ms"]
    config = (base["tp"], base["pp"], base["batch"])
    own = student.call("isolated_call", "decode_step_time", [m, hw, *config[:2], config[2], context], {},
                       EARLIER["best_config"], statement("best_config"))  # the stand-in best_config is handed
    if not (isinstance(own, (int, float)) and 1000 * own <= promise):
        print(f"on the promise: decode_step_time gives {own!r} s for TP{config[0]} PP{config[1]} batch "
              f"{config[2]}, not within {promise!r} ms: case skipped")
        return
    assert_best(student, m, hw, devices, promise, context)
    print(f"a promise of exactly {promise!r} ms, the step time of TP{config[0]} PP{config[1]} batch {config[2]}: kept")


@check(last=True)  # hands over the statement's decode_step_time and prefill_time: after their checks
def best_config_rejects_bad_input(student):
    """best_config raises ValueError for a non-positive number of devices, latency promise, context or max_batch."""
    good = (LLAMA3_70B, H100, 8, 20, 2048)
    for index, value in [(2, 0), (2, -8), (3, 0), (3, -1), (4, 0)]:
        args = list(good)
        args[index] = value
        assert_value_error(student, "best_config", *args)
    assert_value_error(student, "best_config", *good, max_batch=0)
    assert_value_error(student, "best_config", dict(LLAMA3_70B, n_layers=0), H100, 8, 20, 2048)
    print("rejects 0 or negative devices, promise, context, max_batch, and a model with no layers")


# --- Part 5: prefill_time and the first-token promise ----------------------------------------------------------

SLOW_LINKS = dict(H100, link_bandwidth=25e9, link_latency=10e-6)  # hops and all-reduces that cost as much as a chunk
NAMES["SLOW_LINKS"] = SLOW_LINKS
PREFILL_CASES = [  # (model, device, tp, pp, prompt): compute- and memory-bound, TP's all-reduces, PP's hops
    (LLAMA3_8B, H100, 1, 1, 8192), (LLAMA3_8B, H100, 1, 1, 1), (LLAMA3_8B, H100, 1, 1, 200),
    (LLAMA3_8B, H100, 2, 1, 8192), (LLAMA3_8B, H100, 1, 2, 8192), (LLAMA3_8B, H100, 8, 1, 8192),
    (LLAMA3_8B, H100, 1, 8, 8192),
    (LLAMA3_70B, H100, 8, 1, 4096), (LLAMA3_70B, H100, 4, 2, 4096), (LLAMA3_70B, H100, 16, 1, 4096),
    (LLAMA3_405B, H100, 8, 2, 32768), (LLAMA2_13B, A100, 5, 1, 2048), (LLAMA2_70B, A100, 2, 4, 1000),
    (LLAMA3_70B, PCIE_24GB, 8, 2, 4096), (dict(LLAMA3_8B, bytes_per_param=1), IDEAL, 4, 2, 16384),
    (LLAMA3_8B, dict(H100, link_latency=0.0), 4, 1, 8192),
]


@check
def prefill_time_compute_bound(student):
    """prefill_time, one chunk: a long prompt is compute-bound; TP divides the FLOPs but all-reduces the whole prompt's
    activations; PP does not shorten it; one token is the weights-read bound."""
    for args in PREFILL_CASES:
        got = call(student, "prefill_time", *args)
        assert_seconds(got, reference_prefill_time(*args), shown("prefill_time", args))
    print(f"{len(PREFILL_CASES)} prompts in one chunk (1 to 32768 tokens, tp up to 16, pp up to 4, FP8, PCIe links): "
          "as the cost model says")


CHUNK_CASES = [  # (model, device, tp, pp, prompt, chunk): one stage or many, compute- or memory-bound chunks
    (LLAMA3_8B, H100, 1, 1, 8192, 2048), (LLAMA3_8B, H100, 1, 2, 8192, 2048), (LLAMA3_8B, H100, 1, 8, 8192, 1024),
    (LLAMA3_8B, H100, 1, 8, 8192, 128), (LLAMA3_8B, H100, 1, 8, 8192, 1), (LLAMA3_8B, H100, 2, 4, 8192, 512),
    (LLAMA3_8B, H100, 8, 1, 8192, 256), (LLAMA3_70B, H100, 4, 2, 4096, 4096), (LLAMA3_70B, H100, 2, 4, 4096, 64),
    (LLAMA3_70B, PCIE_24GB, 8, 2, 4096, 512), (LLAMA3_405B, H100, 8, 2, 32768, 4096),
    (LLAMA2_70B, A100, 1, 8, 1000, 125), (LLAMA2_13B, A100, 5, 5, 2048, 2048), (LLAMA3_8B, IDEAL, 1, 4, 4096, 1024),
    (LLAMA3_8B, SLOW_LINKS, 4, 4, 8192, 2048), (dict(LLAMA3_8B, bytes_per_param=1), H100, 1, 16, 16384, 256),
]


@check
def prefill_time_chunks_in_a_pipeline(student):
    """prefill_time with the prompt in chunks: one stage works through them one after the other; in a pipeline the
    stages overlap, chunk after chunk, and each chunk pays its stage's weight reads and all-reduces."""
    for *args, chunk in CHUNK_CASES:
        got = call(student, "prefill_time", *args, chunk_len=chunk)
        assert_seconds(got, reference_prefill_time(*args, chunk), shown("prefill_time", args, dict(chunk_len=chunk)))
    args = (LLAMA3_8B, H100, 2, 4, 8192, 1024)  # chunk_len by position too
    assert_seconds(call(student, "prefill_time", *args), reference_prefill_time(*args), shown("prefill_time", args))
    m, hw = LLAMA3_8B, H100
    best = min((1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192),
               key=lambda c: reference_prefill_time(m, hw, 1, 8, 8192, c))
    print(f"{len(CHUNK_CASES) + 1} chunked prompts (1 to 32 chunks a stage, pp up to 16): as the cost model says; "
          f"Llama-3-8B's 8192 tokens on PP8 come soonest in chunks of {best}")


UNEQUAL_PREFILL_CASES = [  # (model, device, tp, pp, prompt, chunk): stages that take different times
    (LLAMA3_8B, H100, 1, 3, 8192, 1024), (LLAMA32_1B, H100, 1, 2, 8192, 2048), (LLAMA32_1B, H100, 2, 5, 4096, 256),
    (LLAMA32_1B, H100, 1, 16, 4096, 64), (LLAMA3_70B, H100, 4, 3, 8192, 512), (LLAMA3_70B, PCIE_24GB, 8, 7, 4096, 256),
    (LLAMA3_405B, H100, 8, 5, 16384, 1024), (LLAMA2_13B, A100, 1, 3, 2048, 128),
    (LLAMA3_8B, SLOW_LINKS, 2, 3, 8192, 512), (LLAMA3_8B, H100, 1, 3, 8192, 8192), (LLAMA3_8B, H100, 1, 32, 1024, 1),
]


@check
def prefill_time_unequal_stages(student):
    """prefill_time when the stages take different times (the output layer on the last, a layer more on the first ones,
    pp need not divide n_layers): the chunks follow the schedule, and the slowest stage sets their pace."""
    draw = generator("prefill_time_unequal_stages")
    cases = list(UNEQUAL_PREFILL_CASES)
    for m, hw, tp, pp, batch, context in drawn_step_cases("prefill_time_unequal_stages", 10):
        prompt = batch * context
        cases.append((m, hw, tp, pp, prompt, prompt // 2 ** draw_int(draw, 0, min(6, prompt.bit_length() - 1))))
    for *args, chunk in cases:
        got = call(student, "prefill_time", *args, chunk_len=chunk)
        assert_seconds(got, reference_prefill_time(*args, chunk), shown("prefill_time", args, dict(chunk_len=chunk)))
    print(f"{len(cases)} prompts through stages that differ (10 drawn for this grading; 1 to 1024 chunks, pp up to "
          "32): as the schedule says")


@check
def prefill_time_rejects_bad_input(student):
    """prefill_time raises ValueError for a prompt of no tokens, a pp above n_layers, a split that shard_heads rejects
    (a tp, or n_kv_heads, that does not divide the heads), a vocab_size that leaves no parameters for the layers and
    a chunk_len that does not divide the prompt."""
    good = (LLAMA3_8B, H100, 2, 1, 8192)
    bad = [dict(prompt_len=0), dict(prompt_len=-5), dict(pp=33), dict(tp=3), dict(tp=0), dict(pp=0),
           dict(model=dict(LLAMA3_8B, vocab_size=0)), dict(model=dict(LLAMA3_8B, vocab_size=10**6)),
           dict(hardware=dict(H100, link_latency=-1e-6)), dict(hardware=dict(H100, flops=0)),
           dict(hardware=dict(H100, hbm_bytes=0)), dict(model=dict(LLAMA3_8B, n_params=-1.0)),
           dict(model=dict(LLAMA3_8B, n_kv_heads=6)), dict(model=dict(LLAMA3_8B, d_model=0)),
           dict(chunk_len=3000), dict(chunk_len=0), dict(chunk_len=-1024), dict(chunk_len=16384),
           dict(chunk_len=1024.0)]
    names = ["model", "hardware", "tp", "pp", "prompt_len", "chunk_len"]
    for change in bad:
        args = [change.get(name, value) for name, value in zip(names, good + (None,))]
        assert_value_error(student, "prefill_time", *args[:5], **({"chunk_len": args[5]} if "chunk_len" in change
                                                                   else {}))
    # A latency of 0 is allowed; whether the value is right is prefill_time_compute_bound's to judge
    got = call(student, "prefill_time", LLAMA3_8B, IDEAL, 2, 1, 8192)
    assert type(got) in (int, float) and got > 0, (
        f"prefill_time(LLAMA3_8B, IDEAL, 2, 1, 8192), link_latency=0 (an ideal link): expected seconds, got {got!r}")
    print(f"{len(bad)} bad inputs rejected; link_latency=0 accepted")


SLOW_MESSAGES = dict(H100, link_latency=20e-6)
NAMES["SLOW_MESSAGES"] = SLOW_MESSAGES
TTFT_CASES = [  # (model, device, devices, ms per token, context, first token in ms, prompt)
    # Llama-3-8B, 8192-token prompts: a tighter first-token promise takes more TP, then nothing fits
    (LLAMA3_8B, H100, 8, 20, 8192, 1000, 8192), (LLAMA3_8B, H100, 8, 20, 8192, 40, 8192),
    (LLAMA3_8B, H100, 8, 20, 8192, 30, 8192), (LLAMA3_8B, H100, 8, 50, 8192, 60, 8192),
    # 20 microseconds a message: the all-reduces of a long prompt cost more, so the answer moves
    (LLAMA3_8B, SLOW_MESSAGES, 8, 20, 8192, 200, 8192), (LLAMA3_8B, SLOW_MESSAGES, 8, 20, 8192, 100, 8192),
    (LLAMA3_8B, SLOW_MESSAGES, 8, 20, 8192, 60, 8192), (LLAMA3_8B, SLOW_MESSAGES, 8, 20, 8192, 40, 8192),
    # Llama-3-70B: on 16 H100s one TP16 replica instead of two TP8 under 100 ms (8 H100s: none); on 16 PCIe cards
    # TP16 instead of TP8 x PP2 under 600 ms; A100s and Llama-3-405B where the promise changes nothing
    (LLAMA3_70B, H100, 8, 50, 4096, 150, 4096), (LLAMA3_70B, H100, 16, 50, 4096, 100, 4096),
    (LLAMA3_70B, H100, 8, 50, 4096, 100, 4096), (LLAMA3_70B, A100, 8, 100, 2048, 400, 2048),
    (LLAMA3_70B, PCIE_24GB, 16, 300, 4096, 3000, 2048), (LLAMA3_70B, PCIE_24GB, 16, 300, 4096, 600, 2048),
    (LLAMA3_405B, H100, 16, 100, 4096, 1500, 4096),
    (LLAMA2_13B, H100, 5, 20, 1024, 40, 1024),
]


def assert_on_the_first_token_promise(student, m, hw, devices, slo, context, ttft, prompt):
    """A first-token promise exactly equal to the prefill time of the configuration that wins under `ttft`:
    `1000 * prefill_time(...) <= ttft_slo_ms` keeps it (a strict `<` would pick another). As in
    assert_on_the_promise, the statement's prefill_time computes it in the sandbox; one ulp above, the case is
    skipped."""
    base, _ = reference_best(m, hw, devices, slo, context, ttft_slo_ms=ttft, prompt_len=prompt)
    config = (base["tp"], base["pp"])
    own = student.call("isolated_call", "prefill_time", [m, hw, *config, prompt], {}, EARLIER["best_config"],
                       statement("best_config"))  # the stand-in best_config is handed, not the learner's
    promise = 1000 * reference_prefill_time(m, hw, *config, prompt)
    if not (isinstance(own, (int, float)) and 1000 * own <= promise):
        print(f"on the first-token promise: prefill_time gives {own!r} s for TP{config[0]} PP{config[1]}, not within "
              f"{promise!r} ms: case skipped")
        return
    best = assert_best(student, m, hw, devices, slo, context, ttft_slo_ms=promise, prompt_len=prompt)
    print(f"a first-token promise of exactly {promise!r} ms, the prefill of TP{best['tp']} PP{best['pp']}: kept")


@check(last=True)  # hands over the statement's decode_step_time and prefill_time: after their checks
def best_config_keeps_first_token_promise(student):
    """best_config with a first-token promise as well: no configuration whose first token comes later than
    ttft_slo_ms; ValueError for one of ttft_slo_ms and prompt_len without the other, or one not positive."""
    for m, hw, devices, slo, context, ttft, prompt in TTFT_CASES:
        best = assert_best(student, m, hw, devices, slo, context, ttft_slo_ms=ttft, prompt_len=prompt)
        shown_best = "None" if best is None else (f"TP{best['tp']} PP{best['pp']} x{best['replicas']}, batch "
                                                  f"{best['batch']}")
        print(f"{_short(m)} on {devices} x {_short(hw)}, {slo} ms per token, first token {ttft} ms: {shown_best}")
    assert_on_the_first_token_promise(student, LLAMA3_8B, H100, 8, 20, 8192, 40, 8192)
    good = (LLAMA3_8B, H100, 8, 20, 8192)
    for kwargs in [dict(ttft_slo_ms=100), dict(prompt_len=8192), dict(ttft_slo_ms=0, prompt_len=8192),
                   dict(ttft_slo_ms=100, prompt_len=0), dict(ttft_slo_ms=-1, prompt_len=8192)]:
        assert_value_error(student, "best_config", *good, **kwargs)
    print("rejects a first-token promise without a prompt length, and the other way round, and non-positive ones")


# --- Part 6: what arrives at a rank in the dispatch of expert parallelism ----------------------------------------

def reference_arrivals(logits, k, capacity, rank):
    """The rows [source_rank, token, expert] that arrive at `rank`: each source rank's tokens take their k largest
    logits (ties to the lower expert), each source gives out its own slots (every first choice in token order, then
    every second choice, ...; GShard's order), at most `capacity` per expert; the output holds the sources' chunks in
    rank order, each sorted by expert, then slot."""
    n_experts = len(logits[0][0])
    per = n_experts // len(logits)
    arrived = []
    for source, rows in enumerate(logits):
        choices = [sorted(range(n_experts), key=lambda e: (-row[e], e))[:k] for row in rows]
        filled, kept = [0] * n_experts, []
        for j in range(k):
            for token, chosen in enumerate(choices):
                if filled[chosen[j]] < capacity:
                    kept.append((chosen[j], filled[chosen[j]], token))
                    filled[chosen[j]] += 1
        arrived += [[source, token, expert] for expert, _, token in sorted(kept) if expert // per == rank]
    return arrived


EXAMPLE_LOGITS = torch.tensor([  # the statement's example: 2 ranks of 5 tokens, 4 experts
    [[2.0, 1.0, 0.0, 0.5], [3.0, 0.0, 1.0, 1.0], [0.0, 2.0, 2.0, 1.0], [1.0, 0.0, 0.0, 4.0], [2.5, 0.0, 0.1, 0.2]],
    [[0.0, 1.0, 3.0, 2.0], [1.0, 1.0, 0.0, 0.0], [0.5, 0.0, 2.0, 3.0], [0.0, 0.0, 1.0, 2.0], [1.0, 2.0, 0.0, 0.0]]])


def plan_case(draw, ties):
    """(logits [ranks, tokens, experts], k, capacity): 1 to 4 ranks, up to 32 tokens a rank, up to 16 experts; with
    `ties`, small integer logits (many equal ones); capacities from 0 to more than a source's tokens."""
    ranks = [1, 2, 4][draw_int(draw, 0, 2)]
    n_experts = ranks * [1, 2, 4][draw_int(draw, 0, 2)]
    tokens = draw_int(draw, 1, 32)
    k = draw_int(draw, 1, min(4, n_experts))
    if ties:
        logits = torch.randint(-2, 3, (ranks, tokens, n_experts), generator=draw).float()
    else:
        logits = torch.randn(ranks, tokens, n_experts, generator=draw)
    capacity = draw_int(draw, 0, max(2, math.ceil(2 * k * tokens / n_experts)))
    return logits, k, capacity


def compare_arrivals(student, logits, k, capacity, any_order=False):
    """Every rank's rows against the reference's (with `any_order`, as sorted lists: which rows, not their order)."""
    ranks, tokens, n_experts = logits.shape
    where = f"dispatch_plan(<{ranks} x {tokens} x {n_experts} logits>, k={k}, capacity={capacity}, rank=..)"
    every = student.call("every_rank_plan", logits, k, capacity)
    nested = logits.tolist()
    for rank, got in enumerate(every):
        want = reference_arrivals(nested, k, capacity, rank)
        here = where.replace("rank=..", f"rank={rank}")
        assert isinstance(got, list) and all(isinstance(row, list) and len(row) == 3 for row in got), (
            f"{here}: expected a list of (source_rank, token, expert) rows, got {_short(got)[:200]}")
        if any_order:
            got, want = sorted(got), sorted(want)
        if got != want:
            extra = [row for row in got if row not in want][:3]
            missing = [row for row in want if row not in got][:3]
            first = next(i for i, (a, b) in enumerate(zip(got + [None], want + [None])) if a != b)
            detail = (f"{len(got)} rows, expected {len(want)}; rows not expected {extra}, rows missing {missing}"
                      if extra or missing else f"the right rows in another order: row {first} is {got[first]}, "
                      f"expected {want[first]}")
            raise AssertionError(f"{here}: {detail}")


@check
def dispatch_plan_routes_top_k(student):
    """dispatch_plan sends each choice to the rank holding its expert: each token's k largest logits (largest first,
    ties to the lower index), from every source rank, when every expert has room (rows compared in any order)."""
    # The statement's example first: with 1 rank, or 1 expert a rank (5 in 9 drawn cases), experts striped over the
    # ranks (e % ranks) sit where blocks put them, and no drawn case need tell the two apart
    compare_arrivals(student, EXAMPLE_LOGITS, 2, 10, any_order=True)
    draw = generator("dispatch_plan_routes_top_k")
    for case in range(12):
        logits, k, _ = plan_case(draw, ties=case % 2 == 1)
        compare_arrivals(student, logits, k, logits.shape[0] * logits.shape[1], any_order=True)  # room for all
    print("the statement's example and 12 drawn dispatches with room for every choice (half with tied logits): every "
          "source's right experts, each at the rank holding it")


@check
def dispatch_plan_capacity_and_drops(student):
    """dispatch_plan keeps at most capacity of each source rank's choices per expert, given out by priority (every
    first choice in token order, then every second choice), drops the rest, and orders the rows by source rank, then
    expert, then slot."""
    draw = generator("dispatch_plan_capacity_and_drops")
    for capacity in (2, 1, 0):
        compare_arrivals(student, EXAMPLE_LOGITS, 2, capacity)
    for case in range(16):
        compare_arrivals(student, *plan_case(draw, ties=case % 2 == 1))
    print("the statement's example at capacities 2, 1 and 0, and 16 drawn dispatches (half with ties): every row "
          "and its place as expected")


@check
def dispatch_plan_rejects_bad_input(student):
    """dispatch_plan raises ValueError, naming the argument, for logits that are not 3-D or whose ranks do not divide
    the experts, k outside 1..experts, a negative capacity, and a rank that is not one of the ranks."""
    logits = torch.zeros(2, 4, 6)
    bad = [((torch.zeros(4, 6), 1, 2, 0), "router_logits"), ((torch.zeros(1, 2, 4, 6), 1, 2, 0), "router_logits"),
           ((torch.tensor(1.0), 1, 1, 0), "router_logits"), ((torch.zeros(4, 4, 6), 1, 2, 0), "router_logits"),
           ((logits, 0, 2, 0), "k"), ((logits, -1, 2, 0), "k"), ((logits, 7, 2, 0), "k"),
           ((logits, 2, -1, 0), "capacity"), ((logits, 2, 2, 2), "rank"), ((logits, 2, 2, -1), "rank"),
           ((logits, 2, 2, 1.0), "rank")]
    for args, name in bad:
        where = shown("dispatch_plan", args)
        try:
            result = call(student, "dispatch_plan", *args)
        except StudentError as error:
            assert "ValueError" in error.type_names, (
                f"{where} raised {error.type_names[0]}: {error.message}; expected ValueError")
            assert name in error.message, f"{where}: the message {error.message!r} must name {name}"
            continue
        raise AssertionError(f"{where} returned {_short(result)[:200]}; expected it to raise ValueError")
    # k = every expert and capacity 0 are allowed; whether the rows are right is dispatch_plan_capacity_and_drops's
    got = call(student, "dispatch_plan", logits, 6, 0, 1)
    assert isinstance(got, list), (
        f"dispatch_plan(<2 x 4 x 6 zeros>, k=6, capacity=0, rank=1): expected a list of rows, got {got!r}")
    print(f"{len(bad)} bad inputs rejected; k = the number of experts and capacity 0 accepted")
