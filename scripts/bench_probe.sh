#!/usr/bin/env bash
# Random probe rates of the C API beside random memory reads (issue 31), written to
# results/probe.md.
#
#   bash scripts/bench_probe.sh            (after scripts/build.sh; about three minutes)
#
# For Oware up to each of SEEDS (default "16 20") seeds: the tables are generated into
# WORK (default /tmp/mancala-probe-bench; kept for the next run), COUNT (default 200000)
# positions drawn uniformly from every table (bench/probe_bench.cpp), and with 1, 2 and 8
# threads on one handle (bench/probe_rate_c.c, linked as an engine links
# libmancala_probe): random one-byte reads from an in-memory array of one byte a
# position of the tables, values by mtb_value_pits (the position as numbers) and by
# mtb_value (as text), full probes by mtb_probe, batches by mtb_values_pits, and dependent
# reads of the array (each index from the byte read before: one memory latency, the
# floor of a single call that misses), and mtb_value_pits of one position again and
# again (everything in the cache: the floor of the call's instructions), mtb_value of
# one position again (the same with the parse of its text), all in the
# same run; then, in the same process, the tables loaded into memory (mtb_load) and
# values from numbers, from text, batches and full probes from numbers again. Each figure
# is the median of REPEAT (default 3) such processes. Peak memory: the
# peak resident size (GNU time) of the 8-thread run without the array, beside the
# bytes of the tables (the mapped files).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD_DIR:-build}
WORK=${WORK:-/tmp/mancala-probe-bench}
SEEDS=${SEEDS:-16 20}
COUNT=${COUNT:-200000}
REPEAT=${REPEAT:-3}
TB=$BUILD/tools/mancala-tb
for exe in "$TB" "$BUILD/bench/probe_bench" "$BUILD/bench/probe_rate_c"; do
  [ -x "$exe" ] || { echo "missing $exe: build first (scripts/build.sh)" >&2; exit 1; }
done
mkdir -p "$WORK"
fmt() { awk -v x="$1" 'BEGIN { if (x >= 1e6) printf "%.2f M", x / 1e6; else printf "%.0f k", x / 1e3 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "1/%.1f", a / b }'; }
# Lines of the same words, one a run: each number replaced by its median over the runs
# (the host's moods move a run's figures by a fifth and more, the array's as much as the
# calls': each figure of a row is its median of REPEAT runs).
median() {
  awk '{ for (i = 1; i <= NF; ++i) v[NR, i] = $i; if (NF > nf) nf = NF }
       END { for (i = 1; i <= nf; ++i) {
               n = 0; for (r = 1; r <= NR; ++r) x[++n] = v[r, i]
               if (x[1] !~ /^[0-9.]+$/) { printf "%s%s", x[1], i < nf ? " " : "\n"; continue }
               for (a = 2; a <= n; ++a) for (b = a; b > 1 && x[b] + 0 < x[b - 1] + 0; --b) { t = x[b]; x[b] = x[b - 1]; x[b - 1] = t }
               printf "%s%s", n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2, i < nf ? " " : "\n" } }'
}
rows="" crows="" lrows="" sizes="" mem=""
load=$(cut -d' ' -f1 /proc/loadavg)
for seeds in $SEEDS; do
  dir=$WORK/oware-$seeds
  if ! "$TB" info "$dir" > /dev/null 2>&1 || [ ! -f "$dir/oware.$seeds.0000000000000000.mtb" ]; then
    rm -rf "$dir"
    "$TB" generate oware --max-seeds "$seeds" --out "$dir" > /dev/null
  fi
  tables=$("$BUILD/bench/probe_bench" positions "$dir" oware "$COUNT" 1 "$WORK/positions.txt" "$WORK/warm.txt")
  positions=$(sed -E 's/.* files, ([0-9]+) positions.*/\1/' <<<"$tables")
  bytes=$(sed -E 's/.* positions, ([0-9]+) bytes.*/\1/' <<<"$tables")
  sizes+="| up to $seeds | $positions | $bytes | $(awk -v b="$bytes" -v n="$positions" 'BEGIN { printf "%.3f", b / n }') |"$'\n'
  for t in 1 2 8; do
    : > "$WORK/runs.txt"
    for ((r = 0; r < REPEAT; ++r)); do
      PROBE_LOAD=1 "$BUILD/bench/probe_rate_c" "$dir" "$WORK/positions.txt" "$t" "$positions" >> "$WORK/runs.txt"
    done
    out=$(grep '^threads' "$WORK/runs.txt" | median; grep '^loaded' "$WORK/runs.txt" | median)
    read -r _ _ _ array _ pits _ text _ probe _ batch _ chain _ pprobe _ _ carray _ cpits _ ctext _ cprobe _ cbatch _ cchain _ cpprobe _ hot chot _ hottext chottext _ \
      <<<"$(head -1 <<<"$out")"
    read -r _ lbytes lsecs _ lpits clpits _ lbatch clbatch _ lpprobe clpprobe _ lhot clhot _ ltext cltext <<<"$(sed -n 2p <<<"$out")"
    lrows+="| up to $seeds | $t | $(awk -v b="$lbytes" 'BEGIN { printf "%.0f", b / 1048576 }') MiB in $lsecs s | $(fmt "$carray") | $(fmt "$clpits") ($(ratio "$carray" "$clpits")) | $(fmt "$cltext") ($(ratio "$carray" "$cltext")) | $(fmt "$clbatch") ($(ratio "$carray" "$clbatch")) | $(fmt "$clpprobe") ($(ratio "$carray" "$clpprobe")) | $(fmt "$cchain") ($(ratio "$carray" "$cchain")) | $(fmt "$clhot") ($(ratio "$carray" "$clhot")) |"$'\n'
    rows+="| up to $seeds | $t | $(fmt "$array") | $(fmt "$pits") ($(ratio "$array" "$pits")) | $(fmt "$text") ($(ratio "$array" "$text")) | $(fmt "$probe") ($(ratio "$array" "$probe")) | $(fmt "$pprobe") ($(ratio "$array" "$pprobe")) | $(fmt "$batch") ($(ratio "$array" "$batch")) | $(fmt "$chain") ($(ratio "$array" "$chain")) | $(fmt "$hot") ($(ratio "$array" "$hot")) | $(fmt "$hottext") ($(ratio "$array" "$hottext")) |"$'\n'
    crows+="| up to $seeds | $t | $(fmt "$carray") | $(fmt "$cpits") ($(ratio "$carray" "$cpits")) | $(fmt "$ctext") ($(ratio "$carray" "$ctext")) | $(fmt "$cprobe") ($(ratio "$carray" "$cprobe")) | $(fmt "$cpprobe") ($(ratio "$carray" "$cpprobe")) | $(fmt "$cbatch") ($(ratio "$carray" "$cbatch")) | $(fmt "$cchain") ($(ratio "$carray" "$cchain")) | $(fmt "$chot") ($(ratio "$carray" "$chot")) | $(fmt "$chottext") ($(ratio "$carray" "$chottext")) |"$'\n'
  done
  /usr/bin/time -f "rss %M" "$BUILD/bench/probe_rate_c" "$dir" "$WORK/positions.txt" 8 0 > /dev/null 2> "$WORK/time.txt"
  rss=$(sed -n 's/^rss //p' "$WORK/time.txt")
  mem+="| up to $seeds | $((rss / 1024)) MiB | $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }') MiB | $(awk -v r="$rss" -v b="$bytes" 'BEGIN { printf "%.1f", r / 1024 - b / 1048576 }') MiB |"$'\n'
done

marker="<!-- the part above is written by scripts/bench_probe.sh; below, by hand -->"
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
{
  echo "# Random probes: values and full probes through the C API"
  echo
  echo "Made by \`bash scripts/bench_probe.sh\` (SEEDS=\"$SEEDS\" COUNT=$COUNT REPEAT=$REPEAT) on $(date -u +%Y-%m-%d),"
  echo "$cpu, $(nproc) cores (load average $load when it started: above 0, other jobs shared"
  echo "the machine, and the CPU-time table below is the one that holds). Table format version 7"
  echo "(docs/format.md): values in units of 64 positions coded by a per-file Huffman code"
  echo "(each unit's margins relative to its shift where that pays), decoded in place from the"
  echo "memory-mapped files. The program \`bench/probe_rate_c.c\`"
  echo "links libmancala_probe as an engine does and runs every figure of a row in one"
  echo "process: COUNT positions drawn uniformly from every table (the tables in the OS page"
  echo "cache, as after a first pass), each thread going once through all of them on one"
  echo "shared handle. Each figure is the median of REPEAT such processes (the host's moods"
  echo "move one process's figures, the array's as much as the calls', by a fifth and more)."
  echo
  echo "- **array**: random one-byte reads from an in-memory array of one byte a position of"
  echo "  the tables (the same size as the values uncompressed), 20 million a thread;"
  echo "- **values, numbers**: \`mtb_value_pits\` (the position as numbers, as an engine holds it);"
  echo "- **values, text**: \`mtb_value\` (the position as text: parsing included);"
  echo "- **full probes, text**: \`mtb_probe\` (the value and every move's value, the position as text);"
  echo "- **full probes, numbers**: \`mtb_probe_pits\` (the same, the position as numbers);"
  echo "- **values, batch**: \`mtb_values_pits\` on 64 positions a call (numbers; the memory"
  echo "  reads of 16 positions at a time overlap);"
  echo "- **dependent reads**: one-byte reads of the array where each index depends on the byte"
  echo "  read before: the latency of one random read from memory, which no call that must wait"
  echo "  for one can beat (the array's reads overlap theirs; a single value waits for at least"
  echo "  one: its unit's bytes);"
  echo "- **one position, cached**: \`mtb_value_pits\` of one position again and again, everything"
  echo "  it reads in the cache: what a call's instructions cost, the floor of values from numbers"
  echo "  whatever the memory;"
  echo "- **one position as text, cached**: \`mtb_value\` of one position again and again: the"
  echo "  same with the parse of its text."
  echo
  echo "Calls per second, all threads together, and the fraction of the array's rate:"
  echo
  echo "| Oware | threads | array | values, numbers | values, text | full probes, text | full probes, numbers | values, batch | dependent reads | one position, cached | one position as text, cached |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s' "$rows"
  echo
  echo "The same calls per second of the process's CPU time (what the calls cost, whatever"
  echo "else ran on the machine):"
  echo
  echo "| Oware | threads | array | values, numbers | values, text | full probes, text | full probes, numbers | values, batch | dependent reads | one position, cached | one position as text, cached |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s' "$crows"
  echo
  echo "Loaded into memory (\`mtb_load\` after the figures above, in the same process: every"
  echo "table decoded once into one byte a position, 2 MiB pages; then a value is one memory"
  echo "read), calls per second of CPU time and the fraction of the array's rate of the same run:"
  echo
  echo "| Oware | threads | loaded | array | values, numbers | values, text | values, batch | full probes, numbers | dependent reads | one position, cached |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  printf '%s' "$lrows"
  echo
  echo "Targets (issue 31): values from numbers at least 1/10 of the array's rate, from text and"
  echo "full probes at least 1/40. With 8 threads on 2 cores, the threads share the cores."
  echo
  echo "Bytes a position on disk (values; \`mancala-tb info\`):"
  echo
  echo "| Oware | positions | bytes | bytes/position |"
  echo "|---|---|---|---|"
  printf '%s' "$sizes"
  echo
  echo "Peak memory of the 8-thread run without the array (GNU time's peak resident size, which"
  echo "counts the pages of the mapped tables it touched) beside the tables' size on disk:"
  echo
  echo "| Oware | peak RSS | tables (mapped) | above the tables |"
  echo "|---|---|---|---|"
  printf '%s' "$mem"
  echo
  echo "$marker"
  # What follows the marker was written by hand: kept as it is.
  if [ -f results/probe.md ]; then awk -v m="$marker" 'after; $0 == m { after = 1 }' results/probe.md; fi
} > "$WORK/probe.md"
mv "$WORK/probe.md" results/probe.md
cat results/probe.md
