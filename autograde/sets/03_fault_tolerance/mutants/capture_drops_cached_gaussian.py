# replaces: capture_training_state
# wrong: saves NumPy's key and position but not its cached Gaussian (has_gauss, gauss): after an odd number of
#   np.random.randn() draws the next Gaussian differs, and the resumed run drifts from the uninterrupted one
# must-lose: training_state_round_trip, resume_is_bit_exact
# must-keep: capture_state_loads_weights_only, save_load_round_trip, save_checkpoint_survives_kill, young_interval_values, daly_interval_values
def capture_training_state(model, optimizer, scheduler, step):
    """Everything that decides the next training step."""
    import copy

    _, key, pos, _, _ = np.random.get_state()
    return {
        "step": step,
        "model": copy.deepcopy(model.state_dict()),
        "optimizer": copy.deepcopy(optimizer.state_dict()),
        "scheduler": copy.deepcopy(scheduler.state_dict()),
        "rng": {"torch": torch.get_rng_state(), "cuda": [],
                "numpy": {"key": torch.from_numpy(key.astype(np.int64)), "pos": int(pos), "has_gauss": 0, "gauss": 0.0},
                "python": random.getstate()},
    }
