"""Key distributions as YCSB defines them, as lazy streams of ids (with replacement).

  uniform : every key equally likely                                  (YCSB UniformLongGenerator)
  zipfian : key rank r with P(r) ~ 1/(r+1)^theta, by Gray et al.'s method (ZipfianGenerator);
            scrambled by default as YCSB's `requestdistribution=zipfian` is
            (ScrambledZipfianGenerator: r drawn over 10^10 items, key = fnvhash64(r) mod rows,
            so the hot keys are spread over the table); --no-zipf-scramble keeps rank r on
            key 1 + r, the hot keys packed on the first leaf pages
  latest  : zipfian over the ranks, rank 0 on the newest (highest) key  (SkewedLatestGenerator
            on a table that is not growing)
  hotspot : a fraction hot_ops of the operations picks uniformly among the first hot_fraction
            of the keys, the rest uniformly among the others          (HotspotIntegerGenerator;
            YCSB's defaults 0.2 / 0.8)

Operation i's key is a function of (seed, i) alone (two counter-based splitmix64 draws), so a
stream can start anywhere: --threads splits the operations into contiguous slices, and nothing
but one chunk of ids is ever in memory. native/keydist.c computes the same values in C;
`key()` below is the reference and the fallback without the extension.
"""
from __future__ import annotations

import math
from array import array
from dataclasses import dataclass
from collections.abc import Iterator

from ..errors import UsageError

PATTERNS = ("zipfian", "hotspot", "latest", "uniform")
KIND_CODES = {"uniform": 0, "zipfian": 1, "scrambled": 2, "latest": 3, "hotspot": 4}
DEFAULT_THETA = 0.99  # YCSB's ZipfianGenerator.ZIPFIAN_CONSTANT
DEFAULT_HOT_FRACTION = 0.2  # YCSB's hotspotdatafraction
DEFAULT_HOT_OPS = 0.8  # YCSB's hotspotopnfraction
YCSB_ITEM_COUNT = 10_000_000_000  # ScrambledZipfianGenerator.ITEM_COUNT
YCSB_ZETAN = 26.46902820178302  # ScrambledZipfianGenerator.ZETAN: zeta(10^10, 0.99)
CHUNK = 4096
M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def zeta(n: int, theta: float, exact_terms: int = 10_000) -> float:
    """sum_{i=1..n} 1/i^theta: the first terms summed, the rest by Euler-Maclaurin (YCSB sums all
    n terms; this agrees with its ZETAN for 10^10 items to 1e-12 and takes no time)."""
    m = min(n, exact_terms)
    head = math.fsum(i ** -theta for i in range(1, m + 1))
    if n <= m:
        return head
    s, a, b = theta, float(m), float(n)
    integral = (b ** (1 - s) - a ** (1 - s)) / (1 - s) if s != 1 else math.log(b / a)

    def f(x: float) -> float:
        return x ** -s

    def d1(x: float) -> float:  # the first derivative
        return -s * x ** (-s - 1)

    def d3(x: float) -> float:  # the third derivative
        return -s * (s + 1) * (s + 2) * x ** (-s - 3)

    # sum_{i=m}^{n} f(i) - f(m): the tail after the exact head
    tail = integral + (f(a) + f(b)) / 2 + (d1(b) - d1(a)) / 12 - (d3(b) - d3(a)) / 720 - f(a)
    return head + tail


def splitmix64(x: int) -> int:
    x = (x + GOLDEN) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def fnvhash64(v: int) -> int:
    """YCSB's Utils.fnvhash64 (FNV-1 over 8 bytes, then Math.abs of the signed long)."""
    h = 0xCBF29CE484222325
    for _ in range(8):
        h ^= v & 0xFF
        v >>= 8
        h = (h * 1099511628211) & M64
    return (-h) & M64 if h >> 63 else h


@dataclass(frozen=True)
class Pattern:
    """One distribution over the keys key_min .. key_min + n - 1."""

    name: str
    n: int
    seed: int = 1
    theta: float = DEFAULT_THETA
    scrambled: bool = True
    hot_fraction: float = DEFAULT_HOT_FRACTION
    hot_ops: float = DEFAULT_HOT_OPS
    key_min: int = 1

    def __post_init__(self) -> None:
        if self.name not in PATTERNS:
            raise UsageError(f"unknown pattern {self.name!r}", f"choose one of: {', '.join(PATTERNS)}")
        if self.n < 1:
            raise UsageError(f"a pattern needs at least one key, not {self.n}")
        if self.name in ("zipfian", "latest") and not 0 < self.theta < 1:
            raise UsageError(f"--zipf-theta {self.theta} must be above 0 and below 1",
                             "YCSB's default is 0.99 (Gray et al.'s method needs theta < 1)")
        if self.name == "hotspot":
            if not 0 < self.hot_fraction <= 1:
                raise UsageError(f"--hot-fraction {self.hot_fraction} must be within (0, 1]", "e.g. 0.2")
            if not 0 <= self.hot_ops <= 1:
                raise UsageError(f"--hot-ops {self.hot_ops} must be within [0, 1]", "e.g. 0.8")

    @property
    def kind(self) -> str:
        return "scrambled" if self.name == "zipfian" and self.scrambled else self.name

    @property
    def items(self) -> int:
        """Items the zipfian draws ranks over (YCSB's 10^10 for the scrambled form)."""
        if self.kind == "scrambled":
            return YCSB_ITEM_COUNT
        return max(2, self.n)

    @property
    def zetan(self) -> float:
        if self.kind not in ("zipfian", "scrambled", "latest"):
            return 1.0
        if self.kind == "scrambled" and self.theta == DEFAULT_THETA:
            return YCSB_ZETAN
        return _zeta_cached(self.items, self.theta)

    @property
    def hot_n(self) -> int:
        return min(self.n, max(1, int(self.n * self.hot_fraction)))

    def params(self) -> tuple:
        a = (self.seed * GOLDEN + 0x632BE59BD9B4E019) & M64
        b = a ^ 0xD1B54A32D192ED03
        return (a, b, self.items, self.zetan, float(self.theta), self.hot_n, float(self.hot_ops), self.key_min)

    def key(self, i: int) -> int:
        """Operation i's key, in Python: the reference for native/keydist.c."""
        a, b, items, zetan, theta, hot_n, hot_ops, key_min = self.params()
        u = (splitmix64((a + i * GOLDEN) & M64) >> 11) * 2.0 ** -53
        n, kind = self.n, self.kind
        if kind == "uniform":
            k = int(u * n)
        elif kind == "hotspot":
            v = (splitmix64((b + i * GOLDEN) & M64) >> 11) * 2.0 ** -53
            cold = n - hot_n
            k = int(v * hot_n) if u < hot_ops or cold == 0 else hot_n + int(v * cold)
        else:
            r = _zipf_rank(u, items, zetan, theta)
            k = fnvhash64(r) % n if kind == "scrambled" else (n - 1 - r if kind == "latest" else r)
        return key_min + min(k, n - 1)

    def keys(self, start: int, stop: int, native: bool = True) -> Iterator[int]:
        """Keys of operations start..stop-1, in chunks from C when the extension has it."""
        fill = native_fill() if native else None
        if fill is None:
            yield from (self.key(i) for i in range(start, stop))
            return
        code, params = KIND_CODES[self.kind], self.params()
        buf = array("Q", bytes(8 * CHUNK))
        i = start
        while i < stop:
            if stop - i < CHUNK:
                buf = array("Q", bytes(8 * (stop - i)))
            got = fill(code, self.n, i, buf, params)
            yield from buf[:got]
            i += got

    def describe(self) -> str:
        if self.name == "zipfian":
            return f"zipfian theta={self.theta:g}" + ("" if self.scrambled else " (not scrambled)")
        if self.name == "latest":
            return f"latest theta={self.theta:g}"
        if self.name == "hotspot":
            return f"hotspot {self.hot_fraction:g} of keys get {self.hot_ops:g} of operations"
        return "uniform"


def _zipf_rank(u: float, items: int, zetan: float, theta: float) -> int:
    """ZipfianGenerator.nextLong: Gray et al., 'Quickly generating billion-record synthetic
    databases' (SIGMOD 1994)."""
    uz = u * zetan
    if uz < 1.0:
        return 0
    if uz < 1.0 + 0.5 ** theta:
        return 1
    alpha = 1.0 / (1.0 - theta)
    eta = (1.0 - (2.0 / items) ** (1.0 - theta)) / (1.0 - (1.0 + 0.5 ** theta) / zetan)
    return min(items - 1, int(items * (eta * u - eta + 1.0) ** alpha))


def zipf_rank_cdf(r: int, items: int, zetan: float, theta: float) -> float:
    """P(rank <= r) of _zipf_rank for u uniform on [0, 1): the exact distribution YCSB's
    generator draws from (tests hold samples to it)."""
    if r < 0:
        return 0.0
    if r >= items - 1:
        return 1.0
    u1 = 1.0 / zetan
    u2 = (1.0 + 0.5 ** theta) / zetan
    if r == 0:
        return u1
    if r == 1:
        return u2
    alpha = 1.0 / (1.0 - theta)
    eta = (1.0 - (2.0 / items) ** (1.0 - theta)) / (1.0 - (1.0 + 0.5 ** theta) / zetan)
    # rank <= r  <=>  items * (eta*u - eta + 1)^alpha < r + 1
    u = (((r + 1) / items) ** (1.0 / alpha) - 1.0 + eta) / eta
    return min(1.0, max(u2, u))


_ZETA: dict[tuple[int, float], float] = {}


def _zeta_cached(n: int, theta: float) -> float:
    key = (n, theta)
    if key not in _ZETA:
        _ZETA[key] = zeta(n, theta)
    return _ZETA[key]


def native_fill():
    from .. import native

    return native.keydist_fill()
