# replaces: mesh_groups
# differs: strides computed by a loop from the last dimension, groups grown from the smallest rank not yet placed, so
#   they come out in order; a set of placed ranks; the names may be a list
def mesh_groups(mesh_shape, mesh_dim_names, dim):
    if not isinstance(mesh_shape, (tuple, list)) or len(mesh_shape) == 0:
        raise ValueError(f"mesh_shape must be a non-empty sequence, got {mesh_shape!r}")
    bad = [repr(s) for s in mesh_shape if isinstance(s, bool) or not isinstance(s, int) or s <= 0]
    if bad:
        raise ValueError("not positive ints: " + ", ".join(bad))
    names = list(mesh_dim_names) if isinstance(mesh_dim_names, (tuple, list)) else []
    if len(names) != len(mesh_shape) or len(set(map(repr, names))) != len(names) or \
            not all(type(n) is str for n in names):
        raise ValueError(f"bad mesh_dim_names {mesh_dim_names!r} for a mesh of {len(mesh_shape)} dimensions")
    if dim not in names or not isinstance(dim, str):
        raise ValueError(f"no mesh dimension {dim!r}")
    strides, step = [0] * len(mesh_shape), 1
    for i in reversed(range(len(mesh_shape))):
        strides[i], step = step, step * mesh_shape[i]
    i = names.index(dim)
    placed, groups = set(), []
    for rank in range(step):
        if rank not in placed:
            group = [rank + k * strides[i] for k in range(mesh_shape[i])]
            placed.update(group)
            groups.append(group)
    return groups
