# replaces: rendezvous
# differs: waits with the store's own store.wait(keys, timedelta) and turns its timeout into the TimeoutError; keys
#   counted from 1; the arrived names joined with commas
def rendezvous(store, name, world_size, timeout_s):
    """Join the group of `world_size` processes that meet on `store`, as `name`; wait until all have arrived (at most
    `timeout_s` seconds) and return (rank, names): every member's name, sorted, and the position of `name` in it."""
    if not (isinstance(name, str) and name):
        raise ValueError("name must be a non-empty str")
    if isinstance(world_size, bool) or not isinstance(world_size, int) or world_size <= 0:
        raise ValueError(f"bad world_size {world_size!r}")
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or not math.isfinite(timeout_s) \
            or timeout_s <= 0:
        raise ValueError(f"bad timeout_s {timeout_s!r}")
    start = time.monotonic()
    index = store.add("members", 1)
    store.set(f"member-{index}", name)
    keys = [f"member-{i}" for i in range(1, world_size + 1)]
    try:
        store.wait(keys, timedelta(seconds=max(0.001, timeout_s - (time.monotonic() - start))))
    except Exception:  # the store's own timeout (DistStoreError)
        here = [store.get(key).decode() for key in keys if store.check([key])]
        raise TimeoutError(f"{world_size - len(here)} missing; arrived: {', '.join(here)}") from None
    names = sorted(store.get(key).decode() for key in keys)
    return names.index(name), names
