# replaces: rendezvous
# differs: reads the arrival counter with store.add(key, 0) and sleeps 50 ms between looks; the rank counted as the
#   names that sort before this one; returns a list [rank, names]
def rendezvous(store, name, world_size, timeout_s):
    """Join the group of `world_size` processes that meet on `store`, as `name`; wait until all have arrived (at most
    `timeout_s` seconds) and return (rank, names): every member's name, sorted, and the position of `name` in it."""
    import numbers

    if type(name) is not str or name == "":
        raise ValueError("name: a non-empty string")
    if not isinstance(world_size, int) or isinstance(world_size, bool) or world_size < 1:
        raise ValueError("world_size: an int >= 1")
    if not isinstance(timeout_s, numbers.Real) or isinstance(timeout_s, bool) or not (0 < timeout_s < float("inf")):
        raise ValueError("timeout_s: a finite number > 0")
    give_up = time.monotonic() + timeout_s
    my_slot = store.add("count", 1)
    store.set(f"who/{my_slot}", name.encode())
    while True:
        count = store.add("count", 0)
        if count >= world_size and store.check([f"who/{i}" for i in range(1, world_size + 1)]):
            break
        if time.monotonic() > give_up:
            came = [store.get(f"who/{i}").decode() for i in range(1, count + 1) if store.check([f"who/{i}"])]
            raise TimeoutError(f"only {len(came)} of {world_size} ({world_size - len(came)} missing): {came}")
        time.sleep(0.05)
    names = sorted(store.get(f"who/{i}").decode() for i in range(1, world_size + 1))
    return [sum(other < name for other in names), names]
