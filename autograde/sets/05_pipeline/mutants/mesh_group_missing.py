# replaces: mesh_groups
# wrong: starts a group only at the multiples of stride * size (the ranks whose coordinates along dim and every
#   dimension after it are 0): the groups of the other coordinates after dim are missing (right for the innermost
#   dimension only)
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
    stride, size = math.prod(mesh_shape[axis + 1:]), mesh_shape[axis]
    starts = range(0, math.prod(mesh_shape), stride * size)
    return [[start + i * stride for i in range(size)] for start in starts]
