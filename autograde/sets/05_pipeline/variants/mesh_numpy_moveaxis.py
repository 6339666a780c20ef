# replaces: mesh_groups
# differs: numpy: np.arange(n).reshape(mesh_shape), np.moveaxis of dim to the end, rows sorted by their first rank,
#   converted to Python ints with tolist(); operator.index for the validation
import operator

import numpy as np


def mesh_groups(mesh_shape, mesh_dim_names, dim):
    if not isinstance(mesh_shape, (tuple, list)) or not mesh_shape:
        raise ValueError(f"mesh_shape={mesh_shape!r}: expected a non-empty tuple")
    for size in mesh_shape:
        try:
            ok = not isinstance(size, bool) and operator.index(size) > 0
        except TypeError:
            ok = False
        if not ok:
            raise ValueError(f"{size!r}: a mesh size must be a positive integer")
    if not isinstance(mesh_dim_names, (tuple, list)) or len(mesh_dim_names) != len(mesh_shape) \
            or not all(isinstance(n, str) for n in mesh_dim_names) or len(set(mesh_dim_names)) != len(mesh_shape):
        raise ValueError(f"mesh_dim_names={mesh_dim_names!r}: expected {len(mesh_shape)} distinct strings")
    if not isinstance(dim, str) or dim not in mesh_dim_names:
        raise ValueError(f"dim={dim!r}: expected one of {mesh_dim_names}")
    axis = list(mesh_dim_names).index(dim)
    ranks = np.arange(int(np.prod(mesh_shape))).reshape(tuple(mesh_shape))
    rows = np.moveaxis(ranks, axis, -1).reshape(-1, mesh_shape[axis])
    return sorted(rows.tolist(), key=lambda g: g[0])
