"""The validation report (issue 5 §5): faceted plots against the swept parameter with CI bars, a
report.md that covers every result file in the folder, tightness, and no crash on a NaN verdict."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pytest
import xarray as xr

from markovdp import report
from markovdp.cli import main
from markovdp.sweeps import open_executor, run_sweep
from markovdp.validation import get_scenario

matplotlib.use("Agg")


def result(name: str = "TOY", *, sigma=(0.5, 1.0), eps=(0.0, 1.0, 3.0), seed: int = 0, **extra) -> xr.Dataset:
    """A small result Dataset by hand: dims (sigma, eps), the schema of `markovdp.sweeps`."""
    rng = np.random.default_rng(seed)
    shape = (len(sigma), len(eps))
    exact = np.exp(-np.outer(1.0 / np.asarray(sigma), 1.0 + np.asarray(eps)) ** 2)
    bound = np.minimum(1.0, 1.5 * exact)
    estimate = exact * (1 + 0.05 * rng.standard_normal(shape))
    data = {"bound": bound, "exact": exact, "estimate": estimate, "ci_low": np.maximum(0, estimate - 0.02),
            "ci_high": estimate + 0.02, "ci_low_verdict": np.maximum(0, estimate - 0.03),
            "verdict": np.zeros(shape, dtype=np.int8)}
    data.update(extra)
    dims = ("sigma", "eps")
    ds = xr.Dataset({k: (dims, np.asarray(v)) for k, v in data.items()},
                    coords={"sigma": list(sigma), "eps": list(eps)},
                    attrs={"scenario": name, "theory_id": "STD-GaussHS", "description": "a toy scenario",
                           "target": "upper", "confidence": 0.95, "samples": 1000, "seed_entropy": "1"})
    ds["bound_theorem"] = (dims, np.full(shape, "BBGG-T1.2", dtype=object))
    return ds


def test_rows_and_summary_survive_a_nan_verdict():
    ds = result(verdict=np.array([[0, 1, np.nan], [2, 0, 7]], dtype=np.float64))
    assert [r["verdict"] for r in report.rows(ds)] == ["ok", "violation", "unknown", "not_applicable", "ok",
                                                        "unknown"]
    assert report.summary(ds) == {"ok": 2, "violation": 1, "not_applicable": 1, "unknown": 2}


def test_report_command_on_a_file_with_a_nan_verdict(tmp_path, capsys):
    ds = result(verdict=np.array([[0, np.nan, 0], [0, 0, np.nan]], dtype=np.float64))
    path = tmp_path / "nan.nc"
    ds.to_netcdf(path, engine="h5netcdf")
    assert main(["report", str(path)]) == 0
    out = capsys.readouterr().out
    assert "unknown" in out and "TOY" in out and "error" not in out
    text = report.write_report([xr.open_dataset(path, engine="h5netcdf").load()], tmp_path / "out", "test").read_text()
    assert "2 without a verdict" in text


def test_figure_plots_against_eps_with_facets_log_axis_and_ci_bars():
    ds = result(ci_high=np.array([[0.9, 0.5, np.nan], [0.8, 0.2, 0.05]]))
    ds["exact"][0, 2] = 0.0  # a zero: drawn on the labelled floor of the log axis
    fig = report.figure(ds)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert len(axes) == 2  # one facet per sigma
    assert [ax.get_title() for ax in axes] == ["sigma=0.5", "sigma=1"]
    for ax in axes:
        assert ax.get_yscale() == "log"
        assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "1", "3"]  # eps values, not indices
        np.testing.assert_array_equal(ax.get_xticks(), [0.0, 1.0, 3.0])
    assert fig.get_supxlabel() == "eps (nats)" and fig.get_supylabel() == "hockey-stick delta"
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert any("BBGG-T1.2" in t for t in legend)  # the winner, one for the whole grid
    assert any("drawn on this floor" in t for t in legend) and any("open upper end" in t for t in legend)
    # CI bars of facet sigma=1 run exactly from ci_low to ci_high; a ci_low of 0 from the dotted floor
    (floor,) = [line.get_ydata()[0] for line in axes[1].get_lines() if line.get_linestyle() == ":"]
    (bars,) = axes[1].collections
    segments = bars.get_segments()
    spans = sorted((float(s[0, 1]), float(s[1, 1])) for s in segments)
    low, high = ds["ci_low"].sel(sigma=1.0).values, ds["ci_high"].sel(sigma=1.0).values
    expected = sorted(zip(np.where(low > 0, low, floor), high, strict=True))
    assert (low == 0).any()
    np.testing.assert_allclose(spans, expected, rtol=1e-12)
    # the open upper end of facet sigma=0.5 is an arrow from ci_low to the top of the axis
    arrows = [c for c in axes[0].get_children() if isinstance(c, matplotlib.text.Annotation)]
    start = float(ds["ci_low"][0, 2])
    assert len(arrows) == 1 and arrows[0].xyann[1] == pytest.approx(start if start > 0 else floor)
    assert arrows[0].xy[1] == pytest.approx(axes[0].get_ylim()[1])
    matplotlib.pyplot.close(fig)


def test_figure_names_each_facets_winners_and_colours_extra_coordinates():
    base = result()
    ds = xr.concat([base, base.assign(bound=base["bound"] * 0.9)], dim=xr.DataArray(["a", "b"], dims="kind"))
    ds = ds.expand_dims(strength=[0.1, 0.2]).transpose("kind", "sigma", "strength", "eps")
    ds["bound_theorem"] = ds["bound_theorem"].copy(data=np.where(ds["eps"] > 0.5, "POST", "BBGG-T1.2")
                                                   * np.ones(ds["bound"].shape, dtype=object))
    fig = report.figure(ds)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert len(axes) == 4  # rows: kind, columns: sigma; strength is a colour
    assert all(ax.get_title().endswith("best: BBGG-T1.2, POST") for ax in axes)
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "strength=0.1" in legend and "strength=0.2" in legend
    matplotlib.pyplot.close(fig)


def test_markdown_has_tightness_and_a_compact_table():
    ds = result(tightness=np.array([[0.5, 0.25, np.nan], [1.0, 0.75, 0.6]]))
    text = report.markdown(ds, "toy.png")
    tight = np.array([0.5, 0.25, 1.0, 0.75, 0.6])
    assert (f"Tightness exact / bound: min {report._fmt(tight.min())}, median {report._fmt(float(np.median(tight)))}, "
            f"max {report._fmt(tight.max())} over 5 points") in text
    assert "THEORY: `STD-GaussHS`" in text and "![TOY](toy.png)" in text
    compact = [line for line in text.splitlines() if line.startswith("| 0.5 |") or line.startswith("| 1.0 |")]
    assert len(compact) == 2
    for line, tight_row in zip(compact, ([0.25, 0.5], [0.6, 1.0]), strict=True):
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[1:5] == ["3", "3", "0", "0"] and cells[5] == "BBGG-T1.2"
        assert cells[6] == f"{report._fmt(tight_row[0])} – {report._fmt(tight_row[1])}"
    without = report.markdown(result(), None)
    line = next(line for line in without.splitlines() if line.startswith("| 1.0 |"))
    ratio = (result()["exact"] / result()["bound"]).sel(sigma=1.0).values
    assert line.strip("|").split("|")[6].strip() == report._fmt(float(ratio.max()))


def test_report_covers_every_result_file_in_the_folder(tmp_path):
    out = tmp_path / "validation"
    out.mkdir()
    result("OLD").assign_attrs(command="markovdp validate OLD").to_netcdf(out / "OLD.nc", engine="h5netcdf")
    xr.Dataset({"x": ("i", [1.0])}).to_netcdf(out / "stranger.nc", engine="h5netcdf")
    text = report.write_report([result("NEW")], out, "markovdp validate NEW").read_text()
    assert "## NEW" in text and "## OLD" in text
    assert text.index("## NEW") < text.index("## OLD")
    assert "From an earlier run: `OLD.nc`, command `markovdp validate OLD`" in text
    assert "`stranger.nc`: not a markovdp result" in text
    assert "1 from this run, 1 from earlier runs" in text
    assert (out / "NEW.png").stat().st_size > 10_000 and (out / "OLD.png").stat().st_size > 10_000


def test_a_sweep_without_eps_is_plotted_against_its_first_swept_number(tmp_path):
    with open_executor("synchronous") as executor:
        ds = run_sweep(get_scenario("AAC-phi"), samples=100, seed=3, quick=True, executor=executor)
    assert ds.sizes["param"] == 1 and "eps" not in ds.dims
    assert report.x_dim(ds) == "n"
    fig = report.figure(ds)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert len(axes) == ds.sizes["channel"] * ds.sizes["pair"]
    assert fig.get_supxlabel() == ds["n"].attrs.get("long_name", "n")
    assert fig.get_supylabel().startswith(("KL", "value"))
    assert "param=1" in fig.get_suptitle()
    matplotlib.pyplot.close(fig)
    path = report.write_report([ds], tmp_path, "test")
    assert "## AAC-phi" in path.read_text() and (tmp_path / "AAC-phi.png").exists()


def test_a_single_point_and_an_all_nan_dataset_still_plot(tmp_path):
    one = result(sigma=(1.0,), eps=(1.0,))
    empty = result(bound=np.full((2, 3), np.nan), exact=np.full((2, 3), np.nan),
                   estimate=np.full((2, 3), np.nan), ci_low=np.full((2, 3), np.nan), ci_high=np.full((2, 3), np.nan))
    for ds in (one, empty):
        assert report.plot(ds, tmp_path / "x.png").stat().st_size > 5_000
    assert math.isnan(report.rows(empty)[0]["bound"])


def test_a_categorical_parameter_is_labelled_by_its_values_not_an_index():
    ds = result(eps=(1.0,)).assign_coords(sigma=["wide", "narrow"])
    assert report.x_dim(ds) == "sigma"
    fig = report.figure(ds)
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["wide", "narrow"]
    assert "eps=1" in fig.get_suptitle()
    matplotlib.pyplot.close(fig)


def test_markdown_shows_a_scenarios_own_variables():
    """BBGG-L3 records pure_eps_ratio and rdp_gain: the report gives their range and one column each per point."""
    ratio = np.array([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
    gain = np.array([[0.4, 0.5, 0.6], [0.7, 0.8, 0.9]])
    ds = result(pure_eps_ratio=ratio, rdp_gain=gain)
    ds["rdp_gain"].attrs["long_name"] = "RDP of M >> K / RDP of M"
    assert report.scenario_variables(ds) == ["pure_eps_ratio", "rdp_gain"]
    text = report.markdown(ds, None)
    assert "`rdp_gain` (RDP of M >> K / RDP of M): min 0.4000, max 0.9000 over 6 points." in text
    header = next(line for line in text.splitlines() if line.startswith("| parameters |"))
    assert header.rstrip().endswith("| pure_eps_ratio | rdp_gain |")
    assert [r["variables"]["rdp_gain"] for r in report.rows(ds)] == gain.ravel().tolist()


def test_an_infinite_estimate_reads_at_least_its_lower_limit_in_tables():
    """A binned Rényi estimate of +inf (a cell seen under one input only) is "≥ ci_low", never "inf"."""
    ds = result(estimate=np.array([[np.inf, 0.5, 0.1], [0.2, 0.1, 0.01]]),
                ci_low=np.array([[0.6143, 0.4, 0.0], [0.1, 0.05, 0.0]]), ci_high=np.full((2, 3), np.nan))
    first = report.rows(ds)[0]
    assert report.estimate_text(first) == f"≥ {report._fmt(0.6143)}"
    assert report.estimate_text(report.rows(ds)[1]) == f"{report._fmt(0.5)} [{report._fmt(0.4)}, ∞)"
    text = report.markdown(ds, None)
    cells = [c.strip() for c in next(line for line in text.splitlines() if line.startswith("| sigma=0.5, eps=0.0"))
             .strip("|").split("|")]
    assert cells[4] == "≥ 0.6143" and "inf" not in text


def test_quick_renyi_scenarios_never_print_inf_beside_the_exact_value():
    with open_executor("synchronous") as executor:
        ds = run_sweep(get_scenario("BBGG-BM"), samples=20_000, seed=20191208, quick=True, executor=executor)
    for row in report.rows(ds):
        text = report.estimate_text(row)
        assert "inf" not in text
        assert text.startswith("≥ ") == (row["estimate"] == math.inf)


def test_an_infinite_estimate_is_a_hollow_triangle_at_its_lower_limit_with_an_arrow_up():
    ds = result(estimate=np.array([[np.inf, 0.5, 0.1], [0.2, 0.1, 0.01]]),
                ci_low=np.array([[0.3, 0.4, 0.05], [0.1, 0.05, 0.004]]), ci_high=np.full((2, 3), np.nan))
    fig = report.figure(ds)
    ax = fig.axes[0]  # sigma = 0.5: the infinite estimate at eps = 0
    (marker,) = [line for line in ax.get_lines() if line.get_marker() == "^"]
    assert marker.get_markerfacecolor() in ("white", (1.0, 1.0, 1.0, 1.0))
    np.testing.assert_array_equal(marker.get_xdata(), [0.0])
    np.testing.assert_array_equal(marker.get_ydata(), [0.3])
    arrows = [c for c in ax.get_children() if isinstance(c, matplotlib.text.Annotation)]
    starts = sorted((a.xyann[0], a.xyann[1]) for a in arrows)
    assert starts == [(0.0, 0.3), (1.0, 0.4), (3.0, 0.05)]  # every open interval, the infinite one included
    assert all(a.xy[1] == pytest.approx(ax.get_ylim()[1]) for a in arrows)
    for line in ax.get_lines():
        assert not np.isinf(np.asarray(line.get_ydata(), dtype=float)).any()
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "estimate ∞: only ≥ its lower limit is known" in legend
    matplotlib.pyplot.close(fig)


def test_the_netcdf_says_what_nan_in_ci_high_and_inf_in_estimate_mean():
    from markovdp.sweeps.dataset import variable_attrs

    attrs = variable_attrs(get_scenario("BBGG-BM"))
    assert "NaN: no valid upper limit" in attrs["ci_high"]["description"]
    assert "[ci_low, inf)" in attrs["ci_high"]["description"]
    assert "+inf" in attrs["estimate"]["description"] and ">= ci_low" in attrs["estimate"]["description"]


def _bound_points(ax) -> np.ndarray:
    (line,) = [line for line in ax.get_lines() if line.get_marker() == "v"]
    return np.asarray(line.get_ydata(), dtype=float)


def test_a_log_axis_floor_never_draws_a_bound_above_its_value():
    """BBGG-T5 at quick size: bounds 2e-7, 0.06, 0.99 and estimates of 0. The gap of five decades used to
    put the bound 2e-7 on a floor at 0.02, next to the zero estimates; now every positive bound is drawn
    at its value and only the zeros sit on the floor, below every bound."""
    bound = np.array([[2.046e-7, 6.228e-2, 0.9866]])
    ds = result(sigma=(1.0,), eps=(1.0, 2.0, 3.0), bound=bound, exact=np.full((1, 3), np.nan),
                estimate=np.array([[0.0, 0.0, 0.2178]]), ci_low=np.array([[0.0, 0.0, 0.1965]]),
                ci_high=np.full((1, 3), np.nan))
    fig = report.figure(ds)
    ax = fig.axes[0]
    np.testing.assert_array_equal(_bound_points(ax), bound[0])
    (floor,) = [line.get_ydata()[0] for line in ax.get_lines() if line.get_linestyle() == ":"]
    assert floor < bound.min() and ax.get_ylim()[0] < floor
    assert "0 (not on a log axis) drawn on this floor" in [t.get_text() for t in fig.legends[0].get_texts()]
    # the floor's tick says "0"; no other tick lies below the smallest value drawn where it is
    ticks = dict(zip(ax.get_yticks(), (t.get_text() for t in ax.get_yticklabels()), strict=True))
    assert ticks.pop(floor) == "0" and min(ticks) >= bound.min()
    matplotlib.pyplot.close(fig)
    # a zero bound sits on the floor; an exact value far below every bound still may (the legend says so)
    ds = result(sigma=(1.0,), eps=(1.0, 2.0, 3.0), bound=np.array([[0.5, 0.2, 0.0]]),
                exact=np.array([[0.4, 1e-12, 0.0]]), estimate=np.full((1, 3), np.nan), ci_low=np.full((1, 3), np.nan),
                ci_high=np.full((1, 3), np.nan))
    fig = report.figure(ds)
    ax = fig.axes[0]
    (floor,) = [line.get_ydata()[0] for line in ax.get_lines() if line.get_linestyle() == ":"]
    drawn = _bound_points(ax)
    np.testing.assert_array_equal(drawn[:2], [0.5, 0.2])
    assert drawn[2] == floor < 0.2
    assert dict(zip(ax.get_yticks(), (t.get_text() for t in ax.get_yticklabels()), strict=True))[floor] == "< 2.0e-01"
    matplotlib.pyplot.close(fig)


def test_points_of_different_random_inputs_are_never_joined():
    """AAC-phi: ``pair`` indexes random input pairs (another pair at each n): the bounds are markers only."""
    with open_executor("synchronous") as executor:
        ds = run_sweep(get_scenario("AAC-phi"), samples=100, seed=3, quick=True, executor=executor)
    assert report.random_input_dims(ds) == ["pair"]
    fig = report.figure(ds)
    for ax in (ax for ax in fig.axes if ax.get_visible()):
        for line in ax.get_lines():
            assert line.get_linestyle() == "None" or len(line.get_xdata()) < 2, line
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert any("not joined: each pair is another random input" in t for t in legend)
    matplotlib.pyplot.close(fig)
    # a pair index is never the x axis while another number is swept; a plain grid is still joined
    assert report.x_dim(ds.isel(n=[0]).expand_dims(extra=[1.0, 2.0]).transpose(..., "pair")) == "extra"
    fig = report.figure(result())
    assert all(ax.get_lines()[0].get_linestyle() == "-" for ax in fig.axes if ax.get_visible())
    matplotlib.pyplot.close(fig)


def test_a_scenario_without_samples_does_not_print_samples_per_side():
    no_mc = result(estimate=np.full((2, 3), np.nan), ci_low=np.full((2, 3), np.nan), ci_high=np.full((2, 3), np.nan))
    text = report.markdown(no_mc, None)
    assert "Samples per side" not in text and "No Monte Carlo" in text and "estimate" not in text.split("<details>")[1]
    assert report.value_columns(no_mc) == ["parameters", "theorem", "bound (δ)", "exact (δ)"]
    sampled = report.markdown(result(), None)
    assert "Samples per side: 1000, confidence 0.95" in sampled
    assert report.value_columns(result()) == ["parameters", "theorem", "bound (δ)", "exact (δ)",
                                              "estimate (δ) [95% CI]"]


@pytest.mark.parametrize(("long_name", "units", "column"), [
    ("exact hockey-stick delta", "1", "δ"), ("exact Rényi divergence", "nats", "nats"),
    ("exact E_OU / E_GM", "1", "ratio"), ("exact contraction ratio D(mu K^n || nu K^n) / D(mu || nu)", "1", "ratio"),
    ("exact total variation of the n privatised samples", "1", "TV"), ("exact kappa(s)", "1/time", "1/time"),
    ("exact squared error E_OU = E||f(D) − M_t^f(D)||²", "1", "squared error E_OU"),
])
def test_table_columns_name_the_unit_of_their_values(long_name, units, column):
    ds = result()
    ds["exact"].attrs.update(long_name=long_name, units=units)
    assert report.column_unit(ds) == column
    assert report.value_columns(ds)[2:4] == [f"bound ({column})", f"exact ({column})"]


# -- files read from the output folder are data, never paths or markup (issue 13 §4) ----------------------------
COMMAND = "`</details><script>alert(1)</script>` [x](http://evil.example)\n# owned"
ALLOWED_HTML = {"<details><summary>every grid point</summary>\n", "</details>\n"}


def _crafted(out, outside) -> dict[str, xr.Dataset]:
    """Earlier results whose attributes try to leave `out` or to become markup (HTML, links, headings, math)."""
    files = {
        "up.nc": result("../../escaped"),
        "absolute.nc": result(str(outside / "x")),
        "markup.nc": result("<img src=x onerror=alert(1)>").assign_attrs(
            command=COMMAND, theory_id="$\\undefinedcmd$ | <b>", description="</details>\n\n# owned\n- a list",
            created="[click](http://evil.example)", markovdp_version="<i>1</i>").assign_coords(
            sigma=["<b>bold</b>", "a|b"]),
    }
    for name, ds in files.items():
        ds.to_netcdf(out / name, engine="h5netcdf")
    return files


def _tree(root) -> set:
    return {p for p in root.rglob("*")}


def _tokens(text: str) -> list:
    from markdown_it import MarkdownIt

    flat = []
    for token in MarkdownIt("commonmark").enable("table").parse(text):
        flat += [token, *(token.children or [])]
    return flat


def test_crafted_earlier_results_write_only_inside_out_and_are_escaped(tmp_path):
    out, outside = tmp_path / "a" / "b" / "out", tmp_path / "elsewhere"
    out.mkdir(parents=True)
    outside.mkdir()
    _crafted(out, outside)
    before = _tree(tmp_path)
    path = report.write_report([result("NEW")], out, "markovdp validate NEW")
    written = _tree(tmp_path) - before
    assert written and all(p.parent == out for p in written), sorted(written)  # nothing outside `out`
    assert sorted(p.name for p in written) == ["NEW.png", "absolute.png", "markup.png", "report.md", "up.png"]
    text = path.read_text()
    tokens = _tokens(text)
    html = [t.content for t in tokens if t.type in ("html_block", "html_inline")]
    assert set(html) == ALLOWED_HTML and html.count("<details><summary>every grid point</summary>\n") == 4
    assert not [t for t in tokens if t.type == "link_open"]  # no link from any file
    assert sorted(t.attrs["src"] for t in tokens if t.type == "image") == sorted(
        p.name for p in written if p.suffix == ".png")
    headings = [t for t in tokens if t.type == "heading_open"]
    assert [h.tag for h in headings] == ["h1"] + ["h2"] * 4  # no heading smuggled in by a description
    assert not [t for t in tokens if t.type == "bullet_list_open"][1:]  # only the list of skipped files, if any
    code = [t.content for t in tokens if t.type == "code_inline"]
    assert COMMAND.replace("\n", " ") in code  # the command, verbatim, as code
    texts = " ".join(t.content for t in tokens if t.type == "text")
    for shown in ("<img src=x onerror=alert(1)>", "</details>", "# owned", "[click](http://evil.example)",
                  "$\\undefinedcmd$ | <b>", "<b>bold</b>", "a|b", "<i>1</i>", "../../escaped"):
        assert shown in texts, shown  # rendered as the text it is


def test_validate_with_crafted_files_in_out_writes_only_inside_out(tmp_path, capsys):
    out, outside = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    outside.mkdir()
    _crafted(out, outside)
    before = _tree(tmp_path)
    assert main(["validate", "AAC-phi", "--quick", "--samples", "200", "--scheduler", "synchronous",
                 "--out", str(out)]) == 0
    assert all(p.parent == out for p in _tree(tmp_path) - before)
    assert not list(outside.iterdir()) and not (tmp_path / "escaped.png").exists()


def test_md_text_and_md_code_leave_plain_text_alone_and_quote_the_rest():
    for plain in ("BBGG-T1.3", "markovdp validate --quick", "RDP of M >> K / RDP of M", "pure_eps_ratio", "eps=0.5",
                  "0.1.0", "exact delta <= certified delta", "-1.5", "#3"):
        assert report._md_text(plain) == plain
        assert report._md_code(plain) == f"`{plain}`"
    assert report._md_code("a ``b`` c") == "```a ``b`` c```"
    assert report._md_code("`x") == "`` `x ``"
    assert report._md_text("line\nbreak") == "line break"
    assert report._md_text("1. first") == "1\\. first" and report._md_text("- item") == "\\- item"
    assert report._md_text("<b>") == "\\<b>" and report._md_text("a|b") == "a\\|b"


def test_the_report_command_shows_rich_markup_from_a_file_as_text(tmp_path, capsys):
    path = tmp_path / "crafted.nc"
    result("[red]TOY[/red]").assign_coords(sigma=["[link=http://evil.example]x[/link]", "[bold]y"]).to_netcdf(
        path, engine="h5netcdf")
    assert main(["report", str(path)]) == 0
    out = capsys.readouterr().out
    assert "[red]TOY[/red]" in out and "[link=http://evil.example]x[/link]" in out and "[bold]y" in out
