# replaces: restore_training_state
# differs: reads the flat layout of capture_e_flat_keys; NumPy's state set from a legacy tuple
def restore_training_state(state, model, optimizer, scheduler):
    model.load_state_dict(state["weights"])
    optimizer.load_state_dict(state["adam"])
    scheduler.load_state_dict(state["lr_schedule"])
    torch.set_rng_state(state["torch_generator"])
    np.random.set_state(("MT19937", state["numpy_key"].numpy().astype(np.uint32), state["numpy_pos"],
                         int(state["numpy_has_gauss"]), state["numpy_gauss"]))
    python = state["python_random"]
    random.setstate((python[0], tuple(python[1]), python[2]))
    return state["global_step"]
