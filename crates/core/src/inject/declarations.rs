//! Key declarations of a source file (functions, classes, types, modules, constants).
//!
//! They come from the language registry's syntax trees ([`crate::syntax`], tree-sitter being
//! the only definitions provider), so a declaration split over lines, decorated or inside
//! `export default` is still found and nothing in a string or comment is mistaken for one.
//! Only the outline is kept: definitions at the top level of the file or directly inside a
//! module or namespace (not methods, not local functions), so a directory listing is not
//! flooded. Files of languages without a grammar have none.
//!
//! [`declarations`] is the only entry point the context sources use.

use crate::syntax::{self, DefKind, Definition, Lang};

/// One declaration of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    /// The declared name.
    pub name: String,
    /// `function`, `method`, `class`, `struct`, `enum`, `trait`, `interface`, `type`,
    /// `const`, `module` or `macro` ([`DefKind::as_str`]).
    pub kind: &'static str,
    /// 1-based line of the name.
    pub line: usize,
}

/// The key declarations of the file at `path` (its name picks the language,
/// [`Lang::from_path`]) with content `text`, in line order. Unknown languages have none.
pub fn declarations(path: &str, text: &str) -> Vec<Declaration> {
    let Some(lang) = Lang::from_path(path) else {
        return Vec::new();
    };
    let defs = syntax::definitions(text, lang);
    let mut out: Vec<Declaration> = outline(&defs)
        .map(|d| Declaration {
            name: d.name.clone(),
            kind: d.kind.as_str(),
            line: d.line,
        })
        .collect();
    out.sort_by(|a, b| a.line.cmp(&b.line).then_with(|| a.name.cmp(&b.name)));
    out.dedup_by(|a, b| a.line == b.line && a.name == b.name);
    out
}

/// The definitions not nested in anything but modules and namespaces, impls left out (an
/// impl is not a declaration of a name).
fn outline(defs: &[Definition]) -> impl Iterator<Item = &Definition> {
    // Definitions come containers first; a stack of the open ones says what encloses each.
    let mut stack: Vec<&Definition> = Vec::new();
    let mut keep = Vec::with_capacity(defs.len());
    for d in defs {
        while stack.last().is_some_and(|t| {
            !(t.encloses(d.start_line, d.end_line) && t.line_count() > d.line_count())
        }) {
            stack.pop();
        }
        let nested = stack.iter().any(|t| t.kind != DefKind::Module);
        keep.push(!nested && d.kind != DefKind::Impl);
        stack.push(d);
    }
    defs.iter().zip(keep).filter_map(|(d, k)| k.then_some(d))
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

    /// Each file's declarations, as `kind name:line`.
    fn assert_declares(cases: &[(&str, &str, &[&str])]) {
        for (path, text, expected) in cases {
            assert_eq!(names(path, text), *expected, "{path}");
        }
    }

    #[test]
    fn typescript_python_go() {
        assert_declares(&[
            (
                "x.ts",
                "import x from 'y'\nexport function a() {}\nexport default class B {}\ninterface C {}\nexport type D = string\nconst e = 1\n{ const local = 2 }\nexport async function f() {}\n",
                &["function a:2", "class B:3", "interface C:4", "type D:5", "const e:6", "function f:8"],
            ),
            (
                "m.py",
                "import os\nclass A:\n    def method(self): pass\ndef f():\n    pass\nasync def g(): pass\n",
                &["class A:2", "function f:4", "function g:6"],
            ),
            (
                "m.go",
                "package x\nfunc Main() {}\nfunc (s *S) Method() {}\ntype S struct {}\ntype I interface {}\n",
                &["function Main:2", "method Method:3", "struct S:4", "interface I:5"],
            ),
            ("notes.txt", "fn x() {}", &[]),
        ]);
    }

    #[test]
    fn c_java_ruby_shell() {
        assert_declares(&[
            (
                "a.c",
                "#include <stdio.h>\nstruct point { int x; };\nstatic int add(int a, int b) {\n    return a + b;\n}\nint main(void);\ntypedef enum color { RED } color_t;\n",
                &["struct point:2", "function add:3", "enum color:7", "type color_t:7"],
            ),
            (
                "P.java",
                "package x;\npublic final class Parser {\n    private int n;\n}\ninterface Visitor {}\npublic record Point(int x) {}\n",
                &["class Parser:2", "interface Visitor:5", "class Point:6"],
            ),
            (
                "cart.rb",
                "module Shop\n  class Cart\n    def total?\n    end\n  end\nend\n",
                // Members of a module are listed, members of a class are not.
                &["module Shop:1", "class Cart:2"],
            ),
            (
                "x.sh",
                "#!/bin/sh\nbuild() {\n  make\n}\nfunction deploy {\n}\nfunction clean() {\n}\n",
                &["function build:2", "function deploy:5", "function clean:7"],
            ),
        ]);
    }
}
