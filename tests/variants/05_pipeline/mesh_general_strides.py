# replaces: mesh_groups
# differs: strides computed for any number of dimensions (a loop from the last), groups grown from the smallest rank
#   not yet placed, so they come out in order; a set of placed ranks
def mesh_groups(dp, pp, tp, dim):
    names, sizes = ["dp", "pp", "tp"], [dp, pp, tp]
    bad = [f"{n}={s!r}" for n, s in zip(names, sizes) if isinstance(s, bool) or not isinstance(s, int) or s <= 0]
    if bad:
        raise ValueError("not positive ints: " + ", ".join(bad))
    if not isinstance(dim, str) or dim not in names:
        raise ValueError(f"no mesh dimension {dim!r}")
    strides, step = [0, 0, 0], 1
    for i in reversed(range(3)):
        strides[i], step = step, step * sizes[i]
    i = names.index(dim)
    placed, groups = set(), []
    for rank in range(step):
        if rank not in placed:
            group = [rank + k * strides[i] for k in range(sizes[i])]
            placed.update(group)
            groups.append(group)
    return groups
