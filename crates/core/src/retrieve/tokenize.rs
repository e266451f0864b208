//! Tokenization for code and prose: identifiers are kept whole and split into their words.
//!
//! `parseHttpRequest`, `parse_http_request` and `parse-http-request` all yield the words
//! `parse`, `http`, `request`; the first two also yield the whole identifier
//! (`parsehttprequest`, `parse_http_request`), so an exact identifier in a prompt outranks the
//! same words scattered over a file. Words are lowercased and lightly stemmed (plural and
//! `-ing`/`-ed` endings), so "parsing requests" meets `parseRequest`. English stop words and
//! single characters are dropped; pure numbers are dropped (line numbers, versions).
//!
//! The indexer's tokenizer ([`Tokenizer::for_index`]) also reads a run-together word inside
//! an identifier of several parts as its two words when both are common words of code
//! (`Curl_meets_timecondition` also yields `condition`); the index counts those halves as
//! terms, not in lengths.

/// Words too common in prose to help ranking (the list [`is_stop_word`] matches; kept as data
/// for the test that the two agree).
#[cfg_attr(not(test), allow(dead_code))]
const STOP_WORDS: &[&str] = &[
    "a", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can",
    "could", "do", "does", "for", "from", "has", "have", "if", "in", "into", "is", "it", "its",
    "may", "more", "not", "now", "of", "on", "only", "or", "our", "should", "so", "some", "such",
    "than", "that", "the", "their", "then", "there", "these", "they", "this", "to", "use", "used",
    "using", "via", "was", "we", "were", "when", "which", "will", "with", "would", "you",
];

/// True for a word of [`STOP_WORDS`] (a `match`, which compiles to a length switch: this runs
/// for every word of every indexed file).
pub(super) fn is_stop_word(word: &str) -> bool {
    matches!(
        word,
        "a" | "all"
            | "also"
            | "an"
            | "and"
            | "any"
            | "are"
            | "as"
            | "at"
            | "be"
            | "been"
            | "but"
            | "by"
            | "can"
            | "could"
            | "do"
            | "does"
            | "for"
            | "from"
            | "has"
            | "have"
            | "if"
            | "in"
            | "into"
            | "is"
            | "it"
            | "its"
            | "may"
            | "more"
            | "not"
            | "now"
            | "of"
            | "on"
            | "only"
            | "or"
            | "our"
            | "should"
            | "so"
            | "some"
            | "such"
            | "than"
            | "that"
            | "the"
            | "their"
            | "then"
            | "there"
            | "these"
            | "they"
            | "this"
            | "to"
            | "use"
            | "used"
            | "using"
            | "via"
            | "was"
            | "we"
            | "were"
            | "when"
            | "which"
            | "will"
            | "with"
            | "would"
            | "you"
    )
}

/// Longest token kept, in bytes (longer runs are data, not identifiers).
const MAX_TOKEN_BYTES: usize = 64;

/// Calls `emit(term, whole)` for every term of `text`, in order. `whole` is true for a
/// compound identifier kept whole, false for a word (an identifier part or a plain word).
pub fn for_each_term(text: &str, emit: impl FnMut(&str, bool)) {
    Tokenizer::default().each(text, emit);
}

/// [`for_each_term`] with its scratch buffers kept between calls: the indexer tokenizes a
/// whole tree with one per thread instead of allocating them again for every line.
#[derive(Default)]
pub struct Tokenizer {
    word: String,
    whole: String,
    parts: Vec<(usize, usize)>,
    /// Also emits the halves of run-together words ([`compound_split`]).
    compounds: bool,
    /// How many halves the last [`Tokenizer::identifier`] emitted.
    halves: usize,
    /// The run-together parts of the identifier being split: start, split point, end.
    splits: Vec<(usize, usize, usize)>,
}

impl Tokenizer {
    /// The indexer's tokenizer: [`Tokenizer::default`]'s terms and, after them, the halves
    /// of the run-together words of an identifier of several parts (`Curl_meets_timecondition`:
    /// `condition`; [`compound_split`], [`MIN_EMITTED_HALF`]). [`Tokenizer::halves`] says how
    /// many there were, so the index can keep them apart (it counts them as terms, not in
    /// lengths). A prompt is not so split: its `workspace` or `markdown` is meant as one
    /// word, and splitting it would add words to the question.
    pub fn for_index() -> Tokenizer {
        Tokenizer {
            compounds: true,
            ..Tokenizer::default()
        }
    }

    /// How many of the terms the last [`Tokenizer::identifier`] emitted were the halves of a
    /// run-together word (they come last).
    pub fn halves(&self) -> usize {
        self.halves
    }

    /// Calls `emit(term, whole)` for every term of `text`, as [`for_each_term`].
    pub fn each(&mut self, text: &str, mut emit: impl FnMut(&str, bool)) {
        for_each_identifier(text, |ident| self.identifier(ident, &mut emit));
    }

    /// Calls `emit(term, whole)` for the terms of one identifier of [`for_each_identifier`]:
    /// the terms of a text are those of its identifiers in turn, so an indexer may keep them
    /// per identifier instead of deriving them again at every occurrence.
    pub fn identifier(&mut self, ident: &str, emit: &mut impl FnMut(&str, bool)) {
        self.identifier_to(ident, &mut Emit(emit));
    }

    /// [`Tokenizer::identifier`] into `sink`, which may know the terms of a short ASCII part
    /// already ([`Terms::known`]) and is told those it did not ([`Terms::learned`]).
    pub fn identifier_to(&mut self, ident: &str, sink: &mut impl Terms) {
        self.splits.clear();
        let ascii = ident.is_ascii();
        if ascii {
            split_ascii(ident.as_bytes(), &mut self.parts);
        } else {
            split_parts(ident, &mut self.parts);
        }
        if self.parts.len() > 1 {
            let whole = &mut self.whole;
            whole.clear();
            if ascii {
                whole.push_str(ident);
                whole.make_ascii_lowercase();
            } else {
                // `str::to_lowercase`, not per character: it lowers a final sigma as such.
                *whole = ident.to_lowercase();
            }
            if !whole.bytes().all(|b| b.is_ascii_digit() || b == b'_') {
                sink.term(whole, true);
            }
        }
        let word = &mut self.word;
        for &(s, e) in &self.parts {
            let part = &ident[s..e];
            // An ASCII part of at most eight bytes gives the terms it gives as an identifier
            // alone: it splits into itself, and its halves, if any, are too short to emit.
            let known_part = ascii && part.len() <= KNOWN_PART_BYTES;
            if known_part && sink.known(ident, s, e) {
                continue;
            }
            'part: {
                word.clear();
                let short = if ascii {
                    word.push_str(part);
                    word.make_ascii_lowercase();
                    word.len() < 2
                } else {
                    word.extend(part.chars().flat_map(char::to_lowercase));
                    word.chars().count() < 2
                };
                if short || word.bytes().all(|b| b.is_ascii_digit()) {
                    break 'part;
                }
                if is_stop_word(word) {
                    break 'part;
                }
                let stemmed = stem(word);
                sink.term(stemmed, false);
                if self.compounds && ascii && self.parts.len() > 1 && part.len() >= MIN_COMPOUND {
                    let part = part.as_bytes();
                    // All lowercase (a capital first is a word's), or all uppercase.
                    let one_case = part[1..].iter().all(u8::is_ascii_lowercase)
                        || part.iter().all(u8::is_ascii_uppercase);
                    if one_case {
                        if let Some(at) = compound_split(part) {
                            self.splits.push((s, s + at, e));
                        }
                    }
                }
            }
            if known_part {
                sink.learned(ident, s, e);
            }
        }
        // The halves last, so that a caller may tell them from the identifier's own terms.
        self.halves = 0;
        for &(s, at, e) in &self.splits {
            for half in [&ident[s..at], &ident[at..e]] {
                if half.len() < MIN_EMITTED_HALF {
                    continue;
                }
                word.clear();
                word.push_str(half);
                word.make_ascii_lowercase();
                sink.term(stem(word), false);
                self.halves += 1;
            }
        }
    }
}

/// Longest identifier part whose terms a [`Terms`] sink may know already: a part this short
/// emits no halves of a run-together word (with both halves at least [`MIN_COMPOUND_HALF`]
/// long, neither reaches [`MIN_EMITTED_HALF`]).
pub const KNOWN_PART_BYTES: usize = 8;
const _: () = assert!(KNOWN_PART_BYTES < MIN_COMPOUND_HALF + MIN_EMITTED_HALF);

/// Where [`Tokenizer::identifier_to`] puts an identifier's terms.
pub trait Terms {
    /// Receives a term; `whole` as in [`for_each_term`].
    fn term(&mut self, t: &str, whole: bool);

    /// Whether the sink knows the terms of part `ident[s..e]` (ASCII, at most
    /// [`KNOWN_PART_BYTES`] long) and has taken them as if they had been emitted; they are
    /// the terms that part gives as an identifier alone.
    fn known(&mut self, _ident: &str, _s: usize, _e: usize) -> bool {
        false
    }

    /// After the terms of a part the sink did not know ([`Terms::known`] was false) have been
    /// emitted (none if it gives none).
    fn learned(&mut self, _ident: &str, _s: usize, _e: usize) {}
}

/// A closure as a [`Terms`] sink that knows no part.
struct Emit<'a, F>(&'a mut F);

impl<F: FnMut(&str, bool)> Terms for Emit<'_, F> {
    #[inline]
    fn term(&mut self, t: &str, whole: bool) {
        (self.0)(t, whole);
    }
}

/// Shortest identifier part read as a run-together compound ([`compound_split`]).
const MIN_COMPOUND: usize = 8;
/// Shortest half of a compound.
const MIN_COMPOUND_HALF: usize = 4;
/// Shortest half emitted as a term: a four-letter half (`time`, `file`, `name`) is a common
/// word that finds many names already; a longer one (`condition`) is the distinctive part.
const MIN_EMITTED_HALF: usize = 5;

/// Common words of code and its comments, lowercase: the halves a run-together name
/// (`timecondition`, `sessionhandle`, `HOSTNAME`) is split into, and the compound words kept
/// whole (`database`, `callback`). Written as general English of programs, not taken from
/// any tree. Sorted (binary search).
#[rustfmt::skip]
const COMPOUND_WORDS: &[&str] = &[
    "abort", "absolute", "accept", "access", "account", "action", "active", "adapter", "address",
    "agent", "alias", "align", "alloc", "allow", "alpha", "anchor", "answer", "anything", "append",
    "apply", "archive", "area", "array", "assert", "asset", "async", "atomic", "attach", "attr",
    "audio", "auth", "author", "auto", "available", "await", "back", "backend", "balance", "band",
    "base", "baseline", "batch", "before", "begin", "binary", "bind", "blob", "block", "body",
    "bool", "boolean", "border", "bound", "bounds", "branch", "break", "breakpoint", "browser",
    "bucket", "buffer", "build", "builder", "bundle", "button", "byte", "bytes", "cache", "call",
    "callback", "cancel", "canvas", "capture", "card", "case", "cast", "catch", "cell", "chain",
    "change", "channel", "char", "chart", "check", "checkpoint", "child", "chunk", "cipher",
    "class", "clean", "clear", "click", "client", "clock", "clone", "close", "cloud", "cluster",
    "code", "codec", "collect", "color", "column", "command", "comment", "commit", "common",
    "compare", "compile", "complete", "component", "compress", "compute", "concat", "condition",
    "config", "connect", "connection", "console", "const", "constant", "consume", "container",
    "content", "context", "control", "convert", "cookie", "copy", "core", "count", "counter",
    "create", "credential", "cron", "current", "cursor", "custom", "data", "database", "date",
    "debug", "decode", "default", "define", "defined", "delay", "delete", "depth", "derive",
    "describe", "detail", "device", "dict", "digest", "direct", "directory", "dirty", "disable",
    "disk", "dispatch", "display", "document", "domain", "done", "double", "download", "draft",
    "draw", "drive", "driver", "drop", "dump", "dynamic", "each", "early", "edge", "edit",
    "element", "else", "emit", "empty", "enable", "encode", "encoding", "engine", "entry", "enum",
    "equal", "error", "escape", "event", "every", "everything", "exact", "except", "exception",
    "exec", "execute", "exist", "exit", "expand", "expect", "expire", "export", "expr", "extend",
    "extension", "extern", "extra", "face", "factory", "fail", "failure", "false", "fast",
    "feature", "fetch", "field", "file", "filter", "final", "find", "first", "flag", "flat",
    "float", "flow", "flush", "focus", "fold", "folder", "font", "force", "fork", "form", "format",
    "forward", "frame", "framework", "free", "front", "full", "func", "function", "gate",
    "generate", "generic", "global", "group", "guard", "half", "handle", "handler", "hash", "head",
    "header", "heap", "height", "help", "hidden", "hint", "hold", "home", "hook", "host", "http",
    "https", "icon", "ident", "image", "import", "index", "info", "init", "inner", "input",
    "insert", "inspect", "install", "instance", "integer", "interface", "internal", "interval",
    "invalid", "item", "iter", "join", "json", "just", "keep", "kernel", "keyboard", "kind",
    "label", "lang", "language", "large", "last", "latest", "layer", "layout", "lazy", "leaf",
    "left", "length", "level", "library", "life", "lifetime", "light", "limit", "line", "link",
    "list", "listen", "listener", "live", "load", "local", "lock", "logger", "login", "logout",
    "long", "lookup", "loop", "machine", "main", "make", "manager", "manifest", "many", "mapping",
    "mark", "mask", "match", "matrix", "media", "member", "memory", "menu", "merge", "message",
    "meta", "metadata", "method", "metric", "middle", "migrate", "mime", "mode", "model",
    "modified", "module", "monitor", "mount", "mouse", "move", "multi", "mutex", "name",
    "namespace", "native", "need", "nested", "network", "next", "node", "none", "normal", "note",
    "nothing", "notify", "null", "number", "object", "offset", "open", "operation", "option",
    "order", "origin", "output", "over", "overflow", "overload", "override", "overview", "owner",
    "pack", "package", "page", "pair", "panel", "param", "parent", "parse", "parser", "part",
    "pass", "passport", "password", "patch", "path", "pattern", "pause", "payload", "peer",
    "pending", "period", "permission", "pick", "pipe", "pipeline", "pixel", "place", "plain",
    "plan", "platform", "plugin", "point", "pointer", "policy", "pool", "port", "position", "post",
    "prefix", "prepare", "present", "press", "prev", "preview", "primary", "print", "priority",
    "private", "probe", "process", "profile", "program", "progress", "project", "promise",
    "prompt", "property", "protocol", "provider", "proxy", "public", "pull", "push", "query",
    "queue", "quick", "quote", "random", "range", "rate", "read", "reader", "ready", "real",
    "reason", "receive", "record", "redirect", "reduce", "refresh", "regex", "register",
    "registry", "release", "reload", "remote", "remove", "render", "repeat", "reply", "report",
    "request", "require", "reset", "resolve", "resource", "response", "rest", "result", "resume",
    "retry", "return", "reverse", "right", "role", "root", "route", "router", "rule", "runtime",
    "safe", "sample", "save", "scale", "scan", "schema", "scope", "score", "screen", "script",
    "search", "second", "secret", "section", "secure", "seed", "select", "selector", "send",
    "sender", "sequence", "serial", "server", "service", "session", "setting", "settings", "setup",
    "shadow", "shape", "share", "shell", "shift", "short", "show", "side", "sign", "signal",
    "signature", "simple", "single", "sink", "size", "skip", "slice", "slot", "small", "socket",
    "something", "sort", "source", "space", "span", "spec", "split", "stack", "stage", "standard",
    "start", "state", "static", "status", "step", "stop", "storage", "store", "stream", "strict",
    "string", "struct", "style", "subject", "suffix", "suite", "super", "support", "switch",
    "symbol", "sync", "syntax", "system", "table", "temp", "template", "term", "test", "text",
    "theme", "thread", "throw", "tick", "ticket", "time", "timeline", "timer", "title", "token",
    "tool", "total", "trace", "track", "transfer", "transform", "tree", "trigger", "trim", "true",
    "trust", "tuple", "type", "typescript", "unique", "unit", "update", "upload", "user", "util",
    "valid", "validate", "value", "variable", "vector", "verify", "version", "view", "viewport",
    "virtual", "visit", "void", "wait", "walk", "warn", "watch", "weak", "whatever", "when",
    "while", "width", "window", "within", "without", "word", "work", "worker", "workflow",
    "workspace", "wrap", "write", "writer", "zero", "zone",
];

/// A word of at most 16 bytes as a number that orders as the word does: its bytes big-endian,
/// padded with zeros (no word has a zero byte, so a prefix orders first, as in text).
const fn word_key(w: &[u8]) -> u128 {
    let mut k = 0u128;
    let mut i = 0;
    while i < 16 {
        k <<= 8;
        if i < w.len() {
            k |= w[i] as u128;
        }
        i += 1;
    }
    k
}

/// [`COMPOUND_WORDS`] as [`word_key`]s, in the same (sorted) order: a compound split looks
/// words up at every split point of every long identifier part a build meets, and compares
/// numbers here instead of calling `memcmp` for every step of the search.
static COMPOUND_KEYS: [u128; COMPOUND_WORDS.len()] = {
    let mut keys = [0u128; COMPOUND_WORDS.len()];
    let mut i = 0;
    while i < keys.len() {
        assert!(COMPOUND_WORDS[i].len() <= 16);
        keys[i] = word_key(COMPOUND_WORDS[i].as_bytes());
        i += 1;
    }
    keys
};

fn compound_word(w: &[u8]) -> bool {
    // The length checked too: a word with zero bytes at its end has the key of the word
    // without them.
    w.len() <= 16
        && COMPOUND_KEYS
            .binary_search(&word_key(w))
            .is_ok_and(|i| COMPOUND_WORDS[i].len() == w.len())
}

/// Where a one-case identifier part (a capital first allowed) of at least [`MIN_COMPOUND`] letters splits into two
/// [`COMPOUND_WORDS`] of at least [`MIN_COMPOUND_HALF`] letters (`timecondition` → `time`,
/// `condition`): the first such split from the left; `None` when the part is itself one of
/// those words or splits into none. The part's own term is kept too: its halves are added so
/// that "condition" meets `Curl_meets_timecondition`. The words are a fixed list (not learned
/// from the tree), so a file's terms never depend on the others'.
fn compound_split(part: &[u8]) -> Option<usize> {
    let n = part.len();
    let mut lower = [0u8; MAX_TOKEN_BYTES];
    if n > MAX_TOKEN_BYTES {
        return None;
    }
    for (d, b) in lower.iter_mut().zip(part) {
        *d = b.to_ascii_lowercase();
    }
    let lower = &lower[..n];
    if compound_word(lower) {
        return None;
    }
    (MIN_COMPOUND_HALF..=n - MIN_COMPOUND_HALF)
        .find(|&at| compound_word(&lower[..at]) && compound_word(&lower[at..]))
}

/// What a byte is to [`for_each_identifier`]: one table load per byte of every indexed file
/// instead of a chain of range tests.
const SEPARATOR: u8 = 0;
const WORD: u8 = 1;
const NON_ASCII: u8 = 2;
static BYTE_CLASS: [u8; 256] = {
    let mut t = [SEPARATOR; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = if !c.is_ascii() {
            NON_ASCII
        } else if c.is_ascii_alphanumeric() || c == b'_' {
            WORD
        } else {
            SEPARATOR
        };
        b += 1;
    }
    t
};

/// Eight copies of byte `b`.
const fn splat(b: u8) -> u64 {
    (b as u64) * 0x0101_0101_0101_0101
}

const HIGH: u64 = splat(0x80);

/// The high bit of each byte of `w` that is an ASCII letter, digit or `_` (a [`WORD`] byte):
/// eight bytes classified at once, with no branch (the byte loop was a load and a jump a
/// byte of every indexed file). Exact per byte: no sum carries into the next byte.
#[inline]
fn word_bytes(w: u64) -> u64 {
    let ascii = !w & HIGH;
    let x = w & !HIGH;
    // `x + (0x80 - lo)` has its high bit set iff x >= lo; `x + (0x7f - hi)` iff x > hi.
    let ge = |lo: u8| x.wrapping_add(splat(0x80 - lo));
    let gt = |hi: u8| x.wrapping_add(splat(0x7f - hi));
    let digit = ge(b'0') & !gt(b'9');
    let folded = x | splat(0x20);
    let fge = |lo: u8| folded.wrapping_add(splat(0x80 - lo));
    let fgt = |hi: u8| folded.wrapping_add(splat(0x7f - hi));
    let letter = fge(b'a') & !fgt(b'z');
    // `x ^ b'_'` is 0 only for `_`; adding 0x7f sets the high bit of every other byte.
    let underscore = !(x ^ splat(b'_')).wrapping_add(splat(0x7f));
    (digit | letter | underscore) & ascii & HIGH
}

#[inline]
fn load_word(bytes: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(bytes[i..i + 8].try_into().expect("eight bytes"))
}

/// Calls `f(identifier)` for every identifier of `text` (a run of letters, digits and `_`) of
/// at most [`MAX_TOKEN_BYTES`] bytes, in order.
pub fn for_each_identifier(text: &str, mut f: impl FnMut(&str)) {
    let bytes = text.as_bytes();
    let n = bytes.len();
    let mut i = 0;
    while i < n {
        // Skip ASCII non-identifier bytes, eight at a time while they last.
        while i + 8 <= n {
            let w = load_word(bytes, i);
            let start = word_bytes(w) | (w & HIGH);
            if start != 0 {
                i += (start.trailing_zeros() / 8) as usize;
                break;
            }
            i += 8;
        }
        while i < n && BYTE_CLASS[bytes[i] as usize] == SEPARATOR {
            i += 1;
        }
        if i == n {
            break;
        }
        let start = i;
        // ASCII identifier bytes first, eight at a time; a non-ASCII character continues by
        // chars.
        let mut end = start;
        loop {
            if end + 8 <= n {
                let stop = !word_bytes(load_word(bytes, end)) & HIGH;
                if stop == 0 {
                    end += 8;
                    continue;
                }
                end += (stop.trailing_zeros() / 8) as usize;
                break;
            }
            while end < n && BYTE_CLASS[bytes[end] as usize] == WORD {
                end += 1;
            }
            break;
        }
        if end < n && BYTE_CLASS[bytes[end] as usize] == NON_ASCII {
            let from = end;
            for (offset, ch) in text[from..].char_indices() {
                if ch.is_alphanumeric() || ch == '_' {
                    end = from + offset + ch.len_utf8();
                } else {
                    break;
                }
            }
        }
        if end == start {
            // A non-ASCII character that is not alphanumeric.
            i += text[start..].chars().next().map_or(1, char::len_utf8);
            continue;
        }
        let ident = &text[start..end];
        i = end;
        if ident.len() <= MAX_TOKEN_BYTES {
            f(ident);
        }
    }
}

/// True if `text` has one of `words` as a whole word (a run of letters and digits), as written
/// but for case: unstemmed, so "type" is not "types".
pub(super) fn has_word(text: &str, words: &[&str]) -> bool {
    text.split(|c: char| !c.is_alphanumeric())
        .any(|w| words.iter().any(|k| w.eq_ignore_ascii_case(k)))
}

/// Collects the terms of `text` (see [`for_each_term`]).
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_term(text, |t, _| out.push(t.to_owned()));
    out
}

/// [`split_parts`] for an ASCII identifier, on bytes (the same boundaries: for ASCII,
/// `char::is_uppercase` and `is_lowercase` are the ASCII tests).
fn split_ascii(ident: &[u8], parts: &mut Vec<(usize, usize)>) {
    parts.clear();
    let mut start: Option<usize> = None;
    let mut prev = 0u8;
    for (pos, &ch) in ident.iter().enumerate() {
        if ch == b'_' {
            if let Some(s) = start.take() {
                parts.push((s, pos));
            }
            prev = ch;
            continue;
        }
        match start {
            Some(s) if prev != 0 => {
                let next = ident.get(pos + 1).copied().unwrap_or(0);
                let boundary = ch.is_ascii_uppercase()
                    && (prev.is_ascii_lowercase()
                        || (prev.is_ascii_uppercase() && next.is_ascii_lowercase()));
                if boundary && pos > s {
                    parts.push((s, pos));
                    start = Some(pos);
                }
            }
            _ => start = Some(pos),
        }
        prev = ch;
    }
    if let Some(s) = start {
        parts.push((s, ident.len()));
    }
}

/// Splits an identifier into word ranges at `_`, lower→upper and acronym→word boundaries
/// (`HTTPServer` → `HTTP`, `Server`) and letter↔digit boundaries are kept together
/// (`utf8`, `v2` stay whole).
fn split_parts(ident: &str, parts: &mut Vec<(usize, usize)>) {
    parts.clear();
    let mut start: Option<usize> = None;
    let mut prev: Option<char> = None;
    let mut iter = ident.char_indices().peekable();
    while let Some((pos, ch)) = iter.next() {
        let next = iter.peek().map(|&(_, c)| c);
        if ch == '_' {
            if let Some(s) = start.take() {
                parts.push((s, pos));
            }
            prev = Some(ch);
            continue;
        }
        match (start, prev) {
            (Some(s), Some(p)) => {
                let boundary = (ch.is_uppercase() && p.is_lowercase())
                    || (ch.is_uppercase()
                        && p.is_uppercase()
                        && next.is_some_and(char::is_lowercase));
                if boundary && pos > s {
                    parts.push((s, pos));
                    start = Some(pos);
                }
            }
            _ => start = Some(pos),
        }
        prev = Some(ch);
    }
    if let Some(s) = start {
        parts.push((s, ident.len()));
    }
}

/// A light English stemmer: plural `-s`/`-es`/`-ies`, `-ing`, `-ed`, final `-e`. Conservative on short
/// words so that identifiers like `bus`, `class`, `red` survive.
pub fn stem(word: &mut String) -> &str {
    let n = word.len();
    if !word.is_ascii() || n <= 3 {
        return word;
    }
    if n > 4 && word.ends_with("ies") {
        word.truncate(n - 3);
        word.push('y');
    } else if n > 5 && word.ends_with("ing") {
        word.truncate(n - 3);
        undouble(word);
    } else if n > 4 && word.ends_with("ed") && !word.ends_with("eed") {
        word.truncate(n - 2);
        undouble(word);
    } else if n > 4
        && (word.ends_with("ches")
            || word.ends_with("shes")
            || word.ends_with("sses")
            || word.ends_with("xes"))
    {
        word.truncate(n - 2);
    } else if word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
    {
        word.truncate(n - 1);
    }
    // A final silent `e` goes too, so `parse`, `parsed` and `parsing` meet at `pars`.
    if word.len() >= 4 && word.ends_with('e') && !word.ends_with("ee") {
        word.pop();
    }
    word
}

/// `running` → `runn` → `run`: drop a doubled final consonant left by a suffix.
fn undouble(word: &mut String) {
    let b = word.as_bytes();
    let n = b.len();
    if n >= 3 && b[n - 1] == b[n - 2] && !matches!(b[n - 1], b'l' | b's' | b'z' | b'e' | b'o') {
        word.truncate(n - 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_word_match_agrees_with_the_list() {
        for w in STOP_WORDS {
            assert!(is_stop_word(w), "{w}");
        }
        assert!(!is_stop_word("router"));
    }

    #[test]
    fn splits_camel_snake_kebab_and_keeps_whole() {
        assert_eq!(
            terms("parseHttpRequest"),
            ["parsehttprequest", "pars", "http", "request"]
        );
        assert_eq!(
            terms("parse_http_request"),
            ["parse_http_request", "pars", "http", "request"]
        );
        assert_eq!(terms("parse-http-request"), ["pars", "http", "request"]);
        assert_eq!(terms("HTTPServer"), ["httpserver", "http", "server"]);
        assert_eq!(terms("utf8 v2"), ["utf8", "v2"]);
    }

    fn index_terms(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        Tokenizer::for_index().each(text, |t, _| out.push(t.to_owned()));
        out
    }

    #[test]
    fn splits_run_together_names_by_common_words() {
        // Only the indexed text: a prompt's words stay as written.
        assert_eq!(terms("timecondition"), ["timecondition"]);
        assert_eq!(
            index_terms("Curl_meets_timecondition"),
            [
                "curl_meets_timecondition",
                "curl",
                "meet",
                "timecondition",
                "condition"
            ]
        );
        assert_eq!(
            index_terms("CURLOPT_TIMECONDITION"),
            [
                "curlopt_timecondition",
                "curlopt",
                "timecondition",
                "condition"
            ]
        );
        assert_eq!(
            index_terms("free_sessionhandle_fast"),
            [
                "free_sessionhandle_fast",
                "free",
                "sessionhandl",
                "fast",
                "session",
                "handl"
            ]
        );
        assert_eq!(
            index_terms("Free_Sessionhandle"),
            [
                "free_sessionhandle",
                "free",
                "sessionhandl",
                "session",
                "handl"
            ]
        );
        // Four-letter halves are not added (`file`, `name`).
        assert_eq!(
            index_terms("get_filename"),
            ["get_filename", "get", "filenam"]
        );
        // Kept whole: a word on its own, a word of the list, a short one, unknown halves.
        assert_eq!(index_terms("sessionhandle"), ["sessionhandl"]);
        assert_eq!(
            index_terms("user_database"),
            ["user_database", "user", "databas"]
        );
        assert_eq!(
            index_terms("set_timeout"),
            ["set_timeout", "set", "timeout"]
        );
        assert_eq!(
            index_terms("get_hostwxyz"),
            ["get_hostwxyz", "get", "hostwxyz"]
        );
        assert_eq!(
            index_terms("get_conditionxyz"),
            ["get_conditionxyz", "get", "conditionxyz"]
        );
        for w in COMPOUND_WORDS.windows(2) {
            assert!(w[0] < w[1], "{} {}", w[0], w[1]);
        }
    }

    #[test]
    fn compound_words_are_looked_up_as_the_sorted_list_would() {
        assert!(COMPOUND_KEYS.windows(2).all(|k| k[0] < k[1]));
        let mut probes: Vec<Vec<u8>> = Vec::new();
        for w in COMPOUND_WORDS {
            let w = w.as_bytes();
            probes.push(w.to_vec());
            // Prefixes, extensions and neighbours of every word.
            probes.push(w[..w.len() - 1].to_vec());
            probes.push([w, b"s"].concat());
            probes.push([w, &[0u8]].concat());
            let mut next = w.to_vec();
            *next.last_mut().unwrap() += 1;
            probes.push(next);
        }
        probes.extend(
            [&b""[..], b"a", b"zzzzzzzzzzzzzzzzzz", b"workspaceworkspace"].map(<[u8]>::to_vec),
        );
        for p in &probes {
            let want = COMPOUND_WORDS.iter().any(|w| w.as_bytes() == p.as_slice());
            assert_eq!(compound_word(p), want, "{}", String::from_utf8_lossy(p));
        }
    }

    #[test]
    fn stems_prose_lightly() {
        assert_eq!(terms("parsing requests"), ["pars", "request"]);
        assert_eq!(terms("parse parsed"), ["pars", "pars"]);
        assert_eq!(terms("queries handled"), ["query", "handl"]);
        assert_eq!(
            terms("running classes class bus"),
            ["run", "class", "class", "bus"]
        );
    }

    #[test]
    fn drops_stop_words_numbers_and_single_chars() {
        assert_eq!(terms("the a 42 x of router"), ["router"]);
        assert!(terms("").is_empty());
        assert!(terms("!!! ... ???").is_empty());
    }

    proptest::proptest! {
        /// The byte splitter of ASCII identifiers cuts where the character splitter does.
        #[test]
        fn ascii_split_matches_char_split(ident in "[A-Za-z0-9_]{1,24}") {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            split_ascii(ident.as_bytes(), &mut a);
            split_parts(&ident, &mut b);
            proptest::prop_assert_eq!(a, b);
        }

        /// Identifiers are the runs of alphanumeric characters and `_` (of at most
        /// `MAX_TOKEN_BYTES`), as a plain character scan finds them.
        #[test]
        fn identifiers_are_alphanumeric_runs(text in "([ -~\\n\u{e9}\u{3a3}\u{65e5}\u{2026}\u{fe0f}]{0,12}|[a-z_]{0,70}|[\u{0}-\u{ff}]{0,20}){0,8}") {
            let mut want = Vec::new();
            let mut run: Option<usize> = None;
            for (i, ch) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
                let word = ch.is_alphanumeric() || ch == '_';
                match (word, run) {
                    (true, None) => run = Some(i),
                    (false, Some(s)) => {
                        if i - s <= MAX_TOKEN_BYTES {
                            want.push(text[s..i].to_owned());
                        }
                        run = None;
                    }
                    _ => {}
                }
            }
            let mut got = Vec::new();
            for_each_identifier(&text, |w| got.push(w.to_owned()));
            proptest::prop_assert_eq!(got, want);
        }

        /// A sink that knows the terms of short ASCII parts, as each gives them as an
        /// identifier alone, receives the terms the plain tokenizer emits, in order: the part
        /// cache of the indexer changes no term.
        #[test]
        fn known_parts_give_the_terms_of_the_identifier(
            idents in proptest::collection::vec(
                "([A-Za-z0-9]{0,10}_?|[A-Z][a-z]{0,9}|[A-Z]{1,10}|[a-z]{8,14}|timecondition|Session|handle|HOST){1,4}",
                1..12,
            )
        ) {
            struct Known {
                parts: std::collections::HashMap<String, Vec<String>>,
                out: Vec<String>,
                mark: usize,
            }
            impl Terms for Known {
                fn term(&mut self, t: &str, _: bool) {
                    self.out.push(t.to_owned());
                }
                fn known(&mut self, ident: &str, s: usize, e: usize) -> bool {
                    assert!(ident[s..e].is_ascii() && e - s <= KNOWN_PART_BYTES);
                    if let Some(t) = self.parts.get(&ident[s..e]) {
                        self.out.extend(t.iter().cloned());
                        true
                    } else {
                        self.mark = self.out.len();
                        false
                    }
                }
                fn learned(&mut self, ident: &str, s: usize, e: usize) {
                    let t = self.out[self.mark..].to_vec();
                    self.parts.insert(ident[s..e].to_owned(), t);
                }
            }
            let mut sink = Known { parts: std::collections::HashMap::new(), out: Vec::new(), mark: 0 };
            let mut tok = Tokenizer::for_index();
            let mut plain = Tokenizer::for_index();
            for text in &idents {
                for_each_identifier(text, |ident| {
                    sink.out.clear();
                    tok.identifier_to(ident, &mut sink);
                    let known_halves = tok.halves();
                    let mut want = Vec::new();
                    plain.identifier(ident, &mut |t, _| want.push(t.to_owned()));
                    assert_eq!(sink.out, want, "{ident}");
                    assert_eq!(known_halves, plain.halves(), "{ident}");
                    // What a part was learned as is what it gives alone.
                    for (part, terms) in &sink.parts {
                        let mut alone = Vec::new();
                        plain.identifier(part, &mut |t, _| alone.push(t.to_owned()));
                        assert_eq!(terms, &alone, "{part}");
                    }
                });
            }
        }

        /// One tokenizer reused over many texts gives what a fresh one gives each text.
        #[test]
        fn reused_tokenizer_matches_fresh(texts in proptest::collection::vec("[ -~\\n\u{e9}\u{3a3}\u{65e5}]{0,40}", 1..6)) {
            let mut tok = Tokenizer::default();
            for t in &texts {
                let mut reused = Vec::new();
                tok.each(t, |w, whole| reused.push((w.to_owned(), whole)));
                let mut fresh = Vec::new();
                for_each_term(t, |w, whole| fresh.push((w.to_owned(), whole)));
                proptest::prop_assert_eq!(reused, fresh);
            }
        }
    }

    #[test]
    fn word_bytes_are_the_class_table_s() {
        for b in 0..=255u8 {
            for at in 0..8 {
                let w = u64::from(b) << (8 * at) | (splat(b'!') & !(0xff << (8 * at)));
                let want = if BYTE_CLASS[b as usize] == WORD {
                    0x80u64 << (8 * at)
                } else {
                    0
                };
                assert_eq!(word_bytes(w), want, "{b:#x} at {at}");
            }
        }
    }

    #[test]
    fn mixed_ascii_and_unicode_identifiers_stay_whole() {
        assert_eq!(terms("caféBar_x2"), ["cafébar_x2", "café", "bar", "x2"]);
        assert_eq!(terms("ΣΑΣ_id"), ["σας_id", "σασ", "id"]);
        assert_eq!(terms("a…b"), Vec::<String>::new());
    }

    #[test]
    fn handles_unicode_and_long_runs() {
        assert_eq!(terms("naïve café"), ["naïve", "café"]);
        let long = "a".repeat(200);
        assert!(terms(&long).is_empty());
        assert_eq!(terms("日本語 テスト"), ["日本語", "テスト"]);
    }
}
