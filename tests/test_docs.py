"""Every code example of the documentation site (docs/) runs here.

Per page, in page order, in one namespace (a page reads like a notebook):

- a fenced ``python`` block with ``>>>`` prompts is a doctest (its printed
  output is compared, ELLIPSIS and NORMALIZE_WHITESPACE on);
- a fenced ``python`` block without prompts is executed;
- a fenced ``console`` block: each ``$ bitgraph ...`` line runs the
  command line (``bitgraph.cli.main``) and must exit 0; other ``$`` lines
  are not allowed there (install lines go in ``bash`` blocks, not run);
- a row of a table whose last header is ``bitgraph`` (the migration
  tables): each inline code span of that last cell that is Python syntax
  is executed, so every row says something true of the current code.

CPU only, small graphs. The generated pages (docs/_generated) and the
gallery (notebooks/, run by its own test) are not scanned here.
"""

from __future__ import annotations

import ast
import contextlib
import doctest
import io
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SKIP_DIRS = {"_build", "_generated", "gallery", "_ext"}

FENCE_OPEN = re.compile(r"^(`{3,})(\w+)\s*$")
SPAN = re.compile(r"(`+)\s?(.+?)\s?\1")


def pages():
    out = []
    for p in sorted(DOCS.rglob("*.md")):
        rel = p.relative_to(DOCS)
        if rel.parts[0] in SKIP_DIRS or rel.name == "README.md":
            continue
        out.append(p)
    return out


def items(text: str):
    """(kind, line number, payload) in page order: ("fence", n, (lang, code))
    and ("row", n, last cell) for rows of tables whose last header is bitgraph."""
    lines = text.splitlines()
    i = 0
    in_table = False
    while i < len(lines):
        line = lines[i]
        m = FENCE_OPEN.match(line)
        if m:
            ticks, lang = m.group(1), m.group(2)
            start = i + 1
            j = start
            while j < len(lines) and lines[j].rstrip() != ticks:
                j += 1
            yield "fence", start, (lang, "\n".join(lines[start:j]) + "\n")
            i = j + 1
            in_table = False
            continue
        if line.startswith("|"):
            cells = _cells(line)
            if not in_table:
                in_table = cells[-1].strip().lower() == "bitgraph"
                table_header = True
            elif table_header:  # the |---| line
                table_header = False
            else:
                yield "row", i + 1, cells[-1]
        else:
            in_table = False
        i += 1


def _cells(line: str):
    body = line.strip().strip("|")
    return [c.replace("\\|", "|") for c in re.split(r"(?<!\\)\|", body)]


def code_spans(cell: str):
    """Inline code spans of a cell that are Python statements; a bare name
    (`extract`, `plus_times`) names a thing in prose and is not run."""
    out = []
    for m in SPAN.finditer(cell):
        code = m.group(2).strip()
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue  # a fragment such as `mask=`: prose, not an example
        if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr) \
                and isinstance(tree.body[0].value, ast.Name):
            continue
        out.append(code)
    return out


def run_page(path: Path) -> dict:
    """Run every example of a page; return counts by kind."""
    path = Path(path).resolve()
    text = path.read_text()
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    ns = {"__name__": "__docs__"}
    counts = {"doctest": 0, "block": 0, "command": 0, "cell": 0}
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    parser = doctest.DocTestParser()
    for kind, line, payload in items(text):
        if kind == "fence":
            lang, code = payload
            if lang in ("python", "pycon"):
                if any(l.lstrip().startswith(">>>") for l in code.splitlines()):
                    test = parser.get_doctest(code, ns, f"{rel}:{line}", str(rel), line - 1)
                    report = io.StringIO()
                    result = runner.run(test, out=report.write, clear_globs=False)
                    ns.update(test.globs)
                    assert result.failed == 0, f"{rel}:{line}\n{report.getvalue()}"
                    counts["doctest"] += result.attempted
                else:
                    exec(compile(code, f"{rel}:{line}", "exec"), ns)
                    counts["block"] += 1
            elif lang == "console":
                for k, cmd in enumerate(code.splitlines()):
                    if not cmd.startswith("$ "):
                        continue  # output shown in the page
                    argv = shlex.split(cmd[2:], comments=True)
                    assert argv[0] == "bitgraph", (
                        f"{rel}:{line + k}: console blocks hold bitgraph commands only: {cmd}")
                    from bitgraph.cli import main

                    out = io.StringIO()
                    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                        rc = main(argv[1:])
                    assert rc == 0, f"{rel}:{line + k}: {cmd} exited {rc}\n{out.getvalue()}"
                    counts["command"] += 1
        else:
            for code in code_spans(payload):
                try:
                    exec(compile(code, f"{rel}:{line}", "exec"), ns)
                except Exception as e:  # noqa: BLE001 (name the row)
                    raise AssertionError(f"{rel}:{line}: `{code}` raised {e!r}") from e
                counts["cell"] += 1
    return counts


PAGES = pages()


@contextlib.contextmanager
def _networkx_config_kept():
    """A page may change ``nx.config`` as a user would; other tests must
    not see it."""
    try:
        import networkx as nx
    except ImportError:
        yield
        return
    import copy

    saved = {k: copy.deepcopy(getattr(nx.config, k))
             for k in ("backend_priority", "warnings_to_ignore", "cache_converted_graphs")}
    backend = dict(nx.config.backends.bitgraph) if "bitgraph" in nx.config.backends else None
    try:
        yield
    finally:
        for k, v in saved.items():
            setattr(nx.config, k, v)
        if backend is not None:
            for k, v in backend.items():
                setattr(nx.config.backends.bitgraph, k, v)


@pytest.mark.parametrize("path", PAGES, ids=[str(p.relative_to(DOCS)) for p in PAGES])
def test_page_examples(path):
    with _networkx_config_kept():
        counts = run_page(path)
    text = path.read_text()
    if "```python" in text or "```console" in text:
        assert sum(counts.values()) > 0, f"{path}: examples found but none ran"


def test_migration_tables_run_their_rows():
    """Each migration table's bitgraph column is code that runs: most rows
    of each table hold at least one span that executed."""
    path = DOCS / "migration.md"
    rows = [payload for kind, _, payload in items(path.read_text()) if kind == "row"]
    with_code = [r for r in rows if code_spans(r)]
    assert len(rows) >= 30 and len(with_code) >= 0.8 * len(rows), (len(rows), len(with_code))
    assert run_page(path)["cell"] >= len(with_code)


def test_scanner_finds_each_kind():
    """The scanner itself: a doctest, a block, a command and a table cell."""
    page = ("x\n\n```python\n>>> 1 + 1\n2\n```\n\n```python\ny = 3\n```\n\n"
            "| theirs | bitgraph |\n|---|---|\n| `f()` | `y + 1`, `mask=`, `mxv` |\n\n"
            "```console\n$ bitgraph --version\n```\n")
    kinds = [(k, p) for k, _, p in items(page)]
    assert [k for k, _ in kinds] == ["fence", "fence", "row", "fence"]
    assert code_spans(kinds[2][1]) == ["y + 1"]


@pytest.mark.parametrize("page", [
    "```python\n>>> 1 + 1\n3\n```\n",                        # wrong output
    "```python\nraise ValueError('x')\n```\n",                   # a block that raises
    "| theirs | bitgraph |\n|---|---|\n| `f()` | `1 / 0` |\n",   # a row that raises
    "```console\n$ bitgraph bfs grid:2x2 --method nope -q\n```\n",  # a command that fails
    "```console\n$ pip install bitgraph\n```\n",                   # not a bitgraph command
])
def test_a_wrong_example_fails(tmp_path, page):
    path = tmp_path / "page.md"
    path.write_text(page)
    with pytest.raises((AssertionError, ValueError)):
        run_page(path)


def test_every_public_algorithm_is_in_the_api_reference():
    """A new algorithm gets its reference entry (else the -W docs build fails in CI only)."""
    import bitgraph.algorithms as algorithms

    page = (ROOT / "docs" / "api" / "algorithms.md").read_text()
    missing = [name for name in algorithms.__all__
               if f":: bitgraph.algorithms.{name}\n" not in page]
    assert not missing, f"docs/api/algorithms.md lacks {missing}"
