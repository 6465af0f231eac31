"""The studies' committed results (data/), their page (docs/studies.md) and data/README.md agree (issue 16 §1, §3).

Each study's own test (tests/test_study_NAME.py) runs it at --quick; this file checks what is committed."""

from __future__ import annotations

from pathlib import Path

import pytest
import xarray as xr

from simulations.claims_page import FULL_SIZE, PROVENANCE, STUDIES, full_size, page, record_full
from simulations.study import load_claims

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"


@pytest.mark.parametrize("name", list(STUDIES))
def test_every_study_has_its_script_its_quick_result_and_a_line_in_data_readme(name):
    assert (ROOT / "simulations" / f"{name}.py").exists()
    assert f"python -m simulations.{name} --quick" in (DATA / "README.md").read_text(encoding="utf-8")
    with xr.open_dataset(DATA / f"{name}.nc", engine="h5netcdf") as ds:
        assert ds.attrs["command"].startswith(f"python -m simulations.{name} --quick")
        assert {"seed_entropy", "markovdp_version", "git_commit", "created"} <= set(ds.attrs)
        claims = load_claims(ds)
    assert claims and all(c.holds in (True, False, None) for c in claims)
    assert list(DATA.glob(f"{name}_*.png")), f"no figure of {name} in data/"


@pytest.mark.parametrize("name", list(STUDIES))
def test_every_study_has_a_recorded_full_size_run_of_the_same_claims(name):
    """The full-size claim table (issue 16: each study runs at full size by hand) is recorded with its provenance,
    and measures the same seed claims as the quick run, in the same order."""
    recorded = full_size(DATA)
    assert name in recorded, (f"no full-size claim table of {name} in data/{FULL_SIZE}: run python -m "
                              f"simulations.{name} --out runs/{name}.nc, then python -m simulations.claims_page "
                              "--record-full runs")
    full = recorded[name]
    assert set(PROVENANCE) <= set(full)
    assert full["command"].startswith(f"python -m simulations.{name}") and "--quick" not in full["command"].split()
    with xr.open_dataset(DATA / f"{name}.nc", engine="h5netcdf") as ds:
        quick = load_claims(ds)
    assert [row["claim"] for row in full["claims"]] == [c.claim for c in quick]
    assert all(row["holds"] in (True, False, None) for row in full["claims"])


def test_record_full_copies_a_full_run_and_refuses_a_quick_one(tmp_path):
    folder, data = tmp_path / "runs", tmp_path / "data"
    folder.mkdir()
    data.mkdir()
    with xr.open_dataset(DATA / "noisy_sgd.nc", engine="h5netcdf") as ds:
        ds.load()
    ds.to_netcdf(folder / "noisy_sgd.nc", engine="h5netcdf")
    with pytest.raises(ValueError, match="quick run"):
        record_full(folder, data)
    ds.attrs["command"] = "python -m simulations.noisy_sgd --out runs/noisy_sgd.nc"
    ds.to_netcdf(folder / "noisy_sgd.nc", engine="h5netcdf")
    assert record_full(folder, data) == ["noisy_sgd"]
    recorded = full_size(data)
    assert list(recorded) == ["noisy_sgd"] and recorded["noisy_sgd"]["command"] == ds.attrs["command"]
    assert [row["claim"] for row in recorded["noisy_sgd"]["claims"]] == [c.claim for c in load_claims(ds)]
    assert (data / FULL_SIZE).exists() and "runs/noisy_sgd.nc" in page(data)


def test_docs_studies_page_is_what_the_committed_results_give():
    """Rerun `python -m simulations.claims_page` after rerunning a study."""
    assert (ROOT / "docs" / "studies.md").read_text(encoding="utf-8") == page(DATA)


def test_the_committed_results_are_small():
    total = sum(p.stat().st_size for p in DATA.iterdir() if p.is_file())
    assert total < 5 * 2**20, f"data/ holds {total / 2**20:.1f} MiB (issue 16: < 5 MB of quick results)"
