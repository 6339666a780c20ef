# replaces: zero_memory_per_gpu
# wrong: divides the parameters by N already at stage 2 (only stage 3 shards the parameters)
# must-lose: zero_memory_paper_example
# must-keep: zero_memory_rejects_bad_input
def zero_memory_per_gpu(n_params, dp_size, stage, k=12):
    if isinstance(stage, bool) or stage not in (0, 1, 2, 3):
        raise ValueError(f"stage must be 0, 1, 2 or 3, got {stage!r}")
    if not n_params > 0 or not dp_size > 0 or not k >= 0:
        raise ValueError(f"sizes must be positive: n_params={n_params!r}, dp_size={dp_size!r}, k={k!r}")
    parameters = 2 * n_params / (dp_size if stage >= 2 else 1)  # BUG: should be stage >= 3
    gradients = 2 * n_params / (dp_size if stage >= 2 else 1)
    return float(parameters + gradients + k * n_params / (dp_size if stage >= 1 else 1))
