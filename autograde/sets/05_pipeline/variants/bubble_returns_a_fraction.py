# replaces: bubble_fraction
# differs: returns the exact fractions.Fraction itself (the learner's checks compare numbers, and so does the grader:
#   the sandbox sends a Fraction back as a float, as set 04 always did)
from fractions import Fraction


def bubble_fraction(num_stages, num_microbatches, num_chunks=1):
    for name, value in (("num_stages", num_stages), ("num_microbatches", num_microbatches), ("num_chunks", num_chunks)):
        if not value > 0:
            raise ValueError(f"{name} must be positive, got {value!r}")
    return Fraction(num_stages - 1, num_chunks * num_microbatches)
