#!/usr/bin/env bash
# The size rule of results/ (docs/working.md, "What results/ keeps"): no tracked file under
# results/ over 5 MiB, and the tracked files of results/ together at most 40 MiB. Sizes are those
# of the staged contents (git's index: what a commit holds, as in a fresh clone), not of whatever
# lies untracked in the work tree. Prints each offence on stderr and exits 1; 0 when the rule holds;
# 2 for bad usage.
#
# Usage: scripts/check-results-size.sh [REPO]   (default: the repository holding this script)
set -u
readonly file_limit=$((5 * 1024 * 1024))   # a published database, the report and its figures fit far below
readonly folder_limit=$((40 * 1024 * 1024))
if [ $# -gt 1 ]; then
  echo "check-results-size.sh: usage: check-results-size.sh [REPO]" >&2
  exit 2
fi
repo=${1:-$(dirname "$0")/..}
if ! git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
  echo "check-results-size.sh: $repo is not a git repository" >&2
  exit 2
fi
# Size and path of every staged file under results/ (mode 100644 or 100755: no symlink, no
# submodule), one `git cat-file` for all of them.
listing=$(git -C "$repo" ls-files -s -z -- results/ | tr '\0' '\n' |
          awk -F '\t' '{ split($1, m, " "); if (m[1] == "100644" || m[1] == "100755") print m[2] "\t" $2 }')
[ -n "$listing" ] || exit 0
sizes=$(printf '%s\n' "$listing" | cut -f1 | git -C "$repo" cat-file --batch-check='%(objectsize)')
listing=$(paste <(printf '%s\n' "$sizes") <(printf '%s\n' "$listing" | cut -f2-))
status=0 total=0
while IFS=$'\t' read -r size path; do
  [ -n "$path" ] || continue
  total=$((total + size))
  if [ "$size" -gt "$file_limit" ]; then
    echo "check-results-size.sh: $path is $size bytes, over the $file_limit of one file under results/" >&2
    status=1
  fi
done <<<"$listing"
if [ "$total" -gt "$folder_limit" ]; then
  echo "check-results-size.sh: results/ tracks $total bytes, over its $folder_limit" >&2
  status=1
fi
exit $status
