# replaces: mesh_groups
# wrong: lays the ranks out with tp outermost and dp innermost (torch.arange(n).reshape(tp, pp, dp)): the tp groups
#   are strided across the mesh instead of consecutive ranks
# must-lose: mesh_groups_small_meshes, mesh_groups_equal_device_mesh
# must-keep: mesh_groups_rejects_invalid
def mesh_groups(dp, pp, tp, dim):
    for name, value in (("dp", dp), ("pp", pp), ("tp", tp)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    if dim not in ("dp", "pp", "tp"):
        raise ValueError(f"dim must be dp, pp or tp, got {dim!r}")
    ranks = torch.arange(dp * pp * tp).reshape(tp, pp, dp)
    axis = ("tp", "pp", "dp").index(dim)
    return sorted(row.tolist() for row in ranks.movedim(axis, -1).reshape(-1, ranks.shape[axis]))
