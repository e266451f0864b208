//! Secret redaction for text the engine did not read itself (a builder's sections, search
//! results from another server) before it reaches a model: the same rules as retrieval,
//! expansion and remote file context.

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use super::{args, bridge};
use context_engine_core::secrets;

/// One secret replaced by a `[REDACTED:<kind>]` marker: what it was and where the marker is.
#[napi(object, object_from_js = false)]
pub struct Redaction {
    /// The kind of secret, as in the marker (`github_token`, `private_key`, `generic_secret`, ...).
    pub kind: String,
    /// The 1-based line of the returned text on which the marker starts.
    pub line: u32,
}

/// The JS form of a core redaction report.
pub(crate) fn redactions_js(report: &[context_engine_core::secrets::Redaction]) -> Vec<Redaction> {
    report
        .iter()
        .map(|r| Redaction {
            kind: r.kind.as_str().to_owned(),
            line: args::clamp_u32(r.line),
        })
        .collect()
}

/// What `redactSecrets` returns.
#[napi(object, object_from_js = false)]
pub struct RedactedText {
    /// The text with every suspected secret (API keys, tokens, private keys...) replaced by
    /// `[REDACTED:<kind>]`; the rest of each line and every line break are kept.
    pub text: String,
    /// The secrets replaced: kind and 1-based line of `text`, never the value.
    pub redactions: Vec<Redaction>,
}

/// Replaces the suspected secrets in `text` by `[REDACTED:<kind>]`, as retrieval does.
/// Redacting the result again changes nothing. Runs off the JS thread.
#[napi(ts_return_type = "Promise<RedactedText>")]
pub fn redact_secrets(
    env: &Env,
    #[napi(ts_arg_type = "string")] text: args::Text,
) -> napi::Result<PromiseRaw<'_, RedactedText>> {
    bridge::spawn(
        env,
        move || {
            let (text, report) = secrets::redact_reported(&text.into_string());
            Ok(RedactedText {
                text,
                redactions: redactions_js(&report),
            })
        },
        |_, r| Ok(r),
    )
}
