"""Rank-side procedures of exercise set 07: run in the sandbox, in the namespace of the student's notebook (they call
`shard_heads` and the other graded functions by name). They hold no expected values: what they return is checked by
autograde/sets/07_inference/checks.py, in the grader."""
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


def every_device_kv_bytes(layouts):
    """The student's kv_cache_bytes_per_token on every device of each (model, tp, pp) layout, as plain data: one call
    from the grader for all of them."""
    return [[plain_call("kv_cache_bytes_per_token", [m, tp, pp, rank]) for rank in range(tp * pp)]
            for m, tp, pp in layouts]


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
# One mistake, one deduction: a later part is judged with the statement's versions of the earlier ones in the place of
# the learner's. They come with the call (statement.py next to this file, the sections the grader sends) and run in a
# private namespace: before and after the call, the sandbox holds none of them.

def isolated_call(name, args, kwargs, earlier, statement):
    """plain_call(name, ...) with the learner's `earlier` functions replaced, for this call, by the statement's (the
    source `statement`: `_common.statement_source`)."""
    private = {}  # with_stand_ins empties it when the call ends
    exec(compile(statement, "<the statement's versions>", "exec"), private)
    return private["with_stand_ins"](globals(), earlier, lambda: plain_call(name, args, kwargs))
