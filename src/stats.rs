//! `repoStats`: files, lines and bytes per language of the registry, over a directory or
//! files handed in (core: [`context_engine_core::stats`]).

use std::collections::BTreeMap;

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use super::{args, bridge};
use context_engine_core::error::Error as CoreError;
use context_engine_core::stats::{self, Counts, RepoStats as CoreStats};

/// Files, lines and bytes of one language.
#[napi(object, object_from_js = false)]
pub struct LanguageStats {
    /// Files.
    pub files: u32,
    /// Lines.
    pub lines: f64,
    /// Bytes.
    pub bytes: f64,
}

/// The answer to `repoStats`.
#[napi(object, object_from_js = false)]
pub struct RepoStats {
    /// Every file counted.
    pub files: u32,
    /// Lines of every file counted.
    pub lines: f64,
    /// Bytes of every file counted.
    pub bytes: f64,
    /// Files of the registry's languages, by language name (`rust`, `typescript`...).
    #[napi(ts_type = "Record<string, LanguageStats>")]
    pub languages: BTreeMap<String, LanguageStats>,
}

fn counts_js(c: Counts) -> LanguageStats {
    LanguageStats {
        files: args::clamp_u32(c.files),
        lines: c.lines as f64,
        bytes: c.bytes as f64,
    }
}

fn stats_js(s: CoreStats) -> RepoStats {
    RepoStats {
        files: args::clamp_u32(s.total.files),
        lines: s.total.lines as f64,
        bytes: s.total.bytes as f64,
        languages: s
            .languages
            .into_iter()
            .map(|(k, v)| (k.to_owned(), counts_js(v)))
            .collect(),
    }
}

/// What `repoStats` counts: exactly one of `root` and `files`.
#[napi(object, object_to_js = false)]
pub struct RepoStatsInput {
    /// An absolute directory, walked like retrieval walks it.
    pub root: Option<String>,
    /// Files handed in.
    pub files: Option<Vec<super::symbols::SourceFileInput>>,
}

/// Repository statistics from the language registry: files, lines and bytes in total and per
/// language, over `{ root }` (an absolute directory, walked like retrieval walks it) or
/// `{ files }` (`{ path, content }[]`). Rejects with `invalid_request` for bad input.
#[napi(ts_return_type = "Promise<RepoStats>")]
pub fn repo_stats(
    env: &Env,
    #[napi(ts_arg_type = "{ root: string } | { files: SourceFileInput[] }")] input: RepoStatsInput,
) -> napi::Result<PromiseRaw<'_, RepoStats>> {
    let work = move || match (input.root, input.files) {
        (Some(root), None) => stats::root_stats(std::path::Path::new(&root)),
        (None, Some(files)) => {
            let files = super::symbols::decode(files);
            stats::files_stats(files.iter().map(|f| (f.path.as_str(), f.content.as_str())))
        }
        _ => Err(CoreError::invalid_request(
            "input must have either root or files",
        )),
    };
    bridge::spawn(env, work, |_, s| Ok(stats_js(s)))
}

/// One language of the registry.
#[napi(object, object_from_js = false)]
pub struct LanguageInfo {
    /// Canonical lower-case name (`typescript`, `cpp`, `csharp`...).
    pub name: String,
    /// Other names editors and tools use for it (lower-case).
    pub aliases: Vec<String>,
    /// File extensions, lower-case, without the dot.
    pub extensions: Vec<String>,
    /// Whole file names that are this language whatever their extension (`Rakefile`).
    pub file_names: Vec<String>,
}

/// The languages of the registry, in its order: those whose symbols, structure-mode
/// expansions, chunks and statistics the engine understands (a grammar of each is compiled in).
#[napi]
pub fn languages() -> Vec<LanguageInfo> {
    use context_engine_core::syntax::Lang;
    let owned = |xs: &[&str]| xs.iter().map(|x| (*x).to_owned()).collect();
    Lang::ALL
        .into_iter()
        .map(|l| {
            let info = l.info();
            LanguageInfo {
                name: info.name.to_owned(),
                aliases: owned(info.aliases),
                extensions: owned(info.extensions),
                file_names: owned(info.file_names),
            }
        })
        .collect()
}
