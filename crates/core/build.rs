//! Writes the token lists of the encodings the API offers (`cl100k_base`, `o200k_base`) to
//! `OUT_DIR` for `src/budget/bpe.rs` to embed, and builds the grammars ([`build_grammars`]).
//!
//! The lists come from the `bpe-openai` crate (MIT), a build dependency only: it ships
//! tiktoken's token files and builds its tokenizers from them; here each token's bytes are
//! read back in rank order (a token's id there is its tiktoken rank) and written as one
//! length byte followed by the bytes. Nothing of `bpe-openai` is linked into the library.

use std::env;
use std::fs;
use std::path::PathBuf;

#[path = "build_grammars.rs"]
mod build_grammars;

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for (name, tokenizer) in [
        ("cl100k_base", bpe_openai::cl100k_base()),
        ("o200k_base", bpe_openai::o200k_base()),
    ] {
        let bpe = &tokenizer.bpe;
        let mut list = Vec::new();
        for id in 0..bpe.num_tokens() {
            let id = u32::try_from(id).expect("fewer than 2^32 tokens");
            let token = bpe.token_bytes(id);
            let len = u8::try_from(token.len()).expect("a token is at most 255 bytes");
            assert!(len > 0, "a token is not empty");
            list.push(len);
            list.extend_from_slice(token);
        }
        fs::write(out.join(format!("{name}.tokens")), list).expect("OUT_DIR is writable");
    }
    build_grammars::build(&out);
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=build_grammars.rs");
}
