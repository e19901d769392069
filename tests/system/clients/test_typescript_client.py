"""The TypeScript client (``clients/typescript``), generated from the OpenAPI document
alone: its schema is what openapi-typescript makes of the committed document, it and a
program calling every operation compile in strict mode, and it plays the game end to
end against a live server.

They need the client's npm packages: ``npm ci --prefix clients/typescript``. Without
them the tests skip, and fail under CI (``CI=true``).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT, ServerProcess

CLIENT = ROOT / "clients" / "typescript"
BIN = CLIENT / "node_modules" / ".bin"
SCHEMA = CLIENT / "src" / "schema.d.ts"
EVERY_OPERATION = CLIENT / "test" / "every-operation.ts"

# What a program that reads answers "without casts" may not contain: type assertions
# (`as T`, `<T>x`), non-null assertions (`x!`), `any`, and comments that silence the
# compiler. Found in the syntax tree by TypeScript itself, not by a regular expression.
_ESCAPES = """
const ts = require("typescript");
const file = process.argv[1];
const source = ts.createSourceFile(
  file, require("fs").readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true
);
const found = [];
const where = (node) => source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
(function visit(node) {
  if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) found.push(["cast", where(node)]);
  if (ts.isNonNullExpression(node)) found.push(["non-null assertion", where(node)]);
  if (node.kind === ts.SyntaxKind.AnyKeyword) found.push(["any", where(node)]);
  ts.forEachChild(node, visit);
})(source);
const text = source.getFullText();
for (const match of text.matchAll(/@ts-(ignore|expect-error|nocheck)|eslint-disable/g)) {
  found.push([match[0], text.slice(0, match.index).split("\\n").length]);
}
console.log(JSON.stringify(found));
"""


def _node() -> str:
    """The node executable, once the client's packages are installed."""
    node = shutil.which("node")
    missing = (
        "Node.js is not on PATH"
        if node is None
        else "clients/typescript/node_modules is missing"
        if not (BIN / "tsc").exists()
        else None
    )
    if missing is None and node is not None:
        return node
    message = f"{missing}: run `npm ci --prefix clients/typescript`"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def _run(command: list[str], timeout: float, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        command,
        cwd=CLIENT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{shlex.join(command)} failed:\n{output}"
    return output


def test_the_committed_schema_is_what_openapi_typescript_makes_of_the_document(
    tmp_path: Path,
) -> None:
    _node()
    # The generate script, writing elsewhere: the same generator and the same flags.
    script = json.loads((CLIENT / "package.json").read_text())["scripts"]["generate"]
    command = shlex.split(script)
    assert command[0] == "openapi-typescript" and "-o" in command, script
    command[0] = str(BIN / "openapi-typescript")
    command[command.index("-o") + 1] = str(tmp_path / "schema.d.ts")
    _run(command, timeout=120)
    generated = (tmp_path / "schema.d.ts").read_text()
    assert generated == SCHEMA.read_text(), (
        "clients/typescript/src/schema.d.ts drifted from openapi/openapi.json: "
        "run `npm run generate --prefix clients/typescript` and commit the result"
    )


def test_the_client_and_a_program_calling_every_operation_compile_in_strict_mode() -> None:
    _node()
    shown = json.loads(_run([str(BIN / "tsc"), "--showConfig", "-p", "."], timeout=60))
    options = shown["compilerOptions"]
    for flag in ("strict", "noUncheckedIndexedAccess", "exactOptionalPropertyTypes"):
        assert options.get(flag) is True, flag
    files = {Path(f).as_posix().removeprefix("./") for f in shown["files"]}
    assert {"src/index.ts", "src/schema.d.ts", "test/every-operation.ts"} <= files
    # Errors here are lines a client developer writes against the document that do not
    # compile: the document says something other than what the server does.
    _run([str(BIN / "tsc"), "--noEmit", "-p", "."], timeout=300)


def test_the_program_calling_every_operation_reads_answers_without_casts() -> None:
    node = _node()
    found = json.loads(_run([node, "-e", _ESCAPES, str(EVERY_OPERATION)], timeout=60))
    assert found == [], f"test/every-operation.ts escapes the types: {found}"


def test_the_client_plays_end_to_end_against_a_live_server(two_workers: ServerProcess) -> None:
    node = _node()
    _run([str(BIN / "tsc"), "-p", "tsconfig.e2e.json"], timeout=300)
    try:
        output = _run(
            [node, "build/e2e/test/e2e.js"],
            timeout=300,
            env={"SHUTBOX_BASE_URL": two_workers.url},
        )
    except AssertionError as failure:
        output = two_workers.output()[-4000:]
        raise AssertionError(f"{failure}\nserver output:\n{output}") from None
    for scenario in ("Daily Dice", "Friend Box", "Solo with hints", "device transfer"):
        assert f"ok {scenario}" in output, output
