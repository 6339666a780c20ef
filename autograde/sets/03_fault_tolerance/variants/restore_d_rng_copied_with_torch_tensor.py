# replaces: restore_training_state
# differs: the reference's layout, restored in another order (generators first, then the objects) and with
#          np.random.set_state given the key as int64 converted with np.asarray
def restore_training_state(state, model, optimizer, scheduler):
    rng = state["rng"]
    torch.set_rng_state(rng["torch"])
    numpy_rng = rng["numpy"]
    np.random.set_state({"bit_generator": "MT19937",
                         "state": {"key": np.asarray(numpy_rng["key"].numpy(), dtype=np.uint32), "pos": numpy_rng["pos"]},
                         "has_gauss": numpy_rng["has_gauss"], "gauss": numpy_rng["gauss"]})
    version, internal, gauss_next = rng["python"]
    random.setstate((version, tuple(internal), gauss_next))
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    return state["step"]
