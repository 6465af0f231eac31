"""The package's layers (docs/architecture.md, "Layers and modules"): import-linter's contract, and the table.

The contract in pyproject.toml lists the layers once; import-linter reads every import of the package, those
inside functions included, and fails on one that points upward. The table in docs/architecture.md must name every
module of the tree, and only modules that exist.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARCHITECTURE = ROOT / "docs" / "architecture.md"


def _lint(config: Path) -> subprocess.CompletedProcess[str]:
    """import-linter on `config`, in a fresh interpreter run from the repository (its own module cache off)."""
    code = ("import sys; from importlinter.cli import lint_imports; "
            f"sys.exit(lint_imports(config_filename={str(config)!r}, no_cache=True, no_logo=True))")
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_the_layers_contract_holds() -> None:
    result = _lint(ROOT / "pyproject.toml")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_contract_catches_an_upward_import(tmp_path: Path) -> None:
    """The check can fail: the same contract with two layers swapped (guarantees below mechanisms) is broken,
    since the rules import the mechanisms they certify."""
    text = (ROOT / "pyproject.toml").read_text()
    swapped = text.replace('    "markovdp.guarantees",\n    "markovdp.mechanisms",\n',
                           '    "markovdp.mechanisms",\n    "markovdp.guarantees",\n')
    assert swapped != text
    config = tmp_path / "pyproject.toml"
    config.write_text(swapped)
    result = _lint(config)
    assert result.returncode != 0
    assert "markovdp.guarantees" in result.stdout


def _table_modules() -> list[str]:
    section = ARCHITECTURE.read_text().split("## Layers and modules", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\|[^|]*\| `([\w/]+\.py)` \|", section, flags=re.M)


def test_the_module_table_matches_the_tree() -> None:
    tree = sorted(p.relative_to(ROOT / "markovdp").as_posix() for p in (ROOT / "markovdp").rglob("*.py")
                  if p.name != "__init__.py" or p.parent != ROOT / "markovdp")
    listed = _table_modules()
    assert len(listed) == len(set(listed)), "a module is listed twice"
    missing, stale = sorted(set(tree) - set(listed)), sorted(set(listed) - set(tree))
    assert not missing and not stale, f"not in the table: {missing}; in the table but not in the tree: {stale}"


@pytest.mark.parametrize("layer", ["guarantees", "mechanisms", "sweeps"])
def test_the_table_groups_modules_under_their_layer(layer: str) -> None:
    section = ARCHITECTURE.read_text().split("## Layers and modules", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| ([\w ]*) \| `([\w/]+\.py)` \|", section, flags=re.M)
    current, seen = "", []
    for name, module in rows:
        current = name.strip() or current
        if module.startswith(f"{layer}/"):
            seen.append(current)
    assert seen and set(seen) == {layer}, textwrap.shorten(str(seen), 200)


def test_moved_top_level_names_still_work_with_a_deprecation_warning() -> None:
    """Names that left the top level (issue 13 §2) forward to their new home for one release, and say where."""
    import warnings

    import markovdp as md
    from markovdp.diffusions import ou_mse
    from markovdp.guarantees import noisy_sgd_rdp

    for name, home, target in (("ou_mse", "markovdp.diffusions", ou_mse),
                               ("noisy_sgd_rdp", "markovdp.guarantees", noisy_sgd_rdp)):
        with pytest.warns(DeprecationWarning, match=f"`markovdp.{name}` moved to `{home}.{name}`"):
            assert getattr(md, name) is target
        assert name not in md.__all__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert all(getattr(md, name) is not None for name in md.__all__)  # no public name warns
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        md.not_a_name  # noqa: B018


@pytest.mark.parametrize("module, name, home", [
    ("markovdp.mechanisms", "worst_case_mechanism", "markovdp.guarantees.worst_case_mechanism"),
    ("markovdp.mechanisms", "compare_key_reuse", "markovdp.guarantees.compare_key_reuse"),
    ("markovdp.mechanisms.local", "KeyReuse", "markovdp.guarantees.KeyReuse"),
    ("markovdp.mechanisms.local.key_reuse", "compare_key_reuse", "markovdp.guarantees.compare_key_reuse"),
    ("markovdp.mechanisms.canonical", "worst_case_mechanism", "markovdp.guarantees.worst_case_mechanism"),
    ("markovdp.pairs", "pairs_hockey_stick", "markovdp.guarantees.pair_maxima.pairs_hockey_stick"),
    ("markovdp.mechanisms.finite", "randomized_response_epsilon",
     "markovdp.guarantees.pair_maxima.randomized_response_epsilon"),
])
def test_a_name_that_moved_down_the_layers_says_where_it_went(module: str, name: str, home: str) -> None:
    """An old import path below `guarantees` cannot forward (the import would point upward): it names the new home,
    and the new home holds the name."""
    import importlib

    with pytest.raises(ImportError, match=f"moved to `{home}`"):
        exec(f"from {module} import {name}")  # noqa: S102 - the statement a user's script runs
    owner, _, attr = home.rpartition(".")
    assert getattr(importlib.import_module(owner), attr) is not None


def test_the_removed_multilevel_methods_name_their_replacement() -> None:
    from markovdp.mechanisms.local.multilevel import MultiLevelMechanism

    mechanism = MultiLevelMechanism((2.0, 1.0), k=4)
    with pytest.raises(AttributeError, match="multilevel_exact_epsilons"):
        mechanism.exact_epsilons()
    with pytest.raises(AttributeError, match="multilevel_predicted_epsilon"):
        mechanism.predicted_epsilon(1)
