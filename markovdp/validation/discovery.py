"""Scenarios of installed packages: the entry-point group ``markovdp.scenarios`` (DESIGN §7).

A package declares, in its metadata (``[project.entry-points."markovdp.scenarios"]``),
``name = "module:attribute"``; the attribute is a `Scenario` (any `SweepScenario`) or a list of them.
`markovdp validate` and `markovdp list` then run and list them beside the built-in catalogue.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

from .._validation import check_choice
from .builtin import SCENARIOS

__all__ = ["ENTRY_POINT_GROUP", "all_scenarios", "get_scenario", "installed_scenarios"]

#: The entry-point group through which installed packages contribute scenarios.
ENTRY_POINT_GROUP = "markovdp.scenarios"


def installed_scenarios() -> dict[str, Any]:
    """Name → scenario for every entry point of ``markovdp.scenarios``, in entry-point order.

    Raises
    ------
    TypeError
        If an entry point loads something that is not a scenario (or a list of them), naming it.
    ValueError
        If a name is taken by a built-in scenario or another entry point, naming both.
    """
    from ..sweeps import SweepScenario  # here: importing markovdp.validation stays free of xarray

    found: dict[str, Any] = {}
    origin: dict[str, str] = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        loaded = point.load()
        for scenario in loaded if isinstance(loaded, (list, tuple)) else [loaded]:
            where = f"entry point {point.name!r} ({point.value}) of group {ENTRY_POINT_GROUP!r}"
            if not isinstance(scenario, SweepScenario):
                raise TypeError(f"{where} must load a Scenario or a list of them; got {scenario!r}.")
            if scenario.name in SCENARIOS or scenario.name in found:
                taken = origin.get(scenario.name, "the built-in catalogue")
                raise ValueError(f"{where} defines scenario {scenario.name!r}, a name already taken by {taken}.")
            found[scenario.name] = scenario
            origin[scenario.name] = where
    return found


def all_scenarios() -> dict[str, Any]:
    """The built-in scenarios, then those of installed packages."""
    return {**SCENARIOS, **installed_scenarios()}


def get_scenario(name: str) -> Any:
    """The scenario called `name`, built-in or installed (ValueError listing the known names otherwise)."""
    known = all_scenarios()
    return known[check_choice("name", name, tuple(known))]
