/* The call-site records (common/symbols/callsite.c) of a unit where no function has code
 * (callsite_nofunc.s, linked at 0x500000): a record whose origin is an abstract function
 * names no target; a record with a DW_OP_addr target names it.  Usage: test_callsite DIR
 * (where callsite_nofunc.elf is). */
#include "callsite.h"
#include "symindex_file.h"
#include "unit.h"

#include <stdio.h>

#define B 0x500000ull

int main(int argc, char **argv)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/callsite_nofunc.elf", argc > 1 ? argv[1] : ".");
	struct symindex_file f;
	if (symindex_file_open(&f, "nofunc", path) < 0) {
		printf("FAIL callsite_unit: cannot read %s: %s\n", path, dwfl_errmsg(-1));
		return 1;
	}
	struct cst_callsites *cs = cst_callsites_new(f.mod);
	struct cst_call_target t = { .kind = CST_TARGET_REG };

	unit_begin("callsite_origin_without_code");
	unit_expect(cs != NULL, "cst_callsites_new failed");
	unit_expect(!cst_callsites_target(cs, B + 0x5, &t), "a target for a call whose origin has no entry");
	unit_end();

	unit_begin("callsite_addr_outside_functions");
	t = (struct cst_call_target){ .kind = CST_TARGET_REG };
	unit_expect(cst_callsites_target(cs, B + 0xa, &t), "no target for the DW_OP_addr record");
	EXPECT_EQ(t.kind, CST_TARGET_ADDR, "kind");
	EXPECT_EQ(t.addr, B + 0xb, "target");
	unit_end();

	cst_callsites_free(cs);
	symindex_file_close(&f);
	return unit_exit();
}
