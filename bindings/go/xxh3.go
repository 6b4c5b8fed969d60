package bloomsimd

// XXH3_64bits_withSeed in Go, bit-exact with libxxhash (xxh3_test.go checks
// every length 0..512 and random longer keys against the library for several
// seeds). It follows the public xxHash specification (doc/xxhash_spec.md of
// the xxHash project): short inputs (0..16, 17..128, 129..240 bytes) are mixed
// directly with the secret; longer ones run 8 accumulators over 64-byte
// stripes, scrambled every 1024 bytes. The seeded long path uses a custom
// secret derived from the seed, computed once per filter (xxh3Secret).
//
// Why in Go: single-key Add/Contains must not pay a cgo call (~30-60 ns) per
// key, and the hash is half of a single-key probe.

import (
	"encoding/binary"
	"math/bits"
)

const (
	prime32_1 = 0x9E3779B1
	prime32_2 = 0x85EBCA77
	prime32_3 = 0xC2B2AE3D
	prime64_1 = 0x9E3779B185EBCA87
	prime64_2 = 0xC2B2AE3D27D4EB4F
	prime64_3 = 0x165667B19E3779F9
	prime64_4 = 0x85EBCA77C2B2AE63
	prime64_5 = 0x27D4EB2F165667C5
	primeMX1  = 0x165667919E3779F9
	primeMX2  = 0x9FB21C651E98DF25

	secretSize      = 192
	stripeLen       = 64
	consumeRate     = 8 // secret bytes advanced per stripe
	stripesPerBlock = (secretSize - stripeLen) / consumeRate
	blockLen        = stripeLen * stripesPerBlock
	midStartOffset  = 3
	midLastOffset   = 17
	secretSizeMin   = 136
	lastAccStart    = 7
	mergeAccsStart  = 11
)

// kSecret is XXH3's default secret (the specification's 192 bytes).
var kSecret = [secretSize]byte{
	0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
	0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
	0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
	0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
	0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
	0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
	0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
	0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
	0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
	0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
	0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
	0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
}

// xxh3Secret is a seed's hashing state: the constants of the short paths and
// the custom secret of the long path.
type xxh3Secret struct {
	seed    uint64
	bitflip uint64    // the 4..8-byte path's constant (u64 keys): kernels/layout.h section 1
	flip916 [2]uint64 // the 9..16-byte path's two constants
	// words[i] is the custom secret's 64-bit word i (kSecret's word plus the seed for even
	// i, minus it for odd i): the 17..240-byte paths mix 16 bytes with words 2j and 2j+1,
	// which are their secret at offset 16j with the seed already applied
	words [16]uint64
	// the 129..240-byte path's pieces past the first 128 bytes use the secret at offsets
	// 3 + 16j (mid[j]) and 119 (last), not multiples of 8: their two words, seed applied
	mid    [7][2]uint64
	last   [2]uint64
	custom [secretSize]byte
}

func newXXH3Secret(seed uint64) *xxh3Secret {
	s := &xxh3Secret{seed: seed}
	// 4..8-byte path: the seed with its low half byte-swapped into the high half.
	mixed := seed ^ uint64(bits.ReverseBytes32(uint32(seed)))<<32
	s.bitflip = (le64(kSecret[8:]) ^ le64(kSecret[16:])) - mixed
	s.flip916 = [2]uint64{(le64(kSecret[24:]) ^ le64(kSecret[32:])) + seed, (le64(kSecret[40:]) ^ le64(kSecret[48:])) - seed}
	for i := 0; i < secretSize; i += 16 {
		binary.LittleEndian.PutUint64(s.custom[i:], le64(kSecret[i:])+seed)
		binary.LittleEndian.PutUint64(s.custom[i+8:], le64(kSecret[i+8:])-seed)
	}
	for i := range s.words {
		s.words[i] = le64(s.custom[8*i:])
	}
	for j := range s.mid {
		off := 16*j + midStartOffset
		s.mid[j] = [2]uint64{le64(kSecret[off:]) + seed, le64(kSecret[off+8:]) - seed}
	}
	off := secretSizeMin - midLastOffset
	s.last = [2]uint64{le64(kSecret[off:]) + seed, le64(kSecret[off+8:]) - seed}
	return s
}

func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }
func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }

func mulFold64(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

func xxh64Avalanche(h uint64) uint64 {
	h ^= h >> 33
	h *= prime64_2
	h ^= h >> 29
	h *= prime64_3
	return h ^ h>>32
}

func xxh3Avalanche(h uint64) uint64 {
	h ^= h >> 37
	h *= primeMX1
	return h ^ h>>32
}

func rrmxmx(h, length uint64) uint64 {
	h ^= bits.RotateLeft64(h, 49) ^ bits.RotateLeft64(h, 24)
	h *= primeMX2
	h ^= (h >> 35) + length
	h *= primeMX2
	return h ^ h>>28
}

// hashU64 is XXH3_64bits_withSeed of the 8 little-endian bytes of key
// (the 4..8-byte path with both 32-bit reads fixed: rotl64(key, 32)).
func (s *xxh3Secret) hashU64(key uint64) uint64 {
	return rrmxmx(bits.RotateLeft64(key, 32)^s.bitflip, 8)
}

// hash is XXH3_64bits_withSeed(b, len(b), seed). The paths of 0..16 bytes
// are written out here rather than called: a single-key Add or Contains of
// a short key then makes one call for its hash (Go has no callee-saved
// registers, so every call level spills the caller's loop state).
func (s *xxh3Secret) hash(b []byte) uint64 {
	n := len(b)
	seed := s.seed
	switch {
	case n > 240:
		return hashLong(b, &s.custom)
	case n > 128:
		return s.hash129to240(b)
	case n > 16:
		return s.hash17to128(b)
	case n > 8:
		lo := le64(b) ^ s.flip916[0]
		hi := le64(b[n-8:]) ^ s.flip916[1]
		acc := uint64(n) + bits.ReverseBytes64(lo) + hi + mulFold64(lo, hi)
		return xxh3Avalanche(acc)
	case n >= 4:
		in64 := uint64(le32(b[n-4:])) + uint64(le32(b))<<32
		return rrmxmx(in64^s.bitflip, uint64(n))
	case n > 0:
		combined := uint32(b[0])<<16 | uint32(b[n>>1])<<24 | uint32(b[n-1]) | uint32(n)<<8
		flip := uint64(le32(kSecret[0:])^le32(kSecret[4:])) + seed
		return xxh64Avalanche(uint64(combined) ^ flip)
	default:
		return xxh64Avalanche(seed ^ le64(kSecret[56:]) ^ le64(kSecret[64:]))
	}
}

// mix16w is XXH3's 16-byte mix (mix16B in the specification) of 16 bytes
// with the secret words lo, hi, which already carry the seed.
func mix16w(p *[16]byte, lo, hi uint64) uint64 {
	return mulFold64(binary.LittleEndian.Uint64(p[:8])^lo, binary.LittleEndian.Uint64(p[8:])^hi)
}

// hash17to128 mixes 16-byte pieces from both ends of the key with the
// seeded secret words (s.words); each piece is an array pointer, so its two
// loads need no bounds checks of their own.
func (s *xxh3Secret) hash17to128(b []byte) uint64 {
	n := len(b)
	w := &s.words
	acc := uint64(n) * prime64_1
	if n > 32 {
		if n > 64 {
			if n > 96 {
				acc += mix16w((*[16]byte)(b[48:64]), w[12], w[13])
				acc += mix16w((*[16]byte)(b[n-64:n-48]), w[14], w[15])
			}
			acc += mix16w((*[16]byte)(b[32:48]), w[8], w[9])
			acc += mix16w((*[16]byte)(b[n-48:n-32]), w[10], w[11])
		}
		acc += mix16w((*[16]byte)(b[16:32]), w[4], w[5])
		acc += mix16w((*[16]byte)(b[n-32:n-16]), w[6], w[7])
	}
	acc += mix16w((*[16]byte)(b[0:16]), w[0], w[1])
	acc += mix16w((*[16]byte)(b[n-16:n]), w[2], w[3])
	return xxh3Avalanche(acc)
}

func (s *xxh3Secret) hash129to240(b []byte) uint64 {
	n := len(b)
	w := &s.words
	acc := uint64(n) * prime64_1
	for i := 0; i < 8; i++ {
		acc += mix16w((*[16]byte)(b[16*i:16*i+16]), w[2*i], w[2*i+1])
	}
	acc = xxh3Avalanche(acc)
	for i := 8; i < n/16; i++ {
		m := &s.mid[i-8]
		acc += mix16w((*[16]byte)(b[16*i:16*i+16]), m[0], m[1])
	}
	acc += mix16w((*[16]byte)(b[n-16:n]), s.last[0], s.last[1])
	return xxh3Avalanche(acc)
}

// xxh3Acc is the long path's 8 accumulators as named fields, so that a
// stripe (accumulate512) is written out lane by lane and reads and writes
// each accumulator once. A loop over an array, adding the input word to
// lane i^1 and the product to lane i, ran at half this speed (two
// read-modify-writes per lane, indexed; measured in the Go README).
type xxh3Acc struct{ a0, a1, a2, a3, a4, a5, a6, a7 uint64 }

// laneStep is a stripe's product for one lane: the halves of the input word
// xor the secret word, multiplied (the input word itself goes to the
// neighbouring lane).
func laneStep(v, secretWord uint64) uint64 {
	k := v ^ secretWord
	return uint64(uint32(k)) * (k >> 32)
}

// accumulate512 is one 64-byte stripe into the 8 accumulators. The
// array-pointer parameters let the compiler drop every bounds check.
func accumulate512(acc *xxh3Acc, stripe *[64]byte, secret *[64]byte) {
	le := binary.LittleEndian
	v0, v1, v2, v3 := le.Uint64(stripe[0:8]), le.Uint64(stripe[8:16]), le.Uint64(stripe[16:24]), le.Uint64(stripe[24:32])
	v4, v5, v6, v7 := le.Uint64(stripe[32:40]), le.Uint64(stripe[40:48]), le.Uint64(stripe[48:56]), le.Uint64(stripe[56:64])
	acc.a0 += v1 + laneStep(v0, le.Uint64(secret[0:8]))
	acc.a1 += v0 + laneStep(v1, le.Uint64(secret[8:16]))
	acc.a2 += v3 + laneStep(v2, le.Uint64(secret[16:24]))
	acc.a3 += v2 + laneStep(v3, le.Uint64(secret[24:32]))
	acc.a4 += v5 + laneStep(v4, le.Uint64(secret[32:40]))
	acc.a5 += v4 + laneStep(v5, le.Uint64(secret[40:48]))
	acc.a6 += v7 + laneStep(v6, le.Uint64(secret[48:56]))
	acc.a7 += v6 + laneStep(v7, le.Uint64(secret[56:64]))
}

func scrambleLane(a, secretWord uint64) uint64 {
	a ^= a >> 47
	a ^= secretWord
	return a * prime32_1
}

func scramble(acc *xxh3Acc, secret *[64]byte) {
	le := binary.LittleEndian
	acc.a0 = scrambleLane(acc.a0, le.Uint64(secret[0:8]))
	acc.a1 = scrambleLane(acc.a1, le.Uint64(secret[8:16]))
	acc.a2 = scrambleLane(acc.a2, le.Uint64(secret[16:24]))
	acc.a3 = scrambleLane(acc.a3, le.Uint64(secret[24:32]))
	acc.a4 = scrambleLane(acc.a4, le.Uint64(secret[32:40]))
	acc.a5 = scrambleLane(acc.a5, le.Uint64(secret[40:48]))
	acc.a6 = scrambleLane(acc.a6, le.Uint64(secret[48:56]))
	acc.a7 = scrambleLane(acc.a7, le.Uint64(secret[56:64]))
}

func hashLong(b []byte, secret *[secretSize]byte) uint64 {
	n := len(b)
	acc := xxh3Acc{prime32_3, prime64_1, prime64_2, prime64_3, prime64_4, prime32_2, prime64_5, prime32_1}
	blocks := (n - 1) / blockLen
	for blk := 0; blk < blocks; blk++ {
		base := b[blk*blockLen : (blk+1)*blockLen]
		for s := 0; s < stripesPerBlock; s++ {
			accumulate512(&acc, (*[64]byte)(base[s*stripeLen:]), (*[64]byte)(secret[s*consumeRate:]))
		}
		scramble(&acc, (*[64]byte)(secret[secretSize-stripeLen:]))
	}
	stripes := ((n - 1) - blockLen*blocks) / stripeLen
	base := b[blocks*blockLen:]
	for s := 0; s < stripes; s++ {
		accumulate512(&acc, (*[64]byte)(base[s*stripeLen:]), (*[64]byte)(secret[s*consumeRate:]))
	}
	accumulate512(&acc, (*[64]byte)(b[n-stripeLen:]), (*[64]byte)(secret[secretSize-stripeLen-lastAccStart:]))
	m := (*[64]byte)(secret[mergeAccsStart:])
	le := binary.LittleEndian
	result := uint64(n) * prime64_1
	result += mulFold64(acc.a0^le.Uint64(m[0:8]), acc.a1^le.Uint64(m[8:16]))
	result += mulFold64(acc.a2^le.Uint64(m[16:24]), acc.a3^le.Uint64(m[24:32]))
	result += mulFold64(acc.a4^le.Uint64(m[32:40]), acc.a5^le.Uint64(m[40:48]))
	result += mulFold64(acc.a6^le.Uint64(m[48:56]), acc.a7^le.Uint64(m[56:64]))
	return xxh3Avalanche(result)
}
