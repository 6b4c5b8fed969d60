# test_progress.sh — the progress line: never on a pipe unless --progress,
# silenced by --quiet; it goes to stderr only.
. "$(dirname "$0")/lib.sh"

"$GEN" 100000 --seed 51 > in.txt 2>/dev/null
expect 0 "dedup on a pipe" "$BS" dedup in.txt
stderr_empty "no progress line when stderr is not a terminal"
expect 0 "dedup --progress" "$BS" dedup --progress in.txt
stderr_has "100.0k records" "--progress reports the records"
stderr_has "MB/s" "--progress reports MB/s"
stderr_has "100%" "--progress reports the share of a known-size input"
stderr_has "(done)" "--progress ends with the totals"
awk '!seen[$0]++' in.txt > want.txt
stdout_is want.txt "--progress does not touch stdout"
expect 0 "--progress on stdin" sh -c "cat in.txt | \"$BS\" dedup --progress"
stderr_has "(done)" "--progress on a pipe"
checks=$((checks + 1))
grep -q '%' "$T/err" && fail "no percentage when the input size is unknown"
"$BS" create p.bsf --capacity 1e6
expect 0 "add --progress" "$BS" add --progress p.bsf in.txt
stderr_has "(done)" "add --progress"
expect 0 "add --progress --quiet" "$BS" add --progress --quiet p.bsf in.txt
stderr_empty "--quiet silences --progress"
expect 0 "query --progress --count" "$BS" query --progress --count p.bsf in.txt
stderr_has "(done)" "query --progress"
equals "$(cat out)" "100000" "query --count output unchanged by --progress"
done_testing
