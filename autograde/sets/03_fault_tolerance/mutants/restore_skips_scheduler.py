# replaces: restore_training_state
# wrong: does not restore the learning-rate scheduler: the fresh scheduler starts its warm-up and decay again, so the
#   learning rate after the first resumed step is wrong
# must-lose: training_state_round_trip, resume_is_bit_exact
# must-keep: capture_state_loads_weights_only, save_load_round_trip, save_checkpoint_survives_kill, young_interval_values, daly_interval_values
def restore_training_state(state, model, optimizer, scheduler):
    """Put a captured state back."""
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    rng = state["rng"]
    torch.set_rng_state(rng["torch"])
    n = rng["numpy"]
    np.random.set_state(("MT19937", n["key"].numpy().astype(np.uint32), n["pos"], n["has_gauss"], n["gauss"]))
    version, internal, gauss_next = rng["python"]
    random.setstate((version, tuple(internal), gauss_next))
    return state["step"]
