//! First-use cost of each grammar (inflating its parse tables, see `syntax/grammars.rs`) and
//! the cost of every later use, in one process. Run by hand:
//!
//! ```sh
//! cargo run --release -p context-engine-core --example grammar_load
//! ```

use std::time::Instant;

use context_engine_core::syntax::{grammar, Lang};

fn main() {
    let mut first_total = 0.0;
    println!("| language | first use (ms) | later use (µs) |");
    println!("| --- | ---: | ---: |");
    for lang in Lang::ALL {
        let t = Instant::now();
        let language = grammar(lang);
        let first = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        for _ in 0..1000 {
            std::hint::black_box(grammar(lang));
        }
        let later = t.elapsed().as_secs_f64() * 1e6 / 1000.0;
        // A parse proves the tables are in place.
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&language)
            .expect("a compatible grammar");
        parser.parse("x", None).expect("a parse");
        first_total += first;
        println!("| {lang:?} | {first:.2} | {later:.2} |");
    }
    println!("| all | {first_total:.1} | |");
}
