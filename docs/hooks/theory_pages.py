"""mkdocs hook: one page per THEORY family, cut from docs/theory.md at every build.

docs/theory.md stays the one complete sheet; this hook copies each of its `## ID — title` sections (with its `###`
sub-IDs) onto the page of the ID's family, so a family page never drifts from the sheet, and closes each section
with an **API** list: every public name (in `markovdp.__all__` or a subpackage's `__all__`) that the section's
**Code.** paragraphs mention, as an autorefs cross-reference into the API reference (a broken one fails
`mkdocs build --strict`). Names public only in a subpackage have no entry in the reference of `markovdp.__all__`;
they get one on a generated reference page of their own (`api/subpackage-names.md`).

The grouping follows the IDs' prefixes and the order of the sheet: the sections before the first paper's ID are
the ground rules (notation, data processing, MECH, POST, EXACT, calibration); BBGG splits by the paper's sections
(§3 mixing, §4 coupling and iteration, §5 diffusions: the IDs are listed below, a BBGG ID not listed for §3 or §5
is §4's); AAC and SRP have one page each; the remaining STD facts one page. `family_pages()` is what
`tests/test_theory_pages.py` checks: every `## ` ID of the sheet lands on exactly one page.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
THEORY = ROOT / "docs" / "theory.md"
#: `## ` sections of the sheet that are not results.
NOT_IDS = ("Sources", "Not used by the code yet")
BBGG_MIXING = ("BBGG-D1", "BBGG-F1", "BBGG-T1")
BBGG_DIFFUSION = ("BBGG-S", "BBGG-A", "BBGG-BM", "BBGG-T6", "BBGG-T6-1D", "BBGG-OU", "BBGG-C7", "BBGG-MSE", "BBGG-T8")

#: (file, title, intro), in the order of the nav. Files sit beside theory.md so the copied links still resolve.
FAMILIES = (
    (
        "theory-ground-rules.md",
        "Ground rules: certificates and exact privacy",
        "The notation and the library's own rules: data processing (STD-DPI), a mechanism's own guarantee (MECH), "
        "post-processing (POST), the exact privacy profile as a certificate (EXACT, STD-Exact) and calibration — the "
        "sections the sheet states before the first paper's result.",
    ),
    (
        "theory-bbgg-mixing.md",
        "BBGG §3: amplification by mixing",
        "Balle, Barthe, Gaboardi, Geumlek (NeurIPS 2019), §3: the uniform mixing conditions (Definition 1), their "
        "order (Figure 1) and Theorem 1's amplification by a mixing kernel (with Table 1's local-DP reading).",
    ),
    (
        "theory-bbgg-coupling.md",
        "BBGG §4: amplification by coupling and iteration",
        "BBGG §4: the coupling bound (Theorem 2), Examples 1–3 and Lemma 3, iterated Lipschitz Gaussian kernels "
        "(Theorem 4 and its optimised steps), noisy projected SGD (Algorithm 1, Theorem 5) and public steps — every "
        "BBGG ID that is neither §3's nor §5's.",
    ),
    (
        "theory-bbgg-diffusions.md",
        "BBGG §5: diffusion mechanisms",
        "BBGG §5: Markov semigroups and diffusion mechanisms, Assumption 1, Brownian motion, Theorem 6 (and its "
        "one-dimensional form from an SDE's coefficients), the Ornstein–Uhlenbeck mechanism (Corollary 7) and its "
        "accuracy against the Gaussian mechanism (Eq. (4), Theorem 8).",
    ),
    (
        "theory-aac.md",
        "AAC: local DP as contraction of E_gamma",
        "Asoodeh, Aliakbarpour, Calmon (ISIT 2021): the IDs starting with `AAC-` — the contraction coefficient, "
        "Theorem 1, f-divergences, and the minimax consequences (Le Cam, Fano, Bayes risk, testing, mutual "
        "information).",
    ),
    (
        "theory-srp.md",
        "SRP: successive refinement of privacy",
        "Girgis, Data, Chaudhuri, Fragouli, Diggavi (2020): the IDs starting with `SRP-` — keyed mechanisms, the "
        "randomness of the standard frequency oracles (Table 1), estimators, multi-level privacy, recoverability, one "
        "key per sample and the randomness budget.",
    ),
    (
        "theory-standard-facts.md",
        "Standard facts",
        "The IDs starting with `STD-` that come after the papers' sections: textbook results the three papers use "
        "without stating (closed-form divergences, conversions, oracles, Monte Carlo estimators, SDE schemes).",
    ),
)

#: How the sheet is cut, said on every family page.
GROUPING = (
    "*How the sheet is grouped:* by the IDs' prefixes, in the sheet's order. The sections before the first paper's "
    "ID are the [ground rules](theory-ground-rules.md); BBGG follows the paper's sections — "
    f"[§3]({FAMILIES[1][0]}) ({', '.join(BBGG_MIXING)}), [§5]({FAMILIES[3][0]}) ({', '.join(BBGG_DIFFUSION)}) and "
    f"[§4]({FAMILIES[2][0]}) every other BBGG ID; [AAC]({FAMILIES[4][0]}) and [SRP]({FAMILIES[5][0]}) take their "
    f"prefixes; the [STD facts]({FAMILIES[6][0]}) after the papers have a page of their own. A `###` sub-ID stays "
    "with its `##` section."
)


def sections(text: str | None = None) -> list[tuple[str, str]]:
    """(ID, markdown) of every `## ` section of the sheet that states a result, in order; a section's markdown
    runs from its heading to the next `## ` heading (its `###` sub-IDs included), without a closing `---`."""
    text = THEORY.read_text() if text is None else text
    parts = re.split(r"^(?=## )", text, flags=re.M)[1:]
    out = []
    for part in parts:
        heading = part.splitlines()[0][3:]
        if heading.startswith(NOT_IDS):
            continue
        body = re.sub(r"\n---\s*$", "\n", part.rstrip() + "\n")
        out.append((heading.split()[0], body.rstrip() + "\n"))
    return out


def family_of(ids: list[str]) -> dict[str, str]:
    """ID -> the file of its family page (see the module docstring for the rule)."""
    papers = [i for i, name in enumerate(ids) if name.startswith(("BBGG-", "AAC-", "SRP-"))]
    first = papers[0] if papers else len(ids)
    files = [file for file, _, _ in FAMILIES]
    out = {}
    for i, name in enumerate(ids):
        if i < first:
            out[name] = files[0]
        elif name in BBGG_MIXING:
            out[name] = files[1]
        elif name in BBGG_DIFFUSION:
            out[name] = files[3]
        elif name.startswith("BBGG-"):
            out[name] = files[2]
        elif name.startswith("AAC-"):
            out[name] = files[4]
        elif name.startswith("SRP-"):
            out[name] = files[5]
        else:
            out[name] = files[6]
    return out


def family_pages() -> dict[tuple[str, str, str], list[tuple[str, str]]]:
    """(file, title, intro) -> [(ID, section markdown), ...] in the sheet's order."""
    found = sections()
    where = family_of([name for name, _ in found])
    pages: dict[tuple[str, str, str], list[tuple[str, str]]] = {family: [] for family in FAMILIES}
    by_file = {family[0]: family for family in FAMILIES}
    for name, body in found:
        pages[by_file[where[name]]].append((name, body))
    return pages


# ------------------------------------------------------------------------------------------- the API lists


def _api_hook():
    spec = importlib.util.spec_from_file_location("api_reference", ROOT / "docs" / "hooks" / "api_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _resolve(dotted: str) -> object:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ModuleNotFoundError(dotted)


def _trackable(obj: object) -> bool:
    """Whether identity finds a public name for `obj` (not for ints, strings, ... that Python may share)."""
    return not isinstance(obj, (int, float, str, bytes, bool, type(None), tuple))


def public_names() -> tuple[dict[int, tuple[str, str]], dict[int, tuple[str, str]]]:
    """id(object) -> (public name, mkdocstrings identifier): one dict for `markovdp.__all__` (the identifiers of
    the API reference), one for the names public only in a subpackage's `__all__` (identifier: where the object
    is defined, which griffe resolves even when a module of the same name would shadow it)."""
    import pkgutil

    import markovdp

    top = {}
    for entries in _api_hook().reference_pages().values():
        for name, ident in entries:
            obj = getattr(markovdp, name)
            if _trackable(obj):
                top.setdefault(id(obj), (f"markovdp.{name}", ident))
    sub = {}
    for info in pkgutil.walk_packages(markovdp.__path__, "markovdp."):
        if not info.ispkg:
            continue
        package = importlib.import_module(info.name)
        for name in getattr(package, "__all__", ()):
            obj = getattr(package, name)
            home = getattr(obj, "__module__", None)
            if _trackable(obj) and id(obj) not in top and isinstance(home, str) and home.startswith("markovdp"):
                sub.setdefault(id(obj), (f"{info.name}.{name}", f"{home}.{obj.__qualname__}"))
    return top, sub


CODE = re.compile(r"^\*\*Code\.\*\*.*?(?=\n\n|\Z)", flags=re.M | re.S)


def code_names(body: str) -> list[str]:
    """The dotted `markovdp.…` names of a section's **Code.** paragraphs, in order, once each."""
    names = [name for paragraph in CODE.findall(body) for name in re.findall(r"`(markovdp(?:\.\w+)+)`", paragraph)]
    return list(dict.fromkeys(names))


def api_entries(body: str, top: dict, sub: dict) -> list[tuple[str, str]]:
    """(public name, identifier) of every public object the section's Code paragraphs name, once each."""
    out = []
    for dotted in code_names(body):
        try:
            obj = _resolve(dotted)
        except (ImportError, AttributeError):  # tests/test_docs.py reports a reference that does not import
            continue
        entry = top.get(id(obj)) or sub.get(id(obj))
        if entry and entry not in out:
            out.append(entry)
    return out


def page_markdown(title: str, intro: str, entries: list[tuple[str, str]], top: dict, sub: dict) -> str:
    rows = "\n".join(
        f"| [{name}](#{_anchor(body)}) | {body.splitlines()[0].split(' — ', 1)[-1]} |" for name, body in entries
    )
    parts = [
        f"# {title}\n\n{intro}\n\nEach section below is copied at every build from "
        "[the complete theory sheet](theory.md), followed by the public API its **Code.** paragraph names.\n\n"
        f"{GROUPING}\n\n| ID | result |\n|---|---|\n{rows}\n"
    ]
    for _, body in entries:
        api = api_entries(body, top, sub)
        listed = (
            "\n".join(f"- [`{name}`][{ident}]" for name, ident in api)
            or "- none public: the **Code.** paragraph names internal functions or rules only."
        )
        parts.append(f"{body}\n**API.**\n\n{listed}\n")
    return "\n".join(parts)


def _anchor(body: str) -> str:
    """The id the toc extension gives a `## ` heading (its default slugify)."""
    from markdown.extensions.toc import slugify

    return slugify(body.splitlines()[0][3:], "-")


def subpackage_markdown(cited: list[tuple[str, str]]) -> str:
    rows = "\n".join(f"| [`{name}`][{ident}] |" for name, ident in cited)
    # the signature stays in the heading: formatting 100 separate signatures would cost the build about a second
    blocks = "\n\n".join(f"::: {ident}\n    options:\n      separate_signature: false" for _, ident in cited)
    return (
        "# Subpackage names\n\nNames public in a subpackage's `__all__` (not at the top level of `markovdp`) "
        "that the theory pages cite, documented where they are defined.\n\n| name |\n|---|\n"
        f"{rows}\n\n{blocks}\n"
    )


# ------------------------------------------------------------------------------------------- mkdocs events

SUBPACKAGE_PAGE = "api/subpackage-names.md"
_STATE: dict = {}


def on_config(config):
    """Put the family pages under "Theory" (after the complete sheet) and the subpackage names at the end of the
    API reference (this hook runs after api_reference.py, which fills that section)."""
    pages = family_pages()
    top, sub = public_names()
    only_sub = set(sub.values())
    cited = {
        entry: None
        for entries in pages.values()
        for _, body in entries
        for entry in api_entries(body, top, sub)
        if entry in only_sub
    }
    _STATE.update(pages=pages, top=top, sub=sub, cited=sorted(cited))
    theory = [{"The complete sheet": "theory.md"}, *({title: file} for file, title, _ in pages)]
    for entry in config["nav"] or []:
        if not isinstance(entry, dict):
            continue
        key = next(iter(entry))
        if key.startswith("Theory"):
            entry.clear()
            entry["Theory (by THEORY ID)"] = theory
        elif key == "API reference" and cited:
            entry[key] = [*entry[key], {"Subpackage names": SUBPACKAGE_PAGE}]
    return config


def on_files(files, config):
    """Add the generated pages to the build (they exist only in memory)."""
    from mkdocs.structure.files import File

    top, sub = _STATE["top"], _STATE["sub"]
    for (file, title, intro), entries in _STATE["pages"].items():
        files.append(File.generated(config, file, content=page_markdown(title, intro, entries, top, sub)))
    if _STATE["cited"]:
        files.append(File.generated(config, SUBPACKAGE_PAGE, content=subpackage_markdown(_STATE["cited"])))
    return files
