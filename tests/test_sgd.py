"""NoisyProjSGD (BBGG-A1) as a mechanism: the losses' constants, the simulator against a numpy loop and against the
exact law of the linear (quadratic, unprojected) case, `differing_at` for BBGG-T5 / BBGG-T5opt, and bad input."""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import markovdp as md
from markovdp import _fast_normal as fast
from markovdp.mechanisms.losses import GradientLoss, LogisticLoss, QuadraticLoss, largest_norm
from markovdp.mechanisms.sgd import BLOCK, NoisyProjSGD, SGDDifferingAt, exact_sgd_outputs
from markovdp.spaces import IncompatibleSpaces

SEED = 20240601


# ------------------------------------------------------------------------------------------- helpers


def points_in(domain: md.Projection, m: int, rng: np.random.Generator) -> np.ndarray:
    """m points of W: uniform in a box; in a ball, uniform directions at radii spread to the boundary."""
    if isinstance(domain, md.Box):
        return domain.low + (domain.high - domain.low) * rng.random((m, domain.dim))
    u = rng.standard_normal((m, domain.dim))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    return u * domain.radius * rng.random((m, 1)) ** 0.5


def logistic_records(d: int, n: int, bound: float, rng: np.random.Generator) -> np.ndarray:
    """n records (a, y): ||a|| <= bound (a fifth exactly on the sphere), y = ±1."""
    a = points_in(md.Ball(d, bound), n, rng)
    a[: n // 5] *= bound / np.linalg.norm(a[: n // 5], axis=1, keepdims=True)
    return np.column_stack([a, rng.choice([-1.0, 1.0], size=n)])


def logistic_value(x: np.ndarray, record: np.ndarray, lam: float) -> float:
    """log(1 + exp(−y aᵀx)) + (λ/2)||x||², by numpy's logaddexp (independent of the compiled gradient)."""
    a, y = record[:-1], record[-1]
    return float(np.logaddexp(0.0, -y * a @ x) + 0.5 * lam * x @ x)


def plain_noise(seed: int, runs: int, n: int, d: int) -> tuple[np.ndarray, np.random.Generator]:
    """(Z, gen): Z[r, i, k], the noise of run r, step i, coordinate k, in the order documented in
    `markovdp.mechanisms._sgd_kernels`: four 64-bit words of ``default_rng(seed)`` seed the root SeedSequence;
    block b of `BLOCK` runs has the xoshiro256++ state of words 4b … 4b + 3 of its ``generate_state`` and draws
    ``fill_normals(state, (BLOCK, n, d))`` for its runs, run-major (`fill_normals` is held against the reference
    xoshiro256++ and the normal law in tests/test_fast_normal.py). gen: the Generator after the four words."""
    gen = np.random.default_rng(seed)
    words = gen.integers(0, 2**64, size=4, dtype=np.uint64, endpoint=False)
    blocks = -(-runs // BLOCK)
    states = np.random.SeedSequence([int(w) for w in words]).generate_state(4 * blocks, np.uint64)
    z = np.empty((blocks, BLOCK, n, d))
    for b in range(blocks):
        fast.fill_normals(states[4 * b:4 * b + 4].copy(), z[b])
    return z.reshape(blocks * BLOCK, n, d)[:runs], gen


def numpy_sgd(sgd: NoisyProjSGD, data: np.ndarray, runs: int, seed: int) -> np.ndarray:
    """BBGG-A1 as a plain numpy loop over i, vectorised over all runs, on the documented noise (`plain_noise`;
    x_0 ~ ξ_0 drawn after the four words of the noise's root). data: one dataset (n, p) or one per run
    (runs, n, p). Sums run left to right, as in the compiled code, so results agree bit for bit."""
    d, n, eta, sigma = sgd.dim, sgd.n, sgd.eta, sgd.sigma
    noise, gen = plain_noise(seed, runs, n, d)
    if isinstance(sgd.x0, md.Distribution):
        x = sgd.x0.sample(runs, rng=gen).reshape(runs, d)
    else:
        x = np.tile(sgd.x0, (runs, 1))
    records = np.broadcast_to(data, (runs, *data.shape[-2:]))
    for i in range(n):
        z = records[:, i]
        if isinstance(sgd.loss, QuadraticLoss):
            g = x - z
        else:
            margin = np.zeros(runs)
            for k in range(d):
                margin = margin + z[:, k] * x[:, k]
            margin = margin * z[:, d]
            with np.errstate(over="ignore"):
                e = np.exp(-margin)
                s = np.where(margin >= 0.0, e / (1.0 + e), 1.0 / (1.0 + np.exp(margin)))
            g = (-z[:, d] * s)[:, None] * z[:, :d] + sgd.loss.regularization * x
        x = x - eta * (g + sigma * noise[:, i])
        w = sgd.projection
        if isinstance(w, md.Ball):
            sq = np.zeros(runs)
            for k in range(d):
                sq = sq + x[:, k] * x[:, k]
            far = sq > w.radius**2
            x[far] *= (w.radius / np.sqrt(sq[far]))[:, None]
        elif isinstance(w, md.Box):
            x = np.minimum(np.maximum(x, w.low), w.high)
    return x


# ------------------------------------------------------------------------------------------- losses


@pytest.mark.parametrize("domain", [md.Ball(3, 2.0), md.Box([-1.0, 0.5, -2.0], [1.0, 1.5, 0.0])])
def test_logistic_constants_bound_gradients_and_hessians_on_w(domain: md.Projection) -> None:
    """BBGG-T5 constants of LogisticLoss, checked on 400 random (x ∈ W, record) pairs: ||∇ℓ|| <= C = R + λD, the
    gradient matches central differences of the loss value, and the Hessian (central differences of the compiled
    gradient) has eigenvalues in [ρ, β] = [λ, R²/4 + λ]. Half the features sit on the sphere ||a|| = R."""
    rng = np.random.default_rng(SEED)
    lam, bound = 0.3, 1.5
    loss = LogisticLoss(domain, regularization=lam, data_bound=bound)
    assert loss.lipschitz == pytest.approx(bound + lam * largest_norm(domain), rel=1e-15)
    assert (loss.smoothness, loss.strong_convexity) == (bound**2 / 4 + lam, lam)
    xs = points_in(domain, 400, rng)
    records = logistic_records(3, 400, bound, rng)
    h, eye = 1e-5, np.eye(3)
    worst_norm, low, high = 0.0, math.inf, -math.inf
    for x, z in zip(xs, records, strict=True):
        grad = loss.gradient_at(x, z)
        numeric = [(logistic_value(x + h * e, z, lam) - logistic_value(x - h * e, z, lam)) / (2 * h) for e in eye]
        np.testing.assert_allclose(grad, numeric, atol=1e-8)
        worst_norm = max(worst_norm, float(np.linalg.norm(grad)))
        hessian = np.array([(loss.gradient_at(x + h * e, z) - loss.gradient_at(x - h * e, z)) / (2 * h)
                            for e in eye])
        eig = np.linalg.eigvalsh(0.5 * (hessian + hessian.T))
        low, high = min(low, eig[0]), max(high, eig[-1])
    assert worst_norm <= loss.lipschitz
    assert loss.strong_convexity - 1e-8 <= low and high <= loss.smoothness + 1e-8
    assert low == pytest.approx(lam, abs=1e-6)  # the λ I part is attained (the data term is rank one)


def test_logistic_gradient_stays_finite_at_huge_margins() -> None:
    """s(−m) is evaluated without overflow: margins of ±1e4 give the limits 0 and −y a (plus λ x)."""
    loss = LogisticLoss(md.Ball(1, 1e4), regularization=0.0, data_bound=1.0)
    np.testing.assert_array_equal(loss.gradient_at([1e4], [1.0, 1.0]), [0.0])
    np.testing.assert_array_equal(loss.gradient_at([-1e4], [1.0, 1.0]), [-1.0])


def test_quadratic_constants() -> None:
    """QuadraticLoss: ∇ℓ = x − z, so ||∇ℓ|| <= diam W = C for x, z ∈ W (attained at antipodes), β = ρ = 1."""
    rng = np.random.default_rng(SEED)
    domain = md.Box([-1.0, 0.0], [2.0, 4.0])
    loss = QuadraticLoss(domain)
    assert (loss.lipschitz, loss.smoothness, loss.strong_convexity) == (5.0, 1.0, 1.0)
    xs, zs = points_in(domain, 200, rng), points_in(domain, 200, rng)
    grads = np.array([loss.gradient_at(x, z) for x, z in zip(xs, zs, strict=True)])
    np.testing.assert_array_equal(grads, xs - zs)
    assert np.linalg.norm(loss.gradient_at(domain.high, domain.low)) == loss.lipschitz


# ------------------------------------------------------------------------------------------- simulator


def _logistic_sgd(d: int, n: int, projection: md.Projection, x0: object, rng: np.random.Generator):
    loss = LogisticLoss(projection, regularization=0.2, data_bound=1.0)
    return NoisyProjSGD(loss, 0.8, 0.7, projection, x0, n=n), logistic_records(d, n, 1.0, rng)


def test_simulator_matches_a_numpy_loop_bit_for_bit() -> None:
    """The numba simulator draws the documented noise (a stream per block of runs, run-major) and gives a plain
    numpy loop's floats on it: quadratic loss with a ball and a box, and unprojected with a Normal start, in d = 2,
    3 and 11 (beyond the dimensions compiled as constants), bit for bit; the logistic loss agrees to 1e-12 (numpy's
    vectorised exp may differ from libm's in the last bit on some CPUs). 5 full blocks and a partial one: blocks
    advanced in lockstep, and a last group with fewer of them."""
    rng = np.random.default_rng(SEED)
    runs = 5 * BLOCK + 17
    eleven = md.Ball(11, 2.0)
    for domain, projection, x0 in [(md.Ball(2, 1.0), md.Ball(2, 1.0), [0.9, -0.3]),
                                   (md.Box([-1.0, 0.0, 0.0], [1.0, 0.5, 2.0]), "same", [0.0, 0.25, 1.5]),
                                   (md.Ball(2, 1.5), None, md.Normal([0.5, 0.5], 2.0)),
                                   (eleven, eleven, np.full(11, 0.1))]:
        projection = domain if projection == "same" else projection
        sgd = NoisyProjSGD(QuadraticLoss(domain), 0.6, 1.3, projection, x0, n=23)
        data = points_in(domain, 23, rng)
        np.testing.assert_array_equal(sgd.run(data, runs, rng=SEED), numpy_sgd(sgd, data, runs, SEED))
    for projection in (md.Ball(3, 0.8), md.Box([-0.5, -0.5, -0.5], [0.5, 0.5, 0.5])):
        sgd, data = _logistic_sgd(3, 31, projection, np.zeros(3), rng)
        np.testing.assert_allclose(sgd.run(data, runs, rng=SEED), numpy_sgd(sgd, data, runs, SEED),
                                   rtol=0, atol=1e-12)


def test_runs_keep_their_noise_whatever_the_number_of_runs() -> None:
    """Seeds are addresses: the first runs of a larger call are the smaller call, at block boundaries too; an
    int seed, default_rng of it and a SeedSequence of it give the same runs; a Generator advances."""
    rng = np.random.default_rng(SEED)
    sgd, data = _logistic_sgd(2, 9, md.Ball(2, 1.0), np.zeros(2), rng)
    full = sgd.run(data, 9 * BLOCK + 3, rng=5)
    for runs in (1, 2, BLOCK - 1, BLOCK, BLOCK + 1, 4 * BLOCK + 1, 8 * BLOCK):
        np.testing.assert_array_equal(sgd.run(data, runs, rng=5), full[:runs])
    np.testing.assert_array_equal(sgd.run(data, 70, rng=np.random.default_rng(5)), full[:70])
    np.testing.assert_array_equal(sgd.run(data, 70, rng=np.random.SeedSequence(5)), full[:70])
    gen = np.random.default_rng(5)
    first = sgd.run(data, 10, rng=gen)
    assert not np.array_equal(sgd.run(data, 10, rng=gen), first)


def test_advance_from_given_starts_is_the_numpy_loop_and_is_run_from_x0() -> None:
    """`advance` (the step of synchronous couplings): from x0 repeated it is `run` bit for bit; from per-run starts
    it is the plain numpy loop started there, on the same noise; bad starts are refused by name."""
    rng = np.random.default_rng(SEED)
    domain = md.Ball(2, 1.0)
    sgd = NoisyProjSGD(QuadraticLoss(domain), 0.6, 1.3, domain, [0.9, -0.3], n=7)
    data = points_in(domain, 7, rng)
    runs = BLOCK + 5
    np.testing.assert_array_equal(sgd.advance(data, np.tile([0.9, -0.3], (runs, 1)), rng=SEED),
                                  sgd.run(data, runs, rng=SEED))
    starts = rng.uniform(-0.5, 0.5, size=(runs, 2))
    for r in (0, 3, runs - 1):  # run r from its own start: the numpy loop with x0 = starts[r], noise of run r
        one = NoisyProjSGD(QuadraticLoss(domain), 0.6, 1.3, domain, starts[r], n=7)
        np.testing.assert_array_equal(sgd.advance(data, starts, rng=SEED)[r], numpy_sgd(one, data, runs, SEED)[r])
    with pytest.raises(ValueError, match="`starts`"):
        sgd.advance(data, np.zeros((3, 5)), rng=1)


def test_one_dataset_per_run_matches_numpy() -> None:
    """`sample` of a stack of different datasets: run r on dataset r with the noise of run r (d = 2)."""
    rng = np.random.default_rng(SEED)
    sgd, _ = _logistic_sgd(2, 6, md.Ball(2, 0.7), np.zeros(2), rng)
    stack = np.stack([logistic_records(2, 6, 1.0, rng) for _ in range(3 * BLOCK + 2)])
    np.testing.assert_allclose(sgd.sample(stack, rng=11), numpy_sgd(sgd, stack, stack.shape[0], 11), rtol=0,
                               atol=1e-12)


def test_sample_of_a_stack_of_datasets() -> None:
    """`sample` on a stack of identical datasets is `run` on one (same stream); on one dataset it is one draw;
    with d = 1 the last axis is dropped. Each iterate stays in W."""
    rng = np.random.default_rng(SEED)
    sgd, data = _logistic_sgd(2, 12, md.Ball(2, 0.5), np.zeros(2), rng)
    stacked = sgd.sample(np.stack([data] * 70), rng=7)
    np.testing.assert_array_equal(stacked, sgd.run(data, 70, rng=7))
    assert np.linalg.norm(stacked, axis=1).max() <= 0.5 * (1 + 1e-15)
    assert sgd.sample(data, rng=7).shape == (2,)
    line = NoisyProjSGD(QuadraticLoss(md.Box(-1.0, 1.0)), 0.5, 1.0, md.Box(-1.0, 1.0), 0.0, n=3)
    one = np.array([[0.5], [-0.5], [1.0]])
    assert line.sample(np.stack([one] * 5), rng=1).shape == (5,)
    assert line.sample(one, rng=1).shape == ()
    assert line.run(one, 0).shape == (0, 1)


def test_user_gradient_reproduces_the_builtin_quadratic() -> None:
    """A GradientLoss with the quadratic's gradient and constants runs in its own kernel (noise drawn by numpy
    in blocks) yet gives the built-in QuadraticLoss's output bit for bit: same algorithm, same stream."""

    @numba.njit
    def quadratic(x, z, out):
        for k in range(x.size):
            out[k] = x[k] - z[k]

    domain = md.Ball(2, 1.0)
    user = GradientLoss(quadratic, 2, 2, lipschitz=2.0, smoothness=1.0, strong_convexity=1.0)
    data = points_in(domain, 15, np.random.default_rng(SEED))
    a = NoisyProjSGD(user, 0.4, 0.9, domain, md.Normal([0.0, 0.1], 0.3), n=15).run(data, BLOCK + 5, rng=3)
    b = NoisyProjSGD(QuadraticLoss(domain), 0.4, 0.9, domain, md.Normal([0.0, 0.1], 0.3), n=15).run(
        data, BLOCK + 5, rng=3)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(user.gradient_at([1.0, 2.0], [0.5, 0.5]), [0.5, 1.5])


# ------------------------------------------------------------------------------------------- exact reference


@pytest.mark.parametrize("x0", [np.array([3.0, -1.0]), md.Normal([1.0, 2.0], 1.5)])
def test_simulator_matches_the_exact_linear_law(x0: object) -> None:
    """BBGG-A1 with the quadratic loss and no projection: x_n ~ N(m, s² I) with the closed form of
    `exact_sgd_outputs`. 40 000 runs: every coordinate's mean within 5 standard errors (s/√N) and its variance
    within 5 standard errors of a normal sample variance (s² √(2/(N−1))); the closed form itself is checked
    against the explicit sums of the iteration."""
    rng = np.random.default_rng(SEED)
    eta, sigma, n, runs = 0.3, 1.5, 40, 40_000
    domain = md.Ball(2, 1.0)
    sgd = NoisyProjSGD(QuadraticLoss(domain), eta, sigma, None, x0, n=n)
    data = points_in(domain, n, rng)
    law = sgd.output(data)
    start_mean, start_sigma = (x0.mean, x0.sigma) if isinstance(x0, md.Normal) else (x0, 0.0)
    mean = (1 - eta) ** n * start_mean + sum(eta * (1 - eta) ** (n - i) * data[i - 1] for i in range(1, n + 1))
    var = sum((eta * sigma) ** 2 * (1 - eta) ** (2 * (n - i)) for i in range(1, n + 1))
    var += ((1 - eta) ** n * start_sigma) ** 2
    np.testing.assert_allclose(law.mean, mean, rtol=1e-13)
    assert law.sigma == pytest.approx(math.sqrt(var), rel=1e-13)
    out = sgd.run(data, runs, rng=SEED)
    assert np.all(np.abs(out.mean(axis=0) - law.mean) <= 5 * law.sigma / math.sqrt(runs))
    assert np.all(np.abs(out.var(axis=0, ddof=1) - law.sigma**2) <= 5 * law.sigma**2 * math.sqrt(2 / (runs - 1)))


def test_exact_outputs_and_dominating_pair() -> None:
    """Two datasets differing in record i: same spread, means apart by η(1−η)^(n−i)(z_i − z'_i); antipodal records
    on the ball attain the dominating pair of `differing_at(i)`, so `privacy_profile` equals the hockey-stick of the
    exact pair, and any other neighbour pair is below it (STD-GaussHS, STD-GaussRenyi)."""
    rng = np.random.default_rng(SEED)
    eta, n, i = 0.25, 12, 8
    domain = md.Ball(3, 2.0)
    sgd = NoisyProjSGD(QuadraticLoss(domain), eta, 0.8, None, np.zeros(3), n=n)
    data = points_in(domain, n, rng)
    other = data.copy()
    other[i - 1] = -data[i - 1] * 2.0 / np.linalg.norm(data[i - 1])
    data[i - 1] = -other[i - 1]
    mu, nu = exact_sgd_outputs(sgd, data, other)
    assert mu.sigma == nu.sigma
    np.testing.assert_allclose(mu.mean - nu.mean, eta * (1 - eta) ** (n - i) * (data[i - 1] - other[i - 1]),
                               atol=1e-14)
    mech = sgd.differing_at(i)
    for eps in (0.0, 0.5, 2.0):
        assert md.privacy_profile(mech, eps) == pytest.approx(md.hockey_stick(mu, nu, eps=eps), rel=1e-10)
    assert md.renyi_profile(mech, 3.0) == pytest.approx(md.renyi(mu, nu, alpha=3.0), rel=1e-10)
    closer = other.copy()
    closer[i - 1] *= 0.3
    assert md.hockey_stick(*exact_sgd_outputs(sgd, data, closer), eps=0.5) < md.privacy_profile(mech, 0.5)
    assert md.privacy_profile(sgd, 0.5) == md.privacy_profile(sgd.differing_at(n), 0.5)  # largest weight at n


@given(eta=st.floats(0.01, 1.0), sigma=st.floats(0.05, 5.0), n=st.integers(1, 60), data=st.data())
def test_exact_linear_renyi_is_below_bbgg_t5(eta: float, sigma: float, n: int, data: st.DataObject) -> None:
    """Soundness on the exact case: R_alpha of the dominating pair of `differing_at(i)` <= alpha · eps_i of
    BBGG-T5opt <= BBGG-T5 (`markovdp.guarantees.iteration`), read from the mechanism's own constants."""
    from markovdp.guarantees import iteration

    index = data.draw(st.integers(1, n))
    mech = NoisyProjSGD(QuadraticLoss(md.Ball(2, 1.0)), eta, sigma, None, np.zeros(2), n=n).differing_at(index)
    noise, shifted = mech.dominating_pairs().noise, mech.dominating_pairs().shifted
    exact = float(np.sum((shifted.mean - noise.mean) ** 2)) / (2 * noise.sigma**2)  # R_alpha / alpha
    loss = mech.sgd.loss
    inputs = {"lipschitz": loss.lipschitz, "smoothness": loss.smoothness, "strong_convexity": loss.strong_convexity,
              "eta": eta, "sigma": sigma, "n": n, "index": index}
    opt, t5 = iteration.noisy_sgd_opt_rdp(**inputs), iteration.noisy_sgd_rdp(**inputs)
    assert exact <= opt * (1 + 1e-12) and opt <= t5 * (1 + 1e-12)


def test_output_without_a_closed_form_says_why() -> None:
    sgd = NoisyProjSGD(QuadraticLoss(md.Ball(1, 1.0)), 0.5, 1.0, md.Ball(1, 1.0), 0.0, n=2)
    with pytest.raises(NotImplementedError, match="projected"):
        sgd.output(np.zeros((2, 1)))
    with pytest.raises(NotImplementedError, match="projected"):
        sgd.differing_at(1).dominating_pairs()
    logistic = NoisyProjSGD(LogisticLoss(md.Ball(1, 1.0), regularization=0.1, data_bound=1.0), 0.5, 1.0, None,
                            0.0, n=2)
    with pytest.raises(NotImplementedError, match="LogisticLoss"):
        logistic.output(np.ones((2, 2)))


# ------------------------------------------------------------------------------------------- differing_at


def test_differing_at_carries_what_bbgg_t5_reads() -> None:
    """`sgd.differing_at(i)` exposes sgd, index and the names the BBGG-T5 rules read; its neighbours differ in
    record i; certify() runs on it."""
    loss = LogisticLoss(md.Ball(2, 1.0), regularization=0.5, data_bound=2.0)
    sgd = NoisyProjSGD(loss, 0.5, 2.0, md.Ball(2, 1.0), np.zeros(2), n=7)
    mech = sgd.differing_at(3)
    assert isinstance(mech, SGDDifferingAt) and isinstance(mech, md.Mechanism)
    assert mech.sgd is sgd and mech.index == 3
    assert (mech.sgd.loss.lipschitz, mech.sgd.loss.smoothness, mech.sgd.loss.strong_convexity) == (2.5, 1.5, 0.5)
    assert (mech.sgd.eta, mech.sgd.sigma, mech.sgd.n) == (0.5, 2.0, 7)
    assert "record 3" in mech.neighbours.describe() and "one record" in sgd.neighbours.describe()
    assert mech.output_space == md.RealSpace(2)
    assert "differing_at(3)" in repr(mech)
    md.certify(mech)


# ------------------------------------------------------------------------------------------- bad input


BALL = md.Ball(2, 1.0)
QUAD = QuadraticLoss(BALL)


def _plain(x, z, out):
    for k in range(x.size):
        out[k] = x[k] - z[k]


def _lazy(x, z, out):  # writes nothing: out stays NaN
    pass


def _two_arguments(x, out):
    pass


@pytest.mark.parametrize(("call", "error", "name"), [
    (lambda: NoisyProjSGD(QUAD, math.nan, 1.0, BALL, np.zeros(2), n=3), ValueError, "eta"),
    (lambda: NoisyProjSGD(QUAD, 0.0, 1.0, BALL, np.zeros(2), n=3), ValueError, "eta"),
    (lambda: NoisyProjSGD(QUAD, math.inf, 1.0, BALL, np.zeros(2), n=3), ValueError, "eta"),
    (lambda: NoisyProjSGD(QUAD, 0.5, -1.0, BALL, np.zeros(2), n=3), ValueError, "sigma"),
    (lambda: NoisyProjSGD(QUAD, 0.5, math.inf, BALL, np.zeros(2), n=3), ValueError, "sigma"),
    (lambda: NoisyProjSGD(QUAD, 0.5, 1.0, BALL, np.zeros(2), n=0), ValueError, "n"),
    (lambda: NoisyProjSGD(QUAD, 0.5, 1.0, BALL, np.zeros(2), n=2.0), TypeError, "n"),
    (lambda: NoisyProjSGD("quadratic", 0.5, 1.0, BALL, np.zeros(2), n=3), TypeError, "loss"),
    (lambda: NoisyProjSGD(QUAD, 0.5, 1.0, "ball", np.zeros(2), n=3), TypeError, "projection"),
    (lambda: NoisyProjSGD(QUAD, 0.5, 1.0, BALL, [[0.0, 0.0]], n=3), ValueError, "x0"),
    (lambda: NoisyProjSGD(QUAD, 0.5, 1.0, BALL, [0.0, math.nan], n=3), ValueError, "x0"),
    (lambda: NoisyProjSGD(QUAD, 0.5, 1.0, BALL, np.zeros(2), n=3).differing_at(0), ValueError, "index"),
    (lambda: NoisyProjSGD(QUAD, 0.5, 1.0, BALL, np.zeros(2), n=3).differing_at(4), ValueError, "index"),
    (lambda: NoisyProjSGD(QUAD, 0.5, 1.0, BALL, np.zeros(2), n=3).differing_at(1.0), TypeError, "index"),
    (lambda: NoisyProjSGD(QUAD, 0.5, 1.0, BALL, np.zeros(2), n=3).run(np.zeros((4, 2)), 5), ValueError, "dataset"),
    (lambda: NoisyProjSGD(QUAD, 0.5, 1.0, BALL, np.zeros(2), n=3).run(np.zeros((3, 3)), 5), ValueError, "dataset"),
    (lambda: NoisyProjSGD(QUAD, 0.5, 1.0, BALL, np.zeros(2), n=1).run([[2.0, 0.0]], 5), ValueError, "dataset"),
    (lambda: NoisyProjSGD(QUAD, 0.5, 1.0, BALL, np.zeros(2), n=1).run([[0.0, math.nan]], 5), ValueError,
     "dataset"),
    (lambda: NoisyProjSGD(QUAD, 0.5, 1.0, BALL, np.zeros(2), n=1).run([[0.0, 0.0]], -1), ValueError, "runs"),
    (lambda: NoisyProjSGD(QUAD, 0.5, 1.0, BALL, np.zeros(2), n=1).sample(np.zeros(2)), ValueError, "value"),
    (lambda: LogisticLoss(BALL, regularization=-0.1, data_bound=1.0), ValueError, "regularization"),
    (lambda: LogisticLoss(BALL, regularization=0.1, data_bound=0.0), ValueError, "data_bound"),
    (lambda: LogisticLoss("ball", regularization=0.1, data_bound=1.0), TypeError, "domain"),
    (lambda: QuadraticLoss(None), TypeError, "domain"),
    (lambda: NoisyProjSGD(LogisticLoss(BALL, regularization=0.1, data_bound=1.0), 0.5, 1.0, BALL, np.zeros(2),
                          n=1).run([[0.5, 0.5, 0.5]], 2), ValueError, "dataset"),
    (lambda: NoisyProjSGD(LogisticLoss(BALL, regularization=0.1, data_bound=1.0), 0.5, 1.0, BALL, np.zeros(2),
                          n=1).run([[1.0, 1.0, 1.0]], 2), ValueError, "dataset"),
    (lambda: GradientLoss(_plain, 2, 2, lipschitz=1.0, smoothness=1.0), TypeError, "gradient"),
    (lambda: GradientLoss(numba.njit(_plain), 2, 2, lipschitz=0.0, smoothness=1.0), ValueError, "lipschitz"),
    (lambda: GradientLoss(numba.njit(_plain), 2, 2, lipschitz=1.0, smoothness=math.nan), ValueError, "smoothness"),
    (lambda: GradientLoss(numba.njit(_plain), 2, 2, lipschitz=1.0, smoothness=1.0, strong_convexity=2.0),
     ValueError, "strong_convexity"),
    (lambda: GradientLoss(numba.njit(_two_arguments), 2, 2, lipschitz=1.0, smoothness=1.0), TypeError,
     "gradient"),
    (lambda: GradientLoss(numba.njit(_lazy), 2, 2, lipschitz=1.0, smoothness=1.0), ValueError, "gradient"),
])
def test_bad_input_names_the_parameter(call, error, name) -> None:
    with pytest.raises(error, match=f"`{name}`"):
        call()


def test_step_size_beyond_the_bbgg_t5_condition_is_refused() -> None:
    """eta > 2/(smoothness + strong_convexity) is a ValueError naming `eta`, the limit and BBGG-T5; eta at the limit
    is accepted (the quadratic's limit is 2/(1 + 1) = 1)."""
    with pytest.raises(ValueError, match=r"`eta` must be <= 2/\(smoothness \+ strong_convexity\) = 1\.0 .*BBGG-T5"):
        NoisyProjSGD(QUAD, 1.0 + 1e-12, 1.0, BALL, np.zeros(2), n=3)
    assert NoisyProjSGD(QUAD, 1.0, 1.0, BALL, np.zeros(2), n=3).eta == 1.0
    loss = LogisticLoss(BALL, regularization=0.5, data_bound=2.0)  # beta + rho = 1.5 + 0.5
    with pytest.raises(ValueError, match=r"= 1\.0"):
        NoisyProjSGD(loss, 1.01, 1.0, BALL, np.zeros(2), n=3)


def test_dimension_mismatches_name_both_sizes() -> None:
    with pytest.raises(IncompatibleSpaces, match=r"R\^3.*R\^2"):
        NoisyProjSGD(QUAD, 0.5, 1.0, md.Ball(3, 1.0), np.zeros(2), n=3)
    with pytest.raises(IncompatibleSpaces, match=r"R\^3.*R\^2"):
        NoisyProjSGD(QUAD, 0.5, 1.0, BALL, np.zeros(3), n=3)
    with pytest.raises(IncompatibleSpaces, match=r"R\^1.*R\^2"):
        NoisyProjSGD(QUAD, 0.5, 1.0, BALL, md.Normal(0.0, 1.0), n=3)
