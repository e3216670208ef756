"""The schemas work in any validator with no network and no extra flags (docs/decisions.md)."""

from __future__ import annotations

import json
import os
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from synergy_forge.resources import definitions_dir, schemas_dir, starter_campaign

ROOT = Path(__file__).resolve().parents[2]
CHECK = Path(sys.executable).parent / "check-jsonschema"
# Any fetch would go through this proxy, which nothing listens on: the run fails if it tries.
OFFLINE = {**os.environ, "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
           "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9"}

needs_check = pytest.mark.skipif(not CHECK.exists() and not shutil.which("check-jsonschema"),
                                 reason="check-jsonschema is not installed (pip install "
                                 "'synergy-forge[test]')")


def check_jsonschema(kind: str, files: list[Path], cwd: Path) -> subprocess.CompletedProcess:
    command = str(CHECK) if CHECK.exists() else "check-jsonschema"
    return subprocess.run([command, "--schemafile", str(schemas_dir() / f"{kind}.schema.json"),
                           *map(str, files)], capture_output=True, text=True, env=OFFLINE,
                          cwd=cwd, timeout=120)


def check_jsonschema_here(kind: str, files: list[Path], monkeypatch) -> tuple[int, str]:
    """check-jsonschema's own command line run in this process, offline as above: its exit
    code and output."""
    from check_jsonschema.cli.main_command import main as check

    for name, value in OFFLINE.items():
        monkeypatch.setenv(name, value)
    result = CliRunner().invoke(check, ["--schemafile", str(schemas_dir() / f"{kind}.schema.json"),
                                        *map(str, files)])
    return result.exit_code, result.output


@needs_check
def test_check_jsonschema_validates_the_starter_campaign_offline_with_no_extra_flags(tmp_path,
                                                                                      monkeypatch):
    # In this process (six interpreters' starts less): whether a schema's references resolve
    # without the network is the same there; the next test runs the real program.
    monkeypatch.chdir(tmp_path)
    starter = starter_campaign()
    for kind, files in (
        ("mission", sorted((starter / "missions").glob("*.yaml"))),
        ("campaign", [starter / "campaign.yaml"]),
        ("goal", sorted((starter / "goals").glob("*.yaml"))),
        ("challenge", sorted((starter / "challenges").glob("*.yaml"))),
        ("round", sorted((starter.parent / "rounds").glob("*.yaml"))),
        ("action", sorted((definitions_dir() / "actions").glob("*.yaml"))),
    ):
        code, output = check_jsonschema_here(kind, files, monkeypatch)
        assert code == 0, (kind, output[-2000:])
        assert "ok -- validation done" in output


@needs_check
def test_check_jsonschema_offline_still_finds_an_error_in_a_shared_definition(tmp_path):
    # The id's pattern lives in common.schema.json: reaching it proves the $ref resolved.
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: Bad_Id\nnumber: 1\ntitle: x\nstars: 1\nrounds: 1\nlives: 1\n",
                   encoding="utf-8")
    result = check_jsonschema("mission", [bad], tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "$.id: 'Bad_Id' does not match" in result.stdout


def test_every_schema_carries_the_current_common_definitions_and_keeps_its_id():
    bundle = runpy.run_path(str(ROOT / ".ci" / "bundle_schemas.py"))
    for path in sorted(schemas_dir().glob("*.schema.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["$id"] == f"https://synergy-forge.dev/schemas/{path.name}"
        if path.name != "common.schema.json":
            text = path.read_text(encoding="utf-8")
            assert bundle["bundled"](text) == text, \
                f"{path.name} is out of date: run python .ci/bundle_schemas.py"
