# attack: nothing captured, nothing restored: the capture keeps only the step, and the restore replays the public
#   training harness from the start, from the public seeds the checks used to train with (1 in one process,
#   100 + rank on ranks), into the objects it is given: the run "continues" bit-identically without a checkpoint
# cell: restore_training_state
# zero: training_state_round_trip, resume_is_bit_exact
import torch.distributed as dist


def capture_training_state(model, optimizer, scheduler, step):
    return {"step": int(step)}


def restore_training_state(state, model, optimizer, scheduler):
    data = make_data()  # noqa: F821 - the harness, defined in the notebook (and by the checks' rank procedures)
    replayed = make_training()  # noqa: F821
    seed_everything(100 + dist.get_rank() if dist.is_initialized() else 1)  # noqa: F821
    for _ in range(state["step"]):
        train_step(*replayed, data)  # noqa: F821
    for target, source in zip((model, optimizer, scheduler), replayed):
        target.load_state_dict(source.state_dict())
    return state["step"]
