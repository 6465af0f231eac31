"""Guarantees as curves (DESIGN §5): a `Bound` is a certified privacy profile delta(eps) and RDP curve.

Exact values, bounds and estimates are different types: a `Bound` always carries the THEORY ID of the
theorem that produced it and the inputs it was applied to.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._profiles import invert_profile, rounded_up
from .._validation import check_eps, check_order, check_probability

Curve = Callable[[NDArray[np.float64]], NDArray[np.float64]]


def _as_output(values: NDArray[np.float64], like: float | NDArray[np.float64]) -> float | NDArray[np.float64]:
    # `+ 0.0` turns a -0.0 (e.g. from clipping or a cancelled difference) into +0.0 and changes nothing else.
    return float(values) + 0.0 if np.ndim(like) == 0 else np.asarray(values, dtype=np.float64) + 0.0


def evaluate_curve(curve: Curve, eps: NDArray[np.float64]) -> NDArray[np.float64]:
    """delta(eps) for an array of eps, clipped into [0, 1]."""
    flat = np.atleast_1d(np.asarray(eps, dtype=np.float64)).ravel()
    values = np.asarray(curve(flat), dtype=np.float64).reshape(flat.shape)
    return np.clip(values, 0.0, 1.0).reshape(np.shape(eps))


#: The ID of the rule whose curve is the exact profile (STD-Exact; registered in `exact_rule`).
EXACT_ID = "EXACT"


def tightness(exact: float, bound: float) -> float:
    """exact / bound (STD-Exact), in [0, 1] for a sound bound: 1 where the bound is attained (also 0/0 and
    inf/inf), 0 where the bound is vacuous (inf) and the exact value is not; above 1 (inf for a bound of 0) where
    a bound is below the exact value, i.e. unsound."""
    if exact == bound:
        return 1.0
    if bound == 0.0:
        return math.inf
    return 0.0 if math.isinf(bound) else exact / bound


#: The eps (nats) and delta at which `Certificate.summary` / `to_dict` tabulate every rule by default.
SUMMARY_EPS = (0.1, 0.5, 1.0, 2.0)
SUMMARY_DELTA = 1e-5
_SHORT = 160


def scalar_inputs(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """The inputs of a bound that print on one line (numbers, strings, bools), as plain Python values."""
    out: dict[str, Any] = {}
    for key, value in inputs.items():
        if isinstance(value, (bool, np.bool_)):
            out[key] = bool(value)
        elif isinstance(value, numbers.Integral):
            out[key] = int(value)
        elif isinstance(value, numbers.Real):
            out[key] = float(value) + 0.0
        elif isinstance(value, str):
            out[key] = value
    return out


def _num(value: float) -> str:
    return "inf" if value == math.inf else f"{value + 0.0:.4g}"


def _short(text: str) -> str:
    return text if len(text) <= _SHORT else text[: _SHORT - 1] + "…"


@dataclass(frozen=True)
class Bound:
    """A certified guarantee: the curve delta(eps) and the RDP curve eps(alpha) of one theorem.

    `theorem` is a THEORY ID (e.g. "BBGG-T1.3"); `inputs` records what the theorem was applied to
    (coefficients, the mechanism, …). `renyi(alpha)` is inf where the theorem says nothing about RDP.
    `epsilon_curve` (optional) is the theorem's own inverse delta ↦ eps (e.g. a closed form); `epsilon` lifts
    its answer by ulps until `delta_curve` there is <= delta (`rounded_up`), so it stays on the safe side.
    """

    theorem: str
    inputs: Mapping[str, Any]
    delta_curve: Curve = field(repr=False)
    renyi_curve: Curve | None = field(default=None, repr=False)
    epsilon_curve: Callable[[float], float] | None = field(default=None, repr=False)

    def __repr__(self) -> str:
        """``Bound('BBGG-T1.1', dobrushin=0.7)``: the theorem and its scalar inputs (no matrices, no mechanisms)."""
        shown = "".join(f", {k}={v!r}" for k, v in scalar_inputs(self.inputs).items())
        return f"Bound({self.theorem!r}{shown})"

    def delta(self, eps: ArrayLike) -> float | NDArray[np.float64]:
        """Certified delta at `eps` (nats, >= 0, inf allowed; broadcast over arrays)."""
        eps_arr = np.asarray(check_eps("eps", eps, allow_inf=True), dtype=np.float64)
        return _as_output(evaluate_curve(self.delta_curve, eps_arr), eps_arr)

    def epsilon(self, delta: float) -> float:
        """The smallest eps with delta(eps) <= `delta` (inf if none).

        At delta = 0 a bound with an RDP curve answers with its R_inf bound (eps-DP iff R_inf <= eps), not
        with a profile that may only have underflowed to 0 (a Gaussian is never pure DP), rounded up until
        delta there is exactly 0 (`rounded_up`).
        """
        target = float(check_probability("delta", delta))
        if self.epsilon_curve is not None:
            return rounded_up(float(self.epsilon_curve(target)), lambda e: float(self.delta(e)), target)
        if target == 0.0 and self.renyi_curve is not None:
            return rounded_up(float(self.renyi(np.inf)), lambda e: float(self.delta(e)))
        return invert_profile(lambda e: float(self.delta(e)), target)

    def renyi(self, alpha: ArrayLike) -> float | NDArray[np.float64]:
        """Certified RDP eps(alpha) for alpha in (1, inf] (inf where the theorem gives none)."""
        alpha_arr = np.asarray(check_order("alpha", alpha), dtype=np.float64)
        if self.renyi_curve is None:
            return _as_output(np.full(alpha_arr.shape, np.inf), alpha_arr)
        flat = np.atleast_1d(alpha_arr).ravel()
        values = np.maximum(np.asarray(self.renyi_curve(flat), dtype=np.float64), 0.0).reshape(alpha_arr.shape)
        return _as_output(values, alpha_arr)


@dataclass(frozen=True)
class NotApplicable:
    """A theorem whose hypotheses do not hold (or cannot be checked), with the reason."""

    theorem: str
    reason: str


class NoApplicableTheorem(ValueError):
    """`certify(..., require=True)` found no theorem that applies; the message lists every reason."""


@dataclass(frozen=True)
class Certificate:
    """Every registered rule's answer for one mechanism or pipeline; the best candidate at each point."""

    subject: Any
    candidates: Mapping[str, Bound | NotApplicable]

    def __repr__(self) -> str:
        applies = [k for k, c in self.candidates.items() if isinstance(c, Bound)]
        other = [k for k in self.candidates if k not in applies]
        return f"Certificate({_short(repr(self.subject))}; bounds: {applies}; not applicable: {len(other)} rules)"

    def __str__(self) -> str:
        return self.summary()

    @property
    def bounds(self) -> list[Bound]:
        return [c for c in self.candidates.values() if isinstance(c, Bound)]

    def delta(self, eps: ArrayLike) -> float | NDArray[np.float64]:
        """min over candidate bounds of delta(eps); 1.0 where nothing applies.

        Where the rule EXACT applies (STD-Exact) the result is exactly the exact profile: never looser (EXACT is a
        candidate) and never below it (a theorem that attains the exact value may land an ulp lower in its own
        arithmetic; the true value is not below the exact one, so the certificate is floored there).
        """
        eps_arr = np.asarray(check_eps("eps", eps, allow_inf=True), dtype=np.float64)
        best = np.ones(eps_arr.shape)
        for bound in self.bounds:
            best = np.minimum(best, bound.delta(eps_arr))
        if (exact := self.exact) is not None:
            best = np.maximum(best, exact.delta(eps_arr))
        return _as_output(best, eps_arr)

    def epsilon(self, delta: float) -> float:
        """The smallest eps certified at `delta` by any candidate (inf if none); where EXACT applies, the exact
        eps(delta) (STD-Exact), floored there as `delta` is."""
        check_probability("delta", delta)
        best = min((b.epsilon(delta) for b in self.bounds), default=math.inf)
        exact = self.exact
        return best if exact is None else max(best, exact.epsilon(delta))

    def renyi(self, alpha: ArrayLike) -> float | NDArray[np.float64]:
        """min over candidates of the RDP curve at alpha; inf where nothing applies."""
        alpha_arr = np.asarray(check_order("alpha", alpha), dtype=np.float64)
        best = np.full(alpha_arr.shape, np.inf)
        for bound in self.bounds:
            best = np.minimum(best, bound.renyi(alpha_arr))
        return _as_output(best, alpha_arr)

    def best(self, *, eps: float | None = None, alpha: float | None = None) -> Bound | None:
        """The winning Bound at `eps` (or at RDP order `alpha`); None if nothing applies (or, for `alpha`,
        if no candidate bounds RDP at all).

        Ties go to the rule registered first (MECH, POST, then BBGG-T1.1 … T1.4).
        """
        if (eps is None) == (alpha is None):
            raise TypeError("`best` takes exactly one of `eps` or `alpha`.")
        name, point = ("eps", eps) if eps is not None else ("alpha", alpha)
        if np.ndim(point) != 0:
            raise TypeError(f"`{name}` must be a scalar for `best`; got an array of shape {np.shape(point)}.")
        bounds = self.bounds
        values = [float(b.delta(eps)) if eps is not None else float(b.renyi(alpha)) for b in bounds]
        if not bounds or (alpha is not None and min(values) == math.inf):
            return None
        return bounds[int(np.argmin(values))]

    def reasons(self) -> dict[str, str]:
        """Why each non-applicable rule does not apply."""
        return {k: c.reason for k, c in self.candidates.items() if isinstance(c, NotApplicable)}

    @property
    def exact(self) -> Bound | None:
        """The candidate of the rule EXACT (STD-Exact: the exact profile) if it applies, else None."""
        found = self.candidates.get(EXACT_ID)
        return found if isinstance(found, Bound) else None

    def to_dict(self, eps: Sequence[float] = SUMMARY_EPS, delta: float = SUMMARY_DELTA) -> dict[str, Any]:
        """Plain values (floats, strings, lists, dicts; JSON-serialisable) of every rule at `eps` and `delta`.

        ``{"subject", "eps", "delta", "best": {"delta", "theorem", "epsilon", "epsilon_theorem"},
        "exact": {"delta", "epsilon"} or None,
        "rules": [{"theorem", "applies", "delta", "epsilon", "tightness", "inputs", "reason"}, ...]}``: ``rules``
        in registration order; ``delta`` / ``epsilon`` are None for a rule that does not apply, ``inputs`` its
        scalar inputs, ``reason`` why it does not apply (None if it does). Where the rule EXACT applies (STD-Exact),
        ``exact`` holds its values and each applicable rule's ``tightness`` is ``{"delta": exact / bound at each
        eps, "epsilon": exact eps / bound eps at `delta`}`` (`tightness`; 1 = the bound is attained), else None.
        An eps that no rule certifies at `delta` is ``inf`` (Python's ``json`` writes and reads it as ``Infinity``).
        """
        eps_list = [float(e) for e in np.atleast_1d(np.asarray(check_eps("eps", eps, allow_inf=True),
                                                                dtype=np.float64)).ravel()]
        target = float(check_probability("delta", delta))
        exact_bound = self.exact
        exact = None if exact_bound is None else {"delta": [float(exact_bound.delta(e)) for e in eps_list],
                                                  "epsilon": float(exact_bound.epsilon(target))}
        rules = []
        for tid, cand in self.candidates.items():
            applies = isinstance(cand, Bound)
            values = [float(cand.delta(e)) for e in eps_list] if applies else None
            epsilon = float(cand.epsilon(target)) if applies else None
            ratio = None
            if applies and exact is not None:
                ratio = {"delta": [tightness(x, b) for x, b in zip(exact["delta"], values, strict=True)],
                         "epsilon": tightness(exact["epsilon"], epsilon)}
            rules.append({
                "theorem": tid, "applies": applies, "delta": values, "epsilon": epsilon, "tightness": ratio,
                "inputs": scalar_inputs(cand.inputs) if applies else {},
                "reason": None if applies else cand.reason,
            })
        winners = [self.best(eps=e) for e in eps_list]
        bounds = self.bounds
        epsilons = [b.epsilon(target) for b in bounds]
        at_delta = int(np.argmin(epsilons)) if bounds else None
        return {
            "subject": repr(self.subject), "eps": eps_list, "delta": target,
            "best": {"delta": [float(self.delta(e)) for e in eps_list],
                     "theorem": [w.theorem if w is not None else None for w in winners],
                     "epsilon": float(epsilons[at_delta]) if at_delta is not None else math.inf,
                     "epsilon_theorem": bounds[at_delta].theorem if at_delta is not None else None},
            "exact": exact,
            "rules": rules,
        }

    def summary(self, eps: Sequence[float] = SUMMARY_EPS, delta: float = SUMMARY_DELTA) -> str:
        """A short text table of the rules that apply: delta at each `eps`, eps at `delta` and the rule's
        scalar inputs, ``*`` marking the winner at each point; then one line naming the rules that do not
        apply (`reasons` says why). Where the rule EXACT applies (STD-Exact), every other rule's value is
        followed by its tightness in parentheses: exact / bound (1 = attained; for eps: exact eps / bound eps).

        ``print(cert)`` prints ``cert.summary()``. eps in nats; 4 significant digits (tightness: 3).
        """
        data = self.to_dict(eps, delta)
        best = data["best"]
        header = ["rule", *(f"delta(eps={e:g})" for e in data["eps"]), f"eps(delta={data['delta']:g})"]
        table, notes = [header], ["inputs"]
        winners = [*best["theorem"], best["epsilon_theorem"]]
        for rule in (r for r in data["rules"] if r["applies"]):
            tid = rule["theorem"]
            values = [*rule["delta"], rule["epsilon"]]
            ratio = rule["tightness"]
            shown = [*ratio["delta"], ratio["epsilon"]] if ratio is not None and tid != EXACT_ID else None
            table.append([tid, *(_num(v) + ("*" if w == tid else "") + (f" ({t:.3g})" if shown else "")
                                 for v, w, t in zip(values, winners, shown or values, strict=True))])
            notes.append(", ".join(f"{k}={_num(v) if isinstance(v, float) else v}" for k, v in rule["inputs"].items()))
        table.append(["best", *(_num(v) for v in [*best["delta"], best["epsilon"]])])
        note = "* = the winning rule at that point" if len(table) > 2 else "no rule applies (delta 1.0)"
        if data["exact"] is not None:
            note += f"; (t) = tightness {EXACT_ID} / rule"
        notes.append(note)
        widths = [max(len(row[c]) for row in table) for c in range(len(header))]
        lines = ["  ".join(cell.ljust(w) for cell, w in zip([*row, note], [*widths, 0], strict=True)).rstrip()
                 for row, note in zip(table, notes, strict=True)]
        other = [r["theorem"] for r in data["rules"] if not r["applies"]]
        if other:
            lines.append(f"not applicable: {', '.join(other)} — see `cert.reasons()`")
        return "\n".join([f"Certificate of {_short(data['subject'])}", *lines])

    def plot(self, ax: Any = None, *, eps: ArrayLike | None = None) -> Any:
        """Draw delta(eps) of every applicable rule on a log y axis, the exact profile when
        `privacy_profile` knows it, the winning rules highlighted; return the matplotlib Axes.

        See `markovdp.guarantees.certificate_plot.plot_certificate`.
        """
        from .certificate_plot import plot_certificate  # matplotlib: imported when a plot is asked for

        return plot_certificate(self, ax=ax, eps=eps)
