# replaces: decode_step_time
# differs: adds the time stage by stage and layer by layer in loops; validates with a helper that raises a subclass
#   of ValueError; KV bytes from the head count written out (no call to kv_cache_bytes_per_token)
class CostModelError(ValueError):
    pass


def _positive(**values):
    for name, value in values.items():
        if value <= 0:
            raise CostModelError(f"{name} = {value} is not positive")


def decode_step_time(model, hardware, tp, pp, batch, context_len):
    """Seconds of one decode step of `batch` sequences of `context_len` cached tokens on tp x pp devices."""
    _positive(tp=tp, pp=pp, batch=batch, context_len=context_len, **model,
              **{k: v for k, v in hardware.items() if k != "link_latency"})
    if hardware["link_latency"] < 0:
        raise CostModelError("link_latency must not be negative")
    if model["n_layers"] % pp != 0:
        raise CostModelError(f"{pp} stages for {model['n_layers']} layers")
    _, kv_heads = shard_heads(model["n_heads"], model["n_kv_heads"], tp, 0)
    b, latency, link = model["bytes_per_param"], hardware["link_latency"], hardware["link_bandwidth"]
    layers_per_stage = model["n_layers"] // pp
    message = batch * model["d_model"] * b
    total = 0.0
    for stage in range(pp):
        weights = model["n_params"] / (tp * pp) * b
        cache = 0.0
        for layer in range(layers_per_stage):
            cache += batch * context_len * 2 * len(kv_heads) * model["head_dim"] * b
        total += max((weights + cache) / hardware["hbm_bandwidth"],
                     2 * model["n_params"] / (tp * pp) * batch / hardware["flops"])
        for layer in range(layers_per_stage):
            for _ in range(2):  # after attention, after the MLP
                if tp > 1:
                    total += 2 * (tp - 1) * (message / tp / link + latency)
        if stage < pp - 1:
            total += latency + message / link
    return total
