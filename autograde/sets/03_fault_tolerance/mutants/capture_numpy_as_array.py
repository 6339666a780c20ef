# replaces: capture_training_state
# wrong: stores np.random.get_state() as it is: it holds a NumPy array, so torch.load(weights_only=True) refuses the
#   checkpoint (and the resume cannot even start)
# must-lose: capture_state_loads_weights_only, resume_is_bit_exact
# must-keep: save_load_round_trip, save_checkpoint_survives_kill, load_checkpoint_refuses_code, young_interval_values, daly_interval_values
def capture_training_state(model, optimizer, scheduler, step):
    """Everything that decides the next training step."""
    import copy

    return {
        "step": step,
        "model": copy.deepcopy(model.state_dict()),
        "optimizer": copy.deepcopy(optimizer.state_dict()),
        "scheduler": copy.deepcopy(scheduler.state_dict()),
        "rng": {"torch": torch.get_rng_state(), "cuda": [], "numpy": np.random.get_state(), "python": random.getstate()},
    }
