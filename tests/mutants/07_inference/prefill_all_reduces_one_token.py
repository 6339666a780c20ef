# replaces: prefill_time
# wrong: all-reduces one token's activations per layer, as in a decode step of batch 1, not the whole prompt's
# must-lose: prefill_time_compute_bound
# must-keep: prefill_time_rejects_bad_input
def prefill_time(model, hardware, tp, pp, prompt_len):
    """Seconds to prefill one prompt of `prompt_len` tokens on tp x pp devices (the decode cost model with the
    prompt's P rows: weights read once, 2 P n_params FLOPs, 2 all-reduces of P tokens per layer, pp - 1 hops)."""
    sizes = {**model, **hardware, "tp": tp, "pp": pp, "prompt_len": prompt_len}
    for name, value in sizes.items():
        if name == "link_latency" and value == 0:
            continue
        if not value > 0:
            raise ValueError(f"{name} must be positive, got {value!r}")
    shard_heads(model["n_heads"], model["n_kv_heads"], tp, 0)  # a tp that does not split the heads raises
    if model["n_layers"] % pp:
        raise ValueError(f"pp={pp} does not divide the {model['n_layers']} layers")
    layers, nbytes = model["n_layers"] // pp, model["bytes_per_param"]
    weight_bytes = model["n_params"] * nbytes / (tp * pp)
    flops = 2 * model["n_params"] * prompt_len / (tp * pp)
    stage = max(weight_bytes / hardware["hbm_bandwidth"], flops / hardware["flops"])
    activation = model["d_model"] * nbytes
    if tp > 1:
        all_reduce = (2 * (tp - 1) / tp * activation / hardware["link_bandwidth"]
                      + 2 * (tp - 1) * hardware["link_latency"])
        stage += layers * 2 * all_reduce
    hop = hardware["link_latency"] + activation / hardware["link_bandwidth"]
    return pp * stage + (pp - 1) * hop
