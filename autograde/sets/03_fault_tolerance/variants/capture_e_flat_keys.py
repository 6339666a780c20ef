# replaces: capture_training_state
# differs: one flat dict with its own key names; model weights copied with {k: v.clone()}, the optimizer and
#          scheduler with copy.deepcopy; restored by restore_e_flat_keys
import copy


def capture_training_state(model, optimizer, scheduler, step):
    key, pos, has_gauss, gauss = np.random.get_state()[1:]
    return {
        "global_step": step,
        "weights": {name: tensor.clone() for name, tensor in model.state_dict().items()},
        "adam": copy.deepcopy(optimizer.state_dict()),
        "lr_schedule": copy.deepcopy(scheduler.state_dict()),
        "torch_generator": torch.get_rng_state().clone(),
        "numpy_key": torch.tensor(key.astype(np.int64)),
        "numpy_pos": int(pos),
        "numpy_has_gauss": bool(has_gauss),
        "numpy_gauss": float(gauss),
        "python_random": random.getstate(),
    }
