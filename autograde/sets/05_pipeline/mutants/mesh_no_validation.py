# replaces: mesh_groups
# wrong: no validation: a zero or negative size gives no groups, a float size or an unknown dim raises TypeError, a
#   bool counts as 1, repeated names pick the first
# must-lose: mesh_groups_rejects_invalid
# must-keep: mesh_groups_small_meshes, mesh_groups_equal_device_mesh
def mesh_groups(mesh_shape, mesh_dim_names, dim):
    axis = list(mesh_dim_names).index(dim)
    stride, size = math.prod(mesh_shape[axis + 1:]), mesh_shape[axis]
    starts = [r for r in range(math.prod(mesh_shape)) if (r // stride) % size == 0]
    return [[start + i * stride for i in range(size)] for start in starts]
