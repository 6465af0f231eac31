"""The SRP-Est sweep (simulations/frequency_estimation.py): reproducible on any scheduler, and its GRR error
agrees with the closed-form risk of the unbiased estimator."""

from __future__ import annotations

import math
import runpy
import sys
from pathlib import Path

import numpy as np
import xarray as xr

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "simulations"))
from frequency_estimation import QUICK_GRID, frequency_estimation, zipf_law  # noqa: E402

sys.path.remove(str(ROOT / "simulations"))


def test_the_sweep_is_bit_identical_on_any_scheduler():
    grid = {**QUICK_GRID, "mechanism": ["GRR", "OUE", "SS"], "eps": [1.0]}
    a = frequency_estimation(grid, reps=3, scheduler="synchronous")
    b = frequency_estimation(grid, reps=3, scheduler="threads")
    xr.testing.assert_identical(a, b)


def test_grr_mean_squared_error_matches_the_closed_form_risk():
    """SRP-Est: for i.i.d. X ~ p, E ||p̂ − p||² = Σ_x π_x (1 − π_x) / (n (a − b)²) with π_x = b + p_x (a − b),
    a, b the diagonal and off-diagonal of k-ary RR; the sweep's mean over 400 repetitions is within 4 standard
    errors of it."""
    k, n, eps, reps = 8, 500, 1.0, 400
    ds = frequency_estimation({"mechanism": ["GRR"], "k": [k], "n": [n], "eps": [eps]}, reps=reps,
                              scheduler="synchronous")
    a = math.exp(eps) / (math.exp(eps) + k - 1)
    b = 1.0 / (math.exp(eps) + k - 1)
    pi = b + zipf_law(k) * (a - b)
    risk = float(np.sum(pi * (1 - pi)) / (n * (a - b) ** 2))
    losses = ds["l2sq"].values.ravel()
    assert abs(losses.mean() - risk) <= 4 * losses.std(ddof=1) / math.sqrt(reps)


def test_the_script_writes_a_dataset(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["frequency_estimation.py", "--quick", "--reps", "2", "--scheduler",
                                      "synchronous"])
    runpy.run_path(str(ROOT / "simulations" / "frequency_estimation.py"), run_name="__main__")
    assert "OUE's mean l2²" in capsys.readouterr().out
    ds = xr.load_dataset(tmp_path / "data" / "frequency_estimation.nc", engine="h5netcdf")
    assert set(ds["mechanism"].values) == {"GRR", "OUE", "RAPPOR", "HR", "BH", "SS", "OLH", "BH-half"}
    assert bool((ds["l1_ibu"] >= 0).all()) and bool((ds["l2sq_ibu"] >= 0).all())
    assert bool((ds["randomness_bits"] > 0).all()) and ds.attrs["theory_id"] == "SRP-Est"
