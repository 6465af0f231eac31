"""The documentation runs as written and stays inside the repository.

- Every ```python block of README.md and docs/*.md runs on its own, in a fresh interpreter (so every block is
  self-contained: its imports and set-up are in the block, and a theorem one block registers does not leak into
  another), with cwd a temporary folder. A failure names the file and the line of the block.
- Every ```bash / ```console block only uses real `markovdp` subcommands and flags (checked against
  `markovdp <sub> --help`, never run) and real `python -m` modules.
- The set-up commands are the ones `.ci/run` runs.
- Nothing in README.md, docs/ or markovdp/ points outside the repository; relative links resolve (to a file, or
  to a page the site generates: the API reference).
- The site builds: `mkdocs build --strict` (a broken reference or a docstring griffe cannot parse fails it), and
  its API reference documents every name of `markovdp.__all__`.
- docs/theory.md documents every THEORY ID the code and tests cite, and its Code / Tests references exist.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\s*$")

#: Runs the block given as JSON [path, first line, source] in a fresh namespace. The block is compiled under the
#: Markdown file's name, padded so that traceback line numbers are the file's own.
RUNNER = r"""
import json, sys, traceback
path, line, source = json.load(open(sys.argv[1]))
try:
    exec(compile("\n" * (line - 1) + source, path, "exec"), {"__name__": "__main__"})
except BaseException:
    traceback.print_exc()
    print(f"{path}:{line}: the python block starting on this line failed", file=sys.stderr)
    sys.exit(1)
"""


def blocks(path: Path, languages: tuple[str, ...]) -> list[tuple[int, str]]:
    """(first line of the code, code) of each fenced block in one of `languages`, in order."""
    found, lines, current, start = [], path.read_text().splitlines(), None, 0
    for n, line in enumerate(lines, start=1):
        match = FENCE.match(line)
        if current is None and match:
            current, start, body = match.group(1), n + 1, []
        elif current is not None and line == "```":
            if current in languages:
                found.append((start, "\n".join(body) + "\n"))
            current = None
        elif current is not None:
            body.append(line)
    assert current is None, f"{path.name}: a code block opened on line {start - 1} is never closed"
    return found


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


# --------------------------------------------------------------------------------------------- python blocks

def run_block(path: Path, line: int, source: str, tmp_path: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run one block in a fresh interpreter, with cwd `tmp_path`."""
    (tmp_path / "block.json").write_text(json.dumps([str(path), line, source]))
    (tmp_path / "runner.py").write_text(RUNNER)
    env = {**os.environ, "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, "runner.py", "block.json"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=timeout, env=env)


PYTHON_BLOCKS = [(path, line, source) for path in DOCS for line, source in blocks(path, ("python",))]


@pytest.mark.parametrize(("path", "line", "source"), PYTHON_BLOCKS, ids=[f"{rel(p)}:{n}" for p, n, _ in PYTHON_BLOCKS])
def test_python_block_runs_in_a_fresh_interpreter(path, line, source, tmp_path):
    result = run_block(path, line, source, tmp_path)
    assert result.returncode == 0, f"{rel(path)}:{line}:\n{result.stdout[-3000:]}\n{result.stderr[-6000:]}"


def test_the_readme_keeps_its_tour_and_the_tour_its_extension_examples():
    assert blocks(ROOT / "README.md", ("python",)), "README.md lost its short tour"
    tour = blocks(ROOT / "docs" / "tour.md", ("python",))
    assert len(tour) >= 5 and any("@md.theorem(" in source for _, source in tour), "docs/tour.md lost its examples"


def test_runner_reports_the_file_and_line_of_a_failing_block(tmp_path):
    doc = tmp_path / "page.md"
    doc.write_text("text\n\n```python\nx = 1\n```\n\nmore\n\n```python\nassert x == 2, 'wrong'\n```\n\n"
                   "```python\nx = 1\nassert x == 2, 'wrong'\n```\n")
    code = blocks(doc, ("python",))
    assert [line for line, _ in code] == [4, 10, 14]
    assert run_block(doc, *code[0], tmp_path, timeout=60).returncode == 0
    # Each block runs in a fresh interpreter: the second block does not see the first block's x.
    alone = run_block(doc, *code[1], tmp_path, timeout=60)
    assert alone.returncode == 1 and "NameError" in alone.stderr and f"{doc}:10: the python block" in alone.stderr
    failed = run_block(doc, *code[2], tmp_path, timeout=60)
    assert failed.returncode == 1
    assert f"{doc}:14: the python block" in failed.stderr
    assert f'File "{doc}", line 15' in failed.stderr and "wrong" in failed.stderr


# ---------------------------------------------------------------------------------------------- shell blocks

def shell_commands(path: Path) -> list[tuple[int, list[str]]]:
    """(line, argv) of every simple command in the bash / console blocks of `path`."""
    commands = []
    for start, source in blocks(path, ("bash", "console", "sh", "shell")):
        for offset, raw in enumerate(source.splitlines()):
            line = raw.strip()
            if raw.startswith("$ "):
                line = raw[2:].strip()
            elif source.lstrip().startswith("$ "):  # a console transcript: other lines are output
                continue
            if not line or line.startswith("#"):
                continue
            for part in re.split(r"&&|\|\||;|\|", line):
                if part.strip():
                    commands.append((start + offset, shlex.split(part, comments=True)))
    return commands


@functools.cache
def markovdp_help(*subcommand: str) -> str:
    exe = shutil.which("markovdp")
    argv = [exe] if exe else [sys.executable, "-m", "markovdp.cli"]
    result = subprocess.run([*argv, *subcommand, "--help"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"`markovdp {' '.join(subcommand)} --help` failed:\n{result.stderr}"
    return result.stdout


ALL_SHELL = [(path, line, argv) for path in DOCS for line, argv in shell_commands(path)]


def test_docs_show_shell_commands():
    assert any(argv[0] == "markovdp" for _, _, argv in ALL_SHELL)


@pytest.mark.parametrize(("path", "line", "argv"), ALL_SHELL,
                         ids=[f"{rel(p)}:{n}:{shlex.join(a[:2])}" for p, n, a in ALL_SHELL])
def test_shell_commands_are_real_commands_and_flags(path, line, argv):
    where = f"{rel(path)}:{line}: `{shlex.join(argv)}`"
    if argv[0] == "python":
        assert argv[1:2] == ["-m"], f"{where}: only `python -m MODULE` is documented"
        module = argv[2]
        found = subprocess.run([sys.executable, "-c", f"import importlib.util as u; exit(u.find_spec({module!r}) "
                                                      "is None)"], cwd=ROOT, timeout=60)
        assert found.returncode == 0, f"{where}: no module {module!r}"
        return
    assert argv[0] == "markovdp", f"{where}: unknown program {argv[0]!r}"
    top = markovdp_help()
    subcommands = re.search(r"\{([\w,-]+)\}", top).group(1).split(",")
    sub = argv[1] if len(argv) > 1 else None
    assert sub in subcommands, f"{where}: {sub!r} is not a markovdp subcommand ({', '.join(subcommands)})"
    help_text = markovdp_help(sub)
    for token in argv[2:]:
        if token.startswith("--"):
            flag = token.split("=", 1)[0]
            assert re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", help_text), \
                f"{where}: `markovdp {sub}` has no option {flag}"


def test_ci_runs_readme_commands():
    def command(marker: str) -> str:
        out = subprocess.run(["bash", "-c", f"source <(sed -n '/^readme_command()/,/^}}/p' .ci/run); "
                                            f"readme_command {marker}"],
                             cwd=ROOT, capture_output=True, text=True, check=True)
        return out.stdout.strip()

    assert command("setup") == 'python -m pip install -e ".[test]" && markovdp validate --quick'
    assert command("tests") == "python -m pytest -n auto --dist loadfile"


# ------------------------------------------------------------------------------------ self-contained docs

OUTSIDE = ("../shared", "shared/", "THEORY.md", "DESIGN.md")  # the repository's theory sheet is docs/theory.md


def test_nothing_points_outside_the_repository():
    """Every file a user gets (README, docs, the library, the studies and their data, notebooks, tests, benchmarks)
    stands alone: no path into the team's shared folder, no THEORY.md or DESIGN.md outside docs/."""
    folders = ("docs", "markovdp", "simulations", "notebooks", "tests", "benchmarks", "data", ".ci")
    files = [ROOT / "README.md", ROOT / "pyproject.toml", ROOT / "mkdocs.yml",
             *(p for folder in folders for p in (ROOT / folder).rglob("*")
               if p.suffix in (".py", ".md", ".json", ".toml", ".yml", "") and "build" not in p.parts
               and p.name != "test_docs.py")]
    offenders = []
    for path in files:
        if not path.is_file() or "__pycache__" in path.parts or path.suffix in (".so", ".pyc", ".nbi", ".nbc"):
            continue
        text = path.read_text(errors="replace")
        for n, line in enumerate(text.splitlines(), start=1):
            if any(marker in line for marker in OUTSIDE):
                offenders.append(f"{rel(path)}:{n}: {line.strip()}")
    assert not offenders, "pointers outside the repository:\n" + "\n".join(offenders)


def test_relative_links_in_the_docs_resolve():
    api = ROOT / "docs" / "api"
    generated = {api / "index.md"} | {api / file for file, _, _ in reference_pages()}
    generated |= {ROOT / "docs" / file for file, _, _ in theory_hook().FAMILIES}
    for path in DOCS:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text()):
            if "://" not in target:
                resolved = Path(os.path.normpath(path.parent / target))
                assert resolved.exists() or resolved in generated, f"{rel(path)}: broken link {target}"


# ---------------------------------------------------------------------------------------------- the site

def hook(name: str):
    """docs/hooks/NAME.py, an mkdocs hook, loaded as a module (docs/ is not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / "hooks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def api_hook():
    """The mkdocs hook that generates the API reference."""
    return hook("api_reference")


def theory_hook():
    """The mkdocs hook that cuts theory.md into one page per THEORY family."""
    return hook("theory_pages")


@functools.cache
def reference_pages() -> dict[tuple[str, str, str], list[tuple[str, str]]]:
    return api_hook().reference_pages()


def test_the_api_reference_lists_every_public_name_once():
    import markovdp

    listed = [name for entries in reference_pages().values() for name, _ in entries]
    assert sorted(listed) == sorted(markovdp.__all__)
    by_page = {file: [name for name, _ in entries] for (file, _, _), entries in reference_pages().items()}
    assert {"certify", "privacy_profile", "calibrate"} <= set(by_page["guarantees.md"])
    assert {"theorem", "PUSHES", "register_divergence"} <= set(by_page["extending.md"])  # "# extending markovdp"
    assert {"run_sweep", "Scenario"} <= set(by_page["sweeps.md"])  # lazy names, documented where they live
    assert "estimate_renyi_histogram" in by_page["estimators.md"]


def test_prose_parameter_lines_become_descriptions_and_type_lines_stay():
    spec = importlib.util.spec_from_file_location("prose", ROOT / "docs" / "hooks" / "prose_parameters.py")
    prose = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(prose)
    doc = ("Summary.\n\nParameters\n----------\neps : privacy level in nats, >= 0.\nk : int, optional\n    Cells.\n"
           'method : {"box", "plugin"}\nx, y : the two inputs, on\n    two lines.\n\nReturns\n-------\nq : the value\n')
    assert prose.rewrite(doc).splitlines()[4:] == [
        "eps", "    privacy level in nats, >= 0.", "k : int, optional", "    Cells.", 'method : {"box", "plugin"}',
        "x, y", "    the two inputs, on", "    two lines.", "", "Returns", "-------", "q : the value"]


def test_mkdocs_build_strict_documents_every_public_name(tmp_path):
    """The site builds with --strict (a warning fails it: a broken link or cross-reference, a docstring griffe
    cannot parse), and every name of `markovdp.__all__` has its anchor on its page of the reference."""
    site = tmp_path / "site"
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)], cwd=ROOT,
                            capture_output=True, text=True, timeout=300,
                            env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "MPLBACKEND": "Agg"})
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stdout[-3000:]}\n{result.stderr[-6000:]}"
    missing = []
    for (file, _, _), entries in reference_pages().items():
        html = (site / "api" / file.removesuffix(".md") / "index.html").read_text()
        missing += [f"{file}: {name} ({ident})" for name, ident in entries if f'id="{ident}"' not in html]
    assert not missing, "names without their entry in the API reference:\n" + "\n".join(missing)
    for page in ("getting-started", "reading-the-report", "cluster", "benchmarks", "tour", "theory",
                 "theory-bbgg-mixing", "theory-aac", "theory-srp", "theory-standard-facts", "api/subpackage-names"):
        assert (site / page / "index.html").exists(), f"the site lacks {page}"


# ------------------------------------------------------------------------------------------------ theory.md

THEORY = ROOT / "docs" / "theory.md"
#: A THEORY ID as the code cites it: BBGG-T1.3, AAC-phi, STD-GaussHS, SRP-D (a scenario or test-case suffix
#: such as "-halved" or "-D1" is not part of the ID; "BBGG-T1.1–T1.4" cites BBGG-T1.1).
ID = re.compile(r"(?<![\w-])(?:BBGG|AAC|STD|SRP)-[A-Za-z0-9]+(?:\.\d+)?")


def documented_ids() -> set[str]:
    text = THEORY.read_text()
    return set(ID.findall(text)) | set(re.findall(r"^## (\S+)", text, flags=re.M))


def prose(path: Path) -> list[tuple[int, str]]:
    """(line, text) of the comments and docstrings of a test file: where tests cite results. String literals
    are left out, since tests also use made-up IDs on purpose (e.g. an unregistered rule)."""
    out = []
    with path.open() as f:
        for tok in tokenize.generate_tokens(f.readline):
            if tok.type == tokenize.COMMENT or (tok.type == tokenize.STRING
                                                and tok.string.lstrip("rRbBuUfF")[:3] in ('"""', "'''")):
                out.append((tok.start[0], tok.string))
    return out


def test_theory_documents_every_id_the_code_and_tests_cite():
    cited: dict[str, str] = {}
    sources = [(p, list(enumerate(p.read_text().splitlines(), start=1))) for p in (ROOT / "markovdp").rglob("*.py")]
    sources += [(p, prose(p)) for p in (ROOT / "tests").rglob("*.py")]
    for path, texts in sorted(sources):
        for n, text in texts:
            for found in ID.findall(text):
                cited.setdefault(found, f"{rel(path)}:{n}")
    assert {"BBGG-T1.3", "STD-GaussHS", "AAC-phi"} <= set(cited)
    missing = {i: where for i, where in cited.items() if i not in documented_ids()}
    assert not missing, f"IDs cited but not in docs/theory.md: {missing}"


def test_theory_documents_every_built_in_rule():
    from markovdp.guarantees.registry import _RULES, registered_theorems

    built_in = [i for i in registered_theorems() if _RULES[i].__module__.startswith("markovdp.")]
    assert {"MECH", "POST", "BBGG-T1.1"} <= set(built_in)
    assert set(built_in) <= documented_ids()


def resolve(dotted: str) -> object:
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


def test_theory_code_references_import():
    names = sorted(set(re.findall(r"`(markovdp(?:\.\w+)+)`", THEORY.read_text())))
    assert len(names) > 30
    broken = []
    for name in names:
        try:
            resolve(name)
        except (ImportError, AttributeError) as exc:
            broken.append(f"{name}: {exc}")
    assert not broken, "docs/theory.md cites code that does not exist:\n" + "\n".join(broken)


def test_theory_test_references_exist():
    refs = sorted(set(re.findall(r"`(tests/\w+\.py)::(\w+)`", THEORY.read_text())))
    assert len(refs) > 30
    missing = [f"{f}::{t}" for f, t in refs
               if not (ROOT / f).exists() or not re.search(rf"^\s*def {t}\(", (ROOT / f).read_text(), re.M)]
    assert not missing, "docs/theory.md cites tests that do not exist:\n" + "\n".join(missing)


def test_every_theory_entry_states_source_code_and_tests():
    sections = re.split(r"^## ", THEORY.read_text(), flags=re.M)[1:]
    entries = [s for s in sections if not s.startswith(("Sources", "Not used"))]
    assert len(entries) >= 20
    for entry in entries:
        title = entry.splitlines()[0]
        for field in ("**Statement.**", "**Source.**", "**Code.**", "**Tests.**"):
            assert field in entry, f"docs/theory.md, {title}: no {field}"
