"""The units of work of a sweep: chunks of ``evaluate(point)`` and of ``simulate(point, n, rng)`` tasks.

Chunks are frozen, top-level and picklable (they run in worker processes). A simulate task's rng is
``default_rng(task_seed(root, point_key, batch))`` — an address, not a counter (DESIGN §7) — so what a
chunk returns depends on its tasks alone, never on where or with which other tasks it runs.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._dispatch import recording
from .._random import canonical_repr, task_seed

__all__ = ["EvaluateChunk", "SimulateChunk", "run_chunk", "where"]


def where(scenario: Any, point: Mapping[str, Any]) -> str:
    """``scenario 'NAME' at a=0.2,b=0.3``: the context of a message about one grid point."""
    return f"scenario {scenario.name!r} at {canonical_repr(point)}"


@dataclass(frozen=True)
class EvaluateChunk:
    """``evaluate`` at some grid points: (point index, point) pairs."""

    points: tuple[tuple[int, dict[str, Any]], ...]

    def run(self, scenario: Any) -> list[tuple[int, dict[str, Any]]]:
        return [(i, checked_evaluation(scenario, point, scenario.evaluate(point))) for i, point in self.points]


@dataclass(frozen=True)
class SimulateChunk:
    """``simulate`` for some (point, batch) tasks: (point index, point, point key, batch, n) tuples."""

    root: np.random.SeedSequence
    tasks: tuple[tuple[int, dict[str, Any], int, int, int], ...]

    def run(self, scenario: Any) -> list[tuple[int, int, NDArray[np.int64] | None]]:
        out = []
        for i, point, key, batch, n in self.tasks:
            rng = np.random.default_rng(task_seed(self.root, key, batch))
            out.append((i, batch, checked_counts(scenario, point, scenario.simulate(point, n, rng))))
        return out


def run_chunk(scenario: Any, chunk: EvaluateChunk | SimulateChunk) -> tuple[list[Any], tuple[dict[Any, str],
                                                                                              dict[str, str]]]:
    """Run one chunk for `scenario` (the function submitted to the executor): its rows, and what it used from the
    registries where it ran (lookups, theorem rules: `markovdp._dispatch.Used`), for `sweeps.extensions` to check;
    an exception it raises carries them as ``markovdp_used``."""
    with recording() as used:
        try:
            rows = chunk.run(scenario)
        except Exception as exc:  # a missing rule often fails here first: the sender checks before it reports
            with contextlib.suppress(AttributeError):
                exc.markovdp_used = (used.lookups, used.theorems)  # type: ignore[attr-defined]  # pickles along
            raise
    return rows, (used.lookups, used.theorems)


def _as_float(scenario: Any, point: Mapping[str, Any], what: str, value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{where(scenario, point)}: {what} must be a float; got {value!r}.") from exc


def checked_evaluation(scenario: Any, point: Mapping[str, Any], values: Any) -> dict[str, Any]:
    """`evaluate`'s dict, checked and normalised: floats, a str theorem, candidates and extra variables."""
    if not isinstance(values, Mapping) or "bound" not in values:
        raise TypeError(f"{where(scenario, point)}: evaluate() must return a dict with 'bound', "
                        f"'bound_theorem' and 'exact'; got {values!r}.")
    theorem = values.get("bound_theorem") or ""
    if not isinstance(theorem, str):
        raise TypeError(f"{where(scenario, point)}: 'bound_theorem' must be a str; got {theorem!r}.")
    declared = getattr(scenario, "variables", None) or {}
    extra = dict(values.get("variables") or {})
    if not set(extra) <= set(declared):
        raise TypeError(f"{where(scenario, point)}: evaluate() returned variables {sorted(set(extra) - set(declared))} "
                        f"that the scenario does not declare in `variables` ({sorted(declared)}).")
    return {
        "bound": _as_float(scenario, point, "'bound'", values["bound"]),
        "bound_theorem": theorem,
        "exact": _as_float(scenario, point, "'exact'", values.get("exact", math.nan)),
        "candidates": {str(k): _as_float(scenario, point, f"candidate {k!r}", v)
                       for k, v in (values.get("candidates") or {}).items()},
        "variables": {name: _as_float(scenario, point, f"variable {name!r}", extra.get(name, math.nan))
                      for name in declared},
    }


def checked_counts(scenario: Any, point: Mapping[str, Any], counts: Any) -> NDArray[np.int64] | None:
    """`simulate`'s counts as int64 of shape (2, m), or None (no Monte Carlo)."""
    if counts is None:
        return None
    arr = np.asarray(counts)
    if arr.ndim != 2 or arr.shape[0] != 2 or not (arr.dtype.kind in "iu" or arr.size == 0):
        raise TypeError(f"{where(scenario, point)}: simulate() must return integer counts of shape (2, m) "
                        f"or None; got dtype {arr.dtype} and shape {arr.shape}.")
    return arr.astype(np.int64, copy=False)
