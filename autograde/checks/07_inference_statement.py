"""Set 07's earlier functions as the statement defines them: one mistake, one deduction (a wrong factor in
kv_cache_bytes_per_token must not also cost decode_step_time and best_config). Rank-side code, never in the sandbox
before a check needs it: `_common.statement_source` sends the sections a call needs with that call, and
`07_inference_ranks.isolated_call` runs them in a private namespace for it. Their signatures are the statement's
(tests/test_statement_standins.py): a learner may call them by keyword. The expected values stay in the grader.
"""

# === shard_heads
def _shard_heads(n_heads, n_kv_heads, tp, rank):
    if min(n_heads, n_kv_heads, tp) <= 0 or n_heads % tp or n_heads % n_kv_heads or not 0 <= rank < tp:
        raise ValueError(f"shard_heads({n_heads}, {n_kv_heads}, {tp}, {rank}): no such split")
    if tp % n_kv_heads and n_kv_heads % tp:
        raise ValueError(f"shard_heads: tp={tp} neither divides nor is divided by {n_kv_heads} KV heads")
    query_head_ids = list(range(rank * n_heads // tp, (rank + 1) * n_heads // tp))
    queries_per_kv_head = n_heads // n_kv_heads
    return query_head_ids, sorted({h // queries_per_kv_head for h in query_head_ids})


STAND_IN["shard_heads"] = _shard_heads  # noqa: F821 - the preamble's


# === kv_cache_bytes_per_token
# needs: shard_heads
def _kv_cache_bytes_per_token(model, tp=1, pp=1, rank=0):
    if not 1 <= pp <= model["n_layers"] or not 0 <= rank < tp * pp:
        raise ValueError(f"kv_cache_bytes_per_token: no stage of pp={pp} or device {rank} of tp={tp} x pp={pp}")
    stage, tp_rank = divmod(rank, tp)  # tensor-parallel ranks next to each other
    layers = model["n_layers"] // pp + (1 if stage < model["n_layers"] % pp else 0)  # the first stages: one more
    kv_heads = len(_shard_heads(model["n_heads"], model["n_kv_heads"], tp, tp_rank)[1])
    return 2 * layers * kv_heads * model["head_dim"] * model["bytes_per_param"]


STAND_IN["kv_cache_bytes_per_token"] = _kv_cache_bytes_per_token  # noqa: F821


# === cost_model
# needs: kv_cache_bytes_per_token, shard_heads
def _checked(name, m, hw, tp, pp, *counts):
    values = [*m.values(), *(v for k, v in hw.items() if k != "link_latency"), tp, pp, *counts]
    if any(not v > 0 for v in values) or hw["link_latency"] < 0 or m["n_layers"] % pp:
        raise ValueError(f"{name}: a value is not positive, or pp does not divide n_layers")
    _shard_heads(m["n_heads"], m["n_kv_heads"], tp, 0)  # raises for a tp that does not split the heads


def _pass_time(m, hw, tp, pp, tokens, kv_read, chunks=1):
    layers, b = m["n_layers"] // pp, m["bytes_per_param"]
    read = m["n_params"] * b / (tp * pp) + kv_read
    stage = max(read / hw["hbm_bandwidth"], 2 * m["n_params"] * tokens / (tp * pp) / hw["flops"])
    size = tokens * m["d_model"] * b
    if tp > 1:
        stage += layers * 2 * (2 * (tp - 1) / tp * size / hw["link_bandwidth"] + 2 * (tp - 1) * hw["link_latency"])
    return (chunks + pp - 1) * stage + (pp - 1) * (hw["link_latency"] + size / hw["link_bandwidth"])


# === decode_step_time
# needs: cost_model
def _decode_step_time(model, hardware, tp, pp, batch, context_len):  # the statement's names: keywords work
    m, hw = model, hardware
    _checked("decode_step_time", m, hw, tp, pp, batch, context_len)
    kv_read = batch * context_len * _kv_cache_bytes_per_token(m, tp, pp, 0)  # every device holds as much
    return _pass_time(m, hw, tp, pp, batch, kv_read)


STAND_IN["decode_step_time"] = _decode_step_time  # noqa: F821


# === prefill_time
# needs: cost_model
def _prefill_time(model, hardware, tp, pp, prompt_len, chunk_len=None):
    m, hw = model, hardware
    _checked("prefill_time", m, hw, tp, pp, prompt_len)
    chunk = prompt_len if chunk_len is None else chunk_len
    if type(chunk) is not int or chunk <= 0 or prompt_len % chunk:
        raise ValueError(f"prefill_time: chunk_len={chunk_len!r} does not divide prompt_len={prompt_len}")
    return _pass_time(m, hw, tp, pp, chunk, 0, prompt_len // chunk)  # nothing cached yet: no KV cache to read


STAND_IN["prefill_time"] = _prefill_time  # noqa: F821
