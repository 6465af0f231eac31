"""Scenarios: THEORY results checked over grids (bound vs exact vs Monte Carlo)."""

from .catalogue import SCENARIOS, get_scenario
from .scenario import Scenario, certified_delta

__all__ = ["SCENARIOS", "Scenario", "certified_delta", "get_scenario"]
