//! What the binding's exports share to read their arguments: the [`Text`] type of big-text
//! arguments, the range checks of numbers, and the one shape of an argument error.
//!
//! Argument types are checked before the binding is called, by the package entry's declared
//! schema (`lib/schema.ts`): each export takes typed parameters (`String`, `f64`, `Option<_>`,
//! `#[napi(object)]` structs) that napi converts. Whatever napi still refuses is mapped to
//! `invalid_request` in one place on the TypeScript side (`fromBinding`, by napi's status).
//! What needs the engine's knowledge (ranges, non-empty names, enum spellings the core parses)
//! is checked here, with messages that name the argument and never its value.

use napi::bindgen_prelude::*;
use napi::{sys, JsString, ValueType};

use context_engine_core::error::{reason, Error as CoreError, Result as CoreResult};

/// The largest text any export accepts in one argument: 8 Mi UTF-16 code units (JavaScript's
/// `length`). The package entry refuses larger inputs by name (reason `too_large`) from the
/// length alone; [`Text`] refuses them too, for any other caller of the binding.
pub const MAX_TEXT_UNITS: usize = 8 * 1024 * 1024;

/// Texts longer than this (UTF-16 units) are copied as UTF-16 and decoded to UTF-8 on the
/// worker ([`Text::Utf16`]): V8 writes UTF-8 for non-ASCII text at about 1.6 ms per MB, but
/// copies UTF-16 at memory speed.
const UTF16_FROM_UNITS: usize = 1 << 20;

/// The error of a bad argument: `{name} {problem}` (for example `options.maxLines must be a
/// whole number from 1 to 10`), reason `invalid_argument`. `problem` must never contain the
/// caller's value.
pub fn bad(name: &str, problem: &str) -> CoreError {
    CoreError::invalid_request(format!("{name} {problem}")).with_reason(reason::INVALID_ARGUMENT)
}

/// `{name} must be {expected}`.
pub fn expected(name: &str, what: &str) -> CoreError {
    bad(name, &format!("must be {what}"))
}

/// A large text argument as read on the JS thread; [`Text::into_string`] finishes it (on the
/// worker, for async exports). Declare it `#[napi(ts_arg_type = "string")]`.
pub enum Text {
    /// Read as UTF-8 (short texts), with its length in UTF-16 units.
    Utf8(String, usize),
    /// Read as UTF-16 (long texts), not yet decoded.
    Utf16(Vec<u16>),
}

impl TypeName for Text {
    fn type_name() -> &'static str {
        "string"
    }

    fn value_type() -> ValueType {
        ValueType::String
    }
}

impl ValidateNapiValue for Text {}

/// napi's own `String` would transcode a long text to UTF-8 on the JS thread (about 1.6 ms per
/// MB of non-ASCII text), and its `Utf16String` zeroes its buffer before copying; a text over
/// [`UTF16_FROM_UNITS`] is copied as UTF-16 into an uninitialized buffer instead, at memory
/// speed, and decoded where [`Text::into_string`] runs. Sizes are the package entry's to check
/// (with the argument's name); over [`MAX_TEXT_UNITS`] is refused here from the length.
impl FromNapiValue for Text {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Self> {
        // SAFETY: napi hands a conversion a live value of `env`, and each call checks its type;
        // `buf` has room for `units` code units and the NUL N-API writes after them, and
        // `set_len` keeps only the units it wrote.
        unsafe {
            let units = JsString::from_napi_value(env, value)?.utf16_len()?;
            if units > MAX_TEXT_UNITS {
                return Err(napi::Error::new(Status::InvalidArg, "a text is too long"));
            }
            if units <= UTF16_FROM_UNITS {
                return Ok(Text::Utf8(String::from_napi_value(env, value)?, units));
            }
            let mut buf: Vec<u16> = Vec::with_capacity(units + 1);
            let mut written = 0usize;
            let status = sys::napi_get_value_string_utf16(
                env,
                value,
                buf.as_mut_ptr(),
                units + 1,
                &raw mut written,
            );
            if status != sys::Status::napi_ok {
                return Err(napi::Error::new(
                    Status::StringExpected,
                    "a text could not be read",
                ));
            }
            buf.set_len(written.min(units));
            Ok(Text::Utf16(buf))
        }
    }
}

impl Text {
    /// The text as UTF-8 (lone surrogates become U+FFFD, as V8's own UTF-8 output has them).
    pub fn into_string(self) -> String {
        match self {
            Text::Utf8(s, _) => s,
            Text::Utf16(units) => String::from_utf16_lossy(&units),
        }
    }

    /// Length in UTF-16 code units (JavaScript's `length`): what a size bound counts.
    pub fn len(&self) -> usize {
        match self {
            Text::Utf8(_, units) => *units,
            Text::Utf16(units) => units.len(),
        }
    }

    /// Unicode code points (a surrogate pair is one, a lone surrogate one), without decoding.
    pub fn chars(&self) -> usize {
        match self {
            Text::Utf8(s, _) => s.chars().count(),
            Text::Utf16(units) => units.len() - surrogate_pairs(units),
        }
    }
}

/// How many surrogate pairs `units` holds, in branch-free passes the compiler vectorizes
/// (8 Mi units in about a millisecond): first whether there is any surrogate at all.
fn surrogate_pairs(units: &[u16]) -> usize {
    let is_surrogate = |u: u16| u & 0xF800 == 0xD800;
    let any = units
        .chunks(4096)
        .any(|c| c.iter().fold(false, |a, &u| a | is_surrogate(u)));
    if !any {
        return 0;
    }
    units
        .iter()
        .zip(units.get(1..).unwrap_or_default())
        .map(|(&a, &b)| usize::from(a & 0xFC00 == 0xD800 && b & 0xFC00 == 0xDC00))
        .sum()
}

/// A whole number in `min..=max` (finite, no fraction), or `{name} must be a whole number from
/// {min} to {max}`.
pub fn whole_number(n: f64, name: &str, min: u64, max: u64) -> CoreResult<u64> {
    in_range(n, min, max)
        .ok_or_else(|| expected(name, &format!("a whole number from {min} to {max}")))
}

fn in_range(n: f64, min: u64, max: u64) -> Option<u64> {
    (n.is_finite() && n.fract() == 0.0 && n >= min as f64 && n <= max as f64).then_some(n as u64)
}

/// An optional number field of an options struct: a whole number in `min..=max`, or `default`
/// when absent.
pub fn opt_whole_number(
    value: Option<f64>,
    name: &str,
    default: u64,
    min: u64,
    max: u64,
) -> CoreResult<u64> {
    value.map_or(Ok(default), |n| whole_number(n, name, min, max))
}

/// The own enumerable texts of an object the package entry rebuilt without a prototype (a
/// record of sections), in its key order.
pub fn text_entries(object: &Object<'_>) -> napi::Result<Vec<(String, Text)>> {
    Object::keys(object)?
        .into_iter()
        .map(|key| {
            let text = object
                .get::<Text>(&key)?
                .unwrap_or(Text::Utf8(String::new(), 0));
            Ok((key, text))
        })
        .collect()
}

/// A path argument: any non-empty string (its length is the package entry's to bound).
pub fn path(path: String, name: &str) -> CoreResult<std::path::PathBuf> {
    if path.is_empty() {
        return Err(bad(name, "must not be empty"));
    }
    Ok(std::path::PathBuf::from(path))
}

/// A count for JavaScript: `usize` clamped to `u32` (no count the engine reports comes near).
pub fn clamp_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
