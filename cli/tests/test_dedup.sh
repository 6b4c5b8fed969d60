# test_dedup.sh — dedup prints what awk '!seen[$0]++' prints when no false
# positive can occur (a filter far larger than the input; the data and the
# seed are fixed, so the check is deterministic), and drops new records at
# about the FPR when the filter is small (statistical test).
. "$(dirname "$0")/lib.sh"

N=300000
[ "$QUICK" = 1 ] && N=100000
"$GEN" $N --repeat 0.3 --seed 31 > in.txt 2>/dev/null
awk '!seen[$0]++' in.txt > want.txt
for threads in 1 2; do
  expect 0 "dedup equals awk, $threads thread(s)" "$BS" dedup --threads $threads --capacity $N --fpr 1e-10 in.txt
  stdout_is want.txt "dedup output equals awk '!seen[\$0]++', $threads thread(s)"
  stderr_empty "dedup is silent"
done
expect 0 "dedup from stdin" sh -c "\"$BS\" dedup --capacity $N --fpr 1e-10 < in.txt"
stdout_is want.txt "dedup from stdin equals awk"
expect 0 "dedup --repeats" "$BS" dedup --repeats --capacity $N --fpr 1e-10 in.txt
awk 'seen[$0]++' in.txt > want_rep.txt
stdout_is want_rep.txt "dedup --repeats equals awk 'seen[\$0]++'"
expect 1 "nothing new: exit 1" sh -c "head -1 in.txt | \"$BS\" dedup --repeats"

# the same through a pipe that delivers small reads
expect 0 "dedup through a slow pipe" sh -c "cat in.txt | \"$BS\" dedup --capacity $N --fpr 1e-10"
stdout_is want.txt "pipe input equals awk"

# integers: keys by value, records printed as read
"$GEN" 200000 --u64 --repeat 0.4 --seed 32 > ints.txt 2>/dev/null
awk '!seen[$0]++' ints.txt > want.txt
expect 0 "dedup --u64" "$BS" dedup --u64 --capacity 1e6 --fpr 1e-10 ints.txt
stdout_is want.txt "dedup --u64 equals awk"
printf '10\n0xa\n 10\n11\n' > samevalue.txt
expect 0 "dedup --u64 compares values" "$BS" dedup --u64 samevalue.txt
printf '10\n11\n' > want.txt
stdout_is want.txt "10, 0xa and ' 10' are one integer"

# by field: the first record of each key, as awk -F, '!seen[$2]++'
awk '{ print NR % 1000 ",x" $0 "," $0 }' in.txt > fields.csv
awk -F, '!seen[$3]++' fields.csv > want.txt
expect 0 "dedup --field" "$BS" dedup --field 3 --delimiter , fields.csv
stdout_is want.txt "dedup --field 3 equals awk -F, '!seen[\$3]++'"

# statistical, lookups: M keys in a filter sized for M at FPR p, then A
# absent keys; the share reported present must be near p (the library sizes
# with the exact model, so at capacity the FPR is p or just below):
# 0.7 p <= measured <= p + 4 sigma.
M=200000
A=1000000
[ "$QUICK" = 1 ] && A=300000
P=0.01
"$GEN" $M --repeat 0 --seed 33 > distinct.txt 2>/dev/null
"$GEN" $A --repeat 0 --seed 33 --first-id 1000000000 > absent.txt 2>/dev/null
"$BS" create p.bsf --capacity $M --fpr $P
"$BS" add p.bsf distinct.txt
expect 0 "query absent keys" "$BS" query --count p.bsf absent.txt
fp=$(cat out)
checks=$((checks + 1))
/usr/bin/python3 -c "
import math,sys
a,p,fp=$A,$P,$fp
sys.exit(0 if 0.7*a*p <= fp <= a*p + 4*math.sqrt(a*p) else 1)" ||
  fail "lookup FPR: $fp of $A absent keys reported present, expected about $P"
echo "lookup FPR: $fp of $A absent keys reported present (target $P)"

# statistical, dedup: distinct records into a filter sized for them. A new
# record is dropped only as a false positive of the keys before it, so the
# expected count is sum_i FPR(i) < M p (FPR(i) grows from 0 to p); for this
# layout it is about 0.16 M p. Bounds: (0.05, 1.0] x M p.
expect 0 "dedup of distinct records" "$BS" dedup --capacity $M --fpr $P distinct.txt
kept=$(wc -l < out)
dropped=$((M - kept))
checks=$((checks + 1))
/usr/bin/python3 -c "
import sys
m,p,d=$M,$P,$dropped
sys.exit(0 if 0.05*m*p < d <= m*p else 1)" || fail "dedup false positives: $dropped of $M dropped, expected in (0.05, 1] x M p"
echo "dedup: $dropped of $M distinct records dropped as false positives (M p = $(/usr/bin/python3 -c "print($M*$P)"))"
done_testing
