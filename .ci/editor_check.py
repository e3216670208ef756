"""Check the schemas in a real editor engine: yaml-language-server, spoken to over LSP.

    .ci/editor-check            (installs yaml-language-server from npm into a temporary folder)

Opens a broken mission inside the starter campaign (so its first line's relative `$schema`
resolves as it does for a user), then in a clone of a repository made by `synergy-forge new
campaign` (its first line names the campaign's own .synergy/schemas/, issue 22), and checks
each time that the server reports the schema errors at their line and column and offers the
built-in challenge ids as completions. Standard library only; not part of `.ci/run`, which
must not depend on npm.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BROKEN = "\n".join([
    "# yaml-language-server: $schema=../../../schemas/mission.schema.json",
    "id: editor-check",
    "number: 99",
    'title: {en: "Check", fr: "Vérif"}',
    "stars: 9",
    "rounds: 4",
    "livez: 3",
    "challenges:",
    "  - ",  # completion is asked here, line 9 column 5
    "",
])


class Server:
    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)
        self.inbox: queue.Queue = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            headers = {}
            while (line := stream.readline().decode().strip()):
                key, value = line.split(":", 1)
                headers[key.lower()] = value.strip()
            if not headers:
                return
            self.inbox.put(json.loads(stream.read(int(headers["content-length"]))))

    def _write(self, message: dict) -> None:
        data = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
        self.process.stdin.flush()

    def notify(self, method: str, params: dict) -> None:
        self._write({"method": method, "params": params})

    def request(self, method: str, params: dict) -> int:
        self.next_id += 1
        self._write({"id": self.next_id, "method": method, "params": params})
        return self.next_id

    def wait(self, wanted, seconds: float = 30) -> dict:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                message = self.inbox.get(timeout=0.5)
            except queue.Empty:
                continue
            if message.get("method") == "workspace/configuration":  # the server asks settings
                items = message["params"]["items"]
                self._write({"id": message["id"], "result": [SETTINGS["yaml"]] * len(items)})
            elif "id" in message and "method" in message:  # any other request: accept it
                self._write({"id": message["id"], "result": None})
            elif wanted(message):
                return message
        raise SystemExit("editor-check: no answer from yaml-language-server in time")


SETTINGS = {"yaml": {"validate": True, "completion": True, "hover": True,
                     "schemaStore": {"enable": False}}}


def check(server: Server, document: Path, line: str, root: Path) -> None:
    """Open a broken mission at `document` whose first line is `line`; exits on a failure."""
    text = BROKEN.replace(BROKEN.split("\n", 1)[0], line, 1)
    document.write_text(text, encoding="utf-8")
    try:
        uri = document.as_uri()
        server.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "yaml", "version": 1, "text": text}})
        published = server.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                                and m["params"]["uri"] == uri and m["params"]["diagnostics"])
        found = {(d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1,
                  d["message"]) for d in published["params"]["diagnostics"]}
        asked = server.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                           "position": {"line": 8, "character": 4}})
        answer = server.wait(lambda m: m.get("id") == asked)["result"]
        labels = {item["label"] for item in (answer.get("items", answer) if isinstance(
            answer, dict) else answer or [])}
    finally:
        document.unlink()
    print(f"-- {document.relative_to(root)} ({line.split('=', 1)[1]})")
    for at_line, column, message in sorted(found):
        print(f"{document.name}:{at_line}:{column}: {message}")
    print("completions at challenges[0]:", ", ".join(sorted(labels)))
    expected = [(5, 8, "above the maximum of 5"), (7, 1, "livez is not allowed"),
                (2, 1, 'Missing property "lives"')]
    missing = [e for e in expected
               if not any((at_line, column) == e[:2] and e[2] in message
                          for at_line, column, message in found)]
    if missing or not {"minimum-5", "goals-left", "double-plus-3"} <= labels:
        raise SystemExit(f"editor-check: FAILED (missing {missing}, completions {labels})")


def cloned_campaign(work: Path) -> Path:
    """A repository made by `new campaign`, committed, and cloned somewhere else."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GIT_AUTHOR_NAME": "e",
           "GIT_AUTHOR_EMAIL": "e@e", "GIT_COMMITTER_NAME": "e", "GIT_COMMITTER_EMAIL": "e@e"}
    origin = work / "my-missions"
    origin.mkdir()
    for command in (["git", "init", "-q"],
                    [sys.executable, "-m", "synergy_forge", "new", "campaign", "."],
                    ["git", "add", "-A"], ["git", "commit", "-qm", "start"]):
        subprocess.run(command, cwd=origin, env=env, check=True, capture_output=True)
    clone = work / "elsewhere" / "my-missions"
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], env=env, check=True)
    return clone


def main() -> None:
    server = Server(sys.argv[1:])
    try:
        first = server.request("initialize", {"processId": None, "rootUri": ROOT.as_uri(),
                                              "capabilities": {}})
        server.wait(lambda m: m.get("id") == first)
        server.notify("initialized", {})
        server.notify("workspace/didChangeConfiguration", {"settings": SETTINGS})
        check(server, ROOT / "missions" / "starter" / "missions" / "zz-editor-check.yaml",
              BROKEN.split("\n", 1)[0], ROOT)
        with tempfile.TemporaryDirectory() as work:
            clone = cloned_campaign(Path(work))
            made = (clone / "missions" / "01-my-first-mission.yaml").read_text().split("\n")[0]
            check(server, clone / "missions" / "zz-editor-check.yaml", made, Path(work))
    finally:
        server.process.kill()
    print("editor-check: passed")


if __name__ == "__main__":
    main()
