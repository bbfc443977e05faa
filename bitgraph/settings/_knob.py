"""``knob(default, doc)``: a settings field with its rule as metadata."""

from dataclasses import field


def knob(default, doc: str):
    """A frozen-dataclass field whose ``metadata["doc"]`` is its rule and
    measurement (listed by ``python -m bitgraph.kernels --settings``).

    >>> from dataclasses import dataclass, fields
    >>> @dataclass(frozen=True)
    ... class F:
    ...     x: int = knob(3, "the rule")
    >>> fields(F)[0].metadata["doc"]
    'the rule'
    """
    return field(default=default, metadata={"doc": doc})
