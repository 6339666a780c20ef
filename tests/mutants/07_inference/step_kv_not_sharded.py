# replaces: decode_step_time
# wrong: reads the KV cache of every KV head on every device (as if the cache were not split by heads)
# must-lose: decode_step_time_full_model
def decode_step_time(model, hardware, tp, pp, batch, context_len):
    """Seconds of one decode step of `batch` sequences of `context_len` cached tokens on tp x pp devices (the lesson's
    cost model: bytes read or FLOPs per stage, 2 ring all-reduces per layer, pp - 1 hops)."""
    sizes = {**model, **hardware, "tp": tp, "pp": pp, "batch": batch, "context_len": context_len}
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
    kv_bytes = batch * context_len * 2 * layers * model["n_kv_heads"] * model["head_dim"] * nbytes
    flops = 2 * model["n_params"] * batch / (tp * pp)
    stage = max((weight_bytes + kv_bytes) / hardware["hbm_bandwidth"], flops / hardware["flops"])
    activation = batch * model["d_model"] * nbytes
    if tp > 1:
        all_reduce = (2 * (tp - 1) / tp * activation / hardware["link_bandwidth"]
                      + 2 * (tp - 1) * hardware["link_latency"])
        stage += layers * 2 * all_reduce
    hop = hardware["link_latency"] + activation / hardware["link_bandwidth"]
    return pp * stage + (pp - 1) * hop
