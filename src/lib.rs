//! context-engine's N-API binding: the whole JavaScript surface of the package, and nothing else.
//!
//! The behaviour lives in the core crate [`context_engine_core`]; this crate only converts.
//!
//! Every export here does three things only: validate and convert its arguments, call one core
//! function, convert the result. Failures cross the boundary in exactly one way
//! ([`bridge::to_js_error`]): a JavaScript `Error` whose `code` is the core
//! [`ErrorKind`](context_engine_core::ErrorKind) string and whose message is the core's user-safe message.
//!
//! Arguments are taken as `Unknown` and validated by [`args`], so a wrong type is an
//! `invalid_request` like any other bad input (napi's own conversion would throw `InvalidArg`,
//! which is not one of the contract's codes); the TypeScript signatures are declared with
//! `ts_args_type`.

// A Rust test binary has no Node runtime to call the exports: the binding is tested from
// TypeScript (`__test__/`), so test builds of this crate are empty.
#![cfg(not(test))]
// The crate docs are for maintainers: they name the private modules that do the work.
#![allow(rustdoc::private_intra_doc_links)]
// napi-rs hands exports `&Env` and owned `Unknown` values; helpers take them the same way so
// that every export reads alike, whatever pedantic clippy would prefer for an 8-byte handle.
#![allow(clippy::trivially_copy_pass_by_ref, clippy::needless_pass_by_value)]

mod args;
mod bridge;
mod budget;
mod builders;
#[cfg(feature = "diagnostics")]
mod diagnostics;
mod engine;
mod expand;
mod github;
mod inject;
mod remote;
mod retrieve;
mod secrets;
mod stats;
mod symbols;
