//! Reading a prompt: what it asks for, as weighted terms and the names of files, modules and
//! symbols it carries.
//!
//! Prompts range from a one-word symbol (`SqlMapper`) through a question ("how are routes
//! registered") and a commit message to a whole bug report: prose, a traceback, a fenced code
//! block. [`Query::parse`] reads them all the same way, in one pass over the text:
//! - every word is a term; identifiers written in code style (`camelCase`, `snake_case`,
//!   `a.b()`, backticks) count more, and so do the first line (a title or subject) and the
//!   functions named in stack-trace frames;
//! - a term repeated counts more, but only logarithmically, so a long prompt does not drown
//!   its signal in repetitions (idf does the rest at ranking);
//! - file paths and names (also from traceback frames: Python, JS/TS, Java, Go, Rust) become
//!   [`Query::mentions`], dotted or `::` module paths (`xarray.core.dataset`, imports) become
//!   [`Query::modules`], and identifiers and adjacent word pairs become [`Query::names`], which
//!   ranking compares with file stems;
//! - the roles a prompt asks for (tests, docs...) are in [`Query::wanted`].

use std::sync::OnceLock;

use super::roles::Wanted;
use crate::retrieve::tokenize::for_each_term;

/// Weight of terms from backticks or code-style identifiers.
const W_CODE: f32 = 2.0;
/// Extra weight of a compound identifier kept whole over its parts.
const W_WHOLE: f32 = 1.5;
/// Weight of the first line of a prompt of several lines (a title, a commit subject).
const W_FIRST_LINE: f32 = 2.5;
/// Weight of issue-template boilerplate: `<details>` blocks (environment dumps) and task lists.
const W_BOILERPLATE: f32 = 0.3;
/// Weight of a function named by a stack-trace frame.
const W_FRAME: f32 = 2.5;
/// Most distinct terms kept from one prompt (the index keeps the rarest of them).
const MAX_PARSED_TERMS: usize = 256;
/// Most names and module paths kept.
const MAX_NAMES: usize = 64;

/// A parsed prompt.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// Terms with their weights, in first-occurrence order.
    pub terms: Vec<(String, f32)>,
    /// Paths and file names the prompt names (lowercase, `/`-separated).
    pub mentions: Vec<String>,
    /// Module paths the prompt names, as lowercase `/`-separated path tails without an
    /// extension (`xarray.core.dataset` gives `xarray/core/dataset` and `core/dataset`), and
    /// the paths it writes without an extension (`fix(core/axios)`: `lib/core/Axios.js`).
    pub modules: Vec<String>,
    /// Identifiers and adjacent word pairs, lowercase letters and digits only
    /// (`SqlMapper` → `sqlmapper`, "connection pool" → `connectionpool`), for file stems.
    pub names: Vec<String>,
    /// In a one-line prompt, its subject ([`subject_names`]) in both numbers, normalized;
    /// empty otherwise.
    pub subject: Vec<String>,
    /// The prompt's single words as [`names`] normalizes them, with the subject's forms: a
    /// file stem equal to one that is not the subject is named by a modifier of the question.
    pub words: Vec<String>,
    /// In a one-line prompt, its words after the first preposition ("number parsing *with
    /// defaults and range checks*"), normalized as [`words`](Query::words): they complete the
    /// question rather than say what it is about, and a file named after one counts three
    /// quarters of the stem mention ([`complement_words`]).
    pub complements: Vec<String>,
    /// The roles the prompt asks for.
    pub wanted: Wanted,
    /// In a long prompt (a bug report, a commit message with a body), the words of its title
    /// that ask for roles, each with its role group
    /// ([`role_words`](super::roles::role_words)): ranking keeps a group asked for only if
    /// one of its words is not the project's own vocabulary (a test framework's reports speak
    /// of tests, a documentation tool's of docs, describing the code). Empty for a shorter
    /// prompt, whose role words stay requests: a question about a test framework's handling
    /// of a test is often answered by its code named like a test (`test_functions.bash`).
    pub role_words: Vec<(String, u8)>,
    /// When the prompt is a few words only: its identifiers, normalized ([`normalize_name`]),
    /// for which the file that defines exactly that name is looked for.
    pub symbols: Vec<String>,
    /// The same identifiers as typed (`Serialize`, `parse_args`): a definition spelled the
    /// same, case included, is the one meant (`trait Serialize` over `fn serialize`).
    pub symbol_words: Vec<String>,
    /// In a longer one-line prompt, the capitalized words inside its prose, as typed ("how
    /// Applicative combines effects": `Applicative`): a file that alone defines one of them,
    /// spelled the same, is lifted a little ([`rank`](super::rank)).
    pub capitals: Vec<String>,
    /// Runs of adjacent prose words joined as a compound identifier is indexed whole
    /// ("reflection equals" → `reflectionequals` and `reflection_equals`): ranking looks them
    /// up as terms, so a question's words meet the identifier they spell.
    pub phrases: Vec<String>,
    /// Non-empty lines of the prompt (a one-line question or search, or more).
    pub lines: usize,
    /// Error messages and quoted sentences of the prompt ([`messages`]), each as its
    /// lowercase words: a pasted error is usually a string constant of the code, found by
    /// ranking as a phrase in the top files' string literals.
    pub messages: Vec<Vec<String>>,
    /// For each pair of [`SIDES`] of which the prompt names one side only: the other side's
    /// term and the named side's (stemmed). "server-side middleware" gives `(client,
    /// server)`: files of the client side rank lower ([`rank`](super::rank)).
    pub opposites: Vec<(String, String)>,
    /// In a one-line question, the word right after its question word ("how *zls* traverses
    /// the AST", "how does *Dapper* map..."), normalized ([`normalize_name`]): the one who
    /// acts. When it is the project's name it names the project, not the file named after it
    /// ([`rank`](super::rank)).
    pub agent: Option<String>,
    /// In a one-line question with an [`agent`](Query::agent), the forms of the word after
    /// it and of a word joined to that one by "and" or "or" ("how curl *resolves* and
    /// *connects*"): as written, without the third person's `-s` or `-es`, and their agent
    /// nouns (`formats` → `format`, `formatter`), normalized ([`action_names`]). When the
    /// agent is the project, whose name names no file, the action is what the question asks
    /// about and names files as a subject does ([`rank`](super::rank)).
    pub action: Vec<String>,
    /// In a one-line prompt, the terms of the general synonyms of its words ([`SYNONYMS`])
    /// that the prompt does not use itself, each at [`W_SYNONYM`] of its word's weight (the
    /// best when several words give it): "delete files" also looks for `remove`.
    pub synonyms: Vec<(String, f32)>,
    /// The caller will show each file's signals (`explain`): the ranking then also measures
    /// the parts that cost a walk of their own ([`Signals::synonym`](super::rank::Signals)).
    /// Never changes the ranking; `false` from [`Query::parse`].
    pub explain: bool,
}

/// Weight of a synonym's term ([`SYNONYMS`]) relative to the prompt word it stands for.
/// Measured on the DEV sets (2026-11-28, against the table off): 0.3 → semble 0.8947 →
/// 0.8962, semble-extra 0.8823 → 0.8842, commits R@10 / MRR 0.888 / 0.742 → 0.889 / 0.743,
/// the bug-report sets unchanged, held-out commits R@1 / MRR 0.446 / 0.662 → 0.454 / 0.664;
/// 0.5 → semble 0.8963, semble-extra 0.8804. Leaving one repository out, 37 of 38 folds
/// pick 0.3 over {off, 0.3, 0.5}.
pub(crate) const W_SYNONYM: f32 = 0.3;

/// Groups of words that programmers use for one thing, written from general usage (not
/// from the questions of any benchmark): a one-line prompt that uses one word of a group
/// also looks for the others, at [`W_SYNONYM`] of the word's weight.
const SYNONYMS: &[&[&str]] = &[
    &["delete", "remove", "erase"],
    &["reply", "response"],
    &["begin", "start"],
    &["finish", "end"],
    &["create", "make"],
    &["fetch", "retrieve", "get"],
    &["settings", "config", "options", "preferences"],
    &["error", "failure", "exception", "fault"],
    &["parse", "decode"],
    &["launch", "run"],
    &["stop", "halt", "terminate"],
    &["show", "display"],
    &["check", "verify", "validate"],
    &["find", "search", "lookup"],
    &["send", "dispatch"],
    &["update", "modify", "change", "edit"],
    &["copy", "clone", "duplicate"],
    &["combine", "merge", "join"],
    &["split", "separate"],
    &["sort", "order"],
    &["user", "account"],
    &["password", "credential"],
    &["login", "signin"],
    &["directory", "folder"],
    &["picture", "image"],
    &["link", "url"],
    &["size", "length"],
    &["convert", "transform"],
    &["help", "usage"],
    &["quit", "exit"],
    &["close", "shutdown"],
    &["save", "store", "persist"],
    &["load", "read"],
    &["handler", "callback", "hook", "listener"],
    &["task", "job"],
    &["thread", "worker"],
    &["empty", "blank"],
    &["trim", "strip"],
    &["clean", "purge"],
    &["color", "colour"],
    &["hash", "digest"],
    &["compress", "minify"],
];

/// [`Query::synonyms`] of a prompt's `terms`.
fn synonyms(terms: &[(String, f32)], lines: usize) -> Vec<(String, f32)> {
    static GROUPS: OnceLock<Vec<Vec<String>>> = OnceLock::new();
    let groups = GROUPS.get_or_init(|| {
        let term = |w: &str| crate::retrieve::tokenize::terms(w).concat();
        SYNONYMS
            .iter()
            .map(|g| g.iter().map(|w| term(w)).collect())
            .collect()
    });
    let mut out: Vec<(String, f32)> = Vec::new();
    if lines > 1 {
        return out;
    }
    for (t, w) in terms {
        for g in groups.iter().filter(|g| g.contains(t)) {
            for s in g {
                if s == t || terms.iter().any(|(o, _)| o == s) {
                    continue;
                }
                let w = w * W_SYNONYM;
                match out.iter_mut().find(|(o, _)| o == s) {
                    Some(e) => e.1 = e.1.max(w),
                    None => out.push((s.clone(), w)),
                }
            }
        }
    }
    out
}

/// Words for the two sides of one mechanism, which code keeps in files named after their
/// side (`client_middlewares.py` and `web_middlewares.py`, `ser/` and `de/`, `reader.rs` and
/// `writer.rs`): a prompt that names one side asks about that side only.
const SIDES: &[(&str, &str)] = &[
    ("client", "server"),
    ("encode", "decode"),
    ("encoder", "decoder"),
    ("serialize", "deserialize"),
    ("serialization", "deserialization"),
    ("serializer", "deserializer"),
    ("reader", "writer"),
    ("sender", "receiver"),
    ("import", "export"),
    ("upload", "download"),
    ("producer", "consumer"),
    ("inbound", "outbound"),
    ("incoming", "outgoing"),
    ("compress", "decompress"),
    ("encrypt", "decrypt"),
];

/// [`Query::opposites`] of a prompt. A hyphenated compound names no side ("server-sent
/// events" come to the client), except an `X-side` one ("server-side").
fn opposites(prompt: &str) -> Vec<(String, String)> {
    static PAIRS: OnceLock<Vec<(String, String)>> = OnceLock::new();
    let pairs = PAIRS.get_or_init(|| {
        let term = |w: &str| crate::retrieve::tokenize::terms(w).concat();
        SIDES.iter().map(|(a, b)| (term(a), term(b))).collect()
    });
    // Which side of each pair the prompt names: [first, second].
    let mut named = vec![[false; 2]; pairs.len()];
    for token in prompt.split_whitespace() {
        let token = token.trim_matches(|c: char| !c.is_alphanumeric());
        let token = token.strip_suffix("-side").unwrap_or(token);
        if token.contains('-') {
            continue;
        }
        for_each_term(token, |t, _| {
            for ((a, b), n) in pairs.iter().zip(named.iter_mut()) {
                n[0] |= t == a;
                n[1] |= t == b;
            }
        });
    }
    let mut out = Vec::new();
    for ((a, b), n) in pairs.iter().zip(&named) {
        match n {
            [true, false] => out.push((b.clone(), a.clone())),
            [false, true] => out.push((a.clone(), b.clone())),
            _ => {}
        }
    }
    out
}

fn is_code_style(token: &str) -> bool {
    let has_lower = token.chars().any(char::is_lowercase);
    let inner_upper = token.chars().skip(1).any(char::is_uppercase);
    let snake = token.trim_matches('_').contains('_');
    (has_lower && inner_upper) || snake || token.contains("::") || token.ends_with("()")
}

/// Collects terms with their best weight and occurrence count.
#[derive(Default)]
struct Terms {
    list: Vec<(String, f32, u32)>,
    seen: rustc_hash::FxHashMap<String, usize>,
}

impl Terms {
    fn add(&mut self, term: &str, w: f32) {
        if let Some(&i) = self.seen.get(term) {
            let e = &mut self.list[i];
            e.1 = e.1.max(w);
            e.2 += 1;
        } else {
            if self.list.len() >= MAX_PARSED_TERMS * 4 {
                return;
            }
            self.seen.insert(term.to_owned(), self.list.len());
            self.list.push((term.to_owned(), w, 1));
        }
    }

    fn add_text(&mut self, text: &str, w: f32) {
        for_each_term(text, |t, whole| {
            self.add(t, if whole { w * W_WHOLE } else { w });
        });
    }

    /// Weighted terms: the best weight, raised by the log of the count.
    fn finish(self) -> Vec<(String, f32)> {
        let mut terms: Vec<(String, f32)> = self
            .list
            .into_iter()
            .map(|(t, w, n)| (t, w * (1.0 + (n as f32).ln() * 0.5)))
            .collect();
        terms.truncate(MAX_PARSED_TERMS);
        terms
    }
}

/// Characters that separate the tokens of a prompt.
fn is_separator(c: char) -> bool {
    c.is_whitespace() || "\"'(),;[]{}<>".contains(c)
}

impl Query {
    /// Parses a prompt into weighted terms, mentions, modules and names.
    pub fn parse(prompt: &str) -> Query {
        let cleaned = without_noise(prompt);
        let prompt = cleaned.as_str();
        let mut terms = Terms::default();
        let lines = prompt.lines().filter(|l| !l.trim().is_empty()).count();
        let mut first_line = true;
        let mut in_tick = false;
        let mut in_details = false;
        let mut title = String::new();
        // What a short prompt asks for is read from the lines its terms come from.
        let mut asked = String::new();
        for line in prompt.lines() {
            let trimmed = line.trim();
            if trimmed.is_empty() {
                continue;
            }
            if trimmed.contains("<details") {
                in_details = true;
            }
            let line_w = if lines > 1 && first_line {
                W_FIRST_LINE
            } else if in_details || is_checklist(trimmed) {
                W_BOILERPLATE
            } else {
                1.0
            };
            if trimmed.contains("</details") {
                in_details = false;
            }
            if first_line {
                line.clone_into(&mut title);
            }
            first_line = false;
            if is_environment(trimmed) {
                continue;
            }
            if lines <= 3 {
                asked.push_str(line);
                asked.push('\n');
            }
            if let Some(f) = frame_function(line) {
                terms.add_text(f, W_FRAME);
            }
            // Backticked spans count as code (a fence line toggles three times: code stays
            // code only inside inline spans, which is what matters for weighting).
            for (k, span) in line.split('`').enumerate() {
                if k > 0 {
                    in_tick = !in_tick;
                }
                for token in span.split(is_separator) {
                    let code = in_tick || is_code_style(token);
                    let w = if code { W_CODE } else { 1.0 } * line_w;
                    terms.add_text(token, w);
                }
            }
            // Inline spans do not cross lines.
            in_tick = false;
        }
        let terms = terms.finish();
        let synonyms = synonyms(&terms, lines);
        // A long prompt asks for tests or docs in its title; its body mentions them in passing.
        let asked = if lines > 3 { &title } else { &asked };
        let wanted = Wanted::of_text(asked);
        let role_words = if lines > 3 {
            super::roles::role_words(asked)
        } else {
            Vec::new()
        };
        let mut names = names(prompt);
        let (subject, words) = subject_and_words(prompt, lines, &mut names);
        let complements = complement_words(prompt, lines);
        helper_names(asked, &mut names);
        let (symbols, symbol_words): (Vec<String>, Vec<String>) =
            symbols(prompt).into_iter().unzip();
        let capitals = capitals(prompt, &symbol_words);
        let mentions = mentions(prompt);
        let mut modules = modules(prompt);
        // A path without an extension names a file as a module path does.
        for m in &mentions {
            let name = m.rsplit('/').next().unwrap_or(m);
            if crate::retrieve::index::chunk::language(name).is_none() && !modules.contains(m) {
                modules.push(m.clone());
            }
        }
        Query {
            terms,
            mentions,
            modules,
            names,
            subject,
            complements,
            words,
            wanted,
            role_words,
            symbols,
            symbol_words,
            capitals,
            phrases: phrases(prompt),
            lines,
            messages: messages(prompt),
            opposites: opposites(prompt),
            agent: agent(prompt, lines),
            action: action_names(prompt, lines),
            synonyms,
            explain: false,
        }
    }
}

/// Most messages kept of one prompt, and most words of one.
const MAX_MESSAGES: usize = 8;
const MAX_MESSAGE_WORDS: usize = 40;
/// Fewest words of a message, and fewest of its words with three letters or more.
const MIN_MESSAGE_WORDS: usize = 3;
const MIN_MESSAGE_LONG_WORDS: usize = 2;

/// The error messages and quoted sentences of a prompt, each as its lowercase words (runs of
/// letters and digits), first seen first: the text after `SomeError:`, `SomeException:`,
/// `panic:`, `error:` or `fatal:` on a line (a traceback's last line, a pasted error), and
/// the text between double quotes, backticks or single quotes (an apostrophe inside a word
/// is not a quote). At least [`MIN_MESSAGE_WORDS`] words: a quoted identifier is not a
/// message.
pub fn messages(prompt: &str) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut keep = |text: &str| {
        let words: Vec<String> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .take(MAX_MESSAGE_WORDS)
            .map(str::to_lowercase)
            .collect();
        let long = words
            .iter()
            .filter(|w| w.chars().count() >= 3 && !w.bytes().all(|b| b.is_ascii_digit()))
            .count();
        if words.len() >= MIN_MESSAGE_WORDS
            && long >= MIN_MESSAGE_LONG_WORDS
            && out.len() < MAX_MESSAGES
            && !out.contains(&words)
        {
            out.push(words);
        }
    };
    for line in prompt.lines() {
        if let Some(m) = error_message(line) {
            keep(m);
        }
        // A quoted sentence, not a quoted path or name (`File "x/y.py"`).
        for q in quoted(line) {
            if q.trim().contains(' ') && !q.contains(['/', '\\']) {
                keep(q);
            }
        }
    }
    out
}

/// The message of an error line: what follows `Name:` where the name (its last `.` or `::`
/// part) ends in `Error`, `Exception`, `Warning` or `Failure`, or is `panic`, `error`,
/// `fatal` (any case).
fn error_message(line: &str) -> Option<&str> {
    let (head, rest) = line.trim().split_once(':')?;
    let rest = rest.strip_prefix(':').map_or(rest, |_| "");
    let name = head.rsplit(['.', ' ']).next().unwrap_or(head);
    let lower = name.to_ascii_lowercase();
    let is_error = ["error", "exception", "warning", "failure"]
        .iter()
        .any(|e| lower.ends_with(e))
        || matches!(lower.as_str(), "panic" | "fatal");
    (is_error && (!head.contains(char::is_whitespace) || lower == "panic"))
        .then(|| rest.trim())
        .filter(|r| !r.is_empty())
}

/// The spans of a line between double quotes, backticks or single quotes. A single quote
/// opens only after a character that is not a letter or digit and closes only before one.
fn quoted(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let q = b[i];
        let opens = match q {
            b'"' | b'`' => true,
            b'\'' => i == 0 || !b[i - 1].is_ascii_alphanumeric(),
            _ => false,
        };
        if opens {
            let close = (i + 1..b.len()).find(|&j| {
                b[j] == q && (q != b'\'' || j + 1 == b.len() || !b[j + 1].is_ascii_alphanumeric())
            });
            if let Some(j) = close {
                out.push(&line[i + 1..j]);
                i = j + 1;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// The prompt without what carries no signal: HTML comments (issue-template instructions)
/// and URLs.
fn without_noise(prompt: &str) -> String {
    let mut out = String::with_capacity(prompt.len());
    let mut rest = prompt;
    while let Some(i) = rest.find("<!--") {
        out.push_str(&rest[..i]);
        match rest[i..].find("-->") {
            Some(j) => {
                // Keep the line structure.
                out.extend(rest[i..i + j].chars().filter(|&c| c == '\n'));
                rest = &rest[i + j + 3..];
            }
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    if !out.contains("://") {
        return out;
    }
    let mut cleaned = String::with_capacity(out.len());
    for (k, piece) in out.split("://").enumerate() {
        if k == 0 {
            // Drop the scheme before the first `://`.
            let cut = piece.trim_end_matches(|c: char| c.is_ascii_alphanumeric() || c == '+');
            cleaned.push_str(cut);
            continue;
        }
        // Skip the URL body, then keep up to the next scheme.
        let end = piece
            .find(|c: char| c.is_whitespace() || ")]>\"'`".contains(c))
            .unwrap_or(piece.len());
        let tail = &piece[end..];
        let cut = tail.trim_end_matches(|c: char| c.is_ascii_alphanumeric() || c == '+');
        cleaned.push(' ');
        cleaned.push_str(cut);
    }
    cleaned
}

/// A task-list line (`- [x] ...`): issue-template boilerplate.
fn is_checklist(line: &str) -> bool {
    let l = line.trim_start_matches(['-', '*', ' ']);
    l.starts_with("[ ]") || l.starts_with("[x]") || l.starts_with("[X]")
}

/// An environment line of a bug report (`numpy: 1.21.0`, `python-bits: 64`,
/// `libhdf5: None`): a name and a version, which name no code of the project.
fn is_environment(line: &str) -> bool {
    let Some((key, value)) = line.split_once(':') else {
        return false;
    };
    let key = key.trim();
    let value = value.trim();
    !key.is_empty()
        && key.len() <= 40
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || "_-. ".contains(c))
        && (value == "None"
            || value.starts_with(|c: char| c.is_ascii_digit())
            || value.starts_with('v') && value[1..].starts_with(|c: char| c.is_ascii_digit()))
}

/// The function a stack-trace frame names, if `line` is one: Python (`File "a.py", line 3,
/// in f`), JS/TS and Java (`at f (a.js:1:2)`, `at a.B.f(B.java:3)`), Rust (`3: a::b::f`).
fn frame_function(line: &str) -> Option<&str> {
    let t = line.trim();
    let name = if let Some(rest) = t.strip_prefix("File \"") {
        rest.rsplit_once(", in ")?.1.trim()
    } else if let Some(rest) = t.strip_prefix("at ") {
        // A frame has a location in parentheses: `at f (a.js:1:2)`, `at a.B.f(B.java:3)`.
        if !(rest.contains('(') && rest.trim_end().ends_with(')')) {
            return None;
        }
        let head = rest.split(['(', ' ']).next()?;
        head.rsplit(['.', '/']).next()?
    } else if let Some((num, rest)) = t.split_once(": ") {
        if !num.bytes().all(|b| b.is_ascii_digit()) || !rest.contains("::") {
            return None;
        }
        let path = rest.split([' ', '<']).next()?;
        path.trim_end_matches("::{{closure}}").rsplit("::").next()?
    } else {
        return None;
    };
    let name = name.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_'));
    (name.len() >= 3 && name.chars().all(|c| c.is_alphanumeric() || c == '_')).then_some(name)
}

/// Paths and file names in a prompt: tokens with a `/` or a file extension, and the files of
/// stack-trace frames (`at f (src/a.ts:3:1)`, `File "a.py", line 3`, `src/a.rs:10:5`).
fn mentions(prompt: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for raw in prompt.split(|c: char| c.is_whitespace() || "\"'`(),;[]{}<>=".contains(c)) {
        let mut token = raw.trim_matches(|c: char| matches!(c, '.' | ':' | '!' | '?' | '#'));
        // Drop a trailing `:line[:col]`.
        while let Some((head, tail)) = token.rsplit_once(':') {
            if !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) {
                token = head;
            } else {
                break;
            }
        }
        let token = token.trim_start_matches("./").replace('\\', "/");
        if token.len() < 3 || token.len() > 300 || token.contains("://") {
            continue;
        }
        let name = token.rsplit('/').next().unwrap_or(&token);
        let has_ext = name
            .rsplit_once('.')
            .is_some_and(|(stem, _)| stem.len() >= 2)
            && crate::retrieve::index::chunk::language(name).is_some();
        // A path without an extension needs two parts (`src/cli`, not `/details` or `and/or`
        // ... which two parts still allow; idf keeps such words cheap).
        let parts = token.split('/').filter(|p| !p.is_empty()).count();
        if !(has_ext || token.contains('/') && parts >= 2) {
            continue;
        }
        let lower = token.to_lowercase();
        if !out.contains(&lower) && out.len() < MAX_NAMES {
            out.push(lower);
        }
    }
    out
}

/// Module paths: dotted or `::` names of two or more identifiers (`xarray.core.dataset`,
/// `std::io::Read`, `org.apache.x.StringUtils`), as path tails of two or more parts.
fn modules(prompt: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for raw in prompt.split(|c: char| !(c.is_alphanumeric() || "_.:".contains(c))) {
        let token = raw.trim_matches(|c: char| c == '.' || c == ':');
        let parts: Vec<&str> = if token.contains("::") {
            token.split("::").collect()
        } else {
            token.split('.').collect()
        };
        if parts.len() < 2
            || parts.iter().any(|p| {
                p.len() < 2
                    || !p
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_alphabetic() || c == '_')
                    || p.contains(':')
            })
        {
            continue;
        }
        // A file name with an extension is a mention, not a module.
        if parts.len() == 2 && crate::retrieve::index::chunk::language(token).is_some() {
            continue;
        }
        let lower: Vec<String> = parts.iter().map(|p| p.to_lowercase()).collect();
        // Every run of two or more consecutive parts ending anywhere: `a.b.C` may be the
        // module `a/b` (C a class in it) or `a/b/c`.
        for end in (2..=lower.len()).rev() {
            for start in 0..end - 1 {
                let tail = lower[start..end].join("/");
                if !out.contains(&tail) && out.len() < MAX_NAMES {
                    out.push(tail);
                }
            }
        }
    }
    out
}

/// Most words of a prompt that is looked up as symbols.
const MAX_SYMBOL_PROMPT_WORDS: usize = 4;

/// Words for a kind of declaration: in a longer prompt, a name written beside one ("the
/// Content protocol", "trait Serialize", "how Key type is used") names a declaration.
const KIND_WORDS: &[&str] = &[
    "protocol",
    "interface",
    "trait",
    "class",
    "struct",
    "enum",
    "type",
    "module",
    "behaviour",
    "behavior",
    "typeclass",
    "record",
    "mixin",
    "macro",
    "extension",
];

/// A word written as a name: capitalized, or with `_`, `$` or inner capitals.
fn name_shaped(w: &str) -> bool {
    w.starts_with(char::is_uppercase) || w.contains(['_', '$']) || is_code_style(w)
}

/// The identifiers of a short prompt (`SqlMapper`, `Router`, `parse_args`, `Vitest class`),
/// normalized and as typed. In a longer one-line prompt, whose words are prose, only the names
/// written beside a word for a kind of declaration ([`declared_names`]).
fn symbols(prompt: &str) -> Vec<(String, String)> {
    let words: Vec<&str> = prompt
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .filter(|w| !w.is_empty())
        .collect();
    if words.len() > MAX_SYMBOL_PROMPT_WORDS {
        return if prompt.lines().count() > 1 {
            Vec::new()
        } else {
            declared_names(prompt)
        };
    }
    // In a few words of prose ("reflection equals builder internals") plain lowercase words
    // are words, not names: only a one-word prompt or identifier-shaped words (`Router`,
    // `parse_args`, `createStore`) are looked up.
    let single = words.len() == 1;
    let mut out: Vec<(String, String)> = Vec::new();
    for w in words {
        if !(single || name_shaped(w)) {
            continue;
        }
        let n = normalize_name(w);
        if n.chars().count() >= 3
            && !n.bytes().all(|b| b.is_ascii_digit())
            && !out.iter().any(|(o, _)| *o == n)
        {
            out.push((n, w.to_owned()));
        }
    }
    out
}

/// The names a one-line prompt writes beside a word for a kind of declaration ([`KIND_WORDS`]):
/// `Content` in "Content protocol for encoding bodies", `Serialize` in "standard library type
/// Serialize implementations". Words are separated by spaces: a hyphenated word such as
/// `Content-Type` is no name, and its parts are no kind.
fn declared_names(prompt: &str) -> Vec<(String, String)> {
    let is_word = |w: &&str| {
        !w.is_empty()
            && w.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
    };
    let words: Vec<&str> = prompt
        .split_whitespace()
        .map(|t| t.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')))
        .collect();
    let kind = |i: usize| {
        words
            .get(i)
            .is_some_and(|w| KIND_WORDS.iter().any(|k| w.eq_ignore_ascii_case(k)))
    };
    let mut out: Vec<(String, String)> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if !is_word(w) || !name_shaped(w) || kind(i) || !(kind(i + 1) || (i > 0 && kind(i - 1))) {
            continue;
        }
        let n = normalize_name(w);
        if n.chars().count() >= 3 && !out.iter().any(|(o, _)| *o == n) {
            out.push((n, (*w).to_owned()));
        }
    }
    out
}

/// Most capitalized words of one prompt looked for as definitions (each is searched for in
/// the text of each of the top files).
const MAX_CAPITALS: usize = 8;

/// The capitalized words inside the prose of a longer one-line prompt, as typed, other than
/// its `symbols`: not its first word, which any sentence capitalizes, unless it has inner
/// capitals (`MonoidK`); not an acronym such as `HTTP`; not a word quoted as code (`Any`),
/// which is weighed as code already and often names another library's type.
fn capitals(prompt: &str, symbols: &[String]) -> Vec<String> {
    if prompt.lines().count() > 1 {
        return Vec::new();
    }
    let words: Vec<&str> = prompt
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    if words.len() <= MAX_SYMBOL_PROMPT_WORDS {
        return Vec::new();
    }
    let prose: Vec<&str> = prompt.split('`').step_by(2).collect();
    let first = words[0];
    let words = prose
        .iter()
        .flat_map(|p| p.split(|c: char| !(c.is_alphanumeric() || c == '_')))
        .filter(|w| !w.is_empty());
    let mut out: Vec<String> = Vec::new();
    for (i, w) in words.enumerate() {
        // A sentence capitalizes its first word; a name keeps its inner capitals (`MonoidK`).
        if i == 0 && w == first && !is_code_style(w) {
            continue;
        }
        if w.chars().count() >= 3
            && w.starts_with(|c: char| c.is_ascii_uppercase())
            && w.chars().any(|c| c.is_ascii_lowercase())
            && w.chars().all(|c| c.is_ascii_alphanumeric())
            && !symbols.iter().any(|s| s == w)
            && !out.iter().any(|o| o == w)
            && out.len() < MAX_CAPITALS
        {
            out.push(w.to_owned());
        }
    }
    out
}

/// Most phrases kept from one prompt.
const MAX_PHRASES: usize = 32;

/// Runs of two or three adjacent plain words (letters and digits; no stop word and no
/// punctuation between them), joined as an identifier made of them is indexed whole:
/// `reflectionequals` (`reflectionEquals`) and `reflection_equals`; and the two or three
/// parts of a hyphenated word ("URL-encoded": `urlencoded`, its stem `urlencod` as a
/// one-word identifier is indexed, and `url_encoded`). Words already written as identifiers
/// are terms whole by themselves.
fn phrases(prompt: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let flush = |run: &mut Vec<String>, out: &mut Vec<String>| {
        for k in 2..=3 {
            for w in run.windows(k) {
                for joined in [w.concat(), w.join("_")] {
                    if out.len() < MAX_PHRASES && !out.contains(&joined) {
                        out.push(joined);
                    }
                }
            }
        }
        run.clear();
    };
    for line in prompt.lines() {
        let mut run: Vec<String> = Vec::new();
        for token in line.split(' ') {
            let word = token.trim_end_matches([',', '.', ':', ';', '?', '!']);
            // A hyphenated compound ("URL-encoded", "multipart/form-data") is written as
            // one word: joined, it is the identifier it names (`urlencoded`, `form_data`).
            for piece in word.split('/') {
                let parts: Vec<&str> = piece.split('-').collect();
                let plain = |p: &&str| {
                    !p.is_empty()
                        && p.chars().all(char::is_alphanumeric)
                        && p.chars().any(char::is_alphabetic)
                };
                if (2..=3).contains(&parts.len()) && parts.iter().all(plain) {
                    let lower: Vec<String> = parts.iter().map(|p| p.to_lowercase()).collect();
                    // As one lowercase word (`urlencoded`) an identifier is indexed stemmed.
                    let concat = lower.concat();
                    let stemmed = crate::retrieve::tokenize::stem(&mut concat.clone()).to_owned();
                    for joined in [concat, stemmed, lower.join("_")] {
                        if out.len() < MAX_PHRASES && !out.contains(&joined) {
                            out.push(joined);
                        }
                    }
                }
            }
            let plain = !word.is_empty()
                && word.len() <= 30
                && word.chars().all(char::is_alphanumeric)
                && word.chars().any(char::is_alphabetic);
            let lower = word.to_lowercase();
            if !plain || crate::retrieve::tokenize::is_stop_word(&lower) {
                flush(&mut run, &mut out);
                continue;
            }
            run.push(lower);
            // Punctuation after a word ends the run.
            if word.len() != token.len() {
                flush(&mut run, &mut out);
            }
        }
        flush(&mut run, &mut out);
    }
    out
}

/// Lowercase letters and digits of `s`.
pub fn normalize_name(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Words that ask for helpers, and the suffixes code gives the modules holding them.
const HELPER_WORDS: [&str; 6] = ["helper", "helpers", "utility", "utilities", "util", "utils"];
const HELPER_SUFFIXES: [&str; 5] = ["utils", "util", "utilities", "helper", "helpers"];

/// A prompt that asks for helpers or utilities ("string helpers", "array utility
/// operations") names the modules that hold them after their subject, whichever word of the
/// prompt that is: each of its words with a helper suffix (`StringUtils`, `string_utils`,
/// `ArrayHelper`, normalized) joins `names`, at most [`MAX_NAMES`] more.
fn helper_names(text: &str, names: &mut Vec<String>) {
    if !crate::retrieve::tokenize::has_word(text, &HELPER_WORDS) {
        return;
    }
    let cap = names.len() + MAX_NAMES;
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        if names.len() >= cap {
            break;
        }
        let word = normalize_name(word);
        if word.chars().count() < 3
            || word.bytes().all(|b| b.is_ascii_digit())
            || crate::retrieve::tokenize::is_stop_word(&word)
            || HELPER_WORDS.contains(&word.as_str())
        {
            continue;
        }
        for suffix in HELPER_SUFFIXES {
            let name = format!("{word}{suffix}");
            if names.len() < cap && !names.contains(&name) {
                names.push(name);
            }
        }
    }
}

/// The words of a prompt as the one-line readings ([`subject_names`], [`complement_words`],
/// [`single_words`]) take them: runs of letters, digits, `_` and `-` (a hyphenated or
/// `snake_case` word is one), without a leading or trailing `-` or `_`, empty ones left out.
fn prompt_words(prompt: &str) -> impl Iterator<Item = &str> {
    prompt
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .map(|t| t.trim_matches(['-', '_']))
        .filter(|w| !w.is_empty())
}

/// Auxiliary verbs that may follow a question word before its agent ("how *does* Dapper map").
const AUXILIARIES: [&str; 6] = ["does", "do", "can", "should", "would", "will"];

/// [`Query::agent`] of a prompt: the word after the question word that opens a one-line
/// question (and after an auxiliary verb), if it is neither a stop word nor a question word.
fn agent(prompt: &str, lines: usize) -> Option<String> {
    if lines != 1 {
        return None;
    }
    let mut words = prompt_words(prompt);
    let first = words.next()?;
    if !QUESTION_WORDS.iter().any(|q| first.eq_ignore_ascii_case(q)) {
        return None;
    }
    let mut next = words.next()?;
    if AUXILIARIES.iter().any(|a| next.eq_ignore_ascii_case(a)) {
        next = words.next()?;
    }
    let lower = next.to_lowercase();
    if crate::retrieve::tokenize::is_stop_word(&lower) || QUESTION_WORDS.contains(&lower.as_str()) {
        return None;
    }
    Some(normalize_name(next))
}

/// [`Query::action`] of a prompt: the word after its [`agent`] and the word an "and" or "or"
/// joins to it ([`action_word`]), in their forms ([`action_forms`]).
fn action_names(prompt: &str, lines: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if agent(prompt, lines).is_none() {
        return out;
    }
    let mut words = prompt_words(prompt);
    words.next();
    // The agent, after an auxiliary verb if there is one; then the action, and a second one
    // after a conjunction.
    if words
        .next()
        .is_some_and(|w| AUXILIARIES.iter().any(|a| w.eq_ignore_ascii_case(a)))
    {
        words.next();
    }
    let first = action_word(words.next());
    let second = match words.next() {
        Some("and" | "or") if first.is_some() => action_word(words.next()),
        _ => None,
    };
    for w in first.into_iter().chain(second) {
        for f in action_forms(w) {
            if !out.contains(&f) {
                out.push(f);
            }
        }
    }
    out
}

/// `w` if it may be a question's action ([`action_names`]): plain, lowercase, at least
/// [`MIN_SUBJECT`] letters long and not a stop word.
fn action_word(w: Option<&str>) -> Option<&str> {
    w.filter(|w| {
        w.len() >= MIN_SUBJECT
            && w.bytes().all(|b| b.is_ascii_lowercase())
            && !crate::retrieve::tokenize::is_stop_word(w)
    })
}

/// A verb's forms that name files: as written, without the third person's `-s` or `-es`
/// (`connects` → `connect`, `caches` → `cache`), the agent nouns of its stem (`formats`
/// → `formatter`, `validates` → `validator`: [`agent_forms`](super::rank::agent_forms)), and
/// the path forms of its stem, as a subject word no path holds gets them
/// ([`path_forms`](super::rank::path_forms): `initializes` → `init`).
fn action_forms(word: &str) -> Vec<String> {
    let mut out = vec![word.to_owned()];
    if let Some(one) = word.strip_suffix('s').filter(|_| !word.ends_with("ss")) {
        out.push(one.to_owned());
        if let Some(root) = one.strip_suffix('e') {
            out.push(root.to_owned());
        }
    }
    let stem = crate::retrieve::tokenize::stem(&mut word.to_owned()).to_owned();
    let short = super::rank::path_forms(&stem, &[]);
    for f in super::rank::agent_forms(&stem, &[])
        .into_iter()
        .chain(short.into_iter().map(str::to_owned))
    {
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out.retain(|f| f.len() >= MIN_SUBJECT - 1);
    out
}

/// Question words that open a sentence before its subject ("how the pool schedules").
const QUESTION_WORDS: [&str; 5] = ["how", "what", "where", "why", "who"];
/// Shortest subject whose singular or plural names files.
const MIN_SUBJECT: usize = 4;

/// The subject of a one-line question, its first word that is neither a stop word nor a
/// question word ("task state and task result tracking", "project-level configuration"),
/// the next such word when the first is a word for a role ("test reporter interface"),
/// names the files called after it in the singular or plural (`tasks.ts`, `project.ts`),
/// which the other words do not: a later word is often a modifier of the subject, and the file
/// named after it wins wrongly (`state.ts`). Joins `names` as the word itself (the first part
/// of a hyphenated compound is not a name otherwise) and its other number.
fn subject_names(prompt: &str, names: &mut Vec<String>) -> Vec<String> {
    let mut candidates = prompt_words(prompt).filter(|w| {
        !crate::retrieve::tokenize::is_stop_word(&w.to_lowercase())
            && !QUESTION_WORDS.iter().any(|q| w.eq_ignore_ascii_case(q))
    });
    // A first word for a role ("test reporter interface...") asks for a kind of file, which
    // the engine's role factors answer: the topic is the word after it (`reporters.ts`).
    let mut first = candidates.next();
    if first.is_some_and(|w| !super::roles::role_words(w).is_empty()) {
        first = candidates.next();
    }
    let Some(token) = first else {
        return Vec::new();
    };
    // A word, or the first part of a hyphenated one; not an identifier (`format_error`,
    // `StateManager`), whose whole name is a name already.
    let word = token.split('-').next().unwrap_or(token);
    let plain = word.chars().skip(1).all(|c| c.is_ascii_lowercase())
        && word.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
    // A word for a role (after another one: "test spec runner") is not the topic either.
    if !plain || word.len() < MIN_SUBJECT || !super::roles::role_words(word).is_empty() {
        return Vec::new();
    }
    let word = word.to_ascii_lowercase();
    let mut forms = vec![word.clone()];
    let vowel = |b: u8| b"aeiou".contains(&b);
    if let Some(one) = word.strip_suffix("ies") {
        forms.push(format!("{one}y"));
    } else if word.ends_with("ss") || word.ends_with("us") || word.ends_with("is") {
        forms.push(format!("{word}es"));
    } else if let Some(one) = word.strip_suffix('s') {
        forms.push(one.to_owned());
        if let Some(root) = one.strip_suffix('e') {
            if root.ends_with(['s', 'x']) || root.ends_with("ch") || root.ends_with("sh") {
                forms.push(root.to_owned());
            }
        }
    } else if let Some(one) = word
        .strip_suffix('y')
        .filter(|o| !o.bytes().last().is_some_and(vowel))
    {
        forms.push(format!("{one}ies"));
    } else if word.ends_with('x') || word.ends_with("ch") || word.ends_with("sh") {
        forms.push(format!("{word}es"));
    } else {
        forms.push(format!("{word}s"));
    }
    forms.retain(|f| f.len() >= MIN_SUBJECT - 1);
    for f in &forms {
        if !names.contains(f) {
            names.push(f.clone());
        }
    }
    forms
}

/// A one-line prompt's subject forms ([`subject_names`], joined to `names`) and, when it has
/// a subject, its [`single_words`]; nothing for a longer prompt.
fn subject_and_words(
    prompt: &str,
    lines: usize,
    names: &mut Vec<String>,
) -> (Vec<String>, Vec<String>) {
    if lines != 1 {
        return (Vec::new(), Vec::new());
    }
    let subject = subject_names(prompt, names);
    let words = if subject.is_empty() {
        Vec::new()
    } else {
        single_words(prompt)
    };
    (subject, words)
}

/// Prepositions that open a complement of a question ("number parsing *with* defaults and
/// range checks", "retry a failed request" has none).
const PREPOSITIONS: [&str; 15] = [
    "with", "for", "of", "in", "into", "from", "via", "on", "after", "without", "by", "through",
    "between", "to", "across",
];

/// The words of a one-line prompt after its first preposition ([`PREPOSITIONS`]), normalized
/// as [`single_words`] (stop words left out); nothing for a longer prompt. What follows a
/// preposition completes the question (defaults, a range, the middleware a request passes
/// through), and a file named after such a word won over the answer as often as not.
fn complement_words(prompt: &str, lines: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if lines != 1 {
        return out;
    }
    let mut after = false;
    for raw in prompt_words(prompt) {
        let lower = raw.to_lowercase();
        let preposition = PREPOSITIONS.contains(&lower.as_str());
        if after && !preposition && !crate::retrieve::tokenize::is_stop_word(&lower) {
            let n = normalize_name(raw);
            if n.chars().count() >= 3 && !out.contains(&n) {
                out.push(n);
            }
        }
        after |= preposition;
    }
    out
}

/// The prompt's words normalized as [`names`] normalizes them (identifiers whole), at least
/// three characters long.
fn single_words(prompt: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for raw in prompt_words(prompt) {
        let n = normalize_name(raw);
        if n.chars().count() >= 3 && !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

/// Identifiers of the prompt and its adjacent word pairs, normalized ([`normalize_name`]).
fn names(prompt: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let push = |n: String, out: &mut Vec<String>| {
        if out.len() < MAX_NAMES && n.chars().count() >= 3 && !out.contains(&n) {
            out.push(n);
        }
    };
    let mut prev: Option<String> = None;
    for raw in prompt.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-')) {
        let word = raw.trim_matches(|c: char| c == '-' || c == '_');
        if word.is_empty() {
            prev = None;
            continue;
        }
        let n = normalize_name(word);
        if n.is_empty() || n.bytes().all(|b| b.is_ascii_digit()) {
            prev = None;
            continue;
        }
        if let Some(p) = prev.take() {
            push(format!("{p}{n}"), &mut out);
        }
        push(n.clone(), &mut out);
        prev = Some(n);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pasted_errors_and_quoted_sentences_are_messages() {
        let words = |m: &[&str]| m.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
        let q = Query::parse(
            "Traceback (most recent call last):\n  File \"app/x.py\", line 3, in f\n\
             flask.ctx.RuntimeError: Working outside of application context.\n\
             thread 'main' panicked at 'hash ring is empty', src/lib.rs:4\n\
             it says `connection reset by peer` and the name `ring`; don't panic",
        );
        assert_eq!(
            q.messages,
            vec![
                words(&["working", "outside", "of", "application", "context"]),
                words(&["hash", "ring", "is", "empty"]),
                words(&["connection", "reset", "by", "peer"]),
            ]
        );
        assert_eq!(
            messages("panic: lease: renew called on released lease"),
            vec![words(&[
                "lease", "renew", "called", "on", "released", "lease"
            ])]
        );
        // A question has none; nor has a quoted name or path.
        assert!(Query::parse("how are routes registered")
            .messages
            .is_empty());
        assert!(messages("see \"src/app.py\" and 'Router'").is_empty());
    }

    #[test]
    fn a_path_without_an_extension_is_also_a_module_path() {
        let q = Query::parse("fix(core/axios): handle un-writable error stack");
        assert!(
            q.modules.contains(&"core/axios".to_owned()),
            "{:?}",
            q.modules
        );
        // With an extension it is a file's path, not a module's.
        let q = Query::parse("fix crash in src/cli/args.rs");
        let with_extension = ["src/cli/args.rs".to_owned(), "cli/args.rs".to_owned()];
        assert!(
            !q.modules.iter().any(|m| with_extension.contains(m)),
            "{:?}",
            q.modules
        );
    }

    #[test]
    fn a_longer_prompt_keeps_the_capitalized_words_of_its_prose() {
        let capitals = |p: &str| -> Vec<String> { Query::parse(p).capitals };
        assert_eq!(
            capitals("how Applicative combines independent effects"),
            ["Applicative"]
        );
        // Not the first word, not an acronym, not code, not a declared name (a symbol).
        assert_eq!(
            capitals("Picker opens an HTTP window via `Storage` in Lua"),
            ["Lua"]
        );
        assert_eq!(
            capitals("how the Key type and the Value are used"),
            ["Value"]
        );
        // A first word with inner capitals is a name all the same.
        assert_eq!(
            capitals("MonoidK and SemigroupK type classes for combining values"),
            ["MonoidK"]
        );
        // A short prompt's words are its symbols; a longer prompt of several lines is prose.
        assert!(capitals("the Router").is_empty());
        assert!(capitals("how Applicative combines\nindependent effects").is_empty());
    }

    #[test]
    fn a_longer_prompt_names_the_symbols_written_beside_a_kind_of_declaration() {
        let symbols = |p: &str| -> Vec<String> { Query::parse(p).symbol_words };
        assert_eq!(
            symbols("Content protocol for encoding and decoding request and response bodies"),
            ["Content"]
        );
        assert_eq!(
            symbols("standard library type Serialize implementations"),
            ["Serialize"]
        );
        assert_eq!(
            symbols("how the Key type is used as an object field"),
            ["Key"]
        );
        // Prose, a hyphenated word and a bug report are not looked up.
        assert!(symbols("how the Contravariant functor reverses the mapping").is_empty());
        assert!(symbols("fixed common Content-Type header merging").is_empty());
        assert!(symbols("the Content protocol\nfails when the body is empty").is_empty());
    }

    #[test]
    fn the_subject_of_a_question_names_its_files_in_either_number() {
        let names = |p: &str| Query::parse(p).names;
        let n = names("task state and task result tracking");
        assert!(n.contains(&"tasks".to_owned()), "{n:?}");
        // A later word names its own file only as written.
        assert!(!n.contains(&"states".to_owned()), "{n:?}");
        let n = names("project-level configuration and workspace projects");
        assert!(n.contains(&"project".to_owned()), "{n:?}");
        assert!(!n.contains(&"workspaces".to_owned()), "{n:?}");
        let n = names("how the registries resolve packages");
        assert!(n.contains(&"registry".to_owned()), "{n:?}");
        assert!(names("how matches are sorted").contains(&"match".to_owned()));
        // Identifiers, short words and longer prompts name nothing more.
        assert!(!names("format_error and error handling").contains(&"formats".to_owned()));
        assert!(!names("how a new easy handle is made").contains(&"news".to_owned()));
        assert!(!names("task state\nand results").contains(&"tasks".to_owned()));
        // A word for a role asks for a kind of file: the topic is the word after it.
        assert_eq!(
            Query::parse("test reporter interface for test events").subject,
            ["reporter", "reporters"]
        );
        assert!(Query::parse("test spec runner").subject.is_empty());
        assert!(Query::parse("test").subject.is_empty());
        assert_eq!(Query::parse("task state").subject, ["task", "tasks"]);
    }

    #[test]
    fn the_word_after_the_question_word_is_the_agent() {
        let agent = |p: &str| Query::parse(p).agent;
        assert_eq!(
            agent("how zls traverses the Zig AST"),
            Some("zls".to_owned())
        );
        assert_eq!(
            agent("how does FastAPI run sync route functions"),
            Some("fastapi".to_owned())
        );
        // After an article, without a question word, or in a longer prompt: none.
        assert_eq!(agent("how the server starts"), None);
        assert_eq!(agent("zls traverses the AST"), None);
        assert_eq!(agent("how zls traverses\nthe AST"), None);
    }

    #[test]
    fn the_words_after_the_agent_are_its_action() {
        let action = |p: &str| Query::parse(p).action;
        let a = action("how curl resolves and connects to a remote host");
        for f in [
            "resolves",
            "resolve",
            "resolver",
            "connects",
            "connect",
            "connector",
        ] {
            assert!(a.contains(&f.to_owned()), "{f}: {a:?}");
        }
        // The agent noun of the stem: `formats` → `formatter`, `validates` → `validator`.
        assert!(action("how bats formats test output").contains(&"formatter".to_owned()));
        assert!(action("how bats validates the count").contains(&"validator".to_owned()));
        assert!(action("how does Dapper cache parameters").contains(&"cache".to_owned()));
        // The path forms of the stem: its usual abbreviation (`initializes` → `init`).
        let a2 = action("how vitest initializes worker threads");
        assert!(a2.contains(&"init".to_owned()), "{a2:?}");
        // Only the word after the agent and one joined to it: "to a remote host" is not.
        assert!(!a.contains(&"host".to_owned()), "{a:?}");
        // A capitalized or short word is a name or too common; no agent, no action.
        assert!(action("how vapor Application stores services").is_empty());
        assert!(action("how does FastAPI run sync routes").is_empty());
        assert!(action("how the server starts").is_empty());
        assert!(action("how zls traverses\nthe AST").is_empty());
    }

    #[test]
    fn the_words_after_a_questions_first_preposition_are_its_complement() {
        let c = |p: &str| Query::parse(p).complements;
        assert_eq!(
            c("number parsing with defaults and range checks"),
            ["defaults", "range", "checks"]
        );
        assert_eq!(
            c("where a connection is taken from the driver and released after the query"),
            ["driver", "released", "query"]
        );
        // No preposition, or a longer prompt: no complement.
        assert_eq!(
            c("how curl decides whether to retry a failed request"),
            ["retry", "failed", "request"]
        );
        assert!(c("request and response object internals").is_empty());
        assert!(c("number parsing\nwith defaults").is_empty());
    }

    #[test]
    fn a_prompt_for_helpers_names_the_modules_that_hold_them() {
        let names = Query::parse("null-safe string operations and text helpers").names;
        for n in ["stringutils", "stringhelper", "textutils", "operationsutil"] {
            assert!(names.contains(&n.to_owned()), "{n}: {names:?}");
        }
        for n in ["andutils", "helpersutils"] {
            assert!(!names.contains(&n.to_owned()), "{n}: {names:?}");
        }
        let names = Query::parse("null-safe string operations").names;
        assert!(!names.iter().any(|n| n.ends_with("utils")), "{names:?}");
    }

    #[test]
    fn a_prompt_naming_one_side_of_a_mechanism_gives_the_other() {
        let sides = |p: &str| Query::parse(p).opposites;
        let pair = |a: &str, b: &str| vec![(a.to_owned(), b.to_owned())];
        assert_eq!(
            sides("server-side middleware execution"),
            pair("client", "server")
        );
        assert_eq!(
            sides("WebSocket client implementation"),
            pair("server", "client")
        );
        assert_eq!(sides("how headers are encoded"), pair("decod", "encod"));
        assert_eq!(
            sides("Serializer for dates"),
            pair("deserializer", "serializer")
        );
        // Both sides, or a compound that names neither: nothing to demote.
        assert!(sides("how the client talks to the server").is_empty());
        assert!(sides("how server-sent events are parsed").is_empty());
        assert!(sides("how middleware is composed").is_empty());
    }

    #[test]
    fn parses_code_terms_and_mentions() {
        let q = Query::parse("Fix `parseArgs` crash in src/cli/args.rs:12:5 when FOO is empty");
        let get = |t: &str| q.terms.iter().find(|e| e.0 == t).map(|e| e.1);
        assert!(get("parseargs").unwrap() > get("crash").unwrap());
        assert!(get("arg").is_some());
        assert_eq!(q.mentions, ["src/cli/args.rs"]);
    }

    #[test]
    fn finds_stack_trace_frames() {
        let q = Query::parse(
            "TypeError: x is undefined\n    at handle (/app/src/router.ts:40:11)\n  File \"pkg/mod.py\", line 3, in load_config",
        );
        assert!(q.mentions.contains(&"/app/src/router.ts".to_owned()));
        assert!(q.mentions.contains(&"pkg/mod.py".to_owned()));
        let get = |t: &str| {
            let t = crate::retrieve::tokenize::terms(t).remove(0);
            q.terms.iter().find(|e| e.0 == t).map(|e| e.1)
        };
        // The frame's function weighs more than a prose word of the same line.
        assert!(get("load_config").unwrap() > get("undefined").unwrap());
    }

    #[test]
    fn frame_functions_of_several_languages() {
        assert_eq!(
            frame_function("  File \"/x/a.py\", line 3, in read_table"),
            Some("read_table")
        );
        assert_eq!(
            frame_function("    at Router.handle (src/router.ts:4:1)"),
            Some("handle")
        );
        assert_eq!(
            frame_function("\tat org.x.StringUtils.join(StringUtils.java:40)"),
            Some("join")
        );
        assert_eq!(
            frame_function("  12: grep_searcher::searcher::Searcher::search_path"),
            Some("search_path")
        );
        assert_eq!(frame_function("at the moment it fails"), None);
        assert_eq!(frame_function("Note: see above"), None);
    }

    #[test]
    fn ignores_urls_versions_and_plain_words() {
        let q = Query::parse("see https://example.com/a/b.html for v1.2 and e.g. words");
        assert!(q.mentions.is_empty(), "{:?}", q.mentions);
    }

    #[test]
    fn issue_boilerplate_weighs_little() {
        let q = Query::parse(
            "xr.where drops attrs\n<!-- Please include a minimal example, see https://example.org/guide -->\n\nwhere() loses attrs\n<details>\nINSTALLED VERSIONS\nnumpy: 1.21.0\nnetcdf4: None\n</details>\n- [x] I searched existing issues\n",
        );
        let get = |t: &str| {
            let t = crate::retrieve::tokenize::terms(t).remove(0);
            q.terms.iter().find(|e| e.0 == t).map(|e| e.1)
        };
        assert!(get("please").is_none() && get("guide").is_none() && get("example").is_none());
        assert!(get("numpy").is_none() && get("netcdf4").is_none());
        assert!(get("installed").unwrap() < get("attr").unwrap());
        assert!(get("issues").unwrap() < get("attr").unwrap());
        assert!(q.mentions.is_empty(), "{:?}", q.mentions);
        // Tests named in passing in a long body are not asked for.
        let q = Query::parse("Cookie header split wrong\nline two\nline three\nI ran my tests\n");
        assert!(!q.wanted.tests);
        assert!(Query::parse("fix the failing cookie test").wanted.tests);
    }

    #[test]
    fn a_one_line_prompt_also_looks_for_general_synonyms() {
        let term = |w: &str| crate::retrieve::tokenize::terms(w).concat();
        let q = Query::parse("delete the cached files");
        let delete = q.terms.iter().find(|t| t.0 == term("delete")).unwrap().1;
        let syn = |q: &Query, w: &str| q.synonyms.iter().find(|s| s.0 == term(w)).map(|s| s.1);
        assert_eq!(syn(&q, "remove"), Some(delete * W_SYNONYM));
        assert_eq!(syn(&q, "erase"), Some(delete * W_SYNONYM));
        assert_eq!(syn(&q, "delete"), None);
        // A synonym the prompt holds itself is its own term, not an added one.
        let q = Query::parse("delete or remove the cached files");
        assert_eq!(syn(&q, "remove"), None);
        assert!(syn(&q, "erase").is_some());
        // A longer prompt (a bug report, a commit message with a body) gets none.
        assert!(Query::parse("delete the cached files\nthey stay on disk")
            .synonyms
            .is_empty());
    }

    #[test]
    fn short_prompts_are_symbols() {
        assert_eq!(Query::parse("SqlMapper").symbols, ["sqlmapper"]);
        assert_eq!(Query::parse("parse_args fn").symbols, ["parseargs"]);
        assert_eq!(Query::parse("parse_args fn").symbol_words, ["parse_args"]);
        assert!(Query::parse("how are routes registered in the app")
            .symbols
            .is_empty());
        assert!(Query::parse("reflection equals builder internals")
            .symbols
            .is_empty());
        assert_eq!(Query::parse("formatter").symbols, ["formatter"]);
        assert_eq!(
            Query::parse("WebSocket client implementation").symbols,
            ["websocket"]
        );
        assert_eq!(
            Query::parse("the createStore helper").symbols,
            ["createstore"]
        );
    }

    #[test]
    fn adjacent_words_become_phrases() {
        let q = Query::parse("reflection equals builder, and the hash code");
        for p in [
            "reflectionequals",
            "reflection_equals",
            "equalsbuilder",
            "reflectionequalsbuilder",
            "reflection_equals_builder",
        ] {
            assert!(q.phrases.contains(&p.to_owned()), "{p} in {:?}", q.phrases);
        }
        // Not across punctuation or a stop word, not from identifiers or single words.
        assert!(q.phrases.contains(&"hashcode".to_owned()));
        assert!(!q.phrases.iter().any(|p| p.starts_with("builder")));
        assert!(!q.phrases.iter().any(|p| p.contains("the")));
        assert!(Query::parse("`parseArgs` fails").phrases.is_empty());
        assert!(Query::parse("router").phrases.is_empty());
    }

    #[test]
    fn hyphenated_words_become_phrases() {
        let q =
            Query::parse("URL-encoded form body parser for multipart/form-data, self-describing.");
        for p in [
            "urlencoded",
            "urlencod",
            "url_encoded",
            "formdata",
            "form_data",
            "selfdescribing",
            "self_describing",
        ] {
            assert!(q.phrases.contains(&p.to_owned()), "{p} in {:?}", q.phrases);
        }
        // Not a word with an empty, non-alphanumeric or numeric-only part, nor four parts.
        for prompt in ["a -- b", "x-1 y", "-flag value", "one-two-three-four parts"] {
            let q = Query::parse(prompt);
            assert!(
                !q.phrases
                    .iter()
                    .any(|p| p.contains('1') || p.starts_with("flag") || p.contains("four")),
                "{prompt}: {:?}",
                q.phrases
            );
        }
    }

    #[test]
    fn modules_and_names() {
        let q =
            Query::parse("from xarray.core.dataset import Dataset; the SqlMapper connection pool");
        assert!(q.modules.contains(&"xarray/core/dataset".to_owned()));
        assert!(q.modules.contains(&"core/dataset".to_owned()));
        assert!(q.names.contains(&"sqlmapper".to_owned()));
        assert!(q.names.contains(&"connectionpool".to_owned()));
        let q = Query::parse("see v1.2 and e.g. this");
        assert!(q.modules.is_empty(), "{:?}", q.modules);
    }

    #[test]
    fn first_line_and_wanted_roles() {
        let q = Query::parse("Fix cookie parsing\n\nThe header is split wrong; add a test.");
        let get = |t: &str| {
            let t = crate::retrieve::tokenize::terms(t).remove(0);
            q.terms.iter().find(|e| e.0 == t).map(|e| e.1)
        };
        assert!(get("cookie").unwrap() > get("header").unwrap());
        assert!(q.wanted.tests);
        assert!(!q.wanted.docs);
    }
}
