//! The one argument reader of every export: turns JavaScript values into Rust values, or into
//! a core `invalid_request` (reason `invalid_argument`) that names the argument and the type
//! expected, never its value (which may be 20 MB long or hold a token).
//!
//! Rules every export gets from here:
//! - **Guarded reads.** Every property read, key listing and array read goes through
//!   [`guard`]: a throwing getter, a `Proxy` trap that throws, a revoked `Proxy` become our
//!   `invalid_request` (the JavaScript exception is cleared, so it cannot escape as a
//!   `TypeError` without `code`, nor make an async export throw synchronously).
//! - **`null` is absent.** An optional argument or option field that is `null` is treated
//!   exactly like `undefined` (the default applies); a required one is "required" either way.
//! - **Own enumerable string keys only** for records ([`string_record`]): a key added to
//!   `Object.prototype` is never read.
//! - **Sizes are checked before copying**: a text over [`MAX_TEXT_UNITS`] characters, any other
//!   string over [`MAX_STRING_BYTES`], is refused from its length alone; long texts are copied
//!   as UTF-16 and decoded on the worker ([`Text`]), so no argument holds the JS thread long.
//! - **Options** are typed structs (`#[napi(object)]`, for the TypeScript types) that implement
//!   [`FromFields`]: each field is read through [`Fields`], then merged over the core's
//!   `Default` by the export, which validates ranges.

use std::ptr;

use napi::bindgen_prelude::*;
use napi::{sys, JsString, JsValue, ValueType};

use context_engine_core::error::{reason, Error as CoreError, Result as CoreResult};

/// The largest text any export accepts in one argument, and in all of an argument's strings
/// together (a record of sections, a list of files): 8 Mi UTF-16 code units (JavaScript's
/// `length`). Larger inputs are rejected with `invalid_request` (reason `too_large`) from the
/// length alone, which V8 knows without reading the string, rather than clamped: silently
/// counting or truncating part of a caller's text would give a wrong answer that looks right.
///
/// The bound keeps the one cost no export can move off the JS thread, copying the text out of
/// V8, under 10 ms on any text (see [`text`]).
pub(crate) const MAX_TEXT_UNITS: usize = 8 * 1024 * 1024;

/// The largest other string (a name, a path, a query, a label, an issue body): 1 MiB of UTF-8.
pub(crate) const MAX_STRING_BYTES: usize = 1024 * 1024;

/// Texts longer than this (UTF-16 units) are copied as UTF-16 and decoded to UTF-8 on the
/// worker ([`Text::Utf16`]): V8 writes UTF-8 for non-ASCII text at about 1.6 ms per MB, but
/// copies UTF-16 at memory speed.
const UTF16_FROM_UNITS: usize = 1 << 20;

/// The error of a bad argument: `{name} {problem}` (for example `options.maxLines must be a
/// whole number from 1 to 10`), reason `invalid_argument`. The one place argument errors are
/// built; `problem` must never contain the caller's value.
pub(crate) fn bad(name: &str, problem: &str) -> CoreError {
    CoreError::invalid_request(format!("{name} {problem}")).with_reason(reason::INVALID_ARGUMENT)
}

/// `{name} must be {expected}`.
pub(crate) fn expected(name: &str, what: &str) -> CoreError {
    bad(name, &format!("must be {what}"))
}

/// Clears a JavaScript exception left pending by a failed N-API call (a getter or a `Proxy`
/// trap that threw), so that our own error is the one the caller sees.
pub(crate) fn clear_exception(env: sys::napi_env) {
    let mut pending = false;
    // SAFETY: both calls only read and reset the env's pending-exception slot.
    unsafe {
        if sys::napi_is_exception_pending(env, &raw mut pending) == sys::Status::napi_ok && pending
        {
            let mut error = ptr::null_mut();
            sys::napi_get_and_clear_last_exception(env, &raw mut error);
        }
    }
}

/// Runs one N-API read: on failure any pending JavaScript exception is cleared and the result
/// is `error()`.
pub(crate) fn guard<T>(
    env: sys::napi_env,
    result: napi::Result<T>,
    error: impl FnOnce() -> CoreError,
) -> CoreResult<T> {
    result.map_err(|_| {
        clear_exception(env);
        error()
    })
}

/// The JavaScript type of `value` (`Unknown` when napi cannot tell).
pub(crate) fn type_of(value: &Unknown<'_>) -> ValueType {
    value.get_type().unwrap_or(ValueType::Unknown)
}

/// `undefined` or `null` (both mean "absent").
pub(crate) fn is_missing(value: &Unknown<'_>) -> bool {
    matches!(type_of(value), ValueType::Undefined | ValueType::Null)
}

/// An optional argument: `None` for `undefined` and `null`.
pub(crate) fn present(value: Option<Unknown<'_>>) -> Option<Unknown<'_>> {
    value.filter(|v| !is_missing(v))
}

/// Whether `value` is an array (a `Proxy` of an array is not one).
pub(crate) fn is_array(value: &Unknown<'_>) -> bool {
    type_of(value) == ValueType::Object && value.is_array().unwrap_or(false)
}

/// A required string of at most [`MAX_STRING_BYTES`] (checked before the text is copied).
pub(crate) fn string(value: Unknown<'_>, name: &str) -> CoreResult<String> {
    string_max(value, name, MAX_STRING_BYTES)
}

/// A large text argument as read on the JS thread; [`Text::into_string`] finishes it (on the
/// worker, for async exports).
pub(crate) enum Text {
    /// Read as UTF-8 (short texts), with its length in UTF-16 units.
    Utf8(String, usize),
    /// Read as UTF-16 (long texts), not yet decoded.
    Utf16(Vec<u16>),
}

impl Text {
    /// The text as UTF-8 (lone surrogates become U+FFFD, as V8's own UTF-8 output has them).
    pub(crate) fn into_string(self) -> String {
        match self {
            Text::Utf8(s, _) => s,
            Text::Utf16(units) => String::from_utf16_lossy(&units),
        }
    }

    /// Length in UTF-16 code units (JavaScript's `length`): what a size bound counts.
    pub(crate) fn len(&self) -> usize {
        match self {
            Text::Utf8(_, units) => *units,
            Text::Utf16(units) => units.len(),
        }
    }

    /// Unicode code points (a surrogate pair is one, a lone surrogate one), without decoding.
    pub(crate) fn chars(&self) -> usize {
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

/// A required text of at most [`MAX_TEXT_UNITS`] UTF-16 units, refused from its length alone
/// when longer; short texts are read as UTF-8, long ones as UTF-16 (see [`Text`]).
pub(crate) fn text(value: Unknown<'_>, name: &str) -> CoreResult<Text> {
    text_max(value, name, MAX_TEXT_UNITS)
}

/// [`text`] with a bound of `max_units`.
pub(crate) fn text_max(value: Unknown<'_>, name: &str, max_units: usize) -> CoreResult<Text> {
    let units = utf16_len(&value, name)?;
    if units > max_units {
        return Err(too_long(name, max_units));
    }
    if units <= UTF16_FROM_UNITS {
        return read_utf8(&value, name, usize::MAX).map(|s| Text::Utf8(s, units));
    }
    let env = value.value().env;
    let mut buf: Vec<u16> = Vec::with_capacity(units + 1);
    let mut written = 0usize;
    // SAFETY: `buf` has room for `units` code units and the NUL N-API writes after them.
    let status = unsafe {
        sys::napi_get_value_string_utf16(
            env,
            value.raw(),
            buf.as_mut_ptr(),
            units + 1,
            &raw mut written,
        )
    };
    if status != sys::Status::napi_ok || written > units {
        clear_exception(env);
        return Err(expected(name, "a string"));
    }
    // SAFETY: N-API wrote `written` code units (plus a NUL that is not kept).
    unsafe { buf.set_len(written) };
    Ok(Text::Utf16(buf))
}

/// The `length` of a string argument (UTF-16 code units), which V8 knows without reading it.
fn utf16_len(value: &Unknown<'_>, name: &str) -> CoreResult<usize> {
    if type_of(value) != ValueType::String {
        return Err(expected(name, "a string"));
    }
    let env = value.value().env;
    guard(
        env,
        JsString::from_unknown(*value).and_then(|s| s.utf16_len()),
        || expected(name, "a string"),
    )
}

/// The error of a text longer than `max_units` UTF-16 units (JavaScript's `length`), reason
/// `too_large`.
pub(crate) fn too_long(name: &str, max_units: usize) -> CoreError {
    CoreError::invalid_request(format!(
        "{name} is too long (at most {max_units} characters of `length`)"
    ))
    .with_reason(reason::TOO_LARGE)
}

/// A required string of at most `max` bytes of UTF-8 (checked before the text is copied: its
/// UTF-16 length first, which costs nothing, then its UTF-8 length).
pub(crate) fn string_max(value: Unknown<'_>, name: &str, max: usize) -> CoreResult<String> {
    // UTF-8 takes at least one byte per UTF-16 unit: a longer `length` is too large at once.
    if utf16_len(&value, name)? > max {
        return Err(too_large(name, max));
    }
    read_utf8(&value, name, max)
}

/// A string argument copied as UTF-8, refused when over `max` bytes.
fn read_utf8(value: &Unknown<'_>, name: &str, max: usize) -> CoreResult<String> {
    let env = value.value().env;
    let len = guard(
        env,
        JsString::from_unknown(*value).and_then(|s| s.utf8_len()),
        || expected(name, "a string"),
    )?;
    if len > max {
        return Err(too_large(name, max));
    }
    // One copy into a buffer of the known length (napi's own `String` conversion would measure
    // the string a second time).
    let mut buf: Vec<u8> = Vec::with_capacity(len + 1);
    let mut written = 0usize;
    // SAFETY: `buf` has room for `len` bytes and the NUL N-API writes after them.
    let status = unsafe {
        sys::napi_get_value_string_utf8(
            env,
            value.raw(),
            buf.as_mut_ptr().cast(),
            len + 1,
            &raw mut written,
        )
    };
    if status != sys::Status::napi_ok || written > len {
        clear_exception(env);
        return Err(expected(name, "a string"));
    }
    // SAFETY: N-API wrote `written` bytes of UTF-8 (plus a NUL that is not kept).
    unsafe { buf.set_len(written) };
    String::from_utf8(buf).map_err(|_| expected(name, "a string"))
}

/// `{name} is too large (at most N MiB/KiB/bytes)`.
pub(crate) fn too_large(name: &str, max: usize) -> CoreError {
    let limit = if max >= 1024 * 1024 && max.is_multiple_of(1024 * 1024) {
        format!("{} MiB", max / (1024 * 1024))
    } else if max >= 1024 && max.is_multiple_of(1024) {
        format!("{} KiB", max / 1024)
    } else {
        format!("{max} bytes")
    };
    CoreError::invalid_request(format!("{name} is too large (at most {limit})"))
        .with_reason(reason::TOO_LARGE)
}

/// An optional string: `undefined` and `null` mean absent.
pub(crate) fn opt_string(value: Option<Unknown<'_>>, name: &str) -> CoreResult<Option<String>> {
    present(value).map(|v| string(v, name)).transpose()
}

/// A required number (any finite or infinite double; NaN included: callers check ranges).
pub(crate) fn number(value: Unknown<'_>, name: &str) -> CoreResult<f64> {
    if type_of(&value) != ValueType::Number {
        return Err(expected(name, "a number"));
    }
    let env = value.value().env;
    guard(env, f64::from_unknown(value), || expected(name, "a number"))
}

/// A required boolean.
pub(crate) fn boolean(value: Unknown<'_>, name: &str) -> CoreResult<bool> {
    if type_of(&value) != ValueType::Boolean {
        return Err(expected(name, "a boolean"));
    }
    let env = value.value().env;
    guard(env, bool::from_unknown(value), || {
        expected(name, "a boolean")
    })
}

/// A required whole number in `min..=max` (finite, no fraction, not NaN).
pub(crate) fn whole(value: Unknown<'_>, name: &str, min: u64, max: u64) -> CoreResult<u64> {
    let range = || expected(name, &format!("a whole number from {min} to {max}"));
    if type_of(&value) != ValueType::Number {
        return Err(range());
    }
    let n = number(value, name).map_err(|_| range())?;
    in_range(n, min, max).ok_or_else(range)
}

fn in_range(n: f64, min: u64, max: u64) -> Option<u64> {
    (n.is_finite() && n.fract() == 0.0 && n >= min as f64 && n <= max as f64).then_some(n as u64)
}

/// An optional whole number in `min..=max`; `undefined`/`null` give `default`.
pub(crate) fn opt_whole(
    value: Option<Unknown<'_>>,
    name: &str,
    default: u64,
    min: u64,
    max: u64,
) -> CoreResult<u64> {
    match present(value) {
        Some(v) => whole(v, name, min, max),
        None => Ok(default),
    }
}

/// A required plain object (not an array, not `null`, not a function).
pub(crate) fn object<'env>(value: Unknown<'env>, name: &str) -> CoreResult<Object<'env>> {
    if type_of(&value) != ValueType::Object || value.is_array().unwrap_or(true) {
        return Err(expected(name, "an object"));
    }
    let env = value.value().env;
    guard(env, Object::from_unknown(value), || {
        expected(name, "an object")
    })
}

/// An optional plain object; `undefined`/`null` give `None`.
pub(crate) fn opt_object<'env>(
    value: Option<Unknown<'env>>,
    name: &str,
) -> CoreResult<Option<Object<'env>>> {
    present(value).map(|v| object(v, name)).transpose()
}

/// A named property of an object, read through [`guard`] (a throwing getter or `Proxy` trap is
/// `invalid_request`). `None` when it is `undefined` or `null`.
pub(crate) fn field<'env>(object: &Object<'env>, key: &str) -> CoreResult<Option<Unknown<'env>>> {
    let env = object.value().env;
    let value = guard(env, object.get::<Unknown<'env>>(key), || {
        bad(key, "could not be read")
    })?;
    Ok(present(value))
}

/// A required array of at most `max_len` entries, as its items (each read through [`guard`]).
pub(crate) fn array<'env>(
    value: Unknown<'env>,
    name: &str,
    what: &str,
    max_len: u32,
) -> CoreResult<Vec<Unknown<'env>>> {
    if !is_array(&value) {
        return Err(expected(name, what));
    }
    let env = value.value().env;
    let array = guard(env, Array::from_unknown(value), || expected(name, what))?;
    if array.len() > max_len {
        return Err(bad(
            name,
            &format!("has too many entries (at most {max_len})"),
        ));
    }
    (0..array.len())
        .map(|i| {
            guard(env, array.get::<Unknown<'env>>(i), || {
                bad(name, "could not be read")
            })?
            .ok_or_else(|| bad(name, "could not be read"))
        })
        .collect()
}

/// An array of whole numbers in `min..=max`, at most `max_len` long.
pub(crate) fn whole_list(
    value: Unknown<'_>,
    name: &str,
    min: u64,
    max: u64,
    max_len: u32,
) -> CoreResult<Vec<u64>> {
    let item_name = format!("each entry of {name}");
    array(value, name, "an array of numbers", max_len)?
        .into_iter()
        .map(|item| whole(item, &item_name, min, max))
        .collect()
}

/// An array of strings, at most `max_len` entries of at most [`MAX_STRING_BYTES`] each, and
/// [`MAX_TEXT_UNITS`] in all.
pub(crate) fn string_list(value: Unknown<'_>, name: &str, max_len: u32) -> CoreResult<Vec<String>> {
    let item = format!("each entry of {name}");
    let mut total = 0usize;
    array(value, name, "an array of strings", max_len)?
        .into_iter()
        .map(|v| {
            total += utf16_len(&v, &item)?;
            if total > MAX_TEXT_UNITS {
                return Err(too_long(name, MAX_TEXT_UNITS));
            }
            string(v, &item)
        })
        .collect()
}

/// The own enumerable string-keyed properties of `object`, as `(key, value)` in property
/// order. Inherited properties (a key added to `Object.prototype`) and symbols are not read.
pub(crate) fn own_entries<'env>(
    object: &Object<'env>,
    name: &str,
) -> CoreResult<Vec<(String, Unknown<'env>)>> {
    let env = object.value().env;
    let unreadable = || bad(name, "could not be read");
    // Own enumerable keys, numbers as strings; symbols are skipped below (the safe API takes
    // one filter, not a combination). A Proxy trap that throws is `unreadable`.
    let names = guard(
        env,
        object.get_all_property_names(
            KeyCollectionMode::OwnOnly,
            KeyFilter::Enumerable,
            KeyConversion::NumbersToStrings,
        ),
        unreadable,
    )?;
    let count = guard(env, names.get_array_length(), unreadable)?;
    let mut out = Vec::with_capacity(count as usize);
    for i in 0..count {
        let key = guard(env, names.get_element::<Unknown<'env>>(i), unreadable)?;
        if type_of(&key) == ValueType::Symbol {
            continue;
        }
        let text = string_max(key, &format!("a key of {name}"), MAX_STRING_BYTES)?;
        let value = guard(
            env,
            object.get_property::<_, Unknown<'env>>(key),
            unreadable,
        )?;
        out.push((text, value));
    }
    Ok(out)
}

/// A plain object whose own enumerable values are all strings, as `(key, value)` pairs in the
/// object's property order, with at most `max_total` bytes of text in all.
pub(crate) fn string_record(
    value: Unknown<'_>,
    name: &str,
    max_units: usize,
) -> CoreResult<Vec<(String, Text)>> {
    let object = object(value, name)?;
    let mut total = 0usize;
    let mut out = Vec::new();
    for (key, value) in own_entries(&object, name)? {
        if type_of(&value) != ValueType::String {
            return Err(bad(name, "values must be strings"));
        }
        total += utf16_len(&value, name)? + key.len();
        if total > max_units {
            return Err(too_long(name, max_units));
        }
        let text = text_max(value, &format!("a value of {name}"), max_units)?;
        out.push((key, text));
    }
    Ok(out)
}

/// An options object being read: each accessor reads one field through [`guard`], treats
/// `undefined` and `null` as absent, and names the field as `{name}.{key}` in errors.
pub(crate) struct Fields<'env> {
    object: Object<'env>,
    name: String,
}

impl<'env> Fields<'env> {
    /// The fields of a required object argument.
    pub(crate) fn of(value: Unknown<'env>, name: &str) -> CoreResult<Fields<'env>> {
        Ok(Fields {
            object: object(value, name)?,
            name: name.to_owned(),
        })
    }

    /// The fields of an optional object argument (`None` for `undefined`/`null`).
    pub(crate) fn of_opt(
        value: Option<Unknown<'env>>,
        name: &str,
    ) -> CoreResult<Option<Fields<'env>>> {
        present(value).map(|v| Fields::of(v, name)).transpose()
    }

    /// `{name}.{key}`, the field's name in messages.
    pub(crate) fn name(&self, key: &str) -> String {
        format!("{}.{key}", self.name)
    }

    /// The raw field; `None` when `undefined` or `null`.
    pub(crate) fn get(&self, key: &str) -> CoreResult<Option<Unknown<'env>>> {
        let env = self.object.value().env;
        let value = guard(env, self.object.get::<Unknown<'env>>(key), || {
            bad(&self.name(key), "could not be read")
        })?;
        Ok(present(value))
    }

    /// A required field.
    pub(crate) fn required(&self, key: &str) -> CoreResult<Unknown<'env>> {
        self.get(key)?
            .ok_or_else(|| bad(&self.name(key), "is required"))
    }

    /// An optional string field.
    pub(crate) fn string(&self, key: &str) -> CoreResult<Option<String>> {
        self.get(key)?
            .map(|v| string(v, &self.name(key)))
            .transpose()
    }

    /// An optional boolean field.
    pub(crate) fn boolean(&self, key: &str) -> CoreResult<Option<bool>> {
        self.get(key)?
            .map(|v| boolean(v, &self.name(key)))
            .transpose()
    }

    /// An optional number field (range checked by the caller, with [`opt_whole_number`]).
    pub(crate) fn number(&self, key: &str) -> CoreResult<Option<f64>> {
        self.get(key)?
            .map(|v| number(v, &self.name(key)))
            .transpose()
    }

    /// An optional nested options object.
    pub(crate) fn nested<T: FromFields>(&self, key: &str) -> CoreResult<Option<T>> {
        match Fields::of_opt(self.get(key)?, &self.name(key))? {
            Some(f) => T::from_fields(&f).map(Some),
            None => Ok(None),
        }
    }

    /// An optional array of strings.
    pub(crate) fn string_list(&self, key: &str, max_len: u32) -> CoreResult<Option<Vec<String>>> {
        self.get(key)?
            .map(|v| string_list(v, &self.name(key), max_len))
            .transpose()
    }
}

/// An options struct read field by field through [`Fields`] (never through napi's own
/// conversion, whose errors name Rust types and may echo values).
pub(crate) trait FromFields: Sized + Default {
    /// Reads every field; range checks happen when the export merges the struct over the
    /// core's defaults.
    fn from_fields(fields: &Fields<'_>) -> CoreResult<Self>;
}

/// Implements [`FromFields`] for an options struct, one line a field: its JS name and the
/// [`Fields`] reader of its type, e.g. `from_fields!(MaxCharsOptions { max_chars:
/// number("maxChars"), redact: boolean("redact") })`.
macro_rules! from_fields {
    ($name:ident { $($field:ident: $read:ident($($arg:expr),*)),* $(,)? }) => {
        impl $crate::args::FromFields for $name {
            fn from_fields(
                f: &$crate::args::Fields<'_>,
            ) -> context_engine_core::error::Result<Self> {
                Ok($name {
                    $($field: f.$read($($arg),*)?,)*
                })
            }
        }
    };
}
pub(crate) use from_fields;

/// An optional options argument as `T`: `undefined`/`null` give `T::default()` (all fields
/// absent).
pub(crate) fn options<T: FromFields>(value: Option<Unknown<'_>>, name: &str) -> CoreResult<T> {
    match Fields::of_opt(value, name)? {
        Some(f) => T::from_fields(&f),
        None => Ok(T::default()),
    }
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
        Some(n) => in_range(n, min, max)
            .ok_or_else(|| expected(name, &format!("a whole number from {min} to {max}"))),
    }
}

/// A count for JavaScript: `usize` clamped to `u32` (no count the engine reports comes near).
pub(crate) fn clamp_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
