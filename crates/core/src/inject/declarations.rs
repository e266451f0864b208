//! Key declarations of a source file (functions, classes, types).
//!
//! Where [`crate::syntax`] has a tree-sitter grammar (TypeScript/TSX, JavaScript, Python, Rust,
//! Go), the top-level definitions come from the syntax tree, so a declaration split over lines,
//! decorated or inside `export default` is still found and nothing in a string or comment is
//! mistaken for one; the line-based heuristic adds only the kinds the grammar layer does not
//! classify (Rust macros and modules, non-function constants). Other languages use the heuristic alone: only top-level
//! (unindented) declarations, so locals and methods do not flood a directory listing.
//!
//! [`declarations`] is the only entry point the context sources use.

use std::sync::OnceLock;

use regex::Regex;

/// One declaration of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    /// The declared name.
    pub name: String,
    /// `function`, `class`, `struct`, `enum`, `trait`, `interface`, `type`, `const`,
    /// `module` or `macro`.
    pub kind: &'static str,
    /// 1-based line.
    pub line: usize,
}

struct Lang {
    patterns: Vec<(Regex, Option<&'static str>)>,
}

fn kind_of(word: &str) -> &'static str {
    match word {
        "fn" | "def" | "func" | "function" | "function*" => "function",
        "class" | "record" => "class",
        "struct" => "struct",
        "enum" => "enum",
        "trait" => "trait",
        "interface" => "interface",
        "type" | "typedef" => "type",
        "const" | "let" | "var" | "static" => "const",
        "mod" | "module" | "namespace" => "module",
        "macro_rules!" => "macro",
        _ => "declaration",
    }
}

fn lang(ext: &str) -> Option<&'static Lang> {
    static RUST: OnceLock<Lang> = OnceLock::new();
    static TS: OnceLock<Lang> = OnceLock::new();
    static PY: OnceLock<Lang> = OnceLock::new();
    static GO: OnceLock<Lang> = OnceLock::new();
    static JAVA: OnceLock<Lang> = OnceLock::new();
    static RUBY: OnceLock<Lang> = OnceLock::new();
    static C: OnceLock<Lang> = OnceLock::new();
    static SH: OnceLock<Lang> = OnceLock::new();
    let re = |s: &str| Regex::new(s).expect("valid pattern");
    let build = |list: &[(&str, Option<&'static str>)]| Lang {
        patterns: list.iter().map(|(p, k)| (re(p), *k)).collect(),
    };
    Some(match ext {
        "rs" => RUST.get_or_init(|| {
            build(&[(
                r#"^(?:pub(?:\([^)]*\))?\s+)?(?:(?:async|const|unsafe|extern\s+"[^"]*")\s+)*(?P<kw>fn|struct|enum|trait|type|mod|const|static|macro_rules!)\s*(?P<name>[A-Za-z_]\w*)"#,
                None,
            )])
        }),
        "ts" | "tsx" | "js" | "jsx" | "mjs" | "cjs" | "mts" | "cts" => TS.get_or_init(|| {
            build(&[(
                r"^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?P<kw>function\*?|class|interface|type|enum|const|let|var|namespace)\s+(?P<name>[A-Za-z_$][\w$]*)",
                None,
            )])
        }),
        "py" | "pyi" => PY.get_or_init(|| {
            build(&[(r"^(?:async\s+)?(?P<kw>def|class)\s+(?P<name>[A-Za-z_]\w*)", None)])
        }),
        "go" => GO.get_or_init(|| {
            build(&[
                (r"^(?P<kw>func)\s+(?:\([^)]*\)\s*)?(?P<name>[A-Za-z_]\w*)", None),
                (r"^type\s+(?P<name>[A-Za-z_]\w*)\s+(?P<kw>struct|interface)", None),
                (r"^(?P<kw>type)\s+(?P<name>[A-Za-z_]\w*)", None),
            ])
        }),
        "java" | "kt" | "kts" | "cs" | "scala" | "swift" => JAVA.get_or_init(|| {
            build(&[(
                r"^\s{0,4}(?:(?:public|private|protected|internal|static|final|abstract|sealed|open|data|partial)\s+)*(?P<kw>class|interface|enum|record|struct|trait)\s+(?P<name>[A-Za-z_]\w*)",
                None,
            )])
        }),
        "rb" => RUBY.get_or_init(|| {
            build(&[(r"^\s*(?P<kw>def|class|module)\s+(?P<name>[\w.:?!]+)", None)])
        }),
        "c" | "h" | "cc" | "cpp" | "hpp" | "cxx" | "hh" => C.get_or_init(|| {
            build(&[
                (r"^(?:typedef\s+)?(?P<kw>struct|enum|class|union|namespace)\s+(?P<name>[A-Za-z_]\w*)", None),
                (
                    r"^(?:static\s+|inline\s+|extern\s+)*[A-Za-z_][\w\s\*&:<>,]*?[\s\*&](?P<name>[A-Za-z_]\w*)\s*\([^;]*$",
                    Some("function"),
                ),
            ])
        }),
        "sh" | "bash" | "zsh" => SH.get_or_init(|| {
            build(&[
                (r"^function\s+(?P<name>[A-Za-z_][\w-]*)", Some("function")),
                (r"^(?P<name>[A-Za-z_][\w-]*)\s*\(\)", Some("function")),
            ])
        }),
        _ => return None,
    })
}

/// The key declarations of the file at `path` (its extension picks the language) with
/// content `text`, in line order. Unknown languages have none.
pub fn declarations(path: &str, text: &str) -> Vec<Declaration> {
    let Some(lang) = crate::syntax::Lang::from_path(path) else {
        return heuristic(path, text);
    };
    let mut out: Vec<Declaration> = crate::syntax::definitions(text, lang)
        .into_iter()
        .filter(|d| d.container.is_none() && d.kind != crate::syntax::DefKind::Impl)
        .map(|d| Declaration {
            line: name_line(text, d.start_line, d.end_line, &d.name),
            name: d.name,
            kind: d.kind.as_str(),
        })
        .collect();
    out.extend(
        heuristic(path, text)
            .into_iter()
            .filter(|d| matches!(d.kind, "macro" | "module" | "const")),
    );
    out.sort_by(|a, b| a.line.cmp(&b.line).then_with(|| a.name.cmp(&b.name)));
    out.dedup_by(|a, b| a.line == b.line && a.name == b.name);
    out
}

/// The line where a definition's name first appears (a definition's range starts at its doc
/// comments and decorators; a listing wants the declaration line itself).
fn name_line(text: &str, start: usize, end: usize, name: &str) -> usize {
    text.lines()
        .enumerate()
        .skip(start.saturating_sub(1))
        .take(end.saturating_sub(start) + 1)
        .find(|(_, line)| {
            let t = line.trim_start();
            !(t.starts_with("//")
                || t.starts_with('#')
                || t.starts_with('@')
                || t.starts_with("/*")
                || t.starts_with('*'))
                && line.contains(name)
        })
        .map_or(start, |(i, _)| i + 1)
}

/// The line-based heuristic: top-level declarations by per-language patterns.
fn heuristic(path: &str, text: &str) -> Vec<Declaration> {
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    let Some(lang) = ext.as_deref().and_then(lang) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        for (re, fixed) in &lang.patterns {
            if let Some(c) = re.captures(line) {
                let kind = fixed
                    .unwrap_or_else(|| c.name("kw").map_or("declaration", |k| kind_of(k.as_str())));
                out.push(Declaration {
                    name: c["name"].to_owned(),
                    kind,
                    line: i + 1,
                });
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(path: &str, text: &str) -> Vec<String> {
        declarations(path, text)
            .into_iter()
            .map(|d| format!("{} {}:{}", d.kind, d.name, d.line))
            .collect()
    }

    #[test]
    fn rust() {
        let src = "use x;\npub fn parse() {}\npub(crate) struct Scope;\nenum Kind { A }\n    fn inner() {}\npub async fn run() {}\nmacro_rules! m { () => {} }\nimpl Foo {}\npub trait T {}\n";
        assert_eq!(
            names("a.rs", src),
            vec![
                "function parse:2",
                "struct Scope:3",
                "enum Kind:4",
                // indented, but at the top level of the file: the syntax tree says so
                "function inner:5",
                "function run:6",
                "macro m:7",
                "trait T:9"
            ]
        );
    }

    #[test]
    fn typescript_python_go() {
        let ts = "import x from 'y'\nexport function a() {}\nexport default class B {}\ninterface C {}\nexport type D = string\nconst e = 1\n  const local = 2\nexport async function f() {}\n";
        assert_eq!(
            names("x.ts", ts),
            vec![
                "function a:2",
                "class B:3",
                "interface C:4",
                "type D:5",
                "const e:6",
                "function f:8"
            ]
        );
        let py = "import os\nclass A:\n    def method(self): pass\ndef f():\n    pass\nasync def g(): pass\n";
        assert_eq!(
            names("m.py", py),
            vec!["class A:2", "function f:4", "function g:6"]
        );
        let go = "package x\nfunc Main() {}\nfunc (s *S) Method() {}\ntype S struct {}\ntype I interface {}\n";
        assert_eq!(
            names("m.go", go),
            vec![
                "function Main:2",
                "method Method:3",
                "struct S:4",
                "interface I:5"
            ]
        );
        assert!(names("notes.txt", "fn x() {}").is_empty());
    }

    #[test]
    fn c_java_ruby_shell() {
        let c = "#include <stdio.h>\nstruct point { int x; };\nstatic int add(int a, int b) {\n    return a + b;\n}\nint main(void);\ntypedef enum color { RED } color_t;\n";
        assert_eq!(
            names("a.c", c),
            vec!["struct point:2", "function add:3", "enum color:7"]
        );
        let java = "package x;\npublic final class Parser {\n    private int n;\n}\ninterface Visitor {}\npublic record Point(int x) {}\n";
        assert_eq!(
            names("P.java", java),
            vec!["class Parser:2", "interface Visitor:5", "class Point:6"]
        );
        let rb = "module Shop\n  class Cart\n    def total?\n    end\n  end\nend\n";
        assert_eq!(
            names("cart.rb", rb),
            vec!["module Shop:1", "class Cart:2", "function total?:3"]
        );
        let sh = "#!/bin/sh\nbuild() {\n  make\n}\nfunction deploy {\n}\nfunction clean() {\n}\n";
        assert_eq!(
            names("x.sh", sh),
            vec!["function build:2", "function deploy:5", "function clean:7"]
        );
    }
}
