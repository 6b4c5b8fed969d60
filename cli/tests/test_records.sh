# test_records.sh — records are bytes: CRLF, NUL-separated, empty records,
# no final newline, non-UTF-8 bytes, records longer than the read buffer.
. "$(dirname "$0")/lib.sh"

# no final newline: the last record counts, and is printed with one
printf 'a\nb\nc' > nofinal.txt
expect 0 "dedup without final newline" "$BS" dedup nofinal.txt
printf 'a\nb\nc\n' > want.txt
stdout_is want.txt "the unterminated last record is printed, terminated"
printf 'a\nb\nc\nc' > dupfinal.txt
expect 0 "unterminated repeat" "$BS" dedup dupfinal.txt
stdout_is want.txt "an unterminated repeat is dropped"
expect 0 "two inputs, the first unterminated" "$BS" dedup nofinal.txt nofinal.txt
stdout_is want.txt "records never span inputs"
printf 'x' > one.txt
expect 0 "a single unterminated record" "$BS" dedup one.txt
equals "$(od -An -c out | tr -d ' ')" 'x\n' "single record"

# empty records are records (the empty key)
printf '\n\na\n\n' > empties.txt
expect 0 "empty lines" "$BS" dedup empties.txt
printf '\na\n' > want.txt
stdout_is want.txt "one empty line kept, the others are repeats"
head -c 300000 /dev/zero | tr '\0' '\n' > newlines.txt # 64 records in every 64-byte block
for threads in 1 2; do
  expect 0 "only empty lines, $threads thread(s)" "$BS" dedup --threads $threads newlines.txt
  equals "$(od -An -c out | tr -d ' ')" '\n' "300000 empty lines are one record, $threads thread(s)"
  expect 0 "count of empty lines, $threads thread(s)" "$BS" dedup --threads $threads --repeats newlines.txt
  equals "$(wc -l < out)" 299999 "every empty line after the first is a repeat, $threads thread(s)"
done
# Records past a full chunk (RECORDS_PER_CHUNK) are split before more is
# read: reading first grew the carried bytes by a read per chunk, so memory
# (and time) grew with the input. 30 MB of empty lines: ~10 MB of peak RSS
# now, 56-108 MB before. Not under a sanitizer (its shadow memory counts).
if [ "$QUICK" != 1 ] && [ -x /usr/bin/time ] && ! grep -qaE '__(asan|tsan|msan)_init' "$BS"; then
  head -c 30000000 /dev/zero | tr '\0' '\n' > newlines30.txt
  for threads in 1 2; do
    expect 0 "30 MB of empty lines, $threads thread(s)" /usr/bin/time -o rss.txt -f %M "$BS" dedup --threads $threads newlines30.txt
    checks=$((checks + 1))
    [ "$(cat rss.txt)" -lt 30000 ] || fail "30 MB of empty lines, $threads thread(s): peak RSS $(cat rss.txt) KB, expected < 30000 (carry grows with the input?)"
  done
  rm -f newlines30.txt
fi
expect 1 "empty input" "$BS" dedup /dev/null
checks=$((checks + 1))
[ -s out ] && fail "empty input printed something"

# CRLF: with --crlf the '\r' is not part of the key; output keeps the bytes
printf 'a\r\nb\na\nb\r\n' > crlf.txt
expect 0 "dedup --crlf" "$BS" dedup --crlf crlf.txt
printf 'a\r\nb\n' > want.txt
stdout_is want.txt "--crlf: a and a\\r are one key; records printed as read"
expect 0 "dedup without --crlf" "$BS" dedup crlf.txt
stdout_is crlf.txt "without --crlf, a\\r and a are different keys"
"$BS" create cr.bsf --capacity 100
printf 'key\r\n' > k.txt
"$BS" add --crlf cr.bsf k.txt
printf 'key\n' > k2.txt
expect 0 "add --crlf stored the key without \\r" "$BS" query cr.bsf k2.txt
printf 'x\r\n\r\n' > crempty.txt
expect 0 "a lone CR line is the empty key with --crlf" "$BS" dedup --crlf crempty.txt

# NUL-separated records (find -print0), output NUL-separated too
printf 'a b\0c\nd\0a b\0' > nul.bin
expect 0 "dedup --null" "$BS" dedup --null nul.bin
printf 'a b\0c\nd\0' > want.bin
stdout_is want.bin "--null splits on NUL only and writes NUL"
printf 'p\0q' > nulfinal.bin
expect 0 "--null without final NUL" "$BS" dedup -z nulfinal.bin
printf 'p\0q\0' > want.bin
stdout_is want.bin "the final NUL is added"
"$BS" create z.bsf --capacity 100
expect 0 "add --null" "$BS" add --null z.bsf nul.bin
printf 'c\nd\n' > cd.txt
expect 1 "NUL records are not split on newlines" "$BS" query -c z.bsf cd.txt

# bytes, not characters: invalid UTF-8 and high bytes are fine
printf '\377\376\n\303\251\n\303\251\n\200\n' > bytes.txt
expect 0 "non-UTF-8 bytes" "$BS" dedup bytes.txt
printf '\377\376\n\303\251\n\200\n' > want.txt
stdout_is want.txt "bytes are compared as bytes"

# a record longer than the 4 MiB read buffer
head -c 10000000 /dev/zero | tr '\0' 'x' > long.txt
printf '\nshort\n' >> long.txt
cat long.txt long.txt > long2.txt

# records in every position relative to 8-byte words and read ends, more
# records than fit in one chunk, and two inputs, compared with awk; with the
# reader thread and without
"$GEN" 300000 --min 0 --max 20 --repeat 0.5 --seed 5 > short.txt 2>/dev/null
"$GEN" 20000 --min 100 --max 400 --repeat 0.5 --seed 6 > longrec.txt 2>/dev/null
printf '\n\n\n' > blank3.txt
awk '!seen[$0]++' short.txt > want_short.txt
awk '!seen[$0]++' longrec.txt > want_long.txt
awk '!seen[$0]++' short.txt longrec.txt nofinal.txt blank3.txt > want_all.txt
for threads in 1 2; do
  expect 0 "short records of every length, $threads thread(s)" "$BS" dedup --threads $threads --capacity 1e6 --fpr 1e-10 short.txt
  stdout_is want_short.txt "dedup of 0..20-byte records equals awk, $threads thread(s)"
  expect 0 "long records, $threads thread(s)" "$BS" dedup --threads $threads --capacity 1e6 --fpr 1e-10 longrec.txt
  stdout_is want_long.txt "dedup of 100..400-byte records equals awk, $threads thread(s)"
  expect 0 "several inputs, $threads thread(s)" "$BS" dedup --threads $threads --capacity 1e6 --fpr 1e-10 short.txt longrec.txt nofinal.txt blank3.txt
  stdout_is want_all.txt "dedup of several inputs equals awk, $threads thread(s)"
  expect 0 "10 MB record, $threads thread(s)" "$BS" dedup --threads $threads long2.txt
  stdout_is long.txt "a 10 MB record is one record, $threads thread(s)"
done
expect 2 "threads 3" "$BS" dedup --threads 3 short.txt
stderr_has "--threads 3: out of range, must be from 1 to 2" "threads range"
done_testing
