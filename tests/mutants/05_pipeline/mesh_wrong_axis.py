# replaces: mesh_groups
# wrong: swaps dp's and tp's strides (dp's groups step by 1, tp's by pp * tp), the sizes right: right for pp only,
#   and wherever pp * tp = 1
# must-lose: mesh_groups_small_meshes, mesh_groups_equal_device_mesh
# must-keep: mesh_groups_rejects_invalid
def mesh_groups(dp, pp, tp, dim):
    for name, value in (("dp", dp), ("pp", pp), ("tp", tp)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    if dim not in ("dp", "pp", "tp"):
        raise ValueError(f"dim must be dp, pp or tp, got {dim!r}")
    stride = {"dp": 1, "pp": tp, "tp": pp * tp}[dim]
    size = {"dp": dp, "pp": pp, "tp": tp}[dim]
    groups, seen = [], set()
    for r in range(dp * pp * tp):
        if r not in seen:
            group = [r + i * stride for i in range(size)]
            seen.update(group)
            groups.append(group)
    return groups
