"""The mancala_tb Python module against `mancala-tb probe --json` (issue 14).

Run by ctest (python.mancala_tb) with PYTHONPATH at the built module, MANCALA_TB the
program and MANCALA_TB_WORK a scratch folder. For every game: tables from a small root,
random walks from it played with mancala_tb.play, and at every position the module's
value, plies and moves equal what `mancala-tb probe DIR -` answers for the same line.
"""
import json
import os
import random
import shutil
import subprocess
import zlib

import pytest

import mancala_tb

TB = os.environ["MANCALA_TB"]
WORK = os.environ.get("MANCALA_TB_WORK", "/tmp/mancala_tb_pytest")

# (game, generate arguments, root position): every position a walk reaches from the
# root is in the tables (seeds in play never grow).
GAMES = [
    ("djenon-aboure", ["djenon-aboure", "--max-seeds", "7"], "djenon-aboure 1,0,2,0,1,0/0,1,0,1,0,1 S"),
    ("oware", ["oware", "--max-seeds", "8"], "oware 1,0,0,2,0,0/0,1,0,0,1,0 S"),
    ("kalah", ["kalah:6:empty", "--max-seeds", "9"], "kalah:6:empty 1,0,3,0,2,1/0,1,0,1,0,0 S"),
    ("kotu-baendum", ["kotu-baendum", "--max-seeds", "5"], "kotu-baendum 0S,1,1,0,0,0,0/0,1,0,2,0,0,0N N"),
    ("cenne", ["cenne:5:4", "--max-seeds", "9"], "cenne:5:4 2,1,3,0,1/1,0,1,0 S"),
    ("enkeshui", ["--from", "enkeshui:8 0S,0,1,2,1,2,0,0/0N,0,2,1,2,1,0,0 S", "--max-seeds", "12"],
     "enkeshui:8 0S,0,1,2,1,2,0,0/0N,0,2,1,2,1,0,0 S"),
    ("imbelece", ["--from", "imbelece 2,1,1,2,0x,0x,0x,0x/1,2,2,1,0x,0x,0x,0x S", "--max-seeds", "12"],
     "imbelece 2,1,1,2,0x,0x,0x,0x/1,2,2,1,0x,0x,0x,0x S"),
]
WALKS, POSITIONS_PER_GAME = 12, 60


@pytest.fixture(scope="module")
def tables():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    dirs = {}
    for game, args, _ in GAMES:
        d = os.path.join(WORK, game)
        subprocess.run([TB, "generate", *args, "--out", d], check=True, capture_output=True)
        dirs[game] = d
    yield dirs
    shutil.rmtree(WORK, ignore_errors=True)


def random_positions(root, rng):
    """Positions of random games from root, played with the module's rules engine."""
    seen = [root]
    for _ in range(WALKS):
        pos = root
        while len(seen) < POSITIONS_PER_GAME:
            moves = mancala_tb.legal_moves(pos)
            if not moves:
                break
            turn = mancala_tb.play(pos, rng.choice(moves))
            if turn.position is None:
                break
            pos = turn.position
            seen.append(pos)
            if turn.game_over:
                assert mancala_tb.legal_moves(pos) == [], pos
                break
    return seen


def probe_stream(tables_dir, lines):
    """`mancala-tb probe DIR -`: one JSON answer per line."""
    r = subprocess.run([TB, "probe", tables_dir, "-"], input="".join(l + "\n" for l in lines),
                       capture_output=True, text=True, check=True)
    answers = [json.loads(l) for l in r.stdout.splitlines()]
    assert len(answers) == len(lines)
    return answers


def as_cli(value, plies, kind):
    """The module's (value, plies) in probe --json's form."""
    if kind == "win_loss":
        return ({1: "win", 0: "draw", -1: "loss"}[value], plies)
    return (value, None)


@pytest.mark.parametrize("game,args,root", GAMES, ids=[g[0] for g in GAMES])
def test_probe_matches_cli(tables, game, args, root):
    rng = random.Random(zlib.crc32(game.encode()))  # the same walks every run
    positions = random_positions(root, rng)
    assert len(positions) > 10, f"{game}: the walks found only {len(positions)} positions"
    tb = mancala_tb.open(tables[game])
    for pos, want in zip(positions, probe_stream(tables[game], positions)):
        assert "error" not in want, (pos, want)
        r = tb.probe(pos)
        assert r.position == want["position"]
        assert as_cli(r.value, r.plies, r.kind) == (want["value"], want.get("depth")), pos
        got_moves = [(m.move, *as_cli(m.value, m.plies, r.kind), list(m.gains)) for m in r.moves]
        want_moves = [(m["move"], m["value"], m.get("depth"), m["gains"]) for m in want["moves"]]
        assert got_moves == want_moves, pos
        assert tb.value(pos) == r.value
        assert sorted(m.move for m in r.moves) == sorted(mancala_tb.legal_moves(pos))
        if r.moves:
            assert tb.best_move(pos).move == r.moves[0].move == r.best.move
        else:
            assert r.best is None


def test_pits_and_side(tables):
    tb = mancala_tb.open(tables["oware"])
    text = "oware 1,0,0,2,0,0/0,1,0,0,1,0 S"
    r = tb.probe(text)
    assert tb.probe("oware", [1, 0, 0, 2, 0, 0, 0, 1, 0, 0, 1, 0], "S").value == r.value
    assert tb.probe("oware", [[1, 0, 0, 2, 0, 0], [0, 1, 0, 0, 1, 0]], side="S").position == r.position
    assert mancala_tb.parse("oware", [1, 0, 0, 2, 0, 0, 0, 1, 0, 0, 1, 0], "N") == "oware 1,0,0,2,0,0/0,1,0,0,1,0 N"
    imb = mancala_tb.open(tables["imbelece"])
    pits = [["2", 1, 1, 2, "0x", "0x", "0x", "0x"], [1, 2, 2, 1, "0x", "0x", "0x", "0x"]]
    assert imb.probe("imbelece", pits, "S").kind == "win_loss"


def test_plies_only_in_win_loss_games(tables):
    """A margin has no length: plies is None in score games (not plies_of a margin)."""
    r = mancala_tb.open(tables["oware"]).probe("oware 0,0,0,0,0,2/2,2,0,0,0,0 S")
    assert r.kind == "score" and r.value == 6
    assert r.plies is None and all(m.plies is None for m in r.moves)
    assert "plies" not in repr(r) and "plies" not in repr(r.moves[0])
    w = mancala_tb.open(tables["imbelece"]).probe(GAMES[-1][2])
    assert w.kind == "win_loss" and isinstance(w.plies, int) and all(isinstance(m.plies, int) for m in w.moves)


def test_best_move_is_worth_the_value(tables):
    tb = mancala_tb.open(tables["oware"])
    r = tb.probe("oware 1,0,0,2,0,0/0,1,0,0,1,0 S")
    turn = mancala_tb.play(r.position, r.best.move)
    gain = turn.gains[0] - turn.gains[1]
    if turn.game_over:
        assert r.value == gain + turn.end_value
    else:
        after = tb.value(turn.position)
        assert r.value == gain + (after if turn.same_side else -after)


def test_best_play_to_the_end_realises_the_value(tables):
    """Kalah's best moves end the game (no cycles): the margin collected through play(),
    the end's share-out included, is the value the tables gave at the start."""
    tb = mancala_tb.open(tables["kalah"])
    start = GAMES[2][2]
    pos, sign, margin = start, 1, 0
    for _ in range(200):
        turn = mancala_tb.play(pos, tb.best_move(pos).move)
        margin += sign * (turn.gains[0] - turn.gains[1] + turn.end_value)
        if turn.game_over:
            break
        sign = sign if turn.same_side else -sign
        pos = turn.position
    assert turn.game_over
    assert margin == tb.value(start)
    # The end: South's last seed leaves its side empty; North keeps its 2 seeds.
    end = mancala_tb.play("kalah:4:empty 0,0,1,0/1,1,1,0 S", "2")
    assert (end.gains, end.game_over, end.end_value) == ((2, 0), True, -2)
    assert end.position == "kalah:4:empty 0,0,0,0/0,1,1,0 N"


def test_errors_are_exceptions(tables):
    tb = mancala_tb.open(tables["oware"])
    with pytest.raises(mancala_tb.PositionError):
        tb.probe("not a position")
    with pytest.raises(ValueError):  # PositionError is a ValueError
        tb.probe("oware 4,4,x,4,4,4/4,4,4,4,4,4 S")
    with pytest.raises(mancala_tb.NotFoundError):  # 13 seeds over 8-seed tables
        tb.probe("oware 1,0,0,0,0,2/2,2,0,3,1,2 S")
    with pytest.raises(LookupError):
        tb.probe("kalah:2:empty 1,1/1,1 S")
    with pytest.raises(mancala_tb.NotFoundError):
        mancala_tb.open(os.path.join(WORK, "no such folder"))
    with pytest.raises(mancala_tb.PositionError):
        mancala_tb.play("oware 1,0,0,2,0,0/0,1,0,0,1,0 S", "5")  # pit 5 is empty
    with pytest.raises(mancala_tb.Error):
        tb.probe("oware", [1, 2, 3], "S")
    assert issubclass(mancala_tb.CorruptError, mancala_tb.Error)


def test_version():
    out = subprocess.run([TB, "--version"], capture_output=True, text=True, check=True).stdout.split()
    assert mancala_tb.__version__ == out[1]


@pytest.mark.parametrize("game", ["oware", "imbelece", "cenne"])
def test_classes_positions_and_bulk_values(tables, game):
    """Every class: positions() in code order, values() and values_of() equal tb.value."""
    np = pytest.importorskip("numpy")
    with mancala_tb.open(tables[game]) as tb:
        (variant,) = tb.variants()
        classes = tb.classes(variant)
        assert classes and all(c.variant == variant for c in classes)
        for c in classes[-3:]:
            positions = list(tb.positions(variant, c.seeds, state=c.state))
            assert len(positions) == c.size == len(tb.positions(variant, c.seeds, state=c.state))
            values = tb.values(variant, c.seeds, state=c.state)
            assert values.dtype == np.int32 and values.shape == (c.size,)
            sample = list(range(0, c.size, max(1, c.size // 50)))
            assert [tb.value(positions[i]) for i in sample] == values[sample].tolist()
            assert tb.values_of([positions[i] for i in sample]).tolist() == values[sample].tolist()
            assert tb.values(variant, c.seeds, np.array(sample), state=c.state).tolist() == values[sample].tolist()
            for i in sample[:5]:
                assert tb.position(variant, c.seeds, i, state=c.state) == positions[i]
                got_class, code = tb.code(positions[i])
                assert (got_class.seeds, got_class.state, code) == (c.seeds, c.state, i)
        with pytest.raises(IndexError):
            tb.values(variant, classes[-1].seeds, [classes[-1].size], state=classes[-1].state)
        with pytest.raises(mancala_tb.NotFoundError):
            tb.positions(variant, 99)
    assert tb.closed
    with pytest.raises(mancala_tb.Error):
        tb.value("oware 1,0,0,2,0,0/0,1,0,0,1,0 S")


@pytest.mark.parametrize("game", ["oware", "cenne"])
def test_load_answers_as_read_in_place(tables, game):
    """tb.load: nothing within a budget of 0; then every table, the same values and moves."""
    with mancala_tb.open(tables[game]) as tb:
        (variant,) = tb.variants()
        positions = [p for c in tb.classes(variant) for p in list(tb.positions(variant, c.seeds, state=c.state))[::7]]
        before = tb.values_of(positions).tolist()
        probes = [[(m.move, m.value, m.distance) for m in tb.probe(p).moves] for p in positions[::13]]
        assert tb.load(variant, 0)[:2] == (0, 0)
        loaded, count, left = tb.load(variant)
        assert loaded > 0 and count >= len(tb.classes(variant)) and left == 0
        assert tb.load(variant) == (loaded, count, 0)
        assert tb.values_of(positions).tolist() == before
        assert [[(m.move, m.value, m.distance) for m in tb.probe(p).moves] for p in positions[::13]] == probes


def test_several_classes_of_one_seed_count_need_state(tables):
    with mancala_tb.open(tables["cenne"]) as tb:
        seeds = {}
        for c in tb.classes("cenne:5:4"):
            seeds.setdefault(c.seeds, []).append(c)
        many = [s for s, cs in seeds.items() if len(cs) > 1]
        if many:
            with pytest.raises(mancala_tb.Error, match="state="):
                tb.values("cenne:5:4", many[0])
