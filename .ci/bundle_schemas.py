"""Embed common.schema.json into every other schema, so that any validator works offline.

    python .ci/bundle_schemas.py          (rewrites schemas/*.schema.json in place)
    python .ci/bundle_schemas.py --check  (exit 1 when a schema's copy is out of date)

Each schema keeps its `$id` (https://synergy-forge.dev/schemas/…, what editors and SchemaStore
use) and its `$ref`s to `common.schema.json#/$defs/…`. Those resolve against the `$id`, that is
to the network, unless the validator already holds a schema with that `$id`: so each schema
carries a copy of common.schema.json, with its own `$id`, under `$defs.common` (JSON Schema
2020-12's compound schema document, §9.3). common.schema.json stays the one place to edit.
Standard library only.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"
MARK = '  "$defs": {"common": '


def _flat(node: object, defs: dict) -> object:
    """`node` with common's own `#/$defs/…` refs replaced by what they name.

    yaml-language-server cannot follow a `#/…` ref inside an embedded resource (it looks in the
    outer document), so the copy holds no ref at all; the siblings of a ref (title,
    description, examples) still describe its use.
    """
    if isinstance(node, list):
        return [_flat(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target = _flat(defs[ref.removeprefix("#/$defs/")], defs)
        assert isinstance(target, dict)
        return {**target, **{k: _flat(v, defs) for k, v in node.items() if k != "$ref"}}
    return {k: _flat(v, defs) for k, v in node.items()}


def common_copy() -> dict:
    common = json.loads((SCHEMAS / "common.schema.json").read_text(encoding="utf-8"))
    common.pop("$schema", None)  # an embedded resource shares its parent's dialect
    common["$defs"] = _flat(common["$defs"], common["$defs"])
    return common


def embedded() -> str:
    body = json.dumps(common_copy(), indent=2, ensure_ascii=False).replace("\n", "\n  ")
    return f"{MARK}{body}}}\n"


def bundled(text: str) -> str:
    """`text` (one schema file) with the current copy of common.schema.json at its end."""
    data = json.loads(text)
    own = {k: v for k, v in data.get("$defs", {}).items() if k != "common"}
    if own:  # the schema has definitions of its own (the game log's records): one $defs
        data["$defs"] = {**own, "common": common_copy()}
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    head = text.split(MARK, 1)[0].rstrip()
    head = head.removesuffix("}").rstrip().removesuffix(",")
    return f"{head},\n{embedded()}}}\n"


def main() -> int:
    stale = []
    for path in sorted(SCHEMAS.glob("*.schema.json")):
        if path.name == "common.schema.json":
            continue
        text = path.read_text(encoding="utf-8")
        fresh = bundled(text)
        if fresh != text:
            stale.append(path.name)
            if "--check" not in sys.argv:
                path.write_text(fresh, encoding="utf-8")
    if stale and "--check" in sys.argv:
        print(f"out of date: {', '.join(stale)}; run python .ci/bundle_schemas.py")
        return 1
    for name in stale:
        print(f"bundled {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
