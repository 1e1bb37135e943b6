#!/usr/bin/env bash
# results/README.md lists every run of the committed results/coalesce.db: a table row "| N | D |"
# for each run id N on device D, read from the database with coalesce-report query.
set -u
report=$1 source_dir=$2
db=$source_dir/results/coalesce.db readme=$source_dir/results/README.md
runs=$("$report" query --db "$db" --format csv "SELECT id, device_id FROM runs ORDER BY id" | tail -n +2)
[ -n "$runs" ] || { echo "FAIL: no run read from $db"; exit 1; }
fail=0
while IFS=, read -r id device; do
  if grep -q "^| $id | $device | " "$readme"; then echo "ok: run $id (device $device) is listed"
  else echo "FAIL: run $id (device $device) of results/coalesce.db is not listed in results/README.md"; fail=1
  fi
done <<<"$runs"
exit $fail
