use super::*;

fn defs(text: &str, lang: Lang) -> Vec<(String, &'static str, usize, usize)> {
    definitions(text, lang)
        .into_iter()
        .map(|d| (d.name, d.kind.as_str(), d.start_line, d.end_line))
        .collect()
}

fn d(name: &str, kind: &'static str, s: usize, e: usize) -> (String, &'static str, usize, usize) {
    (name.to_owned(), kind, s, e)
}

#[test]
fn languages_from_paths_and_names() {
    assert_eq!(Lang::from_path("a/b.ts"), Some(Lang::TypeScript));
    assert_eq!(Lang::from_path("x.d.ts"), Some(Lang::TypeScript));
    assert_eq!(Lang::from_path("X.TSX"), Some(Lang::Tsx));
    assert_eq!(Lang::from_path("a.mjs"), Some(Lang::JavaScript));
    assert_eq!(Lang::from_path("a.jsx"), Some(Lang::JavaScript));
    assert_eq!(Lang::from_path("a.pyi"), Some(Lang::Python));
    assert_eq!(Lang::from_path("src/lib.rs"), Some(Lang::Rust));
    assert_eq!(Lang::from_path("main.go"), Some(Lang::Go));
    assert_eq!(Lang::from_path("README.md"), None);
    assert_eq!(Lang::from_path("Makefile"), None);
    assert_eq!(Lang::from_name("TypeScript"), Some(Lang::TypeScript));
    assert_eq!(Lang::from_name("typescriptreact"), Some(Lang::Tsx));
    assert_eq!(Lang::from_name("golang"), Some(Lang::Go));
    assert_eq!(Lang::from_name("cobol"), None);
    for lang in Lang::ALL {
        assert_eq!(Lang::from_name(lang.as_str()), Some(lang));
    }
}

const TS: &str = "\
import { x } from './x'

/** Adds. */
export function add(a: number, b: number): number {
  return a + b
}

export class Box<T> {
  private items: T[] = []

  // Puts one in.
  put(item: T): void {
    this.items.push(item)
  }

  onClick = () => {
    this.items = []
  }
}

interface Shape { area(): number }
type Id = string
enum Color { Red, Green }
const double = (n: number) => n * 2
";

#[test]
fn typescript_definitions() {
    assert_eq!(
        defs(TS, Lang::TypeScript),
        vec![
            d("add", "function", 3, 6),
            d("Box", "class", 8, 19),
            d("put", "method", 11, 14),
            d("onClick", "method", 16, 18),
            d("Shape", "interface", 21, 21),
            d("area", "method", 21, 21),
            d("Id", "type", 22, 22),
            d("Color", "enum", 23, 23),
            d("double", "function", 24, 24),
        ]
    );
    let all = definitions(TS, Lang::TypeScript);
    assert_eq!(all[2].container.as_deref(), Some("Box"));
    assert_eq!(all[0].container, None);
}

#[test]
fn typescript_enclosing_blocks() {
    // a line inside a method: the method, not the class
    assert_eq!(
        enclosing_block(TS, Lang::TypeScript, 13, 13),
        Some((11, 14, DefKind::Method))
    );
    // spanning two members: the class
    assert_eq!(
        enclosing_block(TS, Lang::TypeScript, 13, 17),
        Some((8, 19, DefKind::Class))
    );
    assert_eq!(
        enclosing_block(TS, Lang::TypeScript, 5, 5),
        Some((3, 6, DefKind::Function))
    );
    // the import line is in no definition
    assert_eq!(enclosing_block(TS, Lang::TypeScript, 1, 1), None);
    // inverted and zero ranges
    assert_eq!(enclosing_block(TS, Lang::TypeScript, 5, 4), None);
    assert_eq!(enclosing_block(TS, Lang::TypeScript, 0, 4), None);
}

#[test]
fn tsx_and_javascript() {
    let tsx = "export function App() {\n  return <div>{1}</div>\n}\n";
    assert_eq!(defs(tsx, Lang::Tsx), vec![d("App", "function", 1, 3)]);
    let js = "\
class A {
  m() {
    return 1
  }
}
function* gen() { yield 1 }
var f = function () {
  return 2
}
";
    assert_eq!(
        defs(js, Lang::JavaScript),
        vec![
            d("A", "class", 1, 5),
            d("m", "method", 2, 4),
            d("gen", "function", 6, 6),
            d("f", "function", 7, 9),
        ]
    );
}

#[test]
fn python_definitions() {
    let py = "\
import os

# A helper.
def helper(x):
    return x + 1


class Greeter:
    \"\"\"Greets.\"\"\"

    @staticmethod
    def hello(name):
        if name:
            return 'hi ' + name
        return 'hi'
";
    assert_eq!(
        defs(py, Lang::Python),
        vec![
            d("helper", "function", 3, 5),
            d("Greeter", "class", 8, 15),
            d("hello", "method", 11, 15),
        ]
    );
    assert_eq!(
        enclosing_block(py, Lang::Python, 14, 15),
        Some((11, 15, DefKind::Method))
    );
    assert_eq!(
        enclosing_block(py, Lang::Python, 9, 9),
        Some((8, 15, DefKind::Class))
    );
}

#[test]
fn rust_definitions() {
    let rs = "\
use std::fmt;

/// A point.
#[derive(Debug)]
pub struct Point {
    x: i32,
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, \"{}\", self.x)
    }
}

pub trait Area {
    fn area(&self) -> f64;
}

pub enum E { A, B }
type Alias = u8;
const MAX: usize = 3;
static NAME: &str = \"n\";

fn free() {}
";
    assert_eq!(
        defs(rs, Lang::Rust),
        vec![
            d("Point", "struct", 3, 7),
            d("fmt::Display for Point", "impl", 9, 13),
            d("fmt", "method", 10, 12),
            d("Area", "trait", 15, 17),
            d("area", "method", 16, 16),
            d("E", "enum", 19, 19),
            d("Alias", "type", 20, 20),
            d("MAX", "const", 21, 21),
            d("NAME", "const", 22, 22),
            d("free", "function", 24, 24),
        ]
    );
    assert_eq!(
        enclosing_block(rs, Lang::Rust, 11, 11),
        Some((10, 12, DefKind::Method))
    );
}

#[test]
fn go_definitions() {
    let go = "\
package main

// Server serves.
type Server struct {
	addr string
}

type (
	Handler interface {
		Serve()
	}
	ID int
)

const Limit = 10

func (s *Server) Start() error {
	return nil
}

func main() {
	s := &Server{}
	_ = s.Start()
}
";
    assert_eq!(
        defs(go, Lang::Go),
        vec![
            d("Server", "struct", 3, 6),
            d("Handler", "interface", 9, 11),
            d("Serve", "method", 10, 10),
            d("ID", "type", 12, 12),
            d("Limit", "const", 15, 15),
            d("Start", "method", 17, 19),
            d("main", "function", 21, 24),
        ]
    );
    assert_eq!(
        enclosing_block(go, Lang::Go, 22, 23),
        Some((21, 24, DefKind::Function))
    );
}

#[test]
fn broken_code_keeps_the_definitions_it_does_not_break() {
    let ts = "function ok() {\n  return 1\n}\n\nfunction broken( {\n  let = = 3\n";
    let found = defs(ts, Lang::TypeScript);
    assert!(found.contains(&d("ok", "function", 1, 3)), "{found:?}");
}

#[test]
fn crlf_text_has_the_same_lines() {
    let lf = "fn a() {\n    1;\n}\n\nfn b() {}\n";
    let crlf = lf.replace('\n', "\r\n");
    assert_eq!(defs(lf, Lang::Rust), defs(&crlf, Lang::Rust));
}

#[test]
fn empty_and_oversized_texts_have_no_structure() {
    for lang in Lang::ALL {
        assert!(definitions("", lang).is_empty());
    }
    let huge = "fn a() {}\n".repeat(MAX_PARSE_BYTES / 10 + 1);
    assert!(huge.len() > MAX_PARSE_BYTES);
    assert!(definitions(&huge, Lang::Rust).is_empty());
    assert_eq!(enclosing_block(&huge, Lang::Rust, 1, 1), None);
}

#[test]
fn deep_nesting_does_not_overflow() {
    let deep = format!("{}{}", "[".repeat(50_000), "]".repeat(50_000));
    for lang in [Lang::JavaScript, Lang::Python, Lang::Rust, Lang::Go] {
        let _ = definitions(&deep, lang);
    }
    let nested_fns = "function f() {\n".repeat(2_000) + &"}\n".repeat(2_000);
    let found = definitions(&nested_fns, Lang::JavaScript);
    assert!(!found.is_empty() && found.len() <= MAX_DEPTH);
}

#[test]
fn parsers_are_reused_across_languages_on_one_thread() {
    for _ in 0..3 {
        for lang in Lang::ALL {
            let _ = definitions("x", lang);
        }
    }
    assert_eq!(
        defs("fn a() {}", Lang::Rust),
        vec![d("a", "function", 1, 1)]
    );
}

mod random {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048), s in 0usize..50, n in 0usize..50) {
            let text = String::from_utf8_lossy(&bytes);
            for lang in Lang::ALL {
                let found = definitions(&text, lang);
                for def in &found {
                    prop_assert!(def.start_line >= 1 && def.start_line <= def.end_line);
                }
                if let Some((a, b, _)) = enclosing_block(&text, lang, s, s + n) {
                    prop_assert!(a <= s && s + n <= b);
                }
            }
        }

        #[test]
        fn code_like_text_never_panics(parts in proptest::collection::vec(prop_oneof![
            Just("fn "), Just("def "), Just("class "), Just("func "), Just("{"), Just("}"),
            Just("("), Just(")"), Just(":\n    "), Just("\n"), Just("x"), Just("=>"), Just("\"")
        ], 0..300)) {
            let text: String = parts.concat();
            for lang in Lang::ALL {
                let _ = definitions(&text, lang);
            }
        }
    }
}
