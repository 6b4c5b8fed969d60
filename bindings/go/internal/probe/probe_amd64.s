//go:build amd64 && !purego

// The single-key probes of kernels/layout.h (block512) and
// kernels/layout_split256.h (split256) for one hash h, in AVX2 and AVX-512
// (probe.go says when each runs). No branch: every word is tested at once
// and the answer is one flag, so a loop of calls overlaps its cache misses.
// The bits are the C kernels':
//
//	c_w = (uint32(h) * salt[w]) >> 27      vpmulld, vpsrld: all 16 (or 8) words at once
//	e_w = 1 if word w is selected          block512: bit w of SELECT_k[uint32(h) >> 26]; split256: 1
//	contains: (word_w >> c_w) & e_w == e_w for every w
//	add:      word_w |= e_w << c_w
//
// AVX2 holds a 512-bit block in two ymm (words 0-7, 8-15) and reads e from
// State.lanes, the selection row as 16 words of 0 or 1. AVX-512 holds it in
// one zmm and e is an opmask, the SELECT_k row itself (kmovw). The AVX-512
// code uses only registers 16-31, which leave the SSE/AVX state clean, so it
// needs no vzeroupper; the AVX2 code ends with one.
//
// The salts are the library's (bloomsimd_get_probe), read from State.salts
// through the State pointer (DI): no copy of kernels/layout.h's table here.
//
// The probes are macros; the entries at the end run them. ContainsU64,
// AddU64 and AddNewU64 are what a loop of ContainsUint64 / AddUint64 /
// InsertNewUint64 calls runs: one entry for every kind and both hashes
// (HASH_U64 or HASH_MUM), around which the Go methods are one line the
// compiler inlines. ContainsHash, AddHash and
// AddNewHash are the same entries for a hash the caller computed: what
// Contains / Add / InsertNew call with a byte key's XXH3.

#include "textflag.h"
#include "go_asm.h"

// one<>: a 32-bit 1, broadcast to every word (the AVX-512 {1to16} operand).
DATA one<>+0(SB)/4, $1
GLOBL one<>(SB), RODATA|NOPTR, $4

// ones<>: eight 32-bit 1s (split256's e).
DATA ones<>+0(SB)/8, $0x0000000100000001
DATA ones<>+8(SB)/8, $0x0000000100000001
DATA ones<>+16(SB)/8, $0x0000000100000001
DATA ones<>+24(SB)/8, $0x0000000100000001
GLOBL ones<>(SB), RODATA|NOPTR, $32

// HASH_U64: AX = XXH3_64bits_withSeed of the 8 little-endian bytes of key
// AX with seed constant State.Bitflip (DI): the 4..8-byte path,
// rrmxmx(rotl64(key, 32) ^ bitflip, 8) (probe.go's HashU64).
#define HASH_U64 \
	ROLQ $32, AX \
	XORQ State_Bitflip(DI), AX \
	MOVQ AX, BX \
	MOVQ AX, CX \
	ROLQ $49, BX \
	ROLQ $24, CX \
	XORQ BX, AX \
	XORQ CX, AX \
	MOVQ $0x9FB21C651E98DF25, R8 \
	IMULQ R8, AX \
	MOVQ AX, BX \
	SHRQ $35, BX \
	ADDQ $8, BX \
	XORQ BX, AX \
	IMULQ R8, AX \
	MOVQ AX, BX \
	SHRQ $28, BX \
	XORQ BX, AX

// HASH_MUM: AX = hash 3 (Mum) of key AX with State.MumA, MumB (DI), as
// probe.go's MumU64: the 128-bit product of key ^ a and bswap64(key) ^ b
// (MULQ: DX:AX), its halves xored, times 0x9E3779B97F4A7C15, ^ >> 32.
#define HASH_MUM \
	MOVQ AX, BX \
	BSWAPQ BX \
	XORQ State_MumA(DI), AX \
	XORQ State_MumB(DI), BX \
	MULQ BX \
	XORQ DX, AX \
	MOVQ $0x9E3779B97F4A7C15, R8 \
	IMULQ R8, AX \
	MOVQ AX, BX \
	SHRQ $32, BX \
	XORQ BX, AX

// BLOCK(shift): BX = the block of hash AX, ((h >> 32) * nblocks) >> 32,
// blocks of 1<<shift bytes from State.Blocks (DI). nblocks < 2^32, so the
// 64-bit product does not overflow.
#define BLOCK(shift) \
	MOVQ AX, BX \
	SHRQ $32, BX \
	IMULQ State_Nblocks(DI), BX \
	SHRQ $32, BX \
	SHLQ $shift, BX \
	ADDQ State_Blocks(DI), BX

// KIND_OR_GO(kind): DI = p, R9 = the kind; to the function's label inGo if
// the kind is not an assembly one.
#define KIND_OR_GO(kind) \
	MOVQ p+0(FP), DI \
	MOVBLZX kind, R9 \
	CMPL R9, $const_Block512AVX2 \
	JB inGo

// U64_HASH_OR_GO(kind): KIND_OR_GO, then AX = the hash of the key, HASH_MUM
// or HASH_U64 by State.Mum.
#define U64_HASH_OR_GO(kind) \
	KIND_OR_GO(kind) \
	MOVQ key+8(FP), AX \
	CMPB State_Mum(DI), $0 \
	JNE mum \
	HASH_U64 \
	JMP hashed \
mum: \
	HASH_MUM \
hashed:

// PROBE_DISPATCH: jumps to the function's label of kind R9
// (block512avx2, split256avx2, block512avx512, split256avx512); falls
// through for any larger kind.
#define PROBE_DISPATCH \
	CMPL R9, $const_Split256AVX2 \
	JEQ split256avx2 \
	JB block512avx2 \
	CMPL R9, $const_Split256AVX512 \
	JEQ split256avx512 \
	JB block512avx512

// The *_BY_KIND macros, used by the one-call entries at the end: each holds
// one function's dispatch and its four probes (labels are per function).
// They stand before the first TEXT because vet reads a macro's FP
// references as the enclosing function's; the probe macros they expand are
// defined below.

// CONTAINS_BY_KIND: the lookup of hash AX, written to ret.
#define CONTAINS_BY_KIND \
	PROBE_DISPATCH \
	JMP inGo \
block512avx2: \
	CONTAINS512_AVX2 \
	SETEQ ret+16(FP) \
	VZEROUPPER \
	RET \
split256avx2: \
	CONTAINS256_AVX2 \
	SETEQ ret+16(FP) \
	VZEROUPPER \
	RET \
block512avx512: \
	CONTAINS512_AVX512 \
	SETEQ ret+16(FP) \
	RET \
split256avx512: \
	CONTAINS256_AVX512 \
	SETEQ ret+16(FP) \
	RET

// ADD_BY_KIND: the insert of hash AX, returning a nil error.
#define ADD_BY_KIND \
	MOVQ $0, ret_itable+16(FP) \
	MOVQ $0, ret_data+24(FP) \
	PROBE_DISPATCH \
	JMP inGo \
block512avx2: \
	ADD512_AVX2 \
	VZEROUPPER \
	RET \
split256avx2: \
	ADD256_AVX2 \
	VZEROUPPER \
	RET \
block512avx512: \
	ADD512_AVX512 \
	RET \
split256avx512: \
	ADD256_AVX512 \
	RET

// ADDNEW_BY_KIND: the insert of hash AX, reporting whether a bit was missing,
// and counting a new key in *State.Items. AddKind's assembly kinds are never
// concurrent (probe.go, New), so the count is a plain increment.
#define ADDNEW_BY_KIND \
	MOVQ $0, err_itable+24(FP) \
	MOVQ $0, err_data+32(FP) \
	PROBE_DISPATCH \
	JMP inGo \
block512avx2: \
	ADDNEW512_AVX2 \
	VZEROUPPER \
	JMP count \
split256avx2: \
	ADDNEW256_AVX2 \
	VZEROUPPER \
	JMP count \
block512avx512: \
	ADDNEW512_AVX512 \
	JMP count \
split256avx512: \
	ADDNEW256_AVX512 \
count: \
	SETNE isNew+16(FP) \
	MOVBQZX isNew+16(FP), AX \
	MOVQ State_Items(DI), R10 \
	ADDQ AX, (R10) \
	RET

// func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET

// ---- AVX2: ymm0-15 ----

// COUNTS512_AVX2: BX = block, Y1, Y2 = c_w of words 0-7, 8-15, CX = e's row.
#define COUNTS512_AVX2 \
	BLOCK(6) \
	MOVL AX, CX \
	SHRL $26, CX \
	SHLL $6, CX \
	ADDQ State_lanes(DI), CX \
	VMOVD AX, X0 \
	VPBROADCASTD X0, Y0 \
	VPMULLD State_salts(DI), Y0, Y1 \
	VPMULLD State_salts+32(DI), Y0, Y2 \
	VPSRLD $27, Y1, Y1 \
	VPSRLD $27, Y2, Y2

// CONTAINS512_AVX2 leaves ZF set if every bit is set (each TEXT writes its
// own result: vet checks that it does).
#define CONTAINS512_AVX2 \
	COUNTS512_AVX2 \
	VMOVDQU (BX), Y5 \
	VMOVDQU 32(BX), Y6 \
	VPSRLVD Y1, Y5, Y5 \
	VPSRLVD Y2, Y6, Y6 \
	VPANDN (CX), Y5, Y5 \ // e_w &^ (word_w >> c_w): 1 where a bit is missing
	VPANDN 32(CX), Y6, Y6 \
	VPOR Y5, Y6, Y5 \
	VPTEST Y5, Y5

// BITS512_AVX2: Y3, Y4 = e_w << c_w.
#define BITS512_AVX2 \
	COUNTS512_AVX2 \
	VMOVDQU (CX), Y3 \
	VMOVDQU 32(CX), Y4 \
	VPSLLVD Y1, Y3, Y3 \
	VPSLLVD Y2, Y4, Y4

#define ADD512_AVX2 \
	BITS512_AVX2 \
	VPOR (BX), Y3, Y3 \
	VPOR 32(BX), Y4, Y4 \
	VMOVDQU Y3, (BX) \
	VMOVDQU Y4, 32(BX)

// ADDNEW512_AVX2 leaves ZF clear if a bit was missing.
#define ADDNEW512_AVX2 \
	BITS512_AVX2 \
	VMOVDQU (BX), Y5 \
	VMOVDQU 32(BX), Y6 \
	VPANDN Y3, Y5, Y7 \ // bits the block lacks
	VPANDN Y4, Y6, Y8 \
	VPOR Y3, Y5, Y5 \
	VPOR Y4, Y6, Y6 \
	VMOVDQU Y5, (BX) \
	VMOVDQU Y6, 32(BX) \
	VPOR Y7, Y8, Y7 \
	VPTEST Y7, Y7

// COUNTS256_AVX2: BX = block, Y1 = c_w of words 0-7.
#define COUNTS256_AVX2 \
	BLOCK(5) \
	VMOVD AX, X0 \
	VPBROADCASTD X0, Y0 \
	VPMULLD State_salts(DI), Y0, Y1 \
	VPSRLD $27, Y1, Y1

#define CONTAINS256_AVX2 \
	COUNTS256_AVX2 \
	VMOVDQU (BX), Y5 \
	VPSRLVD Y1, Y5, Y5 \
	VPANDN ones<>(SB), Y5, Y5 \
	VPTEST Y5, Y5

#define BITS256_AVX2 \
	COUNTS256_AVX2 \
	VMOVDQU ones<>(SB), Y3 \
	VPSLLVD Y1, Y3, Y3

#define ADD256_AVX2 \
	BITS256_AVX2 \
	VPOR (BX), Y3, Y3 \
	VMOVDQU Y3, (BX)

#define ADDNEW256_AVX2 \
	BITS256_AVX2 \
	VMOVDQU (BX), Y5 \
	VPANDN Y3, Y5, Y7 \
	VPOR Y3, Y5, Y5 \
	VMOVDQU Y5, (BX) \
	VPTEST Y7, Y7

// ---- AVX-512 (F, VL, DQ): registers 16-31 and opmasks ----

// COUNTS512_AVX512: BX = block, Z16 = c_w, K1 = e.
#define COUNTS512_AVX512 \
	BLOCK(6) \
	MOVL AX, CX \
	SHRL $26, CX \
	MOVQ State_sel(DI), DX \
	KMOVW (DX)(CX*2), K1 \
	VPBROADCASTD AX, Z16 \
	VPMULLD State_salts(DI), Z16, Z16 \
	VPSRLD $27, Z16, Z16

// CONTAINS512_AVX512: K2 = selected words whose bit is clear; ZF = (K2 == 0).
#define CONTAINS512_AVX512 \
	COUNTS512_AVX512 \
	VMOVDQU32 (BX), Z17 \
	VPSRLVD Z16, Z17, Z17 \
	VPTESTNMD.BCST one<>(SB), Z17, K1, K2 \
	KORTESTW K2, K2

#define BITS512_AVX512 \
	COUNTS512_AVX512 \
	VPBROADCASTD one<>(SB), Z18 \
	VPSLLVD.Z Z16, Z18, K1, Z18

#define ADD512_AVX512 \
	BITS512_AVX512 \
	VPORD (BX), Z18, Z18 \
	VMOVDQU32 Z18, (BX)

#define ADDNEW512_AVX512 \
	BITS512_AVX512 \
	VMOVDQU32 (BX), Z17 \
	VPANDND Z18, Z17, Z19 \
	VPORD Z18, Z17, Z17 \
	VMOVDQU32 Z17, (BX) \
	VPTESTMD Z19, Z19, K2 \
	KORTESTW K2, K2

// COUNTS256_AVX512: BX = block, Y16 = c_w (AVX-512VL on ymm16).
#define COUNTS256_AVX512 \
	BLOCK(5) \
	VPBROADCASTD AX, Y16 \
	VPMULLD State_salts(DI), Y16, Y16 \
	VPSRLD $27, Y16, Y16

#define CONTAINS256_AVX512 \
	COUNTS256_AVX512 \
	VMOVDQU32 (BX), Y17 \
	VPSRLVD Y16, Y17, Y17 \
	VPTESTNMD.BCST one<>(SB), Y17, K2 \
	KORTESTB K2, K2

#define BITS256_AVX512 \
	COUNTS256_AVX512 \
	VPBROADCASTD one<>(SB), Y18 \
	VPSLLVD Y16, Y18, Y18

#define ADD256_AVX512 \
	BITS256_AVX512 \
	VPORD (BX), Y18, Y18 \
	VMOVDQU32 Y18, (BX)

#define ADDNEW256_AVX512 \
	BITS256_AVX512 \
	VMOVDQU32 (BX), Y17 \
	VPANDND Y18, Y17, Y19 \
	VPORD Y18, Y17, Y17 \
	VMOVDQU32 Y17, (BX) \
	VPTESTMD Y19, Y19, K2 \
	KORTESTB K2, K2

// ---- One call per key: the U64 entries (a 64-bit key, hashed here) and the
// Hash entries (a byte key's hash, computed in Go) ----
//
// R9 = the kind (State.ContainsKind / AddKind); a kind below Block512AVX2 (None and
// the pure-Go kinds) tail-jumps, arguments untouched, to the Go form. The
// kinds are ordered Block512AVX2 < Split256AVX2 < Block512AVX512 <
// Split256AVX512 (probe.go), so two compares find any of the four; a larger
// kind goes to Go too. The U64 entries hash the key once, by the filter's
// hash (State.Mum), before the probe (the *_BY_KIND macros are at the
// top of this file).

// func ContainsU64(p *State, key uint64) bool
TEXT ·ContainsU64(SB), NOSPLIT, $0-17
	U64_HASH_OR_GO(State_ContainsKind(DI))
	CONTAINS_BY_KIND
inGo:
	JMP ·containsU64Go(SB)

// func AddU64(p *State, key uint64) error
TEXT ·AddU64(SB), NOSPLIT, $0-32
	U64_HASH_OR_GO(State_AddKind(DI))
	ADD_BY_KIND
inGo:
	JMP ·addU64Go(SB)

// func AddNewU64(p *State, key uint64) (isNew bool, err error)
TEXT ·AddNewU64(SB), NOSPLIT, $0-40
	U64_HASH_OR_GO(State_AddKind(DI))
	ADDNEW_BY_KIND
inGo:
	JMP ·addNewU64Go(SB)

// func ContainsHash(p *State, h uint64) bool
TEXT ·ContainsHash(SB), NOSPLIT, $0-17
	KIND_OR_GO(State_ContainsKind(DI))
	MOVQ h+8(FP), AX
	CONTAINS_BY_KIND
inGo:
	JMP ·containsHashGo(SB)

// func AddHash(p *State, h uint64) error
TEXT ·AddHash(SB), NOSPLIT, $0-32
	KIND_OR_GO(State_AddKind(DI))
	MOVQ h+8(FP), AX
	ADD_BY_KIND
inGo:
	JMP ·addHashGo(SB)

// func AddNewHash(p *State, h uint64) (isNew bool, err error)
TEXT ·AddNewHash(SB), NOSPLIT, $0-40
	KIND_OR_GO(State_AddKind(DI))
	MOVQ h+8(FP), AX
	ADDNEW_BY_KIND
inGo:
	JMP ·addNewHashGo(SB)

// func FloorU64(p *State, key uint64) bool
TEXT ·FloorU64(SB), NOSPLIT, $0-17
	MOVQ p+0(FP), DI
	MOVQ key+8(FP), AX
	HASH_U64
	BLOCK(6)
	MOVL (BX), CX
	ANDL AX, CX
	CMPL CX, AX
	SETEQ ret+16(FP)
	RET
