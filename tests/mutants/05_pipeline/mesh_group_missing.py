# replaces: mesh_groups
# wrong: starts a group only at the multiples of stride * size (the ranks whose coordinates along dim and every
#   dimension after it are 0): the groups of the other coordinates after dim are missing (right for tp only)
# must-lose: mesh_groups_small_meshes, mesh_groups_equal_device_mesh
# must-keep: mesh_groups_rejects_invalid
def mesh_groups(dp, pp, tp, dim):
    for name, value in (("dp", dp), ("pp", pp), ("tp", tp)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    if dim not in ("dp", "pp", "tp"):
        raise ValueError(f"dim must be dp, pp or tp, got {dim!r}")
    stride, size = {"dp": (pp * tp, dp), "pp": (tp, pp), "tp": (1, tp)}[dim]
    return [[start + i * stride for i in range(size)] for start in range(0, dp * pp * tp, stride * size)]
