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
    if any(not v > 0 for v in values) or hw["link_latency"] < 0 or pp > m["n_layers"]:
        raise ValueError(f"{name}: a value is not positive, or pp is more than n_layers")
    if 2 * m["vocab_size"] * m["d_model"] >= m["n_params"]:
        raise ValueError(f"{name}: vocab_size={m['vocab_size']} leaves no parameters for the layers")
    _shard_heads(m["n_heads"], m["n_kv_heads"], tp, 0)  # raises for a tp that does not split the heads


def _pass_time(m, hw, tp, pp, tokens, context_len):
    """A pass of `tokens` rows through the stages: each stage's seconds (its layers' and, on the last stage, the output
    layer's weights read, with the KV cache of `context_len` tokens a row, or their FLOPs, whichever is longer; and 2
    ring all-reduces per layer), and the seconds of a hop."""
    embedding, b = m["vocab_size"] * m["d_model"], m["bytes_per_param"]
    per_layer = (m["n_params"] - 2 * embedding) / m["n_layers"]
    size = tokens * m["d_model"] * b
    ring = 0.0 if tp == 1 else 2 * (tp - 1) / tp * size / hw["link_bandwidth"] + 2 * (tp - 1) * hw["link_latency"]
    times = []
    for stage in range(pp):
        layers = m["n_layers"] // pp + (1 if stage < m["n_layers"] % pp else 0)
        params = (layers * per_layer + (embedding if stage == pp - 1 else 0)) / tp
        kv = tokens * context_len * _kv_cache_bytes_per_token(m, tp, pp, stage * tp)
        times.append(max((params * b + kv) / hw["hbm_bandwidth"], 2 * params * tokens / hw["flops"])
                     + layers * 2 * ring)
    return times, hw["link_latency"] + size / hw["link_bandwidth"]


# === decode_step_time
# needs: cost_model
def _decode_step_time(model, hardware, tp, pp, batch, context_len):  # the statement's names: keywords work
    _checked("decode_step_time", model, hardware, tp, pp, batch, context_len)
    times, hop = _pass_time(model, hardware, tp, pp, batch, context_len)
    return sum(times) + (pp - 1) * hop


STAND_IN["decode_step_time"] = _decode_step_time  # noqa: F821


# === prefill_time
# needs: cost_model
def _prefill_time(model, hardware, tp, pp, prompt_len, chunk_len=None):
    _checked("prefill_time", model, hardware, tp, pp, prompt_len)
    chunk = prompt_len if chunk_len is None else chunk_len
    if type(chunk) is not int or chunk <= 0 or prompt_len % chunk:
        raise ValueError(f"prefill_time: chunk_len={chunk_len!r} does not divide prompt_len={prompt_len}")
    times, hop = _pass_time(model, hardware, tp, pp, chunk, 0)  # nothing cached yet: no KV cache to read
    # identical chunks through stages in a row (a flow shop): every stage once, the slowest once per later chunk
    return sum(times) + (prompt_len // chunk - 1) * max(times) + (pp - 1) * hop


STAND_IN["prefill_time"] = _prefill_time  # noqa: F821
