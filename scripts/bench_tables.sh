#!/usr/bin/env bash
# The table-generation benchmark (issue 13): one command, one line per job with
# positions per second per thread, wall and CPU time, peak memory (GNU time),
# bytes per position in memory (peak / largest class) and on disk, and the target.
#
#   scripts/bench_tables.sh [quick|full|memory|sweeps] [BUILD_DIR]
#
# quick (default): Kalah(6) and Oware up to 20 seeds with 1 and 2 threads (minutes).
# full: also Cenne 7:7 up to 18 and Kotu-baendum up to 16 with 2 threads, and the
# memory jobs (about an hour).
# memory: Kalah(6) and Oware up to 20, Cenne 7:7 up to 18 and Kotu-baendum up to 16
# under a --memory-mb budget, against the bound of 1.25 bytes per position of the
# largest class plus 64 MiB (about 35 minutes: Kotu-baendum at 140 MiB alone takes 22-24).
# sweeps: the jobs of the games solved by sweeps (Cenne 7:7, Kotu-baendum), both kinds.
# Raw outputs (one line per class, then GNU time) go to results/raw/generate-*.txt; the
# sha256 of every file of every run (any threads or budget) is checked against (or,
# when missing, written to) results/checksums/large.sha256.
set -euo pipefail
cd "$(dirname "$0")/.."
set_name=${1:-quick}
B=${2:-build}/tools/mancala-tb
OUT=results/raw
mkdir -p "$OUT"
# variant, seeds, threads, target seconds (- none), --memory-mb (- none: the default)
speed=("kalah:6:empty 20 1 25 -" "kalah:6:empty 20 2 - -" "oware 20 2 60 -" "oware 20 1 - -")
multilap=("cenne:7:7 18 2 200 -" "kotu-baendum 16 2 480 -")
memory=("kalah:6:empty 20 1 - 160" "oware 20 2 - 150" "cenne:7:7 18 2 - 300" "kotu-baendum 16 2 - 140")
case "$set_name" in
  quick) jobs=("${speed[@]}") ;;
  full) jobs=("${speed[@]}" "${multilap[@]}" "${memory[@]}") ;;
  memory) jobs=("${memory[@]}") ;;
  sweeps) jobs=("${multilap[@]}" "${memory[@]:2}") ;;
  *) echo "usage: scripts/bench_tables.sh [quick|full|memory|sweeps] [BUILD_DIR]" >&2; exit 2 ;;
esac
sums=$(mktemp)
golden=results/checksums/large.sha256
checks=()
trap 'rm -f "$sums"' EXIT
printf "%-22s %5s %7s %14s %9s %9s %12s %10s %9s %9s %s\n" job seeds threads positions wall_s cpu_s "pos/s/thread" peak_MiB "B/pos" "disk B/pos" target
for job in "${jobs[@]}"; do
  set -- $job
  v=$1 n=$2 t=$3 target=$4 mem=$5
  dir=$(mktemp -d /tmp/tb-bench.XXXXXX)
  budget=() suffix=""
  [ "$mem" != - ] && budget=(--memory-mb "$mem") suffix="-mem$mem"
  log="$OUT/generate-${v//:/_}-$n-t$t$suffix.txt"
  echo "# mancala-tb generate $v --max-seeds $n --out DIR --threads $t --verbose ${budget[*]}" > "$log"
  /usr/bin/time -v "$B" generate "$v" --max-seeds "$n" --out "$dir" --threads "$t" --verbose "${budget[@]}" >> "$log" 2>&1
  disk=$(du -sb "$dir" | cut -f1)
  echo "disk bytes $disk" >> "$log"
  sed -i "s|$dir|DIR|g" "$log"   # no machine paths in results/
  [[ $B == /* ]] && sed -i "s|$B|BUILD/tools/mancala-tb|g" "$log"
  {  # every run, whatever its threads and budget
    (cd "$dir" && sha256sum -- *.mtb) | sed "s|^|$v up to $n  |" | sort > "$sums"
    if grep -q "^$v up to $n " "$golden" 2>/dev/null; then
      if [ "$(cat "$sums")" = "$(grep "^$v up to $n " "$golden" | sort)" ]; then
        checks+=("ok: every $v file up to $n seeds of the run with $t threads${budget[*]:+, ${budget[*]}} matches $golden")
      else
        checks+=("FAIL: $v tables of the run with $t threads${budget[*]:+, ${budget[*]}} differ from $golden")
      fi
    else
      cat "$sums" >> "$golden"
      checks+=("wrote the sha256 of the $v files to $golden")
    fi
  }
  rm -rf "$dir"
  awk -v job="$v$suffix" -v n="$n" -v t="$t" -v disk="$disk" -v target="$target" -v mem="$mem" '
    /^solved/ { match($0, /positions [0-9]+/); c = substr($0, RSTART + 10, RLENGTH - 10) + 0; pos += c; if (c > big) big = c }
    # the summary line is the total (a "solved" line can be split by a progress line in the log)
    / seeds: [0-9]+ classes solved, .* positions,/ { match($0, /[0-9]+ positions,/); total = substr($0, RSTART, RLENGTH - 11) + 0 }
    /Elapsed \(wall clock\)/ { split($NF, a, ":"); wall = (length(a) == 3) ? a[1]*3600 + a[2]*60 + a[3] : a[1]*60 + a[2] }
    /User time/ { cpu += $NF } /System time/ { cpu += $NF }
    /Maximum resident set size/ { rss = $NF * 1024 }
    END {
      if (total > 0) pos = total
      verdict = (target == "-") ? "" : sprintf("under %s s: %s", target, (wall < target) ? "met" : "MISSED");
      if (mem != "-") {  # the memory bound: 1.25 bytes per position of the largest class + 64 MiB
        bound = 1.25 * big + 64 * 1048576
        verdict = sprintf("peak under %.1f MiB: %s", bound / 1048576, (rss <= bound) ? "met" : "MISSED")
      }
      printf "%-22s %5d %7d %14d %9.1f %9.1f %12.0f %10.1f %9.3f %9.3f %s\n", job, n, t, pos, wall, cpu,
             pos / wall / t, rss / 1048576, rss / big, disk / pos, verdict
    }' "$log"
done
# The files of every run against the committed checksums.
printf "%s\n" "${checks[@]}"
for c in "${checks[@]}"; do [[ $c == FAIL* ]] && exit 1; done
exit 0
