"""The README tour is executed as written; the set-up commands are the ones `.ci/run` runs."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_readme_tour_runs(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    assert blocks, "README.md has no python tour"
    monkeypatch.chdir(tmp_path)
    for code in blocks:
        exec(compile(code, "README.md", "exec"), {"__name__": "__readme__"})


def test_ci_runs_readme_commands():
    def command(marker: str) -> str:
        out = subprocess.run(["bash", "-c", f"source <(sed -n '/^readme_command()/,/^}}/p' .ci/run); "
                                            f"readme_command {marker}"],
                             cwd=ROOT, capture_output=True, text=True, check=True)
        return out.stdout.strip()

    assert command("setup") == 'python -m pip install -e ".[test]" && markovdp validate --quick'
    assert command("tests") == "python -m pytest"
