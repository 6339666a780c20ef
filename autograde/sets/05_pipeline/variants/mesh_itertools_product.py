# replaces: mesh_groups
# differs: walks the other coordinates with itertools.product (in row-major order, so the groups come out by their
#   smallest rank) and builds each rank from its coordinates Horner-style; validation with a dict of sizes
import itertools


def mesh_groups(mesh_shape, mesh_dim_names, dim):
    if not isinstance(mesh_dim_names, (tuple, list)) or not isinstance(mesh_shape, (tuple, list)):
        raise ValueError("mesh_shape and mesh_dim_names must be tuples")
    sizes = dict(zip(mesh_dim_names, mesh_shape))
    if not mesh_shape or len(sizes) != len(mesh_shape) or len(mesh_dim_names) != len(mesh_shape):
        raise ValueError(f"{mesh_shape!r} and {mesh_dim_names!r}: one distinct name per size, at least one")
    if any(type(n) is not str for n in sizes) or any(type(v) is not int or v <= 0 for v in sizes.values()):
        raise ValueError(f"names must be strings and sizes positive ints: {sizes!r}")
    if dim not in sizes or type(dim) is not str:
        raise ValueError(f"unknown mesh dimension {dim!r}")
    axis = list(sizes).index(dim)
    others = [range(v) for name, v in sizes.items() if name != dim]
    groups = []
    for rest in itertools.product(*others):
        group = []
        for k in range(sizes[dim]):
            coordinates = list(rest)
            coordinates.insert(axis, k)
            rank = 0
            for c, size in zip(coordinates, mesh_shape):
                rank = rank * size + c
            group.append(rank)
        groups.append(group)
    return groups
