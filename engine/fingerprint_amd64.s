//go:build amd64 && !purego

#include "textflag.h"

// FingerprintOf's luminance of every other pixel (stability.go), four an
// iteration: pixels 0, 2, 4 and 6 of 32 bytes gathered in one register,
// widened to 16-bit lanes, 299 r + 587 g and 114 b summed in pairs
// (PMADDWD) and added, then divided by 1000 exactly for every sum a pixel
// can give (x × 268436 >> 28 for x ≤ 255000: TestLumsSIMDAreTheLoops).

DATA lumw<>+0(SB)/8, $0x00000072024b012b
DATA lumw<>+8(SB)/8, $0x00000072024b012b
GLOBL lumw<>(SB), RODATA|NOPTR, $16

DATA lumm<>+0(SB)/8, $268436
DATA lumm<>+8(SB)/8, $268436
GLOBL lumm<>(SB), RODATA|NOPTR, $16

// func lums2SSE2(lums []uint32, line []uint8)
TEXT ·lums2SSE2(SB), NOSPLIT, $0-48
	MOVQ lums_base+0(FP), DI
	MOVQ lums_len+8(FP), DX
	MOVQ line_base+24(FP), SI
	MOVOU lumw<>(SB), X8
	MOVOU lumm<>(SB), X9
	PXOR X12, X12
	SHRQ $2, DX
	JZ done

loop:
	MOVOU (SI), X0
	MOVOU 16(SI), X1
	PSHUFD $0x88, X0, X0
	PSHUFD $0x88, X1, X1
	PUNPCKLQDQ X1, X0
	MOVO X0, X1
	PUNPCKLBW X12, X0
	PUNPCKHBW X12, X1
	PMADDWL X8, X0
	PMADDWL X8, X1
	PSHUFD $0xB1, X0, X2
	PSHUFD $0xB1, X1, X3
	PADDL X2, X0
	PADDL X3, X1
	PMULULQ X9, X0
	PMULULQ X9, X1
	PSRLQ $28, X0
	PSRLQ $28, X1
	PSHUFD $0x88, X0, X0
	PSHUFD $0x88, X1, X1
	PUNPCKLQDQ X1, X0
	MOVOU X0, (DI)
	ADDQ $32, SI
	ADDQ $16, DI
	DECQ DX
	JNZ loop

done:
	RET
