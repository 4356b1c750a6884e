/* DWARF 5 call-site records (DWARF 5 section 3.4) in a compilation unit where no function
 * has code of its own, for tests/unit/test_callsite.c, linked at 0x500000
 * (tests/unit/unit.mk): a call site inside an abstract function (no DW_AT_low_pc, no
 * DW_AT_ranges) naming it as its origin, and a call site directly under the unit naming its
 * target by DW_OP_addr.  Offsets from 0x500000: the calls return to +0x5 and +0xa, f is at
 * +0xb. */
	.text
	.globl _start
_start:
	call f
ret_origin:                             /* +0x5 */
	call f
ret_addr:                               /* +0xa */
	ret
f:                                      /* +0xb */
	ret
text_end:

	.section .debug_abbrev,"",@progbits
	.uleb128 1                      /* DW_TAG_compile_unit, children */
	.uleb128 0x11
	.byte 1
	.uleb128 0x03, 0x08             /* DW_AT_name, DW_FORM_string */
	.uleb128 0x11, 0x01             /* DW_AT_low_pc, DW_FORM_addr */
	.uleb128 0x12, 0x07             /* DW_AT_high_pc, DW_FORM_data8 (a length) */
	.byte 0, 0
	.uleb128 2                      /* DW_TAG_subprogram, children */
	.uleb128 0x2e
	.byte 1
	.uleb128 0x03, 0x08             /* DW_AT_name, DW_FORM_string */
	.byte 0, 0
	.uleb128 3                      /* DW_TAG_call_site, no children */
	.uleb128 0x48
	.byte 0
	.uleb128 0x7d, 0x01             /* DW_AT_call_return_pc, DW_FORM_addr */
	.uleb128 0x7f, 0x13             /* DW_AT_call_origin, DW_FORM_ref4 */
	.byte 0, 0
	.uleb128 4                      /* DW_TAG_call_site, no children */
	.uleb128 0x48
	.byte 0
	.uleb128 0x7d, 0x01             /* DW_AT_call_return_pc, DW_FORM_addr */
	.uleb128 0x83, 0x18             /* DW_AT_call_target, DW_FORM_exprloc */
	.byte 0, 0
	.byte 0

	.section .debug_info,"",@progbits
info:
	.long info_end - info_version   /* unit_length */
info_version:
	.short 5
	.byte 1                         /* DW_UT_compile */
	.byte 8                         /* address size */
	.long 0                         /* the abbreviations above */
	.uleb128 1
	.asciz "nofunc.s"
	.quad _start
	.quad text_end - _start
abstract:
	.uleb128 2
	.asciz "abstract"
	.uleb128 3
	.quad ret_origin
	.long abstract - info           /* a reference from the unit's header */
	.byte 0                         /* end of abstract's children */
	.uleb128 4
	.quad ret_addr
	.uleb128 9
	.byte 0x03                      /* DW_OP_addr */
	.quad f
	.byte 0                         /* end of the unit's children */
info_end:

	.section .debug_aranges,"",@progbits
	.long aranges_end - aranges_version
aranges_version:
	.short 2
	.long 0                         /* the unit above */
	.byte 8, 0                      /* address size, segment selector size */
	.long 0                         /* the tuples start 16-byte aligned */
	.quad _start
	.quad text_end - _start
	.quad 0, 0
aranges_end:
