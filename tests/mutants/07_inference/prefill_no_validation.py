# replaces: prefill_time
# wrong: validates nothing (a prompt of 0 tokens gets a time, pp=3 for 32 layers too, chunks of 3000 tokens)
# must-lose: prefill_time_rejects_bad_input
# must-keep: prefill_time_compute_bound, prefill_time_chunks_in_a_pipeline
def prefill_time(model, hardware, tp, pp, prompt_len, chunk_len=None):
    """Seconds to prefill one prompt of `prompt_len` tokens on tp x pp devices, cut into chunks of `chunk_len` tokens
    that follow each other through the pp stages (the decode cost model with a chunk's rows in each stage)."""
    if chunk_len is None:
        chunk_len = prompt_len
    layers, nbytes = model["n_layers"] // pp, model["bytes_per_param"]
    weight_bytes = model["n_params"] * nbytes / (tp * pp)
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
    return (max(prompt_len // chunk_len, 1) + pp - 1) * stage + (pp - 1) * hop
