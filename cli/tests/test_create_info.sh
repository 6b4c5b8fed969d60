# test_create_info.sh — create, info (text and JSON), check and merge.
. "$(dirname "$0")/lib.sh"

expect 0 "create" "$BS" create a.bsf --capacity 10000 --fpr 0.01
stderr_empty "create is silent"
expect 2 "create over an existing file" "$BS" create a.bsf --capacity 10
stderr_has "a.bsf: exists (--force replaces it)" "create refuses to replace"
expect 0 "create --force" "$BS" create a.bsf --capacity 10000 --fpr 0.01 --force
expect 2 "create in a missing directory" "$BS" create no/such/dir.bsf --capacity 10
stderr_has "cannot save" "create in a missing directory"
expect 0 "create with seed, k and bits" "$BS" create b.bsf --bits 1M --k 5 --seed 0x2a

expect 0 "info" "$BS" info a.bsf
# A default filter has the default layout of the kernel that made it
# (docs/kernels/default-layout.md): block512 (2) on scalar,
# split256 (3) on sse42, avx2, avx512 and neon. BLOOMSIMD_KERNEL=avx2 gives the
# latter on any x86-64 CPU with AVX2.
kernel=$(sed -n 's/^kernel: *\([a-z0-9]*\).*/\1/p' "$T/out")
case $kernel in
scalar) layout=2 blocks="x 512 bits (layout block512)" ;;
sse42 | avx2 | avx512 | neon) layout=3 blocks="x 256 bits (layout split256)" ;;
*) layout="?"; fail "info names no known kernel: '$kernel'" ;;
esac
stdout_has "format:            version 2, layout $layout" "info format (kernel $kernel)"
stdout_has "$blocks" "info block size (kernel $kernel)"
stdout_has "checksum:          ok" "info checksum"
stdout_has "capacity:          10000 keys" "info capacity"
stdout_has "target FPR:        0.01" "info fpr"
stdout_has "estimated keys:    0" "info empty filter"
stdout_has "kernel:" "info kernel"
expect 0 "create --layout split256" "$BS" create s.bsf --capacity 1000 --layout split256
expect 0 "info of a split256 filter" "$BS" info s.bsf
stdout_has "x 256 bits (layout split256)" "--layout split256 made a split256 filter"
expect 0 "create --layout block512" "$BS" create l.bsf --capacity 1000 --layout block512
expect 0 "info of a block512 filter" "$BS" info l.bsf
stdout_has "x 512 bits (layout block512)" "--layout block512 made a block512 filter"
expect 2 "create --layout with an unknown name" "$BS" create bad.bsf --layout blocked
stderr_has "--layout 'blocked': block512 or split256" "--layout names the two layouts"
expect 0 "info seed/k/bits" "$BS" info b.bsf
stdout_has "seed:              42 (0x2a)" "seed parsed as hex"
stdout_has "k:                 5" "k kept"
stdout_has "format:            version 2, layout 2" "k 5 is block512 on every kernel"
stdout_has "bits:              1000448" "bits rounded up to blocks"

"$GEN" 5000 --repeat 0 --seed 7 > keys.txt 2>/dev/null
expect 0 "add" "$BS" add a.bsf keys.txt
expect 0 "info --json" "$BS" info --json a.bsf
checks=$((checks + 1))
/usr/bin/python3 - "$T/out" <<'PY' || fail "info --json is valid JSON with the documented fields and a close estimate"
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("file", "format_version", "checksum", "capacity", "target_fpr", "blocks", "bits", "k", "seed",
          "kernel", "fill", "estimated_keys", "fpr_now", "saturated", "bits_per_key"):
    assert k in d, k
assert d["capacity"] == 10000 and d["format_version"] == 2 and d["checksum"] == "ok"
assert abs(d["estimated_keys"] - 5000) < 250, d["estimated_keys"]   # a few % at this fill
assert 0 < d["fpr_now"] < 0.01 and not d["saturated"]
PY
expect 0 "info of two files" "$BS" info a.bsf b.bsf
stdout_has "file:              b.bsf" "info shows both files"
expect 2 "info of a missing file" "$BS" info missing.bsf
stderr_has "missing.bsf: No such file or directory" "info missing"

# a filter past its capacity says so, in info and in add
"$GEN" 3000 --repeat 0 --seed 8 > few.txt 2>/dev/null
"$BS" create small.bsf --capacity 1000 --fpr 0.01
expect 0 "add past capacity" "$BS" add small.bsf few.txt
stderr_has "warning: small.bsf holds about" "add warns past capacity"
stderr_has "more than its capacity 1000" "add warning names the capacity"
expect 0 "add past capacity, quiet" "$BS" add --quiet small.bsf few.txt
stderr_empty "--quiet silences the capacity warning"
expect 0 "info past capacity" "$BS" info small.bsf
stdout_has "OVER CAPACITY" "info flags over capacity"
# a growing filter past its first layer's capacity is not over capacity: no
# warning, and info says the capacity is the first layer's
"$BS" create grows.bsf --capacity 100 --fpr 0.01 --growth 2
expect 0 "add past a growing filter's first layer" "$BS" add grows.bsf few.txt
stderr_empty "no capacity warning for a growing filter"
expect 0 "info of a grown filter" "$BS" info grows.bsf
stdout_has "capacity:          100 keys in the first layer (the filter grows past it)" "info: first layer's capacity"
stdout_has "at the estimated keys (all layers)" "info: bits/key over the keys, not the first layer"
checks=$((checks + 1))
grep -q "OVER CAPACITY" "$T/out" && fail "info calls a grown filter over capacity"
expect 0 "dedup past a growing filter's first layer" "$BS" dedup --capacity 100 --growth 2 few.txt
stderr_empty "no capacity warning from dedup with --growth"
"$BS" create tiny.bsf --bits 512 --k 16
"$GEN" 2000 --repeat 0 > many.txt 2>/dev/null
"$BS" add -q tiny.bsf many.txt
expect 0 "info saturated" "$BS" info tiny.bsf
stdout_has "saturated (every bit set)" "info reports saturation"

# check: 0 valid, 1 invalid, 2 unreadable
expect 0 "check valid" "$BS" check a.bsf b.bsf
stdout_has "a.bsf: ok" "check prints ok"
printf 'hello world\n' > text.bsf
expect 1 "check a text file" "$BS" check a.bsf text.bsf
stderr_has "text.bsf: not a bloomsimd filter file" "check explains a text file"
expect 2 "check a missing file" "$BS" check a.bsf missing.bsf
expect 1 "check -q" "$BS" check -q text.bsf
stderr_empty "check -q is silent"

# merge: the union of compatible filters
"$GEN" 2000 --repeat 0 --seed 11 > k1.txt 2>/dev/null
"$GEN" 2000 --repeat 0 --seed 12 > k2.txt 2>/dev/null
"$BS" create m1.bsf --capacity 10000 && "$BS" add m1.bsf k1.txt
"$BS" create m2.bsf --capacity 10000 && "$BS" add m2.bsf k2.txt
expect 0 "merge" "$BS" merge m.bsf m1.bsf m2.bsf
cat k1.txt k2.txt > k12.txt
expect 0 "merged filter has both key sets" "$BS" query -c m.bsf k12.txt
stdout_has "4000" "all 4000 keys found after merge"
cp m1.bsf m1.orig
expect 0 "merge into one of the inputs" "$BS" merge m1.bsf m1.bsf m2.bsf
same_file m.bsf m1.bsf "merge in place equals merge to a new file"
expect 2 "merge incompatible" "$BS" merge bad.bsf m2.bsf b.bsf
stderr_has "b.bsf: cannot merge with m2.bsf" "merge names the incompatible file"
stderr_has "seed" "merge says geometry/seed differ"
[ -e bad.bsf ] && fail "failed merge wrote its output"
expect 2 "merge a missing input" "$BS" merge bad.bsf m2.bsf nope.bsf

# a save that cannot complete (file size limit = a full disk) leaves the old file intact
"$GEN" 20000 --repeat 0 --seed 13 > big.txt 2>/dev/null
"$BS" create full.bsf --capacity 1000000
cp full.bsf full.orig
expect 2 "add with the disk full" bash -c "ulimit -f 64; exec \"$BS\" add full.bsf big.txt"
stderr_has "cannot save" "disk full is reported"
stderr_has "unchanged" "disk full message says the old file is kept"
same_file full.bsf full.orig "the old file survives a failed save"
checks=$((checks + 1))
ls full.bsf.tmp* >/dev/null 2>&1 && fail "a failed save left a temporary file"
done_testing
