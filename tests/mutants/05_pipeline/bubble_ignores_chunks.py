# replaces: bubble_fraction
# wrong: forgets the chunks: (p - 1)/m whatever v
# must-lose: bubble_fraction_values
def bubble_fraction(num_stages, num_microbatches, num_chunks=1):
    """Pipeline bubble over ideal time, (p - 1) / (v m) (Narayanan et al. 2021, §2.2.1-2.2.2)."""
    for name, value in (("num_stages", num_stages), ("num_microbatches", num_microbatches),
                        ("num_chunks", num_chunks)):
        if not value > 0:
            raise ValueError(f"{name} must be positive, got {value!r}")
    return (num_stages - 1) / num_microbatches
