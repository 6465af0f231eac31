"""Randomness as an argument, seeds as addresses (DESIGN §7).

A sweep task's seed depends only on (root entropy, grid point addressed by value, batch index), so
results never depend on the scheduler, the number of workers or the chunking.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import numpy as np

from ._validation import check_instance, check_int

RNGLike = int | np.random.Generator | np.random.SeedSequence | None


def as_generator(rng: RNGLike) -> np.random.Generator:
    """A `numpy.random.Generator` from a Generator (returned as is), an int seed, a SeedSequence or None."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, np.random.SeedSequence):
        return np.random.default_rng(rng)
    if isinstance(rng, (bool, np.bool_)):
        raise TypeError(f"`rng` must be a Generator, an int seed, a SeedSequence or None; got {rng!r}.")
    if isinstance(rng, (int, np.integer)):
        if rng < 0:
            raise ValueError(f"`rng` must be a non-negative int seed; got {int(rng)!r}.")
        return np.random.default_rng(int(rng))
    raise TypeError(f"`rng` must be a Generator, an int seed, a SeedSequence or None; got {rng!r}.")


def canonical_repr(coords: Mapping[str, Any]) -> str:
    """The canonical text of a grid point: sorted ``name=value`` pairs, floats by ``repr``."""
    parts = []
    for name in sorted(coords):
        value = coords[name]
        if isinstance(value, (np.floating, float)):
            value = float(value)
        elif isinstance(value, (np.integer, int)) and not isinstance(value, bool):
            value = int(value)
        elif isinstance(value, np.str_):
            value = str(value)
        parts.append(f"{name}={value!r}")
    return ",".join(parts)


def point_key(coords: Mapping[str, Any]) -> int:
    """A 64-bit address of a grid point, from the canonical repr of its coordinate values (`coords`: a mapping of
    coordinate names to values)."""
    check_instance("coords", coords, Mapping, "a mapping of coordinate names to values")
    digest = hashlib.sha256(canonical_repr(coords).encode()).digest()
    return int.from_bytes(digest[:8], "little")


def task_seed(root: np.random.SeedSequence, point: int, batch: int) -> np.random.SeedSequence:
    """The seed of task (point, batch): an address under `root`, never a stateful ``spawn``. `point`, `batch`:
    integers >= 0 (`point_key` gives a point's)."""
    check_instance("root", root, np.random.SeedSequence, "a numpy SeedSequence")
    point, batch = check_int("point", point, minimum=0), check_int("batch", batch, minimum=0)
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, point, batch))
