/* A symbol table of edge cases for tests/unit/test_symindex.c, linked at 0x500000
 * (tests/unit/unit.mk): offsets from 0x500000 are given with each symbol. */
	.text
	.globl _start                   /* +0x000, no size: a sizeless global label */
_start:
	.org 0x10

/* +0x10..+0x30: three names for the same bytes, local, weak and global (in that table
 * order: locals come first in the table) */
	.type same_local, @function
same_local:
	.weak same_weak
	.type same_weak, @function
same_weak:
	.globl same_global
	.type same_global, @function
same_global:
	.org 0x30
	.size same_local, 0x20
	.size same_weak, 0x20
	.size same_global, 0x20

/* +0x100: two globals at one address, 0x40 and 0x10 bytes: the smaller wins where both
 * contain the address */
	.org 0x100
	.globl big
	.type big, @function
big:
	.globl small
	.type small, @function
small:
	.org 0x140
	.size big, 0x40
	.size small, 0x10

/* +0x200..+0x300: a global containing a local (+0x240, 0x10 bytes) and another global
 * (+0x280, 0x10 bytes): globals are searched first, the closest start wins among them */
	.org 0x200
	.globl outer
	.type outer, @function
outer:
	.org 0x240
	.type inner_local, @function
inner_local:
	.org 0x250
	.size inner_local, 0x10
	.org 0x280
	.globl inner_global
	.type inner_global, @function
inner_global:
	.org 0x290
	.size inner_global, 0x10
	.org 0x300
	.size outer, 0x100

/* +0x400: a local alone (no global contains it) */
	.org 0x400
	.type lonely_local, @function
lonely_local:
	.org 0x420
	.size lonely_local, 0x20

/* +0x500: a zero-size global label with sized code after it, then the last function
 * (+0x510, 0x10 bytes); the section goes on to +0x600 with no symbol */
	.org 0x500
	.globl label0
	.type label0, @function
label0:
	.org 0x510
	.globl last
	.type last, @function
last:
	.org 0x520
	.size last, 0x10
	.org 0x600
