# replaces: mesh_groups
# differs: torch: the mesh as a tensor permuted so that dim is last, flattened to rows, unbound; the groups ordered
#   with torch.argsort on their first rank
def mesh_groups(mesh_shape, mesh_dim_names, dim):
    if not (isinstance(mesh_shape, (tuple, list)) and len(mesh_shape) > 0
            and all(isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in mesh_shape)):
        raise ValueError("mesh_shape must be a non-empty tuple of positive integers")
    if not (isinstance(mesh_dim_names, (tuple, list)) and len(mesh_dim_names) == len(mesh_shape)
            and all(isinstance(n, str) for n in mesh_dim_names) and len(set(mesh_dim_names)) == len(mesh_shape)):
        raise ValueError("mesh_dim_names must be one distinct string per dimension")
    if not (isinstance(dim, str) and dim in mesh_dim_names):
        raise ValueError(f"dim must be one of {list(mesh_dim_names)}")
    axis = list(mesh_dim_names).index(dim)
    order = [i for i in range(len(mesh_shape)) if i != axis] + [axis]
    mesh = torch.arange(math.prod(mesh_shape)).view(*mesh_shape).permute(*order).contiguous()
    rows = mesh.view(-1, mesh.shape[-1])
    rows = rows[torch.argsort(rows[:, 0])]
    return [[int(r) for r in row] for row in rows.unbind(0)]
