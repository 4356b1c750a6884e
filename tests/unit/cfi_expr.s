/* CFI with DWARF expressions for tests/unit/test_cfi_expr.c, linked at 0x500000
 * (tests/unit/unit.mk).  Each function is at a fixed offset; the byte strings are
 * DW_CFA_* instructions written out (DWARF 5 section 6.4.2) as .cfi_escape. */
	.text
	.globl _start
_start:

/* +0x00: a signal frame as glibc's x86-64 restore_rt describes it: every register is saved
 * in the ucontext at rsp.  CFA = *(rsp + 160) (DW_CFA_def_cfa_expression: DW_OP_breg7 160,
 * DW_OP_deref); rip at rsp + 168 and rbp at rsp + 120 (DW_CFA_expression: DW_OP_breg7 N);
 * rbx = rsp + 8 as a value (DW_CFA_val_expression: DW_OP_breg7 0, DW_OP_plus_uconst 8). */
sig_like:
	.cfi_startproc simple
	.cfi_signal_frame
	.cfi_escape 0x0f, 0x04, 0x77, 0xa0, 0x01, 0x06
	.cfi_escape 0x10, 0x10, 0x03, 0x77, 0xa8, 0x01
	.cfi_escape 0x10, 0x06, 0x03, 0x77, 0xf8, 0x00
	.cfi_escape 0x16, 0x03, 0x04, 0x77, 0x00, 0x23, 0x08
	nop
	nop
	.cfi_endproc

/* +0x40: the PLT rule of the x86-64 psABI (its .eh_frame for .plt): CFA = rsp + 8, + 8 more
 * when (rip & 15) >= 11 (the push of the lazy binding stub has run): DW_OP_breg7 8,
 * DW_OP_breg16 0, DW_OP_lit15, DW_OP_and, DW_OP_lit11, DW_OP_ge, DW_OP_lit3, DW_OP_shl,
 * DW_OP_plus.  The return address at CFA - 8. */
	.org 0x40
plt_like:
	.cfi_startproc simple
	.cfi_escape 0x0f, 0x0b, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22
	.cfi_offset 16, -8
	nop
	nop
	.cfi_endproc

/* +0x80: the outermost frame: the return address is undefined (as in _start). */
	.org 0x80
outermost:
	.cfi_startproc
	.cfi_undefined 16
	nop
	.cfi_endproc

/* +0xc0: a CFA expression with an operation the evaluator does not know
 * (DW_OP_form_tls_address). */
	.org 0xc0
unknown_op:
	.cfi_startproc simple
	.cfi_escape 0x0f, 0x03, 0x77, 0x00, 0x9b
	.cfi_offset 16, -8
	nop
	.cfi_endproc
	.org 0x100
