use super::*;

/// `kind name start-end` per definition.
fn defs(text: &str, lang: Lang) -> Vec<String> {
    definitions(text, lang)
        .into_iter()
        .map(|d| {
            format!(
                "{} {} {}-{}",
                d.kind.as_str(),
                d.name,
                d.start_line,
                d.end_line
            )
        })
        .collect()
}

/// A line range and the block (start, end, kind) enclosing it, if any.
type Encloses = ((usize, usize), Option<(usize, usize, DefKind)>);

/// The block enclosing each line range, as `enclosing_block` finds it.
fn assert_encloses(text: &str, lang: Lang, cases: &[Encloses]) {
    for &((from, to), expected) in cases {
        assert_eq!(
            enclosing_block(text, lang, from, to),
            expected,
            "{lang:?} {from}-{to}"
        );
    }
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

#[test]
fn language_names_cover_files_without_a_grammar() {
    for (path, name) in [
        ("src/a.ts", Some("typescript")),
        ("deploy.SH", Some("bash")),
        ("x/Rakefile", Some("ruby")),
        ("README.md", Some("markdown")),
        ("docs/INDEX.RST", Some("rst")),
        ("notes.txt", Some("text")),
        ("package.json", Some("json")),
        ("ci.yml", Some("yaml")),
        ("app.scss", Some("css")),
        ("lib/main.dart", Some("dart")),
        ("Makefile", None),
        ("image.png", None),
        ("no_extension", None),
        // Windows-style paths name the same languages on every host.
        (r"src\a.ts", Some("typescript")),
        (r"x\Rakefile", Some("ruby")),
        (r"C:\proj\docs\INDEX.RST", Some("rst")),
        (r"\\?\C:\proj\deploy.SH", Some("bash")),
        (r"\\server\share\Makefile", None),
        (r"src\", None),
    ] {
        assert_eq!(language_name(path), name, "{path}");
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
            "function add 3-6",
            "class Box 8-19",
            "method put 11-14",
            "method onClick 16-18",
            "interface Shape 21-21",
            "method area 21-21",
            "type Id 22-22",
            "enum Color 23-23",
            "function double 24-24",
        ]
    );
    let all = definitions(TS, Lang::TypeScript);
    assert_eq!(all[2].container.as_deref(), Some("Box"));
    assert_eq!(all[0].container, None);
}

#[test]
fn typescript_enclosing_blocks() {
    assert_encloses(
        TS,
        Lang::TypeScript,
        &[
            // a line inside a method: the method, not the class
            ((13, 13), Some((11, 14, DefKind::Method))),
            // spanning two members: the class
            ((13, 17), Some((8, 19, DefKind::Class))),
            ((5, 5), Some((3, 6, DefKind::Function))),
            // the import line is in no definition
            ((1, 1), None),
            // inverted and zero ranges
            ((5, 4), None),
            ((0, 4), None),
        ],
    );
}

#[test]
fn tsx_and_javascript() {
    let tsx = "export function App() {\n  return <div>{1}</div>\n}\n";
    assert_eq!(defs(tsx, Lang::Tsx), vec!["function App 1-3"]);
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
            "class A 1-5",
            "method m 2-4",
            "function gen 6-6",
            "function f 7-9",
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
            "function helper 3-5",
            "class Greeter 8-15",
            "method hello 11-15",
        ]
    );
    assert_encloses(
        py,
        Lang::Python,
        &[
            ((14, 15), Some((11, 15, DefKind::Method))),
            ((9, 9), Some((8, 15, DefKind::Class))),
        ],
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
            "struct Point 3-7",
            "impl fmt::Display for Point 9-13",
            "method fmt 10-12",
            "trait Area 15-17",
            "method area 16-16",
            "enum E 19-19",
            "type Alias 20-20",
            "const MAX 21-21",
            "const NAME 22-22",
            "function free 24-24",
        ]
    );
    assert_encloses(
        rs,
        Lang::Rust,
        &[((11, 11), Some((10, 12, DefKind::Method)))],
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
            "struct Server 3-6",
            "interface Handler 9-11",
            "method Serve 10-10",
            "type ID 12-12",
            "const Limit 15-15",
            "method Start 17-19",
            "function main 21-24",
        ]
    );
    assert_encloses(
        go,
        Lang::Go,
        &[((22, 23), Some((21, 24, DefKind::Function)))],
    );
}

#[test]
fn broken_code_keeps_the_definitions_it_does_not_break() {
    let ts = "function ok() {\n  return 1\n}\n\nfunction broken( {\n  let = = 3\n";
    let found = defs(ts, Lang::TypeScript);
    assert!(found.iter().any(|f| f == "function ok 1-3"), "{found:?}");
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
    assert_eq!(defs("fn a() {}", Lang::Rust), vec!["function a 1-1"]);
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

/// A loop macro without braces (`for_each_entry(x) stmt;`) is a parse error in C's grammar
/// that swallows the rest of the file into the function holding it: the functions after it
/// still come out whole, top-level, and with their own lines.
#[test]
fn c_functions_after_a_loop_macro_keep_their_lines_and_scope() {
    let src = "static void set_skip_buddy(struct sched_entity *se)\n{\n\tfor_each_sched_entity(se)\n\t\tcfs_rq_of(se)->skip = se;\n}\n\n/*\n * Preempt.\n */\nstatic void check_preempt_wakeup(struct rq *rq, int wake_flags)\n{\n\tint x = 1;\n\tif (x)\n\t\treturn;\n}\n\nstatic int other(void)\n{\n\treturn 0;\n}\n";
    assert_eq!(
        defs(src, Lang::C),
        [
            "function set_skip_buddy 1-5",
            "function check_preempt_wakeup 7-15",
            "function other 17-20"
        ]
    );
    assert!(definitions(src, Lang::C)
        .iter()
        .all(|d| d.container.is_none()));
    // Well-formed C is untouched: a function's own braces decide its end.
    let ok = "int f(void)\n{\n\tif (1) {\n\t\treturn 1;\n}\n\treturn 0;\n}\n";
    assert_eq!(defs(ok, Lang::C), ["function f 1-7"]);
}
