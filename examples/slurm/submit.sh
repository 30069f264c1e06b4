#!/bin/bash
# Submits the collect array and a merge job that starts once every array task has ended.
# Usage: SRC=/shared/src/project OUT=/shared/schedlab-out [ARRAY=0-15] ./submit.sh
# ARRAY, when set, replaces collect.sbatch's --array (its range is the shard count).
set -euo pipefail
: "${SRC:?set SRC to the Go source tree on a shared filesystem}"
export SRC OUT="${OUT:-$PWD/schedlab-out}"
here=$(dirname "$0")

array=$(sbatch --parsable --export=ALL ${ARRAY:+--array="$ARRAY"} "$here/collect.sbatch")
# afterany: merge what the shards recorded even if one task failed (afterok: only if all succeeded).
sbatch --parsable --export=ALL --dependency="afterany:${array%%;*}" "$here/merge.sbatch"
