# test_add_query.sh — add and query: no false negatives, grep-like output
# and exit statuses, several inputs, stdin, integers, fields, errors.
. "$(dirname "$0")/lib.sh"

N=100000
[ "$QUICK" = 1 ] && N=20000
"$GEN" $N --repeat 0.3 --seed 21 > keys.txt 2>/dev/null
"$GEN" $N --repeat 0 --seed 21 --first-id 1000000000 > others.txt 2>/dev/null
"$BS" create f.bsf --capacity $N --fpr 0.01

expect 0 "add from a file" "$BS" add f.bsf keys.txt
stderr_empty "add is silent"
expect 0 "query finds every added key" "$BS" query f.bsf keys.txt
stdout_is keys.txt "query prints every added record, in order"
expect 0 "query --count" "$BS" query --count f.bsf keys.txt
equals "$(cat out)" "$N" "count of added keys"
expect 0 "query -c from stdin" sh -c "\"$BS\" query -c f.bsf < keys.txt"
equals "$(cat out)" "$N" "stdin is the default input"
expect 0 "query with - and a file" sh -c "\"$BS\" query -c f.bsf - keys.txt < keys.txt"
equals "$(cat out)" "$((2 * N))" "'-' reads stdin among files"

# absent keys: printed by --absent, except false positives (about 1%)
expect 0 "query --absent" "$BS" query --absent f.bsf others.txt
absent=$(wc -l < out)
checks=$((checks + 1))
[ "$absent" -gt $((N * 97 / 100)) ] && [ "$absent" -lt "$N" ] || fail "absent keys: $absent of $N printed, expected about 99%"
expect 0 "query -v -c" "$BS" query -v -c f.bsf others.txt
equals "$(cat out)" "$absent" "-v -c counts what -v prints"
expect 1 "present keys are not absent" "$BS" query --absent --count f.bsf keys.txt
equals "$(cat out)" "0" "no added key is reported absent"

# exact output: runs of present and absent records of every length from 1
# to 5000 records (query writes each run as one span, runs of 64 KiB or more
# straight from the input buffer), the last record unterminated; the filter
# is sized so that a false positive is all but impossible (FPR 1e-10)
"$BS" create exact.bsf --capacity $N --fpr 1e-10
"$BS" add exact.bsf keys.txt
awk 'BEGIN { srand(7) }
     NR == FNR { k[++nk] = $0; next } { o[++no] = $0 }
     END { i = j = 1; src = 0
           while (i <= nk || j <= no) {
             run = int(rand() ^ 3 * 5000) + 1
             for (r = 0; r < run; r++) {
               if (src == 0 && i <= nk) print k[i++]; else if (src == 1 && j <= no) print o[j++]
             }
             src = 1 - src
           } }' keys.txt others.txt > runs.txt
printf 'unterminated-absent-record' >> runs.txt
awk 'NR == FNR { k[$0]; next } ($0 in k)' keys.txt runs.txt > want_present.txt
awk 'NR == FNR { k[$0]; next } !($0 in k)' keys.txt runs.txt > want_absent.txt
for threads in 1 2; do
  expect 0 "query of runs, $threads thread(s)" "$BS" query --threads $threads exact.bsf runs.txt
  stdout_is want_present.txt "query prints exactly the present runs, $threads thread(s)"
  expect 0 "query --absent of runs, $threads thread(s)" "$BS" query --absent --threads $threads exact.bsf runs.txt
  stdout_is want_absent.txt "query --absent prints exactly the absent runs, terminating the last, $threads thread(s)"
  expect 0 "query --absent of runs into a pipe, $threads thread(s)" \
    sh -c "\"$BS\" query --absent --threads $threads exact.bsf runs.txt | cat"
  stdout_is want_absent.txt "the same through a pipe, $threads thread(s)"
done

# exit status as grep: 0 some selected, 1 none
printf 'certainly-not-there-1\ncertainly-not-there-2\n' > no.txt
run "$BS" query f.bsf no.txt
checks=$((checks + 1))
[ "$rc" = 1 ] || [ "$rc" = 0 ] || fail "query of absent keys: status $rc"
head -3 keys.txt > yes.txt
expect 0 "query -q with a match" "$BS" query -q f.bsf yes.txt
checks=$((checks + 1))
[ -s out ] && fail "query -q printed something"
# -q answers at the first match, even while its input stays open (the
# reader thread blocked in read() is cancelled)
for threads in 1 2; do
  rm -f fifo && mkfifo fifo
  "$BS" query -q --threads $threads f.bsf < fifo &
  pid=$!
  exec 3> fifo
  cat yes.txt >&3
  for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  checks=$((checks + 1))
  if kill -0 $pid 2>/dev/null; then
    fail "query -q, $threads thread(s): still waiting for input after a match"
    kill $pid
  fi
  wait $pid
  equals "$?" 0 "query -q with an open input, $threads thread(s)"
  exec 3>&-
done
# ... and while the reader thread, ahead, waits in open(2) for a FIFO's
# writer that never comes (it is cancelled there too): grep -q never opens
# the next input after a match. 5 tries: the reader is in that open most of
# the time, not always (9 hangs in 10 before the fix).
rm -f nowriter && mkfifo nowriter
for try in 1 2 3 4 5; do
  expect 0 "query -q, then a FIFO without a writer (try $try)" timeout 20 "$BS" query -q --threads 2 f.bsf yes.txt nowriter
done
expect 1 "query --count of nothing" "$BS" query --count f.bsf /dev/null
equals "$(cat out)" "0" "count of an empty input"
expect 1 "query --absent when all present" "$BS" query --absent f.bsf yes.txt

# an unreadable input: reported, the others are still processed, status 2
expect 2 "query with a missing input" "$BS" query f.bsf yes.txt missing.txt yes.txt
stderr_has "missing.txt: No such file or directory" "missing input named"
equals "$(wc -l < out)" "6" "the readable inputs are still queried"
expect 2 "query a directory" "$BS" query f.bsf .
stderr_has "Is a directory" "directory input"

# errors leave the filter unchanged
cp f.bsf f.orig
expect 2 "add with a missing input" "$BS" add f.bsf others.txt missing.txt
stderr_has "f.bsf: not changed" "add says the filter is unchanged"
same_file f.bsf f.orig "failed add leaves the file as it was"
expect 2 "add to a missing filter" "$BS" add nofilter.bsf keys.txt
stderr_has "bloomsimd create nofilter.bsf" "missing filter: says how to make one"
expect 2 "query a missing filter" "$BS" query nofilter.bsf keys.txt

# integers: decimal and hex are the same key; a bad one is an error with its place
"$BS" create u.bsf --capacity 1000
printf '1\n255\n18446744073709551615\n 42 \n' > ints.txt
expect 0 "add --u64" "$BS" add --u64 u.bsf ints.txt
printf '0x1\n0xff\n0xFFFFFFFFFFFFFFFF\n0x2a\n' > hex.txt
expect 0 "hex finds decimal" "$BS" query --u64 -c u.bsf hex.txt
equals "$(cat out)" "4" "hex and decimal integers are the same keys"
expect 1 "the decimal text is not the integer key" "$BS" query -c u.bsf ints.txt
printf '5\nfive\n' > badint.txt
expect 2 "bad integer" "$BS" add --u64 u.bsf badint.txt
stderr_has "badint.txt:2: 'five' is not an unsigned 64-bit integer" "bad integer names file and line"
printf '18446744073709551616\n' > big.txt
expect 2 "integer overflow" "$BS" add --u64 u.bsf big.txt
printf '0x10000000000000000\n' > bighex.txt
expect 2 "hex overflow" "$BS" add --u64 u.bsf bighex.txt
printf '\n' > emptyint.txt
expect 2 "empty integer" "$BS" add --u64 u.bsf emptyint.txt

# fields: the key is one column; the whole record is printed
"$BS" create c.bsf --capacity 1000
printf 'id,name\n7,alice\n8,bob\n' > people.csv
printf 'alice\n' > alice.txt
expect 0 "add a field" "$BS" add c.bsf alice.txt
expect 0 "query by field" "$BS" query --field 2 --delimiter , c.bsf people.csv
equals "$(cat out)" "7,alice" "query --field prints the whole record"
printf 'a\tb\tc\n' > tsv.txt
printf 'c\n' > c.txt
"$BS" add c.bsf c.txt
expect 0 "tab is the default delimiter" "$BS" query -f 3 c.bsf tsv.txt
equals "$(cat out)" "$(printf 'a\tb\tc')" "default delimiter is tab"
printf 'x,y\n' > short.csv
"$BS" add c.bsf /dev/null
expect 1 "a missing field is the empty key (absent here)" "$BS" query -f 5 -d , c.bsf short.csv
printf '\n' > emptyline.txt
"$BS" add c.bsf emptyline.txt
expect 0 "a missing field is the empty key (present now)" "$BS" query -f 5 -d , c.bsf short.csv
equals "$(cat out)" "x,y" "record with a missing field matched the empty key"
done_testing
