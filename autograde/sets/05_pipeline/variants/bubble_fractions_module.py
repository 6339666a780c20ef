# replaces: bubble_fraction
# differs: exact arithmetic with fractions.Fraction, converted to float at the end; validation with any()
from fractions import Fraction


def bubble_fraction(num_stages, num_microbatches, num_chunks=1):
    if any(x <= 0 for x in (num_stages, num_microbatches, num_chunks)):
        raise ValueError("num_stages, num_microbatches and num_chunks must all be positive")
    return float(Fraction(num_stages - 1, num_chunks * num_microbatches))
