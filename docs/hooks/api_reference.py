"""mkdocs hook: the API reference, generated from `markovdp.__all__` at every build.

Every public name gets one `::: identifier` block (mkdocstrings) on the page of its subpackage, so a name added to
`__all__` appears in the reference without editing a page. A name listed under `# extending markovdp` in `__all__`
goes to the extension-points page, whatever module defines it; a name whose subpackage has no page of its own goes
to "Other names" (a page that exists only while it has names). `reference_pages()` is what `tests/test_docs.py`
checks: every name of `markovdp.__all__` is on a page.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INIT = ROOT / "markovdp" / "__init__.py"

#: (file, title, what the page holds, module prefixes it takes), in the order of the nav.
PAGES = (
    ("spaces.md", "Spaces and randomness", "State spaces, and the `rng` argument every sampler takes.",
     ("markovdp.spaces", "markovdp._random")),
    ("distributions.md", "Distributions", "The output laws: finite, Gaussian, Laplace and their sums.",
     ("markovdp.distributions",)),
    ("operators.md", "Operators (kernels)", "Markov kernels and the post-processing algebra "
     "(`K1 >> K2`, `K ** r`, `mixture`, `tensor`); projections and maps on R^d.", ("markovdp.operators",)),
    ("diffusions.md", "Diffusions", "Markov semigroups, SDEs and their compiled integrators (BBGG §5).",
     ("markovdp.diffusions",)),
    ("mechanisms.md", "Mechanisms", "Mechanisms and pipelines `M >> K`; noisy projected SGD and its losses.",
     ("markovdp.mechanisms",)),
    ("local.md", "Local mechanisms", "Frequency oracles and randomness-constrained local mechanisms (AAC, SRP).",
     ("markovdp.mechanisms.local",)),
    ("guarantees.md", "Guarantees", "Certificates, exact privacy profiles, mixing coefficients, calibration.",
     ("markovdp.guarantees",)),
    ("divergences.md", "Divergences", "Exact divergences between two laws, dispatched on their types.",
     ("markovdp.divergences.exact",)),
    ("estimators.md", "Estimators", "Monte Carlo estimators with confidence intervals.",
     ("markovdp.divergences.estimate",)),
    ("sweeps.md", "Sweeps and validation", "Scenarios, their grids, and running them on an executor (dask).",
     ("markovdp.sweeps", "markovdp.validation")),
    ("extending.md", "Pairs and extension points", "Dominating pairs, neighbourhoods and the registries a new "
     "kernel, mechanism, law, rule or divergence is added to (see also [Extending on a cluster](../extending.md)).",
     ("markovdp.pairs", "markovdp.pairs_gaussian", "markovdp._dispatch")),
)
OTHER = ("other.md", "Other names", "Public names whose subpackage has no page of its own yet.", ())
EXTENDING_GROUP = "extending markovdp"


def namespace_groups() -> dict[str, str]:
    """Name -> the comment that heads its group in `__all__` (e.g. `extending markovdp`)."""
    groups, comment, inside = {}, "", False
    for tok in tokenize.generate_tokens(io.StringIO(INIT.read_text()).readline):
        if tok.type == tokenize.NAME and tok.string == "__all__" and tok.start[1] == 0:
            inside = True
        elif inside and tok.type == tokenize.COMMENT:
            comment = tok.string.lstrip("# ").split(" (")[0]
        elif inside and tok.type == tokenize.STRING:
            groups[ast.literal_eval(tok.string)] = comment
        elif inside and tok.type == tokenize.OP and tok.string == "]":
            break
    return groups


def homes(names: list[str], tree: ast.Module) -> dict[str, str]:
    """Name -> the module that defines it (`__module__`; for a name without one in markovdp, such as a type
    alias, the module `markovdp/__init__.py` imports it from)."""
    import markovdp

    imported = {alias.asname or alias.name: f"markovdp.{node.module}" for node in tree.body
                if isinstance(node, ast.ImportFrom) and node.level == 1 for alias in node.names}
    out = {}
    for name in names:
        module = getattr(getattr(markovdp, name), "__module__", None)
        out[name] = module if isinstance(module, str) and module.startswith("markovdp") else imported.get(name, "")
    return out


def identifier(name: str, lazy: dict[str, str], home: str) -> str:
    """What mkdocstrings documents for a public name: ``markovdp.NAME``, or the path where it is defined when
    the top level does not import it (a lazy name) or when a module of the same name would shadow it (the
    function `calibrate` of `guarantees/calibrate.py`: griffe resolves ``markovdp.calibrate`` to the module)."""
    if name in lazy:
        return f"{lazy[name]}.{name}"
    return f"{home}.{name}" if home.rsplit(".", 1)[-1] == name else f"markovdp.{name}"


def reference_pages() -> dict[tuple[str, str, str], list[tuple[str, str]]]:
    """(file, title, intro) -> [(public name, mkdocstrings identifier), ...] in the order of `__all__`."""
    import markovdp

    tree = ast.parse(INIT.read_text())
    names, lazy = list(markovdp.__all__), _assigned(tree, "_LAZY")
    groups, where = namespace_groups(), homes(names, tree)
    pages: dict[tuple[str, str, str], list[tuple[str, str]]] = {page[:3]: [] for page in PAGES}
    for name in names:
        if groups.get(name) == EXTENDING_GROUP:
            page = PAGES[-1]
        else:
            matches = [(len(prefix), page) for page in PAGES for prefix in page[3]
                       if where[name] == prefix or where[name].startswith((prefix + ".", prefix + "_"))]
            page = max(matches)[1] if matches else OTHER
        pages.setdefault(page[:3], []).append((name, identifier(name, lazy, where[name])))
    return {key: value for key, value in pages.items() if value}


def _assigned(tree: ast.Module, name: str) -> dict[str, str]:
    """The literal assigned to `name` at the top of a module ({} when there is none)."""
    for node in tree.body:
        targets = [node.target] if isinstance(node, ast.AnnAssign) else getattr(node, "targets", [])
        if any(ast.unparse(t) == name for t in targets):
            return ast.literal_eval(node.value)
    return {}


# ------------------------------------------------------------------------------------------- mkdocs events

API = "api"


def summary(name: str) -> str:
    """The first line of a public name's docstring, for the table at the top of its page."""
    import markovdp

    obj = getattr(markovdp, name)
    # an instance of a type from outside markovdp (a type alias, a dict) has that type's docstring, not its own
    foreign = not (isinstance(obj, type) or callable(obj)) and not type(obj).__module__.startswith("markovdp")
    doc = None if foreign else obj.__doc__
    first = (doc or "").strip().split("\n\n")[0]
    return " ".join(first.split()).replace("|", "\\|")


def page_markdown(title: str, intro: str, entries: list[tuple[str, str]]) -> str:
    rows = "\n".join(f"| [`{name}`][{ident}] | {summary(name)} |" for name, ident in entries)
    blocks = "\n\n".join(f"::: {ident}" for _, ident in entries)
    return (f"# {title}\n\n{intro}\n\n| name | what it is |\n|---|---|\n{rows}\n\n{blocks}\n")


def index_markdown(pages: dict) -> str:
    rows = "\n".join(f"| [{title}]({file}) | {intro} | {len(entries)} |" for (file, title, intro), entries
                      in pages.items())
    return ("# API reference\n\nGenerated at every build from `markovdp.__all__`: one page per subpackage, in the "
            "order of the public namespace (names imported as `import markovdp as md; md.NAME`). Formula-level "
            "helpers live in their subpackages (`markovdp.guarantees`, `markovdp.divergences`, ...) and are cited "
            "from [the theory sheet](../theory.md).\n\n| page | what it holds | names |\n|---|---|---|\n"
            f"{rows}\n")


_PAGES: dict = {}


def on_config(config):
    """Put the reference pages into the nav, under "API reference"."""
    _PAGES.clear()
    _PAGES.update(reference_pages())
    section = [{"Overview": f"{API}/index.md"}, *({title: f"{API}/{file}"} for file, title, _ in _PAGES)]
    for entry in config["nav"] or []:
        if isinstance(entry, dict) and "API reference" in entry:
            entry["API reference"] = section
            break
    else:
        config["nav"] = [*(config["nav"] or []), {"API reference": section}]
    return config


def on_files(files, config):
    """Add the generated pages to the build (they exist only in memory)."""
    from mkdocs.structure.files import File

    files.append(File.generated(config, f"{API}/index.md", content=index_markdown(_PAGES)))
    for (file, title, intro), entries in _PAGES.items():
        files.append(File.generated(config, f"{API}/{file}", content=page_markdown(title, intro, entries)))
    return files
