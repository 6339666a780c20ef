# replaces: zero_memory_per_gpu
# wrong: does not compile (a missing closing parenthesis), so zero_memory_per_gpu is never defined
# must-zero: zero_memory_paper_example, zero_memory_other_sizes, zero_memory_rejects_bad_input
# must-keep: sharded_optimizer_matches_adamw, sharded_optimizer_averages_gradients, sharded_optimizer_tied_and_frozen, sharded_optimizer_state_is_sharded
def zero_memory_per_gpu(n_params, dp_size, stage, k=12):
    return float((2 + 2 + k) * n_params / (dp_size if stage == 3 else 1)
