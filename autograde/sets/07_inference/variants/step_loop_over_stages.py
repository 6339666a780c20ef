# replaces: decode_step_time
# differs: adds the time stage by stage and layer by layer in loops, the stages' layers from torch-free list slicing
#   (a list of layer indices cut in pp contiguous parts); validates with a helper that raises a subclass of
#   ValueError; KV bytes from the head count written out (no call to kv_cache_bytes_per_token)
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
    if pp > model["n_layers"]:
        raise CostModelError(f"{pp} stages for {model['n_layers']} layers")
    vocab_params = model["vocab_size"] * model["d_model"]
    if model["n_params"] <= 2 * vocab_params:
        raise CostModelError(f"vocab_size {model['vocab_size']} is too large: no parameters left for the layers")
    _, kv_heads = shard_heads(model["n_heads"], model["n_kv_heads"], tp, 0)
    b, latency, link = model["bytes_per_param"], hardware["link_latency"], hardware["link_bandwidth"]
    layer_params = (model["n_params"] - 2 * vocab_params) / model["n_layers"]
    indices, stages, start = list(range(model["n_layers"])), [], 0
    for s in range(pp):
        size = len(indices) // pp + (s < len(indices) % pp)
        stages.append(indices[start:start + size])
        start += size
    message = batch * model["d_model"] * b
    total = 0.0
    for s, layers in enumerate(stages):
        weights = sum(layer_params / tp for _ in layers) + (vocab_params / tp if s == len(stages) - 1 else 0)
        cache = 0.0
        for _ in layers:
            cache += batch * context_len * 2 * len(kv_heads) * model["head_dim"] * b
        total += max((weights * b + cache) / hardware["hbm_bandwidth"], 2 * weights * batch / hardware["flops"])
        for _ in layers:
            for _ in range(2):  # after attention, after the MLP
                if tp > 1:
                    total += 2 * (tp - 1) * (message / tp / link + latency)
        if s < pp - 1:
            total += latency + message / link
    return total
