# replaces: capture_training_state
# differs: NumPy's key as a plain list of ints (key.tolist()) rather than a tensor; the state dicts copied by cloning
#          every tensor in them (a recursive copy) instead of copy.deepcopy; restored by restore_b_numpy_key_as_list
def capture_training_state(model, optimizer, scheduler, step):
    def snapshot(value):
        if isinstance(value, torch.Tensor):
            return value.detach().clone()
        if isinstance(value, dict):
            return {k: snapshot(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(snapshot(v) for v in value)
        return value

    numpy_state = np.random.get_state(legacy=False)
    return {
        "step": step,
        "model": snapshot(model.state_dict()),
        "optimizer": snapshot(optimizer.state_dict()),
        "scheduler": snapshot(scheduler.state_dict()),
        "rng": {
            "torch": torch.get_rng_state(),
            "numpy_key": numpy_state["state"]["key"].tolist(),
            "numpy_pos": int(numpy_state["state"]["pos"]),
            "numpy_has_gauss": int(numpy_state["has_gauss"]),
            "numpy_gauss": float(numpy_state["gauss"]),
            "python": random.getstate(),
        },
    }
