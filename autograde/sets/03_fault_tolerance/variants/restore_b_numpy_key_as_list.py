# replaces: restore_training_state
# differs: rebuilds NumPy's key from the list of ints capture_b_numpy_key_as_list stored (np.array(..., np.uint32))
def restore_training_state(state, model, optimizer, scheduler):
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    rng = state["rng"]
    torch.set_rng_state(rng["torch"])
    np.random.set_state({
        "bit_generator": "MT19937",
        "state": {"key": np.array(rng["numpy_key"], dtype=np.uint32), "pos": rng["numpy_pos"]},
        "has_gauss": rng["numpy_has_gauss"],
        "gauss": rng["numpy_gauss"],
    })
    random.setstate(tuple(tuple(x) if isinstance(x, list) else x for x in rng["python"]))
    return int(state["step"])
