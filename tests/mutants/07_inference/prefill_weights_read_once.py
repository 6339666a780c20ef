# replaces: prefill_time
# wrong: reads a stage's weights once for the whole prompt, shared by its chunks, instead
#   of once per chunk
# must-lose: prefill_time_chunks_in_a_pipeline
# must-keep: prefill_time_compute_bound, prefill_time_rejects_bad_input, best_config_keeps_first_token_promise
def prefill_time(model, hardware, tp, pp, prompt_len, chunk_len=None):
    """Seconds to prefill one prompt of `prompt_len` tokens on tp x pp devices, cut into chunks of `chunk_len` tokens
    that follow each other through the pp stages (the decode cost model with a chunk's rows in each stage)."""
    sizes = {**model, **hardware, "tp": tp, "pp": pp, "prompt_len": prompt_len}
    for name, value in sizes.items():
        if name == "link_latency" and value == 0:
            continue
        if not value > 0:
            raise ValueError(f"{name} must be positive, got {value!r}")
    shard_heads(model["n_heads"], model["n_kv_heads"], tp, 0)  # a tp that does not split the heads raises
    if model["n_layers"] % pp:
        raise ValueError(f"pp={pp} does not divide the {model['n_layers']} layers")
    if chunk_len is None:
        chunk_len = prompt_len
    if type(chunk_len) is not int or chunk_len <= 0 or prompt_len % chunk_len:
        raise ValueError(f"chunk_len must be a positive int that divides prompt_len={prompt_len}, got {chunk_len!r}")
    layers, nbytes = model["n_layers"] // pp, model["bytes_per_param"]
    weight_bytes = model["n_params"] * nbytes / (tp * pp) / (prompt_len // chunk_len)
    flops = 2 * model["n_params"] * chunk_len / (tp * pp)
    stage = max(weight_bytes / hardware["hbm_bandwidth"], flops / hardware["flops"])   # one chunk in one stage
    activation = chunk_len * model["d_model"] * nbytes
    if tp > 1:
        all_reduce = (2 * (tp - 1) / tp * activation / hardware["link_bandwidth"]
                      + 2 * (tp - 1) * hardware["link_latency"])
        stage += layers * 2 * all_reduce
    hop = hardware["link_latency"] + activation / hardware["link_bandwidth"]
    # Stage j starts chunk i at j * (stage + hop) + i * stage: the chunk arrives just as the stage finishes the one
    # before, so the last chunk leaves the last stage after (chunks + pp - 1) stage times and pp - 1 hops
    return (prompt_len // chunk_len + pp - 1) * stage + (pp - 1) * hop
