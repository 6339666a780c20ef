"""Rank-side procedures of exercise set 07: run in the sandbox, in the namespace of the student's notebook (they call
`shard_heads` and the other graded functions by name). They hold no expected values: what they return is checked by
autograde/checks/07_inference.py, in the grader."""
import numbers

import torch.distributed as dist

from distlab.models import ModelConfig, TinyTransformer, tp_generate


def plain(value):
    """`value` as plain data for the grader: numpy and torch scalars as int or float, arrays and tuples as lists;
    anything else as a short text that names its type (the check then says what came back)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if type(value).__name__ == "bool_":
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, dict):
        return {plain(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, range)):
        return [plain(v) for v in value]
    if hasattr(value, "tolist"):
        return plain(value.tolist())
    return f"<{type(value).__name__} {value!r}>"[:300]


def plain_call(name, args, kwargs=None):
    """The student's `name(*args, **kwargs)`, its result as plain data (exceptions propagate as they are)."""
    return plain(globals()[name](*args, **(kwargs or {})))


def every_rank_plan(router_logits, k, capacity):
    """The student's dispatch_plan for each rank in turn, as plain data (one call from the grader for all ranks)."""
    return [plain_call("dispatch_plan", [router_logits, k, capacity, rank]) for rank in range(router_logits.shape[0])]


def head_lists(heads, rank):
    """(query heads, KV heads) as two lists of ints, from what shard_heads returned."""
    heads = plain(heads)
    if not (isinstance(heads, list) and len(heads) == 2 and all(isinstance(h, list) for h in heads)
            and all(type(i) is int for h in heads for i in h)):
        raise TypeError(f"rank {rank}: shard_heads must return (query_heads, kv_heads), two lists of ints; "
                        f"got {heads!r}")
    return heads


def check_kv_head_ids(query_head_ids, kv_head_ids, n_heads, n_kv_heads, rank):
    """Raise unless the KV heads shard_heads gave this rank include every one its query heads read. Heads past the
    weights are left to TensorParallelBlock, whose first row look-up raises torch's IndexError for them."""
    if not all(-n_heads <= h < n_heads for h in query_head_ids) or not all(-n_kv_heads <= h < n_kv_heads
                                                                           for h in kv_head_ids):
        return
    queries_per_kv_head = n_heads // n_kv_heads
    read = sorted({h // queries_per_kv_head for h in query_head_ids})
    if not set(read) <= set(kv_head_ids):
        raise ValueError(f"rank {rank} computes query heads {query_head_ids}, which read KV heads {read}, but "
                         f"shard_heads gave it KV heads {kv_head_ids}")


def rank_tp_decode(config_kwargs, seed, prompt, n_new):
    """Greedy decoding of the tiny model on this rank's heads, as the student's shard_heads gives them (every layer a
    distlab.models.TensorParallelBlock); returns the tokens, the heads and the bytes of this rank's KV cache."""
    t, rank = dist.get_world_size(), dist.get_rank()
    config = ModelConfig(**config_kwargs)
    model = TinyTransformer(config, seed)
    heads = shard_heads(config.n_heads, config.n_kv_heads, t, rank)  # noqa: F821 - the student's, by name
    query_head_ids, kv_head_ids = head_lists(heads, rank)
    if not query_head_ids or not kv_head_ids:
        raise ValueError(f"rank {rank}: shard_heads gave it query heads {query_head_ids} and KV heads {kv_head_ids}")
    check_kv_head_ids(query_head_ids, kv_head_ids, config.n_heads, config.n_kv_heads, rank)
    tokens, cache = tp_generate(model, query_head_ids, kv_head_ids, prompt, n_new)
    return {"tokens": tokens, "query_heads": query_head_ids, "kv_heads": kv_head_ids, "kv_bytes": cache.nbytes}


# --- the earlier parts as the statement defines them -------------------------------------------------------------
# One mistake, one deduction: a later part is judged with these in the place of the learner's earlier ones (a wrong
# factor in kv_cache_bytes_per_token must not also cost decode_step_time and best_config). They are the statement's
# formulas, written out here because the sandbox cannot import the grader's; the expected values stay in the grader.

def _kv_cache_bytes_per_token(n_layers, n_kv_heads, head_dim, bytes_per_elem=2):
    return 2 * n_layers * n_kv_heads * head_dim * bytes_per_elem


def _shard_heads(n_heads, n_kv_heads, tp, rank):
    if min(n_heads, n_kv_heads, tp) <= 0 or n_heads % tp or n_heads % n_kv_heads or not 0 <= rank < tp:
        raise ValueError(f"shard_heads({n_heads}, {n_kv_heads}, {tp}, {rank}): no such split")
    if tp % n_kv_heads and n_kv_heads % tp:
        raise ValueError(f"shard_heads: tp={tp} neither divides nor is divided by {n_kv_heads} KV heads")
    query_head_ids = list(range(rank * n_heads // tp, (rank + 1) * n_heads // tp))
    queries_per_kv_head = n_heads // n_kv_heads
    return query_head_ids, sorted({h // queries_per_kv_head for h in query_head_ids})


def _checked(name, m, hw, tp, pp, *counts):
    values = [*m.values(), *(v for k, v in hw.items() if k != "link_latency"), tp, pp, *counts]
    if any(not v > 0 for v in values) or hw["link_latency"] < 0 or m["n_layers"] % pp:
        raise ValueError(f"{name}: a value is not positive, or pp does not divide n_layers")
    return len(_shard_heads(m["n_heads"], m["n_kv_heads"], tp, 0)[1])  # the KV heads a rank reads; raises for a bad tp


def _pass_time(m, hw, tp, pp, tokens, kv_read, chunks=1):
    layers, b = m["n_layers"] // pp, m["bytes_per_param"]
    read = m["n_params"] * b / (tp * pp) + kv_read
    stage = max(read / hw["hbm_bandwidth"], 2 * m["n_params"] * tokens / (tp * pp) / hw["flops"])
    size = tokens * m["d_model"] * b
    if tp > 1:
        stage += layers * 2 * (2 * (tp - 1) / tp * size / hw["link_bandwidth"] + 2 * (tp - 1) * hw["link_latency"])
    return (chunks + pp - 1) * stage + (pp - 1) * (hw["link_latency"] + size / hw["link_bandwidth"])


def _decode_step_time(model, hardware, tp, pp, batch, context_len):  # the statement's names: keywords work
    m, hw = model, hardware
    kv_heads = _checked("decode_step_time", m, hw, tp, pp, batch, context_len)
    kv_read = batch * context_len * _kv_cache_bytes_per_token(m["n_layers"] // pp, kv_heads, m["head_dim"],
                                                              m["bytes_per_param"])
    return _pass_time(m, hw, tp, pp, batch, kv_read)


def _prefill_time(model, hardware, tp, pp, prompt_len, chunk_len=None):
    m, hw = model, hardware
    _checked("prefill_time", m, hw, tp, pp, prompt_len)
    chunk = prompt_len if chunk_len is None else chunk_len
    if type(chunk) is not int or chunk <= 0 or prompt_len % chunk:
        raise ValueError(f"prefill_time: chunk_len={chunk_len!r} does not divide prompt_len={prompt_len}")
    return _pass_time(m, hw, tp, pp, chunk, 0, prompt_len // chunk)  # nothing cached yet: no KV cache to read


STATEMENT = {"kv_cache_bytes_per_token": _kv_cache_bytes_per_token, "shard_heads": _shard_heads,
             "decode_step_time": _decode_step_time, "prefill_time": _prefill_time}


def isolated_call(name, args, kwargs, earlier):
    """plain_call(name, ...) with the learner's `earlier` functions replaced, for this call, by the statement's."""
    namespace = globals()
    saved = {helper: namespace.get(helper) for helper in earlier}
    namespace.update({helper: STATEMENT[helper] for helper in earlier})
    try:
        return plain_call(name, args, kwargs)
    finally:
        namespace.update(saved)
