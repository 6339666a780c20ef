# replaces: restore_training_state
# wrong: restores every state but returns 0: the step counter, and with it the data position, restarts from the
#   beginning
# must-lose: training_state_round_trip, resume_is_bit_exact
# must-keep: capture_state_loads_weights_only, save_load_round_trip, save_checkpoint_survives_kill, young_interval_values, daly_interval_values
def restore_training_state(state, model, optimizer, scheduler):
    """Put a captured state back."""
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    rng = state["rng"]
    torch.set_rng_state(rng["torch"])
    n = rng["numpy"]
    np.random.set_state(("MT19937", n["key"].numpy().astype(np.uint32), n["pos"], n["has_gauss"], n["gauss"]))
    version, internal, gauss_next = rng["python"]
    random.setstate((version, tuple(internal), gauss_next))
    return 0
