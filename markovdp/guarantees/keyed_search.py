"""A search over small keyed mechanisms Y = g(X, U) under a randomness budget, certified exactly (SRP-R, SRP-D).

The utility is the l2² risk of the best linear unbiased estimator of p from n reports (`linear_unbiased_risk`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike, as_generator
from .._validation import check_choice, check_int, check_probability_vector, check_range, fail
from ..mechanisms.local.budgeted_hadamard import BUDGETS
from ..mechanisms.local.entropy import entropy_bits
from ..mechanisms.local.implicit_channel import check_oracle_eps
from ..mechanisms.local.keyed import KeyedMechanism
from .coefficients import ldp_epsilon

__all__ = ["KeyedSearch", "linear_unbiased_risk", "optimise_keyed_mechanism"]

#: The largest number of candidate tables (after removing relabellings) that one search evaluates.
MAX_TABLES = 20_000
#: Safety margins of the optimiser's constraints; the result is then certified exactly (`ldp_epsilon`, entropy).
_EPS_MARGIN = 1e-7
_BITS_MARGIN = 1e-7


def _risk_of_matrix(Q: NDArray[np.float64], law: NDArray[np.float64]) -> float:
    """tr(F^-1) − ||p||², F = Q diag(1/π) Qᵀ over the outputs with π = pQ > 0; inf where F is singular."""
    pi = law @ Q
    used = pi > 0
    Qs = Q[:, used]
    F = (Qs / pi[used]) @ Qs.T
    eig = np.linalg.eigvalsh(F)
    if eig[0] <= 1e-13 * max(eig[-1], 1.0):
        return math.inf
    return float(np.sum(1.0 / eig)) - float(law @ law)


def linear_unbiased_risk(channel: ArrayLike, p: ArrayLike | None = None, n: int = 1) -> float:
    """min over linear unbiased estimators p̂ = ĉ B (QB = I) of E||p̂ − p||² = (tr F^-1 − ||p||²)/n, F = Q diag(1/pQ) Qᵀ.

    ĉ is the empirical law of n i.i.d. reports through the channel Q (k × m, row-stochastic) from inputs X ~ p
    (default uniform; a positive probability vector). The minimiser is B = diag(π)^-1 Qᵀ F^-1, π = pQ (weighted
    least squares). inf where Q has rank < k (no unbiased estimator). THEORY: SRP-R, SRP-Est.
    """
    from .._validation import check_stochastic_matrix

    Q = check_stochastic_matrix("channel", getattr(channel, "matrix", channel))
    k = Q.shape[0]
    law = np.full(k, 1.0 / k) if p is None else check_probability_vector("p", p)
    if law.size != k or np.any(law <= 0):
        raise fail("p", f"a positive probability vector of length k = {k}", p)
    users = check_int("n", n, minimum=1)
    return _risk_of_matrix(Q, law) / users


@dataclass(frozen=True)
class KeyedSearch:
    """The best keyed mechanism found by `optimise_keyed_mechanism`, certified exactly.

    `risk` is n × its linear unbiased l2² risk at p (`linear_unbiased_risk` with n = 1); `eps` its exact
    `ldp_epsilon` (nats); `key_bits` = H(U), `output_bits` = max_x H(Y | X = x) (bits); `tables` the number of
    candidate tables searched and `certified` how many optimised candidates passed the exact checks.
    """

    mechanism: KeyedMechanism | None
    risk: float
    eps: float
    key_bits: float
    output_bits: float
    tables: int
    certified: int


def _canonical_tables(k: int, n_keys: int, m: int) -> NDArray[np.int64]:
    """Every table g[x, u] up to permutations of the keys and relabellings of the outputs, as codes of its
    columns (a column x ↦ g(x, u) is the integer Σ_x g(x, u) m^x); shape (tables, n_keys)."""
    types = m**k
    digits = (np.arange(types)[:, None] // m ** np.arange(k)[None, :]) % m  # column code → its outputs
    multisets = np.array(list(itertools.combinations_with_replacement(range(types), n_keys)), dtype=np.int64)
    keys = []
    for perm in itertools.permutations(range(m)):
        relabelled = (np.asarray(perm)[digits] * m ** np.arange(k)).sum(axis=1)  # code ↦ code after relabelling
        sorted_codes = np.sort(relabelled[multisets], axis=1)
        keys.append((sorted_codes * types ** np.arange(n_keys)[::-1]).sum(axis=1))
    canon = np.min(np.stack(keys), axis=0)
    _, first = np.unique(canon, return_index=True)
    return multisets[np.sort(first)]


def _table_of(codes: NDArray[np.int64], k: int, m: int) -> NDArray[np.int64]:
    return (codes[None, :] // m ** np.arange(k)[:, None]) % m


def _risk_and_gradient(E: NDArray[np.float64], q: NDArray[np.float64], law: NDArray[np.float64]
                       ) -> tuple[float, NDArray[np.float64]]:
    """r(q) = tr(F^-1), F = Q diag(1/π) Qᵀ, Q = E q, π = pQ, and its gradient
    ∂r/∂q_u = −Σ_y [2 E[:, y, u]ᵀ F^-2 Q_y / π_y − Q_yᵀ F^-2 Q_y (pᵀ E[:, y, u]) / π_y²] (inf, 0 where singular)."""
    Q = E @ q
    pi = law @ Q
    used = pi > 1e-300
    Qs, Es, ps = Q[:, used], E[:, used, :], pi[used]
    F = (Qs / ps) @ Qs.T
    eig = np.linalg.eigvalsh(F)
    if eig[0] <= 1e-13 * max(eig[-1], 1.0):
        return math.inf, np.zeros_like(q)
    Finv = np.linalg.inv(F)
    W = Finv @ Finv @ Qs  # F^-2 Q_y per column
    term1 = np.einsum("xyu,xy->u", Es, W / ps)
    quad = np.sum(Qs * W, axis=0) / ps**2
    term2 = np.einsum("y,xyu,x->u", quad, Es, law)
    return float(np.trace(Finv)), -(2.0 * term1 - term2)


def _bits_and_gradient(v: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
    w = np.clip(v, 1e-300, None)
    logs = np.log2(w)
    return float(-(w * logs).sum()), -(logs + 1.0 / math.log(2.0))


def _budget_slack(E: NDArray[np.float64], q: NDArray[np.float64], bits: float, budget: str
                  ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(bits − H, −∇H) of the key (one entry) or of every row Q_x = E[x] q (k entries)."""
    if budget == "key":
        h, grad = _bits_and_gradient(q)
        return np.array([bits - h]), -grad[None, :]
    values, grads = [], []
    for x in range(E.shape[0]):
        h, grad = _bits_and_gradient(E[x] @ q)
        values.append(bits - h)
        grads.append(-(grad @ E[x]))
    return np.array(values), np.array(grads)


def _feasible_starts(E: NDArray[np.float64], ldp: NDArray[np.float64], bits: float, budget: str,
                     directions: NDArray[np.float64]) -> list[NDArray[np.float64]]:
    """Starting laws inside the LDP polytope P = {q in the simplex : ldp q >= 0} with the budget quantity at
    about half of `bits`: each vertex v of P within budget (`linprog` along each row of `directions`), and v
    moved towards every other vertex and towards their mean (segments inside P, as P is convex), by bisection."""
    from scipy.optimize import linprog

    n_keys = E.shape[2]
    vertices = []
    for c in directions:
        res = linprog(c, A_ub=-ldp if ldp.size else None, b_ub=np.zeros(len(ldp)) if ldp.size else None,
                      A_eq=np.ones((1, n_keys)), b_eq=[1.0], bounds=[(0.0, 1.0)] * n_keys, method="highs")
        if res.status == 0:
            vertices.append(np.clip(res.x, 0.0, None))
    if not vertices:
        return []
    vertices = list(np.unique(np.round(vertices, 12), axis=0))
    targets = [*vertices, np.mean(vertices, axis=0)]
    starts = []
    for v in vertices:
        if np.min(_budget_slack(E, v, bits, budget)[0]) < 0:
            continue
        starts.append(v)
        for target in targets:
            lo, hi = 0.0, 1.0
            for _ in range(30):
                tau = (lo + hi) / 2.0
                if np.min(_budget_slack(E, (1.0 - tau) * v + tau * target, bits, budget)[0]) >= bits / 2.0:
                    lo = tau
                else:
                    hi = tau
            if lo > 0.0:
                starts.append((1.0 - lo) * v + lo * target)
    return starts


def _optimise_table(table: NDArray[np.int64], m: int, eps: float, R: float, budget: str,
                    law: NDArray[np.float64], directions: NDArray[np.float64]) -> list[NDArray[np.float64]]:
    """SLSQP over the key law q of one table: minimise log tr(F^-1) (analytic gradient) subject to q in the
    simplex, Q(y|x) <= e^(eps − margin) Q(y|x') for all x, x', y (linear in q) and the entropy budget (a margin
    below R); from the `_feasible_starts` of the LP `directions`."""
    from scipy.optimize import minimize

    k, n_keys = table.shape
    E = np.zeros((k, m, n_keys))  # E[x, y, u] = 1(g(x, u) = y): Q = E q
    E[np.arange(k)[:, None], table, np.arange(n_keys)[None, :]] = 1.0
    ratio = math.exp(eps - _EPS_MARGIN * max(eps, 1.0))
    rows = [ratio * E[x2] - E[x] for x in range(k) for x2 in range(k) if x != x2]
    ldp = np.concatenate(rows)
    ldp = ldp[np.any(ldp != 0, axis=1)]
    bits = R - _BITS_MARGIN

    def objective(q):
        value, grad = _risk_and_gradient(E, q, law)
        if not math.isfinite(value):
            return 1e3, np.zeros_like(q)
        return math.log(value), grad / value

    constraints = [{"type": "eq", "fun": lambda q: np.array([q.sum() - 1.0]), "jac": lambda q: np.ones((1, n_keys))},
                   {"type": "ineq", "fun": lambda q: _budget_slack(E, q, bits, budget)[0],
                    "jac": lambda q: _budget_slack(E, q, bits, budget)[1]}]
    if ldp.size:
        constraints.append({"type": "ineq", "fun": lambda q: ldp @ q, "jac": lambda q: ldp})
    starts = _feasible_starts(E, ldp, max(bits, 0.0), budget, directions)
    found = []
    for q0 in starts:
        res = minimize(objective, q0, jac=True, method="SLSQP", bounds=[(0.0, 1.0)] * n_keys,
                       constraints=constraints, options={"maxiter": 200, "ftol": 1e-14})
        found.append(np.clip(res.x, 0.0, None))
    return found


def optimise_keyed_mechanism(k: int, eps: float, R: float, *, n_keys: int = 3, n_outputs: int | None = None,
                             budget: str = "key", p: ArrayLike | None = None, starts: int = 2,
                             rng: RNGLike = 0) -> KeyedSearch:
    """The keyed mechanism Y = g(X, U) (k inputs, `n_keys` keys, `n_outputs` outputs) with the least linear
    unbiased l2² risk at p among those found, subject to eps-LDP and a randomness budget of R bits.

    THEORY: SRP-R, SRP-D. Searched: every table g up to permutations of the keys and of the outputs
    (`MAX_TABLES` at most after that reduction, so k, n_keys and n_outputs must be small: k = 2 with 3 keys and
    3 outputs gives 31 tables, with 4 keys and 4 outputs 198, k = 3 with 3 keys and 4 outputs 2000); for each
    table with a rank-k channel, the key law q by SLSQP (scipy, analytic gradients) from starts inside the LDP
    polytope (its vertices within budget, found by `linprog` along ±e_u and `starts` normal directions drawn
    from `rng`, and each moved along the segments to the other vertices to half the budget), constraints with
    margins 1e-7. Every optimised (table, q) is then certified exactly, ``ldp_epsilon(KeyedMechanism(table, q))
    <= eps`` (+1e-12 for the float channel's rounding, as for every oracle) and ``H(U) <= R``
    (``budget="key"``) or ``max_x H(Y | X = x) <= R`` (``budget="output"``), and only certified ones count. The
    utility is `linear_unbiased_risk` at p (default uniform) with n = 1 (multiply by 1/n). A search, not a proof
    of optimality: it can miss the optimum.

    Returns a `KeyedSearch` (mechanism None and risk inf where nothing certified has a rank-k channel).
    """
    k = check_int("k", k, minimum=2)
    e = check_oracle_eps(eps)
    r_arr = check_range("R", R, low=0.0, allowed=">= 0 bits and finite")
    if r_arr.ndim != 0:
        raise fail("R", "a scalar number of bits", R, TypeError)
    r = float(r_arr)
    n_keys = check_int("n_keys", n_keys, minimum=1)
    m = k + 1 if n_outputs is None else check_int("n_outputs", n_outputs, minimum=2)
    check_choice("budget", budget, BUDGETS)
    starts = check_int("starts", starts, minimum=0)
    if starts > 1000:
        raise fail("starts", "an integer in 0..1000 (extra LP directions per table)", starts)
    if k > 12 or m > 4096 or m**k > 4096:
        raise fail("k" if k > 12 else "n_outputs", "small enough for n_outputs^k <= 4096 column types (k <= 12)",
                   k if k > 12 else m)
    types = m**k
    if math.comb(types + n_keys - 1, n_keys) > 50 * MAX_TABLES:
        raise fail("n_keys", f"small enough that the tables fit the search (n_outputs^k = {types} column types, "
                   f"C(types + n_keys − 1, n_keys) <= {50 * MAX_TABLES})", n_keys)
    law = np.full(k, 1.0 / k) if p is None else check_probability_vector("p", p)
    if law.size != k or np.any(law <= 0):
        raise fail("p", f"a positive probability vector of length k = {k}", p)
    codes = _canonical_tables(k, n_keys, m)
    if codes.shape[0] > MAX_TABLES:
        raise fail("n_keys", f"small enough for at most {MAX_TABLES} tables (k = {k}, n_outputs = {m} give "
                   f"{codes.shape[0]})", n_keys)
    gen = as_generator(rng)
    best = KeyedSearch(None, math.inf, math.nan, math.nan, math.nan, int(codes.shape[0]), 0)
    certified = 0
    probe = gen.dirichlet(np.ones(n_keys))
    for row in codes:
        table = _table_of(row, k, m)
        generic = np.zeros((k, m))
        np.add.at(generic, (np.repeat(np.arange(k), n_keys), table.ravel()), np.tile(probe, k))
        if np.linalg.matrix_rank(generic) < k:
            continue
        directions = np.vstack([np.eye(n_keys), -np.eye(n_keys), gen.normal(size=(starts, n_keys))])
        for q in _optimise_table(table, m, e, r, budget, law, directions):
            q = np.where(q < 1e-15, 0.0, q)
            if q.sum() <= 0:
                continue
            q = q / q.sum()
            try:
                mech = KeyedMechanism(table, q, n_outputs=m)
            except ValueError:
                continue
            bits = entropy_bits(mech.key_probs) if budget == "key" else mech.output_entropy_bits
            exact_eps = ldp_epsilon(mech.channel)
            if exact_eps > e + 1e-12 or bits > r:
                continue
            certified += 1
            risk = _risk_of_matrix(mech.matrix, law)
            if risk < best.risk:
                best = KeyedSearch(mech, risk, exact_eps, mech.randomness_bits, mech.output_entropy_bits,
                                   int(codes.shape[0]), 0)
    return KeyedSearch(best.mechanism, best.risk, best.eps, best.key_bits, best.output_bits, best.tables, certified)
