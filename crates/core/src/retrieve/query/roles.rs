//! File roles, inferred from a file's place in the tree and its name: what a file is *for*
//! (source, test, docs...), so that ranking can prefer the code that implements something over
//! the files that test, document, configure, copy or only declare it. One role comes from the
//! text: a TypeScript module that declares types and nothing else ([`role_of_text`]).
//!
//! Roles come only from conventions that hold across ecosystems (a `tests/` folder, a
//! `_test.go` or `.spec.ts` suffix, a `docs/` folder, a Markdown extension, a `v1/` copy of a
//! package, a module of interfaces...), never from names seen in benchmark data. A prompt that
//! asks for a role (it mentions tests, docs, an example...) lifts the demotion of that role
//! ([`Wanted`]); one that asks for types puts the declarations above the code.

use std::sync::OnceLock;

/// What a file is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// Code that implements the project.
    Source,
    /// Tests and test helpers.
    Test,
    /// Data a test reads (fixtures, snapshots, `testdata/`).
    Fixture,
    /// Prose: Markdown, reStructuredText, plain text, `docs/`.
    Docs,
    /// Examples, samples, demos and benchmarks.
    Example,
    /// Configuration and data formats (JSON, YAML, TOML, XML, INI...).
    Config,
    /// Generated code (protobuf stubs, `*.generated.*`, `*_pb2.py`...).
    Generated,
    /// Code kept from another project.
    Vendored,
    /// An older or compatibility copy (`v1/`, `compat/`, `legacy/`, `deprecated/`).
    Legacy,
    /// Templates and scaffolding (`templates/`, `.tmpl`, `.tt`, `.j2`, `.hbs`...).
    Template,
    /// Type declarations only: a TypeScript module of interfaces and type aliases, or a
    /// `.d.ts`. They describe what the source implements, and repeat its words.
    Declarations,
}

impl Role {
    /// Every role, each at its [`Role::position`] (a bound over all roles reads them here).
    pub const ALL: [Role; 11] = [
        Role::Source,
        Role::Test,
        Role::Fixture,
        Role::Docs,
        Role::Example,
        Role::Config,
        Role::Generated,
        Role::Vendored,
        Role::Legacy,
        Role::Template,
        Role::Declarations,
    ];

    /// The role's place in [`Role::ALL`]: a new role must be given one (and a place there).
    pub const fn position(self) -> usize {
        match self {
            Role::Source => 0,
            Role::Test => 1,
            Role::Fixture => 2,
            Role::Docs => 3,
            Role::Example => 4,
            Role::Config => 5,
            Role::Generated => 6,
            Role::Vendored => 7,
            Role::Legacy => 8,
            Role::Template => 9,
            Role::Declarations => 10,
        }
    }

    /// The role's name, as `explain` shows it.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Source => "source",
            Role::Test => "test",
            Role::Fixture => "fixture",
            Role::Docs => "docs",
            Role::Example => "example",
            Role::Config => "config",
            Role::Generated => "generated",
            Role::Vendored => "vendored",
            Role::Legacy => "legacy",
            Role::Template => "template",
            Role::Declarations => "declarations",
        }
    }

    /// The factor a file's score is multiplied by, given what the prompt asks for: 1 for
    /// source and for a role the prompt wants, less for the others. Declarations are the one
    /// role a prompt can ask for *instead of* source: "the action type definitions" is answered
    /// by the module that declares them, not by the code that uses them, so they rank above it
    /// ([`DECLARATIONS_WANTED`]).
    pub fn factor(self, wanted: Wanted) -> f32 {
        match self {
            Role::Source => 1.0,
            Role::Test if wanted.tests => 1.0,
            Role::Fixture if wanted.tests => 0.8,
            Role::Docs if wanted.docs => 1.0,
            Role::Example if wanted.examples => 1.0,
            Role::Config if wanted.config => 1.0,
            Role::Template if wanted.templates => 1.0,
            Role::Declarations if wanted.types => DECLARATIONS_WANTED,
            Role::Test => 0.45,
            Role::Fixture => 0.3,
            Role::Docs => 0.4,
            Role::Example => 0.5,
            Role::Config => 0.45,
            Role::Generated => 0.5,
            Role::Vendored => 0.4,
            Role::Legacy => 0.55,
            Role::Template => 0.5,
            Role::Declarations => DECLARATIONS,
        }
    }
}

/// The factor of [`Role::Declarations`] when the prompt does not ask for types. Measured on
/// the DEV sets (semble NDCG@10 pooled): 0.5, 0.6 and 0.7 → 0.8686 (the same ranks), 0.8 →
/// 0.8677 (a first version, which also took enums and `.pyi` stubs: the same semble ranks at
/// 0.6), 1 (no role) → 0.8658; commits and DEV-issue unchanged or better.
const DECLARATIONS: f32 = 0.6;

/// The factor of [`Role::Declarations`] when the prompt asks for types. Measured on the DEV
/// sets: 1 → semble 0.8686 (typescript 0.7496), 1.15 → 0.8694, 1.3 → 0.8698 (typescript
/// 0.7596, commits and DEV-issue answered as at 1), 1.5 → 0.8698 with a commit of hono losing
/// its gold file from the top 10 ("fix(types): ..." where the fix is in code), 2 → 0.8707 with
/// commits MRR −0.005. The highest value that costs no prompt of another kind.
const DECLARATIONS_WANTED: f32 = 1.3;

/// The words that ask for a role, by group: tests, docs, examples, config, templates (as
/// [`Wanted::of_text`] numbers them). Matched as terms, stemmed: "testing" asks for tests.
const WANTED_WORDS: [(u8, &[&str]); 5] = [
    (
        0,
        &[
            "test", "tests", "testing", "spec", "unittest", "pytest", "fixture", "fixtures",
            "conftest",
        ],
    ),
    (
        1,
        &[
            "doc",
            "docs",
            "documentation",
            "readme",
            "docstring",
            "changelog",
            "guide",
            "tutorial",
        ],
    ),
    (
        2,
        &[
            "example",
            "examples",
            "sample",
            "samples",
            "demo",
            "benchmark",
            "benchmarks",
        ],
    ),
    (
        3,
        &[
            "config",
            "configuration",
            "settings",
            "manifest",
            "yaml",
            "toml",
            "dependency",
            "dependencies",
        ],
    ),
    (
        4,
        &[
            "template",
            "templates",
            "scaffold",
            "scaffolding",
            "boilerplate",
        ],
    ),
];

/// The words that ask for type declarations, matched as written (lowercase), not stemmed: the
/// singular "type" names a kind of value far more often than declarations ("runtime type
/// identification", "custom type formatting", the `Content-Type` header), so only its plural
/// and the words for declarations count. Measured: with "type" counted, a one-word change that
/// lifted `types/` modules above `kindOf.ts` for "runtime type identification", and `index.d.ts`
/// above the code for three held-out axios commits about the `Content-Type` header.
const TYPES_WORDS: &[&str] = &[
    "types",
    "typing",
    "typings",
    "interface",
    "interfaces",
    "definition",
    "definitions",
    "declaration",
    "declarations",
    "signature",
    "signatures",
    "schema",
    "schemas",
    "option",
    "options",
];

/// The roles a prompt asks for: their files are not demoted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[allow(clippy::struct_excessive_bools)] // one flag per role a prompt can ask for
pub struct Wanted {
    /// The prompt mentions tests (a test, testing, a failing test, a spec, a fixture...).
    pub tests: bool,
    /// The prompt mentions docs (documentation, README, docstring, a guide...).
    pub docs: bool,
    /// The prompt mentions examples, samples, demos or benchmarks.
    pub examples: bool,
    /// The prompt mentions configuration (config, settings, a manifest...).
    pub config: bool,
    /// The prompt mentions templates or scaffolding.
    pub templates: bool,
    /// The prompt mentions types, interfaces, definitions, signatures or options.
    pub types: bool,
    /// The prompt mentions a project's own prose files by name ([`PROSE_WORDS`]: a change
    /// log, a licence): only then are they asked for with the docs.
    pub prose: bool,
}

impl Wanted {
    /// What a text asks for: a short prompt's words, or a long prompt's title (its body
    /// mentions tests or docs in passing).
    pub fn of_text(text: &str) -> Wanted {
        let mut w = Wanted::default();
        for (_, g) in role_words(text) {
            w.set(g, true);
        }
        w.types = crate::retrieve::tokenize::has_word(text, TYPES_WORDS);
        w.prose = asks_project_prose(text);
        w
    }

    /// Sets the flag of role group `g` (as [`role_words`] numbers them) to `on`.
    pub fn set(&mut self, g: u8, on: bool) {
        match g {
            0 => self.tests = on,
            1 => self.docs = on,
            2 => self.examples = on,
            3 => self.config = on,
            _ => self.templates = on,
        }
    }

    /// Whether the prompt asks for `role` by one of the [`role_words`] (not types).
    pub fn asks(self, role: Role) -> bool {
        match role {
            Role::Test | Role::Fixture => self.tests,
            Role::Docs => self.docs,
            Role::Example => self.examples,
            Role::Config => self.config,
            Role::Template => self.templates,
            _ => false,
        }
    }
}

/// The terms of `text` that ask for a role, each with its group: 0 tests, 1 docs, 2
/// examples, 3 config, 4 templates (distinct, in text order).
pub fn role_words(text: &str) -> Vec<(String, u8)> {
    static KEYWORDS: OnceLock<Vec<(String, u8)>> = OnceLock::new();
    let keywords = KEYWORDS.get_or_init(|| {
        let mut out = Vec::new();
        for (g, words) in WANTED_WORDS {
            for w in words {
                for t in crate::retrieve::tokenize::terms(w) {
                    out.push((t, g));
                }
            }
        }
        out
    });
    let mut out: Vec<(String, u8)> = Vec::new();
    crate::retrieve::tokenize::for_each_term(text, |t, _| {
        for (k, g) in keywords {
            if k == t && !out.iter().any(|(o, _)| o == t) {
                out.push((t.to_owned(), *g));
            }
        }
    });
    out
}

/// Folder names that hold tests.
#[allow(clippy::case_sensitive_file_extension_comparisons)] // name suffixes, not extensions
fn is_test_dir(d: &str) -> bool {
    matches!(
        d,
        "test"
            | "tests"
            | "__tests__"
            | "__test__"
            | "spec"
            | "specs"
            | "testing"
            | "t"
            | "unittests"
            | "unit_tests"
            | "integration_tests"
            | "e2e"
            | "androidtest"
            | "jvmtest"
            | "commontest"
            | "jstest"
            | "nativetest"
    ) || d.ends_with("test") && (d.ends_with("-test") || d.ends_with("_test"))
        || d.ends_with("tests")
            && (d.ends_with("-tests") || d.ends_with("_tests") || d.ends_with(".tests"))
}

/// Folder names that hold data for tests.
fn is_fixture_dir(d: &str) -> bool {
    matches!(
        d,
        "fixtures"
            | "fixture"
            | "testdata"
            | "test_data"
            | "test-data"
            | "__snapshots__"
            | "__fixtures__"
            | "snapshots"
            | "golden"
            | "testcases"
            | "mocks"
            | "__mocks__"
    )
}

fn is_docs_dir(d: &str) -> bool {
    matches!(
        d,
        "doc" | "docs" | "documentation" | "man" | "website" | "site"
    )
}

fn is_example_dir(d: &str) -> bool {
    matches!(
        d,
        "example"
            | "examples"
            | "sample"
            | "samples"
            | "demo"
            | "demos"
            | "bench"
            | "benches"
            | "benchmark"
            | "benchmarks"
            | "playground"
            | "tutorial"
            | "tutorials"
            | "cookbook"
    )
}

fn is_vendored_dir(d: &str) -> bool {
    matches!(
        d,
        "vendor"
            | "vendored"
            | "_vendor"
            | "third_party"
            | "thirdparty"
            | "third-party"
            | "external"
            | "extern"
            | "deps"
    )
}

fn is_legacy_dir(d: &str) -> bool {
    matches!(
        d,
        "legacy"
            | "compat"
            | "deprecated"
            | "old"
            | "_compat"
            | "obsolete"
            | "backport"
            | "backports"
    ) || (d.len() >= 2
        && d.len() <= 3
        && d.starts_with('v')
        && d[1..].bytes().all(|b| b.is_ascii_digit()))
}

fn is_template_dir(d: &str) -> bool {
    matches!(
        d,
        "template"
            | "templates"
            | "scaffold"
            | "scaffolds"
            | "scaffolding"
            | "skeleton"
            | "boilerplate"
            | "stubs"
    )
}

/// The role of a file whose name has this lowercase extension (after the last dot), if the
/// extension alone decides it.
fn role_of_extension(ext: &str) -> Option<Role> {
    Some(match ext {
        "md" | "markdown" | "mdx" | "rst" | "txt" | "adoc" | "asciidoc" | "rdoc" | "pod"
        | "texi" | "org" => Role::Docs,
        // Translation catalogs: the user-facing messages again, in other languages.
        "po" | "pot" => Role::Docs,
        "json" | "jsonc" | "json5" | "yml" | "yaml" | "toml" | "xml" | "ini" | "cfg" | "conf"
        | "properties" | "plist" | "csproj" | "sln" | "props" | "targets" | "gradle"
        | "editorconfig" | "env" | "csv" | "tsv" | "lock" | "nix" | "mod" | "sum" => Role::Config,
        "tt" | "tmpl" | "tpl" | "j2" | "jinja" | "jinja2" | "hbs" | "handlebars" | "mustache"
        | "ejs" | "erb" | "liquid" | "njk" | "twig" | "stub" | "in" => Role::Template,
        _ => return None,
    })
}

/// True if a script is a build or lint tool's configuration by the JavaScript ecosystem's
/// naming convention: `vite.config.ts`, `karma.conf.cjs`, `webpack.config.prod.js`,
/// `.eslintrc.cjs`, `gulpfile.js`, `Gruntfile.js` (lowercase stem and extension).
fn is_tool_config(stem: &str, ext: &str) -> bool {
    let script = matches!(ext, "js" | "cjs" | "mjs" | "ts" | "cts" | "mts");
    script
        && (stem
            .split('.')
            .skip(1)
            .any(|p| p == "config" || p == "conf")
            || (stem.starts_with('.') && stem.ends_with("rc"))
            || matches!(stem, "gulpfile" | "gruntfile" | "jakefile"))
}

/// True if a file name (lowercase) follows a test naming convention of a common language.
#[allow(clippy::case_sensitive_file_extension_comparisons)] // name suffixes, not extensions
fn is_test_name(name: &str, stem: &str) -> bool {
    stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("_tests")
        || stem.ends_with("_spec")
        || stem.ends_with(".test")
        || stem.ends_with(".spec")
        || stem.ends_with("-test")
        || stem.ends_with("-spec")
        || name == "conftest.py"
        || (stem.len() > 4
            && (stem.ends_with("test") || stem.ends_with("tests") || stem.ends_with("spec"))
            && name_has_camel_suffix(name))
}

/// `FooTest.java`, `FooTests.cs`, `FooSpec.scala`: a camel-case name ending in Test(s)/Spec.
/// `name` is lowercase, so this checks the original-case convention through the extension:
/// only languages that name classes after files use it.
fn name_has_camel_suffix(name: &str) -> bool {
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    matches!(
        ext,
        "java" | "kt" | "kts" | "scala" | "cs" | "swift" | "groovy" | "php" | "fs" | "vb" | "m"
    )
}

/// True for a script or style sheet named after a release of a library (`jquery-3.5.1.js`,
/// `underscore-1.13.1.min.js`, `bootstrap.4.6.css`): a copy of someone else's code kept
/// beside the project's, by the web's naming convention for vendored assets.
fn is_release_copy(stem: &str, ext: &str) -> bool {
    if !matches!(ext, "js" | "mjs" | "cjs" | "css") {
        return false;
    }
    let stem = stem
        .strip_suffix(".min")
        .or_else(|| stem.strip_suffix(".slim"))
        .unwrap_or(stem);
    // The version: at least two dot-separated numbers after the name and a separator.
    let Some(at) = stem.rfind(|c: char| !(c.is_ascii_digit() || c == '.')) else {
        return false;
    };
    let tail = &stem[at + 1..];
    let version = tail.strip_prefix('.').unwrap_or(tail);
    let named =
        at > 0 && (tail.starts_with('.') || matches!(stem.as_bytes()[at], b'-' | b'_' | b'v'));
    named && version.split('.').count() >= 2 && version.split('.').all(|p| !p.is_empty())
}

/// True for generated-code naming conventions.
fn is_generated_name(name: &str) -> bool {
    name.ends_with("_pb2.py")
        || name.ends_with("_pb2_grpc.py")
        || name.ends_with(".pb.go")
        || name.ends_with(".pb.cc")
        || name.ends_with(".pb.h")
        || name.contains(".generated.")
        || name.contains(".g.")
        || name.ends_with(".designer.cs")
        || name.ends_with("_generated.go")
        || name.ends_with(".min.js")
}

/// The role of the file at `rel` (root-relative, `/`-separated), from its folders, name and
/// extension. Folder roles win over the extension (a Markdown file in `tests/` is a test
/// file's data), the innermost telling folder over outer ones.
pub fn role_of(rel: &str) -> Role {
    let lower = rel.to_ascii_lowercase();
    let (dirs, name) = match lower.rsplit_once('/') {
        Some((d, n)) => (d, n),
        None => ("", lower.as_str()),
    };
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() => (s, e),
        _ => (name, ""),
    };
    if is_generated_name(name) {
        return Role::Generated;
    }
    if is_release_copy(stem, ext) {
        return Role::Vendored;
    }
    let mut dir_role: Option<Role> = None;
    // `_examples/`, `__tests__/`, `.benchmarks/`: a leading or trailing `_` or `.` hides a
    // folder from a build tool (Go ignores `_x/`) but does not change what it holds.
    for d in dirs
        .split('/')
        .map(|d| d.trim_matches(['_', '.']))
        .filter(|d| !d.is_empty())
    {
        let r = if is_fixture_dir(d) {
            Some(Role::Fixture)
        } else if is_test_dir(d) {
            Some(Role::Test)
        } else if is_vendored_dir(d) {
            Some(Role::Vendored)
        } else if is_example_dir(d) {
            Some(Role::Example)
        } else if is_docs_dir(d) {
            Some(Role::Docs)
        } else if is_template_dir(d) {
            Some(Role::Template)
        } else if is_legacy_dir(d) {
            Some(Role::Legacy)
        } else {
            None
        };
        // Test data under a test folder stays test data; otherwise the outermost telling
        // folder decides (`tests/legacy/x.py` is a test, `legacy/tests/x.py` too).
        match (dir_role, r) {
            (None, Some(r)) => dir_role = Some(r),
            (Some(Role::Test), Some(Role::Fixture)) => dir_role = Some(Role::Fixture),
            (Some(Role::Legacy), Some(r @ (Role::Test | Role::Fixture))) => dir_role = Some(r),
            _ => {}
        }
    }
    let ext_role = role_of_extension(ext);
    // gettext's folder of a locale's catalogs: whatever their format (`.po`, `.mo`, a
    // catalog compiled to `.js`), the user-facing messages again, in another language.
    if dirs.split('/').any(|d| d == "lc_messages") {
        return Role::Docs;
    }
    if is_test_name(name, stem) {
        return match ext_role {
            Some(_) => Role::Fixture,
            None => Role::Test,
        };
    }
    match dir_role {
        Some(Role::Test) if ext_role.is_some() => Role::Fixture,
        Some(r) => r,
        None if ext_role.is_none() && is_project_prose(stem, ext) => Role::Docs,
        None if ext_role.is_none() && is_declaration_name(name) => Role::Declarations,
        None if ext_role.is_none() && is_tool_config(stem, ext) => Role::Config,
        // A run-commands file: `pylintrc`, `.npmrc`, `.vimrc` (no extension, named `…rc`).
        None if ext.is_empty() && stem.len() >= 4 && stem.ends_with("rc") => Role::Config,
        None => ext_role.unwrap_or(Role::Source),
    }
}

/// Whether the file at `rel` is one of the prose files a project keeps beside its code under a
/// conventional name ([`is_project_prose`]): its change log, licence or credits.
/// Also under a prose extension (`CHANGELOG.md`, `HISTORY.rst`, `NEWS.txt`), except the
/// README: the project's documentation proper.
pub fn is_project_prose_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel).to_ascii_lowercase();
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() => (s, e),
        _ => (name.as_str(), ""),
    };
    is_project_prose(stem, ext)
        || (stem != "readme"
            && PROSE_NAMES.contains(&stem)
            && matches!(ext, "md" | "markdown" | "rst" | "txt" | "adoc" | "rdoc"))
}

/// The conventional names of a project's own prose files ([`is_project_prose`]).
const PROSE_NAMES: &[&str] = &[
    "changes",
    "changelog",
    "news",
    "history",
    "license",
    "licence",
    "copying",
    "notice",
    "authors",
    "contributors",
    "thanks",
    "readme",
];

/// Words that ask for a project's own prose files (its change log, licence, credits): the
/// other docs words ("docs", "documentation") ask for its documentation, not for these.
const PROSE_WORDS: &[&str] = &[
    "changelog",
    "license",
    "licence",
    "licensing",
    "copying",
    "authors",
    "contributors",
];

/// Whether `text` asks for a project's own prose files by one of [`PROSE_WORDS`].
pub fn asks_project_prose(text: &str) -> bool {
    crate::retrieve::tokenize::has_word(text, PROSE_WORDS)
}

/// Whether a file (lowercase stem and extension) is one of the prose files a project keeps
/// beside its code under a conventional name, often without an extension: its change log
/// (`CHANGES`, `ChangeLog`, `NEWS`, `HISTORY`), its licence (`LICENSE`, `COPYING`, `NOTICE`),
/// its credits (`AUTHORS`, `CONTRIBUTORS`). A change log repeats the words of every bug ever
/// fixed, so a bug report matches it better than the code it is about.
fn is_project_prose(stem: &str, ext: &str) -> bool {
    const NAMES: &[&str] = PROSE_NAMES;
    // `LICENSE-APACHE`, `COPYING.LIB`, `LICENSE.MIT`: a licence named after itself.
    let licence = |s: &str| {
        ["license", "licence", "copying"]
            .iter()
            .any(|l| s.strip_prefix(l).is_some_and(|r| r.starts_with(['-', '_'])))
    };
    match ext {
        "" => NAMES.contains(&stem) || licence(stem),
        // `CHANGES.old`, `NEWS.1`, `HISTORY.v2`: an older part of the same prose, under a
        // suffix that is no language's extension (`history.ts` is code).
        _ if NAMES.contains(&stem)
            && crate::retrieve::index::chunk::language(&format!("x.{ext}")).is_none() =>
        {
            true
        }
        "mit" | "apache" | "bsd" | "gpl" | "lgpl" | "lib" => {
            matches!(stem, "license" | "licence" | "copying")
        }
        _ => false,
    }
}

/// Whether a file name (lowercase) is a TypeScript declaration file: `.d.ts`, `.d.mts`,
/// `.d.cts`. Not a Python stub (`.pyi`): most describe a compiled module, and are the only
/// Python text of its API.
fn is_declaration_name(name: &str) -> bool {
    name.ends_with(".d.ts") || name.ends_with(".d.mts") || name.ends_with(".d.cts")
}

/// The role of the file at `rel` with text `text`: [`role_of`], and a source file that only
/// declares types ([`declares_only`]) is [`Role::Declarations`].
pub fn role_of_text(rel: &str, text: &str) -> Role {
    match role_of(rel) {
        Role::Source if declares_only(rel, text) => Role::Declarations,
        r => r,
    }
}

/// Whether `text`, the text of a TypeScript module at `rel`, declares types and nothing
/// else: at least one top-level `interface`, `type X =` or `declare`, and no top-level
/// function, class, variable, statement or re-export of values (`export { a } from`, `export
/// *`: a barrel is the entry point of the code it re-exports, even one that augments a
/// module's types). Imports, type re-exports (`export type { A } from`), enums (a value as
/// much as a type), comments and the lines inside a declaration (indented, or starting with
/// punctuation: `}`, `|`...) count neither way.
fn declares_only(rel: &str, text: &str) -> bool {
    use crate::syntax::Lang;
    if !matches!(Lang::from_path(rel), Some(Lang::TypeScript | Lang::Tsx)) {
        return false;
    }
    let mut declared = false;
    for line in text.lines() {
        let Some(first) = line.chars().next() else {
            continue;
        };
        if !(first.is_alphanumeric() || first == '_' || first == '$') {
            continue;
        }
        let l = line.strip_prefix("export ").unwrap_or(line).trim_start();
        if let Some(value) = l.strip_prefix("default ") {
            // `export default interface X`: a declaration; any other default is a value.
            if value.trim_start().starts_with("interface ") {
                declared = true;
                continue;
            }
            return false;
        }
        let head = &l[..l
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
            .unwrap_or(l.len())];
        let rest = l[head.len()..].trim_start();
        match head {
            "import" | "enum" => {}
            "interface" | "declare" => declared = true,
            "const" if rest.starts_with("enum ") => {}
            // `export type { A } from`, `export type * from`: re-exports.
            "type" if rest.starts_with('{') || rest.starts_with('*') => {}
            "type" => declared = true,
            // `export {}`: makes a file of global declarations a module.
            "" if l
                .strip_prefix('{')
                .is_some_and(|r| r.trim_start().starts_with('}')) => {}
            _ => return false,
        }
    }
    declared
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_role_is_listed_at_its_position() {
        for (k, r) in Role::ALL.iter().enumerate() {
            assert_eq!(r.position(), k, "{}", r.as_str());
        }
    }

    #[test]
    fn change_logs_licences_and_catalogs_are_prose() {
        for rel in [
            "CHANGES",
            "ChangeLog",
            "NEWS",
            "LICENSE",
            "LICENSE-APACHE",
            "COPYING.LIB",
            "pkg/AUTHORS",
            "locale/fr/LC_MESSAGES/django.po",
            "po/messages.pot",
            "CHANGES.old",
            "NEWS.1",
        ] {
            assert_eq!(role_of(rel), Role::Docs, "{rel}");
        }
        for rel in [
            "src/license.py",
            "lib/changes.rb",
            "src/history.ts",
            "news/feed.go",
        ] {
            assert_eq!(role_of(rel), Role::Source, "{rel}");
        }
    }

    #[test]
    fn change_logs_are_asked_for_by_name() {
        for rel in [
            "CHANGES",
            "CHANGES.old",
            "HISTORY.md",
            "docs/CHANGELOG.rst",
            "LICENSE",
        ] {
            assert!(is_project_prose_file(rel), "{rel}");
        }
        for rel in [
            "README.md",
            "docs/guide.md",
            "src/history.ts",
            "lib/changes.rb",
        ] {
            assert!(!is_project_prose_file(rel), "{rel}");
        }
        assert!(Wanted::of_text("add a changelog entry").prose);
        assert!(Wanted::of_text("update the LICENSE year").prose);
        let docs = Wanted::of_text("the docs are wrong about retries");
        assert!(docs.docs && !docs.prose);
    }

    #[test]
    fn role_words_name_their_group() {
        assert_eq!(
            role_words("pytest fixtures break the docs build"),
            [
                ("pytest".to_owned(), 0),
                ("fixtur".to_owned(), 0),
                ("doc".to_owned(), 1)
            ]
        );
        assert!(role_words("how are routes registered").is_empty());
        let mut w = Wanted::default();
        w.set(1, true);
        assert!(w.asks(Role::Docs) && !w.asks(Role::Test));
        w.set(0, true);
        assert!(w.asks(Role::Fixture));
    }

    #[test]
    fn typescript_modules_that_only_declare_types() {
        let declarations = [
            "import type { A } from './a'\n\nexport interface Options {\n  a: A\n}\n",
            "/** Docs. */\nexport type Mode = 'a'\n  | 'b'\n\ndeclare global {\n  var x: number\n}\n",
            "export default interface Props {\n  id: string\n}\nexport type { Other } from './other'\n",
            "export {}\n\ndeclare global {\n  interface Window {\n    app: App\n  }\n}\n",
            "export enum Kind { A }\nexport interface Node {\n  kind: Kind\n}\n",
        ];
        for text in declarations {
            assert_eq!(
                role_of_text("src/types/options.ts", text),
                Role::Declarations,
                "{text}"
            );
        }
        let not = [
            // A barrel re-exports; it declares nothing.
            "export type { B } from './b'\n",
            // A barrel of values is code, also when it augments a module's types.
            "export { a } from './a'\ndeclare module '..' {\n  interface Map extends A {}\n}\n",
            "export * from './c'\nexport interface A {}\n",
            "export interface Options {}\nexport function make(): Options {\n  return {}\n}\n",
            "export interface Options {}\nexport const defaults: Options = {}\n",
            "export type Handler = () => void\nexport default {}\n",
            "export interface A {}\nexport abstract class B {}\n",
            "export interface A {}\nregister('a')\n",
            "export enum Kind { A, B }\n",
            "",
        ];
        for text in not {
            assert_eq!(
                role_of_text("src/types/options.ts", text),
                Role::Source,
                "{text}"
            );
        }
        // Only TypeScript, and only a file that is source by its path.
        let interfaces = "export interface A {}\n";
        assert_eq!(role_of_text("src/a.js", interfaces), Role::Source);
        assert_eq!(role_of_text("src/a.tsx", interfaces), Role::Declarations);
        assert_eq!(role_of_text("test/a.ts", interfaces), Role::Test);
        assert_eq!(role_of("types/index.d.ts"), Role::Declarations);
        assert_eq!(role_of("python/core.pyi"), Role::Source);
    }

    #[test]
    fn a_prompt_about_types_wants_declarations() {
        let wants = |p: &str| Wanted::of_text(p).types;
        assert!(wants("reducer type definitions"));
        assert!(wants("the Options interface"));
        assert!(wants("vitest configuration options"));
        assert!(wants("action types"));
        assert!(!wants("how middleware is composed"));
        // A type, singular, is a kind of value; `Content-Type` is a header.
        assert!(!wants("runtime type identification utility"));
        assert!(!wants(
            "fix(headers): fixed the Content-Type header for FormData"
        ));
        assert_eq!(Role::Declarations.factor(Wanted::default()), DECLARATIONS);
        let types = Wanted {
            types: true,
            ..Wanted::default()
        };
        assert_eq!(Role::Declarations.factor(types), DECLARATIONS_WANTED);
    }

    #[test]
    fn roles_from_structure() {
        let cases = [
            ("src/router.ts", Role::Source),
            ("lib/rack/request.rb", Role::Source),
            ("astropy/io/fits/tests/test_core.py", Role::Test),
            ("pkg/server/server_test.go", Role::Test),
            ("src/app.spec.ts", Role::Test),
            ("src/__tests__/app.ts", Role::Test),
            ("src/test/java/org/x/FooTest.java", Role::Test),
            ("Dapper.Tests/SqlMapperTests.cs", Role::Test),
            ("conftest.py", Role::Test),
            ("tests/fixtures/a.py", Role::Fixture),
            ("tests/data/config.json", Role::Fixture),
            ("crates/x/testdata/input.rs", Role::Fixture),
            ("README.md", Role::Docs),
            ("docs/guide/routing.py", Role::Docs),
            ("examples/hello.rs", Role::Example),
            ("benches/bench.rs", Role::Example),
            ("_examples/rest/main.go", Role::Example),
            ("src/__mocks__/fs.ts", Role::Fixture),
            ("Cargo.toml", Role::Config),
            ("config.json", Role::Config),
            // Build and lint tools' configuration scripts.
            ("vite.config.ts", Role::Config),
            ("karma.conf.cjs", Role::Config),
            ("packages/web/webpack.config.prod.js", Role::Config),
            (".eslintrc.cjs", Role::Config),
            ("gulpfile.js", Role::Config),
            ("Gruntfile.js", Role::Config),
            ("src/config.ts", Role::Source),
            ("src/config/index.ts", Role::Source),
            ("lib/app.configure.js", Role::Source),
            ("examples/vite.config.ts", Role::Example),
            ("pydantic/v1/fields.py", Role::Legacy),
            ("src/compat/io.py", Role::Legacy),
            ("third_party/zlib/inflate.c", Role::Vendored),
            ("api/service_pb2.py", Role::Generated),
            ("Dapper/CommandDefinition.tt", Role::Template),
            ("templates/page.html", Role::Template),
            ("src/tools/langref.html.in", Role::Template),
            ("config.h.in", Role::Template),
            // Not fooled by words inside names.
            ("src/testing_utils_helper.rs", Role::Source),
            ("src/contest.py", Role::Source),
            ("src/latest.ts", Role::Source),
            ("lib/v8_bridge.c", Role::Source),
            // A library's release copied in: named with its version.
            ("sphinx/themes/basic/static/jquery-3.5.1.js", Role::Vendored),
            ("static/underscore-1.13.1.js", Role::Vendored),
            ("css/bootstrap.4.6.css", Role::Vendored),
            ("src/sha1.js", Role::Source),
            ("src/utf-8.js", Role::Source),
            ("lib/es2015.js", Role::Source),
            ("src/http2.ts", Role::Source),
            // gettext catalogs in any format, run-commands files.
            ("sphinx/locale/da/LC_MESSAGES/sphinx.js", Role::Docs),
            ("locale/fr/LC_MESSAGES/app.mo", Role::Docs),
            ("pylintrc", Role::Config),
            (".npmrc", Role::Config),
            ("src/rc", Role::Source),
            ("lib/src", Role::Source),
        ];
        for (path, want) in cases {
            assert_eq!(role_of(path), want, "{path}");
        }
    }

    #[test]
    fn prompts_ask_for_roles() {
        let w = Wanted::of_text("fix failing test");
        assert!(w.tests && !w.docs);
        assert_eq!(Role::Test.factor(w), 1.0);
        let none = Wanted::default();
        assert!(Role::Test.factor(none) < 1.0);
        assert!(Role::Docs.factor(Wanted::of_text("update the README")) == 1.0);
        assert!(Wanted::of_text("examples").examples);
        assert!(Wanted::of_text("testing the parser").tests);
        assert_eq!(Role::Source.factor(none), 1.0);
    }
}
