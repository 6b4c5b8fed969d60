#!/usr/bin/env bash
# tracked_binaries.sh [REPO] — fails if git tracks a compiled file: an ELF
# object, executable or shared library (magic 7f 45 4c 46) or an ar archive
# (static library, "!<arch>"). Build outputs belong in build*/ (.gitignore);
# a tracked one goes stale silently and bloats every clone.
set -uo pipefail
repo=${1:-$(cd "$(dirname "$0")/.." && pwd)}
if ! git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "tracked_binaries: $repo is not a git work tree: nothing to check (not a pass)"
  exit 0
fi
export LC_ALL=C
found=0 checked=0
while IFS= read -r -d '' path; do
  file=$repo/$path
  [ -f "$file" ] && [ ! -L "$file" ] || continue
  checked=$((checked + 1))
  magic=
  IFS= read -r -n 7 magic <"$file" 2>/dev/null || true
  case $magic in
  $'\x7f'ELF*) echo "FAIL: tracked ELF binary: $path"; found=1 ;;
  '!<arch>') echo "FAIL: tracked ar archive: $path"; found=1 ;;
  esac
done < <(git -C "$repo" ls-files -z)
((found)) || echo "ok: none of the $checked tracked files is an ELF binary or an ar archive"
exit $found
