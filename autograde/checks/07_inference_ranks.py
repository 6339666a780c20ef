"""Rank-side procedures of exercise set 07: run in the sandbox, in the namespace of the student's notebook (they call
`shard_heads` and the other graded functions by name). They hold no expected values: what they return is checked by
autograde/checks/07_inference.py, in the grader."""
import numbers

import torch
import torch.distributed as dist
import torch.nn.functional as F

from distlab.models import KVCache, ModelConfig, TinyTransformer


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


def head_lists(heads, rank):
    """(query heads, KV heads) as two lists of ints, from what shard_heads returned."""
    heads = plain(heads)
    if not (isinstance(heads, list) and len(heads) == 2 and all(isinstance(h, list) for h in heads)
            and all(type(i) is int for h in heads for i in h)):
        raise TypeError(f"rank {rank}: shard_heads must return (query_heads, kv_heads), two lists of ints; "
                        f"got {heads!r}")
    return heads


def kv_for_queries(k, query_heads, kv_heads, group, head_dim, rank):
    """This rank's keys (or values) [b, s, len(kv_heads) * d] laid out per query head [b, s, len(query_heads) * d]."""
    missing = sorted({h // group for h in query_heads} - set(kv_heads))
    if missing:
        raise ValueError(f"rank {rank} computes query heads {query_heads}, which read KV heads "
                         f"{sorted({h // group for h in query_heads})}, but shard_heads gave it KV heads {kv_heads}")
    b, s, _ = k.shape
    index = torch.tensor([kv_heads.index(h // group) for h in query_heads])
    return k.view(b, s, len(kv_heads), head_dim)[:, :, index].reshape(b, s, -1)


def tp_layer(block, x, layer_cache, query_heads, kv_heads, group, t, rank):
    """One Block on this rank's heads (rows of q/k/v, columns of o_proj) and MLP block, 2 all-reduces."""
    attn, mlp, d = block.attn, block.mlp, block.attn.head_dim
    q_rows = torch.cat([torch.arange(h * d, (h + 1) * d) for h in query_heads])
    kv_rows = torch.cat([torch.arange(h * d, (h + 1) * d) for h in kv_heads])
    h = block.ln1(x)
    q = F.linear(h, attn.q_proj.weight[q_rows], attn.q_proj.bias[q_rows])
    k = F.linear(h, attn.k_proj.weight[kv_rows], attn.k_proj.bias[kv_rows])
    v = F.linear(h, attn.v_proj.weight[kv_rows], attn.v_proj.bias[kv_rows])
    k, v = layer_cache.extend(k, v)  # the cache holds this rank's KV heads only
    k, v = (kv_for_queries(z, query_heads, kv_heads, group, d, rank) for z in (k, v))
    partial = F.linear(attn.core(q, k, v), attn.o_proj.weight[:, q_rows])
    dist.all_reduce(partial)
    x = x + partial + attn.o_proj.bias
    width = mlp.up.out_features // t
    mine = slice(rank * width, (rank + 1) * width)
    partial = F.linear(F.gelu(F.linear(block.ln2(x), mlp.up.weight[mine], mlp.up.bias[mine])), mlp.down.weight[:, mine])
    dist.all_reduce(partial)
    return x + partial + mlp.down.bias


@torch.no_grad()
def rank_tp_decode(config_kwargs, seed, prompt, n_new):
    """Greedy decoding of the tiny model on this rank's heads, as the student's shard_heads gives them; returns the
    tokens, the heads and the bytes of this rank's KV cache."""
    t, rank = dist.get_world_size(), dist.get_rank()
    config = ModelConfig(**config_kwargs)
    model = TinyTransformer(config, seed)
    query_heads, kv_heads = head_lists(shard_heads(config.n_heads, config.kv_heads, t, rank), rank)  # noqa: F821
    if not query_heads or not kv_heads:
        raise ValueError(f"rank {rank}: shard_heads gave it query heads {query_heads} and KV heads {kv_heads}")
    group = config.n_heads // config.kv_heads
    cache, tokens, new = KVCache(config.n_layers), prompt, prompt
    for _ in range(n_new):
        x = model.embed(new, cache.length)
        for block, layer_cache in zip(model.blocks, cache.layers):
            x = tp_layer(block, x, layer_cache, query_heads, kv_heads, group, t, rank)
        new = model.lm_head(model.ln_f(x))[:, -1].argmax(-1, keepdim=True)
        tokens = torch.cat([tokens, new], dim=1)
    return {"tokens": tokens, "query_heads": query_heads, "kv_heads": kv_heads, "kv_bytes": cache.nbytes}


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
    query = list(range(rank * n_heads // tp, (rank + 1) * n_heads // tp))
    group = n_heads // n_kv_heads
    return query, sorted({h // group for h in query})


def _checked(name, m, hw, tp, pp, *counts):
    values = [*m.values(), *(v for k, v in hw.items() if k != "link_latency"), tp, pp, *counts]
    if any(not v > 0 for v in values) or hw["link_latency"] < 0 or m["n_layers"] % pp:
        raise ValueError(f"{name}: a value is not positive, or pp does not divide n_layers")
    return len(_shard_heads(m["n_heads"], m["n_kv_heads"], tp, 0)[1])  # the KV heads a rank reads; raises for a bad tp


def _pass_time(m, hw, tp, pp, tokens, kv_read):
    layers, b = m["n_layers"] // pp, m["bytes_per_param"]
    read = m["n_params"] * b / (tp * pp) + kv_read
    stage = max(read / hw["hbm_bandwidth"], 2 * m["n_params"] * tokens / (tp * pp) / hw["flops"])
    size = tokens * m["d_model"] * b
    if tp > 1:
        stage += layers * 2 * (2 * (tp - 1) / tp * size / hw["link_bandwidth"] + 2 * (tp - 1) * hw["link_latency"])
    return pp * stage + (pp - 1) * (hw["link_latency"] + size / hw["link_bandwidth"])


def _decode_step_time(m, hw, tp, pp, batch, context_len):
    kv_heads = _checked("decode_step_time", m, hw, tp, pp, batch, context_len)
    kv_read = batch * context_len * _kv_cache_bytes_per_token(m["n_layers"] // pp, kv_heads, m["head_dim"],
                                                              m["bytes_per_param"])
    return _pass_time(m, hw, tp, pp, batch, kv_read)


def _prefill_time(m, hw, tp, pp, prompt_len):
    _checked("prefill_time", m, hw, tp, pp, prompt_len)
    return _pass_time(m, hw, tp, pp, prompt_len, 0)  # nothing cached yet: no KV cache to read


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
