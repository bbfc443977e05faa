"""Execute ``notebooks/quickstart.ipynb`` (nbclient, in its own folder, as a
reader would) and fail on any cell error. Part of plain ``pytest``; the
notebook in the repository stays without outputs."""

import time
from pathlib import Path

import nbclient
import nbformat

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "quickstart.ipynb"


def test_quickstart_notebook_runs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, \
                "store the notebook with its outputs cleared"
    t0 = time.perf_counter()
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    client.execute()  # raises CellExecutionError naming the cell and the error
    seconds = time.perf_counter() - t0
    images = sum(1 for c in nb.cells if c.cell_type == "code" for o in c.outputs
                 if "image/png" in o.get("data", {}))
    assert images == 2, "the frontier-size and the B2SR-fill plots"
    out = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "frontier size per level" in out and "karate: 45 triangles" in out
    assert seconds < 120, f"the notebook took {seconds:.0f} s; keep it small"
