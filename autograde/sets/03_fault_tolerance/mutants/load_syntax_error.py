# replaces: load_checkpoint
# wrong: does not compile (a missing colon), so load_checkpoint is never defined
# must-zero: load_checkpoint_errors, load_checkpoint_refuses_code, save_load_round_trip
# must-keep: save_checkpoint_survives_kill, capture_state_loads_weights_only, training_state_round_trip, resume_is_bit_exact, young_interval_values, daly_interval_values
def load_checkpoint(path)
    return torch.load(path, weights_only=True)
