# test_u64_hash.sh — --u64-hash: filters whose 64-bit keys hash with mum,
# made by create and dedup, kept by add, query, dedup --state and merge.
. "$(dirname "$0")/lib.sh"

# the option and its refusal
expect 0 "create --u64-hash mum" "$BS" create mum.bsf --capacity 10000 --fpr 0.01 --u64-hash mum
stderr_empty "create --u64-hash is silent"
expect 0 "create --u64-hash xxh3" "$BS" create xxh3.bsf --capacity 10000 --fpr 0.01 --u64-hash xxh3
expect 0 "create with the default hash" "$BS" create default.bsf --capacity 10000 --fpr 0.01
same_file default.bsf xxh3.bsf "xxh3 is the default"
expect 2 "create --u64-hash with an unknown name" "$BS" create bad.bsf --capacity 10 --u64-hash xxh64
stderr_has "--u64-hash 'xxh64': xxh3 or mum" "--u64-hash names the two hashes"
stderr_has "Try 'bloomsimd create --help'" "--u64-hash: a usage error"
expect 2 "create --u64-hash in capitals" "$BS" create bad.bsf --capacity 10 --u64-hash MUM
checks=$((checks + 1))
[ -e bad.bsf ] && fail "a refused --u64-hash wrote a file"
expect 2 "create --u64-hash without a value" "$BS" create bad.bsf --capacity 10 --u64-hash
stderr_has "option '--u64-hash' needs a value" "--u64-hash needs a value"
expect 0 "create --help" "$BS" create --help
stdout_has "--u64-hash H" "create --help names --u64-hash"

# info names the hash
expect 0 "info of a mum filter" "$BS" info mum.bsf
stdout_has "hash mum for 64-bit keys, XXH3-64 for byte keys (id 3)" "info: mum"
expect 0 "info of an xxh3 filter" "$BS" info xxh3.bsf
stdout_has "hash XXH3-64 (id 1)" "info: xxh3"
expect 0 "info --json of a mum filter" "$BS" info --json mum.bsf
stdout_has '"hash_id":3,' "info --json: hash 3"

# 64-bit keys: each filter finds its own, and the two hashes set different bits
"$GEN" 5000 --u64 --repeat 0 --seed 41 > ints.txt 2>/dev/null
"$GEN" 5000 --u64 --repeat 0 --seed 41 --first-id 1000000 > other.txt 2>/dev/null
for h in mum xxh3; do
  expect 0 "add --u64 ($h)" "$BS" add --u64 $h.bsf ints.txt
  expect 0 "query --u64 ($h)" "$BS" query --u64 -c $h.bsf ints.txt
  equals "$(cat "$T/out")" 5000 "query --u64 finds every key added ($h)"
  run "$BS" query --u64 -c $h.bsf other.txt
  checks=$((checks + 1))
  [ "$(cat "$T/out")" -lt 150 ] || fail "absent 64-bit keys: $(cat "$T/out") of 5000 found in $h.bsf (1% target)"
done
checks=$((checks + 1))
cmp -s mum.bsf xxh3.bsf && fail "a mum and an xxh3 filter of the same keys are the same bytes"
expect 0 "info after add" "$BS" info mum.bsf
stdout_has "(id 3)" "add keeps the file's hash"

# byte keys hash with XXH3 in a mum filter too
"$GEN" 3000 --repeat 0 --seed 43 > words.txt 2>/dev/null
"$GEN" 3000 --repeat 0 --seed 43 --first-id 1000000 > absent.txt 2>/dev/null
expect 0 "add records to a mum filter" "$BS" add mum.bsf words.txt
expect 0 "query records in a mum filter" "$BS" query -c mum.bsf words.txt
equals "$(cat "$T/out")" 3000 "a mum filter finds every record added"
run "$BS" query -c mum.bsf absent.txt
checks=$((checks + 1))
[ "$(cat "$T/out")" -lt 100 ] || fail "absent records: $(cat "$T/out") of 3000 found in mum.bsf"
expect 0 "its 64-bit keys are still there" "$BS" query --u64 -c mum.bsf ints.txt
equals "$(cat "$T/out")" 5000 "64-bit keys after byte keys"

# A 64-bit key and its 8 little-endian bytes as a record: one key with xxh3,
# two keys with mum. 0x4142434445464748 is "HGFEDCBA" (no newline or NUL in it).
for h in mum xxh3; do
  "$BS" create one-$h.bsf --capacity 1000 --fpr 1e-6 --u64-hash $h
  echo 0x4142434445464748 | "$BS" add --u64 one-$h.bsf
  "$BS" create rec-$h.bsf --capacity 1000 --fpr 1e-6 --u64-hash $h
  echo HGFEDCBA | "$BS" add rec-$h.bsf
done
expect 0 "xxh3: the 8 bytes find the 64-bit key" sh -c "echo HGFEDCBA | \"$BS\" query -q one-xxh3.bsf"
expect 0 "xxh3: the 64-bit key finds the 8 bytes" \
  sh -c "echo 0x4142434445464748 | \"$BS\" query -q --u64 rec-xxh3.bsf"
expect 1 "mum: the 8 bytes are another key" sh -c "echo HGFEDCBA | \"$BS\" query -q one-mum.bsf"
expect 1 "mum: the 64-bit key is another key" \
  sh -c "echo 0x4142434445464748 | \"$BS\" query -q --u64 rec-mum.bsf"

# dedup: --u64-hash for the filter it makes; a state file keeps its own
"$GEN" 20000 --u64 --repeat 0.4 --seed 45 > reps.txt 2>/dev/null
awk '!seen[$0]++' reps.txt > want.txt
expect 0 "dedup --u64 --u64-hash mum" "$BS" dedup --u64 --u64-hash mum --capacity 1e5 --fpr 1e-10 reps.txt
stdout_is want.txt "dedup with mum equals awk"
expect 2 "dedup --u64-hash with an unknown name" "$BS" dedup --u64-hash fast reps.txt
stderr_has "--u64-hash 'fast': xxh3 or mum" "dedup refuses it as create does"
expect 0 "dedup --help" "$BS" dedup --help
stdout_has "--u64-hash H" "dedup --help names --u64-hash"
expect 0 "dedup --state, new, mum" "$BS" dedup -q --u64 --state st.bsf --capacity 1e5 --u64-hash mum reps.txt
stdout_is want.txt "dedup --state with mum equals awk"
expect 0 "info of the state file" "$BS" info st.bsf
stdout_has "(id 3)" "a new state file has the hash asked for"
expect 1 "dedup --state, existing, another hash" "$BS" dedup --u64 --state st.bsf --u64-hash xxh3 reps.txt
stderr_has "st.bsf exists: its own size, seed and hash are used" "an existing state keeps its hash, said"
expect 0 "info of the state file again" "$BS" info st.bsf
stdout_has "(id 3)" "the state file kept its hash"

# merge: copies the first input, so OUT keeps its hash; hashes must match
"$BS" create m2.bsf --capacity 10000 --fpr 0.01 --u64-hash mum
"$BS" add --u64 m2.bsf other.txt
expect 0 "merge two mum filters" "$BS" merge merged.bsf mum.bsf m2.bsf
expect 0 "info of the merge" "$BS" info merged.bsf
stdout_has "(id 3)" "merge keeps the hash"
cat ints.txt other.txt > both.txt
expect 0 "the merge has both key sets" "$BS" query --u64 -c merged.bsf both.txt
equals "$(cat "$T/out")" 10000 "merged mum filter finds all 10000 keys"
expect 2 "merge a mum and an xxh3 filter" "$BS" merge bad.bsf mum.bsf xxh3.bsf
stderr_has "xxh3.bsf: cannot merge with mum.bsf" "merge names the file of the other hash"
stderr_has "u64-hash xxh3 vs" "merge says which hash each has"
checks=$((checks + 1))
[ -e bad.bsf ] && fail "a refused merge wrote its output"
done_testing
