"""Endgame tablebases of mancala games: exact values and ranked moves from tables made by
`mancala-tb generate`, and the rules engine.

    import mancala_tb
    with mancala_tb.open("tb/") as tb:
        r = tb.probe("oware 1,0,0,2,0,0/0,1,0,0,1,0 S")
        r.value, r.best.move, [(m.move, m.value) for m in r.moves]
        values = tb.values("oware", 8)          # numpy array: every position of the class
        first = next(iter(tb.positions("oware", 8)))

The compiled part is mancala_tb._core; its types are in _core.pyi.
"""
from ._core import (
    CorruptError,
    Error,
    Move,
    NotFoundError,
    PositionError,
    Positions,
    Result,
    TableClass,
    Tablebase,
    Turn,
    __version__,
    legal_moves,
    open,
    parse,
    play,
    turns,
)

__all__ = [
    "CorruptError",
    "Error",
    "Move",
    "NotFoundError",
    "PositionError",
    "Positions",
    "Result",
    "TableClass",
    "Tablebase",
    "Turn",
    "__version__",
    "legal_moves",
    "open",
    "parse",
    "play",
    "turns",
]
