"""Pages generated from the code at build time, so they cannot drift from it.

``generate(docs_dir)`` writes ``docs/_generated/*.md`` (included by the
pages) and copies ``notebooks/*.ipynb`` into ``docs/gallery/``:

- ``settings.md``: every family of ``bitgraph.settings`` with each field's
  default and documented rule (``settings.table()``, as
  ``python -m bitgraph.kernels --settings`` prints it);
- ``cli.md``: ``bitgraph --help`` and each command's help, from
  ``bitgraph.cli.build_parser()``;
- ``nx_functions.md``: the NetworkX backend's functions, from
  ``bitgraph.nx.FUNCTIONS`` and ``INFO``;
- ``operators.md``: the named semirings, monoids, binary and unary ops;
- ``performance.md``: ``benchmarks/RESULTS.md`` with its title dropped.
"""

from __future__ import annotations

import contextlib
import re
import inspect
import os
import shutil
from pathlib import Path


def _cell(text) -> str:
    """A markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _code(text) -> str:
    text = str(text)
    tick = "``" if "`" in text else "`"
    pad = " " if "`" in text else ""
    return f"{tick}{pad}{text}{pad}{tick}".replace("|", "\\|")


def settings_md() -> str:
    from bitgraph import settings

    s = settings.Settings()
    rows = settings.table(s)
    out = ["<!-- generated from bitgraph.settings by docs/_ext/bitgraph_docs.py -->", ""]
    for family in settings.family_names():
        obj = getattr(s, family)
        doc = inspect.cleandoc(type(obj).__doc__ or "").split("\n\n")[0]
        out += [f"### `{family}` ({type(obj).__name__})", "", " ".join(doc.split()), "",
                "| field | default | rule |", "|---|---|---|"]
        for fam, name, value, rule in rows:
            if fam == family:
                out.append(f"| `{name}` | {_code(repr(value))} | {_cell(rule)} |")
        out.append("")
    return "\n".join(out)


@contextlib.contextmanager
def _columns(n: int):
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(n)
    try:
        yield
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old


def cli_md() -> str:
    import argparse

    from bitgraph.cli import build_parser

    with _columns(96):
        top = build_parser()
        out = ["<!-- generated from bitgraph.cli.build_parser() by docs/_ext/bitgraph_docs.py -->",
               "", "### `bitgraph --help`", "", "```text", top.format_help().rstrip(), "```", ""]
        sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
        for name, parser in sub.choices.items():
            out += [f"### `bitgraph {name}`", "", "```text", parser.format_help().rstrip(), "```", ""]
    return "\n".join(out)


def nx_functions_md() -> str:
    from bitgraph import nx as bnx

    names = sorted(bnx.FUNCTIONS)
    out = ["<!-- generated from bitgraph.nx.FUNCTIONS by docs/_ext/bitgraph_docs.py -->", "",
           f"{len(names)} functions.", "",
           "| function | module | note | extra parameters |", "|---|---|---|---|"]
    for name in names:
        f = bnx.FUNCTIONS[name]
        info = bnx.INFO.get(name, {})
        url = info.get("url")
        label = f"[`{name}`]({url})" if url else f"`{name}`"
        extra = info.get("extra_parameters") or {}
        extra_txt = "; ".join(f"`{k}`: {_cell(v)}" for k, v in extra.items())
        out.append(f"| {label} | `{f.__module__}` | {_cell(info.get('note', ''))} | {extra_txt} |")
    out.append("")
    return "\n".join(out)


def operators_md() -> str:
    from bitgraph import semiring as sr

    out = ["<!-- generated from bitgraph.semiring by docs/_ext/bitgraph_docs.py -->", ""]
    groups = [("Semirings", "bg.semiring", sr.SEMIRINGS), ("Monoids", "bg.monoid", sr.MONOIDS),
              ("Binary operators", "bg.binary", sr.BINARY_OPS),
              ("Unary operators", "bg.unary", sr.UNARY_OPS)]
    for title, where, table in groups:
        names = sorted(table)
        out += [f"**{title}** (`{where}.<NAME>`, `{where}.<name>`, or the string `\"<name>\"`): "
                + ", ".join(f"`{n}`" for n in names) + ".", ""]
    return "\n".join(out)


def performance_md(root: Path) -> str:
    text = (root / "benchmarks" / "RESULTS.md").read_text()
    lines = text.splitlines()
    if lines and lines[0].startswith("# "):  # the page has its own title
        lines = lines[1:]
    return "<!-- generated from benchmarks/RESULTS.md by docs/_ext/bitgraph_docs.py -->\n" + \
        "\n".join(lines) + "\n"


def _write(path: Path, text: str):
    if not path.exists() or path.read_text() != text:  # unchanged: Sphinx keeps its cache
        path.write_text(text)


def generate(docs: Path):
    docs = Path(docs)
    root = docs.parent
    gen = docs / "_generated"
    gen.mkdir(exist_ok=True)
    _write(gen / "settings.md", settings_md())
    _write(gen / "cli.md", cli_md())
    _write(gen / "nx_functions.md", nx_functions_md())
    _write(gen / "operators.md", operators_md())
    _write(gen / "performance.md", performance_md(root))
    gallery = docs / "gallery"
    gallery.mkdir(exist_ok=True)
    wanted = {p.name for p in (root / "notebooks").glob("*.ipynb")}
    for old in gallery.glob("*.ipynb"):
        if old.name not in wanted:
            old.unlink()
    for name in sorted(wanted):
        src, dst = root / "notebooks" / name, gallery / name
        if not dst.exists() or dst.read_bytes() != src.read_bytes():
            shutil.copyfile(src, dst)


# ------------------------------------------------------------ the extension

_LITERAL = re.compile(r"(``.+?``)")


def _escape_bars(line: str) -> str:
    """``|L(u)|`` in prose is a set size, not an rST substitution: escape the
    bars outside inline literals."""
    parts = _LITERAL.split(line)
    return "".join(p if p.startswith("``") else p.replace("|", "\\|") for p in parts)


def _prose_docstring(app, what, name, obj, options, lines):
    """Our docstrings are prose with doctest examples: keep their bars
    literal (doctest lines and literal blocks are left as written)."""
    in_literal = False
    indent = 0
    for k, line in enumerate(lines):
        stripped = line.lstrip()
        depth = len(line) - len(stripped)
        if in_literal and stripped and depth <= indent:
            in_literal = False
        if stripped.startswith((">>>", "...")) or in_literal:
            continue
        lines[k] = _escape_bars(line)
        if line.rstrip().endswith("::"):
            in_literal, indent = True, depth


# A public name is documented once, where it is defined (bitgraph.errors.FormatError,
# bitgraph.ops.mxv); docstrings also say bitgraph.FormatError or bitgraph.mxv.
_HOMES = ("bitgraph", "bitgraph.errors", "bitgraph.ops", "bitgraph.device",
          "bitgraph.algorithms", "bitgraph.io", "bitgraph.formats.reorder")


def _alias(app, env, node, contnode):
    """Resolve ``bitgraph.X`` to the home where X is documented."""
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    if not target.startswith("bitgraph."):
        return None
    name = target.rsplit(".", 1)[-1]
    domain = env.get_domain("py")
    objects = domain.objects
    for home in _HOMES:
        full = f"{home}.{name}"
        if full != target and full in objects:
            from sphinx.util.nodes import make_refnode

            entry = objects[full]
            return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id,
                                contnode, full)
    return None


def setup(app):
    app.connect("autodoc-process-docstring", _prose_docstring)
    app.connect("missing-reference", _alias)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
