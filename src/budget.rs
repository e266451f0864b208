//! Token budgeting exports: `truncateFile`, `estimateTokens`, `countTokens` and `fitToBudget`
//! (see docs/design/context-builder-spec.md, section Functional Requirements).

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use super::args;
use super::bridge;
use context_engine_core::budget::{
    self, Counter, Encoding, FitOptions as CoreFitOptions, TruncationMetadata,
};
use context_engine_core::error::Result as CoreResult;

/// Largest accepted budget: one billion tokens, far above any model's window.
const MAX_BUDGET: u64 = 1_000_000_000;
/// Largest accepted `maxLines` / line number: beyond any file the engine will read.
const MAX_LINES: u64 = 100_000_000;
/// Largest accepted context window of `truncateFile`.
const MAX_CONTEXT_LINES: u64 = 10_000;

/// What `fitToBudget` reports when it changed anything. The first four keys are the
/// spec's, in its `snake_case` spelling; the rest are additions.
#[napi(object, object_from_js = false, js_name = "TruncationMetadata")]
pub struct TruncationMetadataJs {
    /// Whether any section was shortened.
    pub truncated: bool,
    /// Lines in all input sections.
    #[napi(js_name = "original_lines")]
    pub original_lines: u32,
    /// Input lines kept (`...` markers not counted; a shortened line counts as kept).
    #[napi(js_name = "kept_lines")]
    pub kept_lines: u32,
    /// Names of the sections that were changed, in input order.
    #[napi(js_name = "sections_affected")]
    pub sections_affected: Vec<String>,
    /// True when the budget could not hold the minimum content of every section, so smaller
    /// sections were emptied in favour of larger ones.
    pub severe: bool,
    /// The budget the sections were fitted to.
    pub budget: u32,
    /// Tokens of all sections before fitting, by the counter used.
    #[napi(js_name = "tokens_before")]
    pub tokens_before: u32,
    /// Tokens of all sections after fitting, by the counter used.
    #[napi(js_name = "tokens_after")]
    pub tokens_after: u32,
}

/// A BPE encoding for exact token counts.
#[napi(string_enum)]
pub enum TokenEncoding {
    /// GPT-4o and o-series models.
    #[napi(value = "o200k_base")]
    O200kBase,
    /// GPT-4 and GPT-3.5 models.
    #[napi(value = "cl100k_base")]
    Cl100kBase,
}

/// Options of `fitToBudget`. All optional; `null` means the same as absent.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct FitToBudgetOptions {
    /// BPE encoding of the exact count. Default `'o200k_base'`.
    pub encoding: Option<TokenEncoding>,
    /// Count with `estimateTokens` (characters / 4) instead of the exact BPE count: faster,
    /// but the budget then holds only for the estimate. Default `false`.
    pub estimate: Option<bool>,
    /// Lines a section keeps at the least before it is emptied in favour of larger sections
    /// when the budget is very tight. Default 3.
    pub min_lines: Option<f64>,
}

/// Options of `truncateFile`. All optional; `null` means the same as absent.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct TruncateFileOptions {
    /// Lines kept on each side of every line in `aroundLines`. Default 10 (a fix context's minimum).
    pub context_lines: Option<f64>,
}

impl From<TruncationMetadata> for TruncationMetadataJs {
    fn from(m: TruncationMetadata) -> Self {
        TruncationMetadataJs {
            truncated: m.truncated,
            original_lines: args::clamp_u32(m.original_lines),
            kept_lines: args::clamp_u32(m.kept_lines),
            sections_affected: m.sections_affected,
            severe: m.severe,
            budget: args::clamp_u32(m.budget),
            tokens_before: args::clamp_u32(m.tokens_before),
            tokens_after: args::clamp_u32(m.tokens_after),
        }
    }
}

fn encoding_of(encoding: Option<TokenEncoding>) -> Encoding {
    match encoding {
        None | Some(TokenEncoding::O200kBase) => Encoding::O200kBase,
        Some(TokenEncoding::Cl100kBase) => Encoding::Cl100kBase,
    }
}

// ---------------------------------------------------------------------------------------------
// estimateTokens / countTokens

/// Estimated tokens of `text`: its length in characters (Unicode code points) divided by 4,
/// rounded up, exactly as the builder spec defines it. Off by up to about 20% on real
/// code; use `countTokens` where a budget must hold.
///
/// Counted without decoding the text (a long one is read as UTF-16 and its surrogate pairs
/// counted), so even an 8 Mi-character text holds the JS thread for a few milliseconds.
#[napi(catch_unwind)]
pub fn estimate_tokens(#[napi(ts_arg_type = "string")] text: args::Text) -> u32 {
    args::clamp_u32(text.chars().div_ceil(4))
}

fn count(text: args::Text, encoding: Option<TokenEncoding>) -> u32 {
    args::clamp_u32(budget::count_tokens(
        &text.into_string(),
        encoding_of(encoding),
    ))
}

/// Exact number of BPE tokens of `text` for `encoding` (default `'o200k_base'`, the GPT-4o /
/// o-series encoding; `'cl100k_base'` for GPT-4 / GPT-3.5). Runs off the JS thread.
#[napi(ts_return_type = "Promise<number>")]
pub fn count_tokens(
    env: &Env,
    #[napi(ts_arg_type = "string")] text: args::Text,
    encoding: Option<TokenEncoding>,
) -> napi::Result<PromiseRaw<'_, u32>> {
    bridge::spawn(env, move || Ok(count(text, encoding)), |_, n| Ok(n))
}

/// Synchronous twin of `countTokens`, for small strings: at most 256 Ki characters
/// (`invalid_request`, reason `too_large`, beyond; use `countTokens`), so the JS thread is
/// blocked only briefly.
#[napi(catch_unwind)]
pub fn count_tokens_sync(
    #[napi(ts_arg_type = "string")] text: args::Text,
    encoding: Option<TokenEncoding>,
) -> u32 {
    count(text, encoding)
}

// ---------------------------------------------------------------------------------------------
// truncateFile

struct TruncateArgs {
    content: args::Text,
    max_lines: usize,
    around: Vec<usize>,
    context: usize,
}

fn truncate_args(
    content: args::Text,
    max_lines: f64,
    around_lines: Option<Vec<f64>>,
    options: Option<TruncateFileOptions>,
) -> CoreResult<TruncateArgs> {
    let max_lines = args::whole_number(max_lines, "maxLines", 0, MAX_LINES)? as usize;
    let around = around_lines
        .unwrap_or_default()
        .into_iter()
        .map(|n| {
            args::whole_number(n, "each entry of aroundLines", 1, MAX_LINES).map(|n| n as usize)
        })
        .collect::<CoreResult<_>>()?;
    let context = args::opt_whole_number(
        options.unwrap_or_default().context_lines,
        "options.contextLines",
        budget::DEFAULT_CONTEXT_LINES as u64,
        0,
        MAX_CONTEXT_LINES,
    )? as usize;
    Ok(TruncateArgs {
        content,
        max_lines,
        around,
        context,
    })
}

fn truncate(a: TruncateArgs) -> String {
    truncate_detailed(a).content
}

fn truncate_detailed(a: TruncateArgs) -> TruncatedFile {
    let content = a.content.into_string();
    let t = budget::truncate_file_with(&content, a.max_lines, &a.around, a.context);
    TruncatedFile {
        content: t.text,
        truncated: t.truncated,
        severe: t.severe,
        original_lines: args::clamp_u32(t.original_lines),
        kept_lines: args::clamp_u32(t.kept_lines),
    }
}

/// What `truncateFileDetailed` returns: the text and what happened to it.
#[napi(object, object_from_js = false)]
pub struct TruncatedFile {
    /// The (possibly) shortened text, exactly what `truncateFile` returns.
    pub content: String,
    /// Whether any line was removed or cut.
    pub truncated: bool,
    /// True when nothing meaningful fit (`maxLines` 0, or every line in `aroundLines` outside
    /// the file), so only the first and last lines were kept.
    pub severe: bool,
    /// Lines in the input.
    pub original_lines: u32,
    /// Input lines kept (`...` markers not counted).
    pub kept_lines: u32,
}

/// Shortens `content` to at most `maxLines` lines, keeping the lines around
/// each 1-based line number in `aroundLines` (`contextLines` each side, default 10; overlapping
/// windows merged) and putting a `...` line wherever lines were removed. Content within
/// `maxLines` is returned unchanged; with no `aroundLines` the head is kept. When nothing
/// meaningful would survive, the first and last lines are kept and the text says so. Lines over
/// 2000 characters are cut and end in `...`.
#[napi(ts_return_type = "Promise<string>")]
pub fn truncate_file(
    env: &Env,
    #[napi(ts_arg_type = "string")] content: args::Text,
    max_lines: f64,
    around_lines: Option<Vec<f64>>,
    options: Option<TruncateFileOptions>,
) -> napi::Result<PromiseRaw<'_, String>> {
    let parsed = truncate_args(content, max_lines, around_lines, options);
    bridge::spawn_parsed(env, parsed, |a| Ok(truncate(a)), |_, v| Ok(v))
}

/// Like `truncateFile`, but also says whether the text was truncated, whether the truncation
/// was severe (only the first and last lines survived), and how many lines were kept.
#[napi(ts_return_type = "Promise<TruncatedFile>")]
pub fn truncate_file_detailed(
    env: &Env,
    #[napi(ts_arg_type = "string")] content: args::Text,
    max_lines: f64,
    around_lines: Option<Vec<f64>>,
    options: Option<TruncateFileOptions>,
) -> napi::Result<PromiseRaw<'_, TruncatedFile>> {
    let parsed = truncate_args(content, max_lines, around_lines, options);
    bridge::spawn_parsed(env, parsed, |a| Ok(truncate_detailed(a)), |_, v| Ok(v))
}

/// Synchronous twin of `truncateFile`, for content of at most 1 Mi characters
/// (`invalid_request`, reason `too_large`, beyond; use `truncateFile`).
#[napi(catch_unwind)]
pub fn truncate_file_sync(
    env: &Env,
    #[napi(ts_arg_type = "string")] content: args::Text,
    max_lines: f64,
    around_lines: Option<Vec<f64>>,
    options: Option<TruncateFileOptions>,
) -> napi::Result<String> {
    let parsed = truncate_args(content, max_lines, around_lines, options);
    bridge::run_sync(env, || parsed.map(truncate))
}

// ---------------------------------------------------------------------------------------------
// fitToBudget

struct FitArgs {
    sections: Vec<(String, args::Text)>,
    budget: usize,
    options: CoreFitOptions,
}

fn fit_args(
    sections: &Object<'_>,
    budget_arg: Option<f64>,
    options: Option<FitToBudgetOptions>,
) -> CoreResult<FitArgs> {
    let sections = args::text_entries(sections)
        .map_err(|_| args::expected("sections", "an object whose values are strings"))?;
    if sections.iter().any(|(k, _)| k == "_metadata") {
        return Err(args::bad(
            "sections",
            "must not contain the reserved key _metadata",
        ));
    }
    let budget = args::opt_whole_number(
        budget_arg,
        "budget",
        budget::DEFAULT_BUDGET as u64,
        0,
        MAX_BUDGET,
    )? as usize;
    let o = options.unwrap_or_default();
    let mut core = CoreFitOptions::default();
    core.counter = if o.estimate.unwrap_or(false) {
        Counter::Estimate
    } else {
        Counter::Exact(encoding_of(o.encoding))
    };
    core.min_lines = args::opt_whole_number(
        o.min_lines,
        "options.minLines",
        core.min_lines as u64,
        0,
        MAX_LINES,
    )? as usize;
    Ok(FitArgs {
        sections,
        budget,
        options: core,
    })
}

fn fit(a: FitArgs) -> budget::Fitted {
    let sections: Vec<(String, String)> = a
        .sections
        .into_iter()
        .map(|(k, v)| (k, v.into_string()))
        .collect();
    budget::fit_to_budget(&sections, a.budget, &a.options)
}

fn fitted_to_js(env: &Env, fitted: budget::Fitted) -> napi::Result<Object<'_>> {
    let mut object = Object::new(env)?;
    for (name, content) in fitted.sections {
        object.set(name, content)?;
    }
    if let Some(meta) = fitted.metadata {
        object.set("_metadata", TruncationMetadataJs::from(meta))?;
    }
    Ok(object)
}

/// Fits `sections` into `budget` tokens (default 32,000): unchanged when they already
/// fit; otherwise each section is shortened in proportion to its size (head kept, `...` where
/// lines were removed) so the total stays within the budget by the exact BPE count,
/// larger sections first when the budget cannot hold every section's minimum. When anything
/// changed, the result carries `_metadata`. Keys keep their input order.
#[napi(
    ts_generic_types = "K extends string",
    ts_return_type = "Promise<FittedSections<K>>"
)]
pub fn fit_to_budget<'env>(
    env: &'env Env,
    #[napi(ts_arg_type = "Record<K, string>")] sections: Object<'_>,
    budget: Option<f64>,
    options: Option<FitToBudgetOptions>,
) -> napi::Result<PromiseRaw<'env, Object<'env>>> {
    let parsed = fit_args(&sections, budget, options);
    bridge::spawn_parsed(env, parsed, |a| Ok(fit(a)), fitted_to_js)
}

/// Synchronous twin of `fitToBudget` for small inputs: at most 256 Ki characters of sections
/// in all (`invalid_request`, reason `too_large`, beyond; use `fitToBudget`).
#[napi(
    catch_unwind,
    ts_generic_types = "K extends string",
    ts_return_type = "FittedSections<K>"
)]
pub fn fit_to_budget_sync<'env>(
    env: &'env Env,
    #[napi(ts_arg_type = "Record<K, string>")] sections: Object<'_>,
    budget: Option<f64>,
    options: Option<FitToBudgetOptions>,
) -> napi::Result<Object<'env>> {
    let parsed = fit_args(&sections, budget, options);
    let fitted = bridge::run_sync(env, || parsed.map(fit))?;
    fitted_to_js(env, fitted)
}
