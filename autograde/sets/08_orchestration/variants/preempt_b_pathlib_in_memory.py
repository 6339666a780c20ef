# replaces: run_preemptible
# differs: pathlib; the save helper writes bytes serialized in memory first (io.BytesIO) then one write; a for loop
#   over the remaining steps; the previous handler restored in a finally around the whole function
def run_preemptible(path, initial_state, train_step, total_steps, save_every):
    """Train from the checkpoint at `path` (or from `initial_state` if there is none) until state["step"] reaches
    `total_steps`, saving atomically every `save_every` steps and at the end; on SIGTERM, finish the step in progress,
    save, and return. Returns the steps done (the saved state's "step")."""
    import io
    import pathlib

    target = pathlib.Path(path)
    stop = {"now": False}

    def handler(signum, frame):
        stop["now"] = True

    def write(state):
        buffer = io.BytesIO()
        torch.save(state, buffer)
        fd, tmp = tempfile.mkstemp(dir=target.parent)
        try:
            with open(fd, "wb") as f:
                f.write(buffer.getvalue())
                os.fsync(f.fileno())
            pathlib.Path(tmp).replace(target)
        except BaseException:
            pathlib.Path(tmp).unlink(missing_ok=True)
            raise

    before = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, handler)
    try:
        state = torch.load(target, weights_only=True) if target.exists() else initial_state
        for _ in range(state["step"], total_steps):
            state = train_step(state)
            done = state["step"]
            if stop["now"] or done == total_steps or done % save_every == 0:
                write(state)
            if stop["now"]:
                break
        return state["step"]
    finally:
        signal.signal(signal.SIGTERM, before)
