# replaces: zero_memory_per_gpu
# wrong: never raises: stage 4 is treated as stage 3, and zero or negative sizes give a number (or ZeroDivisionError)
# must-lose: zero_memory_rejects_bad_input
# must-keep: zero_memory_paper_example, zero_memory_other_sizes
def zero_memory_per_gpu(n_params, dp_size, stage, k=12):
    parameters = 2 * n_params / (dp_size if stage >= 3 else 1)
    gradients = 2 * n_params / (dp_size if stage >= 2 else 1)
    return float(parameters + gradients + k * n_params / (dp_size if stage >= 1 else 1))
