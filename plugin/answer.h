/* The text of an fpbt answer as a gdb script that gdb reads in few bytes.
 *
 * gdb 13 reads a sourced script one byte per read(2), each after a select(2), and its `echo`
 * writes one byte per write(2); a user-defined command runs from gdb's memory and `printf`
 * writes a line at once.  So the plugin teaches gdb each line once: a frame line's text after
 * its number becomes a user-defined command whose body is one `printf` (the number is its
 * $arg0, substituted into the format as text, so gdb evaluates no expression), and a thread's
 * whole answer, made of such lines, becomes a command that calls them with their numbers.
 * Threads of a thread pool print the same frames: their answer is then one line,
 * `_corestack_do SEQ NAME` (corestack.gdb), which runs NAME while $_corestack_seq is SEQ.
 *
 * The commands are named _cs<P>_<N> (lines) and _cs<P>_t<N> (threads), P the count of the first
 * request the cache answered: $_corestack_seq only grows in a gdb session, so a plugin loaded
 * again never defines a name an earlier one defined (gdb would ask "Redefine command?"), and
 * a number is never used twice.  Commands are taught inside `if $_corestack_seq == SEQ`, which
 * then sets $_corestack_ack to SEQ; the next request carries $_corestack_ack, and commands whose
 * script did not run to that point (fpbt interrupted) are forgotten, never called.
 *
 * Lines that a `printf` format cannot carry (a control character) are written as `echo`
 * commands, and lines beyond the caps below are written inline: the cache's memory, and the
 * commands defined in gdb, stay bounded. */
#ifndef CST_GDB_ANSWER_H
#define CST_GDB_ANSWER_H

#include <stdio.h>

struct cst_answer_cache;

/* A cache for the commands of one plugin instance, named after request PREFIX.  Returns NULL
 * when out of memory. */
struct cst_answer_cache *cst_answer_cache_new(unsigned long prefix);

void cst_answer_cache_free(struct cst_answer_cache *c);

/* ACK: $_corestack_ack as the request that follows an answer carries it.  The commands the
 * last answer taught are kept when ACK is that answer's SEQ, else forgotten. */
void cst_answer_ack(struct cst_answer_cache *c, unsigned long ack);

/* Writes to F the script that prints TEXT (lines ending in '\n') while $_corestack_seq is SEQ,
 * and else runs _corestack_idle (corestack.gdb). */
void cst_answer_script(struct cst_answer_cache *c, FILE *f, unsigned long seq, const char *text);

/* Writes an `echo` command that prints TEXT: C escapes, "\n" for a line end, "\ " for a space
 * gdb would drop (first or last on the line), and an octal escape for a control character,
 * a byte of 0x7f or more, '$' (a user-defined command's $argN must not be substituted into
 * the text) and a '\\' that ends TEXT (gdb joins a line that ends in '\\' to the next) (gdb
 * manual, "Commands for Controlled Output"). */
void cst_answer_echo(FILE *f, const char *text);

#endif
