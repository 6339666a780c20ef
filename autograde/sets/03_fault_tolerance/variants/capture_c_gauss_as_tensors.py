# replaces: capture_training_state
# differs: other dtypes for the stored values: NumPy's pos, has_gauss and gauss as 0-d tensors (int64, bool,
#          float64), the step as a tensor too; restored by restore_c_gauss_as_tensors
import copy


def capture_training_state(model, optimizer, scheduler, step):
    numpy_state = np.random.get_state(legacy=False)
    return copy.deepcopy({
        "step": torch.tensor(step, dtype=torch.int64),
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "torch_rng": torch.get_rng_state(),
        "numpy": {
            "key": torch.from_numpy(numpy_state["state"]["key"].astype(np.int64)),
            "pos": torch.tensor(numpy_state["state"]["pos"], dtype=torch.int64),
            "has_gauss": torch.tensor(bool(numpy_state["has_gauss"])),
            "gauss": torch.tensor(numpy_state["gauss"], dtype=torch.float64),
        },
        "python_rng": random.getstate(),
    })
