# Sourced by the cluster tests (test_cluster.sh, test_slurm.sh); needs their fail().
# same_tables REF DIR: every .mtb of REF is in DIR with the same bytes, and no more.
same_tables() {
  local ref=$1 dir=$2 n=0 f
  for f in "$ref"/*.mtb; do
    cmp -s "$f" "$dir/$(basename "$f")" || fail "$dir/$(basename "$f") differs from $f"
    n=$((n + 1))
  done
  [ "$n" -gt 0 ] || fail "no tables in $ref"
  [ "$(ls "$dir"/*.mtb | wc -l)" -eq "$n" ] || fail "$dir holds other tables than $ref"
}

# spec_args SPEC: a test case "VARIANT SEEDS" or "--from=POSITION SEEDS" as the caller's
# seeds, v (the variant), args (generate's arguments before --max-seeds) and d (v as a
# folder name).
spec_args() {
  local what
  seeds=${1##* } what=${1% *}
  if [[ $what == --from=* ]]; then
    local root=${what#--from=}
    v=${root%% *} args=(--from "$root")
  else
    v=$what args=("$v")
  fi
  d=$(echo "$v" | tr : _)
}
