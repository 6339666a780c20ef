# replaces: prefill_time
# differs: adds the time stage by stage and all-reduce by all-reduce in loops; validates by hand (no call to
#   shard_heads) and raises a subclass of ValueError
class PrefillError(ValueError):
    pass


def prefill_time(model, hardware, tp, pp, prompt_len):
    """Seconds until the first token of one prompt of `prompt_len` tokens on tp x pp devices."""
    for name, value in [*model.items(), *hardware.items(), ("tp", tp), ("pp", pp), ("prompt_len", prompt_len)]:
        if value < 0 or (value == 0 and name != "link_latency"):
            raise PrefillError(f"{name} = {value} is not allowed")
    heads, kv = model["n_heads"], model["n_kv_heads"]
    if heads % tp or heads % kv or (tp % kv and kv % tp):
        raise PrefillError(f"tp={tp} does not split {heads} query heads and {kv} KV heads")
    if model["n_layers"] % pp:
        raise PrefillError(f"{pp} stages for {model['n_layers']} layers")
    message = prompt_len * model["d_model"] * model["bytes_per_param"]
    total = 0.0
    for stage in range(pp):
        read = model["n_params"] / (tp * pp) * model["bytes_per_param"] / hardware["hbm_bandwidth"]
        compute = 2 * model["n_params"] / (tp * pp) * prompt_len / hardware["flops"]
        total += max(read, compute)
        for _ in range(2 * model["n_layers"] // pp):
            if tp > 1:
                total += 2 * (tp - 1) * (message / tp / hardware["link_bandwidth"] + hardware["link_latency"])
        if stage < pp - 1:
            total += hardware["link_latency"] + message / hardware["link_bandwidth"]
    return total
