// The C++ bugs of the triage corpus (tests/t_triage_corpus.sh): uncaught exceptions of
// different types, and of one type from different methods, on the main thread and on a
// worker thread.  Usage: bugs-cxx MODE [THREADS]
//   parse    Parser::parse throws std::runtime_error
//   load     Loader::load throws std::runtime_error (the same type from another method)
//   lookup   Table::lookup reads past a vector with at(): std::out_of_range from libstdc++
//   worker N N worker threads; the last one's Job::run throws std::logic_error
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#define NOINLINE __attribute__((noinline))

static volatile int sink;

struct Parser {
	NOINLINE int parse(const std::string &s)
	{
		if (s.empty() || s[0] != '{')
			throw std::runtime_error("parse: not an object: " + s);
		return (int)s.size();
	}
};

struct Loader {
	NOINLINE int load(const char *path)
	{
		if (!path || access(path, R_OK) != 0)
			throw std::runtime_error(std::string("load: cannot read ") + (path ? path : "(null)"));
		return 1;
	}
};

struct Table {
	std::vector<int> rows{1, 2, 3};
	NOINLINE int lookup(size_t i) { return rows.at(i) + 1; }
};

struct Job {
	bool last;
	NOINLINE void run()
	{
		if (last)
			throw std::logic_error("job: invalid state");
		for (;;)
			pause();
	}
};

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	int r = 0;
	// every call is followed by more work, so that none is a tail call
	if (!strcmp(m, "parse")) {
		r = Parser().parse("[1, 2]");
	} else if (!strcmp(m, "load")) {
		r = Loader().load("/nonexistent/config");
	} else if (!strcmp(m, "lookup")) {
		volatile size_t i = 7;
		r = Table().lookup(i);
	} else if (!strcmp(m, "worker")) {
		int n = argc > 2 ? atoi(argv[2]) : 1;
		std::vector<std::thread> t;
		std::vector<Job> jobs(n < 1 ? 1 : n);
		for (size_t i = 0; i < jobs.size(); i++) {
			jobs[i].last = i == jobs.size() - 1;
			t.emplace_back(&Job::run, &jobs[i]);
		}
		for (auto &x : t)
			x.join();
	}
	sink += r;
	fprintf(stderr, "bugs-cxx: no crash for mode %s\n", m);
	return r;
}
