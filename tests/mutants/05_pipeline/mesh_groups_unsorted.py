# replaces: mesh_groups
# wrong: lists the groups in the order of the other coordinates with the last one outermost (for "pp": tp, then dp),
#   not by their smallest rank
# must-lose: mesh_groups_small_meshes, mesh_groups_equal_device_mesh
# must-keep: mesh_groups_rejects_invalid
def mesh_groups(dp, pp, tp, dim):
    for name, value in (("dp", dp), ("pp", pp), ("tp", tp)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    if dim not in ("dp", "pp", "tp"):
        raise ValueError(f"dim must be dp, pp or tp, got {dim!r}")
    sizes, strides = (dp, pp, tp), (pp * tp, tp, 1)
    axis = ("dp", "pp", "tp").index(dim)
    (a, b) = [i for i in range(3) if i != axis]
    return [[i * strides[a] + j * strides[b] + k * strides[axis] for k in range(sizes[axis])]
            for j in range(sizes[b]) for i in range(sizes[a])]
