//! Code structure from tree-sitter: which language a file is, where its definitions are, and
//! which block encloses a range of lines.
//!
//! The API is language-agnostic and small, so that every capability that needs structure
//! (structure-mode expansion, syntax-aware retrieval chunks, directory outlines) shares one
//! implementation:
//!
//! - [`Lang::from_path`] / [`Lang::from_name`]: the supported languages (TypeScript, TSX,
//!   JavaScript/JSX, Python, Rust, Go);
//! - [`definitions`]: every function, method, class, struct, interface, type alias, enum,
//!   trait, impl and constant, with 1-based inclusive lines;
//! - [`enclosing_block`]: the smallest of those that encloses a line range.
//!
//! Line numbers are 1-based and inclusive, like the chunks they are compared with. A
//! definition's range includes the doc comments, attributes and decorators directly above it
//! (no blank line in between), and the `export` keyword of an exported declaration.
//!
//! Robustness: input is bounded ([`MAX_PARSE_BYTES`]) and parsing is cancelled after
//! [`PARSE_TIME_LIMIT`], so neither a huge nor a pathological file can hold a thread for long;
//! tree-sitter recovers from syntax errors, so broken or random input yields fewer definitions
//! rather than an error, and the tree walk is depth-limited ([`MAX_DEPTH`]). A parser per
//! language is kept per thread and reused.

use std::cell::RefCell;
use std::ops::ControlFlow;
use std::path::Path;
use std::time::{Duration, Instant};

use tree_sitter::{Language, Node, ParseOptions, Parser, Tree};

/// Largest text parsed, in bytes; larger texts have no structure (the functions return `None`
/// or nothing).
pub const MAX_PARSE_BYTES: usize = 4 * 1024 * 1024;

/// Longest a single parse may run before it is cancelled.
pub const PARSE_TIME_LIMIT: Duration = Duration::from_millis(750);

/// Deepest syntax-tree level the walk descends to; deeper nodes are not inspected.
pub const MAX_DEPTH: usize = 256;

/// Most definitions [`definitions`] returns for one text.
pub const MAX_DEFINITIONS: usize = 20_000;

/// A language with a tree-sitter grammar compiled in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    /// TypeScript (`.ts`, `.mts`, `.cts`).
    TypeScript,
    /// TypeScript with JSX (`.tsx`).
    Tsx,
    /// JavaScript, including JSX (`.js`, `.mjs`, `.cjs`, `.jsx`).
    JavaScript,
    /// Python (`.py`, `.pyi`).
    Python,
    /// Rust (`.rs`).
    Rust,
    /// Go (`.go`).
    Go,
}

const LANG_COUNT: usize = 6;

impl Lang {
    /// Every supported language.
    pub const ALL: [Lang; LANG_COUNT] = [
        Lang::TypeScript,
        Lang::Tsx,
        Lang::JavaScript,
        Lang::Python,
        Lang::Rust,
        Lang::Go,
    ];

    /// The language of a file by its extension (case-insensitive), if supported.
    pub fn from_path(path: impl AsRef<Path>) -> Option<Lang> {
        let ext = path.as_ref().extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "js" | "mjs" | "cjs" | "jsx" => Lang::JavaScript,
            "py" | "pyi" => Lang::Python,
            "rs" => Lang::Rust,
            "go" => Lang::Go,
            _ => return None,
        })
    }

    /// The language for a name as editors and chunkers spell it (`"typescript"`, `"ts"`,
    /// `"typescriptreact"`, `"tsx"`, `"javascript"`, `"js"`, `"jsx"`, `"python"`, `"py"`,
    /// `"rust"`, `"rs"`, `"go"`, `"golang"`), case-insensitive.
    pub fn from_name(name: &str) -> Option<Lang> {
        Some(match name.trim().to_ascii_lowercase().as_str() {
            "typescript" | "ts" => Lang::TypeScript,
            "tsx" | "typescriptreact" => Lang::Tsx,
            "javascript" | "js" | "jsx" | "javascriptreact" | "ecmascript" => Lang::JavaScript,
            "python" | "py" | "python3" => Lang::Python,
            "rust" | "rs" => Lang::Rust,
            "go" | "golang" => Lang::Go,
            _ => return None,
        })
    }

    /// The canonical lower-case name (`"typescript"`, `"tsx"`, `"javascript"`, `"python"`,
    /// `"rust"`, `"go"`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::JavaScript => "javascript",
            Lang::Python => "python",
            Lang::Rust => "rust",
            Lang::Go => "go",
        }
    }

    fn index(self) -> usize {
        self as usize
    }

    fn grammar(self) -> Language {
        match self {
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::Go => tree_sitter_go::LANGUAGE.into(),
        }
    }
}

/// What a [`Definition`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DefKind {
    /// A free function (or a named function value such as `const f = () => {}`).
    Function,
    /// A function inside a class, impl, trait or interface; a Go method.
    Method,
    /// A class.
    Class,
    /// A struct (Rust, Go) or union (Rust).
    Struct,
    /// An interface (TypeScript, Go).
    Interface,
    /// A type alias.
    Type,
    /// An enum.
    Enum,
    /// A trait (Rust).
    Trait,
    /// An impl block (Rust).
    Impl,
    /// A constant (Rust `const`/`static`, Go `const`).
    Const,
}

impl DefKind {
    /// The lower-case name (`"function"`, `"method"`, `"class"`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            DefKind::Function => "function",
            DefKind::Method => "method",
            DefKind::Class => "class",
            DefKind::Struct => "struct",
            DefKind::Interface => "interface",
            DefKind::Type => "type",
            DefKind::Enum => "enum",
            DefKind::Trait => "trait",
            DefKind::Impl => "impl",
            DefKind::Const => "const",
        }
    }

    /// True for kinds whose body holds other definitions (class, impl, trait, interface...).
    pub const fn is_container(self) -> bool {
        matches!(
            self,
            DefKind::Class | DefKind::Impl | DefKind::Trait | DefKind::Interface | DefKind::Struct
        )
    }
}

/// A definition found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    /// The defined name (`"Foo"`, `"bar"`; for a Rust impl, `"Trait for Type"` or `"Type"`).
    pub name: String,
    /// What it is.
    pub kind: DefKind,
    /// First line, 1-based, including doc comments, attributes and decorators directly above.
    pub start_line: usize,
    /// Last line, 1-based, inclusive.
    pub end_line: usize,
    /// The name of the nearest enclosing definition (the class of a method), if any.
    pub container: Option<String>,
}

impl Definition {
    /// Number of lines the definition spans.
    pub fn line_count(&self) -> usize {
        self.end_line + 1 - self.start_line
    }

    /// True if the definition's lines include `start..=end`.
    pub fn encloses(&self, start: usize, end: usize) -> bool {
        self.start_line <= start && end <= self.end_line
    }
}

/// The smallest definition (function, method, class, struct, ...) whose lines include
/// `start_line..=end_line` (1-based, inclusive), as `(start_line, end_line, kind)`. `None` when
/// nothing encloses the range, the range is empty or inverted, or the text is too large or did
/// not parse in time.
pub fn enclosing_block(
    text: &str,
    lang: Lang,
    start_line: usize,
    end_line: usize,
) -> Option<(usize, usize, DefKind)> {
    if start_line == 0 || end_line < start_line {
        return None;
    }
    definitions(text, lang)
        .into_iter()
        .filter(|d| d.encloses(start_line, end_line))
        .min_by_key(|d| (d.line_count(), std::cmp::Reverse(d.start_line)))
        .map(|d| (d.start_line, d.end_line, d.kind))
}

/// Every definition in `text`, in source order (a container before its members). Empty when
/// the text is larger than [`MAX_PARSE_BYTES`] or did not parse within [`PARSE_TIME_LIMIT`];
/// syntax errors only hide the definitions they break.
pub fn definitions(text: &str, lang: Lang) -> Vec<Definition> {
    let Some(tree) = parse(text, lang) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut walk = Walk {
        src: text.as_bytes(),
        lang,
        out: &mut out,
    };
    walk.visit(tree.root_node(), 0, None, false);
    out
}

/// Parses `text` with the thread's parser for `lang`, within the size and time limits.
pub fn parse(text: &str, lang: Lang) -> Option<Tree> {
    if text.len() > MAX_PARSE_BYTES {
        return None;
    }
    thread_local! {
        static PARSERS: RefCell<[Option<Parser>; LANG_COUNT]> = const {
            RefCell::new([None, None, None, None, None, None])
        };
    }
    PARSERS.with(|cell| {
        let mut parsers = cell.try_borrow_mut().ok()?;
        let slot = &mut parsers[lang.index()];
        if slot.is_none() {
            let mut parser = Parser::new();
            parser.set_language(&lang.grammar()).ok()?;
            *slot = Some(parser);
        }
        let parser = slot.as_mut()?;
        let deadline = Instant::now() + PARSE_TIME_LIMIT;
        let mut progress = |_: &tree_sitter::ParseState| {
            if Instant::now() > deadline {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let bytes = text.as_bytes();
        let mut read = |offset: usize, _| bytes.get(offset..).unwrap_or_default();
        let options = ParseOptions::new().progress_callback(&mut progress);
        let tree = parser.parse_with_options(&mut read, None, Some(options));
        if tree.is_none() {
            // A cancelled parse leaves state behind; the next parse must start fresh.
            parser.reset();
        }
        tree
    })
}

struct Walk<'a> {
    src: &'a [u8],
    lang: Lang,
    out: &'a mut Vec<Definition>,
}

/// What a node defines: its kind, name, and the node whose range is the definition's.
struct Found<'t> {
    kind: DefKind,
    name: String,
    range: Node<'t>,
}

impl Walk<'_> {
    /// Visits `node`; `container` is the name of the nearest enclosing definition and
    /// `in_type` whether that definition holds methods (class, impl, trait, interface).
    fn visit(&mut self, node: Node<'_>, depth: usize, container: Option<&str>, in_type: bool) {
        if depth > MAX_DEPTH || self.out.len() >= MAX_DEFINITIONS {
            return;
        }
        let found = self.classify(node, in_type);
        let (child_container, child_in_type) = match &found {
            Some(f) => {
                let (start, end) = self.lines_with_preamble(f.range);
                self.out.push(Definition {
                    name: f.name.clone(),
                    kind: f.kind,
                    start_line: start,
                    end_line: end,
                    container: container.map(str::to_owned),
                });
                (Some(f.name.clone()), f.kind.is_container())
            }
            None => (container.map(str::to_owned), in_type),
        };
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            self.visit(child, depth + 1, child_container.as_deref(), child_in_type);
        }
    }

    fn text(&self, node: Node<'_>) -> String {
        let raw = node.utf8_text(self.src).unwrap_or("");
        // Names are one line; collapse whitespace of multi-line ones (generic impl targets).
        let mut name = raw.split_whitespace().collect::<Vec<_>>().join(" ");
        if name.len() > 200 {
            let mut cut = 200;
            while !name.is_char_boundary(cut) {
                cut -= 1;
            }
            name.truncate(cut);
        }
        name
    }

    fn field_text(&self, node: Node<'_>, field: &str) -> Option<String> {
        node.child_by_field_name(field)
            .map(|n| self.text(n))
            .filter(|s| !s.is_empty())
    }

    fn classify<'t>(&self, node: Node<'t>, in_type: bool) -> Option<Found<'t>> {
        if node.is_error() || node.is_missing() {
            return None;
        }
        let kind = node.kind();
        let named = |kind: DefKind| -> Option<Found<'t>> {
            Some(Found {
                kind,
                name: self.field_text(node, "name")?,
                range: outer(node),
            })
        };
        let func = if in_type {
            DefKind::Method
        } else {
            DefKind::Function
        };
        match self.lang {
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript => match kind {
                "function_declaration" | "generator_function_declaration" => {
                    named(DefKind::Function)
                }
                "method_definition" | "method_signature" | "abstract_method_signature" => {
                    named(DefKind::Method)
                }
                "class_declaration" | "abstract_class_declaration" | "class" => {
                    named(DefKind::Class)
                }
                "interface_declaration" => named(DefKind::Interface),
                "type_alias_declaration" => named(DefKind::Type),
                "enum_declaration" => named(DefKind::Enum),
                // `const f = () => {}` / `const f = function () {}`: a named function value.
                "variable_declarator" => {
                    let value = node.child_by_field_name("value")?;
                    if !matches!(
                        value.kind(),
                        "arrow_function" | "function_expression" | "function"
                    ) {
                        return None;
                    }
                    let decl = node.parent().filter(|p| {
                        matches!(p.kind(), "lexical_declaration" | "variable_declaration")
                    })?;
                    Some(Found {
                        kind: DefKind::Function,
                        name: self.field_text(node, "name")?,
                        range: outer(decl),
                    })
                }
                // Class fields holding functions: `handle = () => {}`.
                "public_field_definition" | "field_definition" => {
                    let value = node.child_by_field_name("value")?;
                    if !matches!(value.kind(), "arrow_function" | "function_expression") {
                        return None;
                    }
                    let name = node
                        .child_by_field_name("name")
                        .or_else(|| node.child_by_field_name("property"))
                        .map(|n| self.text(n))?;
                    Some(Found {
                        kind: DefKind::Method,
                        name,
                        range: node,
                    })
                }
                _ => None,
            },
            Lang::Python => match kind {
                "function_definition" => named(func),
                "class_definition" => named(DefKind::Class),
                _ => None,
            },
            Lang::Rust => match kind {
                "function_item" | "function_signature_item" => named(func),
                "struct_item" | "union_item" => named(DefKind::Struct),
                "enum_item" => named(DefKind::Enum),
                "trait_item" => named(DefKind::Trait),
                "type_item" => named(DefKind::Type),
                "const_item" | "static_item" => named(DefKind::Const),
                "impl_item" => {
                    let ty = self.field_text(node, "type")?;
                    let name = match self.field_text(node, "trait") {
                        Some(t) => format!("{t} for {ty}"),
                        None => ty,
                    };
                    Some(Found {
                        kind: DefKind::Impl,
                        name,
                        range: node,
                    })
                }
                _ => None,
            },
            Lang::Go => match kind {
                "function_declaration" => named(DefKind::Function),
                "method_declaration" => named(DefKind::Method),
                "method_elem" | "method_spec" => named(DefKind::Method),
                "type_spec" | "type_alias" => {
                    let kind = match node.child_by_field_name("type").map(|t| t.kind()) {
                        Some("struct_type") => DefKind::Struct,
                        Some("interface_type") => DefKind::Interface,
                        _ => DefKind::Type,
                    };
                    // A lone `type X ...` spans its declaration; a grouped one its spec.
                    let range = match node.parent() {
                        Some(p) if p.kind() == "type_declaration" && p.named_child_count() == 1 => {
                            p
                        }
                        _ => node,
                    };
                    Some(Found {
                        kind,
                        name: self.field_text(node, "name")?,
                        range,
                    })
                }
                "const_spec" => {
                    let name = self.field_text(node, "name")?;
                    let range = match node.parent() {
                        Some(p)
                            if p.kind() == "const_declaration" && p.named_child_count() == 1 =>
                        {
                            p
                        }
                        _ => node,
                    };
                    Some(Found {
                        kind: DefKind::Const,
                        name,
                        range,
                    })
                }
                _ => None,
            },
        }
    }

    /// The 1-based inclusive lines of `node`, extended upwards over the comments, attributes
    /// and decorators directly above it.
    fn lines_with_preamble(&self, node: Node<'_>) -> (usize, usize) {
        let (mut start, end) = node_lines(node);
        let mut prev = node.prev_sibling();
        while let Some(p) = prev {
            let is_preamble = matches!(
                p.kind(),
                "comment" | "line_comment" | "block_comment" | "attribute_item" | "decorator"
            );
            let (p_start, p_end) = node_lines(p);
            if !is_preamble || p_end + 1 < start {
                break;
            }
            // A trailing comment on the previous statement's line is not this one's preamble.
            if let Some(before) = p.prev_sibling() {
                if node_lines(before).1 == p_start && !is_preamble_kind(before.kind()) {
                    break;
                }
            }
            start = p_start;
            prev = p.prev_sibling();
        }
        (start, end)
    }
}

fn is_preamble_kind(kind: &str) -> bool {
    matches!(
        kind,
        "comment" | "line_comment" | "block_comment" | "attribute_item" | "decorator"
    )
}

/// The node a declaration's range is taken from: the `export` statement or the Python
/// `decorated_definition` wrapping it, if any.
fn outer(node: Node<'_>) -> Node<'_> {
    match node.parent() {
        Some(p) if matches!(p.kind(), "export_statement" | "decorated_definition") => p,
        _ => node,
    }
}

/// 1-based inclusive lines of a node. A node that ends at column 0 of a later line (its
/// trailing newline included) ends on the line before.
fn node_lines(node: Node<'_>) -> (usize, usize) {
    let start = node.start_position().row + 1;
    let end_pos = node.end_position();
    let end = if end_pos.column == 0 && end_pos.row > node.start_position().row {
        end_pos.row
    } else {
        end_pos.row + 1
    };
    (start, end.max(start))
}

#[cfg(test)]
mod tests;
