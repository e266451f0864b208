//! The language table: the one place that maps file extensions and file names to languages,
//! and says for each language how it is named, how its comments look and how its test files
//! are recognised. The grammars are named in [`super::grammars`]; what a definition is, per
//! grammar, in [`super::defs`].

use std::path::Path;

/// A language with a tree-sitter grammar compiled in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lang {
    /// TypeScript (`.ts`, `.mts`, `.cts`).
    TypeScript,
    /// TypeScript with JSX (`.tsx`).
    Tsx,
    /// JavaScript, including JSX (`.js`, `.mjs`, `.cjs`, `.jsx`).
    JavaScript,
    /// Python (`.py`, `.pyi`, `.pyw`).
    Python,
    /// Rust (`.rs`).
    Rust,
    /// Go (`.go`).
    Go,
    /// Bash and POSIX shell (`.sh`, `.bash`, `.zsh`, `.bats`).
    Bash,
    /// C (`.c`, `.h`).
    C,
    /// C++ (`.cc`, `.cpp`, `.cxx`, `.hpp`, `.hh`, `.hxx`, ...).
    Cpp,
    /// C# (`.cs`).
    CSharp,
    /// Elixir (`.ex`, `.exs`).
    Elixir,
    /// Haskell (`.hs`).
    Haskell,
    /// Java (`.java`).
    Java,
    /// Kotlin (`.kt`, `.kts`).
    Kotlin,
    /// Lua (`.lua`).
    Lua,
    /// PHP (`.php`).
    Php,
    /// Ruby (`.rb`, `Rakefile`, `Gemfile`, ...).
    Ruby,
    /// Scala (`.scala`, `.sc`).
    Scala,
    /// Solidity (`.sol`).
    Solidity,
    /// Swift (`.swift`).
    Swift,
    /// Zig (`.zig`).
    Zig,
}

/// Number of languages in [`Lang::ALL`].
pub const LANG_COUNT: usize = 21;

/// What the registry knows about one language besides its grammar.
#[derive(Debug)]
pub struct LangInfo {
    /// Canonical lower-case name.
    pub name: &'static str,
    /// Other names editors and tools use (lower-case).
    pub aliases: &'static [&'static str],
    /// File extensions, lower-case, without the dot.
    pub extensions: &'static [&'static str],
    /// Whole file names (case-sensitive) that are this language whatever their extension.
    pub file_names: &'static [&'static str],
    /// Line-comment openers.
    pub line_comments: &'static [&'static str],
    /// Block-comment delimiters, if the language has them.
    pub block_comment: Option<(&'static str, &'static str)>,
    /// File-name endings of test files by this language's convention (`_test.go`,
    /// `Test.java`), case-sensitive.
    pub test_suffixes: &'static [&'static str],
    /// File-name beginnings of test files by this language's convention (`test_`).
    pub test_prefixes: &'static [&'static str],
}

const C_COMMENTS: (&[&str], Option<(&str, &str)>) = (&["//"], Some(("/*", "*/")));

const fn info(
    name: &'static str,
    aliases: &'static [&'static str],
    extensions: &'static [&'static str],
    file_names: &'static [&'static str],
    comments: (
        &'static [&'static str],
        Option<(&'static str, &'static str)>,
    ),
    test_suffixes: &'static [&'static str],
    test_prefixes: &'static [&'static str],
) -> LangInfo {
    LangInfo {
        name,
        aliases,
        extensions,
        file_names,
        line_comments: comments.0,
        block_comment: comments.1,
        test_suffixes,
        test_prefixes,
    }
}

const JS_TESTS: &[&str] = &[
    ".test.ts",
    ".spec.ts",
    ".test.tsx",
    ".spec.tsx",
    ".test.js",
    ".spec.js",
    ".test.jsx",
    ".spec.jsx",
    ".test.mjs",
    ".spec.mjs",
    ".test.cjs",
    ".spec.cjs",
    ".test.mts",
    ".spec.mts",
];

/// The table, in [`Lang::ALL`] order.
static TABLE: [LangInfo; LANG_COUNT] = [
    info(
        "typescript",
        &["ts"],
        &["ts", "mts", "cts"],
        &[],
        C_COMMENTS,
        JS_TESTS,
        &[],
    ),
    info(
        "tsx",
        &["typescriptreact"],
        &["tsx"],
        &[],
        C_COMMENTS,
        JS_TESTS,
        &[],
    ),
    info(
        "javascript",
        &["js", "jsx", "javascriptreact", "ecmascript", "node"],
        &["js", "mjs", "cjs", "jsx"],
        &[],
        C_COMMENTS,
        JS_TESTS,
        &[],
    ),
    info(
        "python",
        &["py", "python3"],
        &["py", "pyi", "pyw"],
        &["SConstruct", "SConscript"],
        (&["#"], None),
        &["_test.py", "_tests.py"],
        &["test_"],
    ),
    info(
        "rust",
        &["rs"],
        &["rs"],
        &[],
        C_COMMENTS,
        &["_test.rs", "_tests.rs"],
        &[],
    ),
    info(
        "go",
        &["golang"],
        &["go"],
        &[],
        C_COMMENTS,
        &["_test.go"],
        &[],
    ),
    info(
        "bash",
        &["sh", "shell", "zsh", "shellscript"],
        &["sh", "bash", "zsh", "ksh", "bats"],
        &[".bashrc", ".bash_profile", ".zshrc", ".profile"],
        (&["#"], None),
        &[".bats", "_test.sh"],
        &["test_", "test-"],
    ),
    info(
        "c",
        &[],
        &["c", "h"],
        &[],
        C_COMMENTS,
        &["_test.c", "_unittest.c"],
        &["test_"],
    ),
    info(
        "cpp",
        &["c++", "cxx", "cc"],
        &[
            "cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp", "tpp", "inl",
        ],
        &[],
        C_COMMENTS,
        &[
            "_test.cc",
            "_test.cpp",
            "_unittest.cc",
            "_unittest.cpp",
            "_tests.cpp",
        ],
        &["test_"],
    ),
    info(
        "csharp",
        &["c#", "cs"],
        &["cs", "csx"],
        &[],
        C_COMMENTS,
        &["Tests.cs", "Test.cs"],
        &[],
    ),
    info(
        "elixir",
        &["ex", "exs"],
        &["ex", "exs"],
        &[],
        (&["#"], None),
        &["_test.exs"],
        &[],
    ),
    info(
        "haskell",
        &["hs"],
        &["hs", "hs-boot"],
        &[],
        (&["--"], Some(("{-", "-}"))),
        &["Spec.hs", "Test.hs"],
        &[],
    ),
    info(
        "java",
        &[],
        &["java"],
        &[],
        C_COMMENTS,
        &["Test.java", "Tests.java", "IT.java"],
        &[],
    ),
    info(
        "kotlin",
        &["kt", "kts"],
        &["kt", "kts"],
        &[],
        C_COMMENTS,
        &["Test.kt", "Tests.kt", "Spec.kt"],
        &[],
    ),
    info(
        "lua",
        &[],
        &["lua"],
        &[],
        (&["--"], Some(("--[[", "]]"))),
        &["_spec.lua", "_test.lua"],
        &["test_"],
    ),
    info(
        "php",
        &[],
        &["php", "phtml", "php3", "php4", "php5", "phpt"],
        &[],
        (&["//", "#"], Some(("/*", "*/"))),
        &["Test.php"],
        &[],
    ),
    info(
        "ruby",
        &["rb"],
        &["rb", "rake", "gemspec", "ru"],
        &[
            "Rakefile",
            "Gemfile",
            "Guardfile",
            "Podfile",
            "Vagrantfile",
            "Fastfile",
        ],
        (&["#"], Some(("=begin", "=end"))),
        &["_spec.rb", "_test.rb"],
        &["test_"],
    ),
    info(
        "scala",
        &[],
        &["scala", "sc"],
        &[],
        C_COMMENTS,
        &["Spec.scala", "Test.scala", "Suite.scala", "Tests.scala"],
        &[],
    ),
    // Foundry's tests are `Name.t.sol` (beside `test/`, a test directory already).
    info(
        "solidity",
        &["sol"],
        &["sol"],
        &[],
        C_COMMENTS,
        &[".t.sol"],
        &[],
    ),
    info(
        "swift",
        &[],
        &["swift"],
        &[],
        C_COMMENTS,
        &["Tests.swift", "Test.swift"],
        &[],
    ),
    info(
        "zig",
        &[],
        &["zig"],
        &[],
        (&["//"], None),
        &["_test.zig"],
        &[],
    ),
];

/// File kinds without a grammar, by extension (lower-case): named for display and for the
/// chunkers (prose, `markdown`, `rst` and `text`, is cut at headings, never at definitions).
const OTHER_KINDS: &[(&str, &[&str])] = &[
    ("markdown", &["md", "markdown", "mdx"]),
    ("rst", &["rst"]),
    ("text", &["txt"]),
    ("json", &["json"]),
    ("yaml", &["yml", "yaml"]),
    ("toml", &["toml"]),
    ("html", &["html", "htm"]),
    ("css", &["css", "scss", "less"]),
    ("vue", &["vue"]),
    ("svelte", &["svelte"]),
    ("sql", &["sql"]),
    ("dart", &["dart"]),
];

/// The language of a file by its name, for display and for the chunkers: a grammar language's
/// canonical name ([`Lang::as_str`]), else a kind of file without a grammar (`markdown`,
/// `json`, `yaml`, `css`, ...), else `None`.
pub fn language_name(path: &str) -> Option<&'static str> {
    if let Some(lang) = Lang::from_path(path) {
        return Some(lang.as_str());
    }
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
    OTHER_KINDS
        .iter()
        .find(|(_, exts)| exts.contains(&ext.as_str()))
        .map(|&(kind, _)| kind)
}

/// Directory names that hold tests by the conventions of most languages.
const TEST_DIRS: &[&str] = &[
    "test",
    "tests",
    "__tests__",
    "spec",
    "specs",
    "testing",
    "testdata",
];

impl Lang {
    /// Every supported language.
    pub const ALL: [Lang; LANG_COUNT] = [
        Lang::TypeScript,
        Lang::Tsx,
        Lang::JavaScript,
        Lang::Python,
        Lang::Rust,
        Lang::Go,
        Lang::Bash,
        Lang::C,
        Lang::Cpp,
        Lang::CSharp,
        Lang::Elixir,
        Lang::Haskell,
        Lang::Java,
        Lang::Kotlin,
        Lang::Lua,
        Lang::Php,
        Lang::Ruby,
        Lang::Scala,
        Lang::Solidity,
        Lang::Swift,
        Lang::Zig,
    ];

    /// What the registry knows about this language.
    pub fn info(self) -> &'static LangInfo {
        &TABLE[self.index()]
    }

    /// The language of a file by its name or extension (case-insensitive), if supported.
    pub fn from_path(path: impl AsRef<Path>) -> Option<Lang> {
        // The last name after either separator, on every host, so that `src\Rakefile` is
        // Ruby on Linux as on Windows.
        let path = path.as_ref().to_str()?;
        let name = path.rsplit(['/', '\\']).next().filter(|n| !n.is_empty())?;
        if let Some(lang) = Lang::ALL
            .into_iter()
            .find(|l| l.info().file_names.contains(&name))
        {
            return Some(lang);
        }
        let (_, ext) = name.rsplit_once('.')?;
        let ext = ext.to_ascii_lowercase();
        Lang::ALL
            .into_iter()
            .find(|l| l.info().extensions.contains(&ext.as_str()))
    }

    /// The language for a name as editors and chunkers spell it (`"typescript"`, `"ts"`,
    /// `"typescriptreact"`, `"golang"`, `"c++"`, `"c#"`...), case-insensitive.
    pub fn from_name(name: &str) -> Option<Lang> {
        let name = name.trim().to_ascii_lowercase();
        Lang::ALL
            .into_iter()
            .find(|l| l.info().name == name || l.info().aliases.contains(&name.as_str()))
    }

    /// The canonical lower-case name (`"typescript"`, `"tsx"`, `"cpp"`, `"csharp"`...).
    pub fn as_str(self) -> &'static str {
        self.info().name
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// True if `path` (`'/'`- or `'\\'`-separated, relative to a root) is a test file by the
/// conventions of its language (`foo_test.go`, `test_foo.py`, `FooTest.java`, `a.spec.ts`) or
/// lies under a test directory (`tests/`, `__tests__/`, `spec/`, `src/test/`).
pub fn is_test_path(path: &str) -> bool {
    let mut parts: Vec<&str> = path.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    let Some(name) = parts.pop() else {
        return false;
    };
    if parts
        .iter()
        .any(|d| TEST_DIRS.contains(&d.to_ascii_lowercase().as_str()))
    {
        return true;
    }
    let Some(lang) = Lang::from_path(name) else {
        return false;
    };
    let lower = name.to_ascii_lowercase();
    let info = lang.info();
    info.test_suffixes
        .iter()
        .any(|s| name.len() > s.len() && name.ends_with(s))
        || info
            .test_prefixes
            .iter()
            .any(|p| lower.len() > p.len() && lower.starts_with(p))
}
