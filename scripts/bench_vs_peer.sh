#!/usr/bin/env bash
# Side by side with the published Kalah solver of Irving, Donkers & Uiterwijk
# (github.com/girving/kalah), in one run on this machine: every claim of speed against
# another program comes from this script (issue 33).
#
# Usage: scripts/bench_vs_peer.sh PEER_DIR [BUILD_DIR]
#   PEER_DIR: a folder holding the peer's serial build (`generator` and `kalah-s`).
#   BUILD_DIR: ours (default build). REPEAT=N runs every pair N times, alternating
#   which side runs first (odd pairs the peer, even pairs ours).
#   SOLVE_FLAGS="..." adds flags to our search's command (e.g. --no-huge-pages); the
#   figures of record use none. TT_MB (default 256) is our search's --tt-mb, PEER_TT
#   (default 24) the peer's -t (log2 of its table's entries): both sides' tables can be
#   made smaller together.
#
# Building the peer (by the user, from its own sources, outside this repository; this
# script holds none of its code or build steps): clone the repository somewhere else,
# e.g. /work/peers/kalah, and run its own Makefile's serial target. Its flags are for the
# compilers of 2000; a current GCC needs them replaced on the command line:
#     make serial CFLAGS="-O3 -funroll-loops -fcommon -fgnu89-inline -w"
# (-fnested-functions is Apple's and GCC refuses it; -fgnu89-inline and -fcommon keep the
# old meaning of its `inline` functions and shared globals).
#
# The pairs, one thread each:
#   tables:  the peer's `generator` answering `4` (bits an entry), `c 20` (complete to 20
#            stones), `i` (info: its node count), `q` (save and quit), against
#            `mancala-tb generate kalah:6:empty --max-seeds 20 --threads 1`.
#   search:  Kalah(6,4) value and best move over those <=20-seed tables:
#            `kalah-s -t 24 -e 20 s 4` (2^24-entry transposition table) against
#            `mancala-tb solve kalah:6:empty --per-pit 4 --best-only --threads 1 --tt-mb 256`.
# Each side is timed by GNU time (wall, user + system, peak resident memory). "nodes" is
# the peer's "Nodes searched" (its generator's "Nodes") and our "positions searched" (our
# generator's positions). ratio = peer / ours (> 1: ours is faster), of the wall time and
# of the CPU time (user + system: under other jobs' load, the fairer of the two).
# The raw output of every command goes to results/raw/vs-peer-UTCSTAMP.txt, the table
# last, then the median of each job's CPU-time ratios over the REPEAT pairs (this host's
# speed moves from run to run, the peer's as much as ours: one pair proves little).
# The machine's other load is printed (uptime) before and after: on a machine shared
# with other jobs, the ratios move.
set -euo pipefail
cd "$(dirname "$0")/.."
PEER=$(cd "${1:?usage: scripts/bench_vs_peer.sh PEER_DIR [BUILD_DIR]}" && pwd)
B=$(cd "${2:-build}" && pwd)/tools/mancala-tb
REPEAT=${REPEAT:-1}
TT_MB=${TT_MB:-256}
PEER_TT=${PEER_TT:-24}
read -r -a solve_flags <<< "${SOLVE_FLAGS:-}"
for exe in "$PEER/generator" "$PEER/kalah-s" "$B"; do
  [ -x "$exe" ] || { echo "missing: $exe (see the header of $0 for the peer's build)" >&2; exit 2; }
done
mkdir -p results/raw
RAW=results/raw/vs-peer-$(date -u +%Y%m%dT%H%M).txt
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
{
  echo "# scripts/bench_vs_peer.sh, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "# processor: $cpu, $(nproc) cores; load before: $(uptime | sed 's/.*load average: //')"
} > "$RAW"

# Runs "$@" under GNU time in the folder $1, appending the command and its output to
# $RAW and to $WORK/last; then sets wall, cpu, mem (MiB).
timed() {
  local dir=$1 input=$2
  shift 2
  echo "\$ (cd WORK/$(basename "$dir")) $*${input:+ <<< '$input'}" | sed "s|$WORK|WORK|g; s|$PEER|PEER|g; s|$B|mancala-tb|g" >> "$RAW"
  (cd "$dir" && printf '%b' "$input" | /usr/bin/time -v "$@") > "$WORK/last" 2>&1 || true
  sed "s|$WORK|WORK|g; s|$PEER|PEER|g; s|$B|mancala-tb|g" "$WORK/last" >> "$RAW"
  wall=$(grep -o 'Elapsed (wall clock) time (h:mm:ss or m:ss): .*' "$WORK/last" | awk '{print $NF}' |
         awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
  cpu_s=$(awk '/User time|System time/ { s += $NF } END { printf "%.2f", s }' "$WORK/last")
  mem=$(awk '/Maximum resident/ { printf "%.0f", $NF / 1024 }' "$WORK/last")
}

# CPU-time ratio peer / ours ($1 / $2), and the row's ratios of wall ($1 / $2) and CPU
# ($3 / $4) time.
cpu_ratio() { awk -v c="$1" -v d="$2" 'BEGIN { printf "%.2f", c / d }'; }
ratio() { awk -v a="$1" -v b="$2" -v c="$(cpu_ratio "$3" "$4")" 'BEGIN { printf "ratio %.2fx wall, %sx cpu", a / b, c }'; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) printf "%.2f", a[(NR + 1) / 2]; else printf "%.2f", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
table_ratios="" search_ratios=""
rows=()
row() { rows+=("$(printf '%-34s %9s %9s %13s %9s  %s' "$@")"); }

# Each job of a pair, its figures kept as <side>_<job>_{wall,cpu,mem,nodes} (and the
# search's answer).
peer_tables() {
  timed "$WORK/peer" '4\nc 20\ni\nq\n' "$PEER/generator" endgame.dat
  peer_tables_wall=$wall peer_tables_cpu=$cpu_s peer_tables_mem=$mem
  peer_tables_nodes=$(awk '/^ *Nodes:/ {print $2}' "$WORK/last" | tail -1)
}
ours_tables() {
  timed "$WORK/ours" '' "$B" generate kalah:6:empty --max-seeds 20 --threads 1 --out tables
  ours_tables_wall=$wall ours_tables_cpu=$cpu_s ours_tables_mem=$mem
  ours_tables_nodes=$(awk '/positions/ {for (i = 1; i < NF; i++) if ($(i+1) ~ /^positions/) n = $i} END {print n}' "$WORK/last")
}
peer_search() {
  timed "$WORK/peer" '' "$PEER/kalah-s" -t "$PEER_TT" -e 20 -E endgame.dat s 4
  peer_search_wall=$wall peer_search_cpu=$cpu_s peer_search_mem=$mem
  peer_search_nodes=$(awk '/Nodes searched/ {print $3}' "$WORK/last" | tail -1)
  peer_search_answer=$(grep -m1 '^Move:' "$WORK/last" || echo '(no answer)')
}
ours_search() {
  timed "$WORK/ours" '' "$B" solve kalah:6:empty --per-pit 4 --tables tables --best-only --threads 1 --tt-mb "$TT_MB" --no-pv ${solve_flags[@]+"${solve_flags[@]}"}
  ours_search_wall=$wall ours_search_cpu=$cpu_s ours_search_mem=$mem
  ours_search_nodes=$(grep -o '[0-9]* positions searched' "$WORK/last" | head -1 | awk '{print $1}')
  ours_search_answer="value $(awk '/^  value/ {print $2; exit}' "$WORK/last"), best move $(awk '/^  move/ {print $2; exit}' "$WORK/last")"
}

# The pairs alternate which side runs first (odd pairs the peer, even pairs ours): the
# one that runs second meets the machine as the first left it (memory just freed,
# caches), and over REPEAT >= 2 pairs neither side always has that place.
mkdir -p "$WORK/peer" "$WORK/ours"
for ((r = 1; r <= REPEAT; r++)); do
  rm -rf "$WORK/peer/endgame.dat" "$WORK/ours/tables"
  if ((r % 2)); then first=peer second=ours; else first=ours second=peer; fi
  # Tables to 20 seeds.
  "${first}_tables"
  "${second}_tables"
  row "peer tables <=20 (generator c 20)" "$peer_tables_wall" "$peer_tables_cpu" "$peer_tables_nodes" "$peer_tables_mem" \
      "$([ "$first" = peer ] && echo 'ran first')"
  row "ours tables <=20 (generate)" "$ours_tables_wall" "$ours_tables_cpu" "$ours_tables_nodes" "$ours_tables_mem" \
      "$(ratio "$peer_tables_wall" "$ours_tables_wall" "$peer_tables_cpu" "$ours_tables_cpu")$([ "$first" = ours ] && echo ', ran first')"
  table_ratios+=" $(cpu_ratio "$peer_tables_cpu" "$ours_tables_cpu")"
  # Kalah(6,4) value and best move.
  "${first}_search"
  "${second}_search"
  row "peer kalah(6,4) (kalah-s -t $PEER_TT)" "$peer_search_wall" "$peer_search_cpu" "$peer_search_nodes" "$peer_search_mem" \
      "$peer_search_answer$([ "$first" = peer ] && echo ', ran first')"
  row "ours kalah(6,4) (solve --best-only --tt-mb $TT_MB${SOLVE_FLAGS:+ $SOLVE_FLAGS})" "$ours_search_wall" "$ours_search_cpu" \
      "$ours_search_nodes" "$ours_search_mem" \
      "$(ratio "$peer_search_wall" "$ours_search_wall" "$peer_search_cpu" "$ours_search_cpu"), $ours_search_answer$([ "$first" = ours ] && echo ', ran first')"
  search_ratios+=" $(cpu_ratio "$peer_search_cpu" "$ours_search_cpu")"
done

{
  echo
  echo "# load after: $(uptime | sed 's/.*load average: //')"
  printf '%-34s %9s %9s %13s %9s  %s\n' job wall_s cpu_s nodes peak_MiB notes
  printf '%s\n' "${rows[@]}"
  echo "median of $REPEAT pair(s), CPU time, peer / ours: tables $(median <<< "$table_ratios")x (of$table_ratios)," \
       "Kalah(6,4) $(median <<< "$search_ratios")x (of$search_ratios)"
} | tee -a "$RAW"
echo "raw output: $RAW"
