#!/usr/bin/env bash
# End-to-end tests of mancala-tb-mpi on one machine (loopback ranks).
#
#   test_cluster.sh identical MPI_EXE TB_EXE WORKDIR
#       all seven games (marks and reachable-set roots included) with 1, 2 and 4
#       ranks give the same files, byte for byte, and the same number of files, as
#       `mancala-tb generate`; verify/info/probe read them; the manifest lists every
#       class with the right checksums.
#   test_cluster.sh kill MPI_EXE TB_EXE WORKDIR
#       a rank killed with SIGKILL in the middle of a class ends the job (no hang)
#       with a clear message; --resume finishes it with identical files. A frozen
#       rank (SIGSTOP) is caught by --timeout-seconds.
#   test_cluster.sh checkpoint MPI_EXE TB_EXE WORKDIR
#       a job killed inside a class after a checkpoint there (--checkpoint-seconds 0:
#       one at every level or sweep boundary) resumes on another number of ranks
#       from that checkpoint, not from the class's start, with identical files: the
#       level method (Oware, 2 ranks -> 3) and the sweeps (Djenon-aboure, 3 ranks ->
#       2, killed again -> 1); no checkpoint file is left.
#   test_cluster.sh budget MPI_EXE TB_EXE WORKDIR
#       sharded lower classes (the default here) and replicated ones give the same
#       files (every rank writing its blocks: with pwrite, or sent to rank 0); no shard
#       file is left; a per-rank --memory-mb below what one rank
#       needs for the largest class is refused at once on 1 rank, naming the budget
#       it would need, and finishes with identical files on 8 ranks, each rank's
#       peak resident size (VmHWM) within the budget.
#   test_cluster.sh distances MPI_EXE TB_EXE WORKDIR
#       generate --distances: every game with distance tables on 1-4 ranks (whole
#       and sharded classes) writes the same .mtb and .mtz files, byte for byte, as
#       `mancala-tb generate --distances`; --resume --distances on a folder of
#       value files adds the distance files; a game without distances writes none.
set -euo pipefail
what=$1 mpi_exe=$2 tb_exe=$3 work=$4
# CI runs as root; two cores run up to four ranks.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
mpirun=(mpirun --allow-run-as-root --oversubscribe)

rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

source "$(dirname "${BASH_SOURCE[0]}")/same_tables.sh"

# check_manifest DIR VARIANT: one class line per table file, file checksums right, complete.
check_manifest() {
  local dir=$1 m=$1/$(echo "$2" | tr : _).manifest
  [ -f "$m" ] || fail "no manifest $m"
  grep -qx complete "$m" || fail "$m is not complete"
  [ "$(grep -c '^class ' "$m")" -eq "$(ls "$dir"/*.mtb | wc -l)" ] || fail "$m does not list every class"
  # Every class line's file size and CRC-32 in one python3 (fields 10, 12 and 14 of the
  # line): a python3 a file cost ~0.5 s each through pyenv's shim, minutes for
  # Kotu-baendum's 271 classes.
  python3 - "$dir" "$m" <<'EOF' || fail "$m: a file's size or crc32 differs from the manifest"
import os, sys, zlib
folder, manifest = sys.argv[1], sys.argv[2]
bad = 0
for line in open(manifest):
    f = line.split()
    if not f or f[0] != "class":
        continue
    name, size, crc = f[9], int(f[11]), f[13]
    path = os.path.join(folder, name)
    got = "%08x" % zlib.crc32(open(path, "rb").read())
    if os.path.getsize(path) != size or got != crc:
        print(f"{manifest}: {name}: {os.path.getsize(path)} bytes, crc32 {got}; manifest says {size}, {crc}", file=sys.stderr)
        bad += 1
sys.exit(1 if bad else 0)
EOF
}

case "$what" in
  identical)
    "$mpi_exe" --version | grep -qx "mancala-tb-mpi [0-9][0-9.]*" || fail "mancala-tb-mpi --version"
    # Bad arguments: one line, before MPI starts, exit 2 on every rank.
    set +e
    "${mpirun[@]}" -np 2 "$mpi_exe" generate oware --max-seeds 4 --out "$work/bad" --level 30 > "$work/bad.log" 2>&1
    rc=$?
    set -e
    [ "$rc" -ne 0 ] && [ "$(grep -c 'mancala-tb-mpi: --level' "$work/bad.log")" -eq 1 ] ||
      { cat "$work/bad.log"; fail "a bad argument should give one line and a non-zero exit"; }
    # Every game, with its marks (Kotu-baendum's ties, Cenne's jeppe/atappe) and the
    # reachable-set roots of Enkeshui and Imbelece (generate --from).
    for spec in "djenon-aboure 6" "oware 8" "kalah:4:empty 8" "kalah:6:standard 8" "kotu-baendum 5" "cenne:5:4 6" \
                "cenne:7:7 6" "--from=enkeshui:8 0S,0,1,2,1,2,0,0/0N,0,2,1,2,1,0,0 S 10" \
                "--from=imbelece 2,1,1,2,0x,0x,0x,0x/1,2,2,1,0x,0x,0x,0x S 10"; do
      spec_args "$spec"
      "$tb_exe" generate "${args[@]}" --max-seeds "$seeds" --out "$work/ref-$d" --threads 1 > /dev/null
      # One rank for the games with marks (a different code path from none), 2 and 4 for all.
      nps="2 4"; case "$v" in kotu-baendum|cenne:*) nps="1 2 4" ;; esac
      for np in $nps; do
        out=$work/mpi$np-$d
        timeout 120 "${mpirun[@]}" -np "$np" "$mpi_exe" generate "${args[@]}" --max-seeds "$seeds" --out "$out" --threads 1 \
          --timeout-seconds 60 > "$work/log-$np-$d" 2>&1 || { cat "$work/log-$np-$d"; fail "$v on $np ranks"; }
        same_tables "$work/ref-$d" "$out"
        check_manifest "$out" "$v"
        echo "ok: ${args[*]} up to $seeds seeds on $np ranks: identical files ($(ls "$out"/*.mtb | wc -l))"
      done
      # The standard readers take the folder like any other.
      "$tb_exe" verify "$work/mpi4-$d" > /dev/null || fail "verify $v"
      "$tb_exe" info "$work/mpi4-$d" | grep -q . || fail "info $v"
    done
    a=$("$tb_exe" probe "$work/ref-oware" --json "oware 1,0,2,0,0,1/0,1,0,2,0,1 S")
    b=$("$tb_exe" probe "$work/mpi2-oware" --json "oware 1,0,2,0,0,1/0,1,0,2,0,1 S")
    [ -n "$a" ] && [ "$a" = "$b" ] || fail "probe differs: $a / $b"
    echo "ok: verify, info and probe read the MPI tables"
    ;;
  kill)
    v=oware seeds=9
    export MANCALA_MPI_TEST_WHOLE_BELOW=0  # every class sharded: the resumed ones go through shard files
    "$tb_exe" generate $v --max-seeds $seeds --out "$work/ref" --threads 1 > /dev/null
    out=$work/run
    # Rank 1 kills itself (SIGKILL) in the middle of class 9 (8 seeds).
    set +e
    MANCALA_MPI_TEST_KILL=1:9 timeout 60 "${mpirun[@]}" -np 2 "$mpi_exe" generate $v --max-seeds $seeds --out "$out" \
      --threads 1 > "$work/killed.log" 2>&1
    rc=$?
    set -e
    cat "$work/killed.log"
    [ "$rc" -ne 124 ] || fail "the job hung after a rank was killed"
    [ "$rc" -ne 0 ] || fail "the job succeeded although a rank was killed"
    grep -qi "signal 9\|killed" "$work/killed.log" || fail "no clear message about the killed rank"
    [ "$(ls "$out"/*.mtb | wc -l)" -eq 8 ] || fail "expected the 8 classes before the killed one to be on disk"
    ! grep -qx complete "$out/oware.manifest" || fail "manifest of a killed job says complete"
    [ "$(grep -c '^class ' "$out/oware.manifest")" -eq 8 ] || fail "manifest should list 8 finished classes"
    echo "ok: killed rank ended the job (rc $rc) with 8 classes checkpointed"
    # The same command without --resume refuses to overwrite.
    if "${mpirun[@]}" -np 2 "$mpi_exe" generate $v --max-seeds $seeds --out "$out" > "$work/refuse.log" 2>&1; then
      fail "a second run without --resume was accepted"
    fi
    grep -q "add --resume" "$work/refuse.log" || fail "no hint to use --resume"
    # ... with one line from rank 0 and a normal finalize on every rank (no MPI_Abort).
    [ "$(grep -c 'already holds tables' "$work/refuse.log")" -eq 1 ] || fail "the refusal is not one line"
    ! grep -q "MPI_ABORT" "$work/refuse.log" || fail "the refusal went through MPI_Abort"
    # Resume on another number of ranks: the files do not depend on it.
    timeout 120 "${mpirun[@]}" -np 4 "$mpi_exe" generate $v --max-seeds $seeds --out "$out" --resume --threads 1 \
      --verbose > "$work/resume.log" 2>&1 || { cat "$work/resume.log"; fail "resume"; }
    [ "$(grep -c ': loaded' "$work/resume.log")" -eq 8 ] || fail "resume should load 8 classes"
    same_tables "$work/ref" "$out"
    check_manifest "$out" $v
    echo "ok: --resume finished the job with identical files"
    # A frozen rank: only the watchdog notices.
    set +e
    MANCALA_MPI_TEST_KILL=1:5:stop timeout 60 "${mpirun[@]}" -np 2 "$mpi_exe" generate $v --max-seeds $seeds \
      --out "$work/frozen" --threads 1 --timeout-seconds 3 > "$work/frozen.log" 2>&1
    rc=$?
    set -e
    cat "$work/frozen.log"
    [ "$rc" -ne 124 ] || fail "the job hung on a frozen rank despite --timeout-seconds"
    grep -q "waited more than 3 s" "$work/frozen.log" || fail "no watchdog message"
    echo "ok: the watchdog ended the job of a frozen rank (rc $rc)"
    ;;
  checkpoint)
    export MANCALA_MPI_TEST_WHOLE_BELOW=0  # every class sharded
    # killed RANKS KILL VARIANT SEEDS OUT: a job on RANKS ranks with MANCALA_MPI_TEST_KILL=KILL must die.
    killed() {
      set +e
      MANCALA_MPI_TEST_KILL=$2 timeout 120 "${mpirun[@]}" -np "$1" "$mpi_exe" generate "$3" --max-seeds "$4" --out "$5" \
        --threads 1 --checkpoint-seconds 0 --verbose --resume > "$5.log" 2>&1
      local rc=$?
      set -e
      [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || { cat "$5.log"; fail "$3 on $1 ranks with $2: rc $rc, expected a killed job"; }
    }
    # resumed RANKS VARIANT SEEDS OUT: the job finishes on RANKS ranks.
    resumed() {
      timeout 120 "${mpirun[@]}" -np "$1" "$mpi_exe" generate "$2" --max-seeds "$3" --out "$4" --threads 1 \
        --checkpoint-seconds 0 --verbose --resume > "$4.resumed.log" 2>&1 || { cat "$4.resumed.log"; fail "$2 resumed on $1 ranks"; }
    }
    # Levels: Oware up to 11, class 12 (11 seeds, 701,064 positions); rank 1 dies after
    # the class's third checkpoint (pass 0, levels 11 and 10 done: step 9).
    "$tb_exe" generate oware --max-seeds 11 --out "$work/ref-oware" --threads 1 > /dev/null
    out=$work/oware
    killed 2 1:12:c3 oware 11 "$out"
    grep -q "class 11: checkpoint 2 (levels, step 9)" "$out.log" || { cat "$out.log"; fail "no third checkpoint in class 11"; }
    [ -f "$out/.mtb-checkpoint.oware.11.0000000000000000.mtb.meta" ] || fail "no checkpoint meta file"
    resumed 3 oware 11 "$out"
    grep -q "class 11: resumed from checkpoint 2 (levels, step 9)" "$out.resumed.log" ||
      { cat "$out.resumed.log"; fail "Oware did not resume from its checkpoint"; }
    ! grep -q "class 11: checkpoint 0 " "$out.resumed.log" || fail "the resumed Oware class started again"
    same_tables "$work/ref-oware" "$out"
    check_manifest "$out" oware
    [ -z "$(ls -A "$out" | grep '^\.mtb-')" ] || fail "checkpoint or shard files left in $out"
    echo "ok: Oware killed inside class 11 on 2 ranks, resumed from its checkpoint on 3: identical files"
    # Sweeps: Djenon-aboure up to 8, class 9 (8 seeds, 75,582 positions): killed on 3 ranks
    # after sweep 0's checkpoint, resumed on 2 (the ghosts listed again) and killed after
    # two more checkpoints, resumed on 1.
    "$tb_exe" generate djenon-aboure --max-seeds 8 --out "$work/ref-djenon" --threads 1 > /dev/null
    out=$work/djenon
    killed 3 2:9:c1 djenon-aboure 8 "$out"
    grep -q "class 8: checkpoint 0 (sweeps, step 0)" "$out.log" || { cat "$out.log"; fail "no checkpoint after sweep 0"; }
    killed 2 0:9:c2 djenon-aboure 8 "$out"
    grep -q "class 8: resumed from checkpoint 0 (sweeps, step 0)" "$out.log" || { cat "$out.log"; fail "no resume after sweep 0"; }
    grep -q "class 8: checkpoint 2 (sweeps, step 2)" "$out.log" || { cat "$out.log"; fail "no checkpoint after sweep 2"; }
    resumed 1 djenon-aboure 8 "$out"
    grep -q "class 8: resumed from checkpoint 2 (sweeps, step 2)" "$out.resumed.log" ||
      { cat "$out.resumed.log"; fail "Djenon-aboure did not resume from its checkpoint"; }
    same_tables "$work/ref-djenon" "$out"
    check_manifest "$out" djenon-aboure
    [ -z "$(ls -A "$out" | grep '^\.mtb-')" ] || fail "checkpoint or shard files left in $out"
    echo "ok: Djenon-aboure killed inside class 8 on 3 ranks, then on 2, resumed from its checkpoints: identical files"
    ;;
  budget)
    # (Replicated on 2 ranks, every class also goes through the ranks' writing without a
    # shared folder: each rank codes its blocks and sends them to rank 0; Kalah: 2 bytes
    # a value.)
    for v in oware djenon-aboure kalah:4:empty; do
      "$tb_exe" generate $v --max-seeds 8 --out "$work/ref-$v" --threads 1 > /dev/null
      for lower in sharded replicated; do
        out=$work/$lower-$v
        # Every class sharded, the small ones too (else those under 64 KiB stay whole).
        MANCALA_MPI_TEST_WHOLE_BELOW=0 timeout 120 "${mpirun[@]}" -np 2 "$mpi_exe" generate $v --max-seeds 8 --out "$out" --threads 1 \
          --lower-classes $lower --verbose > "$out.log" 2>&1 || { cat "$out.log"; fail "$v $lower"; }
        same_tables "$work/ref-$v" "$out"
        [ -z "$(ls -A "$out" | grep '^\.mtb-shard')" ] || fail "shard files left in $out"
        echo "ok: $v, --lower-classes $lower on 2 ranks: identical files"
      done
      grep -q "lower classes sharded" "$work/sharded-$v.log" || fail "the sharded run does not say so"
      ! grep -q "lower classes sharded" "$work/replicated-$v.log" || fail "the replicated run says sharded"
    done
    # Oware's class of 15 seeds (7,558,200 positions) needs about 9 MiB of arrays; a
    # rank also needs what it is resident at the start (about 15 MiB), 20 MiB held
    # back and a 4 MiB page cache: 44 MiB is too little for one rank (about 47), enough
    # for each of 8 (about 42). Each rank's peak (VmHWM, GNU time) stays within it.
    v=oware seeds=15 mb=44
    "$tb_exe" generate $v --max-seeds $seeds --out "$work/ref" --threads 1 > /dev/null
    set +e
    timeout 60 "${mpirun[@]}" -np 1 "$mpi_exe" generate $v --max-seeds $seeds --out "$work/small1" --threads 1 \
      --memory-mb $mb > "$work/small1.log" 2>&1
    rc=$?
    set -e
    cat "$work/small1.log"
    [ "$rc" -eq 1 ] || fail "a budget one rank cannot hold should be refused (exit 1, got $rc)"
    grep -q "a rank needs at least [0-9]* MiB for class 15 on 1 rank (9 MiB of working arrays.* MiB resident at the start); the budget is $mb MiB a rank" \
      "$work/small1.log" || fail "the refusal does not name the budget needed"
    ! ls "$work/small1"/*.mtb > /dev/null 2>&1 || fail "a refused job wrote tables"
    peak=$work/rank-peak.sh
    # (Each rank's line in a file of its own: on stderr, the ranks' lines interleave.)
    printf '#!/bin/sh\nexec /usr/bin/time -o "%s/peak.${OMPI_COMM_WORLD_RANK:-0}" -f "rank ${OMPI_COMM_WORLD_RANK:-0} peak %%M KB" "$@"\n' \
      "$work" > "$peak"
    chmod +x "$peak"
    timeout 300 "${mpirun[@]}" -np 8 "$peak" "$mpi_exe" generate $v --max-seeds $seeds --out "$work/small8" --threads 1 \
      --memory-mb $mb > "$work/small8.log" 2>&1 || { cat "$work/small8.log"; fail "$mb MiB a rank on 8 ranks"; }
    same_tables "$work/ref" "$work/small8"
    check_manifest "$work/small8" $v
    cat "$work"/peak.*
    [ "$(cat "$work"/peak.* | grep -c '^rank [0-9]* peak [0-9]* KB$')" -eq 8 ] || fail "not every rank's peak was measured"
    over=$(cat "$work"/peak.* | awk -v kb=$((mb * 1024)) '$4 > kb')
    [ -z "$over" ] || fail "a rank went over --memory-mb $mb: $over"
    echo "ok: --memory-mb $mb refused on 1 rank; on 8 ranks identical files, every rank's peak within $mb MiB"
    ;;
  distances)
    # same_distances REF DIR: the value files and the distance files of REF, the same in DIR, and no more.
    same_distances() {
      same_tables "$1" "$2"
      local n=0 f
      for f in "$1"/*.mtz; do
        cmp -s "$f" "$2/$(basename "$f")" || fail "$2/$(basename "$f") differs from $f"
        n=$((n + 1))
      done
      [ "$n" -gt 0 ] || fail "no distance tables in $1"
      [ "$(ls "$2"/*.mtz | wc -l)" -eq "$n" ] || fail "$2 holds other distance tables than $1"
    }
    # run NP OUT ARGS...: mancala-tb-mpi generate on NP ranks.
    run() {
      local np=$1 out=$2
      shift 2
      timeout 120 "${mpirun[@]}" -np "$np" "$mpi_exe" generate "$@" --out "$out" --threads 1 --timeout-seconds 60 \
        > "$out.log" 2>&1 || { cat "$out.log"; fail "$* on $np ranks"; }
    }
    for spec in "oware 8" "kotu-baendum 4" "djenon-aboure 5" "cenne:5:4 6" \
                "--from=enkeshui:8 0S,0,1,2,1,2,0,0/0N,0,2,1,2,1,0,0 S 10"; do
      spec_args "$spec"
      "$tb_exe" generate "${args[@]}" --max-seeds "$seeds" --out "$work/ref-$d" --threads 1 --distances > /dev/null
      # Kotu-baendum (ties: classes of marks, many of them) on 1 rank and 3.
      nps=2; case "$v" in oware) nps="1 2 3 4" ;; kotu-baendum) nps="1 3" ;; esac
      for np in $nps; do
        # 3 ranks: every class sharded (rank 0 reads a class back from its value file).
        whole_below=$((64 << 10)); [ "$np" -eq 3 ] && whole_below=0
        MANCALA_MPI_TEST_WHOLE_BELOW=$whole_below run "$np" "$work/mpi$np-$d" "${args[@]}" --max-seeds "$seeds" --distances
        same_distances "$work/ref-$d" "$work/mpi$np-$d"
        check_manifest "$work/mpi$np-$d" "$v"
        echo "ok: ${args[*]} up to $seeds seeds on $np ranks --distances: identical value and distance files ($(ls "$work/mpi$np-$d"/*.mtz | wc -l) .mtz)"
      done
    done
    # The values first, then --resume --distances on other ranks: the classes are loaded, the distances added.
    run 2 "$work/resume" oware --max-seeds 8
    ! ls "$work/resume"/*.mtz > /dev/null 2>&1 || fail "distance files without --distances"
    MANCALA_MPI_TEST_WHOLE_BELOW=0 run 3 "$work/resume" oware --max-seeds 8 --distances --resume
    same_distances "$work/ref-oware" "$work/resume"
    echo "ok: --resume --distances added the distance files to a folder of value files"
    run 2 "$work/kalah" kalah:4:empty --max-seeds 5 --distances
    grep -q "has no distance tables" "$work/kalah.log" || fail "no note that Kalah has no distance tables"
    ! ls "$work/kalah"/*.mtz > /dev/null 2>&1 || fail "distance files for Kalah"
    echo "ok: Kalah --distances: a note, no distance files"
    ;;
  *) fail "unknown test $what" ;;
esac
