"""The theorem registry: documented order, replace/unregister, certify(rules=...), errors naming the rule,
entry-point discovery, and what `theorems()` / `describe()` print."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import textwrap

import pytest

import markovdp as md
from markovdp.guarantees import registry

BUILT_IN = ("MECH", "POST", "BBGG-T1.1", "BBGG-T1.2", "BBGG-T1.3", "BBGG-T1.4")
PIPELINE = md.RandomizedResponse(3, 1.0) >> md.FiniteKernel([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]])


@pytest.fixture
def scratch_rules():
    """Remove whatever rules a test registers."""
    before = set(md.guarantees.registered_theorems())
    yield
    for tid in set(md.guarantees.registered_theorems()) - before:
        md.unregister(tid)


def test_built_in_rules_are_registered_at_import_in_the_documented_order():
    code = "import markovdp.guarantees.registry as r; print(','.join(r._RULES))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert tuple(out.split(","))[: len(BUILT_IN)] == BUILT_IN


def test_a_user_rule_comes_after_the_built_in_ones(scratch_rules):
    @md.theorem("USER-half-post")
    def half(subject):
        return md.NotApplicable("USER-half-post", "never")

    assert md.guarantees.registered_theorems()[: len(BUILT_IN)] == BUILT_IN
    assert md.guarantees.registered_theorems()[-1] == "USER-half-post"


def test_replace_and_unregister(scratch_rules):
    def first(subject):
        return md.NotApplicable("USER-x", "first")

    def second(subject):
        return md.NotApplicable("USER-x", "second")

    md.theorem("USER-x")(first)
    with pytest.raises(ValueError, match="already registered.*replace=True"):
        md.theorem("USER-x")(second)
    md.theorem("USER-x", replace=True)(second)
    assert md.certify(PIPELINE).reasons()["USER-x"] == "second"
    md.unregister("USER-x")
    assert "USER-x" not in md.guarantees.registered_theorems()
    with pytest.raises(ValueError, match="`theorem_id` must be a registered ID"):
        md.unregister("USER-x")


def test_certify_runs_only_the_named_rules():
    cert = md.certify(PIPELINE, rules=["POST", "BBGG-T1.3"])
    assert tuple(cert.candidates) == ("POST", "BBGG-T1.3")
    full = md.certify(PIPELINE)
    assert cert.delta(0.5) == min(full.candidates[t].delta(0.5) for t in ("POST", "BBGG-T1.3"))
    with pytest.raises(ValueError, match="`rules` must name registered IDs"):
        md.certify(PIPELINE, rules=["BBGG-T9"])
    with pytest.raises(TypeError, match="`rules` must be a list"):
        md.certify(PIPELINE, rules="POST")


def test_a_bound_under_another_id_is_an_error_naming_both(scratch_rules):
    @md.theorem("USER-liar")
    def liar(subject):
        return md.Bound("POST", {}, lambda eps: eps * 0)

    with pytest.raises(ValueError, match=r"'USER-liar'.*'POST'"):
        md.certify(PIPELINE)


def test_a_crashing_rule_is_reraised_with_its_id(scratch_rules):
    @md.theorem("USER-crash")
    def crash(subject):
        return 1 / 0

    with pytest.raises(ZeroDivisionError, match="rule 'USER-crash' failed"):
        md.certify(PIPELINE)


def test_not_implemented_means_not_applicable_with_the_reason(scratch_rules):
    @md.theorem("USER-unknown")
    def unknown(subject):
        raise NotImplementedError("no coefficient for this kernel")

    assert md.certify(PIPELINE).reasons()["USER-unknown"] == "no coefficient for this kernel"


def test_theorems_and_describe_print_the_statements():
    table = md.theorems().splitlines()
    assert [line.split()[0] for line in table][: len(BUILT_IN)] == list(BUILT_IN)
    t13 = next(line for line in table if line.startswith("BBGG-T1.3"))
    assert "Doeblin" in t13 and t13.count("BBGG-T1.3") == 1
    text = md.describe("BBGG-T1.2")
    assert text.startswith("BBGG-T1.2") and "Dobrushin" in text
    with pytest.raises(ValueError, match="`theorem_id` must be a registered ID"):
        md.describe("BBGG-T7")


def test_rules_of_installed_packages_are_found_through_entry_points(tmp_path):
    """A fake installed distribution (a dist-info with entry_points.txt on sys.path) contributes a rule."""
    (tmp_path / "fake_rules.py").write_text(textwrap.dedent('''
        import markovdp as md

        @md.theorem("PLUGIN-never")
        def never(subject):
            """A plugin rule that never applies."""
            return md.NotApplicable("PLUGIN-never", "plugin says no")
    '''))
    info = tmp_path / "fake_rules-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-rules\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[markovdp.theorems]\nnever = fake_rules\n")
    code = ("import markovdp as md; c = md.certify(md.RandomizedResponse(2, 1.0));"
            "print(list(c.candidates)[-1], c.reasons()['PLUGIN-never'])")
    env_path = f"{tmp_path}"
    out = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {env_path!r}); {code}"],
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == "PLUGIN-never plugin says no"
    assert "fake-rules" not in {d.metadata["Name"] for d in importlib.metadata.distributions()}  # nothing installed
    assert registry.ENTRY_POINT_GROUP == "markovdp.theorems"
