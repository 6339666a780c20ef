# replaces: restore_training_state
# differs: converts the 0-d tensors capture_c_gauss_as_tensors stored back with .item()
def restore_training_state(state, model, optimizer, scheduler):
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    torch.set_rng_state(state["torch_rng"])
    saved = state["numpy"]
    np.random.set_state({"bit_generator": "MT19937",
                         "state": {"key": saved["key"].numpy().astype(np.uint32), "pos": saved["pos"].item()},
                         "has_gauss": int(saved["has_gauss"].item()), "gauss": saved["gauss"].item()})
    version, internal, gauss_next = state["python_rng"]
    random.setstate((version, tuple(internal), gauss_next))
    return state["step"].item()
