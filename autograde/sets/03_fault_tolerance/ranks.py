"""Rank-side procedures of exercise set 03: run in the sandbox, in the namespace of the student's notebook (they call
`save_checkpoint`, `load_checkpoint`, `capture_training_state`, `restore_training_state`, `young_interval` and
`daly_interval` by name), in the sandbox's own scratch folders (under its /tmp). They hold no expected values: what
they return (plain data: file bytes, tensors, numbers, names) is checked by autograde/sets/03_fault_tolerance/checks.py,
in the grader. The grader also imports this file for the training harness, to run the reference trainings itself.
"""
import io
import os
import pathlib
import pickle
import random
import stat
import tempfile

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn

import distlab

# --- files in the sandbox's scratch -----------------------------------------------------------------------------


def rank_scratch(name):
    """A new empty folder in the sandbox's /tmp; its path."""
    return tempfile.mkdtemp(prefix=f"grader-{name}-")


def rank_listing(folder):
    """The names in `folder`, sorted."""
    return sorted(os.listdir(folder))


def bytes_tensor(data):
    """Bytes as a uint8 tensor: how file contents travel to the grader (an empty `bytes` cannot: weights_only refuses
    the call to `bytes` that pickles it)."""
    return torch.from_numpy(np.frombuffer(bytearray(data), dtype=np.uint8))


def rank_read(path):
    """The bytes of the file at `path` (as a uint8 tensor), or None if there is none."""
    if not os.path.isfile(path):
        return None
    with open(path, "rb") as f:
        return bytes_tensor(f.read())


def rank_write(path, data):
    """Write the bytes `data` (a uint8 tensor made by the grader) to `path`."""
    with open(path, "wb") as f:
        f.write(data.numpy().tobytes())


def rank_exists(path):
    """Whether anything is at `path` (e.g. the folder a malicious pickle creates)."""
    return os.path.exists(path)


def as_file(value):
    """torch.save bytes of `value` (as a uint8 tensor): the grader loads them with weights_only=True, where whatever
    is not plain data fails."""
    buffer = io.BytesIO()
    torch.save(value, buffer)
    return bytes_tensor(buffer.getvalue())


# --- save_checkpoint / load_checkpoint -----------------------------------------------------------------------------


def rank_save(path, state, as_pathlib=False):
    """save_checkpoint(path, state), with `path` as a str or a pathlib.Path."""
    save_checkpoint(pathlib.Path(path) if as_pathlib else path, state)  # noqa: F821 - the student's definition


def rank_save_unpicklable(path):
    """save_checkpoint of a state holding a lambda (pickle cannot serialize it): the error's class names, or None if
    the save returned."""
    try:
        save_checkpoint(path, {"step": 14, "callback": lambda: None})  # noqa: F821
    except Exception as error:  # noqa: BLE001 - any error is what a save that cannot serialize should give
        return [cls.__name__ for cls in type(error).__mro__]
    return None


def rank_load(path, as_pathlib=False):
    """load_checkpoint(path): what it returned, as torch.save bytes."""
    return as_file(load_checkpoint(pathlib.Path(path) if as_pathlib else path))  # noqa: F821


class MkdirWhenUnpickled:
    """Unpickling this calls os.mkdir(marker): any function could stand in its place."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


def rank_write_malicious(path, marker, container):
    """A file whose unpickling creates the folder `marker`: torch.save's zip format or a plain pickle."""
    if container == "torch.save":
        torch.save({"weights": torch.ones(3), "extra": MkdirWhenUnpickled(marker)}, path)
    else:
        with open(path, "wb") as f:
            pickle.dump({"step": 1, "hook": MkdirWhenUnpickled(marker)}, f, protocol=2)


def save_and_get_killed(path, kill_point, new):
    """On a rank: save_checkpoint(path, new), SIGKILLed in the middle (while serializing, or right after `path` itself
    is opened for writing)."""
    new = dict(new)
    if kill_point == "serializing":
        new["zz"] = distlab.KillWhenPickled()  # SIGKILL while torch.save pickles the state
    else:
        distlab.kill_after_open(path)  # SIGKILL right after `path` itself is opened for writing
        new["zz"] = torch.zeros(10)
    save_checkpoint(path, new)  # noqa: F821
    return "the save finished"


def rank_kill_a_save(path, kill_point, new):
    """Run save_and_get_killed in another process; report how that process ended."""
    try:
        distlab.launch(save_and_get_killed, 1, args=(path, kill_point, new), timeout=20, collective_timeout=5,
                       backend="gloo", output="hide")
    except distlab.RankCrashed as crash:
        return {"finished": False, "signal": crash.signal.name if crash.signal else None, "exitcode": crash.exitcode}
    return {"finished": True, "signal": None, "exitcode": 0}


# --- what save_checkpoint asks the operating system (fsync, rename) ---------------------------------------------------
# A SANDBOX-SIDE OBSERVATION: durability cannot be seen from outside (the grader cannot cut the power), so these
# procedures wrap os.fsync / os.fdatasync / os.replace / os.rename in the sandbox and record each call. The record is
# a claim (code in the sandbox could forge it); it grades an honest omission, not an attack.

SYNCS, RENAMES = ("fsync", "fdatasync"), ("replace", "rename")


def recording(events, name, real):
    """`real` (an os function), recording each call in `events`: the inode synced (a folder's or a file's), or the
    rename's source, target and the source's inode."""
    def synced(fd):
        info = os.fstat(fd if isinstance(fd, int) else fd.fileno())
        events.append({"call": name, "is_dir": stat.S_ISDIR(info.st_mode), "inode": info.st_ino})
        return real(fd)

    def renamed(src, dst, *args, **kwargs):
        try:
            inode = os.stat(src).st_ino
        except (OSError, TypeError):  # an unusual call (dir_fd=...): recorded without the inode; the real call decides
            inode = None
        events.append({"call": name, "src": os.path.realpath(src), "dst": os.path.realpath(dst), "inode": inode})
        return real(src, dst, *args, **kwargs)
    return synced if name in SYNCS else renamed


def rank_observe_saves(folder, states):
    """save_checkpoint(folder/checkpoint.pt, state) for each state, with those os calls recorded: per save, its list
    of events; and the folder's real path and inode."""
    real = {name: getattr(os, name) for name in SYNCS + RENAMES}
    saves = []
    try:
        for state in states:
            saves.append([])
            for name, function in real.items():
                setattr(os, name, recording(saves[-1], name, function))
            save_checkpoint(os.path.join(folder, "checkpoint.pt"), state)  # noqa: F821
    finally:
        for name, function in real.items():
            setattr(os, name, function)
    return {"saves": saves, "folder": os.path.realpath(folder), "folder_inode": os.stat(folder).st_ino}


# --- the training the checks run (the notebook's training_harness; the grader runs it too) ------------------------


def make_data(n=256):
    """The training set: the same on every rank and in every run."""
    generator = torch.Generator().manual_seed(0)
    return torch.randn(n, 8, generator=generator), torch.randn(n, 1, generator=generator)


def make_training(seed=0):
    """A small model with dropout, Adam, and a learning rate that warms up then decays (LambdaLR)."""
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Dropout(0.25), nn.Linear(32, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 4) / (1 + 0.2 * s))
    return model, optimizer, scheduler


def train_step(model, optimizer, scheduler, data):
    """One step. NumPy picks the batch (the data order), Python scales it, torch adds noise and drops units."""
    x_all, y_all = data
    ids = torch.from_numpy(np.random.randint(0, len(x_all), size=16))
    target_shift = float(np.random.randn())  # one Gaussian per step: NumPy caches the second of each pair
    scale = random.uniform(0.8, 1.2)
    x = x_all[ids] * scale + 0.01 * torch.randn(16, 8)
    loss = nn.functional.mse_loss(model(x), y_all[ids] + 0.01 * target_shift)
    optimizer.zero_grad()
    loss.backward()
    if dist.is_initialized():  # data parallel: average the gradients over the ranks
        for p in model.parameters():
            dist.all_reduce(p.grad)
            p.grad /= dist.get_world_size()
    optimizer.step()
    scheduler.step()
    return loss.item()


def seed_everything(seed):
    """Seed the three global generators train_step draws from."""
    torch.manual_seed(seed)
    np.random.seed(seed)
    random.seed(seed)


def fresh_seed():
    """A seed nobody chose: a restored run's generators start anywhere, so only restoring continues the run."""
    return int.from_bytes(os.urandom(4), "big")


def parameters_of(model):
    """Copies of the model's parameters."""
    return [p.detach().clone() for p in model.parameters()]


def holdings(model, optimizer):
    """What a capture of this moment must hold (the grader's reference runs record it; a capture's layout is the
    learner's, so the check looks for each of these values anywhere in it): the weights, Adam's moments, torch's
    generator state, the MT19937 keys of NumPy's and Python's generators, and NumPy's cached Gaussian (or None)."""
    numpy_state = np.random.get_state(legacy=False)
    moments = [optimizer.state[p][key].detach().clone() for p in model.parameters() if p in optimizer.state
               for key in ("exp_avg", "exp_avg_sq")]
    return {"parameters": parameters_of(model), "moments": moments, "torch": torch.get_rng_state(),
            "numpy_key": torch.from_numpy(numpy_state["state"]["key"].astype(np.int64)),
            "numpy_gauss": float(numpy_state["gauss"]) if numpy_state["has_gauss"] else None,
            "python_key": torch.tensor(random.getstate()[1][:624], dtype=torch.int64)}


def train_plain(total_steps, seed=1):
    """Train `total_steps` steps from the start, in this process, without checkpoints: the losses and parameters, and
    the holdings after each step (the first: before any)."""
    data = make_data()
    model, optimizer, scheduler = make_training()
    seed_everything(seed)
    held = [holdings(model, optimizer)]
    losses = []
    for _ in range(total_steps):
        losses.append(train_step(model, optimizer, scheduler, data))
        held.append(holdings(model, optimizer))
    return {"losses": losses, "parameters": parameters_of(model), "holdings": held}


# --- capture_training_state / restore_training_state ----------------------------------------------------------------


def as_step(value):
    """A step a student's function returned: an int when it equals one (a 0-d tensor, a NumPy int), else its repr."""
    try:
        if int(value) == value:
            return int(value)
    except Exception:  # noqa: BLE001 - not a number: shown as it is
        pass
    return repr(value)


def rank_capture_bytes(steps):
    """Train `steps` steps, then capture_training_state: the captured state as torch.save bytes."""
    data = make_data()
    model, optimizer, scheduler = make_training()
    seed_everything(1)
    for _ in range(steps):
        train_step(model, optimizer, scheduler, data)
    return as_file(capture_training_state(model, optimizer, scheduler, steps))  # noqa: F821


CAPTURED = {}  # {token: a state capture_training_state returned}, between rank_capture_then_train and the restore


def rank_capture_then_train(token, steps_before, steps_after, seed):
    """Train `steps_before` steps from `seed` (the grader's secret), capture, then train `steps_after` more (the
    capture must not change); keeps the capture for rank_restore_then_train under `token`. Returns the capture as it
    was when taken, as torch.save bytes (the grader looks for what it must hold)."""
    data = make_data()
    model, optimizer, scheduler = make_training()
    seed_everything(seed)
    for _ in range(steps_before):
        train_step(model, optimizer, scheduler, data)
    CAPTURED[token] = capture_training_state(model, optimizer, scheduler, steps_before)  # noqa: F821
    taken = as_file(CAPTURED[token])
    for _ in range(steps_after):
        train_step(model, optimizer, scheduler, data)
    return taken


def rank_restore_then_train(token, steps_after):
    """Restore the capture kept under `token` into freshly built objects, with the generators drawn anew (this request
    never gets the seed the capture's run started from: only a restore of what was captured continues that run), and
    train `steps_after` steps: the step restore returned, and the restored run's losses and parameters."""
    state = CAPTURED.pop(token)
    model, optimizer, scheduler = make_training(seed=5)  # freshly built: other weights, other generator states
    seed_everything(fresh_seed())
    step = restore_training_state(state, model, optimizer, scheduler)  # noqa: F821
    data = make_data()
    losses = [train_step(model, optimizer, scheduler, data) for _ in range(steps_after)]
    return {"step": as_step(step), "losses": losses, "parameters": parameters_of(model)}


def train_on_rank(folder, total_steps, every=None, crash=None, resume=False, seed=100, record=False):
    """On each rank: train to `total_steps`, checkpointing every `every` steps (none if None) with the student's
    capture, resuming from the last complete checkpoint with their restore; `crash` = (rank, step) SIGKILLs a rank.
    A fresh run draws its random streams from `seed` + rank (the grader's secret); a resumed run is never told that
    seed (its generators start anywhere): only the restore of what was captured continues that run.
    Returns this rank's parameters and {step: loss} of the steps it ran (record=True, the grader's reference run:
    also {step: holdings} after each step)."""
    rank = dist.get_rank()
    data = make_data()
    model, optimizer, scheduler = make_training()
    seed_everything(fresh_seed() if resume else seed + rank)  # each rank its own streams
    fail = distlab.FailAt(*crash) if crash is not None else None
    step = resume_from_checkpoint(folder, rank, model, optimizer, scheduler) if resume else 0
    resumed_at, losses, held = (step if resume else None), {}, {}
    while step < total_steps:
        if fail is not None:
            fail(step)
        losses[step] = train_step(model, optimizer, scheduler, data)
        step += 1
        if record:
            held[step] = holdings(model, optimizer)
        if every and step % every == 0:
            write_checkpoint(folder, rank, step, model, optimizer, scheduler)
    return {"parameters": parameters_of(model), "losses": losses, "resumed_at": resumed_at, "holdings": held}


def resume_from_checkpoint(folder, rank, model, optimizer, scheduler):
    """Restore the latest checkpoint every rank finished (rank 0 marks it complete after a barrier); the step that
    restore_training_state returned (training goes on from there)."""
    done = max(int(name.split("-")[1]) for name in os.listdir(folder) if name.startswith("complete-"))
    state = torch.load(os.path.join(folder, f"step-{done}-rank{rank}.pt"), weights_only=True)
    step = as_step(restore_training_state(state, model, optimizer, scheduler))  # noqa: F821
    if not isinstance(step, int):
        raise TypeError(f"rank {rank}: restore_training_state returned {step}, not a step number")
    return step


def write_checkpoint(folder, rank, step, model, optimizer, scheduler):
    """This rank's captured state, saved atomically; once every rank has saved, rank 0 marks the step complete."""
    path = os.path.join(folder, f"step-{step}-rank{rank}.pt")
    torch.save(capture_training_state(model, optimizer, scheduler, step), path + ".tmp")  # noqa: F821
    os.replace(path + ".tmp", path)
    dist.barrier()
    if rank == 0:
        open(os.path.join(folder, f"complete-{step}"), "w").close()


def rank_train_run(folder, total_steps, every, world_size, crash=None, resume=False, seed=None):
    """One launch of train_on_rank: {"ranks": per-rank results}, or {"crashed": rank, "signal": name} if a rank died.
    `seed`: the fresh attempt's (a resumed one gets None)."""
    try:
        results = distlab.launch(train_on_rank, world_size, args=(folder, total_steps, every, crash, resume, seed),
                                 timeout=20, collective_timeout=5, backend="gloo",
                                 output="by_rank" if crash is None else "hide")
    except distlab.RankCrashed as crash_report:
        return {"crashed": crash_report.rank, "signal": crash_report.signal.name if crash_report.signal else None}
    return {"ranks": results}


# --- young_interval / daly_interval ---------------------------------------------------------------------------------


def rank_interval(which, cost, mtbf):
    """young_interval or daly_interval(cost, mtbf): whether it returned a float, its type's name, and its value."""
    got = young_interval(cost, mtbf) if which == "young" else daly_interval(cost, mtbf)  # noqa: F821
    return {"is_float": isinstance(got, float), "type": type(got).__name__,
            "value": float(got) if isinstance(got, (int, float)) else None}
