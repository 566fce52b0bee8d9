"""The order CPython 3.11 iterates a small set of strings in, with ``PYTHONHASHSEED=0``.

Some of vLLM's log texts join a ``set`` of strings (``"Found duplicate keys %s", ", ".join(duplicates)``),
so their order is the set's table order: the strings' hashes and the order they were added. Real vLLM's
answers are recorded with ``PYTHONHASHSEED=0`` (tests/golden/oracle_cli.md), where a ``str`` hash is
SipHash-1-3 with a zero key over the string's bytes (``Py_HASH_ALGORITHM`` 3.11's default; ASCII strings
are their Latin-1 bytes). :class:`PySet` keeps CPython's table (``Objects/setobject.c``: minimum size 8,
linear probing of up to 9 slots, then perturbation; resize at 3/5 full) so that iterating it gives the
order ``str.join`` sees. This is a fact about the interpreter vLLM ran in, written here to reproduce it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Generic, TypeVar

__all__ = ["PySet", "str_hash"]

_MASK64 = (1 << 64) - 1


def _rotl(x: int, b: int) -> int:
    return ((x << b) | (x >> (64 - b))) & _MASK64


def _siphash13(data: bytes, k0: int = 0, k1: int = 0) -> int:
    v0 = k0 ^ 0x736F6D6570736575
    v1 = k1 ^ 0x646F72616E646F6D
    v2 = k0 ^ 0x6C7967656E657261
    v3 = k1 ^ 0x7465646279746573

    def rnd() -> None:
        nonlocal v0, v1, v2, v3
        v0 = (v0 + v1) & _MASK64
        v1 = _rotl(v1, 13) ^ v0
        v0 = _rotl(v0, 32)
        v2 = (v2 + v3) & _MASK64
        v3 = _rotl(v3, 16) ^ v2
        v0 = (v0 + v3) & _MASK64
        v3 = _rotl(v3, 21) ^ v0
        v2 = (v2 + v1) & _MASK64
        v1 = _rotl(v1, 17) ^ v2
        v2 = _rotl(v2, 32)

    n = len(data)
    whole = n - n % 8
    for i in range(0, whole, 8):
        m = int.from_bytes(data[i:i + 8], "little")
        v3 ^= m
        rnd()
        v0 ^= m
    last = int.from_bytes(data[whole:], "little") | ((n & 0xFF) << 56)
    v3 ^= last
    rnd()
    v0 ^= last
    v2 ^= 0xFF
    for _ in range(3):
        rnd()
    return (v0 ^ v1 ^ v2 ^ v3) & _MASK64


def str_hash(text: str) -> int:
    """``hash(text)`` in CPython 3.11 with ``PYTHONHASHSEED=0`` (as a signed 64-bit value; -1 becomes -2)."""
    if not text:
        return 0
    width = 1 if max(map(ord, text)) < 256 else 2 if max(map(ord, text)) < 65536 else 4
    raw = b"".join(ord(ch).to_bytes(width, "little") for ch in text)
    h = _siphash13(raw)
    h = h - (1 << 64) if h >= 1 << 63 else h
    return -2 if h == -1 else h


K = TypeVar("K", bound=str | int)


def key_hash(key: str | int) -> int:
    """``hash(key)`` for a string (:func:`str_hash`) or an int (CPython: the value modulo 2**61 - 1, -1 -> -2)."""
    if isinstance(key, str):
        return str_hash(key)
    modulus = (1 << 61) - 1
    h = abs(key) % modulus
    h = -h if key < 0 else h
    return -2 if h == -1 else h


class PySet(Generic[K]):
    """A set of strings (or ints) laid out as CPython's ``set`` lays it out (insertion only: no removal is
    needed here)."""

    _LINEAR_PROBES = 9
    _PERTURB_SHIFT = 5

    def __init__(self, items: Iterable[K] = ()) -> None:
        self._table: list[K | None] = [None] * 8
        self._used = 0
        self.update(items)

    def add(self, key: K) -> None:
        h = key_hash(key)
        mask = len(self._table) - 1
        perturb = h & ((1 << 64) - 1)
        i = h & mask
        while True:
            probes = self._LINEAR_PROBES if i + self._LINEAR_PROBES <= mask else 0
            for j in range(probes + 1):
                slot = self._table[i + j]
                if slot is None:
                    self._table[i + j] = key
                    self._used += 1
                    if self._used * 5 >= mask * 3:
                        self._resize(self._used * 4)
                    return
                if slot == key:
                    return
            perturb >>= self._PERTURB_SHIFT
            i = (i * 5 + 1 + perturb) & mask

    def _resize(self, minused: int) -> None:
        size = 8
        while size <= minused:
            size <<= 1
        old = [k for k in self._table if k is not None]
        self._table = [None] * size
        self._used = 0
        for key in old:  # set_table_resize re-inserts in the old table's order (no duplicates, no resize)
            self._insert_clean(key)

    def _insert_clean(self, key: K) -> None:
        h = key_hash(key)
        mask = len(self._table) - 1
        perturb = h & ((1 << 64) - 1)
        i = h & mask
        while True:
            probes = self._LINEAR_PROBES if i + self._LINEAR_PROBES <= mask else 0
            for j in range(probes + 1):
                if self._table[i + j] is None:
                    self._table[i + j] = key
                    self._used += 1
                    return
            perturb >>= self._PERTURB_SHIFT
            i = (i * 5 + 1 + perturb) & mask

    def update(self, items: Iterable[K]) -> None:
        """``self |= other`` (``set_merge`` for another set: one resize first, then the other's table copied as
        it is, or inserted in its table order), else ``add`` in the iterable's order."""
        if not isinstance(items, PySet):
            for key in items:
                self.add(key)
            return
        mask = len(self._table) - 1
        if (self._used + len(items)) * 5 >= mask * 3:
            self._resize((self._used + len(items)) * 2)
        if self._used == 0 and len(self._table) == len(items._table):
            self._table = list(items._table)
            self._used = items._used
            return
        if self._used == 0:
            for key in items:
                self._insert_clean(key)
            return
        for key in list(items):
            self.add(key)

    def __iter__(self) -> Iterator[K]:
        return (k for k in self._table if k is not None)

    def __len__(self) -> int:
        return self._used

    def __bool__(self) -> bool:
        return self._used > 0
