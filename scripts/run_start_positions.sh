#!/usr/bin/env bash
# Solves start positions with `mancala-tb solve` and records one CSV line per game in
# results/start_positions.csv (variant, seeds per pit, value, first move values, pv,
# time, positions searched, status, the command). Reproduces results/start-positions.md.
#
#   scripts/run_start_positions.sh [BUILD_DIR] [TIME_LIMIT_SECONDS] [GROUP...]
#   groups: kalah cyclic others cenne proofs (default: all but cenne); KALAH_CAPS (default "empty standard"),
#   KALAH5_SEEDS (Kalah(5) tables, default 24), KALAH6_MORE (extra n for Kalah(6)),
#   KALAH_M (boards m, default 1..6) and KALAH_PER_PIT (n for m <= 5, default 1..6) steer the kalah group
#   proofs: Imbelece starts by `solve --max-plies` (a forced result within MAX_PLIES
#   plies, default 40, or the depth proven open when the time limit stops it)
#
# SKIP="VARIANT:N ..." leaves those games out (e.g. SKIP="kotu-baendum:2").
# A game already solved in the CSV is skipped (set RESOLVE=1 to solve it again), so an
# interrupted run goes on where it stopped. TABLES (default /tmp/mancala-results-tb) is
# where the tables are generated (resumable) and read.
set -u
BUILD=${1:-build-s}
LIMIT=${2:-120}
shift $(( $# > 2 ? 2 : $# ))
GROUPS_=${*:-kalah cyclic others proofs}  # cenne: every board, CENNE_PER_PIT (default 1) seeds a pit
TB=$BUILD/tools/mancala-tb
OUT=results/start_positions.csv
TABLES=${TABLES:-/tmp/mancala-results-tb}
THREADS=${THREADS:-2}
[ -f "$OUT" ] || echo "variant,per_pit,value,moves,pv,pv_end,seconds,nodes,status,command" > "$OUT"

solve() {  # VARIANT PER_PIT [extra args...]
  local v=$1 n=$2; shift 2
  case " ${SKIP:-} " in *" $v:$n "*) echo "$v $n: skipped (SKIP)"; return ;; esac
  if [ -z "${RESOLVE:-}" ] && grep -q "^$v,$n,.*,solved," "$OUT"; then
    echo "$v $n: solved already (RESOLVE=1 solves it again)"; return
  fi
  local cmd="mancala-tb solve $v --per-pit $n --json --threads $THREADS --time-limit $LIMIT --tt-mb ${TT_MB:-1024} $*"
  local t0=$(date +%s.%N)
  local json err
  json=$("$TB" solve "$v" --per-pit "$n" --json --threads "$THREADS" --time-limit "$LIMIT" --tt-mb "${TT_MB:-1024}" "$@" 2>/tmp/solve_err.$$)
  local rc=$?
  err=$(tail -1 /tmp/solve_err.$$ | tr ',"' ';\x27')
  local t1=$(date +%s.%N)
  python3 - "$v" "$n" "$rc" "$cmd" "$err" "$t0" "$t1" "$json" >> "$OUT" <<'PY'
import json, sys, csv
v, n, rc, cmd, err, t0, t1, js = sys.argv[1:9]
w = csv.writer(sys.stdout)
if rc == "0" and "searched_plies" in json.loads(js):  # solve --max-plies (win/loss proof)
    j = json.loads(js)
    decided = j["value"] != "open"
    value = f'{j["value"]} in {j["depth"]}' if decided else f'no forced result within {j["searched_plies"]} plies'
    w.writerow([v, n, value, "", " ".join(j["pv"]), "game over" if decided else "", f"{j['seconds']:.3f}", j["nodes"],
                "solved" if decided else "bounded", cmd])
elif rc == "0":
    j = json.loads(js)
    moves = " ".join(f"{m['move']}:{m['value']}" for m in j["moves"])
    value = j["value"] if j.get("depth") is None else f'{j["value"]} in {j["depth"]}'
    if "pv_margin" in j and j["pv_end"] == "game over" and j["pv_margin"] != j["value"]:
        raise SystemExit(f"{v} {n}: the pv replays to {j['pv_margin']}, not {j['value']}")
    w.writerow([v, n, value, moves, " ".join(j["pv"]), j["pv_end"], f"{j['seconds']:.3f}", j["nodes"], "solved", cmd])
else:
    w.writerow([v, n, "", "", "", "", f"{float(t1) - float(t0):.3f}", "", "not solved: " + err, cmd])
PY
  tail -1 "$OUT"
}

gen() {  # VARIANT MAX_SEEDS: tables into $TABLES (resumable)
  echo "mancala-tb generate $1 --max-seeds $2 --out $TABLES" >&2
  "$TB" generate "$1" --max-seeds "$2" --out "$TABLES" --threads "$THREADS" >&2
}

for g in $GROUPS_; do
  case $g in
    kalah)  # Kalah(m, n): m <= 3 searched to the end; m >= 4 over tables
      for cap in ${KALAH_CAPS:-empty standard}; do
        ms=" ${KALAH_M:-1 2 3 4 5 6} " ns=${KALAH_PER_PIT:-1 2 3 4 5 6}
        for m in 1 2 3; do
          [[ $ms == *" $m "* ]] || continue
          for n in $ns; do solve kalah:$m:$cap $n; done
        done
        if [[ $ms == *" 4 "* ]]; then
          gen kalah:4:$cap 28
          for n in $ns; do solve kalah:4:$cap $n --tables "$TABLES"; done
        fi
        if [[ $ms == *" 5 "* ]]; then
          gen kalah:5:$cap ${KALAH5_SEEDS:-24}
          for n in $ns; do solve kalah:5:$cap $n --tables "$TABLES"; done
        fi
        if [[ $ms == *" 6 "* ]]; then
          gen kalah:6:$cap 20
          for n in 1 2 3 4 ${KALAH6_MORE:-}; do solve kalah:6:$cap $n --tables "$TABLES"; done
        fi
      done ;;
    cyclic)  # Oware and Djenon-aboure over tables
      gen oware 12
      solve oware 1 --tables "$TABLES"
      gen oware 20
      solve oware 2 --tables "$TABLES"
      gen djenon-aboure 12
      solve djenon-aboure 1 --tables "$TABLES"
      solve djenon-aboure 2 --tables "$TABLES"
      solve djenon-aboure 3 --tables "$TABLES" ;;
    others)  # the other variants at reduced seed counts
      # Kotu-baendum and Cenne 7:7 with 1 seed per pit (14 seeds) are table look-ups
      # after the first move; KOTU_TABLES / CENNE_TABLES may name folders made earlier.
      TABLES=${KOTU_TABLES:-$TABLES} gen kotu-baendum 14
      solve kotu-baendum 1 --tables "${KOTU_TABLES:-$TABLES}"
      solve kotu-baendum 2 --tables "${KOTU_TABLES:-$TABLES}"
      TABLES=${CENNE_TABLES:-$TABLES} gen cenne:7:7 14
      solve cenne:7:7 1 --tables "${CENNE_TABLES:-$TABLES}"
      for n in 1 2; do solve cenne:4:4 $n; done
      for n in ${ENKESHUI_PER_PIT:-1 2}; do solve enkeshui:8 $n; done
      # Imbelece by search (region retrograde to the end; IMBELECE_PER_PIT, default 1).
      for n in ${IMBELECE_PER_PIT:-1}; do solve imbelece $n; done ;;
    cenne)  # every Cenne board from 4:4 to 7:7 by search (no tables)
      for a in 4 5 6 7; do
        for b in 4 5 6 7; do
          for n in ${CENNE_PER_PIT:-1}; do solve cenne:$a:$b $n; done
        done
      done ;;
    proofs)  # win/loss games: depth-bounded proof (search/include/mancala/proof.h)
      for n in 1 2; do solve imbelece $n --max-plies "${MAX_PLIES:-40}"; done ;;
  esac
done
