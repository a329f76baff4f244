"""hosim.table: pandas-free sweep tables write what pandas writes for the same frame."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pandas as pd
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hosim.table import Table, column_kind

# Cells as they come out of a run summary: JSON scalars, None for a missing field.
CELLS = {
    "none": st.none(),
    "bool": st.booleans(),
    "int": st.integers(min_value=-(2**62), max_value=2**62),
    "float": st.floats(allow_nan=False, width=64),
    "str": st.text(max_size=5),
}


@st.composite
def tables(draw: st.DrawFn) -> Table:
    """Up to 4 columns of up to 7 rows; each column holds one or two kinds of cell."""
    rows = draw(st.integers(0, 7))
    columns = {}
    for i in range(draw(st.integers(1, 4))):
        kinds = draw(st.lists(st.sampled_from(sorted(CELLS)), min_size=1, max_size=2))
        columns[f"c{i}"] = draw(st.lists(st.one_of(*[CELLS[k] for k in kinds]), min_size=rows, max_size=rows))
    return Table(columns, {"grid_keys": ["c0"]})


@pytest.mark.parametrize(("values", "kind", "inferred"), [
    ([1, 2], "int64", "int64"),
    ([1, None], "Int64", "float64"),
    ([1, 2.5, None], "float64", "float64"),
    ([True, False], "bool", "bool"),
    ([True, None], "object", "object"),
    (["a", None], "str", "str"),
    ([None, None], "empty", "object"),
])
def test_each_kind_has_the_dtype_pandas_infers_except_that_integers_stay_integers(values, kind, inferred):
    assert column_kind(values)[0] == kind
    assert str(pd.DataFrame({"c": values})["c"].dtype) == inferred
    expected = "Int64" if kind == "Int64" else inferred  # pandas would turn [1, None] into floats
    assert str(Table({"c": values}).to_frame()["c"].dtype) == expected


def test_text_mixed_with_numbers_or_booleans_with_numbers_becomes_json_text():
    assert column_kind(["a", 1, 2.5, None]) == ("str", ["a", "1", "2.5", None])
    assert column_kind([True, 3]) == ("str", ["true", "3"])


def test_columns_of_different_lengths_are_refused():
    with pytest.raises(ValueError, match="different lengths"):
        Table({"a": [1], "b": [1, 2]})


@settings(max_examples=80, deadline=None)
@given(table=tables())
def test_csv_and_parquet_are_what_pandas_writes_for_the_same_frame(tmp_path_factory, table):
    frame = table.to_frame()
    assert table.csv_text() == frame.to_csv(index=False)

    out = tmp_path_factory.mktemp("parquet")
    table.write_parquet(out / "ours.parquet")
    frame.to_parquet(out / "pandas.parquet", index=False)
    ours, theirs = pq.read_schema(out / "ours.parquet"), pq.read_schema(out / "pandas.parquet")
    assert ours.equals(theirs, check_metadata=False)
    assert json.loads(ours.metadata[b"pandas"]) == json.loads(theirs.metadata[b"pandas"])
    assert ours.metadata[b"PANDAS_ATTRS"] == theirs.metadata[b"PANDAS_ATTRS"]
    back = pd.read_parquet(out / "ours.parquet")
    pd.testing.assert_frame_equal(back, pd.read_parquet(out / "pandas.parquet"))
    assert back.attrs == {"grid_keys": ["c0"]}


def test_a_float_is_written_as_its_shortest_repr_and_nan_as_an_empty_cell():
    table = Table({"x": [0.1, 1e16, 1e-05, math.nan, 2.0, None], "n": [1, 2, 3, 4, 5, 6]})
    assert table.csv_text() == "x,n\n0.1,1\n1e+16,2\n1e-05,3\n,4\n2.0,5\n,6\n"


def test_labelled_columns_are_appended_once():
    table = Table({"seed": [1, 2]}).with_columns({"scenario": "lte-x2", "seed": 9})
    assert table.records() == [{"seed": 1, "scenario": "lte-x2"}, {"seed": 2, "scenario": "lte-x2"}]


@pytest.mark.native
def test_sweep_command_writes_its_tables_without_importing_pandas(tmp_path):
    # pandas' import is about 0.3 s, more than the 50 runs of `hosim sweep lte-x2` (bench/decisions.md).
    code = ("import sys, json\nfrom hosim.cli import main\n"
            f"code = main(['sweep', 'dumbbell', '--seeds', '2', '--set', 'duration_s=1', '--out', {str(tmp_path)!r}, "
            "'--jobs', '1', '--quiet', '--no-cache'])\n"
            "print(json.dumps([code, 'pandas' in sys.modules]), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert json.loads(proc.stderr.splitlines()[-1]) == [0, False], proc.stderr
    flows = pd.read_parquet(tmp_path / "flows.parquet")
    assert list(flows["seed"].unique()) == [1, 2] and flows.attrs == {"grid_keys": []}
    assert pd.read_csv(tmp_path / "flows.csv")["goodput_bps"].tolist() == flows["goodput_bps"].tolist()
