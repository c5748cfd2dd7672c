#!/usr/bin/env bash
# Peak memory of every rank, traffic and time split of mancala-tb-mpi on 1, 2, 4 and
# 8 loopback ranks (one thread each), every file compared with mancala-tb generate.
#
#   scripts/bench_cluster.sh BUILD_DIR WORK_DIR VARIANT MAX_SEEDS [MEMORY_MB] [NPS]
#
# Prints one line per run: ranks, the largest rank's peak RSS (GNU time of each rank),
# rank 0's and the largest of the others', the bound (1.25 bytes x largest class) / K +
# 64 MiB, and mancala-tb-mpi's --stats (the sums over ranks, then each rank's seconds
# solving, exchanging, compressing and writing), and each rank's peak trace: the phase
# its peak was reached in and where it grew most (MANCALA_MPI_PEAK_TRACE, main.cpp), and
# each rank's CPU time (user, sys) and wall time (GNU time).
# The runs' logs stay in WORK_DIR (log-K-VARIANT-SEEDS).
#
# CHECKSUMS=FILE (e.g. results/checksums/large.sha256, lines "VARIANT up to SEEDS
# SHA256 NAME"): the files are compared with those sums instead of with a reference
# made by mancala-tb generate (Oware up to 20 without its 30 minutes of generate).
set -euo pipefail
build=$1 work=$2 v=$3 seeds=$4 mem=${5:-0} nps=${6:-"1 2 4 8"}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tb=$build/tools/mancala-tb mpi=$build/cluster/mancala-tb-mpi
mkdir -p "$work"
d=$(echo "$v" | tr : _)
ref=$work/ref-$d-$seeds
sums=${CHECKSUMS:-}
if [ -n "$sums" ]; then
  grep -q "^$v up to $seeds .*\.mtb$" "$sums" || { echo "no sums of $v up to $seeds in $sums"; exit 1; }
elif [ ! -d "$ref" ]; then
  /usr/bin/time -f "generate: %e s wall, %U s user %S s sys, %M KB peak" "$tb" generate "$v" --max-seeds "$seeds" --out "$ref" --threads 1 \
    --memory-mb "$mem" > /dev/null
fi
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
wrap=$work/rank-time.sh
cat > "$wrap" << 'W'
#!/bin/sh
exec /usr/bin/time -f "rank ${OMPI_COMM_WORLD_RANK:-0} peak %M KB, cpu %U s user %S s sys, %e s wall" "$@"
W
chmod +x "$wrap"
for np in $nps; do
  out=$work/m$np-$d-$seeds
  rm -rf "$out"
  log=$work/log-$np-$d-$seeds
  MANCALA_MPI_PEAK_TRACE=1 mpirun --allow-run-as-root -x MANCALA_MPI_PEAK_TRACE --oversubscribe -np "$np" "$wrap" "$mpi" generate "$v" --max-seeds "$seeds" --out "$out" \
    --threads 1 --stats --memory-mb "$mem" > "$log" 2>&1 || { cat "$log"; exit 1; }
  if [ -n "$sums" ]; then
    want=$(grep -c "^$v up to $seeds .*\.mtb$" "$sums")
    got=$(ls "$out"/*.mtb | wc -l)
    [ "$want" = "$got" ] || { echo "DIFFERS: $got files, $want in $sums"; exit 1; }
    grep "^$v up to $seeds .*\.mtb$" "$sums" | while read -r _ _ _ _ sum name; do
      [ "$(sha256sum < "$out/$name" | cut -d' ' -f1)" = "$sum" ] || { echo "DIFFERS: $name"; exit 1; }
    done
    echo "files: $got, every one's sha256 as in $sums"
  else
    for f in "$ref"/*.mtb; do cmp -s "$f" "$out/$(basename "$f")" || { echo "DIFFERS: $f"; exit 1; }; done
  fi
  largest=$(grep -o 'positions [0-9]*' "$out/$d.manifest" | awk '{ if ($2 > m) m = $2 } END { print m }')
  peak=$(grep -o 'peak [0-9]* KB' "$log" | awk '{ if ($2 > m) m = $2 } END { print m }')
  peak0=$(grep -o 'rank 0 peak [0-9]* KB' "$log" | awk '{ print $4 }')
  others=$({ grep -o 'rank [1-9][0-9]* peak [0-9]* KB' "$log" || true; } | awk '{ if ($4 > m) m = $4 } END { print m + 0 }')
  bound=$(python3 -c "print(round((1.25 * $largest / $np + 64 * 2**20) / 1024))")
  echo "np $np: largest class $largest, largest rank peak $peak KB (rank 0 $peak0 KB, others at most $others KB)," \
    "bound $bound KB; $(grep '^stats ranks' "$log")"
  grep '^stats rank [0-9]* solving' "$log" | sed 's/^/  /' || true
  grep '^rank [0-9]* peak' "$log" | sort -n -k2 | sed 's/^/  /' || true
  grep '^peak trace rank' "$log" | sort | sed 's/^/  /' || true
  rm -rf "$out"
done
