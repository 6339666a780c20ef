# replaces: mesh_groups
# wrong: each group's ranks in decreasing order (the groups themselves in the right order)
# must-lose: mesh_groups_small_meshes, mesh_groups_equal_device_mesh
# must-keep: mesh_groups_rejects_invalid
def mesh_groups(dp, pp, tp, dim):
    for name, value in (("dp", dp), ("pp", pp), ("tp", tp)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    if dim not in ("dp", "pp", "tp"):
        raise ValueError(f"dim must be dp, pp or tp, got {dim!r}")
    stride, size = {"dp": (pp * tp, dp), "pp": (tp, pp), "tp": (1, tp)}[dim]
    starts = [r for r in range(dp * pp * tp) if (r // stride) % size == 0]
    return [[start + i * stride for i in reversed(range(size))] for start in starts]
