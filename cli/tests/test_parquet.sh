# test_parquet.sh — bloomsimd parquet on the Parquet files DuckDB wrote
# (tests/parquet/fixtures): every answer DuckDB's parquet_bloom_probe gave
# (duckdb_probe.tsv) is the command's, through --values and as arguments;
# --list shows every filter; counts, JSON, exit statuses and bad input.
. "$(dirname "$0")/lib.sh"
FX=$SRC/../tests/parquet/fixtures
tsv=$FX/duckdb_probe.tsv

# expected lines per (file, column) from DuckDB's answers
awk -F'\t' '!/^#/ {
  n = split($4, a, ",")
  key = $1 "\t" $2
  vals[key] = vals[key] $3 "\n"
  for (i = 1; i <= n; i++) want[key] = want[key] (i - 1) "\t" $3 "\t" a[i] "\n"
  keys[key] = 1
} END {
  for (k in keys) {
    split(k, p, "\t"); f = p[1] "." p[2]
    printf "%s", vals[k] > (f ".values"); printf "%s", want[k] > (f ".want")
    print k > "pairs.txt"
  }
}' "$tsv"
pairs=0
while IFS=$'\t' read -r file column; do
  pairs=$((pairs + 1))
  run "$BS" parquet "$FX/$file" --column "$column" --values "$file.$column.values"
  checks=$((checks + 1))
  cmp -s "$T/out" "$file.$column.want" || { fail "$file $column: answers differ from DuckDB's"; diff "$T/out" "$file.$column.want" | head -5 >&2; }
done < pairs.txt
equals "$pairs" 12 "duckdb_probe.tsv: every (file, column) pair asked"

# unsigned integers above the signed range (UINT_32 / UINT_64 columns store the
# same bits) and UUIDs (FIXED_LEN_BYTE_ARRAY(16)) in their text form, without
# dashes, or as 16 raw bytes; anything else for them is refused
u64=$(awk -F'\t' '$1 == "types.parquet" && $2 == "u64" && $4 == "maybe,maybe" { print $3; exit }' "$tsv")
expect 0 "an unsigned INT64 above 2^63" "$BS" parquet "$FX/types.parquet" --column u64 "$u64"
equals "$(cut -f3 "$T/out" | paste -sd, -)" "maybe,maybe" "unsigned INT64: found in both row groups"
expect 2 "an INT64 of 2^64" "$BS" parquet "$FX/types.parquet" --column u64 18446744073709551616
expect 2 "an INT32 of 2^32" "$BS" parquet "$FX/types.parquet" --column u32 4294967296
uuid=$(awk -F'\t' '$1 == "types.parquet" && $2 == "id" { print $3; exit }' "$tsv")
expect 0 "a UUID without its dashes" "$BS" parquet "$FX/types.parquet" --column id "$(tr -d - <<<"$uuid")"
equals "$(cut -f3 "$T/out" | paste -sd, -)" "maybe,maybe" "UUID without dashes: found"
expect 2 "a UUID one digit short" "$BS" parquet "$FX/types.parquet" --column id "${uuid%?}"
stderr_has "(FIXED_LEN_BYTE_ARRAY(16): 16 bytes or 32 hex digits)" "FIXED_LEN_BYTE_ARRAY: the forms named"
expect 1 "16 raw bytes: a value of the column's width" "$BS" parquet "$FX/types.parquet" --column id 0123456789abcdef
equals "$(wc -l <"$T/out")" 2 "16 raw bytes: asked in both row groups"

# --values from standard input with several files: every file gets every value
awk -F'\t' '$1 == "types.parquet" && $2 == "long" { print $3 }' "$tsv" > long.values
run "$BS" parquet "$FX/types.parquet" "$FX/types.parquet" --column long --values - < long.values
equals "$rc" 0 "standard input, two files: exit status"
equals "$(wc -l <"$T/out")" "$((4 * $(wc -l <long.values)))" "standard input, two files: each value in each file's 2 row groups"

# values as arguments (negative integers after --), one row group each
line=$(awk -F'\t' '$1 == "mixed.parquet" && $2 == "i64" && $3 ~ /^-/ { print; exit }' "$tsv")
v=$(cut -f3 <<<"$line")
expect 0 "a negative INT64 value after --" "$BS" parquet "$FX/mixed.parquet" --column i64 -- "$v"
equals "$(cut -f3 "$T/out" | paste -sd, -)" "$(cut -f4 <<<"$line")" "argument value: DuckDB's answers"

# --hex: a byte-array column's values given as the hex digits of their bytes
# (a UUID's text is hex already) get DuckDB's answers, row group by row group
for pair in "mixed.parquet str" "mixed.parquet var" "types.parquet long" "nulls_fpr0001.parquet name" "types.parquet id"; do
  read -r file column <<<"$pair"
  if [ "$column" = id ]; then
    cp "$file.$column.values" "$file.$column.hex"
  else
    /usr/bin/python3 -c 'import sys; [print(l.rstrip("\n").encode().hex()) for l in open(sys.argv[1], encoding="utf-8")]' \
      "$file.$column.values" > "$file.$column.hex"
  fi
  run "$BS" parquet --hex "$FX/$file" --column "$column" --values "$file.$column.hex"
  checks=$((checks + 1))
  cmp -s <(cut -f1,3 "$T/out") <(cut -f1,3 "$file.$column.want") || fail "--hex $file $column: answers differ from DuckDB's"
  equals "$(wc -l <"$T/out")" "$(wc -l <"$file.$column.want")" "--hex $file $column: a line per value and row group"
done
stdout_has "$(head -n 1 "types.parquet.id.hex")" "--hex: the value printed as given"
expect 2 "--hex: an odd number of digits" "$BS" parquet --hex "$FX/mixed.parquet" --column str abc
stderr_has "'abc' is not a value of column str (BYTE_ARRAY, --hex: an even number of hex digits)" "--hex: odd digits named"
expect 2 "--hex: not a hex digit" "$BS" parquet -x "$FX/mixed.parquet" --column str 6g
expect 2 "--hex: 16 raw bytes are not hex" "$BS" parquet --hex "$FX/types.parquet" --column id 0123456789abcdef
stderr_has "(FIXED_LEN_BYTE_ARRAY(16), --hex: 32 hex digits)" "--hex: the width in digits"
expect 2 "--hex on an INT64 column" "$BS" parquet --hex "$FX/mixed.parquet" --column i64 00
stderr_has "--hex: column i64 is INT64, not a byte array (skipped)" "--hex: the column's type named"
expect 2 "--hex with --list" "$BS" parquet --hex --list "$FX/mixed.parquet"

# a value in no row group: exit 1
none=$(awk -F'\t' '$1 == "mixed.parquet" && $2 == "str" && $4 == "no,no,no" { print $3; exit }' "$tsv")
[ -n "$none" ] || fail "duckdb_probe.tsv has no str value absent from every row group"
expect 1 "a value no row group may hold" "$BS" parquet "$FX/mixed.parquet" --column str "$none"

# several files: the file name first; counts
expect 2 "two files, one without the column" "$BS" parquet "$FX/mixed.parquet" "$FX/nulls_fpr0001.parquet" --column i64 -- "$v"
equals "$(wc -l <"$T/out")" 3 "two files, one has the column: its row groups still answered"
stdout_has "mixed.parquet	0	$v	maybe" "several files: the file name first"
stderr_has "nulls_fpr0001.parquet: no column i64 (skipped)" "a file without the column is named"
expect 0 "counts" "$BS" parquet -c "$FX/mixed.parquet" --column i64 -- "$v" 5
equals "$(awk -F"\t" "{ s += \$2 } END { print s }" "$T/out")" "$(cut -f4 <<<"$line" | tr , '\n' | grep -c maybe)" "counts: the maybes"

# JSON: one object a line, parsed
f64=$(awk -F'\t' '$1 == "mixed.parquet" && $2 == "f64" && $4 ~ /maybe/ { print $3; exit }' "$tsv")
expect 0 "json" "$BS" parquet --json "$FX/mixed.parquet" --column f64 "$f64"
checks=$((checks + 1))
/usr/bin/python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$T/out" || fail "json lines do not parse"

# --list: every filter of both files
expect 0 "list" "$BS" parquet --list "$FX/mixed.parquet" "$FX/nulls_fpr0001.parquet"
equals "$(($(wc -l <"$T/out") - 1))" 23 "list: 21 + 2 filters"
stdout_has "s.x" "list: the nested column's path"

# bad input
expect 2 "a value not of the column's type" "$BS" parquet "$FX/mixed.parquet" --column i32 abc
stderr_has "'abc' is not a value of column i32 (INT32)" "bad value named"
expect 2 "an INT32 out of range" "$BS" parquet "$FX/mixed.parquet" --column i32 4294967296
expect 2 "no such column" "$BS" parquet "$FX/mixed.parquet" --column nope 1
expect 2 "not a Parquet file" "$BS" parquet "$FX/README.md" --column a 1
stderr_has "not a readable Parquet file" "not Parquet: said"
head -c 3000 "$FX/mixed.parquet" > cut.parquet
expect 2 "a truncated file" "$BS" parquet cut.parquet --column i64 1
expect 2 "a missing file" "$BS" parquet missing.parquet --column i64 1
expect 2 "no --column" "$BS" parquet "$FX/mixed.parquet" 1
expect 2 "no value" "$BS" parquet "$FX/mixed.parquet" --column i64
done_testing
