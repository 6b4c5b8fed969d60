package bloomsimd

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNewRejectsBadArguments(t *testing.T) {
	cases := []struct {
		name     string
		capacity uint64
		fpr      float64
		opts     []Option
		want     error
	}{
		{"capacity 0", 0, 0.01, nil, ErrInvalidArgument},
		{"fpr 0", 100, 0, nil, ErrInvalidArgument},
		{"fpr 1", 100, 1, nil, ErrInvalidArgument},
		{"fpr negative", 100, -0.1, nil, ErrInvalidArgument},
		{"fpr NaN", 100, math.NaN(), nil, ErrInvalidArgument},
		{"fpr below 1e-10", 100, 1e-11, nil, ErrInvalidArgument},
		{"k 0", 100, 0.01, []Option{WithK(0)}, ErrInvalidArgument},
		{"k 17", 100, 0.01, []Option{WithK(17)}, ErrInvalidArgument},
		{"unknown kernel", 100, 0.01, []Option{WithKernel("mmx")}, ErrKernelUnavailable},
		{"more than 2^32 blocks", 1 << 40, 1e-9, nil, ErrTooLarge},
	}
	for _, c := range cases {
		f, err := New(c.capacity, c.fpr, c.opts...)
		if f != nil || !errors.Is(err, c.want) {
			t.Errorf("%s: got (%v, %v), want an error wrapping %v", c.name, f, err, c.want)
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Op != "new" {
			t.Errorf("%s: %v is not an *Error of op new", c.name, err)
		}
		for _, other := range sentinels {
			if other != c.want && errors.Is(err, other) {
				t.Errorf("%s: %v also matches %v", c.name, err, other)
			}
		}
	}
}

func TestErrorStringsNameTheOperationAndStatus(t *testing.T) {
	_, err := Load("/nonexistent/dir/f.bsf")
	msg := err.Error()
	for _, part := range []string{"bloomsimd", "load", "/nonexistent/dir/f.bsf"} {
		if !strings.Contains(msg, part) {
			t.Errorf("%q lacks %q", msg, part)
		}
	}
	if !errors.Is(err, ErrIO) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v should match ErrIO and fs.ErrNotExist", err)
	}
	if ErrCorrupt.Error() != "bloomsimd: corrupt data" {
		t.Errorf("sentinel text %q", ErrCorrupt.Error())
	}
}

// writeSaved saves a small filter and returns its path and bytes.
func writeSaved(t *testing.T) (string, []byte) {
	t.Helper()
	f := mustNew(t, 1000, 0.01, WithSeed(5))
	f.AddUint64s(keys(1, 1000))
	path := filepath.Join(t.TempDir(), "f.bsf")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

func TestCorruptFilesAreRejectedWithErrCorrupt(t *testing.T) {
	path, good := writeSaved(t)
	mutations := map[string]func([]byte) []byte{
		"payload bit flipped": func(b []byte) []byte { b[4096+100] ^= 1; return b },
		"header bit flipped":  func(b []byte) []byte { b[33] ^= 1; return b },
		"magic":               func(b []byte) []byte { b[1] = 'X'; return b },
		"truncated payload":   func(b []byte) []byte { return b[:len(b)-64] },
		"truncated header":    func(b []byte) []byte { return b[:100] },
		"empty":               func(b []byte) []byte { return b[:0] },
	}
	for name, mutate := range mutations {
		bad := mutate(append([]byte(nil), good...))
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if f, err := Load(path); f != nil || !errors.Is(err, ErrCorrupt) {
			t.Errorf("Load, %s: %v", name, err)
		}
		if f, err := Map(path, ReadOnly); f != nil || !errors.Is(err, ErrCorrupt) {
			t.Errorf("Map, %s: %v", name, err)
		}
		if f, err := Unmarshal(bad); f != nil || !errors.Is(err, ErrCorrupt) {
			t.Errorf("Unmarshal, %s: %v", name, err)
		}
	}
}

func TestANewerFormatVersionIsErrVersion(t *testing.T) {
	path, data := writeSaved(t)
	binary.LittleEndian.PutUint32(data[8:], 3)
	// re-seal the header so only the version is wrong (header checksum:
	// XXH3_64bits of bytes 0..119, seed 0, docs/FORMAT.md)
	binary.LittleEndian.PutUint64(data[120:], newXXH3Secret(0).hash(data[:120]))
	if f, err := Unmarshal(data); f != nil || !errors.Is(err, ErrVersion) {
		t.Fatalf("Unmarshal: %v", err)
	}
	os.WriteFile(path, data, 0o644)
	if f, err := Load(path); f != nil || !errors.Is(err, ErrVersion) {
		t.Fatalf("Load: %v", err)
	}
}

func TestReadOnlyMappingRefusesEveryInsert(t *testing.T) {
	path, before := writeSaved(t)
	f, err := Map(path, ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !f.Info().ReadOnly || !f.Info().PureGo {
		t.Fatalf("info %+v", f.Info())
	}
	errs := []error{f.AddUint64(1), f.Add([]byte("x")), f.AddString("x"), f.AddUint64s([]uint64{1, 2}),
		f.AddStrings([]string{"a"}), f.AddBytes([][]byte{{1}}), f.AddHashes([]uint64{1}), f.Clear()}
	_, e1 := f.InsertNewUint64(99)
	_, e2 := f.InsertNew([]byte("y"))
	errs = append(errs, e1, e2)
	g := mustNew(t, 1000, 0.01, WithSeed(5))
	errs = append(errs, f.Union(g))
	for i, err := range errs {
		if !errors.Is(err, ErrReadOnly) {
			t.Errorf("insert %d on a read-only mapping: %v", i, err)
		}
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Fatal("a read-only mapping changed the file")
	}
	if f.ContainsUint64s(keys(1, 1000), nil) != 1000 {
		t.Fatal("mapped filter lost keys")
	}
}

func TestUnionOfDifferentFiltersIsErrIncompatible(t *testing.T) {
	a := mustNew(t, 1000, 0.01, WithSeed(1))
	b := mustNew(t, 1000, 0.01, WithSeed(2))
	c := mustNew(t, 5000, 0.01, WithSeed(1))
	for _, src := range []*Filter{b, c} {
		if err := a.Union(src); !errors.Is(err, ErrIncompatible) {
			t.Errorf("union: %v", err)
		}
		if err := a.Intersect(src); !errors.Is(err, ErrIncompatible) {
			t.Errorf("intersect: %v", err)
		}
	}
}

func TestClosedFilterAnswersErrClosedOrZero(t *testing.T) {
	f, _ := New(1000, 0.01)
	f.AddUint64(1)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	out := make([]bool, 2)
	_, e1 := f.InsertNewUint64(1)
	_, e2 := f.MarshalBinary()
	for i, err := range []error{f.AddUint64(1), f.Add(nil), f.AddUint64s([]uint64{1}), f.AddStrings([]string{"a"}),
		f.Save(filepath.Join(t.TempDir(), "x")), f.Sync(), f.Clear(), f.Union(f), e1, e2} {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("call %d on a closed filter: %v", i, err)
		}
	}
	if f.ContainsUint64(1) || f.Contains(nil) || f.ContainsUint64s([]uint64{1, 2}, out) != 0 ||
		f.ContainsStrings([]string{"a"}, out) != 0 || f.Info() != (Info{}) || !math.IsNaN(f.EstimateCount()) ||
		!math.IsNaN(f.FillRatio()) || !math.IsNaN(f.PredictedFPR(1)) || f.Hash([]byte("a")) != 0 {
		t.Error("a closed filter answered")
	}
}

func TestShortOutPanics(t *testing.T) {
	f := mustNew(t, 100, 0.01)
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for a short out")
		}
	}()
	f.ContainsUint64s([]uint64{1, 2, 3}, make([]bool, 2))
}

// Errors carry the library's detail string after its status, and errors.Is
// still matches the status.
func TestErrorsCarryTheLibraryDetail(t *testing.T) {
	_, err := New(0, 0.01)
	if !errors.Is(err, ErrInvalidArgument) || !strings.HasPrefix(err.Error(), "bloomsimd: new: invalid argument: capacity 0") {
		t.Errorf("capacity 0: %v should match ErrInvalidArgument and give the library's reason", err)
	}
	t.Logf("capacity 0: %v", err)
	f, err := New(1000, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	path := filepath.Join(t.TempDir(), "f.bsf")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data[:len(data)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(path)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "truncated: length") {
		t.Errorf("truncated file: %v should match ErrCorrupt and say truncated: length", err)
	}
	_, err = Unmarshal(data[:200])
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("truncated bytes: %v should match ErrCorrupt and say truncated", err)
	}
}
