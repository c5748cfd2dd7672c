"""The package as a user meets it after `pip install .`: run by test_pip_install.sh with
the venv's python (outside the source tree), and type-checked with mypy --strict.

    python example.py TABLES   # TABLES: kalah:4:empty up to 6 seeds
"""
import sys
from collections import Counter

import numpy as np
import numpy.typing as npt

import mancala_tb

VARIANT = "kalah:4:empty"


def histogram(tb: mancala_tb.Tablebase, seeds: int) -> Counter[int]:
    values: npt.NDArray[np.int32] = tb.values(VARIANT, seeds)
    return Counter(int(v) for v in values)


def main() -> None:
    with mancala_tb.open(sys.argv[1]) as tb:
        classes = tb.classes(VARIANT)
        assert [c.seeds for c in classes] == list(range(7)), classes
        positions = list(tb.positions(VARIANT, 6))
        assert len(positions) == classes[6].size
        values = tb.values(VARIANT, 6)
        loop = [tb.value(p) for p in positions]
        assert values.tolist() == loop
        assert tb.values_of(positions).tolist() == loop
        codes = np.arange(0, len(positions), 7)
        assert tb.values(VARIANT, 6, codes).tolist() == values[codes].tolist()
        r: mancala_tb.Result = tb.probe(positions[-1])
        best = r.best
        print(f"{len(positions)} positions of 6 seeds, histogram {sorted(histogram(tb, 6).items())}")
        print(f"{r.position}: value {r.value}, best move {best.move if best else None}")
    assert tb.closed
    try:
        tb.value(positions[0])
    except mancala_tb.Error as e:
        print(f"closed: {e}")
    print(f"mancala_tb {mancala_tb.__version__}")


if __name__ == "__main__":
    main()
