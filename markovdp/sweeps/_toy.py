"""A tiny `SweepScenario` for tests and examples: total variation between two Bernoulli laws.

Side p is Bernoulli(a), side q is Bernoulli(b); the truth is TV(p, q) = |a − b|. The "bound" is
``slack · |a − b|`` (slack >= 1 is sound, < 1 is a deliberately broken bound), NaN when
``rule == "none"``. Monte Carlo counts the outcomes (m = 2) of each side; the estimate is
``|p̂(1) − q̂(1)|`` with a Hoeffding interval — even batches pick the sign of the event, odd batches
evaluate it (the split the real estimators use), so the lower limit is a valid lower bound.
Top-level and picklable, so process and distributed workers can import it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

__all__ = ["ToyEstimate", "ToyScenario"]


class ToyEstimate(NamedTuple):
    value: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class ToyScenario:
    """TV(Bernoulli(a), Bernoulli(b)) over a grid of a, b and a rule name ("tight", "loose", "none")."""

    name: str = "TOY"
    theory_id: str = "TOY-TV"
    batch_size: int = 500
    target: str = "upper"
    confidence: float = 0.95
    slack: float = 1.5
    monte_carlo: bool = True

    def grid(self, quick: bool) -> dict[str, list[Any]]:
        if quick:
            return {"a": [0.2, 0.5], "b": [0.3, 0.9], "rule": ["tight", "none"]}
        return {"a": [0.2, 0.5, 0.7], "b": [0.3, 0.9], "rule": ["tight", "loose", "none"]}

    def evaluate(self, point: dict[str, Any]) -> dict[str, Any]:
        exact = abs(point["a"] - point["b"])
        candidates = {"TOY-TIGHT": exact, "TOY-LOOSE": min(1.0, self.slack * exact)}
        if point["rule"] == "none":
            return {"bound": math.nan, "bound_theorem": "", "exact": exact, "candidates": {}}
        theorem = "TOY-TIGHT" if point["rule"] == "tight" else "TOY-LOOSE"
        if self.target == "equality":
            candidates = {"TOY-TIGHT": exact}
            theorem = "TOY-TIGHT"
        return {"bound": candidates[theorem] if self.slack >= 1 else self.slack * exact,
                "bound_theorem": theorem, "exact": exact, "candidates": candidates}

    def simulate(self, point: dict[str, Any], n: int, rng: np.random.Generator) -> NDArray[np.int64] | None:
        if not self.monte_carlo:
            return None
        ones = [int(np.count_nonzero(rng.random(n) < prob)) for prob in (point["a"], point["b"])]
        return np.array([[n - k, k] for k in ones], dtype=np.int64)

    def estimate(self, point: dict[str, Any], counts: NDArray[np.int64], confidence: float) -> ToyEstimate:
        select, check = (counts[0::2], counts[1::2]) if counts.shape[0] >= 2 else (counts, counts)
        s = select.sum(axis=0)
        sign = 1.0 if s[0, 1] * s[1].sum() >= s[1, 1] * s[0].sum() else -1.0
        c = check.sum(axis=0)
        n = int(c[0].sum())
        value = sign * (c[0, 1] - c[1, 1]) / n
        # Hoeffding for the difference of two means of n bounded samples each.
        half = math.sqrt(math.log(2 / (1 - confidence)) / n)
        return ToyEstimate(float(value), float(value - half), float(value + half))
