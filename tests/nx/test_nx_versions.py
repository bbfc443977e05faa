"""The backend against the installed NetworkX's signatures and version
differences (3.6 and 3.7 are both supported; CI installs 3.6, the GPU
machine 3.7).

Every function of ``bitgraph.nx.FUNCTIONS`` must take every parameter of
the installed NetworkX function of the same name, so that a NetworkX release
that adds one fails here rather than with a TypeError in a user's call. The
rest checks, under whichever NetworkX is installed, the behaviours that
differ between 3.6 and 3.7.
"""

from __future__ import annotations

import inspect
import math
import re
import warnings

import networkx as nx
import numpy as np
import pytest
from conftest_backend import nx_graphs
from hypothesis import given, settings
from hypothesis import strategies as st

from bitgraph.nx import FUNCTIONS, BackendInterface
from bitgraph.nx import centrality as C
from bitgraph.nx import measures as M
from bitgraph.nx import paths as P
from bitgraph.nx import structure as S
from bitgraph.nx.convert import from_networkx

SETTINGS = settings(max_examples=40, deadline=None)
NX37 = M._nx_version() >= (3, 7)

# Parameters whose default here is None, meaning "the installed NetworkX's
# default" (read from its signature at call time).
INSTALLED_DEFAULT = {("hits", "method")}
# NetworkX's dispatcher parameters, not the algorithm's
DISPATCH = {"backend", "backend_kwargs"}


def _nx_parameters(name):
    func = getattr(nx, name)
    sig = inspect.signature(getattr(func, "orig_func", func))
    return [p for p in sig.parameters.values() if p.name not in DISPATCH]


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_signature_takes_installed_networkx_parameters(name):
    ours = inspect.signature(FUNCTIONS[name]).parameters
    theirs = _nx_parameters(name)
    for p in theirs:
        assert p.name in ours, f"{name}: NetworkX {nx.__version__} has {p} and bitgraph lacks it"
        q = ours[p.name]
        assert q.kind == p.kind, f"{name}({p.name}): kind {q.kind} here, {p.kind} in NetworkX"
        if (name, p.name) in INSTALLED_DEFAULT:
            assert q.default is None, (name, p.name, q.default)
        else:
            assert q.default == p.default or (q.default is p.default), (
                f"{name}({p.name}): default {q.default!r} here, {p.default!r} in NetworkX")
    # the dispatcher passes positional arguments by position
    pos = [p.name for p in theirs if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert [n for n in ours if ours[n].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD][:len(pos)] \
        == pos, name
    # a parameter of ours that this NetworkX lacks (a newer one's) has a default
    names = {p.name for p in theirs}
    for q in ours.values():
        if q.name not in names:
            assert q.default is not q.empty, (name, q.name)


def test_signature_check_catches_a_new_parameter(monkeypatch):
    # the test above fails for a NetworkX that adds a parameter
    def hits(G, max_iter=100, tol=1.0e-8, nstart=None, normalized=True, *, method=None,
             new_option=False):
        pass

    fake = type("F", (), {"orig_func": staticmethod(hits)})()
    monkeypatch.setattr(nx, "hits", fake)
    with pytest.raises(AssertionError, match="new_option"):
        test_signature_takes_installed_networkx_parameters("hits")


def test_nx_version_and_default():
    assert M._nx_version() == tuple(int(x) for x in re.findall(r"\d+", nx.__version__)[:2])
    assert C._hits_method(None) == ("power_iteration" if NX37 else "svd")
    assert C._hits_method("svd") == "svd"
    assert M._nx_default("hits", "no_such_parameter", "fallback") == "fallback"


# --- hits ------------------------------------------------------------------------------

def _hits_power_iteration_reference(G, max_iter=100, tol=1.0e-8, nstart=None, normalized=True):
    """NetworkX 3.7's power iteration (networkx/algorithms/link_analysis/
    hits_alg.py), here so that it checks the backend under 3.6 too."""
    N = len(G)
    if N == 0:
        return {}, {}
    nodelist = list(G)
    A = nx.adjacency_matrix(G, nodelist=nodelist, dtype=float)
    if nstart is None:
        h = np.full(N, 1.0 / N)
    else:
        missing = G.nodes - nstart.keys()
        if missing:
            raise nx.NetworkXError(f"nstart must have a value for every node; missing: {missing}")
        h = np.array([nstart[node] for node in nodelist], dtype=float)
        s = h.sum()
        if s == 0:
            raise nx.NetworkXError("nstart values must not sum to zero")
        h = h / s
    if max_iter <= 0:
        raise nx.PowerIterationFailedConvergence(max_iter)
    for _ in range(max_iter):
        hlast = h
        a = h @ A
        h = A @ a
        h /= h.max()
        if np.abs(h - hlast).sum() < tol:
            break
    else:
        raise nx.PowerIterationFailedConvergence(max_iter)
    if normalized:
        h /= h.sum()
        a /= a.sum()
    else:
        a /= a.max()
    return dict(zip(nodelist, map(float, h))), dict(zip(nodelist, map(float, a)))


def _outcome(f, *args, **kwargs):
    """("ok", result) or (exception class, message); NaN warnings silenced
    (both sides divide 0 by 0 on an edgeless graph)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        try:
            return "ok", f(*args, **kwargs)
        except (nx.NetworkXException, ValueError) as e:
            return type(e), str(e)


def _same_hits(got, want, rel=1e-9, abs_=1e-12):
    assert got[0] == want[0], (got, want)
    if got[0] != "ok":
        assert got[1] == want[1]
        return
    for g, w in zip(got[1], want[1]):
        assert list(g) == list(w)
        for k in w:
            assert type(g[k]) is float
            assert math.isclose(g[k], w[k], rel_tol=rel, abs_tol=abs_), (k, g[k], w[k])


@SETTINGS
@given(nx_graphs(), st.booleans(), st.sampled_from([None, "ones", "drawn", "missing", "zero"]),
       st.sampled_from([100, 3, 0]), st.data())
def test_hits_power_iteration(G, normalized, start, max_iter, data):
    nodes = list(G)
    nstart = {
        None: None, "ones": dict.fromkeys(reversed(nodes), 1),
        "drawn": {v: data.draw(st.floats(0, 5)) for v in nodes},
        "missing": {v: 1.0 for v in nodes[1:]},
        "zero": dict.fromkeys(nodes, 0.0),
    }[start]
    kw = dict(max_iter=max_iter, nstart=nstart, normalized=normalized)
    got = _outcome(C.hits, from_networkx(G, {"weight": 1}), method="power_iteration", **kw)
    # both stop at the first step whose change is below tol: the sums' order
    # may move that step on a borderline case, never the answer beyond 1e-7
    want = _outcome(_hits_power_iteration_reference, G, **kw)
    if got[0] == "ok" and want[0] is nx.PowerIterationFailedConvergence or \
            want[0] == "ok" and got[0] is nx.PowerIterationFailedConvergence:
        return
    _same_hits(got, want, rel=1e-7)
    if NX37 and not G.is_multigraph():
        _same_hits(_outcome(nx.hits, G, backend="bitgraph", **kw), _outcome(nx.hits, G, **kw),
                   rel=1e-7)


def test_hits_power_iteration_edges():
    G = nx.DiGraph([(0, 1), (1, 2), (2, 0), (0, 2)])
    BG = from_networkx(G, {"weight": 1})
    ref = _hits_power_iteration_reference
    _same_hits(_outcome(C.hits, BG, method="power_iteration"), _outcome(ref, G))
    with pytest.raises(nx.PowerIterationFailedConvergence):
        C.hits(BG, method="power_iteration", max_iter=1)
    with pytest.raises(nx.NetworkXError, match=r"missing: \{2\}"):
        C.hits(BG, method="power_iteration", nstart={0: 1, 1: 1, 5: 1})
    # extra keys are ignored; ints are read as floats
    _same_hits(_outcome(C.hits, BG, method="power_iteration", nstart={0: 1, 1: 2, 2: 1, 9: 4}),
               _outcome(ref, G, nstart={0: 1, 1: 2, 2: 1, 9: 4}))
    # one node: a plain iteration (svd's ARPACK cannot take it)
    one = nx.DiGraph([(0, 0)])
    _same_hits(_outcome(C.hits, from_networkx(one), method="power_iteration"),
               _outcome(ref, one))
    assert C.hits(from_networkx(nx.DiGraph()), method="power_iteration") == ({}, {})
    with pytest.raises(ValueError, match="method not supported: arpack"):
        C.hits(BG, method="arpack")
    with pytest.raises(ValueError, match="method not supported"):
        C.hits(from_networkx(nx.DiGraph()), method="arpack")  # before anything else


def test_hits_default_method():
    G = nx.gnp_random_graph(30, 0.2, seed=5, directed=True)
    BG = from_networkx(G, {"weight": 1})
    default = C.hits(BG)
    named = C.hits(BG, method="power_iteration" if NX37 else "svd")
    assert default == named
    # the two methods differ beyond rounding when not normalized (a by its
    # maximum against unit 2-norm)
    svd = C.hits(BG, method="svd", normalized=False)
    pi = C.hits(BG, method="power_iteration", normalized=False)
    assert max(pi[1].values()) == 1.0 and not math.isclose(max(svd[1].values()), 1.0)
    # through the dispatcher, a call without method gets the installed default
    want = nx.hits(G)
    got = nx.hits(G, backend="bitgraph")
    # (3.6: ARPACK against our iteration, both stopped at tol=1e-8)
    _same_hits(("ok", got), ("ok", want), *((1e-12, 1e-15) if NX37 else (1e-5, 1e-7)))


def test_hits_can_run():
    one = nx.DiGraph([(0, 0)])
    svd_kw = {"method": "svd"}
    assert BackendInterface.can_run("hits", (one,), svd_kw) is not True
    assert BackendInterface.can_run("hits", (one,), {"method": "power_iteration"}) is True
    assert (BackendInterface.can_run("hits", (one,), {}) is True) == NX37
    assert BackendInterface.can_run("hits", (nx.MultiDiGraph([(0, 1)]),), {}) is not True


# --- rich club, distances, bfs_predecessors ------------------------------------------------

def test_rich_club_n_samples():
    G = nx.Graph([(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)])
    BG = from_networkx(G)
    assert S.rich_club_coefficient(BG, normalized=False, n_samples=0) == \
        nx.rich_club_coefficient(G, normalized=False)
    with pytest.raises(ValueError, match="n_samples must be >= 1"):
        S.rich_club_coefficient(BG, normalized=True, n_samples=0)
    with pytest.raises(Exception, match="self loops"):  # NetworkX checks loops first
        S.rich_club_coefficient(from_networkx(nx.Graph([(0, 0)])), n_samples=0)
    with pytest.raises(NotImplementedError):  # NetworkX's random swaps
        S.rich_club_coefficient(BG, normalized=True)
    assert BackendInterface.can_run("rich_club_coefficient", (G,), {"n_samples": 2}) is not True
    if NX37:  # (normalized=True is refused by can_run: NetworkX raises it there)
        with pytest.raises(ValueError, match="n_samples must be >= 1"):
            nx.rich_club_coefficient(G, n_samples=0)
        assert nx.rich_club_coefficient(G, normalized=False, n_samples=0, backend="bitgraph") \
            == nx.rich_club_coefficient(G, normalized=False, n_samples=0)


def _call(f, *args, **kwargs):
    try:
        return "ok", f(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - comparing NetworkX's errors
        return type(e), str(e)


@pytest.mark.parametrize("name,kw", [
    ("eccentricity", {}), ("eccentricity", {"v": []}), ("eccentricity", {"v": 3}),
    ("diameter", {}), ("diameter", {"usebounds": True}), ("diameter", {"e": {}}),
    ("radius", {}), ("radius", {"usebounds": True}), ("radius", {"e": {}}),
])
@pytest.mark.parametrize("directed", [False, True])
def test_distances_of_the_null_graph(name, kw, directed):
    G = nx.DiGraph() if directed else nx.Graph()
    got = _call(getattr(M, name), from_networkx(G), **kw)
    assert got == _call(getattr(nx, name), G, **kw)
    assert got == _call(getattr(nx, name), G, backend="bitgraph", **kw)
    if name == "eccentricity" and not kw:
        assert got == ((nx.NetworkXPointlessConcept, "Cannot compute eccentricity of a null graph.")
                       if NX37 else ("ok", {}))


def test_bfs_predecessors_deprecation():
    G = nx.path_graph(4)

    def warned(f, *args, **kwargs):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            result = list(f(*args, **kwargs))
        return result, [(x.category, str(x.message)) for x in w
                        if issubclass(x.category, DeprecationWarning)]

    got, got_w = warned(P.bfs_predecessors, from_networkx(G), 0)
    want, want_w = warned(nx.bfs_predecessors, G, 0)
    assert got == want == [(1, 0), (2, 1), (3, 2)]
    assert got_w == want_w
    assert bool(got_w) == NX37
