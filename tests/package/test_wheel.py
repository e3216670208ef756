"""The wheel carries schemas/ and templates/ and works outside the repository."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_wheel_works_installed_outside_the_repository(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path / "dist"), str(ROOT)],
        check=True, capture_output=True,
    )
    wheel = next((tmp_path / "dist").glob("synergy_forge-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "synergy_forge/schemas/round.schema.json" in names
    assert "synergy_forge/authoring/definitions/goals/between.yaml" in names
    for asset in ("index.html", "studio.js", "studio.css"):  # the studio's page
        assert f"synergy_forge/studio/static/{asset}" in names
    for asset in ("index.html", "table.js", "table.css"):  # the table's seat page
        assert f"synergy_forge/table/static/{asset}" in names
    # A fresh environment that sees the installed dependencies but not this checkout.
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target",
                    str(target), str(wheel)], check=True, capture_output=True)
    env = {"PYTHONPATH": f"{target}:{sysconfig.get_paths()['purelib']}", "PATH": "/usr/bin:/bin",
           "PYTHONNOUSERSITE": "1"}
    round_file = tmp_path / "r.yaml"
    round_file.write_text((ROOT / "missions/rounds/rulebook-example.yaml").read_text())
    result = subprocess.run(
        [sys.executable, "-I", "-c",
         "import sys; sys.path[:0] = sys.argv[1].split(':'); import synergy_forge, "
         "synergy_forge.cli as c; print(synergy_forge.__file__); sys.argv = ['sf', 'judge', "
         "sys.argv[2]]; c.main()", env["PYTHONPATH"], str(round_file)],
        cwd=tmp_path, capture_output=True, text=True, env=env,
    )
    assert result.returncode == 0, result.stderr
    assert str(target) in result.stdout.splitlines()[0]
    assert "Round: success" in result.stdout
    # The installed `synergy-forge` program: its script runs __main__.run (Ctrl-C handled from
    # the first import, exit 130 every time).
    script = target / "bin" / "synergy-forge"
    assert "from synergy_forge.__main__ import run" in script.read_text()
    version = subprocess.run([sys.executable, str(script), "--version"], cwd=tmp_path,
                             capture_output=True, text=True, env=env)
    assert version.returncode == 0 and "synergy-forge" in version.stdout, version.stderr
