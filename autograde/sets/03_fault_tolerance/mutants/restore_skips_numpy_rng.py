# replaces: restore_training_state
# wrong: restores torch's and Python's generators but not NumPy's: the batches after the resume are drawn from
#   another stream (the data order differs)
# must-lose: training_state_round_trip, resume_is_bit_exact
# must-keep: capture_state_loads_weights_only, save_load_round_trip, save_checkpoint_survives_kill, young_interval_values, daly_interval_values
def restore_training_state(state, model, optimizer, scheduler):
    """Put a captured state back."""
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    torch.set_rng_state(state["rng"]["torch"])
    version, internal, gauss_next = state["rng"]["python"]
    random.setstate((version, tuple(internal), gauss_next))
    return state["step"]
