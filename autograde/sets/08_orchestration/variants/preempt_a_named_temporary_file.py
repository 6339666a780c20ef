# replaces: run_preemptible
# differs: a list as the flag; the loop checks it at the top; saves through tempfile.NamedTemporaryFile(delete=False)
#   and os.rename; the handler restored by a context manager; a save after the loop only if the last one was not
def run_preemptible(path, initial_state, train_step, total_steps, save_every):
    """Train from the checkpoint at `path` (or from `initial_state` if there is none) until state["step"] reaches
    `total_steps`, saving atomically every `save_every` steps and at the end; on SIGTERM, finish the step in progress,
    save, and return. Returns the steps done (the saved state's "step")."""
    signals = []

    @contextlib.contextmanager
    def sigterm_recorded():
        old = signal.signal(signal.SIGTERM, lambda signum, frame: signals.append(signum))
        try:
            yield
        finally:
            signal.signal(signal.SIGTERM, old)

    def save(state):
        folder = os.path.dirname(os.path.abspath(path))
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".ckpt-", delete=False) as f:
            try:
                torch.save(state, f)
                f.flush()
                os.fsync(f.fileno())
            except BaseException:
                os.unlink(f.name)
                raise
        os.rename(f.name, path)

    with sigterm_recorded():
        state = torch.load(path, weights_only=True) if os.path.isfile(path) else initial_state
        saved = True
        while True:
            if signals or state["step"] >= total_steps:
                break
            state = train_step(state)
            saved = False
            if state["step"] % save_every == 0:
                save(state)
                saved = True
        if not saved:
            save(state)
        return state["step"]
