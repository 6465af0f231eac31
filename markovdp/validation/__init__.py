"""Scenarios: THEORY results checked over grids (bound vs exact vs Monte Carlo)."""

from .builtin import SCENARIOS
from .discovery import ENTRY_POINT_GROUP, all_scenarios, get_scenario, installed_scenarios
from .scenario import Scenario, ScenarioVariable, certified_delta

__all__ = ["ENTRY_POINT_GROUP", "SCENARIOS", "Scenario", "ScenarioVariable", "all_scenarios", "certified_delta",
           "get_scenario", "installed_scenarios"]
