# replaces: restore_training_state
# differs: restores NumPy's state from the legacy tuple capture_a_legacy_numpy_tuple stored, with np.random.set_state
#          on a tuple; Python's state with its inner list turned back into a tuple
def restore_training_state(state, model, optimizer, scheduler):
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    torch.set_rng_state(state["torch_rng"])
    name, key, pos, has_gauss, cached_gaussian = state["numpy_rng"]
    np.random.set_state((name, key.numpy().astype(np.uint32), pos, has_gauss, cached_gaussian))
    version, internal, gauss_next = state["python_rng"]
    random.setstate((version, tuple(internal), gauss_next))
    return state["step"]
