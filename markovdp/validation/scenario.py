"""`Scenario`: one THEORY result checked over a parameter grid (bound vs exact vs Monte Carlo).

A scenario names the theorem (THEORY ID), a pipeline factory (the subject that is *certified*), an
optional witness factory (a concrete pipeline whose exact value and samples are compared; default the
pipeline itself — e.g. the four-point witness of a `DeclaredDP`), the neighbour pair to simulate
(default: the worst pair of the exact profile), the grid, the target ("upper": bound >= truth;
"equality": a closed form that must equal the truth) and the estimator. It implements the protocol
`markovdp.sweeps.SweepScenario` that the dask sweep runs.

A scenario validates one quantity: ``"hockey_stick"`` (delta at the grid coordinate ``eps``, nats) or ``"renyi"``
(R_alpha at the grid coordinate ``alpha``), read from the grid when not given; ``"kl"``, ``"tv"`` or ``"ratio"`` (a
contraction ratio) for overrides that give those. It labels its values (``label``, ``units``: the netCDF
``long_name``s), describes its coordinates, and may add variables computed from each point's values
(`ScenarioVariable`, e.g. BBGG-T1's ``tightness``). Outputs in R^d (d > 1) are projected on a direction before
binning (a post-processing, so the lower confidence limits stay valid for the unprojected laws).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..divergences.estimate import Estimate, estimate_hockey_stick_from_counts, estimate_renyi_from_counts
from ..guarantees.exact import privacy_profile, renyi_profile, worst_pair
from ..guarantees.registry import certify, registered_theorems
from ..guarantees.types import EXACT_ID, Bound, Certificate
from ..spaces import FiniteSpace

TARGETS = ("upper", "equality")
ESTIMATORS = ("discrete", "continuous", "none")
#: quantity → (label, units) by default, and the grid coordinate that holds its parameter.
QUANTITIES = {"hockey_stick": ("hockey-stick delta", "1", "eps"), "renyi": ("Rényi divergence", "nats", "alpha"),
              "kl": ("KL divergence", "nats", None), "tv": ("total variation", "1", None),
              "ratio": ("contraction ratio", "1", None)}


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
    grid_full, grid_quick : coordinate name → values (the full and the ``--quick`` grid).
    pipeline : point → the mechanism or pipeline whose certificate gives the bound.
    witness : point → the concrete pipeline whose exact value and samples are compared (default: pipeline).
    pair : point → the two inputs (x, x') to sample (default: the worst pair of the witness at ``eps``).
    target : "upper" (bound >= truth) or "equality" (the bound is a closed form equal to the truth).
    estimator : "discrete" (box CI over output cells), "continuous" (split-sample event estimator on
        ``bins(point)``) or "none".
    bound, exact : optional overrides, point → (bound, theorem, candidates) and point → exact value.
    quantity : "hockey_stick" (at the grid's ``eps``), "renyi" (at the grid's ``alpha``), or "kl", "tv",
        "ratio" (a contraction ratio; overrides only); default read from the grid (``alpha`` → "renyi", else
        "hockey_stick").
    label, units : what bound, exact and estimate are values of (netCDF ``long_name``); default by quantity.
    direction : point → a vector of R^d: outputs in R^d are projected on it before binning (default: the
        difference of the two inputs of `pair`, normalised).
    sampler : (witness, input, n, rng) → n outputs of the witness on one input (default: ``witness.sample`` of
        n copies of the input; e.g. ``NoisyProjSGD.run`` simulates n runs on one dataset in one call).
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
    quantity: str | None = None
    label: str | None = None
    units: str | None = None
    direction: Callable[..., NDArray[np.float64]] | None = field(default=None, repr=False)
    sampler: Callable[[Any, Any, int, np.random.Generator], NDArray[Any]] | None = field(default=None, repr=False)
    coordinates: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    variables: Mapping[str, ScenarioVariable] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.target not in TARGETS:
            raise ValueError(f"`target` must be one of {TARGETS}; got {self.target!r}.")
        if self.estimator not in ESTIMATORS:
            raise ValueError(f"`estimator` must be one of {ESTIMATORS}; got {self.estimator!r}.")
        if self.quantity is None:
            object.__setattr__(self, "quantity", "renyi" if "alpha" in self.grid_quick else "hockey_stick")
        if self.quantity not in QUANTITIES:
            raise ValueError(f"`quantity` must be one of {tuple(QUANTITIES)}; got {self.quantity!r}.")
        label, units, parameter = QUANTITIES[self.quantity]
        object.__setattr__(self, "label", self.label or label)
        object.__setattr__(self, "units", self.units or units)
        if parameter is not None and parameter not in self.grid_quick:
            raise ValueError(f"Scenario {self.name!r} validates {self.quantity!r}: its grid needs the coordinate "
                             f"{parameter!r}; got {sorted(self.grid_quick)}.")
        if parameter is None and (self.bound is None or self.exact is None):
            raise TypeError(f"Scenario {self.name!r}: quantity {self.quantity!r} needs the `bound` and `exact` "
                            f"overrides.")
        if self.bound is None and self.pipeline is None:
            raise TypeError("`pipeline` is required unless a `bound` override is given.")
        self._check_monte_carlo()

    def _check_monte_carlo(self) -> None:
        """Fail now, not deep inside a sweep, when the Monte Carlo cannot run without `pair`/`bins`."""
        if self.estimator == "none":
            return
        if self.quantity == "renyi" and self.pair is None:
            raise TypeError(f"Scenario {self.name!r} validates 'renyi': its Monte Carlo needs `pair` (point → the two "
                            f"inputs to sample); the worst pair is read from a hockey-stick profile only.")
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
        elif self.quantity == "renyi":
            bound, theorem, candidates = certified_renyi(self.pipeline(**point), point["alpha"])
        else:
            bound, theorem, candidates = certified_delta(self.pipeline(**point), point["eps"])
        if self.exact is not None:
            exact = self.exact(point)
        elif self.quantity == "renyi":
            exact = float(renyi_profile(self._witness(point), point["alpha"]))
        else:
            exact = float(privacy_profile(self._witness(point), point["eps"]))
        values = {"bound": bound, "bound_theorem": theorem, "exact": exact, "candidates": candidates}
        values["variables"] = {name: float(v.compute(point, values)) for name, v in self.variables.items()}
        return values

    def simulate(self, point: dict[str, Any], n: int, rng: np.random.Generator) -> NDArray[np.int64] | None:
        """Counts (2, m) of n outputs from each side of the neighbour pair."""
        if self.estimator == "none":
            return None
        witness = self._witness(point)
        x, x_prime = self.pair(**point) if self.pair is not None else worst_pair(witness, point["eps"])
        if self.sampler is not None:
            ys = [np.asarray(self.sampler(witness, v, n, rng)) for v in (x, x_prime)]
        else:
            ys = [witness.sample(_repeated(v, n), rng=rng) for v in (x, x_prime)]
        if self.estimator == "discrete":
            m = witness.output_space.size
            return np.stack([np.bincount(y, minlength=m) for y in ys]).astype(np.int64)
        if ys[0].ndim == 2:  # outputs in R^d: project on a direction (a post-processing)
            u = self._direction(point, x, x_prime)
            ys = [y @ u for y in ys]
        inner = self.bins(**point)
        cells = inner.size + 1
        return np.stack([np.bincount(np.searchsorted(inner, y, side="right"), minlength=cells)
                         for y in ys]).astype(np.int64)

    def estimate(self, point: dict[str, Any], counts: NDArray[np.int64], confidence: float) -> Estimate | None:
        """The estimate at ``eps`` (or ``alpha``) from per-batch counts (n_batches, 2, m).

        Hockey-stick: even batches select the event and odd batches evaluate it (split-sample, continuous);
        the discrete box interval uses all batches. Rényi: the box interval of the binned laws over all batches;
        for continuous outputs only its lower limit holds for the true laws (data processing), so ci_high is NaN.
        """
        if self.estimator == "none" or counts is None:
            return None
        if self.quantity == "renyi":
            total = counts.sum(axis=0)
            found = estimate_renyi_from_counts(total[0], total[1], alpha=point["alpha"], confidence=confidence)
            if self.estimator == "continuous":
                found = replace(found, ci_high=math.nan, method="binned box (lower limit only)")
            return found
        select, evaluate = counts[0::2].sum(axis=0), counts[1::2].sum(axis=0)
        counts_p = np.stack([select[0], evaluate[0]])
        counts_q = np.stack([select[1], evaluate[1]])
        method = "box" if self.estimator == "discrete" or counts.shape[0] < 2 else "split"
        return estimate_hockey_stick_from_counts(counts_p, counts_q, eps=point["eps"],
                                                 confidence=confidence, method=method)

    def _witness(self, point: dict[str, Any]) -> Any:
        return (self.witness or self.pipeline)(**point)

    def _direction(self, point: dict[str, Any], x: Any, x_prime: Any) -> NDArray[np.float64]:
        u = np.asarray(self.direction(**point) if self.direction is not None
                       else np.asarray(x_prime, dtype=float) - np.asarray(x, dtype=float), dtype=np.float64)
        norm = float(np.linalg.norm(u))
        if not norm > 0.0:
            raise ValueError(f"Scenario {self.name!r}: the projection direction at {point} is zero; give `direction`.")
        return u / norm


def _repeated(value: Any, n: int) -> NDArray[Any]:
    """n copies of one input: a state (int), a real, or a point of R^d (shape (n, d))."""
    arr = np.asarray(value)
    dtype = np.int64 if np.issubdtype(arr.dtype, np.integer) else np.float64
    return np.broadcast_to(arr.astype(dtype), (n,) + arr.shape).copy()


def theorem_certificate(subject: Any) -> Certificate:
    """certify(subject) with every registered rule but EXACT (STD-Exact): a scenario holds the *theorems* against
    the exact value, which it computes on its own (the ``exact`` variable); with EXACT among the candidates every
    bound would be the exact value itself."""
    return certify(subject, rules=[tid for tid in registered_theorems() if tid != EXACT_ID])


def certified_delta(subject: Any, eps: float) -> tuple[float, str, dict[str, float]]:
    """The theorems' certificate of `subject` at eps (`theorem_certificate`: every rule but EXACT): (best delta,
    winning THEORY ID, every rule's delta — NaN if not applicable)."""
    cert = theorem_certificate(subject)
    candidates = {tid: (float(c.delta(eps)) if isinstance(c, Bound) else math.nan)
                  for tid, c in cert.candidates.items()}
    best = cert.best(eps=eps)
    return float(cert.delta(eps)), (best.theorem if best is not None else ""), candidates


def certified_renyi(subject: Any, alpha: float) -> tuple[float, str, dict[str, float]]:
    """The theorems' certificate of `subject` at order alpha (every rule but EXACT): (best R_alpha bound, winning
    THEORY ID, every rule's bound — NaN if not applicable; inf where a rule says nothing about RDP)."""
    cert = theorem_certificate(subject)
    candidates = {tid: (float(c.renyi(alpha)) if isinstance(c, Bound) else math.nan)
                  for tid, c in cert.candidates.items()}
    best = cert.best(alpha=alpha)
    return float(cert.renyi(alpha)), (best.theorem if best is not None else ""), candidates
