# replaces: ring_crossover_bytes
# differs: exact arithmetic with fractions.Fraction, a loop that counts the doubling rounds, and a float returned
from fractions import Fraction


def ring_crossover_bytes(world_size, alpha, beta):
    rounds, n = 0, 1
    while n < world_size:
        n, rounds = 2 * n, rounds + 1
    if world_size < 2 or n != world_size:
        raise ValueError("world_size must be a power of two, at least 2")
    if alpha < 0:
        raise ValueError("alpha must not be negative")
    if beta <= 0:
        raise ValueError("beta must be positive")
    more_latencies = 2 * (world_size - 1) - rounds
    fewer_bytes = rounds - Fraction(2 * (world_size - 1), world_size)
    if fewer_bytes <= 0:
        return math.inf
    return float(more_latencies * Fraction(alpha) / (fewer_bytes * Fraction(beta)))
