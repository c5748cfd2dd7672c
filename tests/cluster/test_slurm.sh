#!/usr/bin/env bash
# cluster/slurm/generate.sbatch on a real, private, one-node Slurm.
#
#   test_slurm.sh MPI_EXE TB_EXE SBATCH_SCRIPT WORKDIR
#
# Starts munged, slurmctld and slurmd in WORKDIR (own key, socket, ports and state; the
# site's default MPI plugin is `none`, so the script must choose pmix itself), then:
#  * sbatch --wait the script for djenon-aboure, oware and kalah:4:empty: every file equal
#    byte for byte to `mancala-tb generate`, the README's probe reads the folder;
#  * the same with LAUNCHER=mpirun (Open MPI's mpirun inside the allocation), and with
#    --exclusive (one rank, all the node's CPUs as threads);
#  * sbatch --ntasks=2 --mem-per-cpu=300M with --level 3 after OUT_DIR (each rank's
#    --memory-mb from the submission, the option passed through), and a --from run;
#  * a job stopped by scancel mid-run (a rank frozen in class 7 by the test hook, so the
#    cancel always lands in the middle) exits non-zero with the resume hint, and the
#    same sbatch line resumes it to identical files;
#  * a job on the wrong MPI plugin (MPI_PLUGIN=none) or with a wrong MPI_EXE fails,
#    non-zero, with one clear line; the other plugins `srun --mpi=list` shows are tried
#    once each and reported (information, not checked).
# Stops every daemon it started, also on failure. Exits 77 (ctest: skipped) with one
# line saying why when Slurm cannot start here (not root, binaries missing, ...).
set -uo pipefail
mpi_exe=$1 tb_exe=$2 script=$3 work=$4
SKIP=77
skip() { echo "SKIP: $*"; exit $SKIP; }
fail() { echo "FAIL: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "starting slurmd needs root (CI runs as root)"
for b in munged mungekey slurmctld slurmd sbatch squeue scancel sinfo srun python3; do
  command -v "$b" > /dev/null || skip "no $b (packages slurm-wlm munge, scripts/install-deps.sh)"
done

rm -rf "$work"
mkdir -p "$work/jobs"
work=$(cd "$work" && pwd)
# Sockets and spool in a short private folder (unix socket paths are limited to 108 bytes);
# logs and jobs in WORKDIR.
rt=$(mktemp -d /tmp/mtb-slurm.XXXXXX) || skip "cannot make a folder in /tmp"
mkdir -p "$rt"/{munge,state,spool,tmpfs}
chmod 700 "$rt/munge"
pids=()
cleanup() {
  # Jobs first (their steps hold the PMIx servers), then the daemons, newest first.
  [ -n "${SLURM_CONF:-}" ] && scancel --quiet --name=mancala-tb > /dev/null 2>&1 && sleep 1
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[$i]}" 2> /dev/null; done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2> /dev/null || break; sleep 0.1; done
    kill -9 "$p" 2> /dev/null
  done
  cp "$rt"/munge/munged.log "$work"/ 2> /dev/null
  rm -rf "$rt"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- munge: own key and socket -----------------------------------------------------
m=$rt/munge
mungekey --create --keyfile="$m/munge.key" > /dev/null 2>&1 || skip "mungekey cannot create a key"
munged --foreground --force --socket="$m/munge.socket" --key-file="$m/munge.key" --pid-file="$m/munged.pid" \
  --log-file="$m/munged.log" --seed-file="$m/munged.seed" > "$work/munged.stdout" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$m/munge.socket" ] && break; sleep 0.1; done
[ -S "$m/munge.socket" ] || { cat "$work/munged.stdout" "$m/munged.log" 2> /dev/null; skip "munged did not start"; }

# ---- slurm.conf: one node (this machine as slurmd -C sees it), free ports ------------
read -r ctl_port node_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
node_line=$(slurmd -C 2> /dev/null | grep '^NodeName=') || skip "slurmd -C cannot describe this machine"
node=$(hostname -s)
node_line=$(echo "$node_line" | sed "s/^NodeName=[^ ]*/NodeName=$node/")
export SLURM_CONF=$work/slurm.conf
cat > "$SLURM_CONF" << EOF
ClusterName=mancalatest
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctl_port
SlurmdPort=$node_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$m/munge.socket
StateSaveLocation=$rt/state
SlurmdSpoolDir=$rt/spool
TmpFS=$rt/tmpfs
SlurmctldPidFile=$rt/slurmctld.pid
SlurmdPidFile=$rt/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
FirstJobId=$((ctl_port * 10))
ReturnToService=2
KillWait=5
MinJobAge=600
InactiveLimit=0
$node_line NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -D -i -f "$SLURM_CONF" > "$work/slurmctld.stdout" 2>&1 &
pids+=($!)
sleep 1
slurmd -D -f "$SLURM_CONF" -N "$node" > "$work/slurmd.stdout" 2>&1 &
pids+=($!)
state=""
for _ in $(seq 60); do
  state=$(sinfo -h -n "$node" -o %T 2> /dev/null) && [ "$state" = idle ] && break
  sleep 0.5
done
if [ "$state" != idle ]; then
  tail -n 20 "$work"/slurmctld.log "$work"/slurmd.log "$work"/*.stdout 2> /dev/null
  skip "the private Slurm did not come up (node state '${state:-none}')"
fi
plugins=$(srun --mpi=list 2>&1 | tr '\n' ' ')
echo "ok: private Slurm up ($(sinfo -V), node $node, ports $ctl_port/$node_port); srun --mpi=list: $plugins"
echo "$plugins" | grep -qw pmix || skip "this Slurm has no pmix MPI plugin"

source "$(dirname "${BASH_SOURCE[0]}")/same_tables.sh"
# job_log JOBID: the job's output file (the script's --output, in the submit folder).
job_log() { echo "$work/jobs/mancala-tb-$1.out"; }

# Jobs are submitted from $work/jobs, as a user would from their folder; as in the README.
cd "$work/jobs" || fail "cannot enter $work/jobs"
export MPI_EXE=$mpi_exe
sb=(sbatch --parsable --ntasks-per-node=2 --cpus-per-task=1)

# ---- three games, submitted together, each compared with mancala-tb generate --------
specs=("djenon-aboure 6" "oware 8" "kalah:4:empty 6")
declare -A job
for spec in "${specs[@]}"; do
  set -- $spec
  d=$(echo "$1" | tr : _)
  "${sb[@]}" --wait "$script" "$1" "$2" "tb-$d" > "sbatch-$d.id" 2> "sbatch-$d.err" &
  job[$d]=$!
done
for spec in "${specs[@]}"; do
  set -- $spec
  d=$(echo "$1" | tr : _)
  "$tb_exe" generate "$1" --max-seeds "$2" --out "$work/ref-$d" --threads 1 > /dev/null || fail "mancala-tb generate $1"
done
for spec in "${specs[@]}"; do
  set -- $spec
  d=$(echo "$1" | tr : _)
  wait "${job[$d]}"
  rc=$?
  id=$(head -n 1 "sbatch-$d.id")
  log=$(job_log "$id")
  [ "$rc" -eq 0 ] || { cat "sbatch-$d.err" "$log"; fail "job $id ($1 up to $2 seeds) exited with $rc"; }
  grep -q "^complete: tb-$d" "$log" || { cat "$log"; fail "job $id: no 'complete' line"; }
  same_tables "$work/ref-$d" "tb-$d"
  echo "ok: job $id: $1 up to $2 seeds on 2 ranks: identical files ($(ls "tb-$d"/*.mtb | wc -l) tables)"
done
# The README's last step: probe the folder the job wrote.
"$tb_exe" probe tb-oware "oware 1,0,2,0,0,1/0,1,0,2,0,1 S" | grep -q . || fail "the README's probe"
a=$("$tb_exe" probe "$work/ref-oware" --json "oware 1,0,2,0,0,1/0,1,0,2,0,1 S") || fail "probe of the reference"
b=$("$tb_exe" probe tb-oware --json "oware 1,0,2,0,0,1/0,1,0,2,0,1 S") || fail "probe of the job's folder"
[ -n "$a" ] && [ "$a" = "$b" ] || fail "probe differs: $a / $b"
"$tb_exe" verify tb-oware > /dev/null || fail "verify of the job's folder"
echo "ok: probe and verify read the job's folder"

# ---- LAUNCHER=mpirun: Open MPI's mpirun inside the allocation -----------------------
# (CI runs as root: mpirun wants these two; sbatch passes them on to the job.)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
id=$(LAUNCHER=mpirun "${sb[@]}" --wait "$script" oware 8 tb-mpirun)
rc=$?
[ "$rc" -eq 0 ] || { cat "$(job_log "$id")"; fail "job $id (LAUNCHER=mpirun) exited with $rc"; }
same_tables "$work/ref-oware" tb-mpirun
echo "ok: job $id: LAUNCHER=mpirun gives identical files"

# ---- the README's big-run form: --exclusive, one rank with all the node's CPUs -------
id=$(sbatch --parsable --wait --exclusive "$script" oware 8 tb-exclusive)
rc=$?
log=$(job_log "$id")
[ "$rc" -eq 0 ] || { cat "$log"; fail "job $id (--exclusive) exited with $rc"; }
cpus=$(sinfo -h -n "$node" -o %c)
grep -q "1 ranks on 1 node(s), $cpus threads per rank" "$log" || { cat "$log"; fail "job $id: not 1 rank x $cpus threads"; }
same_tables "$work/ref-oware" tb-exclusive
echo "ok: job $id: sbatch --exclusive runs 1 rank with $cpus threads, identical files"

# ---- sbatch --ntasks, the submission's memory, generate options passed through ------
"$tb_exe" generate oware --max-seeds 8 --out "$work/ref-level3" --threads 1 --level 3 > /dev/null || fail "generate --level 3"
id=$(sbatch --parsable --wait --ntasks=2 --cpus-per-task=1 --mem-per-cpu=300M "$script" oware 8 tb-opts --level 3)
rc=$?
log=$(job_log "$id")
[ "$rc" -eq 0 ] || { cat "$log"; fail "job $id (--ntasks=2 --mem-per-cpu=300M ... --level 3) exited with $rc"; }
grep -q "2 ranks on 1 node(s), 1 threads per rank, 300 MiB per rank" "$log" || { cat "$log"; fail "job $id: not 2 ranks x 300 MiB"; }
same_tables "$work/ref-level3" tb-opts
echo "ok: job $id: sbatch --ntasks=2 --mem-per-cpu=300M, --level 3 passed through: identical files"
root="enkeshui:8 0S,0,1,2,1,2,0,0/0N,0,2,1,2,1,0,0 S"
"$tb_exe" generate --from "$root" --max-seeds 10 --out "$work/ref-from" --threads 1 > /dev/null || fail "generate --from"
id=$(sbatch --parsable --wait --ntasks=2 --cpus-per-task=1 "$script" enkeshui:8 10 tb-from --from "$root")
rc=$?
log=$(job_log "$id")
[ "$rc" -eq 0 ] && grep -q "^complete: tb-from" "$log" || { cat "$log"; fail "job $id (--from) exited with $rc"; }
same_tables "$work/ref-from" tb-from
echo "ok: job $id: --from passed through: identical files, complete"

# ---- scancel mid-run, then the same sbatch line again -------------------------------
v=oware seeds=10
"$tb_exe" generate $v --max-seeds $seeds --out "$work/ref-cancel" --threads 1 > /dev/null || fail "mancala-tb generate"
args=("$script" "$v" "$seeds" tb-cancel)
# Test hook: rank 1 freezes (SIGSTOP) in the middle of class 7, so the job is still
# running, with 6 classes done, when scancel comes.
id=$(MANCALA_MPI_TEST_KILL=1:7:stop "${sb[@]}" "${args[@]}") || fail "sbatch"
for _ in $(seq 240); do
  [ "$(grep -c '^class ' tb-cancel/oware.manifest 2> /dev/null)" = 6 ] && break
  sleep 0.5
done
[ "$(squeue --me -h -j "$id" -o %T)" = RUNNING ] || { cat "$(job_log "$id")"; fail "job $id is not running before scancel"; }
[ "$(grep -c '^class ' tb-cancel/oware.manifest)" = 6 ] || fail "job $id did not reach class 7"
scancel "$id"
for _ in $(seq 120); do
  squeue -h -j "$id" -t PENDING,RUNNING,COMPLETING 2> /dev/null | grep -q . || break
  sleep 0.5
done
state=$(scontrol show job "$id" | grep -o 'JobState=[A-Z]*')
log=$(job_log "$id")
[ "$state" = JobState=CANCELLED ] || { cat "$log"; fail "job $id: $state after scancel"; }
grep -q "stopped early (signalled.*submit the same sbatch line again to resume" "$log" ||
  { cat "$log"; fail "job $id: no resume hint after scancel"; }
! grep -qx complete tb-cancel/oware.manifest || fail "the cancelled job's manifest says complete"
# scancel sends SIGCONT before SIGTERM: the frozen rank may finish class 7 first, and
# its file may be complete (renamed into place) before the manifest line that follows
# it is written: the resumed job loads every complete file, so count the files.
kept=$(find tb-cancel -maxdepth 1 -name '*.mtb' | wc -l)
listed=$(grep -c '^class ' tb-cancel/oware.manifest)
[ "$kept" -ge 6 ] && [ "$kept" -lt 11 ] || fail "the cancelled job kept $kept classes"
[ "$listed" -le "$kept" ] && [ "$listed" -ge $((kept - 1)) ] ||
  fail "the cancelled job's manifest lists $listed classes for $kept table files"
echo "ok: job $id cancelled mid-run ($state, $kept classes kept), the log says: $(grep 'stopped early' "$log")"
id=$("${sb[@]}" --wait "${args[@]}")
rc=$?
log=$(job_log "$id")
[ "$rc" -eq 0 ] || { cat "$log"; fail "resumed job $id exited with $rc"; }
[ "$(grep -c ': loaded' "$log")" -eq "$kept" ] || { cat "$log"; fail "the resumed job $id did not load the $kept finished classes"; }
same_tables "$work/ref-cancel" tb-cancel
echo "ok: the same sbatch line resumed job $id to identical files ($kept classes loaded)"

# ---- the site's default plugin (none here) instead of pmix: MPI cannot start --------
id=$(MPI_PLUGIN=none "${sb[@]}" --wait "$script" oware 2 tb-none)
rc=$?
log=$(job_log "$id")
[ "$rc" -ne 0 ] || { cat "$log"; fail "a job with MPI_PLUGIN=none succeeded"; }
grep -q "the job stopped before finishing any class (srun exit status [1-9]; MPI could not start.*choose another MPI_PLUGIN" "$log" ||
  { cat "$log"; fail "job $id: no clear message after MPI failed to start"; }
echo "ok: MPI_PLUGIN=none (the issue's failure) ends the job with exit $rc: $(grep 'stopped before' "$log")"

# ---- the other plugins this Slurm lists: which start this Open MPI (information) ---
for p in $(echo "$plugins" | tr -s ' \t' '\n' | grep -x 'pmix_v[0-9]*\|pmi2\|cray_shasta'); do
  id=$(MPI_PLUGIN=$p timeout 120 "${sb[@]}" --wait "$script" oware 2 "tb-plugin-$p")
  rc=$?
  echo "info: MPI_PLUGIN=$p: job $id exit $rc: $(grep -m1 -o "complete: .*\|not built with SLURM's PMI support" \
    "$(job_log "$id")")"
done

# ---- a wrong MPI_EXE: one clear line, non-zero -------------------------------------
id=$(MPI_EXE=/nonexistent/mancala-tb-mpi "${sb[@]}" --wait "$script" oware 2 tb-noexe)
rc=$?
[ "$rc" -ne 0 ] || fail "a job with a wrong MPI_EXE succeeded"
grep -q "MPI_EXE=/nonexistent/mancala-tb-mpi is not an executable" "$(job_log "$id")" || fail "no MPI_EXE message"
echo "ok: a wrong MPI_EXE fails with one clear line (exit $rc)"
echo "PASS"
