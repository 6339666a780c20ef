# replaces: best_config
# differs: scans in another order (replicas first, batch from the largest down), keeps the best so far with the
#   tie rule written as a comparison; returns numpy numbers; checks the first-token promise per (tp, pp) after the
#   batch loop, on the feasible list; every device's memory as a numpy array over the stages
import numpy as np


def best_config(model, hardware, num_devices, latency_slo_ms, context_len, max_batch=1024, ttft_slo_ms=None,
                prompt_len=None):
    """The (tp, pp, replicas, batch) with the most tokens/s that keeps the promise and fits; None if none does."""
    for value in (num_devices, latency_slo_ms, context_len, max_batch):
        if not value > 0:
            raise ValueError(f"{value} is not positive")
    if (ttft_slo_ms, prompt_len).count(None) == 1:
        raise ValueError("ttft_slo_ms and prompt_len go together")
    if ttft_slo_ms is not None and min(ttft_slo_ms, prompt_len) <= 0:
        raise ValueError("ttft_slo_ms and prompt_len must be positive")
    decode_step_time(model, hardware, 1, 1, 1, context_len)
    feasible = []
    for replicas in range(num_devices, 0, -1):
        if num_devices % replicas:
            continue
        per_replica = num_devices // replicas
        for tp in range(1, per_replica + 1):
            pp, rest = divmod(per_replica, tp)
            if rest or pp > model["n_layers"]:
                continue
            try:
                shard_heads(model["n_heads"], model["n_kv_heads"], tp, 0)
            except ValueError:
                continue
            vocab = model["vocab_size"] * model["d_model"]
            layers = np.array([len(s) for s in np.array_split(np.arange(model["n_layers"]), pp)])
            held = layers * (model["n_params"] - 2 * vocab) / model["n_layers"]
            held[0] += vocab      # the input embedding
            held[-1] += vocab     # the output layer (the same stage when pp == 1)
            weights = held / tp * model["bytes_per_param"]
            kv = np.array([kv_cache_bytes_per_token(model, tp, pp, s * tp) for s in range(pp)], dtype=np.float64)
            batch = 1 << (int(max_batch).bit_length() - 1)
            while batch >= 1:
                if np.all(weights + pp * batch * context_len * kv <= hardware["hbm_bytes"]):
                    step = decode_step_time(model, hardware, tp, pp, batch, context_len)
                    if 1000 * step <= latency_slo_ms:
                        feasible.append((np.float64(replicas * pp * batch / step), tp, pp, replicas, batch,
                                         np.float64(1000 * step)))
                batch //= 2
    if ttft_slo_ms is not None:
        feasible = [f for f in feasible if prefill_time(model, hardware, f[1], f[2], prompt_len) * 1e3 <= ttft_slo_ms]
    if not feasible:
        return None
    most = max(f[0] for f in feasible)
    near = [f for f in feasible if f[0] >= most * (1 - 1e-9)]
    thr, tp, pp, replicas, batch, ms = min(near, key=lambda f: (f[1] * f[2], f[4], f[1]))
    return {"tp": np.int64(tp), "pp": np.int64(pp), "replicas": np.int64(replicas), "batch": np.int64(batch),
            "tokens_per_s": thr, "latency_ms": ms}
