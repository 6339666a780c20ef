# replaces: prefill_time
# differs: simulates the schedule stage by stage (each stage's finish time for every chunk, from the rule: start when
#   free and when the chunk has arrived) instead of chunk by chunk; adds the all-reduces one by one in a loop;
#   validates by hand (no call to shard_heads) and raises a subclass of ValueError
class PrefillError(ValueError):
    pass


def prefill_time(model, hardware, tp, pp, prompt_len, chunk_len=None):
    """Seconds until the first token of one prompt of `prompt_len` tokens on tp x pp devices."""
    for name, value in [*model.items(), *hardware.items(), ("tp", tp), ("pp", pp), ("prompt_len", prompt_len)]:
        if value < 0 or (value == 0 and name != "link_latency"):
            raise PrefillError(f"{name} = {value} is not allowed")
    heads, kv = model["n_heads"], model["n_kv_heads"]
    if heads % tp or heads % kv or (tp % kv and kv % tp):
        raise PrefillError(f"tp={tp} does not split {heads} query heads and {kv} KV heads")
    if pp > model["n_layers"]:
        raise PrefillError(f"{pp} stages for {model['n_layers']} layers")
    embedding = model["vocab_size"] * model["d_model"]
    if 2 * embedding >= model["n_params"]:
        raise PrefillError(f"vocab_size={model['vocab_size']} leaves the layers nothing")
    if chunk_len is None:
        chunk_len = prompt_len
    if not isinstance(chunk_len, int) or isinstance(chunk_len, bool) or chunk_len < 1 or prompt_len % chunk_len:
        raise PrefillError(f"chunk_len {chunk_len} does not cut {prompt_len} tokens evenly")
    message = chunk_len * model["d_model"] * model["bytes_per_param"]
    hop = hardware["link_latency"] + message / hardware["link_bandwidth"]
    arrive = [0.0] * (prompt_len // chunk_len)   # when each chunk is at the current stage
    for stage in range(pp):
        layers = model["n_layers"] // pp + (1 if stage < model["n_layers"] % pp else 0)
        share = (layers * (model["n_params"] - 2 * embedding) / model["n_layers"]
                 + (embedding if stage == pp - 1 else 0)) / tp
        stage_time = max(share * model["bytes_per_param"] / hardware["hbm_bandwidth"],
                         2 * share * chunk_len / hardware["flops"])
        for _ in range(2 * layers):
            if tp > 1:
                stage_time += 2 * (tp - 1) * (message / tp / hardware["link_bandwidth"] + hardware["link_latency"])
        free = 0.0
        for i, at in enumerate(arrive):
            free = max(free, at) + stage_time        # this stage finishes chunk i
            arrive[i] = free + (hop if stage < pp - 1 else 0.0)
    return arrive[-1]
