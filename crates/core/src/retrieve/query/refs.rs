//! References between the top files, a re-ranking signal for longer prompts (a commit
//! message with its body, a bug report): a file that several of the best-ranked files import
//! is the module they are built on, and such a prompt's change or fault is more often in it
//! than in one of the files that merely use it (a bug report quoting the call site of
//! `fitsrec.py` names the words of its callers).
//!
//! Runs after the candidates are ranked and their texts read (it only reorders the top
//! [`REFERENCE_FILES`]): the import lines of the top [`REFERENCE_SOURCES`] files are read as
//! words, and each of the top files is counted as referenced by those whose import lines name
//! its module (its file name without extensions; the folder's name for a package entry such
//! as `__init__.py`, `index.ts` or `mod.rs`). A file referenced by n of them has its score
//! multiplied by (1 + n)^[`W_REFERENCE`].
//!
//! Measured on the DEV sets (the engine's ranked files and signals dumped by
//! `benches/rank-features.py`, the weight picked by `benches/rank-learn.py`, also leaving each
//! repository out; see BENCHMARKS.md): bug reports MRR 0.750 → 0.782 (DEV-issue) and 0.639
//! → 0.676 (the second bug-report set), commits MRR 0.738 → 0.742; one-line prompts are not
//! changed (on the semble questions the same lift did not pay).

use super::prompt::Query;
use super::rank::FileHit;
use crate::retrieve::index::Index;

/// The top files that may be lifted.
pub const REFERENCE_FILES: usize = 30;
/// The top files whose import lines are read.
const REFERENCE_SOURCES: usize = 10;
/// The exponent of 1 + the number of referencing files. Over all DEV sets, 0.1 is best, and
/// leaving one repository out picks it for 38 of 39; without the largest bug-report
/// repository the others pick 0.25, which costs that one R@10 (0.15 did too: 0.785 → 0.711).
pub(in crate::retrieve) const W_REFERENCE: f32 = 0.1;
/// How an import line starts (after its indentation), across languages.
const IMPORT_STARTS: &[&str] = &[
    "import ",
    "import{",
    "from ",
    "use ",
    "pub use ",
    "pub(crate) use ",
    "using ",
    "require",
    "include ",
    "#include",
    "# include",
    "@import",
    "extern crate ",
    "mod ",
    "pub mod ",
    "source ",
];
/// File stems of package entries: such a file is imported by its folder's name.
const ENTRY_STEMS: &[&str] = &["index", "__init__", "mod", "lib", "main", "init"];
/// Bytes of a file read for its import lines.
const MAX_IMPORT_BYTES: usize = 1024 * 1024;

/// Whether a prompt is re-ranked by references: more than one line.
pub fn wanted(query: &Query) -> bool {
    query.lines > 1
}

/// Whether `line` imports, includes or requires another module; `calls`: whether its file
/// holds `require(` or `import(` at all (most do not, and then no line is searched for them).
fn is_import(line: &str, calls: bool) -> bool {
    let t = line.trim_start();
    let Some(first) = t.bytes().next() else {
        return false;
    };
    (b"ifuprmse#@".contains(&first) && IMPORT_STARTS.iter().any(|s| t.starts_with(s)))
        || (first == b'e' && t.starts_with("export ") && t.contains(" from "))
        || (calls && (t.contains("require(") || t.contains("import(")))
}

/// The lowercase identifier words of the import lines of `text` (its first
/// [`MAX_IMPORT_BYTES`]), sorted and deduplicated.
fn import_words(text: &str) -> Vec<String> {
    let mut end = text.len().min(MAX_IMPORT_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let text = &text[..end];
    let calls = memchr::memmem::find(text.as_bytes(), b"require(").is_some()
        || memchr::memmem::find(text.as_bytes(), b"import(").is_some();
    let mut words: Vec<String> = Vec::new();
    for line in text.lines().filter(|l| is_import(l, calls)) {
        for w in line.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if w.is_empty() || w.starts_with(|c: char| c.is_ascii_digit()) {
                continue;
            }
            words.push(w.to_lowercase());
        }
    }
    words.sort_unstable();
    words.dedup();
    words
}

/// The name other files import `rel` by: its file name up to the first dot, lowercase; for a
/// package entry ([`ENTRY_STEMS`]) its folder's name.
fn module_name(rel: &str) -> String {
    let mut parts = rel.rsplit('/');
    let name = parts.next().unwrap_or(rel);
    let stem = name.split('.').next().unwrap_or(name).to_lowercase();
    if ENTRY_STEMS.contains(&stem.as_str()) {
        if let Some(dir) = parts.next().filter(|d| !d.is_empty()) {
            return dir.to_lowercase();
        }
    }
    stem
}

/// Lifts the top [`REFERENCE_FILES`] of `hits` (sorted, best first) that the import lines of
/// other top files name (see the module's documentation), records how many in their
/// signals, and sorts again (ties by path). Nothing for a one-line prompt.
pub fn references(index: &mut Index, query: &Query, hits: &mut [FileHit]) {
    if !wanted(query) || hits.len() < 2 {
        return;
    }
    let mut sources: Vec<(u32, Vec<String>)> = Vec::new();
    for hit in hits.iter().take(REFERENCE_SOURCES) {
        if let Some(text) = index.text(hit.file) {
            sources.push((hit.file, import_words(&text)));
        }
    }
    let mut moved = false;
    for hit in hits.iter_mut().take(REFERENCE_FILES) {
        let Some(meta) = index.files[hit.file as usize].as_ref() else {
            continue;
        };
        let name = module_name(&meta.rel);
        if name.is_empty() {
            continue;
        }
        let n = sources
            .iter()
            .filter(|(f, words)| *f != hit.file && words.binary_search(&name).is_ok())
            .count();
        if n == 0 {
            continue;
        }
        let factor = (1.0 + n as f32).powf(W_REFERENCE);
        hit.score *= factor;
        for c in &mut hit.chunks {
            c.1 *= factor;
        }
        hit.signals.total = hit.score;
        hit.signals.referenced_by = n as u32;
        hit.signals.reference_factor = factor;
        moved = true;
    }
    if moved {
        super::rank::sort_hits(index, hits);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn import_lines_of_several_languages() {
        let text = "from ._config import Timeout\nimport os\nuse crate::router::tree;\n\
                    #include \"urldata.h\"\nconst x = require('./utils/mime')\n\
                    export { a } from './adapter'\nx = config.timeout\n";
        let w = import_words(text);
        for name in [
            "_config", "timeout", "router", "tree", "urldata", "mime", "adapter",
        ] {
            assert!(w.binary_search(&name.to_string()).is_ok(), "{name}: {w:?}");
        }
        // Not an import line: its words are not counted.
        assert!(w.binary_search(&"config".to_string()).is_err());
    }

    #[test]
    fn a_package_entry_is_imported_by_its_folder_name() {
        assert_eq!(module_name("astropy/io/fits/fitsrec.py"), "fitsrec");
        assert_eq!(module_name("src/helper/index.ts"), "helper");
        assert_eq!(module_name("crates/core/src/lib.rs"), "src");
        assert_eq!(module_name("Cargo.toml"), "cargo");
        assert_eq!(module_name("src/utils/mime.test.ts"), "mime");
    }
}
