# replaces: mesh_groups
# differs: decodes every rank's coordinates with divmod from the innermost dimension and collects the ranks that
#   share every other coordinate in a dict; the groups sorted at the end
def mesh_groups(mesh_shape, mesh_dim_names, dim):
    if not isinstance(mesh_shape, (list, tuple)):
        raise ValueError(f"mesh_shape must be a tuple of sizes, got {mesh_shape!r}")
    shape, names = tuple(mesh_shape), tuple(mesh_dim_names) if isinstance(mesh_dim_names, (list, tuple)) else None
    if not shape or any(type(size) is not int or size < 1 for size in shape):
        raise ValueError(f"mesh sizes must be positive ints, got {mesh_shape!r}")
    if names is None or len(names) != len(shape) or len(set(names)) < len(names) or \
            any(not isinstance(n, str) for n in names):
        raise ValueError(f"need {len(shape)} distinct dimension names, got {mesh_dim_names!r}")
    if dim not in names or not isinstance(dim, str):
        raise ValueError(f"dim must name a mesh dimension {names}, got {dim!r}")
    skip = names.index(dim)
    by_key = {}
    for rank in range(math.prod(shape)):
        coordinates, rest = [], rank
        for size in reversed(shape):
            rest, c = divmod(rest, size)
            coordinates.insert(0, c)
        key = tuple(c for i, c in enumerate(coordinates) if i != skip)
        by_key.setdefault(key, []).append(rank)
    return sorted(sorted(group) for group in by_key.values())
