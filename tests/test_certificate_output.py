"""What a user sees of a certificate (issue 5 §5): `print(certify(p))` is a short table, `to_dict` plain
values, `plot` one line per applicable rule (+ the exact profile), `repr(Bound)` short; never -0.0."""

from __future__ import annotations

import json
import math
import re

import matplotlib
import numpy as np
import pytest

import markovdp as md
from markovdp.guarantees.types import SUMMARY_DELTA, SUMMARY_EPS, Bound, Certificate, NotApplicable
from tests.oracles import coefficient_bruteforce, hockey_stick_bruteforce

matplotlib.use("Agg")

K4 = 0.7 * np.eye(4) + 0.3 / 4
#: `summary` prints 4 significant digits: a printed value is within half a unit of the 4th digit.
PRINT_RTOL = 5e-4


@pytest.fixture(scope="module")
def pipeline():
    return md.RandomizedResponse(4, 1.0) >> md.FiniteKernel(K4)


@pytest.fixture(scope="module")
def cert(pipeline):
    return md.certify(pipeline)


def parse(text: str) -> dict[str, list[str]]:
    """Table rows of `Certificate.summary` by rule name: the cells split on runs of two or more spaces
    (the subject line before and the "not applicable" line after the table left out)."""
    lines = [line for line in text.splitlines()[1:] if not line.startswith("not applicable: ")]
    header = re.split(r"\s{2,}", lines[0].strip())
    assert header[0] == "rule" and header[-1] == "inputs"
    return {cells[0]: cells for cells in (re.split(r"\s{2,}", line.strip()) for line in lines[1:])}


def cell_value(cell: str) -> float:
    """The printed value of a cell ``0.1309``, ``0.1309*`` or ``0.1309* (0.628)``."""
    return float(cell.split(" (")[0].rstrip("*"))


def cell_tightness(cell: str) -> float | None:
    """The printed tightness exact / bound of a cell ``0.1309 (0.628)`` (None if the cell shows none)."""
    found = re.fullmatch(r"[^ ]+ \((.+)\)", cell)
    return float(found.group(1)) if found else None


def exact_delta(e: float) -> float:
    """The exact delta of RR(4, 1) >> K4 by brute force over every event of every ordered row pair (oracle)."""
    rows = md.RandomizedResponse(4, 1.0).matrix @ K4
    return max(hockey_stick_bruteforce(rows[a], rows[b], e) for a in range(4) for b in range(4) if a != b)


def test_print_is_a_short_table_without_the_matrix_repeated(cert):
    text = str(cert)
    assert text == cert.summary()
    # subject, header, one row per rule that applies, best, and ONE line for the rules that do not apply
    assert len(text.splitlines()) == len(cert.bounds) + 4
    assert text.count("0.775") <= 4  # the kernel's diagonal: at most once (4 entries), never per rule
    rows = parse(text)
    assert list(rows) == [b.theorem for b in cert.bounds] + ["best"]
    (line,) = [line for line in text.splitlines() if line.startswith("not applicable: ")]
    assert line == f"not applicable: {', '.join(cert.reasons())} — see `cert.reasons()`"
    assert len(cert.reasons()) >= 10  # the rules for Gaussian, Laplace, SGD and diffusion mechanisms
    for reason in cert.reasons().values():
        assert reason not in text  # the reasons are one call away, not eleven rows
    short = repr(cert)
    assert short.count("FiniteKernel") == 1 and "delta_curve" not in short and len(short) < 400


def test_table_values_are_each_candidates_delta_and_epsilon(cert, pipeline):
    eps = (0.0, 0.3, 0.8)
    table = parse(cert.summary(eps=eps, delta=1e-3))
    bounds = {tid: c for tid, c in cert.candidates.items() if isinstance(c, Bound)}
    for tid, bound in bounds.items():
        cells = table[tid]
        for j, e in enumerate(eps):
            assert cell_value(cells[1 + j]) == pytest.approx(float(bound.delta(e)), rel=PRINT_RTOL, abs=1e-300)
        assert cell_value(cells[1 + len(eps)]) == pytest.approx(bound.epsilon(1e-3), rel=PRINT_RTOL)
        # beside each theorem its tightness exact / bound (STD-Exact), the exact value by brute force
        for j, e in enumerate(eps):
            if tid == "EXACT":
                assert cell_tightness(cells[1 + j]) is None
                continue
            truth, value = exact_delta(e), float(bound.delta(e))
            expected = 1.0 if value == truth else truth / value
            assert cell_tightness(cells[1 + j]) == pytest.approx(expected, rel=5e-3, abs=1e-12)
        if tid != "EXACT":
            ratio = cert.exact.epsilon(1e-3) / bound.epsilon(1e-3) if math.isfinite(bound.epsilon(1e-3)) else 0.0
            assert cell_tightness(cells[1 + len(eps)]) == pytest.approx(ratio, rel=5e-3)
    best = table["best"]
    for j, e in enumerate(eps):
        values = {tid: float(b.delta(e)) for tid, b in bounds.items()}
        low = min(values.values())
        assert cell_value(best[1 + j]) == pytest.approx(low, rel=PRINT_RTOL, abs=1e-300)
        winner = next(tid for tid in bounds if values[tid] == low)  # ties: the rule registered first
        assert [tid for tid in bounds if table[tid][1 + j].split(" (")[0].endswith("*")] == [winner]
        # soundness against brute force over every event of every ordered row pair (oracle, not the code), and
        # the best is the exact value (the rule EXACT)
        assert low >= exact_delta(e) - 1e-12
        assert low == pytest.approx(exact_delta(e), rel=1e-9, abs=1e-12)
    assert not set(cert.reasons()) & set(table)  # a rule that does not apply has no row
    assert "(t) = tightness EXACT / rule" in table["best"][-1]


def test_without_the_exact_rule_no_tightness_is_shown(pipeline):
    others = [tid for tid in md.guarantees.registered_theorems() if tid != "EXACT"]
    cert = md.certify(pipeline, rules=others)
    assert cert.exact is None and "EXACT" not in cert.candidates
    table = parse(cert.summary())
    assert all(cell_tightness(c) is None for row in table.values() for c in row[1:])
    assert "tightness" not in cert.summary()
    data = cert.to_dict()
    assert data["exact"] is None and all(r["tightness"] is None for r in data["rules"])


def test_to_dict_is_plain_and_round_trips_through_json(cert):
    data = cert.to_dict()

    def plain(value) -> bool:
        if isinstance(value, dict):
            return all(isinstance(k, str) and plain(v) for k, v in value.items())
        if isinstance(value, list):
            return all(plain(v) for v in value)
        return value is None or type(value) in (str, float, int, bool)

    assert plain(data)
    assert json.loads(json.dumps(data)) == data
    assert data["eps"] == list(SUMMARY_EPS) and data["delta"] == SUMMARY_DELTA
    assert [r["theorem"] for r in data["rules"]] == list(cert.candidates)
    for rule in data["rules"]:
        cand = cert.candidates[rule["theorem"]]
        if isinstance(cand, Bound):
            assert rule["delta"] == [float(cand.delta(e)) for e in SUMMARY_EPS]
            assert rule["epsilon"] == cand.epsilon(SUMMARY_DELTA) and rule["reason"] is None
            exact = [exact_delta(e) for e in SUMMARY_EPS]
            expected = [1.0 if b == x else x / b for x, b in zip(exact, rule["delta"], strict=True)]
            np.testing.assert_allclose(rule["tightness"]["delta"], expected, rtol=1e-9, atol=1e-12)
            # every theorem is sound here (BBGG-T1.2 attains the exact value: equal up to a few ulps of rounding)
            assert all(0.0 <= t <= 1.0 + 1e-12 for t in rule["tightness"]["delta"])
        else:
            assert rule["delta"] is None and rule["reason"] == cand.reason and rule["tightness"] is None
    assert data["best"]["epsilon"] == cert.epsilon(SUMMARY_DELTA)
    np.testing.assert_allclose(data["exact"]["delta"], [exact_delta(e) for e in SUMMARY_EPS], rtol=1e-9, atol=1e-12)
    assert data["exact"]["epsilon"] == cert.epsilon(SUMMARY_DELTA)  # the exact eps is the best


def test_bound_repr_shows_theorem_and_scalar_inputs_only(cert):
    bound = cert.candidates["BBGG-T1.1"]
    text = repr(bound)
    # the TV-Dobrushin coefficient of K4, by brute force over events (BBGG-D1)
    assert text == f"Bound('BBGG-T1.1', dobrushin={float(coefficient_bruteforce(K4, 0.0))!r})"
    assert "[[" not in text and "Mechanism" not in text and "Kernel" not in text
    assert repr(NotApplicable("X", "why")) == "NotApplicable(theorem='X', reason='why')"


def test_never_negative_zero():
    bound = Bound("TEST", {"gamma": 0.5}, lambda eps: np.full(np.shape(eps), -0.0),
                  lambda alpha: np.full(np.shape(alpha), -0.0))
    cert = Certificate(subject="test subject", candidates={"TEST": bound})
    for value in (bound.delta(1.0), cert.delta(1.0), bound.renyi(2.0), cert.renyi(2.0)):
        assert value == 0.0 and math.copysign(1.0, value) == 1.0
    for values in (bound.delta(np.array([0.5, 1.0])), cert.delta(np.array([0.5, 1.0])),
                   bound.renyi(np.array([2.0, 3.0])), cert.renyi(np.array([2.0, 3.0]))):
        assert np.all(np.copysign(1.0, values) == 1.0)
    assert not re.search(r"(^|\s)-0", cert.summary())  # no printed -0 (an exponent such as 1e-05 is fine)


def test_plot_draws_one_line_per_applicable_rule_and_the_exact_profile(cert, pipeline):
    ax = cert.plot()
    lines = ax.get_lines()
    assert len(lines) == len(cert.bounds) and ax.get_yscale() == "log"  # EXACT is the dashed exact line
    by_label = {line.get_label().split()[0]: line for line in lines}
    grid = lines[0].get_xdata()
    for bound in cert.bounds:
        drawn = by_label[bound.theorem].get_ydata()
        values = np.asarray(bound.delta(grid))
        np.testing.assert_array_equal(np.isnan(drawn), values == 0)  # zeros are not drawn on the log axis
        np.testing.assert_allclose(drawn[values > 0], values[values > 0], rtol=0)
    exact = by_label["EXACT"].get_ydata()
    assert by_label["EXACT"].get_linestyle() == "--" and "exact privacy_profile" in by_label["EXACT"].get_label()
    for e, y in list(zip(grid, exact, strict=True))[::40]:
        truth = exact_delta(e)
        assert (np.isnan(y) and truth < 1e-12) or y == pytest.approx(truth, rel=1e-9, abs=1e-12)
    # the best theorem (EXACT aside) at eps = 0.3 is drawn boldest, named in the legend with its tightness range
    theorems = [b for b in cert.bounds if b.theorem != "EXACT"]
    best = min(theorems, key=lambda b: float(b.delta(0.3))).theorem
    assert by_label[best].get_linewidth() == max(line.get_linewidth() for line in lines)
    assert "best" in by_label[best].get_label()
    t1 = by_label["BBGG-T1.1"]
    values = np.asarray(cert.candidates["BBGG-T1.1"].delta(grid))
    shown = (values > 0) & (values < 1)
    truths = np.array([exact_delta(e) for e in grid[shown]])
    low, high = (truths / values[shown]).min(), (truths / values[shown]).max()
    assert t1.get_label().endswith(f"  (tightness {low:.2g}–{high:.2g})")
    plt_close(ax)


def plt_close(ax) -> None:
    import matplotlib.pyplot as plt

    plt.close(ax.figure)


def test_plot_of_a_certificate_without_the_exact_rule_still_draws_the_exact_profile(pipeline):
    others = [tid for tid in md.guarantees.registered_theorems() if tid != "EXACT"]
    cert = md.certify(pipeline, rules=others)
    ax = cert.plot(eps=np.linspace(0.0, 2.0, 21))
    labels = [line.get_label() for line in ax.get_lines()]
    assert len(labels) == len(cert.bounds) + 1 and labels[-1] == "exact privacy_profile"
    plt_close(ax)


def test_plot_without_an_exact_profile_and_on_a_given_axes():
    import matplotlib.pyplot as plt

    subject = md.DeclaredDP(1.0, 0.0) >> md.GaussianKernel(1.0)
    with pytest.raises(NotImplementedError):
        md.privacy_profile(subject, 1.0)
    cert = md.certify(subject)
    fig, ax = plt.subplots()
    assert cert.plot(ax=ax, eps=np.linspace(0, 2, 11)) is ax
    assert len(ax.get_lines()) == len(cert.bounds) >= 1
    plt.close(fig)


def test_a_certificate_where_no_rule_applies_says_so_without_a_row_per_rule():
    cert = Certificate(subject="test subject", candidates={"A": NotApplicable("A", "why A"),
                                                           "B": NotApplicable("B", "why B")})
    lines = cert.summary().splitlines()
    assert len(lines) == 4  # subject, header, best, the one "not applicable" line
    best = re.split(r"\s{2,}", lines[2].strip())
    assert best == ["best", "1", "1", "1", "1", "inf", "no rule applies (delta 1.0)"]
    assert lines[3] == "not applicable: A, B — see `cert.reasons()`"
    assert cert.reasons() == {"A": "why A", "B": "why B"}
