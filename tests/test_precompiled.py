"""The precompiled CUDA modules (``kernels/cuda/fatbin.py``): every
launcher's (source, names) is enumerable without a GPU and covered by
``modules.json``; the name matching of the build; the check that keeps a
stale fatbin out; and, where nvcc is on PATH, the build of small sources
(the wheel's, in ``.ci/package_smoke.sh``, holds them all)."""

from __future__ import annotations

import importlib
import json
import re
import shutil

import pytest

from bitgraph.kernels import cuda
from bitgraph.kernels.cuda import C_TYPES, fatbin, precompile

NVCC = shutil.which("nvcc")
FATBIN_MAGIC = bytes.fromhex("50ed55ba")  # a fatbin's header, little-endian 0xBA55ED50


def test_modules_json_is_current():
    # regenerate with: python -m bitgraph.kernels.cuda.precompile --specs
    assert fatbin.read_specs() == precompile.collect_specs()


def test_every_source_has_its_kernels():
    sources = sorted(p.name for p in cuda.HERE.glob("*.cu"))
    specs = fatbin.read_specs()
    assert sorted(specs) == sources
    assert all(specs[s] for s in sources)
    assert len(sources) == 24


def test_every_module_call_is_a_spec_module():
    # a launcher that calls module()/function() declares SPECS (helpers of
    # msbfs share msbfs_state's)
    calls = set()
    for path in cuda.HERE.glob("*.py"):
        if path.stem in ("__init__", "fatbin", "precompile"):
            continue
        if re.search(r"(?<![\w.])(module|function)\(", path.read_text()):
            calls.add(path.stem)
    assert calls <= set(cuda.SPEC_MODULES), calls - set(cuda.SPEC_MODULES)
    for name in cuda.SPEC_MODULES:
        mod = importlib.import_module(f"bitgraph.kernels.cuda.{name}")
        assert mod.SPECS and all(isinstance(n, tuple) and n for _, n in mod.SPECS), name


def test_dynamic_name_tuples_are_specs():
    # the launchers that build their names per call: each tuple they can
    # ask for is one of their SPECS
    from bitgraph.kernels.cuda import bmv_b2sr, ewise, reduce, spgemm_csr, spmspv_csr

    for mod in (reduce, spgemm_csr, spmspv_csr):
        for c in C_TYPES.values():
            assert (mod.SPECS[0][0], mod._names(c)) in mod.SPECS
    assert ewise.SPECS == (("ewise.cu", cuda.function_names(("ewise", "unary"))),)
    for t in bmv_b2sr.TILE_SIZES:
        for c in C_TYPES.values():
            assert (bmv_b2sr.SOURCE, bmv_b2sr._full_names(t, c, -1, -1)) in bmv_b2sr.SPECS
        for a, m in bmv_b2sr.FAST_OPS:
            for c in ("float", "double", "int", "long long"):
                assert (bmv_b2sr.SOURCE, bmv_b2sr._full_names(t, c, a, m)) in bmv_b2sr.SPECS
    for names in bmv_b2sr._BITS_NAMES.values():
        assert (bmv_b2sr.SOURCE, names) in bmv_b2sr.SPECS


def test_options_are_nvrtcs():
    assert cuda.OPTIONS is fatbin.OPTIONS
    assert "-fmad=false" in cuda.OPTIONS and "-ftz=false" in cuda.OPTIONS


def test_kernel_name_and_matching():
    assert fatbin.kernel_name("void f<int, 4>(int const*, long long)") == "f<int, 4>"
    assert fatbin.kernel_name("g(int*)") == "g"
    assert fatbin.kernel_name("void h<(char)1, true>(int*)") == "h<(char)1, true>"
    dem = {"_Z1fIiLi4EEvPKix": "void f<int, 4>(int const*, long long)",
           "_Z1gIjLj4EEvPj": "void g<unsigned int, 4u>(unsigned int*)",
           "_Z1hILi0ExEvv": "void h<0, long long>()"}

    def demangle(symbols):
        return [dem[s] for s in symbols]
    got = fatbin.match(["f<int,4>", "g<unsigned int, 4>", "h<FMT, long long>", "plain"],
                       list(dem) + ["plain"], demangle, {"FMT": "0"})
    assert got == {"f<int,4>": "_Z1fIiLi4EEvPKix", "g<unsigned int, 4>": "_Z1gIjLj4EEvPj",
                   "h<FMT, long long>": "_Z1hILi0ExEvv", "plain": "plain"}
    with pytest.raises(RuntimeError, match=r"f<double>"):
        fatbin.match(["f<double>"], list(dem), demangle)


def test_names_spell_types_as_the_demangler():
    # the build finds a name among the demangled symbols, which spell "unsigned int": a bare
    # "unsigned" compiles under NVRTC and matches no fatbin symbol (no nvcc needed to see it)
    bare = [n for names in fatbin.read_specs().values() for n in names
            if re.search(r"\bunsigned\b(?!\s+(int|char|short|long))", n)]
    assert not bare


def test_constants_of_a_source():
    values = fatbin.constants(cuda.source_text("bfs_fused.cu"))
    assert fatbin.resolve("bfs_fused<FMT_CSR, int>", values) == "bfs_fused<0, int>"
    assert fatbin.resolve("bfs_fused<FMT_BVSS_MMA, long long>", values) != \
        "bfs_fused<FMT_BVSS_MMA, long long>"


def test_wrapper_takes_every_address():
    text = fatbin.wrapper("// source", ["f<int>", "g"])
    assert "(const void*)&f<int>" in text and "(const void*)&g\n" in text


def test_stale_fatbin_is_never_used(tmp_path, monkeypatch):
    monkeypatch.setenv("BITGRAPH_CUDA_PRECOMPILED", str(tmp_path))
    cuda._shipped_meta.cache_clear()
    meta = {"format": fatbin.FORMAT, "source": "gate.cu", "options": list(cuda.OPTIONS),
            "key": fatbin.key(cuda.source_text("gate.cu")), "sass": ["sm_80", "sm_90"],
            "ptx": "compute_90", "lowered": {"stream_gate": "stream_gate"}}
    (tmp_path / "gate.json").write_text(json.dumps(meta))
    try:
        assert cuda.shipped_meta("gate.cu")["lowered"] == {"stream_gate": "stream_gate"}
        for field, value in (("key", "0" * 32), ("options", ["-std=c++17"]),
                             ("format", "bitgraph-fatbin-0"), ("source", "ewise.cu")):
            (tmp_path / "gate.json").write_text(json.dumps({**meta, field: value}))
            cuda._shipped_meta.cache_clear()
            assert cuda.shipped_meta("gate.cu") is None, field
    finally:
        cuda._shipped_meta.cache_clear()


def test_covers():
    meta = {"sass": ["sm_80", "sm_90"], "ptx": "compute_90"}
    assert [cc for cc in ("75", "80", "86", "89", "90", "100", "120")
            if cuda.covers(meta, cc)] == ["80", "86", "89", "90"]
    assert cuda.covers(meta, "100", ptx=True) and not cuda.covers(meta, "75", ptx=True)


def test_settings_knob():
    import bitgraph as bg

    assert bg.settings.current().cuda.precompiled is True
    with bg.settings.use(cuda={"precompiled": False}):
        assert bg.settings.current().cuda.precompiled is False


@pytest.mark.skipif(NVCC is None, reason="no nvcc on PATH")
def test_build_small_sources(tmp_path):
    took = fatbin.build(tmp_path, ["gate.cu", "bmv_bvss.cu"], jobs=2, log=lambda s: None)
    assert sorted(took) == ["bmv_bvss.cu", "gate.cu"]
    specs = fatbin.read_specs()
    for source in took:
        stem = source[:-3]
        meta = json.loads((tmp_path / f"{stem}.json").read_text())
        assert meta["key"] == fatbin.key(cuda.source_text(source))
        assert meta["sass"] == ["sm_80", "sm_90"] and meta["ptx"] == "compute_90"
        assert sorted(meta["lowered"]) == sorted(specs[source])
        assert (tmp_path / f"{stem}.fatbin").read_bytes()[:4] == FATBIN_MAGIC
    lowered = json.loads((tmp_path / "bmv_bvss.json").read_text())["lowered"]
    assert lowered["bmv_bvss<true>"].startswith("_Z8bmv_bvssILb1E")
    assert lowered["bmv_bvss<false>"].startswith("_Z8bmv_bvssILb0E")
    assert json.loads((tmp_path / "gate.json").read_text())["lowered"] == \
        {"stream_gate": "stream_gate"}


@pytest.mark.skipif(NVCC is None, reason="no nvcc on PATH")
def test_build_fails_on_an_unknown_name(tmp_path):
    # nvcc rejects the address of an undeclared kernel (match() rejects a
    # name no symbol demangles to: test_kernel_name_and_matching)
    with pytest.raises(RuntimeError, match="nvcc could not compile bmv_bvss.cu"):
        fatbin.build_one("bmv_bvss.cu", ["bmv_bvss<true>", "bmv_bvss_typo"], tmp_path)


class _FakeCupy:
    """The few CuPy calls of ``module()``, on the CPU: a device of compute
    capability ``cc`` whose driver loads any bytes (``loaded`` lists them)."""

    def __init__(self, cc):
        import types

        fake = self
        self.loaded = []

        class Module:
            def load(self, data):
                fake.loaded.append(bytes(data))

        class Device:
            def __init__(self, i=0):
                self.compute_capability = cc
        self.cuda = types.SimpleNamespace(
            runtime=types.SimpleNamespace(getDevice=lambda: 0), Device=Device,
            function=types.SimpleNamespace(Module=Module))


@pytest.fixture
def fake_gpu(tmp_path, monkeypatch):
    """A shipped gate.cu (fake fatbin bytes) and a fake CuPy and NVRTC;
    returns ``use(cc, nvrtc_works=True) -> fake cupy``."""
    import sys
    import types

    (tmp_path / "gate.fatbin").write_bytes(b"FATBIN")
    meta = {"format": fatbin.FORMAT, "source": "gate.cu", "options": list(cuda.OPTIONS),
            "key": fatbin.key(cuda.source_text("gate.cu")), "sass": ["sm_80", "sm_90"],
            "ptx": "compute_90", "lowered": {"stream_gate": "stream_gate"}}
    (tmp_path / "gate.json").write_text(json.dumps(meta))
    monkeypatch.setenv("BITGRAPH_CUDA_PRECOMPILED", str(tmp_path))
    monkeypatch.setenv("BITGRAPH_CUDA_CACHE", str(tmp_path / "nvrtc"))

    def use(cc, nvrtc_works=True):
        fake = _FakeCupy(cc)

        def compile_program(prog, options):
            if not nvrtc_works:
                raise RuntimeError("no NVRTC")
        nvrtc = types.SimpleNamespace(
            createProgram=lambda *a: "prog", addNameExpression=lambda *a: None,
            compileProgram=compile_program, getCUBIN=lambda prog: b"NVRTC",
            getLoweredName=lambda prog, name: name, destroyProgram=lambda prog: None,
            getProgramLog=lambda prog: "", getVersion=lambda: (13, 0))
        libs = types.SimpleNamespace(nvrtc=nvrtc)
        monkeypatch.setitem(sys.modules, "cupy", fake)
        monkeypatch.setitem(sys.modules, "cupy_backends", types.SimpleNamespace())
        monkeypatch.setitem(sys.modules, "cupy_backends.cuda", types.SimpleNamespace(libs=libs))
        monkeypatch.setitem(sys.modules, "cupy_backends.cuda.libs", libs)
        monkeypatch.setitem(sys.modules, "cupy_backends.cuda.libs.nvrtc", nvrtc)
        for f in (cuda._module, cuda._shipped_meta, cuda._shipped_module):
            f.cache_clear()
        return fake
    yield use
    for f in (cuda._module, cuda._shipped_meta, cuda._shipped_module):
        f.cache_clear()


@pytest.mark.parametrize("cc, nvrtc_works, precompiled, want", [
    ("90", True, True, b"FATBIN"),     # SASS shipped: no NVRTC
    ("89", True, True, b"FATBIN"),     # sm_80's SASS runs on 8.9
    ("75", True, True, b"NVRTC"),      # not covered
    ("100", True, True, b"NVRTC"),     # a later GPU: NVRTC compiles for it
    ("100", False, True, b"FATBIN"),   # ... or the driver the PTX, where NVRTC fails
    ("90", True, False, b"NVRTC"),     # settings.cuda.precompiled off
])
def test_module_picks_the_fatbin_or_nvrtc(fake_gpu, cc, nvrtc_works, precompiled, want):
    import bitgraph as bg

    fake = fake_gpu(cc, nvrtc_works)
    with bg.settings.use(cuda={"precompiled": precompiled}):
        mod, lowered = cuda.module("gate.cu", ("stream_gate",))
    assert fake.loaded == [want] and lowered == {"stream_gate": "stream_gate"}


def test_module_names_not_shipped_go_to_nvrtc(fake_gpu):
    fake = fake_gpu("90")
    cuda.module("gate.cu", ("stream_gate", "other<int>"))
    assert fake.loaded == [b"NVRTC"]
    fake = fake_gpu("75", nvrtc_works=False)
    with pytest.raises(RuntimeError, match="NVRTC could not compile gate.cu"):
        cuda.module("gate.cu", ("stream_gate",))
