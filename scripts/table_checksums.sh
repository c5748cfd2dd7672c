#!/usr/bin/env bash
# Generates the golden table sets and prints (or checks) the sha256 of every file.
#
#   scripts/table_checksums.sh print [small|large] > results/checksums/small.sha256
#   scripts/table_checksums.sh check [small|large]     # exit 1 on any difference
#
# small: every game up to a small seed count (seconds; run by the test suite), with the
#        distance tables (.mtz, generate --distances) of the games that have them.
# large: Oware and Kalah(6) (both capture rules) up to 20 seeds (minutes; a benchmark).
# The value (.mtb) and distance (.mtz) files are in one list: after a change of the
# format on purpose, the print line above regenerates both.
# TB=path of mancala-tb (default build/tools/mancala-tb), WORK=scratch folder (emptied first).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-print} set=${2:-small}
TB=${TB:-build/tools/mancala-tb}
WORK=${WORK:-$(mktemp -d)}
rm -rf "$WORK" && mkdir -p "$WORK"
THREADS=${THREADS:-2}
case "$set" in
  # The specs whose games have distance tables (score games with cycles); they get --distances.
  small) distances="djenon-aboure oware kotu-baendum cenne:7:7 cenne:5:4 cenne:4:4 cenne:4:5 --from=enkeshui:8"
         specs=("djenon-aboure 10" "oware 13" "kalah:6:empty 13" "kalah:6:standard 13" "kalah:4:empty 12"
                "kotu-baendum 7" "cenne:7:7 10" "cenne:5:4 6" "cenne:4:4 5" "cenne:4:4 8" "cenne:4:5 9"
                "--from=enkeshui:8 0S,0,1,2,1,2,0,0/0N,0,2,1,2,1,0,0 S 12"
                "--from=imbelece 2,1,1,2,0x,0x,0x,0x/1,2,2,1,0x,0x,0x,0x S 12") ;;
  large) distances="" specs=("oware 20" "kalah:6:empty 20" "kalah:6:standard 20") ;;
  *) echo "unknown set $set (small or large)" >&2; exit 2 ;;
esac
sums() {
  for spec in "${specs[@]}"; do
    seeds=${spec##* } what=${spec% *} flag=() files="*.mtb"
    [[ " $distances " == *" ${what%%[ ,]*} "* ]] && flag=(--distances) files="*.mtb *.mtz"
    if [[ $what == --from=* ]]; then
      root=${what#--from=} dir=$WORK/$(echo "$root" | tr -c 'a-z0-9\n' _)
      "$TB" generate --from "$root" --max-seeds "$seeds" --out "$dir" --threads "$THREADS" "${flag[@]}" > /dev/null
      label="from:$root"
    else
      dir=$WORK/$(echo "$what" | tr : _)
      "$TB" generate "$what" --max-seeds "$seeds" --out "$dir" --threads "$THREADS" "${flag[@]}" > /dev/null
      label=$what
    fi
    (cd "$dir" && sha256sum -- $files) | sed "s|^|$label up to $seeds  |"
  done
}
case "$mode" in
  print) sums ;;
  check)
    golden=results/checksums/$set.sha256
    if diff <(sums) "$golden" > "$WORK/diff"; then
      echo "ok: every table of the $set set matches $golden ($(wc -l < "$golden") files)"
    else
      echo "FAIL: tables differ from $golden:" >&2; head -40 "$WORK/diff" >&2; exit 1
    fi ;;
  *) echo "usage: $0 print|check [small|large]" >&2; exit 2 ;;
esac
