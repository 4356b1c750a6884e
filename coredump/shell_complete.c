/* Readline completion for the shell: command words first, `info` subcommands after
 * "info"/"i", symbol names of the core's modules everywhere else. */
#include "shell_int.h"

#include <stdlib.h>
#include <string.h>

#include <readline/readline.h>

static struct shell *session;       /* readline's generators take no closure */
static const char *const *word_list;

static char *list_generator(const char *text, int state)
{
	static size_t i;
	if (!state)
		i = 0;
	size_t n = strlen(text);
	while (word_list[i]) {
		const char *w = word_list[i++];
		if (strncmp(w, text, n) == 0)
			return strdup(w);
	}
	return NULL;
}

static char *symbol_generator(const char *text, int state)
{
	static size_t i;
	size_t n = strlen(text);
	if (!state) {
		shell_syms_load(session);
		i = shell_sym_lower_bound(session, text);
	}
	if (i < session->nsyms && strncmp(session->syms_tab[i].name, text, n) == 0)
		return strdup(session->syms_tab[i++].name);
	return NULL;
}

static char **complete(const char *text, int start, int end)
{
	rl_attempted_completion_over = 1;      /* no file-name completion */
	const char *line = rl_line_buffer;
	size_t lead = strspn(line, " \t");
	if ((size_t)start <= lead) {
		word_list = shell_command_names;
		return rl_completion_matches(text, list_generator);
	}
	size_t w = strcspn(line + lead, " \t");
	if ((w == 4 && strncmp(line + lead, "info", 4) == 0) || (w == 1 && line[lead] == 'i')) {
		size_t second = lead + w + strspn(line + lead + w, " \t");
		if ((size_t)start <= second) {
			word_list = shell_info_names;
			return rl_completion_matches(text, list_generator);
		}
	}
	if (w == 4 && strncmp(line + lead, "help", 4) == 0) {
		word_list = shell_command_names;
		return rl_completion_matches(text, list_generator);
	}
	return rl_completion_matches(text, symbol_generator);
}

void shell_complete_init(struct shell *sh)
{
	session = sh;
	rl_readline_name = "corestack";
	rl_attempted_completion_function = complete;
	/* "x/4x main": '/' separates the format from the address */
	rl_basic_word_break_characters = " \t\n\"'`@$><=;|&{(/+-*";
}
