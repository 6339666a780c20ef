# replaces: best_config
# differs: builds every candidate with itertools.product over the divisors, then sorts by (-throughput, tp * pp,
#   batch, tp) after merging throughputs within 1e-9 of the best; prints how many configurations it tried; the
#   first-token promise as keyword-only arguments, judged with a time-to-first-token helper before the memory test;
#   the memory test on every device, rank by rank (the layers counted as range(stage, n_layers, pp) has them)
import itertools


def _first_token_ms(model, hardware, tp, pp, prompt_len):
    return prefill_time(model, hardware, tp, pp, prompt_len) * 1000


def _device_bytes(model, tp, pp, rank, batch, context_len):
    """Weights and KV cache of device `rank` (Megatron's order: stage rank // tp), with pp batches in flight."""
    stage, vocab = rank // tp, model["vocab_size"] * model["d_model"]
    layers = len(range(stage, model["n_layers"], pp))  # as many as a contiguous split gives it: the first ones get more
    params = layers * (model["n_params"] - 2 * vocab) / model["n_layers"] + vocab * ((stage == 0) + (stage == pp - 1))
    kv = pp * batch * context_len * kv_cache_bytes_per_token(model, tp, pp, rank)
    return params / tp * model["bytes_per_param"] + kv


def best_config(model, hardware, num_devices, latency_slo_ms, context_len, max_batch=1024, *, ttft_slo_ms=None,
                prompt_len=None):
    """The (tp, pp, replicas, batch) with the most tokens/s that keeps the promise and fits; None if none does."""
    if num_devices <= 0 or latency_slo_ms <= 0 or context_len <= 0 or max_batch <= 0:
        raise ValueError("num_devices, latency_slo_ms, context_len and max_batch must be positive")
    if (ttft_slo_ms is None) is not (prompt_len is None):
        raise ValueError("a first-token promise needs a prompt length, and a prompt length a promise")
    if ttft_slo_ms is not None and (ttft_slo_ms <= 0 or prompt_len <= 0):
        raise ValueError(f"ttft_slo_ms={ttft_slo_ms} and prompt_len={prompt_len} must be positive")
    decode_step_time(model, hardware, 1, 1, 1, context_len)
    divisors = [d for d in range(1, num_devices + 1) if num_devices % d == 0]
    batches = [2**k for k in range(40) if 2**k <= max_batch]
    candidates = []
    for tp, pp, batch in itertools.product(divisors, divisors, batches):
        if num_devices % (tp * pp) or pp > model["n_layers"]:
            continue
        try:
            shard_heads(model["n_heads"], model["n_kv_heads"], tp, 0)
        except ValueError:
            continue
        if ttft_slo_ms is not None and _first_token_ms(model, hardware, tp, pp, prompt_len) > ttft_slo_ms:
            continue
        heaviest = max(_device_bytes(model, tp, pp, rank, batch, context_len) for rank in range(tp * pp))
        if heaviest > hardware["hbm_bytes"]:
            continue
        seconds = decode_step_time(model, hardware, tp, pp, batch, context_len)
        if seconds * 1000 > latency_slo_ms:
            continue
        replicas = num_devices // (tp * pp)
        candidates.append({"tp": tp, "pp": pp, "replicas": replicas, "batch": batch,
                           "tokens_per_s": replicas * pp * batch / seconds, "latency_ms": seconds * 1000})
    print(f"best_config: {len(candidates)} configurations keep the promise")
    if not candidates:
        return None
    top = max(c["tokens_per_s"] for c in candidates)
    rank = lambda c: (-(c["tokens_per_s"] >= top * (1 - 1e-9)), c["tp"] * c["pp"], c["batch"], c["tp"])  # noqa
    return sorted(candidates, key=rank)[0]
