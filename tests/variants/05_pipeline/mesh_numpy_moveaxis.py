# replaces: mesh_groups
# differs: numpy: np.arange(n).reshape(dp, pp, tp), np.moveaxis of dim to the end, rows sorted by their first rank,
#   converted to Python ints with tolist(); operator.index for the validation
import operator

import numpy as np


def mesh_groups(dp, pp, tp, dim):
    names = ("dp", "pp", "tp")
    for name, degree in zip(names, (dp, pp, tp)):
        try:
            ok = not isinstance(degree, bool) and operator.index(degree) > 0
        except TypeError:
            ok = False
        if not ok:
            raise ValueError(f"{name}={degree!r}: a degree must be a positive integer")
    if not isinstance(dim, str) or dim not in names:
        raise ValueError(f"dim={dim!r}: expected one of {names}")
    axis = names.index(dim)
    rows = np.moveaxis(np.arange(dp * pp * tp).reshape(dp, pp, tp), axis, -1).reshape(-1, (dp, pp, tp)[axis])
    return sorted(rows.tolist(), key=lambda g: g[0])
