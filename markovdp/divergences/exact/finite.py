"""Exact divergences between laws on finitely many atoms (Categorical, PointMass, Empirical): finite sums.

Also the atomic vs absolutely continuous pairs, which are mutually singular. THEORY: Notation.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._validation import check_eps, check_order, check_probability_vector, fail, readonly
from ...distributions import Categorical, Distribution
from .registry import Array, register


def _aligned(mu: Distribution, nu: Distribution) -> tuple[Array, Array]:
    """Probability vectors p, q of mu and nu on the union of their atoms."""
    if isinstance(mu, Categorical) and isinstance(nu, Categorical):
        return np.asarray(mu.probs), np.asarray(nu.probs)
    (am, wm), (an, wn) = mu.atoms(), nu.atoms()
    atoms, inverse = np.unique(np.concatenate([am, an]), axis=0, return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)
    p, q = np.zeros(atoms.shape[0]), np.zeros(atoms.shape[0])
    np.add.at(p, inverse[: am.shape[0]], wm)
    np.add.at(q, inverse[am.shape[0]:], wn)
    return p, q


def _vectors(p: ArrayLike, q: ArrayLike) -> tuple[Array, Array]:
    """Two probability vectors over the same atoms (checked)."""
    pv, qv = check_probability_vector("p", p), check_probability_vector("q", q)
    if qv.size != pv.size:
        raise fail("q", f"a probability vector over the same {pv.size} atoms as `p`", f"{qv.size} atoms")
    return pv, qv


def hockey_stick_finite(p: ArrayLike, q: ArrayLike, eps: ArrayLike) -> Array:
    """Σ_i [p_i − e^eps q_i]_+ for each eps of a 1-D array (THEORY: Notation); eps = inf gives D_inf = p(q = 0).

    `p`, `q`: probability vectors of one length; `eps` >= 0 (``inf`` allowed), a scalar or 1-D array.
    One pass for all eps (`hockey_stick_finite_pairs`): no cancellation, no overflow of e^eps (eps up to inf),
    every value >= 0. It equals the term-by-term sum of ``−p expm1(eps − L)`` to a few ulps relative; the one
    error left is that of L = log p − log q itself (~(|log p| + |log q|) ulps) on terms at the threshold.
    """
    pv, qv = _vectors(p, q)
    return _hockey_stick_vectors(pv, qv, np.ravel(check_eps("eps", eps, allow_inf=True)))


def _hockey_stick_vectors(p: Array, q: Array, eps: Array) -> Array:
    P = _frozen(np.ascontiguousarray(p, dtype=np.float64)[None, :])
    Q = _frozen(np.ascontiguousarray(q, dtype=np.float64)[None, :])
    return _hockey_stick(P, Q, _FIRST_ROWS, eps)[:, 0]


def hockey_stick_finite_rows(P: Array, Q: Array, eps: Array) -> Array:
    """(n_eps, n_rows) array of E_{e^eps}(P[r] || Q[r]) for each row pair r (see `hockey_stick_finite_pairs`)."""
    P, Q = _float_rows(P), _float_rows(Q)
    return _hockey_stick(P, Q, _frozen(np.repeat(np.arange(P.shape[0]), 2).reshape(-1, 2)), eps)


def hockey_stick_finite_pairs(matrix: Array, index: NDArray[np.int64], eps: Array) -> Array:
    """(n_eps, n_pairs) array of E_{e^eps}(matrix[i] || matrix[j]) = Σ_{y: L_y > eps} (p_y − e^eps q_y) for
    each row pair (i, j) of `index` (p = matrix[i], q = matrix[j], L_y = log p_y − log q_y).

    THEORY: Notation (hockey-stick, D_inf). The sorted eps and eps + 0.7 cut the line into buckets; one pass
    over y drops each term's p and q into its bucket, and suffix sums give A = Σ_{L > eps} p and
    B = Σ_{L > eps} q for every eps at once: E = A − e^eps B (no sort of the y's). Where that subtraction
    would cancel (A > 4 E: more than two bits) E is recomputed as the same difference over the terms with
    L > eps + 0.7 (there e^eps B <= e^-0.7 A < A / 2: no cancellation) plus the terms with
    eps < L <= eps + 0.7 one by one, ``−p expm1(eps − L)``, each >= 0 and exact to a few ulps. e^eps B is
    e^(eps/2) (e^(eps/2) B) past exp's range and 0 where B = 0: the q = 0 terms (L = inf) give the D_inf
    mass, which is the value at eps = inf.
    """
    matrix = _float_rows(matrix)
    return _hockey_stick(matrix, matrix, _frozen(np.ascontiguousarray(index, dtype=np.int64).reshape(-1, 2)), eps)


def hockey_stick_finite_worst(matrix: Array, index: NDArray[np.int64], eps: Array) -> Array:
    """(n_eps,) array of max over the pairs (i, j) of `index` of E_{e^eps}(matrix[i] || matrix[j]), capped at 1.

    The same one pass as `hockey_stick_finite_pairs`, with the max over pairs taken inside it. `matrix` must be
    a C-contiguous float64 array and `index` a C-contiguous (n_pairs, 2) int64 array (as a `RowPairs` holds).
    """
    eps = np.ascontiguousarray(eps, dtype=np.float64).reshape(-1)
    if not eps.flags.writeable:  # one array type: one numba specialisation
        eps = eps.copy()
    out = np.empty(eps.size)
    matrix = _frozen(matrix)
    _kernels()._hockey_stick_max_with_cuts(matrix, matrix, _frozen(index), eps, out)
    return out


def _kernels() -> Any:
    """The numba kernel module, imported on first use (numba costs ~0.3 s to import) and kept bound."""
    global _KERNELS
    if _KERNELS is None:
        from . import _finite_kernels

        _KERNELS = _finite_kernels
    return _KERNELS


_KERNELS: Any = None

#: The index of the one pair (P[0], Q[0]).
_FIRST_ROWS = readonly(np.zeros((1, 2), dtype=np.int64))


def _float_rows(P: Array) -> Array:
    return _frozen(np.ascontiguousarray(np.atleast_2d(P), dtype=np.float64))


def _frozen(arr: NDArray[Any]) -> NDArray[Any]:
    """A read-only view (no copy): the numba kernel sees one array type, so it compiles once."""
    if arr.flags.writeable:
        arr = arr.view()
        arr.flags.writeable = False
    return arr


def _hockey_stick(P: Array, Q: Array, index: NDArray[np.int64], eps: Array) -> Array:
    """E_{e^eps}(P[i] || Q[k]) for each (i, k) of `index`: one pass over y in numba, cuts included."""
    eps = np.array(eps, dtype=np.float64, ndmin=1)  # a fresh C array: one numba specialisation
    out = np.empty((eps.size, index.shape[0]))
    _kernels()._hockey_stick_with_cuts(P, Q, index, eps, out)
    return out


#: A tail term with L > eps + _SAFE_GAP has e^(eps − L) < e^-0.7 < 1/2 (0.7 > log 2): no cancellation.
_SAFE_GAP = 0.7
#: A − e^eps B is kept where A <= _KEEP_RATIO (A − e^eps B): at most two bits cancel.
_KEEP_RATIO = 4.0
#: Below this exp(eps) is finite; above it e^eps B is formed as e^(eps/2) (e^(eps/2) B).
_EXP_SAFE = 709.0
#: The one-pass kernel keeps the logs of the rows its pairs read when they fit in this many doubles (128 MiB).
_LOG_CACHE = 2**24


def kl_finite(p: ArrayLike, q: ArrayLike) -> float:
    """Σ_i p_i log(p_i/q_i); +inf if some p_i > 0 = q_i (THEORY: Notation). `p`, `q`: probability vectors of one
    length.

    Summed as Σ (p log(p/q) − p + q) (scipy.special.kl_div): non-negative terms for normalised p, q.
    """
    return _kl_vectors(*_vectors(p, q))


def _kl_vectors(p: Array, q: Array) -> float:
    if np.any((p > 0) & (q == 0)):
        return math.inf
    from scipy import special  # here, not at import: scipy.special costs ~0.2 s to import

    return float(special.kl_div(p, q).sum())


def renyi_finite(p: ArrayLike, q: ArrayLike, alpha: ArrayLike) -> Array:
    """1/(alpha−1) log Σ_{p>0} p^alpha q^(1−alpha); alpha = inf: log max_{p>0} p/q (THEORY: Notation).

    `p`, `q`: probability vectors of one length; `alpha` in (1, inf], a scalar or 1-D array.
    In log space (logsumexp), so alpha = 1e3 stays finite; +inf where supp(p) ⊄ supp(q).
    """
    pv, qv = _vectors(p, q)
    return _renyi_vectors(pv, qv, np.ravel(check_order("alpha", alpha)))


def _renyi_vectors(p: Array, q: Array, alpha: Array) -> Array:
    return renyi_finite_rows(p[None, :], q[None, :], alpha)[:, 0]


#: Rows per block of `renyi_finite_rows`, so temporaries stay near 2^20 floats (8 MB each).
_BLOCK = 2**20


def renyi_finite_rows(P: Array, Q: Array, alpha: Array) -> Array:
    """(n_alpha, n) array of R_alpha(P[r] || Q[r]) for each row pair r: `renyi_finite`, vectorised over rows.

    Near alpha = 1 (|(alpha − 1) log p/q| < 0.5 on the support) the log-sum is log1p(Σ p expm1(x)), which
    keeps the O(alpha − 1) signal of nearby laws; elsewhere logsumexp.
    """
    P, Q = np.atleast_2d(P), np.atleast_2d(Q)
    alpha = np.atleast_1d(np.asarray(alpha, dtype=np.float64))
    out = np.empty((alpha.size, P.shape[0]))
    step = max(1, _BLOCK // max(P.shape[1], 1))
    for start in range(0, P.shape[0], step):
        block = slice(start, start + step)
        out[:, block] = _renyi_block(P[block], Q[block], alpha)
    return out


def renyi_finite_pairs(matrix: Array, index: NDArray[np.int64], alpha: Array) -> Array:
    """(n_alpha, n_pairs) array of R_alpha(matrix[i] || matrix[j]) for each row pair (i, j) of `index`.

    THEORY: Notation (R_alpha, D_inf). For finite alpha all pairs at once by one matrix product: with
    a_i = max_y alpha log p_iy and b_j = max_{y: p_jy > 0} (1 − alpha) log p_jy,
    Σ_y p_iy^alpha p_jy^(1−alpha) = e^(a_i + b_j) (A B^T)_ij, A = e^(alpha log p − a), B = e^((1−alpha) log p − b)
    (every factor <= 1: no overflow). Its log carries an absolute error of about (m + alpha max|log p|) ulps,
    as the row-by-row logsumexp does; pairs whose log-sum is below 1e-3 (nearby laws, where that error
    would be large relative to the value) or whose product nears underflow, alpha = inf, and index sets
    too sparse for a product to pay are summed row by row (`renyi_finite_rows`, with its log1p/expm1 form
    near alpha = 1). +inf where supp(p_i) ⊄ supp(p_j).
    """
    matrix, index, alpha = _renyi_arguments(matrix, index, alpha)
    out = np.empty((alpha.size, index.shape[0]))
    gram = _Gram.of(matrix, index)
    if gram is None:  # few pairs: row by row
        for n, a in enumerate(alpha):
            out[n] = _renyi_rows_of(matrix, index, a)
        return out
    i, j = gram.inverse
    for n in np.flatnonzero(np.isinf(alpha)):
        out[n] = gram.max_log_ratio()[i, j]
    for orders, products, shifts_l, shifts_r in gram.products(alpha):
        for n, s, shift_l, shift_r in zip(orders, products, shifts_l, shifts_r, strict=True):
            s = s[i, j]
            with np.errstate(divide="ignore"):
                log_sum = np.log(s) + shift_l[i] + shift_r[j]
            out[n] = log_sum / (alpha[n] - 1.0)
            by_rows = (s < _NORMAL_PRODUCT) | (log_sum < _GRAM_MIN_LOG_SUM)
            if gram.singular is not None:
                by_rows &= ~gram.singular[i, j]
            out[n, by_rows] = _renyi_rows_of(matrix, index[by_rows], alpha[n])
    if gram.singular is not None:
        out[:, gram.singular[i, j]] = math.inf
    return out


def renyi_finite_worst(matrix: Array, index: NDArray[np.int64], alpha: Array, *, all_pairs: bool = False) -> Array:
    """(n_alpha,) array of max over the row pairs (i, j) of `index` of R_alpha(matrix[i] || matrix[j]).

    The values of `renyi_finite_pairs`, entry by entry the same arithmetic, so the same max; taken over the
    matrix product in place (no gather of the pairs), and divided by alpha − 1 once, after the max (a division
    by a positive number keeps the order of doubles). `all_pairs`: `index` is every ordered pair of distinct rows
    (as a `RowPairs` of local DP says), so its structure is known without reading it. A caller that asks again
    for the same rows keeps a `RenyiRows` instead (its alpha-independent work is done once).
    """
    return RenyiRows(matrix, index, all_pairs=all_pairs).worst(alpha)


def _finite_orders(alpha: Array) -> NDArray[np.int64]:
    """The indices of the finite orders of a 1-D `alpha`."""
    if alpha.size < len(_RANGES) and not any(map(math.isinf, alpha.tolist())):  # a few orders: no numpy call
        return _RANGES[alpha.size]
    return np.flatnonzero(~np.isinf(alpha))


#: arange(n) for the usual few orders (read-only).
_RANGES = tuple(readonly(np.arange(n)) for n in range(17))


class RenyiRows:
    """The alpha-independent work of `renyi_finite_worst` for one matrix and index, done once: the logs of the rows,
    their extremes, the support check (`_Gram`). The arrays it is given must not change afterwards (a `RowPairs`
    holds read-only copies that nothing writes)."""

    def __init__(self, matrix: Array, index: NDArray[np.int64], *, all_pairs: bool = False) -> None:
        self.matrix, self.index, _ = _renyi_arguments(matrix, index, np.empty(0))
        self.all_pairs = all_pairs
        self.gram = _Gram.of(self.matrix, self.index, all_pairs)
        gram = self.gram
        #: supp(p_i) ⊄ supp(p_j) for a pair: R_alpha = inf at every order
        self.singular = gram is not None and gram.singular is not None and bool(gram.singular[gram.listed].any())

    def __getstate__(self) -> dict[str, Any]:
        """Pickled as its arguments (a pair set that keeps it travels to dask workers): the logs are recomputed
        there, and the per-thread scratch arrays cannot be pickled."""
        return {"matrix": self.matrix, "index": self.index, "all_pairs": self.all_pairs}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["matrix"], state["index"], all_pairs=state["all_pairs"])  # type: ignore[misc]

    def worst(self, alpha: Array, r_inf: Callable[[], float] | None = None) -> Array:
        """`renyi_finite_worst` at the orders `alpha` (1-D, in (1, inf]); at alpha = inf ``r_inf()`` if given."""
        alpha = np.atleast_1d(np.asarray(alpha, dtype=np.float64))
        gram = self.gram
        if gram is None or self.singular:
            out = renyi_finite_pairs(self.matrix, self.index, alpha).max(axis=1) if gram is None \
                else np.full(alpha.size, math.inf)
            if r_inf is not None and np.isinf(alpha).any():
                out[np.isinf(alpha)] = r_inf()
            return out
        out = np.empty(alpha.size)
        finite = _finite_orders(alpha)
        if finite.size < alpha.size and r_inf is not None:
            out[np.isinf(alpha)] = r_inf()
        elif finite.size < alpha.size:
            for n in np.flatnonzero(np.isinf(alpha)):
                worst = gram.max_log_ratio()
                worst[gram.unlisted] = -np.inf
                out[n] = worst.max()
        candidates = self.matrix.shape[1] < _CANDIDATES_MAX_OUTCOMES
        log_scale = 700.0 + math.log(self.matrix.shape[1])  # |log s| <= 645 (s >= 1e-280) or log m
        for orders, s, shift_l, shift_r in gram.products(alpha, finite):
            undecided = orders
            if candidates:  # the log-sums of the entries that may attain the max, the same doubles
                kernels = _kernels()
                counts, terms = kernels._renyi_candidates_orders(s, shift_l, shift_r, gram.listed,
                                                                 2.0 * _GRAM_MIN_LOG_SUM, _NORMAL_PRODUCT, log_scale)
                if terms.shape[1]:  # terms: s[u, v], shift_l[u], shift_r[v] of the decided orders in turn
                    if not kernels._renyi_candidates_max(np.log(terms[0]), terms, counts, orders, alpha, out):
                        continue  # every order of the block decided
                    undecided = orders[counts == 0]
            for n in undecided:
                o = int(np.searchsorted(orders, n))
                out[n] = self._full_max(s[o], shift_l[o], shift_r[o], float(alpha[n]))
        return out

    def _full_max(self, s: Array, shift_l: Array, shift_r: Array, alpha: float) -> float:
        """max over the listed entries of log-sum/(alpha − 1) from every entry of the product s (overwritten), the
        pairs of nearby laws or of a product near underflow summed row by row."""
        gram = self.gram
        unlisted = gram.unlisted
        s[unlisted] = math.inf  # out of the checks below, and −inf for the max
        tiny = s < _NORMAL_PRODUCT if s.min() < _NORMAL_PRODUCT else None
        with np.errstate(divide="ignore"):
            log_sum = np.log(s, out=s)
        log_sum += shift_l[:, None]
        log_sum += shift_r[None, :]
        by_rows = log_sum < _GRAM_MIN_LOG_SUM if log_sum.min() < _GRAM_MIN_LOG_SUM else None
        if tiny is not None:
            by_rows = tiny if by_rows is None else by_rows | tiny
        log_sum[unlisted] = -np.inf
        best = -math.inf
        if by_rows is not None:  # nearby laws or a product near underflow: those pairs summed row by row
            u, v = np.nonzero(by_rows)
            best = float(_renyi_rows_of(self.matrix, np.stack([gram.left_rows[u], gram.right_rows[v]], axis=1),
                                        alpha).max())
            log_sum[u, v] = -np.inf
        return max(log_sum.max() / (alpha - 1.0), best)


def _renyi_arguments(matrix: Array, index: NDArray[np.int64], alpha: Array) -> tuple[Array, NDArray[np.int64], Array]:
    matrix = np.ascontiguousarray(matrix, dtype=np.float64)
    index = np.asarray(index, dtype=np.int64).reshape(-1, 2)
    return matrix, index, np.atleast_1d(np.asarray(alpha, dtype=np.float64))


def _distinct(column: NDArray[np.int64], k: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``np.unique(column, return_inverse=True)`` for rows in [0, k), by counting instead of sorting."""
    present = np.zeros(k, dtype=bool)
    present[column] = True
    return np.flatnonzero(present), (np.cumsum(present) - 1)[column]


class _Gram:
    """The matrix products of `renyi_finite_pairs` over every (left row, right row) of a set of pairs."""

    def __init__(self, matrix: Array, left: tuple[Any, Any], right: tuple[Any, Any],
                 listed: NDArray[np.bool_]) -> None:
        (self.left_rows, i), (self.right_rows, j) = left, right
        self.inverse = (i, j)
        #: the (left, right) entries that are pairs of the index
        self.listed = listed
        k = matrix.shape[0]  # the rows are distinct and ascending (`_distinct`, arange): k of them are all rows
        self._rows_l = matrix if self.left_rows.size == k else matrix[self.left_rows]
        rows_r = matrix if self.right_rows.size == k else matrix[self.right_rows]
        support_r = rows_r > 0
        # supp(p_i) ⊄ supp(p_j): counts of outcomes in supp(p_i) \ supp(p_j), integers, exact in floating point;
        # only the outcomes where some right row is 0 can count (None: no right row has a 0)
        holes = np.flatnonzero(~support_r.all(axis=0))
        self.singular = None
        self.zeros_r = None
        if holes.size:
            self.singular = (self.support_l[:, holes].astype(np.float64)
                             @ (~support_r[:, holes]).astype(np.float64).T) > 0
            self.zeros_r = ~support_r
        with np.errstate(divide="ignore"):
            self.log_l = np.log(self._rows_l)
            self.log_r = self.log_l if rows_r is self._rows_l else np.log(rows_r)
        self._top_l = self.log_l.max(axis=1)
        log_r = self.log_r if self.zeros_r is None else np.where(self.zeros_r, np.inf, self.log_r)
        self._bottom_r = log_r.min(axis=1)
        self._zeros_r = _NO_ZEROS if self.zeros_r is None else self.zeros_r
        self._scratch = threading.local()  # `products`' arrays, reused call after call (one set per thread)

    @cached_property
    def support_l(self) -> NDArray[np.bool_]:
        return self._rows_l > 0

    @cached_property
    def unlisted(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """The (left, right) entries of no pair, e.g. the diagonal of all pairs."""
        return np.nonzero(~self.listed)

    @classmethod
    def of(cls, matrix: Array, index: NDArray[np.int64], all_pairs: bool = False) -> _Gram | None:
        """The products for the pairs of `index`, or None where they fill less than 1/_GRAM_MIN_FILL of them."""
        k = matrix.shape[0]
        if all_pairs:  # every ordered pair of distinct rows: no inverse needed
            rows = (np.arange(k), None)
            return cls(matrix, rows, rows, ~np.eye(k, dtype=bool))
        left, right = _distinct(index[:, 0], k), _distinct(index[:, 1], k)
        if index.shape[0] * _GRAM_MIN_FILL < left[0].size * right[0].size:
            return None
        listed = np.zeros((left[0].size, right[0].size), dtype=bool)
        listed[left[1], right[1]] = True
        return cls(matrix, left, right, listed)

    def products(self, alpha: Array, finite: NDArray[np.int64] | None = None
                 ) -> Iterator[tuple[NDArray[np.int64], Array, Array, Array]]:
        """(orders, A B^T, a, b) for the finite orders alpha[orders] (`finite`: their indices, if known), a block
        of orders at a time (see `renyi_finite_pairs`): A B^T an (orders, left, right) array, a and b (orders,
        left) and (orders, right), all three scratch arrays that the next block overwrites.
        The shifts a = max_y fl(alpha log p_iy) = fl(alpha max_y log p_iy) and b = fl((1 − alpha)
        min_{y: p_jy > 0} log p_jy): rounding keeps order (alpha > 1), so the extremes of the rows, read once,
        give the same doubles as the extremes of each order's exponents."""
        if finite is None:
            finite = np.flatnonzero(~np.isinf(alpha))
        (k_l, m), k_r = self.log_l.shape, self.log_r.shape[0]
        step = max(1, _ORDERS_BLOCK // ((k_l + k_r) * max(m, 1) + k_l * k_r))
        block = self._block(min(step, finite.size))
        for start in range(0, finite.size, step):
            orders = finite[start:start + step]
            n = orders.size
            shift_l, shift_r, factor_l, factor_r, s = block.arrays if n == block.size else block.prefix(n)
            # factor_l = alpha log_l − shift_l (−inf off the support), factor_r = (1 − alpha) log_r − shift_r (−inf
            # off the support): in one compiled pass for the block (`_renyi_exponents`), numpy's exp after it
            _kernels()._renyi_exponents_orders(alpha if n == alpha.size else alpha[orders], self.log_l, self.log_r,
                                               self._zeros_r, self._top_l, self._bottom_r, shift_l, shift_r,
                                               factor_l, factor_r)
            np.exp(factor_l, out=factor_l)
            np.exp(factor_r, out=factor_r)
            for left, right_t, product in block.views[:n]:
                np.matmul(left, right_t, out=product)
            yield orders, s, shift_l, shift_r

    def _block(self, n: int) -> _Block:
        """This thread's scratch arrays for `products` of up to n orders at once, kept between calls (one set per
        thread, so concurrent calls do not share them)."""
        block = getattr(self._scratch, "block", None)
        if block is None or block.size < n:
            block = self._scratch.block = _Block(n, self.log_l.shape[0], self.log_r.shape[0], self.log_l.shape[1])
        return block

    def max_log_ratio(self) -> Array:
        """D_inf = max_{y in supp(p_i)} log p_iy − log p_jy of every (left, right) entry, one left row at a time."""
        worst = np.empty(self.listed.shape)
        with np.errstate(invalid="ignore"):
            for u in range(worst.shape[0]):
                worst[u] = np.where(self.support_l[u], self.log_l[u] - self.log_r, -np.inf).max(axis=1)
        return worst


class _Block:
    """Scratch arrays of `_Gram.products` for n orders: shifts (n, left), (n, right), factors (n, left, m),
    (n, right, m), products (n, left, right), and per order the views that its matrix product reads and writes."""

    def __init__(self, n: int, k_l: int, k_r: int, m: int) -> None:
        self.size = n
        self.arrays = (np.empty((n, k_l)), np.empty((n, k_r)), np.empty((n, k_l, m)), np.empty((n, k_r, m)),
                       np.empty((n, k_l, k_r)))
        _, _, left, right, product = self.arrays
        self.views = [(left[o], right[o].T, product[o]) for o in range(n)]

    def prefix(self, n: int) -> tuple[Array, ...]:
        return tuple(array[:n] for array in self.arrays)


#: `_renyi_exponents`' mask where no right row has a zero.
_NO_ZEROS = np.zeros((0, 0), dtype=np.bool_)
#: `_Gram.products` takes as many orders at once as keep its arrays below this many floats (512 KiB; larger fresh
#: arrays come from mmap and fault in page by page on every call).
_ORDERS_BLOCK = 2**16
#: `renyi_finite_pairs` takes one matrix product when the pairs fill at least 1/_GRAM_MIN_FILL of it, ...
_GRAM_MIN_FILL = 8
#: ... keeps its value where the log-sum is at least this ...
_GRAM_MIN_LOG_SUM = 1e-3
#: ... and the product entry far from underflow.
_NORMAL_PRODUCT = 1e-280
#: `renyi_finite_worst` takes the log-sums of the candidates for the max alone (`_renyi_candidates`) below this
#: many outcomes, where the pairs summed row by row (log-sum < 1e-3) are below twice that by far more than
#: either sum's error (~m ulps).
_CANDIDATES_MAX_OUTCOMES = 2**30


def _renyi_rows_of(matrix: Array, index: NDArray[np.int64], alpha: float) -> Array:
    """R_alpha(matrix[i] || matrix[j]) for the pairs of `index`, row by row in blocks of pairs."""
    out = np.empty(index.shape[0])
    step = max(1, _BLOCK // max(matrix.shape[1], 1))
    for start in range(0, index.shape[0], step):
        pairs = index[start: start + step]
        out[start: start + step] = _renyi_block(matrix[pairs[:, 0]], matrix[pairs[:, 1]], np.array([alpha]))[0]
    return out


def _renyi_block(P: Array, Q: Array, alpha: Array) -> Array:
    from scipy import special

    support = P > 0
    singular = (support & (Q == 0)).any(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_p = np.where(support, np.log(P), -np.inf)
        log_ratio = np.where(support & (Q > 0), log_p - np.log(np.where(Q > 0, Q, 1.0)), 0.0)
    out = np.empty((alpha.size, P.shape[0]))
    for n, a in enumerate(alpha):
        if math.isinf(a):
            out[n] = np.where(support, log_ratio, -np.inf).max(axis=1)
            continue
        x = np.where(support, (a - 1.0) * log_ratio, 0.0)  # log (p/q)^(alpha−1) on the support
        near = np.abs(x).max(axis=1) < 0.5
        with np.errstate(divide="ignore"):
            log_sum = special.logsumexp(np.where(support, log_p + x, -np.inf), axis=1)
        if near.any():
            s = np.einsum("ij,ij->i", np.where(support, P, 0.0)[near], np.expm1(x[near]))
            log_sum[near] = np.log1p(np.maximum(s, 0.0))
        out[n] = log_sum / (a - 1.0)
    out[:, singular] = math.inf
    return out


@register("hockey_stick", "finite_sum", ("atomic", "atomic"))
def _hs_atomic(mu: Distribution, nu: Distribution, eps: Array) -> Array:
    return _hockey_stick_vectors(*_aligned(mu, nu), eps)


@register("kl", "finite_sum", ("atomic", "atomic"))
def _kl_atomic(mu: Distribution, nu: Distribution, _: None) -> Array:
    return np.array([_kl_vectors(*_aligned(mu, nu))])


@register("renyi", "finite_sum", ("atomic", "atomic"))
def _renyi_atomic(mu: Distribution, nu: Distribution, alpha: Array) -> Array:
    return _renyi_vectors(*_aligned(mu, nu), alpha)


# Atomic vs absolutely continuous: mutually singular. E_gamma = 1 for every gamma (the event "the atoms",
# or its complement, has mass 1 under mu and 0 under nu); KL = R_alpha = inf.

@register("hockey_stick", "closed_form", ("atomic", "continuous"), ("continuous", "atomic"))
def _hs_singular(mu: Distribution, nu: Distribution, eps: Array) -> Array:
    return np.ones(eps.shape)


@register("kl", "closed_form", ("atomic", "continuous"), ("continuous", "atomic"))
def _kl_singular(mu: Distribution, nu: Distribution, _: None) -> Array:
    return np.array([math.inf])


@register("renyi", "closed_form", ("atomic", "continuous"), ("continuous", "atomic"))
def _renyi_singular(mu: Distribution, nu: Distribution, alpha: Array) -> Array:
    return np.full(alpha.shape, math.inf)

