// A Go program for tests/t_lang.sh: a nil dereference in a method (main.(*Store).Get) while
// three goroutines wait on a channel.  Under GOTRACEBACK=crash the runtime turns the SIGSEGV
// into a panic and then dies of SIGABRT raised inside its own signal handler, so the crashing
// thread's stack holds a signal frame whose restorer is runtime.sigreturn.
package main

import (
	"fmt"
	"os"
)

type Store struct {
	items map[string]int
	name  string
}

//go:noinline
func (s *Store) Get(key string) int {
	return s.items[key] + len(s.name)
}

//go:noinline
func lookup(s *Store, key string) int {
	return s.Get(key) * 2
}

func worker(id int, ch chan int, ready chan bool) {
	ready <- true
	<-ch
	fmt.Println(id)
}

func main() {
	ch := make(chan int)
	ready := make(chan bool)
	for i := 0; i < 3; i++ {
		go worker(i, ch, ready)
	}
	for i := 0; i < 3; i++ {
		<-ready
	}
	var s *Store
	if len(os.Args) > 5 {
		s = &Store{}
	}
	fmt.Println(lookup(s, "k"))
}
