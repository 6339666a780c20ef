# replaces: capture_training_state
# differs: copies torch's RNG state with torch.tensor(torch.get_rng_state()), which makes PyTorch print a UserWarning
#          (in the kernel and on the ranks); otherwise the reference's layout (restored by restore_d_...)
import copy


def capture_training_state(model, optimizer, scheduler, step):
    numpy_state = np.random.get_state(legacy=False)
    return {
        "step": int(step),
        "model": copy.deepcopy(model.state_dict()),
        "optimizer": copy.deepcopy(optimizer.state_dict()),
        "scheduler": copy.deepcopy(scheduler.state_dict()),
        "rng": {
            "torch": torch.tensor(torch.get_rng_state()),  # a copy: PyTorch warns
            "cuda": [],
            "numpy": {"key": torch.from_numpy(numpy_state["state"]["key"].astype(np.int64)),
                      "pos": int(numpy_state["state"]["pos"]),
                      "has_gauss": int(numpy_state["has_gauss"]), "gauss": float(numpy_state["gauss"])},
            "python": random.getstate(),
        },
    }
