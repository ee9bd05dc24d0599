"""``java.util.Random``, bit for bit, so Java generators reproduce exactly.

YABench's generators draw from ``new java.util.Random(seed)``: a 48-bit linear
congruential generator (Knuth, TAOCP vol. 2 §3.2.1; the constants and
``nextInt`` are those of the ``java.util.Random`` API documentation).
"""

from __future__ import annotations

MULTIPLIER = 0x5DEECE66D
ADDEND = 0xB
MASK = (1 << 48) - 1


class JavaRandom:
    """The generator of ``java.util.Random``; same seed, same numbers as Java.

    >>> r = JavaRandom(42)
    >>> [r.next_int(10) for _ in range(5)]
    [0, 3, 8, 4, 0]
    """

    __slots__ = ("seed",)

    def __init__(self, seed: int) -> None:
        if not -(1 << 63) <= seed < (1 << 63):
            raise ValueError(f"seed must be a Java long, got {seed}")
        self.seed = (seed ^ MULTIPLIER) & MASK

    def next(self, bits: int) -> int:
        """``Random.next(bits)``: the top ``bits`` bits as a signed 32-bit int."""
        self.seed = (self.seed * MULTIPLIER + ADDEND) & MASK
        value = self.seed >> (48 - bits)
        return value - (1 << 32) if value >= 1 << 31 else value

    def next_int(self, bound: int) -> int:
        """``Random.nextInt(bound)``: uniform in ``[0, bound)``, Java's exact draws."""
        if not 0 < bound < 1 << 31:
            raise ValueError(f"bound must be a positive Java int, got {bound}")
        if bound & (bound - 1) == 0:  # a power of two: take the high bits
            return (bound * self.next(31)) >> 31
        while True:
            bits = self.next(31)
            value = bits % bound
            # Java rejects draws from the last incomplete block of `bound`
            # values: the int expression overflows to negative there.
            if bits - value + (bound - 1) < 1 << 31:
                return value
