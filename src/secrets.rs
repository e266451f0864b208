//! Secret redaction for text the engine did not read itself (a builder's sections, search
//! results from another server) before it reaches a model: the same rules as retrieval,
//! expansion and remote file context.

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use super::{args, bridge};
use context_engine_core::secrets;

/// What `redactSecrets` returns.
#[napi(object)]
pub struct RedactedText {
    /// The text with every suspected secret (API keys, tokens, private keys...) replaced by
    /// `[REDACTED:<kind>]`; the rest of each line and every line break are kept.
    pub text: String,
    /// How many secrets were replaced.
    pub redactions: u32,
}

/// Replaces the suspected secrets in `text` by `[REDACTED:<kind>]`, as retrieval does.
/// Redacting the result again changes nothing. Runs off the JS thread.
#[napi(
    ts_args_type = "text: string",
    ts_return_type = "Promise<RedactedText>"
)]
pub fn redact_secrets<'env>(
    env: &'env Env,
    text: Unknown<'_>,
) -> napi::Result<PromiseRaw<'env, RedactedText>> {
    match args::string(text, "text") {
        Ok(text) => bridge::spawn(
            env,
            move || {
                let r = secrets::redact(&text);
                Ok(RedactedText {
                    redactions: args::clamp_u32(r.findings.len()),
                    text: r.text.into_owned(),
                })
            },
            |_, r| Ok(r),
        ),
        Err(e) => bridge::reject(env, e),
    }
}
