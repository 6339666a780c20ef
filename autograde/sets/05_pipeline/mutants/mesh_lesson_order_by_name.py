# replaces: mesh_groups
# wrong: the lesson's formula r = (r_dp pp + r_pp) tp + r_tp, the sizes looked up by name: right when the mesh is
#   given as (dp, pp, tp), wrong for any other order (tp outermost keeps consecutive tp groups) and a ValueError for
#   other names
# must-lose: mesh_groups_small_meshes, mesh_groups_equal_device_mesh
# must-keep: mesh_groups_rejects_invalid
def mesh_groups(mesh_shape, mesh_dim_names, dim):
    if not isinstance(mesh_shape, (tuple, list)) or not mesh_shape or not all(
            isinstance(size, int) and not isinstance(size, bool) and size >= 1 for size in mesh_shape):
        raise ValueError(f"mesh_shape must be a non-empty tuple of positive ints, got {mesh_shape!r}")
    if not isinstance(mesh_dim_names, (tuple, list)) or len(mesh_dim_names) != len(mesh_shape) or not all(
            isinstance(name, str) for name in mesh_dim_names) or len(set(mesh_dim_names)) != len(mesh_dim_names):
        raise ValueError(f"mesh_dim_names must be {len(mesh_shape)} distinct strings, got {mesh_dim_names!r}")
    if not isinstance(dim, str) or dim not in mesh_dim_names:
        raise ValueError(f"dim must be one of {tuple(mesh_dim_names)}, got {dim!r}")
    axis = list(mesh_dim_names).index(dim)
    sizes = dict(zip(mesh_dim_names, mesh_shape))
    if set(sizes) != {"dp", "pp", "tp"}:
        raise ValueError(f"expected the dimensions dp, pp and tp, got {mesh_dim_names!r}")
    stride = {"dp": sizes["pp"] * sizes["tp"], "pp": sizes["tp"], "tp": 1}[dim]
    size = sizes[dim]
    starts = [r for r in range(math.prod(mesh_shape)) if (r // stride) % size == 0]
    return [[start + i * stride for i in range(size)] for start in starts]
