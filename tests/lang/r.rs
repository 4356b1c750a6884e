// r.rs: a Rust program for tests/t_lang.sh.  main calls engine::Parser<T>::parse (generic),
// which calls engine::step.  "panic": step panics (built with -C panic=abort: SIGABRT).
// "segv": step writes through a null raw pointer.
mod engine {
    pub struct Parser<T> {
        pub items: Vec<T>,
    }

    #[inline(never)]
    pub fn step(what: &str, n: usize) -> usize {
        if what == "panic" {
            panic!("step {} failed", n);
        }
        let p: *mut usize = std::ptr::null_mut();
        unsafe { std::ptr::write_volatile(p, n) };
        n + 1
    }

    impl<T: Copy + Into<usize>> Parser<T> {
        #[inline(never)]
        pub fn parse(&self, what: &str) -> usize {
            let mut sum = 0;
            for &i in &self.items {
                sum += step(what, i.into());
            }
            sum
        }
    }
}

fn main() {
    let what = std::env::args().nth(1).unwrap_or_default();
    let p = engine::Parser { items: vec![1u8, 2, 3] };
    std::process::exit(p.parse(&what) as i32);
}
