# replaces: mesh_groups
# wrong: no validation: a zero or negative degree gives no groups, a float degree or an unknown dim raises TypeError
#   or KeyError, a bool counts as 1
# must-lose: mesh_groups_rejects_invalid
# must-keep: mesh_groups_small_meshes, mesh_groups_equal_device_mesh
def mesh_groups(dp, pp, tp, dim):
    stride, size = {"dp": (pp * tp, dp), "pp": (tp, pp), "tp": (1, tp)}[dim]
    starts = [r for r in range(dp * pp * tp) if (r // stride) % size == 0]
    return [[start + i * stride for i in range(size)] for start in starts]
