"""The README's Python blocks run as written (in a fresh interpreter, so the theorem the README registers
does not leak into other tests); the set-up commands are the ones `.ci/run` runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_readme_python_blocks_run(tmp_path):
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    assert len(blocks) >= 2, "README.md lost its tour or its extension example"
    script = tmp_path / "readme.py"
    script.write_text("\n".join(blocks))
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ci_runs_readme_commands():
    def command(marker: str) -> str:
        out = subprocess.run(["bash", "-c", f"source <(sed -n '/^readme_command()/,/^}}/p' .ci/run); "
                                            f"readme_command {marker}"],
                             cwd=ROOT, capture_output=True, text=True, check=True)
        return out.stdout.strip()

    assert command("setup") == 'python -m pip install -e ".[test]" && markovdp validate --quick'
    assert command("tests") == "python -m pytest"
