# test_alarm.sh — info --alarm SHARE: exit 1 when a filter has taken SHARE of its
# capacity or more, tested at 79% and 81% of capacity with the keys counted
# (a dedup state file) and uncounted (add: the estimate from the fill), for a
# growing filter, and with an unreadable file; without --alarm the exit
# statuses stay 0 and 2.
. "$(dirname "$0")/lib.sh"

# keys counted: dedup's state file counts every new key exactly
"$GEN" 790 --repeat 0 --seed 21 > k790.txt 2>/dev/null
"$GEN" 20 --repeat 0 --seed 22 > k20.txt 2>/dev/null
"$BS" dedup --state counted.bsf --capacity 1000 --fpr 0.01 k790.txt > /dev/null
expect 0 "counted keys at 79%" "$BS" info --alarm 0.8 counted.bsf
stderr_empty "no alarm at 79%"
stdout_has "load:              79.00% of capacity, by the counted keys" "info shows the load"
"$BS" dedup --state counted.bsf k20.txt > /dev/null
expect 1 "counted keys at 81%" "$BS" info --alarm 0.8 counted.bsf
stdout_has "load:              81.00% of capacity, by the counted keys" "info shows 81%"
stderr_has "counted.bsf: at 81.00% of its capacity (alarm at 80%)" "the alarm names the file"
expect 1 "the share as a percentage" "$BS" info -a 80% counted.bsf
expect 0 "a higher share" "$BS" info --alarm 0.9 counted.bsf
expect 0 "no --alarm: the exit status is unchanged" "$BS" info counted.bsf
stderr_empty "no --alarm, no note"

# keys not counted: add inserts without counting, so the load is the estimate
# from the fill (within a few tenths of a percent at 10^5 keys)
"$GEN" 79000 --repeat 0 --seed 23 > k79k.txt 2>/dev/null
"$GEN" 2000 --repeat 0 --seed 24 > k2k.txt 2>/dev/null
"$BS" create est.bsf --capacity 100000 --fpr 0.01
"$BS" add est.bsf k79k.txt
expect 0 "estimated keys at 79%" "$BS" info --alarm 0.8 est.bsf
stdout_has "by the estimated keys" "an uncounted filter's load is from its fill"
"$BS" add est.bsf k2k.txt
expect 1 "estimated keys at 81%" "$BS" info --alarm 0.8 est.bsf
expect 1 "--json with --alarm" "$BS" info --json --alarm 0.8 est.bsf
checks=$((checks + 1))
/usr/bin/python3 - "$T/out" <<'PY' || fail "info --json has load, items and alarm"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["alarm"] is True and d["items"] == 0, d
assert abs(d["load"] - 0.81) < 0.005, d["load"]
assert abs(d["load"] - d["estimated_keys"] / d["capacity"]) < 1e-12, d
PY
expect 0 "--json without --alarm has no alarm field" "$BS" info --json est.bsf
checks=$((checks + 1))
grep -q '"alarm"' "$T/out" && fail "--json without --alarm printed an alarm field"

# a growing filter: the share is of its first layer's capacity
"$GEN" 81 --repeat 0 --seed 25 > k81.txt 2>/dev/null
"$BS" create grows.bsf --capacity 100 --fpr 0.01 --growth 2
"$BS" add grows.bsf k81.txt
expect 1 "a growing filter at 81% of its first layer" "$BS" info --alarm 0.8 grows.bsf
stdout_has "of the first layer (the filter grows past it)" "info says which capacity"

# an error wins: 2, and the other files are still checked and named
expect 2 "an alarm and an unreadable file" "$BS" info --alarm 0.8 counted.bsf missing.bsf
stderr_has "counted.bsf: at 81.00%" "the readable file is still checked"
stderr_has "missing.bsf" "the unreadable file is named"
expect 2 "a bad share" "$BS" info --alarm lots counted.bsf
stderr_has "--alarm 'lots': not a number" "the bad share is named"
expect 2 "a share of 0" "$BS" info --alarm 0 counted.bsf
done_testing
