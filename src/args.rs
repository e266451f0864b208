//! Argument validation for every export. Each function turns a JavaScript value into a Rust
//! value or a core `invalid_request` error naming the argument (never echoing its value, which
//! may be large or secret).

use napi::bindgen_prelude::*;
use napi::{JsValue, ValueType};

use context_engine_core::error::{Error as CoreError, Result as CoreResult};

/// The largest text any export accepts in one string argument (64 MiB of UTF-8). Larger inputs
/// are rejected with `invalid_request` rather than clamped: silently counting or truncating part
/// of a caller's text would give a wrong answer that looks right.
pub(crate) const MAX_TEXT_BYTES: usize = 64 * 1024 * 1024;

/// The JavaScript type of `value` (`Unknown` when napi cannot tell).
pub(crate) fn type_of(value: &Unknown<'_>) -> ValueType {
    value.get_type().unwrap_or(ValueType::Unknown)
}

pub(crate) fn is_missing(value: &Unknown<'_>) -> bool {
    matches!(type_of(value), ValueType::Undefined | ValueType::Null)
}

/// A required string of at most [`MAX_TEXT_BYTES`].
pub(crate) fn string(value: Unknown<'_>, name: &str) -> CoreResult<String> {
    if type_of(&value) != ValueType::String {
        return Err(CoreError::invalid_request(format!(
            "{name} must be a string"
        )));
    }
    let text: String = unsafe { value.cast() }
        .map_err(|_| CoreError::invalid_request(format!("{name} must be a string")))?;
    if text.len() > MAX_TEXT_BYTES {
        return Err(CoreError::invalid_request(format!(
            "{name} is too large (at most {} MiB)",
            MAX_TEXT_BYTES / (1024 * 1024)
        )));
    }
    Ok(text)
}

/// An optional string: `undefined` and `null` mean absent.
pub(crate) fn opt_string(value: Option<Unknown<'_>>, name: &str) -> CoreResult<Option<String>> {
    match value {
        Some(v) if !is_missing(&v) => string(v, name).map(Some),
        _ => Ok(None),
    }
}

/// A required whole number in `min..=max` (finite, no fraction, not NaN).
pub(crate) fn whole(value: Unknown<'_>, name: &str, min: u64, max: u64) -> CoreResult<u64> {
    let range =
        || CoreError::invalid_request(format!("{name} must be a whole number from {min} to {max}"));
    if type_of(&value) != ValueType::Number {
        return Err(range());
    }
    let n: f64 = unsafe { value.cast() }.map_err(|_| range())?;
    if !n.is_finite() || n.fract() != 0.0 || n < min as f64 || n > max as f64 {
        return Err(range());
    }
    Ok(n as u64)
}

/// An optional whole number in `min..=max`; `undefined`/`null` give `default`.
pub(crate) fn opt_whole(
    value: Option<Unknown<'_>>,
    name: &str,
    default: u64,
    min: u64,
    max: u64,
) -> CoreResult<u64> {
    match value {
        Some(v) if !is_missing(&v) => whole(v, name, min, max),
        _ => Ok(default),
    }
}

/// A plain object (not an array, not `null`); `undefined`/`null` give `None` when optional.
pub(crate) fn opt_object<'env>(
    value: Option<Unknown<'env>>,
    name: &str,
) -> CoreResult<Option<Object<'env>>> {
    match value {
        Some(v) if !is_missing(&v) => object(v, name).map(Some),
        _ => Ok(None),
    }
}

/// A required plain object (not an array, not `null`).
pub(crate) fn object<'env>(value: Unknown<'env>, name: &str) -> CoreResult<Object<'env>> {
    let not_object = || CoreError::invalid_request(format!("{name} must be an object"));
    if type_of(&value) != ValueType::Object || value.is_array().unwrap_or(true) {
        return Err(not_object());
    }
    unsafe { value.cast::<Object<'env>>() }.map_err(|_| not_object())
}

/// A named property of an options object, as an `Unknown` for the other validators.
pub(crate) fn field<'env>(object: &Object<'env>, key: &str) -> CoreResult<Option<Unknown<'env>>> {
    object
        .get::<Unknown<'env>>(key)
        .map_err(|_| CoreError::invalid_request(format!("option {key} could not be read")))
}

/// An array of whole numbers in `min..=max`, at most `max_len` long.
pub(crate) fn whole_list(
    value: Unknown<'_>,
    name: &str,
    min: u64,
    max: u64,
    max_len: u32,
) -> CoreResult<Vec<u64>> {
    let not_array = || CoreError::invalid_request(format!("{name} must be an array of numbers"));
    if type_of(&value) != ValueType::Object || !value.is_array().unwrap_or(false) {
        return Err(not_array());
    }
    let array: Array<'_> = unsafe { value.cast() }.map_err(|_| not_array())?;
    if array.len() > max_len {
        return Err(CoreError::invalid_request(format!(
            "{name} has too many entries (at most {max_len})"
        )));
    }
    let item_name = format!("each entry of {name}");
    (0..array.len())
        .map(|i| {
            let item = array
                .get::<Unknown<'_>>(i)
                .ok()
                .flatten()
                .ok_or_else(not_array)?;
            whole(item, &item_name, min, max)
        })
        .collect()
}

/// A plain object whose own enumerable values are all strings, as `(key, value)` pairs in the
/// object's property order, with at most [`MAX_TEXT_BYTES`] of text in all.
pub(crate) fn string_record(value: Unknown<'_>, name: &str) -> CoreResult<Vec<(String, String)>> {
    let object = object(value, name)?;
    let keys = Object::keys(&object)
        .map_err(|_| CoreError::invalid_request(format!("{name} must be a plain object")))?;
    let mut total = 0usize;
    let mut out = Vec::with_capacity(keys.len());
    for key in keys {
        let value = field(&object, &key)?
            .ok_or_else(|| CoreError::invalid_request(format!("{name} values must be strings")))?;
        if type_of(&value) != ValueType::String {
            return Err(CoreError::invalid_request(format!(
                "{name} values must be strings"
            )));
        }
        let text = string(value, &format!("a value of {name}"))?;
        total += text.len() + key.len();
        if total > MAX_TEXT_BYTES {
            return Err(CoreError::invalid_request(format!(
                "{name} is too large (at most {} MiB in all)",
                MAX_TEXT_BYTES / (1024 * 1024)
            )));
        }
        out.push((key, text));
    }
    Ok(out)
}

/// An options object parsed into a `#[napi(object)]` struct; `undefined`/`null` give `None`,
/// anything napi cannot convert is an `invalid_request` naming `name`.
pub(crate) fn options_object<T: FromNapiValue>(
    value: Option<Unknown<'_>>,
    name: &str,
) -> CoreResult<Option<T>> {
    let Some(object) = opt_object(value, name)? else {
        return Ok(None);
    };
    unsafe { T::from_napi_value(object.value().env, object.raw()) }
        .map(Some)
        .map_err(|e| CoreError::invalid_request(format!("{name} are invalid: {}", e.reason)))
}

/// An optional number field of an options struct: a whole number in `min..=max`, or `default`
/// when absent.
pub(crate) fn opt_whole_number(
    value: Option<f64>,
    name: &str,
    default: u64,
    min: u64,
    max: u64,
) -> CoreResult<u64> {
    match value {
        None => Ok(default),
        Some(n) if n.is_finite() && n.fract() == 0.0 && n >= min as f64 && n <= max as f64 => {
            Ok(n as u64)
        }
        Some(_) => Err(CoreError::invalid_request(format!(
            "{name} must be a whole number from {min} to {max}"
        ))),
    }
}

/// A count for JavaScript: `usize` clamped to `u32` (no count the engine reports comes near).
pub(crate) fn clamp_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
