"""Column tables of a sweep without pandas: built, labelled and written (CSV and parquet) from
Python lists, so that ``hosim sweep`` never imports pandas (about 0.3 s more than pyarrow,
most of a short sweep) and its worker processes keep both cores.

A ``Table`` is an ordered ``{column: [value, ...]}`` whose missing cells are ``None``. Each
column has one *kind*, decided from the types of its present values exactly as pandas infers a
``DataFrame`` built from the same rows (``bool`` is not a number):

============  ==========================  ============================  =================
kind          present values              pandas dtype                  parquet type
============  ==========================  ============================  =================
``int64``     int, none missing           ``int64``                     int64
``Int64``     int, some missing           ``Int64`` (nullable)          int64
``uint64``    int, one ≥ 2^63, none < 0   ``uint64``                    uint64
``UInt64``    the same, some missing      ``UInt64`` (nullable)         uint64
``float64``   float (ints mixed in too)   ``float64`` (missing: NaN)    double
``bool``      bool, none missing          ``bool``                      bool
``object``    bool, some missing          ``object``                    bool
``str``       str                         ``str`` (missing: NaN)        large_string
``empty``     none                        ``object``                    null
============  ==========================  ============================  =================

A column mixing text with numbers, or booleans with numbers, holds its non-text values as JSON
text (kind ``str``), so every column has one parquet type. ``to_frame`` gives the pandas
``DataFrame``; ``csv_text`` and ``write_parquet`` write the same bytes as that frame's
``to_csv(index=False)`` and ``to_parquet(index=False)`` (the parquet file carries pandas'
metadata, so ``pandas.read_parquet`` gives the frame back, dtypes and ``attrs`` included).

Standard library only at import time; ``write_parquet`` imports pyarrow, ``to_frame`` pandas.
"""

from __future__ import annotations

import array
import copy
import csv
import io
import itertools
import json
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["KINDS", "Table", "column_kind", "rows_to_columns"]

_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(2**63), 2**63 - 1, 2**64 - 1

#: kind -> (pandas metadata ``pandas_type``, ``numpy_type``): what pandas writes for that dtype.
KINDS = {
    "int64": ("int64", "int64"),
    "Int64": ("int64", "Int64"),
    "uint64": ("uint64", "uint64"),
    "UInt64": ("uint64", "UInt64"),
    "float64": ("float64", "float64"),
    "bool": ("bool", "bool"),
    "object": ("bool", "object"),
    "str": ("object", "str"),
    "empty": ("empty", "object"),
}


def rows_to_columns(rows: Sequence[Mapping[str, Any]], head: Sequence[str] = ()) -> dict[str, list[Any]]:
    """The columns of ``rows`` (dicts; a missing key is a missing cell): ``head`` first, then
    every other key in the order it first appears (as ``pandas.DataFrame(rows)`` orders them)."""
    names = dict.fromkeys(head)
    for row in rows:
        names.update(dict.fromkeys(row))
    return {name: [row.get(name) for row in rows] for name in names}


def column_kind(values: Sequence[Any]) -> tuple[str, list[Any]]:
    """The kind of a column (see the module docstring) and its values, with the non-text
    values of a mixed column turned into JSON text."""
    types = {type(v) for v in values if v is not None}
    missing = len(types) > 0 and any(v is None for v in values)
    if not types:
        return "empty", list(values)
    if types == {bool}:
        return ("object" if missing else "bool"), list(values)
    if types == {int}:
        if any(v is not None and not _INT64_MIN <= v <= _INT64_MAX for v in values):
            # Seeds from 2^63 up (valid: a seed is 0 <= N < 2^64): unsigned, as pandas infers.
            if all(v is None or 0 <= v <= _UINT64_MAX for v in values):
                return ("UInt64" if missing else "uint64"), list(values)
            return "str", [v if v is None else json.dumps(v) for v in values]
        return ("Int64" if missing else "int64"), list(values)
    if types <= {int, float}:
        return "float64", [None if v is None else float(v) for v in values]
    if types == {str}:
        return "str", list(values)
    return "str", [v if v is None or isinstance(v, str) else json.dumps(v) for v in values]


class Table:
    """Columns of equal length, each of one kind; ``attrs`` travel with the table (pandas'
    ``DataFrame.attrs``, kept in the parquet file)."""

    def __init__(self, columns: Mapping[str, Sequence[Any]], attrs: Mapping[str, Any] | None = None):
        lengths = {len(v) for v in columns.values()}
        if len(lengths) > 1:
            raise ValueError(f"columns of different lengths: { {k: len(v) for k, v in columns.items()} }")
        self.rows = lengths.pop() if lengths else 0
        self.kinds: dict[str, str] = {}
        self.columns: dict[str, list[Any]] = {}
        for name, values in columns.items():
            self.kinds[name], self.columns[name] = column_kind(values)
        self.attrs: dict[str, Any] = dict(attrs or {})

    def __len__(self) -> int:
        return self.rows

    def __repr__(self) -> str:
        return f"Table({self.rows} rows, columns {list(self.columns)})"

    def records(self) -> list[dict[str, Any]]:
        """One dict per row."""
        names = list(self.columns)
        return [dict(zip(names, cells)) for cells in zip(*self.columns.values())] if names else []

    def with_columns(self, values: Mapping[str, Any]) -> Table:
        """This table with a constant column per ``values`` item appended; a name that is
        already a column is left out."""
        extra = {name: [value] * self.rows for name, value in values.items() if name not in self.columns}
        return Table({**self.columns, **extra}, self.attrs)

    def to_frame(self) -> pd.DataFrame:
        """The pandas ``DataFrame`` of this table (index 0..n-1)."""
        import pandas as pd

        nan = float("nan")
        series = {}
        for name, values in self.columns.items():
            kind = self.kinds[name]
            if kind == "float64":
                series[name] = pd.Series([nan if v is None else v for v in values], dtype="float64")
            elif kind in ("object", "empty"):
                series[name] = pd.Series(values, dtype=object)
            else:
                series[name] = pd.Series(values, dtype=kind)
        frame = pd.DataFrame(series, index=pd.RangeIndex(self.rows))
        frame.attrs.update(copy.deepcopy(self.attrs))  # each frame its own, as pandas copies them
        return frame

    def csv_text(self) -> str:
        """The table as CSV: a header, then a row per row; a missing cell is empty, a float is
        written as Python's ``repr``, a boolean as ``True``/``False`` (pandas' ``to_csv``)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(self.columns)
        cells = [[_csv_cell(v) for v in values] for values in self.columns.values()]
        writer.writerows(zip(*cells))
        return out.getvalue()

    def write_parquet(self, path: str | os.PathLike[str]) -> None:
        """Write the table to ``path`` as parquet (snappy), with the metadata pandas writes."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        arrays = [_arrow_array(self.kinds[name], values) for name, values in self.columns.items()]
        table = pa.Table.from_arrays(arrays, names=list(self.columns))
        metadata = {b"pandas": json.dumps(self._pandas_metadata(pa.__version__)).encode()}
        if self.attrs:
            metadata[b"PANDAS_ATTRS"] = json.dumps(self.attrs).encode()
        pq.write_table(table.replace_schema_metadata(metadata), path)

    def _pandas_metadata(self, pyarrow_version: str) -> dict[str, Any]:
        from importlib.metadata import PackageNotFoundError, version

        try:
            pandas_version = version("pandas")
        except PackageNotFoundError:  # readers without pandas ignore it
            pandas_version = "unknown"
        columns = [
            {"name": name, "field_name": name, "pandas_type": KINDS[kind][0], "numpy_type": KINDS[kind][1],
             "metadata": None}
            for name, kind in self.kinds.items()
        ]
        metadata: dict[str, Any] = {"index_columns": [], "column_indexes": [], "columns": columns}
        if self.attrs:
            metadata["attributes"] = self.attrs
        metadata["creator"] = {"library": "pyarrow", "version": pyarrow_version}
        metadata["pandas_version"] = pandas_version
        return metadata


def _arrow_array(kind: str, values: list[Any]) -> Any:
    """The pyarrow array of a column, built from its buffers (validity bitmap, offsets, data):
    ``pyarrow.array`` on a list would import pandas to check whether the list is a pandas
    object, which costs more than the whole table. A NaN float is a null, as pandas writes it."""
    import pyarrow as pa

    if kind == "empty":
        return pa.nulls(len(values))
    present = [v is not None and v == v for v in values]
    validity = None if all(present) else pa.py_buffer(_bitmap(present))
    if kind in ("bool", "object"):
        buffers = [validity, pa.py_buffer(_bitmap([v is True for v in values]))]
        return pa.Array.from_buffers(pa.bool_(), len(values), buffers)
    if kind == "str":
        encoded = [v.encode() if p else b"" for v, p in zip(values, present)]
        offsets = array.array("q", itertools.accumulate(map(len, encoded), initial=0))
        buffers = [validity, pa.py_buffer(offsets.tobytes()), pa.py_buffer(b"".join(encoded))]
        return pa.Array.from_buffers(pa.large_string(), len(values), buffers)
    code, arrow_type, zero = {"float64": ("d", pa.float64(), 0.0), "uint64": ("Q", pa.uint64(), 0),
                              "UInt64": ("Q", pa.uint64(), 0)}.get(kind, ("q", pa.int64(), 0))
    data = array.array(code, [v if p else zero for v, p in zip(values, present)])
    return pa.Array.from_buffers(arrow_type, len(values), [validity, pa.py_buffer(data.tobytes())])


def _bitmap(flags: Sequence[bool]) -> bytes:
    """Arrow's bit order: flag ``i`` is bit ``i % 8`` (least significant first) of byte ``i // 8``."""
    out = bytearray((len(flags) + 7) // 8)
    for i, flag in enumerate(flags):
        if flag:
            out[i >> 3] |= 1 << (i & 7)
    return bytes(out)


def _csv_cell(value: Any) -> Any:
    if value is None or (isinstance(value, float) and value != value):
        return ""
    return repr(value) if isinstance(value, float) else value
