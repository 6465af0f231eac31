"""`Scenario`: one THEORY result checked over a parameter grid (bound vs exact vs Monte Carlo).

A scenario names the theorem (THEORY ID), a pipeline factory (the subject that is *certified*), an
optional witness factory (a concrete pipeline whose exact value and samples are compared; default the
pipeline itself — e.g. the four-point witness of a `DeclaredDP`), the neighbour pair to simulate
(default: the worst pair of the exact profile), the grid, the target ("upper": bound >= truth;
"equality": a closed form that must equal the truth) and the estimator. It implements the protocol
`markovdp.sweeps.SweepScenario` that the dask sweep runs.

Hockey-stick scenarios read the privacy level from the grid coordinate ``eps`` (nats). A scenario names the
quantity it checks (``quantity``, ``units``: the netCDF ``long_name``s), describes its coordinates, and may
add variables computed from each point's values (`ScenarioVariable`, e.g. BBGG-T1's ``tightness``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..divergences.estimate import Estimate, estimate_hockey_stick_from_counts
from ..guarantees.exact import privacy_profile, worst_pair
from ..guarantees.registry import certify
from ..guarantees.types import Bound
from ..spaces import FiniteSpace

TARGETS = ("upper", "equality")
ESTIMATORS = ("discrete", "continuous", "none")


@dataclass(frozen=True)
class ScenarioVariable:
    """A data variable a scenario adds: ``compute(point, values)`` → float per grid point.

    ``values`` holds the point's "bound", "bound_theorem", "exact" and "candidates"; ``long_name`` and
    ``units`` label the netCDF variable. ``compute`` must be a module-level function (it pickles to workers).
    """

    long_name: str
    units: str
    compute: Callable[[dict[str, Any], dict[str, Any]], float] = field(repr=False)


@dataclass(frozen=True)
class Scenario:
    """A THEORY result to validate over a grid. Factories take the grid point as keyword arguments.

    Parameters
    ----------
    name, theory_id, description : what is checked (``theory_id`` cites docs/theory.md).
    grid, quick_grid : coordinate name → values (the full and the ``--quick`` grid).
    pipeline : point → the mechanism or pipeline whose certificate gives the bound.
    witness : point → the concrete pipeline whose exact value and samples are compared (default: pipeline).
    pair : point → the two inputs (x, x') to sample (default: the worst pair of the witness at ``eps``).
    target : "upper" (bound >= truth) or "equality" (the bound is a closed form equal to the truth).
    estimator : "discrete" (box CI over output cells), "continuous" (split-sample event estimator on
        ``bins(point)``) or "none".
    bound, exact : optional overrides, point → (bound, theorem, candidates) and point → exact value.
    quantity, units : what bound, exact and estimate are values of (netCDF ``long_name``), e.g. "KL divergence".
    coordinates : grid coordinate → (long_name, units); eps defaults to ("privacy level eps", "nats").
    variables : name → `ScenarioVariable`, extra data variables of the result.

    Raises
    ------
    TypeError
        If a continuous pipeline (outputs not in a `FiniteSpace`) or ``estimator="continuous"`` lacks
        `pair` or `bins`: the Monte Carlo needs the two inputs to sample and the histogram edges.
    """

    name: str
    theory_id: str
    description: str
    grid_full: Mapping[str, Sequence[Any]]
    grid_quick: Mapping[str, Sequence[Any]]
    pipeline: Callable[..., Any] | None = None
    witness: Callable[..., Any] | None = None
    pair: Callable[..., tuple[Any, Any]] | None = None
    target: str = "upper"
    estimator: str = "discrete"
    bins: Callable[..., NDArray[np.float64]] | None = field(default=None, repr=False)
    bound: Callable[[dict[str, Any]], tuple[float, str, dict[str, float]]] | None = field(default=None, repr=False)
    exact: Callable[[dict[str, Any]], float] | None = field(default=None, repr=False)
    batch_size: int = 10_000
    confidence: float = 0.95
    quantity: str = "hockey-stick delta"
    units: str = "1"
    coordinates: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    variables: Mapping[str, ScenarioVariable] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.target not in TARGETS:
            raise ValueError(f"`target` must be one of {TARGETS}; got {self.target!r}.")
        if self.estimator not in ESTIMATORS:
            raise ValueError(f"`estimator` must be one of {ESTIMATORS}; got {self.estimator!r}.")
        if self.bound is None and self.pipeline is None:
            raise TypeError("`pipeline` is required unless a `bound` override is given.")
        self._check_monte_carlo()

    def _check_monte_carlo(self) -> None:
        """Fail now, not deep inside a sweep, when the Monte Carlo cannot run without `pair`/`bins`."""
        if self.estimator == "none":
            return
        missing = [name for name in ("pair", "bins") if getattr(self, name) is None]
        if self.estimator == "continuous":
            if missing:
                raise TypeError(f"Scenario {self.name!r} with estimator='continuous' needs "
                                f"{' and '.join(f'`{m}`' for m in missing)}: `pair` (point → the two inputs to "
                                f"sample) and `bins` (point → inner histogram edges).")
            return
        factory = self.pipeline or self.witness
        if factory is None:
            return
        point = {k: next(iter(v)) for k, v in self.grid_quick.items()}
        space = getattr(factory(**point), "output_space", None)
        if space is not None and not isinstance(space, FiniteSpace):
            raise TypeError(f"Scenario {self.name!r}: the pipeline's outputs are continuous ({space!r}), so its "
                            f"Monte Carlo needs estimator='continuous' with `pair` (point → the two inputs to "
                            f"sample) and `bins` (point → inner histogram edges), or estimator='none'.")

    # -- the SweepScenario protocol -------------------------------------------------------------
    def grid(self, quick: bool) -> dict[str, list[Any]]:
        return {k: list(v) for k, v in (self.grid_quick if quick else self.grid_full).items()}

    def evaluate(self, point: dict[str, Any]) -> dict[str, Any]:
        """bound (best certified), its theorem, every candidate's bound, and the exact value."""
        if self.bound is not None:
            bound, theorem, candidates = self.bound(point)
        else:
            bound, theorem, candidates = certified_delta(self.pipeline(**point), point["eps"])
        exact = self.exact(point) if self.exact is not None else float(
            privacy_profile(self._witness(point), point["eps"]))
        values = {"bound": bound, "bound_theorem": theorem, "exact": exact, "candidates": candidates}
        values["variables"] = {name: float(v.compute(point, values)) for name, v in self.variables.items()}
        return values

    def simulate(self, point: dict[str, Any], n: int, rng: np.random.Generator) -> NDArray[np.int64] | None:
        """Counts (2, m) of n outputs from each side of the neighbour pair."""
        if self.estimator == "none":
            return None
        witness = self._witness(point)
        x, x_prime = self.pair(**point) if self.pair is not None else worst_pair(witness, point["eps"])
        ys = [witness.sample(np.full(n, v, dtype=np.int64 if isinstance(v, (int, np.integer)) else float),
                             rng=rng) for v in (x, x_prime)]
        if self.estimator == "discrete":
            m = witness.output_space.size
            return np.stack([np.bincount(y, minlength=m) for y in ys]).astype(np.int64)
        inner = self.bins(**point)
        cells = inner.size + 1
        return np.stack([np.bincount(np.searchsorted(inner, y, side="right"), minlength=cells)
                         for y in ys]).astype(np.int64)

    def estimate(self, point: dict[str, Any], counts: NDArray[np.int64], confidence: float) -> Estimate | None:
        """Hockey-stick estimate at ``eps`` from per-batch counts (n_batches, 2, m).

        Even batches select the event and odd batches evaluate it (split-sample, continuous);
        the discrete box interval uses all batches.
        """
        if self.estimator == "none" or counts is None:
            return None
        select, evaluate = counts[0::2].sum(axis=0), counts[1::2].sum(axis=0)
        counts_p = np.stack([select[0], evaluate[0]])
        counts_q = np.stack([select[1], evaluate[1]])
        method = "box" if self.estimator == "discrete" or counts.shape[0] < 2 else "split"
        return estimate_hockey_stick_from_counts(counts_p, counts_q, eps=point["eps"],
                                                 confidence=confidence, method=method)

    def _witness(self, point: dict[str, Any]) -> Any:
        return (self.witness or self.pipeline)(**point)


def certified_delta(subject: Any, eps: float) -> tuple[float, str, dict[str, float]]:
    """certify(subject) at eps: (best delta, winning THEORY ID, every rule's delta — NaN if not applicable)."""
    cert = certify(subject)
    candidates = {tid: (float(c.delta(eps)) if isinstance(c, Bound) else math.nan)
                  for tid, c in cert.candidates.items()}
    best = cert.best(eps=eps)
    return float(cert.delta(eps)), (best.theorem if best is not None else ""), candidates
