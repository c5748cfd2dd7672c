#!/usr/bin/env bash
# mancala-tb-mpi on two "nodes" of one machine: two network namespaces made by the
# test, joined by a veth pair, Open MPI over TCP between them (btl tcp,self: no
# shared memory between the ranks; mpirun starts the second node's daemon through
# `ip netns exec`, as ssh would on a cluster).
#
#   test_netns.sh MPI_EXE TB_EXE WORKDIR
#
#  * shared folder: both nodes see WORKDIR (the default lower classes: sharded);
#  * own folders: the second node runs in a mount namespace of its own with an empty
#    tmpfs over the output folders' parent, so it sees none of the first node's files
#    (the lower classes are replicated; only rank 0 writes);
# for all seven games (own folders: three of them), every file equal byte for byte to
# `mancala-tb generate`.
# Exits 77 (ctest: skipped) with one line where namespaces cannot be made (not root,
# no `ip`, no veth, a container without the capability).
set -uo pipefail
mpi_exe=$1 tb_exe=$2 work=$3
SKIP=77
skip() { echo "SKIP: $*"; exit $SKIP; }
fail() { echo "FAIL: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "network namespaces need root (CI runs as root)"
for b in ip unshare mount mpirun; do command -v "$b" > /dev/null || skip "no $b"; done
rm -rf "$work"
mkdir -p "$work/private"
work=$(cd "$work" && pwd)
id=$$
ns0=mtb$id-a ns1=mtb$id-b
cleanup() {
  ip netns del "$ns0" 2> /dev/null
  ip netns del "$ns1" 2> /dev/null
}
trap cleanup EXIT
trap 'exit 1' INT TERM
ip netns add "$ns0" 2> /dev/null || skip "cannot make a network namespace (ip netns add)"
ip netns add "$ns1" 2> /dev/null || skip "cannot make a second network namespace"
# Interface names are at most 15 bytes.
va=mtbv${id: -6}a vb=mtbv${id: -6}b
ip link add "$va" type veth peer name "$vb" 2> /dev/null || skip "cannot make a veth pair"
ip link set "$va" netns "$ns0" && ip link set "$vb" netns "$ns1" || fail "moving the veth ends"
a=10.231.$((id % 250)).1 b=10.231.$((id % 250)).2
ip -n "$ns0" addr add "$a/24" dev "$va" && ip -n "$ns1" addr add "$b/24" dev "$vb" || fail "addresses"
for n in "$ns0:$va" "$ns1:$vb"; do
  ip -n "${n%%:*}" link set lo up && ip -n "${n%%:*}" link set "${n##*:}" up || fail "links up"
done

# mpirun's remote shell: the host names of the host file are the nodes' addresses;
# the second node's daemon starts in its namespace (with PRIVATE=1: in a mount
# namespace of its own, an empty tmpfs over $work/private).
agent=$work/ns-shell.sh
cat > "$agent" << A
#!/bin/sh
host=\$1
shift
[ "\$host" = "$b" ] || { echo "ns-shell: unknown node \$host" >&2; exit 1; }
if [ "\${PRIVATE:-0}" = 1 ]; then
  exec ip netns exec "$ns1" unshare --mount --propagation private sh -c "mount -t tmpfs none '$work/private' && \$*"
fi
exec ip netns exec "$ns1" sh -c "\$*"
A
chmod +x "$agent"
printf '%s slots=1\n%s slots=1\n' "$a" "$b" > "$work/hosts"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun=(ip netns exec "$ns0" mpirun --allow-run-as-root -np 2 --hostfile "$work/hosts" --map-by node
        --mca plm_rsh_agent "$agent" --mca btl tcp,self --mca btl_tcp_if_include "$a/24"
        --mca oob_tcp_if_include "$a/24" --mca plm_rsh_no_tree_spawn 1 -x PATH -x MANCALA_MPI_TEST_WHOLE_BELOW)
# Every class sharded (the small ones too), so that the shard files cross the "nodes".
export MANCALA_MPI_TEST_WHOLE_BELOW=0

# The two ranks must be on the two nodes (one process in each namespace).
"${mpirun[@]}" sh -c 'echo "rank $OMPI_COMM_WORLD_RANK: $(readlink /proc/self/ns/net)"' > "$work/where.log" 2>&1 ||
  { cat "$work/where.log"; skip "Open MPI cannot start a rank in the second namespace"; }
[ "$(grep '^rank' "$work/where.log" | sort -u | wc -l)" -eq 2 ] && [ "$(grep '^rank' "$work/where.log" | cut -d' ' -f3 | sort -u | wc -l)" -eq 2 ] ||
  { cat "$work/where.log"; fail "the two ranks are not in two network namespaces"; }
echo "ok: 2 ranks in 2 network namespaces ($a, $b), Open MPI over TCP"

source "$(dirname "${BASH_SOURCE[0]}")/same_tables.sh"
# Small sizes: every class costs a few hundred collectives over TCP.
for spec in "djenon-aboure 5" "oware 6" "kalah:4:empty 5" "kalah:6:standard 5" "kotu-baendum 2" "cenne:5:4 3" \
            "--from=enkeshui:8 0S,0,1,2,1,2,0,0/0N,0,2,1,2,1,0,0 S 6"; do
  spec_args "$spec"
  "$tb_exe" generate "${args[@]}" --max-seeds "$seeds" --out "$work/ref-$d" --threads 1 > /dev/null || fail "generate $v"
  modes="shared"; case "$v" in djenon-aboure|oware|kotu-baendum) modes="shared private" ;; esac
  for mode in $modes; do
    out=$work/$mode/$d
    [ $mode = shared ] && out=$work/shared-$d
    PRIVATE=$([ $mode = private ] && echo 1 || echo 0) timeout 300 "${mpirun[@]}" -x PRIVATE "$mpi_exe" generate "${args[@]}" \
      --max-seeds "$seeds" --out "$out" --threads 1 --timeout-seconds 60 --verbose > "$work/log-$mode-$d" 2>&1 ||
      { cat "$work/log-$mode-$d"; fail "$v over two namespaces ($mode folder)"; }
    same_tables "$work/ref-$d" "$out"
    want=sharded; [ $mode = private ] && want=replicated
    if [ $want = sharded ]; then grep -q "lower classes sharded" "$work/log-$mode-$d" || fail "$v: not sharded on a shared folder"
    else ! grep -q "lower classes sharded" "$work/log-$mode-$d" || fail "$v: sharded without a shared folder"; fi
    echo "ok: ${args[*]} up to $seeds seeds on 2 namespaces, $mode folder ($want lower classes): identical files"
  done
done
echo PASS
