# test_state.sh — dedup --state: what was seen persists across runs; SIGTERM,
# SIGINT and a closed pipe leave a valid, synced state file; SIGKILL leaves
# an unsynced one that is refused unless --accept-unsynced; one writer per
# file; damaged state files are refused and left as they were.
. "$(dirname "$0")/lib.sh"

N=400000
[ "$QUICK" = 1 ] && N=100000
"$GEN" $N --repeat 0.3 --seed 41 > in.txt 2>/dev/null
head -n $((N / 2)) in.txt > a.txt
tail -n +$((N / 2 + 1)) in.txt > b.txt

# The sizes below are block512's (a new file takes the default kernel's layout,
# and avx2, sse42 and neon default to split256): the scalar kernel pins it, so
# the figures hold on every CPU; later runs read the layout from the file.
BLOCK512=(env BLOOMSIMD_KERNEL=scalar)

# persistence: two runs over the halves print what one awk over all prints
expect 0 "first run creates the state" "${BLOCK512[@]}" "$BS" dedup --state s.bsf --capacity 1e6 --fpr 1e-10 a.txt
cp out run1.txt
stderr_has "s.bsf: new state file, 14.2 MB for 1000000 distinct records at FPR 1e-10" "new state: what it got, said"
if grep -q "default size" "$T/err"; then fail "new state sized by --capacity: called the default size"; fi
expect 0 "state file is valid" "$BS" check s.bsf
expect 0 "second run" "$BS" dedup --state s.bsf b.txt
cat run1.txt out > both.txt
awk '!seen[$0]++' in.txt > want.txt
same_file both.txt want.txt "two runs with --state equal one awk over both halves"
expect 1 "third run: nothing new" "$BS" dedup --state s.bsf in.txt
checks=$((checks + 1))
[ -s out ] && fail "third run printed records"
# a state created without size options says which defaults it took
printf 'x\ny\n' > two.txt
expect 0 "state with the defaults" "${BLOCK512[@]}" "$BS" dedup --state dflt.bsf two.txt
stderr_has "dflt.bsf: new state file, 49.0 MB for 10000000 distinct records at FPR 1e-06 (dedup's default size; the file cannot grow: --capacity N sizes it for N records)" "default state: size, why and how to choose, said"
# the help states one set of defaults, dedup's own, and the size they give
expect 0 "dedup --help" "${BLOCK512[@]}" "$BS" dedup --help
stdout_has "(default 10M; " "help: dedup's default capacity"
stdout_has "(default 1e-6)" "help: dedup's default fpr"
stdout_has "The defaults make a 49.0 MB filter." "help: the size of the defaults"
checks=$((checks + 1))
if grep -q "default 0.01" "$T/out"; then fail "dedup --help names another default fpr"; fi
# sizing needs the kernel's layout: with one that cannot run, the help says so instead of "nan MB"
expect 0 "dedup --help, BLOOMSIMD_KERNEL unknown" env BLOOMSIMD_KERNEL=avx1024 "$BS" dedup --help
stdout_has "The sizes of the defaults are unknown here: BLOOMSIMD_KERNEL" "help: sizes unknown, said why"
checks=$((checks + 1))
if grep -qi "nan" "$T/out"; then fail "dedup --help printed nan"; fi
# a new state file cannot grow: --growth is refused before anything is written
expect 2 "growth with a new state" "$BS" dedup --state grow.bsf --growth 2 two.txt
stderr_has "--growth: a new --state FILE is mapped and cannot grow" "growth with a new state: why, said"
checks=$((checks + 1))
[ -e grow.bsf ] && fail "growth with a new state: a file was written"
expect 0 "quiet state with the defaults" "$BS" dedup -q --state dflt2.bsf two.txt
stderr_empty "quiet new state"
expect 1 "size options on an existing state" "$BS" dedup --state s.bsf --capacity 5 a.txt
stderr_has "s.bsf exists: its own size, seed and hash are used" "existing state: size options ignored, said"
expect 0 "info of a state file" "$BS" info s.bsf
stdout_has "synced by a writable mapping" "info: state written through a mapping, synced"

# SIGTERM while blocked on a quiet pipe: sync, then die of the signal
wait_lines() { # FILE COUNT: wait until FILE has COUNT lines (at most ~20 s)
  for _ in $(seq 200); do
    [ "$(wc -l < "$1")" -ge "$2" ] && return 0
    sleep 0.1
  done
  return 1
}
head -5000 in.txt > first.txt
uniq_first=$(awk '!seen[$0]++' first.txt | wc -l)
for run in TERM:1 TERM:2 INT:2 HUP:1; do
  sig=${run%:*}
  threads=${run#*:}
  rm -f t.bsf fifo && mkfifo fifo
  "$BS" dedup --threads "$threads" --state t.bsf --capacity 1e5 < fifo > live.txt 2> live.err &
  pid=$!
  exec 3> fifo
  cat first.txt >&3
  wait_lines live.txt "$uniq_first" || fail "SIG$sig: dedup did not pass records on while its input stayed open"
  kill -s $sig $pid
  wait $pid
  status=$?
  exec 3>&-
  case $sig in TERM) want=143 ;; INT) want=130 ;; HUP) want=129 ;; esac
  equals "$status" "$want" "dedup dies of SIG$sig after syncing"
  expect 0 "state valid after SIG$sig" "$BS" check t.bsf
  expect 0 "keys seen before SIG$sig are in the state" "$BS" query -c t.bsf first.txt
  equals "$(cat out)" 5000 "every record before SIG$sig is in the synced state"
done

# SIGTERM in the middle of a stream that never pauses: valid state, and
# every record printed is in it (the batch in flight is written out before
# the sync)
"$GEN" 1e9 --repeat 0.3 --seed 42 2>/dev/null | "$BS" dedup --state busy.bsf --capacity 3e7 --fpr 0.01 > busy.out 2> busy.err &
pid=$!
for _ in $(seq 300); do [ -s busy.out ] && break; sleep 0.1; done
checks=$((checks + 1))
[ -s busy.out ] || fail "busy dedup printed nothing in 30 s"
sleep 0.2
kill -TERM $pid
wait $pid
status=$?
equals "$status" 143 "busy dedup dies of SIGTERM"
expect 0 "state valid after SIGTERM mid-stream" "$BS" check busy.bsf
expect 0 "printed records are in the state" "$BS" query -c busy.bsf busy.out
equals "$(cat out)" "$(wc -l < busy.out)" "everything printed before SIGTERM is in the state"
"$GEN" $((N * 5)) --repeat 0.3 --seed 42 > big.txt 2>/dev/null

# the reader of the output goes away: sync, then die of SIGPIPE
"$BS" dedup --state pipe.bsf --capacity 3e6 big.txt | head -1 > /dev/null
status=${PIPESTATUS[0]}
checks=$((checks + 1))
[ "$status" = 141 ] || [ "$status" = 0 ] || fail "dedup | head: status $status"
expect 0 "state valid after a closed pipe" "$BS" check pipe.bsf

# SIGKILL: no sync. The file is refused as unsynced unless --accept-unsynced
rm -f k.bsf fifo && mkfifo fifo
"$BS" dedup --state k.bsf --capacity 1e5 < fifo > live.txt 2> live.err &
pid=$!
exec 3> fifo
cat first.txt >&3
wait_lines live.txt "$uniq_first" || fail "SIGKILL: dedup did not pass records on"
# one writer per file: a second writer is refused while the first runs
expect 2 "second writer" "$BS" dedup --state k.bsf first.txt
stderr_has "in use by another writer" "second writer message"
expect 2 "add while a writer runs" "$BS" add k.bsf first.txt
stderr_has "in use by a writer" "add refuses a file being written"
expect 0 "a reader may look with --accept-unsynced" "$BS" query -c --accept-unsynced k.bsf first.txt
equals "$(cat out)" 5000 "reader sees the live writer's keys"
kill -KILL $pid
wait $pid 2>/dev/null
exec 3>&-
cp k.bsf k.orig
expect 1 "check an unsynced file" "$BS" check k.bsf
stderr_has "not synced" "check explains an unsynced file"
expect 2 "dedup refuses an unsynced state" "$BS" dedup --state k.bsf first.txt
stderr_has "--accept-unsynced" "the refusal says how to go on"
same_file k.bsf k.orig "a refused state file is not touched"
expect 0 "info shows an unsynced file" "$BS" info k.bsf
stdout_has "stale" "info marks the checksum stale"
expect 1 "dedup --accept-unsynced" "$BS" dedup --state k.bsf --accept-unsynced first.txt
expect 0 "synced again" "$BS" check k.bsf

# --accept-unsynced on a command that loads a copy (merge, add): the copy is the
# file's filter, in both layouts, whatever layout this kernel would pick (k 8
# is split256's, so a block512 file of k 8 was once copied as split256 and refused)
for layout in block512 split256; do
    rm -f u.bsf fifo && mkfifo fifo
    "$BS" dedup --state u.bsf --capacity 1e5 --layout $layout -k 8 < fifo > live.txt 2> live.err &
    pid=$!
    exec 3> fifo
    cat first.txt >&3
    wait_lines live.txt "$uniq_first" || fail "$layout: dedup did not pass records on"
    kill -KILL $pid
    wait $pid 2>/dev/null
    exec 3>&-
    expect 1 "$layout: the killed writer's file is unsynced" "$BS" check u.bsf
    rm -f u-copy.bsf
    expect 0 "$layout: merge --accept-unsynced copies it" "$BS" merge --accept-unsynced u-copy.bsf u.bsf
    expect 0 "$layout: the copy is valid" "$BS" check u-copy.bsf
    expect 0 "$layout: the copy has every key" "$BS" query -c u-copy.bsf first.txt
    equals "$(cat out)" 5000 "$layout: every key of the killed writer is in the copy"
    expect 0 "$layout: info of the copy" "$BS" info u-copy.bsf
    stdout_has "$layout" "$layout: the copy keeps the layout"
done

# --sync-interval: a long-running writer keeps its file valid
rm -f i.bsf fifo && mkfifo fifo
"$BS" dedup --state i.bsf --capacity 1e5 --sync-interval 0.1 < fifo > live.txt 2> live.err &
pid=$!
exec 3> fifo
cat first.txt >&3
wait_lines live.txt "$uniq_first" || fail "sync-interval: dedup did not pass records on"
printf 'one-more\n' >&3 # a batch after the interval has passed triggers the sync
sleep 0.5
printf 'and-another\n' >&3
wait_lines live.txt $((uniq_first + 2)) || fail "sync-interval: later records not passed on"
expect 0 "periodically synced state is valid while running" "$BS" check i.bsf
kill -KILL $pid
wait $pid 2>/dev/null
exec 3>&-

# damaged state files are refused, and left as they are
"$BS" create good.bsf --capacity 10000
"$BS" add good.bsf first.txt
damaged() { # NAME DESCRIPTION EXPECTED-MESSAGE: NAME.bsf is prepared by the caller
  cp "$1.bsf" "$1.orig"
  expect 2 "$2" "$BS" dedup --state "$1.bsf" first.txt
  stderr_has "$3" "$2: message"
  same_file "$1.bsf" "$1.orig" "$2: file untouched"
  expect 1 "check: $2" "$BS" check "$1.bsf"
}
cp good.bsf flip.bsf
printf '\001' | dd of=flip.bsf bs=1 seek=5000 conv=notrunc 2>/dev/null
damaged flip "flipped payload byte" "serialized filter is corrupt: payload checksum mismatch (stored "
cp good.bsf hdr.bsf
printf '\377' | dd of=hdr.bsf bs=1 seek=60 conv=notrunc 2>/dev/null
damaged hdr "flipped header byte" "serialized filter is corrupt: header checksum mismatch (stored "
head -c -100 good.bsf > trunc.bsf
damaged trunc "truncated file" "truncated: length "
cp good.bsf long.bsf && printf 'x' >> long.bsf
damaged long "one trailing byte" "trailing bytes after the filter"
printf 'just some text\n' > text.bsf
damaged text "a text file" "not a bloomsimd filter file"
: > empty.bsf
damaged empty "an empty file" "not a bloomsimd filter file (empty)"
cp good.bsf ver.bsf
printf '\003' | dd of=ver.bsf bs=1 seek=8 conv=notrunc 2>/dev/null
damaged ver "a newer format version" "format version 3; this library reads version 2"
# unknown header fields in an intact header: the reason names the field and what this build reads
cp good.bsf kind.bsf
printf '\007' | dd of=kind.bsf bs=1 seek=52 conv=notrunc 2>/dev/null
"$BLOOMSIMD_RESEAL_HEADER" kind.bsf || fail "reseal_header kind.bsf"
damaged kind "an unknown filter kind" "filter kind 7 is unknown to this library (0 plain, 1 scalable, 2 window)"
cp good.bsf layout.bsf
printf '\011' | dd of=layout.bsf bs=1 seek=16 conv=notrunc 2>/dev/null
"$BLOOMSIMD_RESEAL_HEADER" layout.bsf || fail "reseal_header layout.bsf"
damaged layout "an unknown layout" "layout 9 is unknown to this library (it reads layout 2"
# check gives the reason and no advice to run check
expect 1 "check names the reason" "$BS" check flip.bsf
stderr_has "payload checksum mismatch" "check: reason"
if grep -q "'bloomsimd check' validates" "$T/err"; then fail "check suggests running check"; fi
checks=$((checks + 1))
expect 2 "info names the reason" "$BS" info trunc.bsf
stderr_has "truncated: length " "info: reason"
mkdir dir.bsf
expect 2 "a directory as state" "$BS" dedup --state dir.bsf first.txt
chmod 000 good.bsf
if [ "$(id -u)" != 0 ]; then
  expect 2 "an unreadable state" "$BS" dedup --state good.bsf first.txt
  stderr_has "Permission denied" "unreadable state"
fi
chmod 644 good.bsf
done_testing
