# replaces: best_config
# differs: judges the fit on the first stage's device only, argued: it holds as many layers as any stage or one more
#   (Part 2's rule), their KV cache, and the input embedding, as large as the output layer on the last stage
def best_config(model, hardware, num_devices, latency_slo_ms, context_len, max_batch=1024, ttft_slo_ms=None,
                prompt_len=None):
    """The (tp, pp, replicas, batch) with the most tokens/s whose decode step keeps `latency_slo_ms` and whose
    weights and KV cache fit every device (and whose prefill keeps `ttft_slo_ms`, if given); None if none does."""
    for name, value in dict(num_devices=num_devices, latency_slo_ms=latency_slo_ms, context_len=context_len,
                            max_batch=max_batch).items():
        if not value > 0:
            raise ValueError(f"{name} must be positive, got {value!r}")
    if (ttft_slo_ms is None) != (prompt_len is None):
        raise ValueError(f"give both ttft_slo_ms and prompt_len, or neither: got {ttft_slo_ms!r} and {prompt_len!r}")
    if ttft_slo_ms is not None and not (ttft_slo_ms > 0 and prompt_len > 0):
        raise ValueError(f"ttft_slo_ms and prompt_len must be positive, got {ttft_slo_ms!r} and {prompt_len!r}")
    decode_step_time(model, hardware, 1, 1, 1, context_len)  # a bad model or device raises here
    n_layers, nbytes = model["n_layers"], model["bytes_per_param"]
    embedding = model["vocab_size"] * model["d_model"]
    per_layer = (model["n_params"] - 2 * embedding) / n_layers
    found = []
    for tp in range(1, num_devices + 1):
        for pp in range(1, min(num_devices // tp, n_layers) + 1):
            if num_devices % (tp * pp):
                continue
            try:
                shard_heads(model["n_heads"], model["n_kv_heads"], tp, 0)
            except ValueError:
                continue
            if ttft_slo_ms is not None and 1000 * prefill_time(model, hardware, tp, pp, prompt_len) > ttft_slo_ms:
                continue
            # Stage 0 holds the most: as many layers as any stage or one more (and their KV cache), and the input
            # embedding, which weighs as much as the output layer the last stage holds; so it alone decides the fit
            layers = -(-n_layers // pp)
            weights = (layers * per_layer + embedding * (1 + (pp == 1))) / tp * nbytes
            kv_per_sequence = context_len * kv_cache_bytes_per_token(model, tp, pp, 0)
            batch = 1
            while batch <= max_batch and weights + pp * batch * kv_per_sequence <= hardware["hbm_bytes"]:
                step = decode_step_time(model, hardware, tp, pp, batch, context_len)
                if 1000 * step <= latency_slo_ms:
                    replicas = num_devices // (tp * pp)
                    found.append(dict(tp=tp, pp=pp, replicas=replicas, batch=batch,
                                      tokens_per_s=replicas * pp * batch / step, latency_ms=1000 * step))
                batch *= 2
    if not found:
        return None
    most = max(c["tokens_per_s"] for c in found)
    ties = [c for c in found if c["tokens_per_s"] >= most * (1 - 1e-9)]
    return min(ties, key=lambda c: (c["tp"] * c["pp"], c["batch"], c["tp"]))
