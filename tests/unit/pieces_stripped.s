/* Stripped x86-64 code without CFI for tests/unit/test_pieces.c, linked at 0x500000 with
 * its symbol table removed (tests/unit/unit.mk): the function entries are guessed from the
 * code (common/unwind/entries.h).  Offsets from 0x500000 are given with each function. */
	.text
	.globl _start
_start:                         /* +0x00: the ELF entry point; calls both cases */
	push %rbp
	mov %rsp, %rbp
	call split
	call tailer                 /* +0x09 */
	lea inner(%rip), %rax       /* +0x0e: takes an address inside split: a spurious entry */
	lea next(%rip), %rax        /* takes next's address: next is an entry */
	pop %rbp
	ret
	.p2align 4, 0xcc

/* +0x30: one function whose middle is taken for an entry (inner): the code before inner
 * runs on into it */
	.org 0x30, 0xcc
split:
	mov %edi, %eax
	add $1, %eax
inner:                          /* +0x35 */
	push %rbp
	mov %rsp, %rbp
	mov %eax, %edx              /* +0x39: frame 0 of the first case */
	add %edx, %eax
	pop %rbp
	ret
	.p2align 4, 0xcc

/* +0x50: a real tail call to the function right after it */
	.org 0x50, 0xcc
tailer:
	add $2, %edi
	jmp next                    /* +0x53 */
next:                           /* +0x55 */
	push %rbp
	mov %rsp, %rbp
	mov %edi, %eax              /* +0x59: frame 0 of the second case */
	pop %rbp
	ret
	.p2align 4, 0xcc
