//! What a definition is in each grammar: the node kinds that define functions, methods,
//! classes, types, modules..., and where each keeps its name. One `match` arm per language;
//! the walk around them is shared.

use tree_sitter::{Node, TreeCursor};

use super::{DefKind, Definition, Lang, MAX_DEFINITIONS, MAX_DEPTH};

pub(super) struct Walk<'a> {
    pub(super) src: &'a [u8],
    pub(super) lang: Lang,
    pub(super) out: &'a mut Vec<Definition>,
}

/// What a node defines: its kind, name, the node holding the name, and the node whose range
/// is the definition's.
struct Found<'t> {
    kind: DefKind,
    name: String,
    name_node: Node<'t>,
    range: Node<'t>,
    /// Where the definition ends when not at `range`'s end: the body a C parse error left
    /// beside the declarator.
    body: Option<Node<'t>>,
}

/// Longest name kept, in bytes.
const MAX_NAME_BYTES: usize = 200;

impl Walk<'_> {
    /// Visits `node`; `container` is the name of the nearest enclosing definition and
    /// `in_type` whether that definition holds methods (class, impl, trait, interface).
    /// Visits the cursor's node and its named descendants; `container` is the name of the
    /// nearest enclosing definition and `in_type` whether that definition holds methods
    /// (class, impl, trait, interface). One cursor walks the whole tree.
    pub(super) fn visit(
        &mut self,
        cursor: &mut TreeCursor<'_>,
        depth: usize,
        container: Option<&str>,
        in_type: bool,
    ) {
        if depth > MAX_DEPTH || self.out.len() >= MAX_DEFINITIONS {
            return;
        }
        let node = cursor.node();
        let own_name;
        let (child_container, child_in_type) = match self.classify(node, in_type) {
            Some(f) => {
                let (start, mut end) = self.lines_with_preamble(f.range);
                if let Some(body) = f.body {
                    end = end.max(node_lines(body).1);
                }
                let c_function = matches!(self.lang, Lang::C | Lang::Cpp)
                    && matches!(f.kind, DefKind::Function | DefKind::Method);
                if c_function && (node.has_error() || f.body.is_some()) {
                    end = self.c_body_end(f.name_node, end);
                }
                let pos = f.name_node.start_position();
                let line_start = f.name_node.start_byte() - pos.column;
                let column = std::str::from_utf8(&self.src[line_start..f.name_node.start_byte()])
                    .map_or(pos.column, |s| s.chars().count());
                own_name = f.name;
                self.out.push(Definition {
                    name: own_name.clone(),
                    kind: f.kind,
                    start_line: start,
                    end_line: end,
                    container: container.map(str::to_owned),
                    line: (pos.row + 1).clamp(start, end),
                    column,
                });
                if c_function {
                    // C and C++ have no nested functions: what a parse error put inside one
                    // (the rest of the file, after a macro it misread) is not its member.
                    (container, in_type)
                } else {
                    (Some(own_name.as_str()), f.kind.is_container())
                }
            }
            None => (container, in_type),
        };
        if cursor.goto_first_child() {
            loop {
                if cursor.node().is_named() {
                    self.visit(cursor, depth + 1, child_container, child_in_type);
                }
                if !cursor.goto_next_sibling() {
                    break;
                }
            }
            cursor.goto_parent();
        }
    }

    fn text(&self, node: Node<'_>) -> String {
        let raw = node.utf8_text(self.src).unwrap_or("");
        // Names are one line; collapse whitespace of multi-line ones (generic impl targets).
        let mut name = raw.split_whitespace().collect::<Vec<_>>().join(" ");
        if name.len() > MAX_NAME_BYTES {
            let mut cut = MAX_NAME_BYTES;
            while !name.is_char_boundary(cut) {
                cut -= 1;
            }
            name.truncate(cut);
        }
        name
    }

    fn found<'t>(&self, kind: DefKind, name_node: Node<'t>, range: Node<'t>) -> Option<Found<'t>> {
        let name = self.text(name_node);
        (!name.is_empty()).then_some(Found {
            kind,
            name,
            name_node,
            range,
            body: None,
        })
    }

    /// A definition named by the node's `name` field, spanning the node (or its wrapper).
    fn named<'t>(&self, node: Node<'t>, kind: DefKind) -> Option<Found<'t>> {
        self.found(kind, node.child_by_field_name("name")?, outer(node))
    }

    // One arm per grammar node kind across the registry: a table, not a procedure.
    #[allow(clippy::too_many_lines)]
    fn classify<'t>(&self, node: Node<'t>, in_type: bool) -> Option<Found<'t>> {
        if node.is_error() && matches!(self.lang, Lang::C | Lang::Cpp) {
            return self.c_broken_function(node);
        }
        if node.is_error() || node.is_missing() {
            return None;
        }
        let kind = node.kind();
        let func = if in_type {
            DefKind::Method
        } else {
            DefKind::Function
        };
        match self.lang {
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript => self.ecmascript(node, kind),
            Lang::Python => match kind {
                "function_definition" => self.named(node, func),
                "class_definition" => self.named(node, DefKind::Class),
                _ => None,
            },
            Lang::Rust => self.rust(node, kind, func),
            Lang::Go => self.go(node, kind),
            Lang::Bash => match kind {
                "function_definition" => self.named(node, DefKind::Function),
                _ => None,
            },
            Lang::C | Lang::Cpp => self.c_family(node, kind, in_type),
            Lang::CSharp => match kind {
                "class_declaration" | "record_declaration" => self.named(node, DefKind::Class),
                "struct_declaration" => self.named(node, DefKind::Struct),
                "interface_declaration" => self.named(node, DefKind::Interface),
                "enum_declaration" => self.named(node, DefKind::Enum),
                "delegate_declaration" => self.named(node, DefKind::Type),
                "method_declaration" | "constructor_declaration" | "destructor_declaration" => {
                    self.named(node, DefKind::Method)
                }
                "namespace_declaration" | "file_scoped_namespace_declaration" => {
                    self.named(node, DefKind::Module)
                }
                _ => None,
            },
            Lang::Java => match kind {
                "class_declaration" | "record_declaration" => self.named(node, DefKind::Class),
                "interface_declaration" | "annotation_type_declaration" => {
                    self.named(node, DefKind::Interface)
                }
                "enum_declaration" => self.named(node, DefKind::Enum),
                "method_declaration" | "constructor_declaration" => {
                    self.named(node, DefKind::Method)
                }
                _ => None,
            },
            Lang::Kotlin => match kind {
                "class_declaration" => {
                    let mut cursor = node.walk();
                    let is_interface = node.children(&mut cursor).any(|c| c.kind() == "interface");
                    let is_enum = node
                        .named_children(&mut node.walk())
                        .any(|c| c.kind() == "enum_class_body");
                    let kind = if is_interface {
                        DefKind::Interface
                    } else if is_enum {
                        DefKind::Enum
                    } else {
                        DefKind::Class
                    };
                    self.named(node, kind)
                }
                "object_declaration" => self.named(node, DefKind::Class),
                "function_declaration" => self.named(node, func),
                "type_alias" => {
                    let name = node.child_by_field_name("type").or_else(|| {
                        node.named_children(&mut node.walk())
                            .find(|c| c.kind() == "identifier")
                    })?;
                    self.found(DefKind::Type, name, node)
                }
                _ => None,
            },
            Lang::Swift => match kind {
                "class_declaration" => {
                    let kind = match node
                        .child_by_field_name("declaration_kind")
                        .map(|k| k.kind())
                    {
                        Some("struct") => DefKind::Struct,
                        Some("enum") => DefKind::Enum,
                        Some("extension") => DefKind::Impl,
                        _ => DefKind::Class,
                    };
                    self.named(node, kind)
                }
                "protocol_declaration" => self.named(node, DefKind::Interface),
                "function_declaration" => self.named(node, func),
                "protocol_function_declaration" | "init_declaration" => {
                    self.named(node, DefKind::Method)
                }
                "typealias_declaration" => self.named(node, DefKind::Type),
                _ => None,
            },
            Lang::Scala => match kind {
                "class_definition" => self.named(node, DefKind::Class),
                "object_definition" | "package_object" => self.named(node, DefKind::Module),
                "trait_definition" => self.named(node, DefKind::Trait),
                "enum_definition" => self.named(node, DefKind::Enum),
                "function_definition" | "function_declaration" => self.named(node, func),
                "type_definition" => self.named(node, DefKind::Type),
                _ => None,
            },
            Lang::Solidity => self.solidity(node, kind, func),
            Lang::Php => match kind {
                "function_definition" => self.named(node, DefKind::Function),
                "method_declaration" => self.named(node, DefKind::Method),
                "class_declaration" => self.named(node, DefKind::Class),
                "interface_declaration" => self.named(node, DefKind::Interface),
                "trait_declaration" => self.named(node, DefKind::Trait),
                "enum_declaration" => self.named(node, DefKind::Enum),
                "namespace_definition" => self.named(node, DefKind::Module),
                _ => None,
            },
            Lang::Ruby => match kind {
                "method" => self.named(node, func),
                "singleton_method" => self.named(node, DefKind::Method),
                "class" => self.named(node, DefKind::Class),
                "module" => self.named(node, DefKind::Module),
                _ => None,
            },
            Lang::Lua => match kind {
                "function_declaration" => {
                    let name = node.child_by_field_name("name")?;
                    // `function M.f()` / `function M:f()`: the last part is the name.
                    let (kind, leaf) = match name.kind() {
                        "method_index_expression" => {
                            (DefKind::Method, name.child_by_field_name("method"))
                        }
                        "dot_index_expression" => (func, name.child_by_field_name("field")),
                        _ => (func, Some(name)),
                    };
                    self.found(kind, leaf.unwrap_or(name), node)
                }
                _ => None,
            },
            Lang::Elixir => self.elixir(node, kind),
            Lang::Haskell => match kind {
                "function" => self.named(node, DefKind::Function),
                // A top-level binding without arguments (`main = do ...`).
                "bind" if node.parent().is_some_and(|p| p.kind() == "declarations") => {
                    self.named(node, DefKind::Function)
                }
                "data_type" | "newtype" | "type_synomym" | "type_synonym" | "type_family" => {
                    self.named(node, DefKind::Type)
                }
                "class" => self.named(node, DefKind::Interface),
                "instance" => self.named(node, DefKind::Impl),
                _ => None,
            },
            Lang::Zig => match kind {
                "function_declaration" => self.named(node, func),
                // `const Point = struct { ... };`
                "variable_declaration" => {
                    let mut cursor = node.walk();
                    let mut kind = None;
                    let mut name = None;
                    for c in node.named_children(&mut cursor) {
                        match c.kind() {
                            "identifier" if name.is_none() => name = Some(c),
                            "struct_declaration" | "union_declaration" | "opaque_declaration" => {
                                kind = Some(DefKind::Struct);
                            }
                            "enum_declaration" => kind = Some(DefKind::Enum),
                            "error_set_declaration" => kind = Some(DefKind::Type),
                            _ => {}
                        }
                    }
                    self.found(kind?, name?, node)
                }
                _ => None,
            },
        }
    }

    fn ecmascript<'t>(&self, node: Node<'t>, kind: &str) -> Option<Found<'t>> {
        match kind {
            "function_declaration" | "generator_function_declaration" => {
                self.named(node, DefKind::Function)
            }
            "method_definition" | "method_signature" | "abstract_method_signature" => {
                self.named(node, DefKind::Method)
            }
            "class_declaration" | "abstract_class_declaration" | "class" => {
                self.named(node, DefKind::Class)
            }
            "interface_declaration" => self.named(node, DefKind::Interface),
            "type_alias_declaration" => self.named(node, DefKind::Type),
            "enum_declaration" => self.named(node, DefKind::Enum),
            "internal_module" | "module" => self.named(node, DefKind::Module),
            // `const f = () => {}` / `const f = function () {}`: a named function value; a
            // top-level `const X = ...` of anything else: a constant.
            "variable_declarator" => {
                let decl = node.parent().filter(|p| {
                    matches!(p.kind(), "lexical_declaration" | "variable_declaration")
                })?;
                let name = node.child_by_field_name("name")?;
                let value = node.child_by_field_name("value");
                if value.is_some_and(|v| {
                    matches!(
                        v.kind(),
                        "arrow_function" | "function_expression" | "function"
                    )
                }) {
                    return self.found(DefKind::Function, name, outer(decl));
                }
                let top = outer(decl).parent().is_some_and(|p| p.kind() == "program");
                let is_const = decl.child(0).is_some_and(|k| k.kind() == "const");
                (top && is_const && name.kind() == "identifier" && value.is_some())
                    .then(|| self.found(DefKind::Const, name, outer(decl)))
                    .flatten()
            }
            // Class fields holding functions: `handle = () => {}`.
            "public_field_definition" | "field_definition" => {
                let value = node.child_by_field_name("value")?;
                if !matches!(value.kind(), "arrow_function" | "function_expression") {
                    return None;
                }
                let name = node
                    .child_by_field_name("name")
                    .or_else(|| node.child_by_field_name("property"))?;
                self.found(DefKind::Method, name, node)
            }
            _ => None,
        }
    }

    /// Solidity: contracts are classes (their functions and modifiers methods), libraries
    /// modules, events, errors and user-defined value types types; `constant` state variables
    /// and file-level constants are constants. Constructors, `fallback` and `receive` have no
    /// name and define none.
    fn solidity<'t>(&self, node: Node<'t>, kind: &str, func: DefKind) -> Option<Found<'t>> {
        match kind {
            "contract_declaration" => self.named(node, DefKind::Class),
            "interface_declaration" => self.named(node, DefKind::Interface),
            "library_declaration" => self.named(node, DefKind::Module),
            "function_definition" | "modifier_definition" => self.named(node, func),
            "struct_declaration" => self.named(node, DefKind::Struct),
            "enum_declaration" => self.named(node, DefKind::Enum),
            "event_definition" | "error_declaration" | "user_defined_type_definition" => {
                self.named(node, DefKind::Type)
            }
            "constant_variable_declaration" => self.named(node, DefKind::Const),
            "state_variable_declaration"
                if node
                    .children(&mut node.walk())
                    .any(|c| c.kind() == "constant") =>
            {
                self.named(node, DefKind::Const)
            }
            _ => None,
        }
    }

    fn rust<'t>(&self, node: Node<'t>, kind: &str, func: DefKind) -> Option<Found<'t>> {
        match kind {
            "function_item" | "function_signature_item" => self.named(node, func),
            "struct_item" | "union_item" => self.named(node, DefKind::Struct),
            "enum_item" => self.named(node, DefKind::Enum),
            "trait_item" => self.named(node, DefKind::Trait),
            "type_item" => self.named(node, DefKind::Type),
            "const_item" | "static_item" => self.named(node, DefKind::Const),
            "mod_item" => self.named(node, DefKind::Module),
            "macro_definition" => self.named(node, DefKind::Macro),
            "impl_item" => {
                let ty = node.child_by_field_name("type")?;
                let mut found = self.found(DefKind::Impl, ty, node)?;
                if let Some(t) = node.child_by_field_name("trait") {
                    found.name = format!("{} for {}", self.text(t), found.name);
                }
                Some(found)
            }
            _ => None,
        }
    }

    fn go<'t>(&self, node: Node<'t>, kind: &str) -> Option<Found<'t>> {
        match kind {
            "function_declaration" => self.named(node, DefKind::Function),
            "method_declaration" | "method_elem" | "method_spec" => {
                self.named(node, DefKind::Method)
            }
            "type_spec" | "type_alias" => {
                let kind = match node.child_by_field_name("type").map(|t| t.kind()) {
                    Some("struct_type") => DefKind::Struct,
                    Some("interface_type") => DefKind::Interface,
                    _ => DefKind::Type,
                };
                // A lone `type X ...` spans its declaration; a grouped one its spec.
                let range = match node.parent() {
                    Some(p) if p.kind() == "type_declaration" && p.named_child_count() == 1 => p,
                    _ => node,
                };
                self.found(kind, node.child_by_field_name("name")?, range)
            }
            "const_spec" => {
                let range = match node.parent() {
                    Some(p) if p.kind() == "const_declaration" && p.named_child_count() == 1 => p,
                    _ => node,
                };
                self.found(DefKind::Const, node.child_by_field_name("name")?, range)
            }
            _ => None,
        }
    }

    fn c_family<'t>(&self, node: Node<'t>, kind: &str, in_type: bool) -> Option<Found<'t>> {
        let with_body = |k: DefKind| {
            node.child_by_field_name("body")?;
            self.named(node, k)
        };
        match kind {
            "function_definition" => {
                // `for_each_entry(pos, head) stmt;` in a body: a loop macro the grammar reads
                // as a definition typed by a macro, not a function.
                let macro_typed = node.child_by_field_name("type").map(|t| t.kind())
                    == Some("macro_type_specifier");
                if macro_typed && node.parent().map(|p| p.kind()) == Some("compound_statement") {
                    return None;
                }
                let (name, qualified) = declarator_name(node.child_by_field_name("declarator")?)?;
                let kind = if in_type || qualified {
                    DefKind::Method
                } else {
                    DefKind::Function
                };
                self.found(kind, name, outer(node))
            }
            "struct_specifier" | "union_specifier" => with_body(DefKind::Struct),
            "enum_specifier" => with_body(DefKind::Enum),
            "class_specifier" => with_body(DefKind::Class),
            "namespace_definition" => self.named(node, DefKind::Module),
            "alias_declaration" | "concept_definition" => self.named(node, DefKind::Type),
            "type_definition" => {
                let mut d = node.child_by_field_name("declarator")?;
                // `typedef int (*handler)(int);` / `typedef struct x *xp;`
                while let Some(inner) = d.child_by_field_name("declarator") {
                    d = inner;
                }
                (d.kind() == "type_identifier")
                    .then(|| self.found(DefKind::Type, d, node))
                    .flatten()
            }
            _ => None,
        }
    }

    /// A C function whose header a parse error swallowed: an error node holding its
    /// declarator, its body the next sibling.
    fn c_broken_function<'t>(&self, node: Node<'t>) -> Option<Found<'t>> {
        let body = node
            .next_named_sibling()
            .filter(|b| b.kind() == "compound_statement")?;
        let declarator = node
            .named_children(&mut node.walk())
            .find(|c| c.kind() == "function_declarator")?;
        let (name, qualified) = declarator_name(declarator)?;
        let kind = if qualified {
            DefKind::Method
        } else {
            DefKind::Function
        };
        let mut found = self.found(kind, name, node)?;
        found.body = Some(body);
        Some(found)
    }

    /// The last line of a C function whose parse went wrong (its node runs past its real end
    /// after a macro the grammar misread): the first line after its name that starts with `}`,
    /// as C's top-level closing braces do, or `end` when none comes before it.
    fn c_body_end(&self, name: Node<'_>, end: usize) -> usize {
        let from = name.end_byte();
        let mut line = name.end_position().row + 1;
        let mut i = from;
        while let Some(off) = memchr::memchr(b'\n', &self.src[i..]) {
            let at = i + off;
            line += 1;
            if line > end {
                break;
            }
            if self.src.get(at + 1) == Some(&b'}') {
                return line;
            }
            i = at + 1;
        }
        end
    }

    /// Elixir defines with macros: `defmodule Name do`, `def name(args) do`...
    fn elixir<'t>(&self, node: Node<'t>, kind: &str) -> Option<Found<'t>> {
        if kind != "call" {
            return None;
        }
        let target = node.child_by_field_name("target")?;
        if target.kind() != "identifier" {
            return None;
        }
        let def_kind = match target.utf8_text(self.src).ok()? {
            "defmodule" | "defprotocol" => DefKind::Module,
            "defimpl" => DefKind::Impl,
            "def" | "defp" | "defmacro" | "defmacrop" | "defguard" | "defguardp"
            | "defdelegate" | "defn" | "defnp" => DefKind::Function,
            _ => return None,
        };
        let args = node
            .named_children(&mut node.walk())
            .find(|c| c.kind() == "arguments")?;
        let mut first = args.named_child(0)?;
        // `def name(a) when guard` / `def name(a) :: type`
        while first.kind() == "binary_operator" {
            first = first.child_by_field_name("left")?;
        }
        let name = match first.kind() {
            "alias" | "identifier" => first,
            "call" => first
                .child_by_field_name("target")
                .filter(|t| t.kind() == "identifier")?,
            _ => return None,
        };
        self.found(def_kind, name, node)
    }

    /// The 1-based inclusive lines of `node`, extended upwards over the comments, attributes
    /// and decorators directly above it.
    fn lines_with_preamble(&self, node: Node<'_>) -> (usize, usize) {
        let (mut start, end) = node_lines(node);
        // A first child that starts where its parent starts (a Ruby class opening a module's
        // body, a Haskell declaration opening the declaration list): the comments above are
        // the parent's siblings.
        let mut anchor = node;
        while anchor.prev_sibling().is_none() {
            match anchor.parent() {
                Some(p) if p.start_byte() == anchor.start_byte() && p.parent().is_some() => {
                    anchor = p;
                }
                _ => break,
            }
        }
        let mut prev = anchor.prev_sibling();
        while let Some(p) = prev {
            // A shebang line is the file's, not the definition's.
            let is_shebang = p.start_position().row == 0
                && self.src.get(p.start_byte()..p.start_byte() + 2) == Some(b"#!".as_slice());
            let is_preamble = self.is_preamble_kind(p.kind()) && !is_shebang;
            let (p_start, p_end) = node_lines(p);
            if !is_preamble || p_end + 1 < start {
                break;
            }
            // A trailing comment on the previous statement's line is not this one's preamble.
            if let Some(before) = p.prev_sibling() {
                if node_lines(before).1 == p_start && !self.is_preamble_kind(before.kind()) {
                    break;
                }
            }
            start = p_start;
            prev = p.prev_sibling();
        }
        (start, end)
    }

    fn is_preamble_kind(&self, kind: &str) -> bool {
        matches!(
            kind,
            "comment"
                | "line_comment"
                | "block_comment"
                | "multiline_comment"
                | "haddock"
                | "attribute_item"
                | "decorator"
                | "annotation"
                | "attribute_list"
        ) || (self.lang == Lang::Haskell && kind == "signature")
    }
}

/// The name node of a C/C++ function declarator chain, and whether it is qualified
/// (`Foo::bar`, a method defined outside its class).
fn declarator_name(mut d: Node<'_>) -> Option<(Node<'_>, bool)> {
    let mut is_function = false;
    for _ in 0..32 {
        match d.kind() {
            "function_declarator" => {
                is_function = true;
                d = d.child_by_field_name("declarator")?;
            }
            "pointer_declarator"
            | "reference_declarator"
            | "parenthesized_declarator"
            | "attributed_declarator" => {
                d = d
                    .child_by_field_name("declarator")
                    .or_else(|| d.named_child(0))?;
            }
            "qualified_identifier" => {
                let mut leaf = d;
                while let Some(n) = leaf.child_by_field_name("name") {
                    leaf = n;
                }
                return is_function.then_some((leaf, true));
            }
            "identifier" | "field_identifier" | "destructor_name" | "operator_name" => {
                return is_function.then_some((d, false));
            }
            _ => return None,
        }
    }
    None
}

/// The node a declaration's range is taken from: the `export` statement, the Python
/// `decorated_definition` or the C++ `template` declaration wrapping it, if any.
fn outer(node: Node<'_>) -> Node<'_> {
    match node.parent() {
        Some(p)
            if matches!(
                p.kind(),
                "export_statement" | "decorated_definition" | "template_declaration"
            ) =>
        {
            p
        }
        _ => node,
    }
}

/// 1-based inclusive lines of a node. A node that ends at column 0 of a later line (its
/// trailing newline included) ends on the line before.
pub(super) fn node_lines(node: Node<'_>) -> (usize, usize) {
    let start = node.start_position().row + 1;
    let end_pos = node.end_position();
    let end = if end_pos.column == 0 && end_pos.row > node.start_position().row {
        end_pos.row
    } else {
        end_pos.row + 1
    };
    (start, end.max(start))
}

/// Merges consecutive clauses of one function (Haskell equations, Elixir `def` clauses) into
/// one definition.
pub(super) fn merge_clauses(defs: &mut Vec<Definition>) {
    let mut out: Vec<Definition> = Vec::with_capacity(defs.len());
    for d in defs.drain(..) {
        if let Some(last) = out.last_mut() {
            if last.name == d.name
                && last.kind == d.kind
                && last.container == d.container
                && matches!(d.kind, DefKind::Function | DefKind::Method)
                && d.start_line > last.start_line
                && d.start_line <= last.end_line + 2
            {
                last.end_line = last.end_line.max(d.end_line);
                continue;
            }
        }
        out.push(d);
    }
    *defs = out;
}
