//go:build amd64 && !purego

#include "textflag.h"

// The row pass of the model's shrink (scale.go: rows2, rows3), four pixels
// an iteration: each row's 16 bytes widened to 16-bit lanes (two
// registers), multiplied by the row's weight and summed (at most 255×256
// a lane: no carry), a half added and shifted down to 8 bits, and each
// pixel's lanes put in the order red, blue, green, alpha (the layout the
// column pass reads, pixelsOf's).

// func rows2SSE2(px []uint64, r0, r1 []uint8, w0, w1 uint64)
TEXT ·rows2SSE2(SB), NOSPLIT, $0-88
	MOVQ px_base+0(FP), DI
	MOVQ px_len+8(FP), DX
	MOVQ r0_base+24(FP), SI
	MOVQ r1_base+48(FP), BX
	MOVQ w0+72(FP), X8
	PSHUFLW $0, X8, X8
	PUNPCKLQDQ X8, X8
	MOVQ w1+80(FP), X9
	PSHUFLW $0, X9, X9
	PUNPCKLQDQ X9, X9
	MOVQ $0x0080008000800080, AX
	MOVQ AX, X11
	PUNPCKLQDQ X11, X11
	PXOR X12, X12
	SHRQ $2, DX
	JZ done2

loop2:
	MOVOU (SI), X0
	MOVOU X0, X1
	PUNPCKLBW X12, X0
	PUNPCKHBW X12, X1
	PMULLW X8, X0
	PMULLW X8, X1
	MOVOU (BX), X2
	MOVOU X2, X3
	PUNPCKLBW X12, X2
	PUNPCKHBW X12, X3
	PMULLW X9, X2
	PMULLW X9, X3
	PADDW X2, X0
	PADDW X3, X1
	PADDW X11, X0
	PADDW X11, X1
	PSRLW $8, X0
	PSRLW $8, X1
	PSHUFLW $0xD8, X0, X0
	PSHUFHW $0xD8, X0, X0
	PSHUFLW $0xD8, X1, X1
	PSHUFHW $0xD8, X1, X1
	MOVOU X0, (DI)
	MOVOU X1, 16(DI)
	ADDQ $16, SI
	ADDQ $16, BX
	ADDQ $32, DI
	DECQ DX
	JNZ loop2

done2:
	RET

// func rows3SSE2(px []uint64, r0, r1, r2 []uint8, w0, w1, w2 uint64)
TEXT ·rows3SSE2(SB), NOSPLIT, $0-120
	MOVQ px_base+0(FP), DI
	MOVQ px_len+8(FP), DX
	MOVQ r0_base+24(FP), SI
	MOVQ r1_base+48(FP), BX
	MOVQ r2_base+72(FP), CX
	MOVQ w0+96(FP), X8
	PSHUFLW $0, X8, X8
	PUNPCKLQDQ X8, X8
	MOVQ w1+104(FP), X9
	PSHUFLW $0, X9, X9
	PUNPCKLQDQ X9, X9
	MOVQ w2+112(FP), X10
	PSHUFLW $0, X10, X10
	PUNPCKLQDQ X10, X10
	MOVQ $0x0080008000800080, AX
	MOVQ AX, X11
	PUNPCKLQDQ X11, X11
	PXOR X12, X12
	SHRQ $2, DX
	JZ done3

loop3:
	MOVOU (SI), X0
	MOVOU X0, X1
	PUNPCKLBW X12, X0
	PUNPCKHBW X12, X1
	PMULLW X8, X0
	PMULLW X8, X1
	MOVOU (BX), X2
	MOVOU X2, X3
	PUNPCKLBW X12, X2
	PUNPCKHBW X12, X3
	PMULLW X9, X2
	PMULLW X9, X3
	PADDW X2, X0
	PADDW X3, X1
	MOVOU (CX), X2
	MOVOU X2, X3
	PUNPCKLBW X12, X2
	PUNPCKHBW X12, X3
	PMULLW X10, X2
	PMULLW X10, X3
	PADDW X2, X0
	PADDW X3, X1
	PADDW X11, X0
	PADDW X11, X1
	PSRLW $8, X0
	PSRLW $8, X1
	PSHUFLW $0xD8, X0, X0
	PSHUFHW $0xD8, X0, X0
	PSHUFLW $0xD8, X1, X1
	PSHUFHW $0xD8, X1, X1
	MOVOU X0, (DI)
	MOVOU X1, 16(DI)
	ADDQ $16, SI
	ADDQ $16, BX
	ADDQ $16, CX
	ADDQ $32, DI
	DECQ DX
	JNZ loop3

done3:
	RET

// The column pass (scale.go: columns3), two cells an iteration: each
// cell's three source words side by side in two registers' halves, each
// multiplied by its weight four times over, summed, rounded and shifted
// to 8 bits, the lanes put back in the order red, green, blue, alpha and
// packed to bytes.

// func columnsSSE2(out []uint8, px []uint64, firsts []int64, wts []uint16)
TEXT ·columnsSSE2(SB), NOSPLIT, $0-96
	MOVQ out_base+0(FP), DI
	MOVQ px_base+24(FP), SI
	MOVQ firsts_base+48(FP), BX
	MOVQ firsts_len+56(FP), DX
	MOVQ wts_base+72(FP), CX
	MOVQ $0x0080008000800080, AX
	MOVQ AX, X11
	PUNPCKLQDQ X11, X11
	SHRQ $1, DX
	JZ donec

loopc:
	MOVQ (BX), R8
	MOVQ 8(BX), R9
	MOVQ (SI)(R8*1), X0
	MOVQ (SI)(R9*1), X6
	PUNPCKLQDQ X6, X0
	MOVQ 8(SI)(R8*1), X1
	MOVQ 8(SI)(R9*1), X6
	PUNPCKLQDQ X6, X1
	MOVQ 16(SI)(R8*1), X2
	MOVQ 16(SI)(R9*1), X6
	PUNPCKLQDQ X6, X2
	MOVOU (CX), X3
	MOVOU 16(CX), X4
	MOVOU 32(CX), X5
	PMULLW X3, X0
	PMULLW X4, X1
	PMULLW X5, X2
	PADDW X1, X0
	PADDW X2, X0
	PADDW X11, X0
	PSRLW $8, X0
	PSHUFLW $0xD8, X0, X0
	PSHUFHW $0xD8, X0, X0
	PACKUSWB X0, X0
	MOVQ X0, (DI)
	ADDQ $16, BX
	ADDQ $48, CX
	ADDQ $8, DI
	DECQ DX
	JNZ loopc

donec:
	RET
