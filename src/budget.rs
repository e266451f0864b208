//! Token budgeting exports: `truncateFile`, `estimateTokens`, `countTokens` and `fitToBudget`
//! (see docs/design/context-builder-spec.md, section Functional Requirements).

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use super::args;
use super::bridge;
use super::engine::exports;
use context_engine_core::budget::{
    self, Counter, Encoding, FitOptions as CoreFitOptions, TruncationMetadata,
};
use context_engine_core::error::Result as CoreResult;

/// Largest accepted budget: one billion tokens, far above any model's window.
const MAX_BUDGET: u64 = 1_000_000_000;
/// Largest accepted `maxLines` / line number: beyond any file the engine will read.
const MAX_LINES: u64 = 100_000_000;
/// Most line numbers `truncateFile` accepts in one call.
const MAX_AROUND_LINES: u32 = 100_000;
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
    #[napi(ts_type = "TokenEncoding")]
    pub encoding: Option<String>,
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

args::from_fields!(FitToBudgetOptions {
    encoding: string("encoding"),
    estimate: boolean("estimate"),
    min_lines: number("minLines"),
});

args::from_fields!(TruncateFileOptions {
    context_lines: number("contextLines"),
});

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

fn encoding_arg(value: Option<String>) -> CoreResult<Encoding> {
    match value {
        None => Ok(Encoding::default()),
        Some(name) => Encoding::parse(&name)
            .ok_or_else(|| args::expected("encoding", "'o200k_base' or 'cl100k_base'")),
    }
}

// ---------------------------------------------------------------------------------------------
// estimateTokens / countTokens

exports! {
    #[doc = " Estimated tokens of `text`: its length in characters (Unicode code points) divided by 4,"]
    #[doc = " rounded up, exactly as the builder spec defines it. Off by up to about 20% on real"]
    #[doc = " code; use `countTokens` where a budget must hold."]
    #[doc = ""]
    #[doc = " Counted without decoding the text (a long one is read as UTF-16 and its surrogate pairs"]
    #[doc = " counted), so even an 8 Mi-character text holds the JS thread for a few milliseconds."]
    #[napi(catch_unwind, ts_args_type = "text: string")]
    fn estimate_tokens(env, text) -> u32 {
        let chars = args::text(text, "text").map(|t| t.chars());
        bridge::run_sync(env, || Ok(args::clamp_u32(chars?.div_ceil(4))))
    }
}

/// Largest text of `countTokensSync` and of all sections of `fitToBudgetSync` (exact BPE
/// counting on the JS thread): 256 Ki characters, a few milliseconds; the async twins take
/// 8 Mi.
const MAX_SYNC_COUNT_UNITS: usize = 256 * 1024;
/// Largest content of `truncateFileSync`: 1 Mi characters (a copy and a line scan).
const MAX_SYNC_TRUNCATE_UNITS: usize = 1024 * 1024;

fn count_tokens_args(
    text: Unknown<'_>,
    encoding: Option<Unknown<'_>>,
    max_units: usize,
) -> CoreResult<(args::Text, Encoding)> {
    let text = args::text_max(text, "text", max_units)?;
    let encoding = encoding_arg(args::opt_string(encoding, "encoding")?)?;
    Ok((text, encoding))
}

fn count((text, encoding): (args::Text, Encoding)) -> u32 {
    args::clamp_u32(budget::count_tokens(&text.into_string(), encoding))
}

exports! {
    #[doc = " Exact number of BPE tokens of `text` for `encoding` (default `'o200k_base'`, the GPT-4o /"]
    #[doc = " o-series encoding; `'cl100k_base'` for GPT-4 / GPT-3.5). Runs off the JS thread."]
    #[napi(
        ts_args_type = "text: string, encoding?: TokenEncoding",
        ts_return_type = "Promise<number>"
    )]
    async fn count_tokens(env, text; encoding) -> u32 {
        let parsed = count_tokens_args(text, encoding, args::MAX_TEXT_UNITS);
        bridge::spawn_parsed(env, parsed, |a| Ok(count(a)), |_, n| Ok(n))
    }
}

exports! {
    #[doc = " Synchronous twin of `countTokens`, for small strings: at most 256 Ki characters"]
    #[doc = " (`invalid_request`, reason `too_large`, beyond; use `countTokens`), so the JS thread is"]
    #[doc = " blocked only briefly."]
    #[napi(catch_unwind, ts_args_type = "text: string, encoding?: TokenEncoding")]
    fn count_tokens_sync(env, text; encoding) -> u32 {
        let parsed = count_tokens_args(text, encoding, MAX_SYNC_COUNT_UNITS);
        bridge::run_sync(env, || Ok(count(parsed?)))
    }
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
    content: Unknown<'_>,
    max_lines: Unknown<'_>,
    around_lines: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
    max: usize,
) -> CoreResult<TruncateArgs> {
    let content = args::text_max(content, "content", max)?;
    let max_lines = args::whole(max_lines, "maxLines", 0, MAX_LINES)? as usize;
    let around = match args::present(around_lines) {
        Some(v) => args::whole_list(v, "aroundLines", 1, MAX_LINES, MAX_AROUND_LINES)?,
        None => Vec::new(),
    };
    let opts: TruncateFileOptions = args::options(options, "options")?;
    let context = args::opt_whole_number(
        opts.context_lines,
        "options.contextLines",
        budget::DEFAULT_CONTEXT_LINES as u64,
        0,
        MAX_CONTEXT_LINES,
    )? as usize;
    Ok(TruncateArgs {
        content,
        max_lines,
        around: around.into_iter().map(|n| n as usize).collect(),
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

/// `truncateFile` and `truncateFileDetailed`: reads the arguments on the JS thread, truncates
/// on the blocking pool and answers with `shape` of the result.
fn truncate_on<'env, V: ToNapiValue + Send + 'static>(
    env: &'env Env,
    content: Unknown<'_>,
    max_lines: Unknown<'_>,
    around_lines: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
    shape: fn(TruncateArgs) -> V,
) -> napi::Result<PromiseRaw<'env, V>> {
    let parsed = truncate_args(
        content,
        max_lines,
        around_lines,
        options,
        args::MAX_TEXT_UNITS,
    );
    bridge::spawn_parsed(env, parsed, move |a| Ok(shape(a)), |_, v| Ok(v))
}

exports! {
    #[doc = " Shortens `content` to at most `maxLines` lines, keeping the lines around"]
    #[doc = " each 1-based line number in `aroundLines` (`contextLines` each side, default 10; overlapping"]
    #[doc = " windows merged) and putting a `...` line wherever lines were removed. Content within"]
    #[doc = " `maxLines` is returned unchanged; with no `aroundLines` the head is kept. When nothing"]
    #[doc = " meaningful would survive, the first and last lines are kept and the text says so. Lines over"]
    #[doc = " 2000 characters are cut and end in `...`."]
    #[napi(
        ts_args_type = "content: string, maxLines: number, aroundLines?: number[], options?: TruncateFileOptions",
        ts_return_type = "Promise<string>"
    )]
    async fn truncate_file(env, content, max_lines; around_lines, options) -> String {
        truncate_on(env, content, max_lines, around_lines, options, truncate)
    }

    #[doc = " Like `truncateFile`, but also says whether the text was truncated, whether the truncation"]
    #[doc = " was severe (only the first and last lines survived), and how many lines were kept."]
    #[napi(
        ts_args_type = "content: string, maxLines: number, aroundLines?: number[], options?: TruncateFileOptions",
        ts_return_type = "Promise<TruncatedFile>"
    )]
    async fn truncate_file_detailed(env, content, max_lines; around_lines, options) -> TruncatedFile {
        truncate_on(env, content, max_lines, around_lines, options, truncate_detailed)
    }
}

exports! {
    #[doc = " Synchronous twin of `truncateFile`, for content of at most 1 Mi characters"]
    #[doc = " (`invalid_request`, reason `too_large`, beyond; use `truncateFile`)."]
    #[napi(
        catch_unwind,
        ts_args_type = "content: string, maxLines: number, aroundLines?: number[], options?: TruncateFileOptions"
    )]
    fn truncate_file_sync(env, content, max_lines; around_lines, options) -> String {
        let parsed = truncate_args(
            content,
            max_lines,
            around_lines,
            options,
            MAX_SYNC_TRUNCATE_UNITS,
        );
        bridge::run_sync(env, || parsed.map(truncate))
    }
}

// ---------------------------------------------------------------------------------------------
// fitToBudget

struct FitArgs {
    sections: Vec<(String, args::Text)>,
    budget: usize,
    options: CoreFitOptions,
}

fn fit_args(
    sections: Unknown<'_>,
    budget_arg: Option<Unknown<'_>>,
    options: Option<Unknown<'_>>,
    max: usize,
) -> CoreResult<FitArgs> {
    let sections = args::string_record(sections, "sections", max)?;
    if sections.iter().any(|(k, _)| k == "_metadata") {
        return Err(args::bad(
            "sections",
            "must not contain the reserved key _metadata",
        ));
    }
    let budget = args::opt_whole(
        budget_arg,
        "budget",
        budget::DEFAULT_BUDGET as u64,
        0,
        MAX_BUDGET,
    )? as usize;
    let o: FitToBudgetOptions = args::options(options, "options")?;
    let mut core = CoreFitOptions::default();
    let encoding = encoding_arg(o.encoding)?;
    core.counter = if o.estimate.unwrap_or(false) {
        Counter::Estimate
    } else {
        Counter::Exact(encoding)
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

exports! {
    #[doc = " Fits `sections` into `budget` tokens (default 32,000): unchanged when they already"]
    #[doc = " fit; otherwise each section is shortened in proportion to its size (head kept, `...` where"]
    #[doc = " lines were removed) so the total stays within the budget by the exact BPE count,"]
    #[doc = " larger sections first when the budget cannot hold every section's minimum. When anything"]
    #[doc = " changed, the result carries `_metadata`. Keys keep their input order."]
    #[napi(
        ts_generic_types = "K extends string",
        ts_args_type = "sections: Record<K, string>, budget?: number, options?: FitToBudgetOptions",
        ts_return_type = "Promise<FittedSections<K>>"
    )]
    async fn fit_to_budget(env, sections; budget, options) -> Object<'env> {
        let parsed = fit_args(sections, budget, options, args::MAX_TEXT_UNITS);
        bridge::spawn_parsed(env, parsed, |a| Ok(fit(a)), fitted_to_js)
    }
}

exports! {
    #[doc = " Synchronous twin of `fitToBudget` for small inputs: at most 256 Ki characters of sections"]
    #[doc = " in all (`invalid_request`, reason `too_large`, beyond; use `fitToBudget`)."]
    #[napi(
        catch_unwind,
        ts_generic_types = "K extends string",
        ts_args_type = "sections: Record<K, string>, budget?: number, options?: FitToBudgetOptions",
        ts_return_type = "FittedSections<K>"
    )]
    fn fit_to_budget_sync(env, sections; budget, options) -> Object<'env> {
        let parsed = fit_args(sections, budget, options, MAX_SYNC_COUNT_UNITS);
        let fitted = bridge::run_sync(env, || parsed.map(fit))?;
        fitted_to_js(env, fitted)
    }
}
