# replaces: prefill_time
# wrong: validates nothing (a prompt of 0 tokens gets a time, pp=3 for 32 layers too)
# must-lose: prefill_time_rejects_bad_input
# must-keep: prefill_time_compute_bound
def prefill_time(model, hardware, tp, pp, prompt_len):
    """Seconds to prefill one prompt of `prompt_len` tokens on tp x pp devices (the decode cost model with the
    prompt's P rows: weights read once, 2 P n_params FLOPs, 2 all-reduces of P tokens per layer, pp - 1 hops)."""
    layers, nbytes = model["n_layers"] // pp, model["bytes_per_param"]
    weight_bytes = model["n_params"] * nbytes / (tp * pp)
    flops = 2 * model["n_params"] * prompt_len / (tp * pp)
    stage = max(weight_bytes / hardware["hbm_bandwidth"], flops / hardware["flops"])
    activation = prompt_len * model["d_model"] * nbytes
    if tp > 1:
        all_reduce = (2 * (tp - 1) / tp * activation / hardware["link_bandwidth"]
                      + 2 * (tp - 1) * hardware["link_latency"])
        stage += layers * 2 * all_reduce
    hop = hardware["link_latency"] + activation / hardware["link_bandwidth"]
    return pp * stage + (pp - 1) * hop
