"""`import markovdp` stays light (issue 5 §4): the heavy dependencies are imported where they are used.

A structural check, not a timing assertion: a fresh interpreter imports markovdp and reports which heavy
modules it pulled in. numba (~0.3 s), scipy.integrate / scipy.optimize (~0.3 s together) and scipy.stats
are imported inside the functions that need them; dask, xarray and matplotlib only by sweeps and reports.
"""

from __future__ import annotations

import ast
import subprocess
import sys

HEAVY = ("numba", "scipy.special", "scipy.stats", "scipy.integrate", "scipy.optimize", "dask", "xarray", "matplotlib")


def _loaded_after(statement: str) -> list[str]:
    """The HEAVY modules present in sys.modules of a fresh interpreter after running `statement`."""
    code = f"import sys; {statement}; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    return ast.literal_eval(result.stdout.strip().splitlines()[-1])


def test_import_markovdp_loads_no_heavy_module() -> None:
    assert _loaded_after("import markovdp") == []


def test_the_probe_sees_a_heavy_module_once_it_is_used() -> None:
    """The check above can fail: running a numba kernel and a quadrature does load numba and scipy.integrate."""
    statement = (
        "import markovdp as md; md.dobrushin([[0.5, 0.5], [0.25, 0.75]], 0.1); "
        "md.hockey_stick(md.Laplace(0.0, 1.0), md.Normal(0.0, 1.0), eps=0.5)"
    )
    loaded = _loaded_after(statement)
    assert "numba" in loaded
    assert "scipy.integrate" in loaded


#: Public names that must keep importing from where they are today, still without the heavy modules.
NAMES = (
    "markovdp.dobrushin",
    "markovdp.guarantees.coefficients.dobrushin",
    "markovdp.guarantees.coefficients.ldp_epsilon",
    "markovdp.divergences.exact.finite.hockey_stick_finite",
    "markovdp.divergences.exact.hockey_stick_finite",
    "markovdp.divergences.exact.gaussian.gauss_hockey_stick",
    "markovdp.mechanisms.canonical.canonical_rows",
    "markovdp.FiniteKernel",
)


def test_public_names_still_import_without_heavy_modules() -> None:
    lookups = "; ".join(
        f"getattr(importlib.import_module({module!r}), {attr!r})"
        for module, _, attr in (name.rpartition(".") for name in NAMES)
    )
    assert _loaded_after(f"import importlib; {lookups}") == []
