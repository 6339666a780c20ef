# replaces: zero_memory_per_gpu
# differs: a table of which parts each stage shards, summed over the parts
SHARDED = {0: set(), 1: {"optimizer"}, 2: {"optimizer", "gradients"}, 3: {"optimizer", "gradients", "parameters"}}


def zero_memory_per_gpu(n_params, dp_size, stage, k=12):
    if stage not in SHARDED or isinstance(stage, bool):
        raise ValueError(f"stage must be one of {sorted(SHARDED)}, got {stage!r}")
    if n_params <= 0:
        raise ValueError("n_params must be > 0")
    if dp_size <= 0:
        raise ValueError("dp_size must be > 0")
    if k < 0:
        raise ValueError("k must be >= 0")
    bytes_per_param = {"parameters": 2, "gradients": 2, "optimizer": k}
    return sum(b * n_params / (dp_size if part in SHARDED[stage] else 1) for part, b in bytes_per_param.items()) * 1.0
