"""Sphinx configuration: Sphinx + MyST (markdown pages) + autodoc.

The generated pages (settings, the command line, the NetworkX function
list, the benchmark results) and the gallery's copies of notebooks/*.ipynb
are written by ``_ext/bitgraph_docs.py`` before the sources are read.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE / "_ext"))

import bitgraph  # noqa: E402
import bitgraph_docs  # noqa: E402

bitgraph_docs.generate(HERE)

project = "bitgraph"
author = "the bitgraph authors"
copyright = "the bitgraph authors; BSD-3-Clause"
release = version = bitgraph.__version__

extensions = [
    "myst_nb",  # MyST markdown pages and the gallery's notebooks (not executed here)
    "sphinx.ext.autodoc",
    "bitgraph_docs",  # _ext/: docstrings as prose (see its setup)
]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "README.md", "_generated", "**/.ipynb_checkpoints"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
# the notebooks are run by the gallery's own CI step, and committed with outputs
nb_execution_mode = "off"
# notebooks (written elsewhere) may start at a level-2 heading or carry
# widget outputs; neither is an error of the site
suppress_warnings = ["myst.header", "mystnb.unknown_mime_type"]

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": True}

# every cross-reference must resolve (bitgraph.X finds its home: _ext/bitgraph_docs._alias);
# these name things outside the site, or private helpers a docstring mentions
nitpicky = True
nitpick_ignore = [
    ("py:class", "numpy.dtype"),
    ("py:class", "numpy.ndarray"),
    ("py:class", "bitgraph.formats.csr.CSR"),  # the plain tuple kernels take
    ("py:class", "argparse.ArgumentParser"),
    # helpers a docstring names by their module-local name
    ("py:func", "long_reach"),
    ("py:func", "reach"),
    ("py:func", "default_delta"),
    ("py:func", "bitgraph.io.atomic.atomic_write"),
]
nitpick_ignore_regex = [
    ("py:.*", r"(bitgraph\..*\.)?_.*"),              # private names
    ("py:class", r"bitgraph\.matrix\._MatrixOps|bitgraph\._container\..*"),
]

html_theme = "furo"
html_title = f"bitgraph {release}"
html_static_path = ["_static"]
html_css_files = ["bitgraph.css"]
# CI has no network guarantee: the link check covers the site's own links
linkcheck_ignore = [r"https?://.*"]
