#!/usr/bin/env bash
# Solves start positions with `mancala-tb solve` and records one CSV line per game in
# results/start_positions.csv (variant, seeds per pit, value, first move values, pv,
# time, positions searched, status, the command). Reproduces results/start-positions.md.
#
#   scripts/run_start_positions.sh [BUILD_DIR] [TIME_LIMIT_SECONDS] [GROUP...]
#   groups: kalah tables cyclic others (default: all)
set -u
BUILD=${1:-build-s}
LIMIT=${2:-120}
shift $(( $# > 2 ? 2 : $# ))
GROUPS_=${*:-kalah tables cyclic others}
TB=$BUILD/tools/mancala-tb
OUT=results/start_positions.csv
TABLES=${TABLES:-/tmp/mancala-results-tb}
THREADS=${THREADS:-2}
[ -f "$OUT" ] || echo "variant,per_pit,value,moves,pv,pv_end,seconds,nodes,status,command" > "$OUT"

solve() {  # VARIANT PER_PIT [extra args...]
  local v=$1 n=$2; shift 2
  local cmd="mancala-tb solve $v --per-pit $n --json --threads $THREADS --time-limit $LIMIT --tt-mb 1024 $*"
  local t0=$(date +%s.%N)
  local json err
  json=$("$TB" solve "$v" --per-pit "$n" --json --threads "$THREADS" --time-limit "$LIMIT" --tt-mb 1024 "$@" 2>/tmp/solve_err.$$)
  local rc=$?
  err=$(tail -1 /tmp/solve_err.$$ | tr ',"' ';\x27')
  local t1=$(date +%s.%N)
  python3 - "$v" "$n" "$rc" "$cmd" "$err" "$t0" "$t1" "$json" >> "$OUT" <<'PY'
import json, sys, csv
v, n, rc, cmd, err, t0, t1, js = sys.argv[1:9]
w = csv.writer(sys.stdout)
if rc == "0":
    j = json.loads(js)
    moves = " ".join(f"{m['move']}:{m['value']}" for m in j["moves"])
    w.writerow([v, n, j["value"], moves, " ".join(j["pv"]), j["pv_end"], f"{j['seconds']:.3f}", j["nodes"], "solved", cmd])
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
    kalah)  # Kalah(m, n), no tables: the search goes to the end of the game
      for cap in empty standard; do
        for m in 1 2 3 4 5 6; do
          for n in 1 2 3 4 5 6; do solve kalah:$m:$cap $n; done
        done
      done ;;
    cyclic)  # Oware and Djenon-aboure over tables
      gen oware 12
      solve oware 1 --tables "$TABLES"
      gen oware 14
      solve oware 2 --tables "$TABLES"
      gen djenon-aboure 12
      solve djenon-aboure 1 --tables "$TABLES"
      solve djenon-aboure 2 --tables "$TABLES"
      solve djenon-aboure 3 --tables "$TABLES" ;;
    others)  # the other variants at reduced seed counts, no tables
      for v in kotu-baendum cenne:4:4 enkeshui:8 imbelece; do
        for n in 1 2; do solve $v $n; done
      done ;;
  esac
done
