// app.cpp: a C++ program for tests/t_lang.sh.  main calls app::Derived::run through its
// virtual Base::run.  "segv": run hands a lambda (through std::function) to the template
// app::Box<int>::apply, and the lambda (run's second, {lambda(int)#2}: the first is never
// called) calls app::crash_null, which writes through a null pointer.  "abort": run's unlikely path, which gcc -O2 moves to run's .cold clone, calls
// app::fail, which aborts.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

namespace app {

int *volatile target;               // null: crash_null writes through it

__attribute__((noinline)) void crash_null(int *p)
{
	*p = 42;
	asm volatile("" ::: "memory");
}

__attribute__((noinline, noreturn, cold)) void fail(const char *why)
{
	fprintf(stderr, "app: %s\n", why);
	abort();
}

template <typename T> struct Box {
	T value;
	__attribute__((noinline)) int apply(const std::function<int(T)> &f) const
	{
		return f(value) + 1;
	}
};

struct Base {
	virtual ~Base() {}
	virtual int run(int x) = 0;
};

struct Derived : Base {
	int calls = 0;
	int run(int x) override;
};

__attribute__((noinline)) int Derived::run(int x)
{
	if (__builtin_expect(x < 0, 0))
		fail("negative");
	Box<int> box{x}; auto first = [](int v) { return v + 1; }; (void)first;   // {lambda(int)#1}
	return box.apply([this](int v) {
		calls++;
		if (v == 7)
			crash_null(target);
		return v * 2;
	});
}

} // namespace app

int main(int argc, char **argv)
{
	app::Derived d;
	app::Base *b = &d;
	int x = argc > 1 && strcmp(argv[1], "abort") == 0 ? -1 : 7;
	return b->run(x);
}
