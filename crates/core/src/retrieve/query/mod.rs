//! Answering a prompt from an index: what the prompt asks for ([`prompt`]), what each file is
//! for ([`roles`]), how central a file is to the rest of the code ([`central`]), and the
//! ranking that weighs them all with the lexical scores ([`rank`]), the lift of the modules the
//! top files import for a longer prompt ([`refs`]), and the snippets cut from the
//! ranked chunks ([`snippet`]).

pub(super) mod central;
pub(crate) mod prompt;
pub(super) mod prune;
pub(crate) mod rank;
pub(super) mod refs;
pub(crate) mod roles;
pub(super) mod snippet;
