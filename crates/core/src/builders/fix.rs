//! The context of a fix agent (the context-builder spec's `build_fix_context`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::{fit_file, BuildOptions, Metadata, Repo, ValidationOutput};

/// Source files included at most (the files asked for first, then those named by errors).
pub const MAX_SOURCE_FILES: usize = 50;

/// Distinct paths (from `files` and the errors) resolved at most.
pub const MAX_RESOLVED: usize = 1000;

/// Error lines per file used to choose the kept lines at most.
pub const MAX_ERROR_LINES_PER_FILE: usize = 100;

/// The validation input of [`build_fix_context`]: structured stages, or raw tool output.
#[derive(Debug, Clone)]
pub enum FixSource {
    /// Stages with their errors (or raw output).
    Structured(ValidationOutput),
    /// The raw output of one or more tools, parsed with
    /// [`parse_validation_output`](super::parse_validation_output).
    Raw(String),
}

/// What [`build_fix_context`] returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixContext {
    /// One line per problem: `[stage] file:line:col: severity[code]: message (tool)`; empty
    /// when there are none.
    pub errors: String,
    /// Source of each file, by repository-relative path: whole under 500 lines, otherwise at
    /// least 10 lines around each error line, overlapping windows merged.
    pub source_files: BTreeMap<String, String>,
    /// One sentence: how many errors and warnings in how many files, per stage.
    pub error_summary: String,
    /// Present when anything was truncated, missing, skipped or suspicious.
    pub metadata: Option<Metadata>,
}

/// Builds the fix context: the problems of `validation`, and the source of `files` plus the
/// files the problems name, each shortened around its error lines.
///
/// `repo_path` is the root every path is resolved in (paths in errors are relative to it or
/// absolute inside it); paths outside it are ignored with a warning. Errors only when
/// `repo_path` is not an absolute directory (`invalid_request`).
pub async fn build_fix_context(
    validation: FixSource,
    files: &[String],
    repo_path: &Path,
    options: &BuildOptions,
) -> crate::Result<FixContext> {
    let repo = Repo::open(repo_path, options)?;
    let mut meta = Metadata::default();
    let errors = match validation {
        FixSource::Structured(v) => v.all_errors(),
        FixSource::Raw(text) => super::parse_validation_output(&text)
            .into_iter()
            .map(|e| (String::new(), e))
            .collect(),
    };

    // Files in order: those asked for, then those the errors name (first mention first).
    // At most MAX_RESOLVED distinct spellings are resolved, so a list of 100,000 paths costs
    // no more than a list of a thousand.
    let mut order: Vec<String> = Vec::new();
    let mut in_order: BTreeSet<String> = BTreeSet::new();
    let mut by_file: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut rel_of: BTreeMap<&str, Option<String>> = BTreeMap::new();
    let mut unresolved = 0usize;
    let wanted = files.iter().map(|f| (f.as_str(), None)).chain(
        errors
            .iter()
            .filter_map(|(_, e)| Some((e.file.as_deref()?, e.line))),
    );
    for (path, line) in wanted {
        let rel = match rel_of.get(path) {
            Some(known) => known.clone(),
            None if rel_of.len() >= MAX_RESOLVED => {
                unresolved += 1;
                None
            }
            None => {
                let rel = repo.resolve_user_path(path, &mut meta).map(|r| r.rel);
                rel_of.insert(path, rel.clone());
                rel
            }
        };
        let Some(rel) = rel else {
            continue;
        };
        if in_order.insert(rel.clone()) {
            order.push(rel.clone());
        }
        if let Some(line) = line {
            let lines = by_file.entry(rel).or_default();
            if lines.len() < MAX_ERROR_LINES_PER_FILE {
                lines.push(line);
            }
        }
    }
    if unresolved > 0 {
        // First, so that the cap on warnings never hides it.
        meta.warnings.insert(0, format!(
            "only the first {MAX_RESOLVED} distinct paths were looked at; {unresolved} more mentions were left out"
        ));
    }

    let mut source_files = BTreeMap::new();
    for (i, rel) in order.iter().enumerate() {
        if i == MAX_SOURCE_FILES {
            meta.warn(format!(
                "only the first {MAX_SOURCE_FILES} source files are included"
            ));
            meta.skipped_files.extend(order[i..].iter().cloned());
            break;
        }
        let Ok(resolved) = repo.scope.resolve(rel) else {
            continue;
        };
        let Some(text) = repo.read(&resolved, &mut meta) else {
            continue;
        };
        let lines = by_file.get(rel).map_or(&[][..], Vec::as_slice);
        let content = fit_file("source_files", rel, &text, lines, &mut meta);
        source_files.insert(rel.clone(), content);
    }

    // Tool output can print a secret too (an assertion on a token, a config dump).
    let errors_text = repo.redact(&mut meta, "the errors", format_errors(&errors));
    Ok(FixContext {
        errors: errors_text,
        error_summary: summarize(&errors),
        source_files,
        metadata: meta.into_option(),
    })
}

fn format_errors(errors: &[(String, super::ParsedError)]) -> String {
    let mut out = String::new();
    for (stage, e) in errors {
        if !stage.is_empty() {
            out.push_str(&format!("[{stage}] "));
        }
        if let Some(file) = &e.file {
            out.push_str(file);
            if let Some(line) = e.line {
                out.push_str(&format!(":{line}"));
                if let Some(col) = e.column {
                    out.push_str(&format!(":{col}"));
                }
            }
            out.push_str(": ");
        }
        out.push_str(e.severity.as_str());
        if let Some(code) = &e.code {
            out.push_str(&format!("[{code}]"));
        }
        out.push_str(": ");
        out.push_str(&e.message);
        if let Some(tool) = &e.tool {
            out.push_str(&format!(" ({tool})"));
        }
        out.push('\n');
    }
    out
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

fn summarize(errors: &[(String, super::ParsedError)]) -> String {
    use super::Severity;
    if errors.is_empty() {
        return "No errors.".to_owned();
    }
    let count = |s: Severity| errors.iter().filter(|(_, e)| e.severity == s).count();
    let mut files: Vec<&str> = errors
        .iter()
        .filter_map(|(_, e)| e.file.as_deref())
        .collect();
    files.sort_unstable();
    files.dedup();
    let mut parts = vec![plural(count(Severity::Error), "error")];
    let warnings = count(Severity::Warning);
    if warnings > 0 {
        parts.push(plural(warnings, "warning"));
    }
    let notes = count(Severity::Note);
    if notes > 0 {
        parts.push(plural(notes, "note"));
    }
    let mut summary = format!("{} in {}", parts.join(", "), plural(files.len(), "file"));
    let mut stages: Vec<(&str, usize)> = Vec::new();
    for (stage, _) in errors {
        if stage.is_empty() {
            continue;
        }
        match stages.iter_mut().find(|(s, _)| s == stage) {
            Some((_, n)) => *n += 1,
            None => stages.push((stage, 1)),
        }
    }
    if !stages.is_empty() {
        let list: Vec<String> = stages.iter().map(|(s, n)| format!("{s}: {n}")).collect();
        summary.push_str(&format!(" ({})", list.join(", ")));
    }
    summary.push('.');
    summary
}
