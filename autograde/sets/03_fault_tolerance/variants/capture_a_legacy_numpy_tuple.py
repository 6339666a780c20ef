# replaces: capture_training_state
# differs: NumPy's legacy state tuple ("MT19937", key, pos, has_gauss, cached_gaussian) stored as a list with the key
#          as an int64 tensor; restored by restore_a_legacy_numpy_tuple (the same variant submission)
import copy


def capture_training_state(model, optimizer, scheduler, step):
    name, key, pos, has_gauss, cached_gaussian = np.random.get_state()
    return {
        "step": step,
        "model": copy.deepcopy(model.state_dict()),
        "optimizer": copy.deepcopy(optimizer.state_dict()),
        "scheduler": copy.deepcopy(scheduler.state_dict()),
        "torch_rng": torch.get_rng_state(),
        "numpy_rng": [name, torch.from_numpy(key.astype(np.int64)), int(pos), int(has_gauss), float(cached_gaussian)],
        "python_rng": random.getstate(),
    }
