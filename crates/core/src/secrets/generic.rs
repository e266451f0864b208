//! Heuristics for secrets that have no recognisable format of their own.
//!
//! A generic secret is a value assigned to a secret-sounding name. Both halves are judged:
//!
//! - the **name** ([`key_is_sensitive`]) is split into words (`DB_PASSWORD`, `dbPassword`,
//!   `x-api-key`), one of which must be a secret word, and its last word must not turn it into
//!   something else (`password_hash`, `token_url`, `auth_type`, `secret_name`, `access_key_id`);
//! - the **value** ([`accept_value`]) must look random: 8 to 1024 printable ASCII characters
//!   without spaces, not a placeholder (`changeme`, `<your-token>`, `${VAR}`, `process.env.X`,
//!   `xxxxx`, …), not a reference (`config.auth.token`, `sys::FLAG`), not a number
//!   (`0xC00D1590_u32`), not made of words (`auth_token`, `SuperSecretValue`), and with enough
//!   Shannon entropy for its length (see [`entropy_ok`]).

/// Shortest value accepted, in characters.
pub(super) const MIN_LEN: usize = 8;
/// Longest value accepted; longer values are data (certificates, blobs), not credentials.
const MAX_LEN: usize = 1024;
/// Entropy (bits per character) required of long values.
const ENTROPY_LONG: f64 = 3.5;
/// Entropy required of hexadecimal values (at most 4 bits per character).
const ENTROPY_HEX: f64 = 3.0;

/// Words that make an identifier secret-sounding on their own.
#[rustfmt::skip]
const SECRET_WORDS: &[&str] = &[
    "password", "passwd", "passphrase", "passcode", "pass", "secret", "secrets", "token", "auth",
    "authorization", "credential", "credentials", "creds", "cred", "apikey",
];

/// Secret words that also count at the end of a compound word (`dbpassword`, `authtoken`,
/// `clientsecret`, `xapikey`).
#[rustfmt::skip]
const SECRET_SUFFIXES: &[&str] = &[
    "password", "passwd", "passphrase", "secret", "token", "apikey", "accesskey", "secretkey",
    "privatekey",
];

/// `<word> key` pairs that name a secret (`api_key`, `client_key`, `signingKey`).
#[rustfmt::skip]
const KEY_QUALIFIERS: &[&str] = &[
    "api", "access", "private", "secret", "signing", "encryption", "master", "client", "app",
    "auth",
];

/// A name ending in one of these words is about a secret, not the secret itself.
#[rustfmt::skip]
const NOT_SECRET_LAST_WORDS: &[&str] = &[
    "url", "uri", "urls", "endpoint", "host", "hostname", "domain", "path", "file", "filename",
    "filepath", "dir", "directory", "name", "names", "id", "ids", "type", "types", "kind", "mode",
    "method", "methods", "provider", "providers", "scheme", "strategy", "header", "headers",
    "field", "fields", "label", "labels", "placeholder", "hint", "prompt", "message", "msg",
    "text", "title", "description", "desc", "error", "errors", "pattern", "regex", "regexp",
    "format", "policy", "expiry", "expires", "expiration", "expired", "exp", "ttl", "timeout",
    "lifetime", "duration", "age", "count", "counter", "limit", "limits", "length", "len", "size",
    "max", "min", "budget", "usage", "index", "idx", "position", "pos", "offset", "start", "end",
    "version", "enabled", "enable", "disabled", "required", "optional", "visible", "valid", "hash",
    "hashed", "digest", "checksum", "sha", "fingerprint", "salt", "prefix", "suffix", "separator",
    "env", "var", "variable", "store", "storage", "cache", "input", "button", "icon", "color",
    "style", "class", "selector", "event", "events", "state", "status", "callback", "handler",
    "route", "page", "view", "component", "module", "param", "params", "location", "rotation",
    "level", "encoding", "encoder", "decoder", "algorithm", "alg", "cipher",
];

/// A name containing one of these words is not a secret (`public_key`, `publishable_key`).
const NOT_SECRET_WORDS: &[&str] = &["public", "publishable", "pub"];

/// Substrings (lower-case) that mark a value as a placeholder, an example or a reference.
#[rustfmt::skip]
const PLACEHOLDER_MARKERS: &[&str] = &[
    "changeme", "change_me", "change-me", "example", "dummy", "placeholder", "redacted", "your",
    "xxxx", "****", "####", "....", "test", "sample", "fake", "mock", "lorem", "foobar", "todo",
    "fixme", "replace", "insert", "enter", "secret", "password", "token", "apikey", "passw0rd",
    "p@ssw0rd", "p@ssword", "12345", "qwerty", "letmein", "hunter2", "opensesame", "swordfish",
    "none", "null", "undefined",
    "process.env", "os.environ", "getenv", "env(", "env[", "env.", "secrets.", "vault:",
    "arn:aws:", "${", "{{", "}}", "%(", "#{", "<%", "<", ">",
];

/// Whether an identifier (`DB_PASSWORD`, `dbPassword`, `"x-api-key"`) names a secret.
pub(super) fn key_is_sensitive(key: &str) -> bool {
    if key.len() > 96 {
        return false;
    }
    let words = split_words(key);
    let Some(last) = words.last() else {
        return false;
    };
    // `Unexpected_token_A_constructor_was_expected_1068`: a message ID, not a credential name.
    if words.len() > 6 {
        return false;
    }
    if NOT_SECRET_LAST_WORDS.contains(&last.as_str())
        || words.iter().any(|w| NOT_SECRET_WORDS.contains(&w.as_str()))
    {
        return false;
    }
    words.iter().enumerate().any(|(i, word)| {
        let w = word.as_str();
        // `pwd` alone is the shell's working directory; `db_pwd` is a password.
        (w == "pwd" && words.len() > 1)
            || SECRET_WORDS.contains(&w)
            || SECRET_SUFFIXES.iter().any(|s| w.ends_with(s))
            || (w == "key" && i > 0 && KEY_QUALIFIERS.contains(&words[i - 1].as_str()))
    })
}

/// Whether a (sensitive) name is about a password: one of its words is `password`,
/// `passwd`, `passphrase`, `pwd`, `pass` or ends in `password` (`dbPassword`).
pub(super) fn is_password_key(key: &str) -> bool {
    split_words(key).iter().any(|w| {
        matches!(
            w.as_str(),
            "passwd" | "passphrase" | "pwd" | "pass" | "passcode"
        ) || w.ends_with("password")
    })
}

/// Words that make a value with spaces prose (a label, a prompt, a validation message) rather
/// than a passphrase.
#[rustfmt::skip]
const PROSE_WORDS: &[&str] = &[
    "the", "a", "an", "is", "are", "be", "must", "should", "at", "least", "to", "of", "for", "and",
    "or", "with", "your", "you", "please", "enter", "not", "characters", "chars", "letters",
    "invalid", "incorrect", "wrong", "new", "confirm", "required", "field", "min", "max", "too",
    "short", "long", "has", "have", "contain", "contains", "one", "number", "digits",
];

/// Placeholders that stay placeholders under a password name (unlike the entropy rule, `test`,
/// `12345` and `your` alone do not disqualify a password).
#[rustfmt::skip]
const PASSWORD_PLACEHOLDERS: &[&str] = &[
    "changeme", "change_me", "change-me", "example", "dummy", "placeholder", "redacted", "xxxx",
    "****", "####", "....", "replace", "insert", "enter", "process.env", "os.environ", "getenv",
    "env(", "env[", "secrets.", "vault:", "${", "{{", "}}", "%(", "#{", "<%", "<", ">",
];

/// A quoted value under a password name: a password when it has a letter and a digit or a
/// symbol (so labels such as `"Passwort"` or `"Mot de passe"` are not), is 8 to 128 characters
/// of no control characters, and is not a placeholder (`your_password_here`, `${DB_PASS}`,
/// `<password>`), a reference (`config.db.password`), a name (`DB_PASSWORD`) or a sentence
/// (`"Must have 8 characters"`). Spaces and non-ASCII letters are allowed.
pub(super) fn password_ok(value: &str) -> bool {
    let n = value.chars().count();
    if !(MIN_LEN..=128).contains(&n) || value.chars().any(char::is_control) {
        return false;
    }
    let lower = value.to_lowercase();
    if value.starts_with(['$', '{', '/', '%'])
        || PASSWORD_PLACEHOLDERS.iter().any(|m| lower.contains(m))
        || (is_your_placeholder(&lower) && !value.chars().any(|c| c.is_ascii_digit()))
        || has_repeated_run(value)
        || is_sequence(value)
        || is_mostly_percent_encoded(value)
        || is_dotted_identifier(value)
        || is_cased_identifier(value)
        || value.contains("://")
    {
        return false;
    }
    let letter = value.chars().any(char::is_alphabetic);
    let digit = value.chars().any(|c| c.is_ascii_digit());
    let symbol = value.chars().any(|c| "!@#$%^&*+=~|".contains(c));
    if !letter || !(digit || symbol) {
        return false;
    }
    if value.chars().any(char::is_whitespace) {
        let words: Vec<&str> = lower.split_whitespace().collect();
        let prose = words.len() > 6
            || words
                .iter()
                .any(|w| PROSE_WORDS.contains(&w.trim_matches(|c: char| !c.is_alphanumeric())))
            || value.trim_end().ends_with(['.', '?', '!', ':']);
        if prose {
            return false;
        }
    }
    true
}

/// `your_password`, `yourPasswordHere`, `your-api-token`: "your" followed by a secret word.
fn is_your_placeholder(lower: &str) -> bool {
    lower.match_indices("your").any(|(i, _)| {
        let rest = lower[i + 4..].trim_start_matches([' ', '_', '-', '.']);
        [
            "pass", "pwd", "secret", "token", "key", "api", "own", "db", "new",
        ]
        .iter()
        .any(|w| rest.starts_with(w))
    })
}

/// Splits an identifier into lower-case words at non-alphanumerics and camelCase boundaries:
/// `dbPassword` → `db`, `password`; `APIKey` → `api`, `key`; `oauth2_token` → `oauth2`,
/// `token`.
fn split_words(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut words = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            continue;
        }
        if !current.is_empty() && c.is_ascii_uppercase() {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(char::is_ascii_lowercase);
            if prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower)
            {
                words.push(std::mem::take(&mut current));
            }
        }
        current.push(c.to_ascii_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// Judges the value of a keyword-anchored assignment, `text[start..end]`. Returns the range of
/// the secret proper: an `Authorization` scheme (`Bearer `, `Basic `, `Token `) and surrounding
/// blanks are not part of it.
pub(super) fn accept_value(text: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    let mut value = &text[start..end];
    let mut start = start;
    let mut basic = false;
    for scheme in ["bearer", "basic", "token", "bot"] {
        let Some(head) = value.get(..scheme.len()) else {
            continue;
        };
        let rest = &value[scheme.len()..];
        if head.eq_ignore_ascii_case(scheme) && rest.starts_with([' ', '\t']) {
            let trimmed = rest.trim_start();
            start += value.len() - trimmed.len();
            value = trimmed;
            basic = scheme == "basic";
            break;
        }
    }
    let trimmed = value.trim_start();
    start += value.len() - trimmed.len();
    let value = trimmed.trim_end();
    // `Basic <base64 of user:password>`: judge the password the way a URL's is judged, so
    // `Basic dXNlcjpwYXNz` (`user:pass`) is not a finding.
    if basic {
        let decoded = base64_decode(value).and_then(|b| String::from_utf8(b).ok());
        if let Some((user, password)) = decoded.as_deref().and_then(|d| d.split_once(':')) {
            return url_password_ok(user, password).then_some((start, start + value.len()));
        }
    }
    if value_is_secret_like(value) {
        Some((start, start + value.len()))
    } else {
        None
    }
}

fn value_is_secret_like(value: &str) -> bool {
    let n = value.chars().count();
    (MIN_LEN..=MAX_LEN).contains(&n)
        && value.bytes().all(|b| b.is_ascii_graphic())
        && !value.contains("://")
        && !value.contains("-----")
        && !value.contains("::")
        && !is_numeric_literal(value)
        && !is_placeholder(value)
        && !is_dotted_identifier(value)
        && !is_cased_identifier(value)
        && (is_hex(value) || !is_wordlike(value))
        && entropy_ok(value, n)
}

/// The password of `scheme://user:password@host`. URL passwords are often short human-chosen
/// words, so no entropy is required; placeholders and well-known defaults are still skipped.
pub(super) fn url_password_ok(user: &str, password: &str) -> bool {
    const DEFAULTS: &[&str] = &[
        "pass", "pwd", "root", "admin", "guest", "postgres", "mysql", "redis", "user", "username",
        "pw", "passwd",
    ];
    let lower = password.to_ascii_lowercase();
    password.chars().count() >= 6
        && password != user
        && !DEFAULTS.contains(&lower.as_str())
        && !password.starts_with('$')
        && !is_placeholder(password)
}

/// The 40-character value after an `aws_secret_access_key`-like name.
pub(super) fn aws_secret_ok(value: &str) -> bool {
    !value.contains("EXAMPLE")
        && !is_placeholder(value)
        && char_classes(value) >= 2
        && shannon_entropy(value) >= 4.0
}

/// The random part of a prefixed token (`ghp_<body>`): enough distinct characters, no filler
/// run (`…Token00000000`, `xxxxx…`), no `EXAMPLE`-style marker.
pub(super) fn token_body_ok(body: &str) -> bool {
    let lower = body.to_ascii_lowercase();
    let mut seen = [false; 128];
    let mut distinct = 0;
    for b in body.bytes() {
        let slot = &mut seen[usize::from(b & 0x7f)];
        if !*slot {
            *slot = true;
            distinct += 1;
        }
    }
    distinct >= (body.len() / 2).clamp(1, 6)
        && !has_repeated_run(body)
        && !["example", "placeholder", "dummy", "redacted"]
            .iter()
            .any(|m| lower.contains(m))
}

fn is_placeholder(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    if value.starts_with(['$', '{']) || value.ends_with('}') {
        return true;
    }
    if PLACEHOLDER_MARKERS.iter().any(|m| lower.contains(m)) {
        return true;
    }
    has_repeated_run(value) || is_sequence(value) || is_mostly_percent_encoded(value)
}

/// `%00%01%09%0A…`: URL-encoding test data; half or more of the value is `%XX` escapes.
fn is_mostly_percent_encoded(value: &str) -> bool {
    let bytes = value.as_bytes();
    let escapes = bytes
        .windows(3)
        .filter(|w| w[0] == b'%' && w[1].is_ascii_hexdigit() && w[2].is_ascii_hexdigit())
        .count();
    escapes * 3 * 2 >= bytes.len() && escapes > 0
}

/// Five or more of one character in a row (`00000`, `xxxxx`, `*****`): filler, not
/// randomness; a random 32-character string has one with a probability of about 10⁻⁶.
fn has_repeated_run(value: &str) -> bool {
    let mut run = 0;
    let mut prev = None;
    for c in value.chars() {
        run = if Some(c) == prev { run + 1 } else { 1 };
        if run >= 5 {
            return true;
        }
        prev = Some(c);
    }
    false
}

/// `12345678`, `abcdefgh`: most neighbours differ by one.
fn is_sequence(value: &str) -> bool {
    let bytes = value.as_bytes();
    if bytes.len() < 2 {
        return false;
    }
    let steps = bytes
        .windows(2)
        .filter(|w| w[1].wrapping_sub(w[0]) == 1 || w[0].wrapping_sub(w[1]) == 1)
        .count();
    steps * 5 >= (bytes.len() - 1) * 4
}

/// `0xC00D1590_u32`, `2150859184u32`, `-2147207678i32`, `1e-9`: a number in code.
///
/// Hexadecimal counts only up to 16 digits (32 with a type suffix): longer hex values, such as
/// a `0x`-prefixed 256-bit private key, are not integer literals.
fn is_numeric_literal(value: &str) -> bool {
    const SUFFIXES: &[&str] = &[
        "usize", "isize", "u128", "i128", "u64", "i64", "u32", "i32", "u16", "i16", "u8", "i8",
        "f64", "f32", "ull", "ul", "ll", "u", "l", "n", "f",
    ];
    let v = value.trim_start_matches(['-', '+']);
    let (hex, rest) = match v.get(..2) {
        Some("0x" | "0X") => (true, &v[2..]),
        Some("0b" | "0B" | "0o" | "0O") => (false, &v[2..]),
        _ => (false, v),
    };
    let mut body = rest;
    let mut suffixed = false;
    for suffix in SUFFIXES {
        // A hex literal cannot take `f`, `u` … suffixes that are hex digits or ambiguous.
        if hex && suffix.bytes().all(|b| b.is_ascii_hexdigit()) {
            continue;
        }
        if let Some(stripped) = body
            .strip_suffix(suffix)
            .or_else(|| body.strip_suffix(&suffix.to_ascii_uppercase()))
        {
            body = stripped.trim_end_matches('_');
            suffixed = true;
            break;
        }
    }
    if body.is_empty() {
        return false;
    }
    if hex {
        let digits = body.bytes().filter(|&b| b != b'_').count();
        body.bytes().all(|b| b.is_ascii_hexdigit() || b == b'_')
            && digits <= if suffixed { 32 } else { 16 }
    } else {
        body.as_bytes()[0].is_ascii_digit()
            && body
                .bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'_' | b'.' | b'e' | b'E' | b'-' | b'+'))
    }
}

/// `config.auth.token`, `self.password`, `settings.SECRET_KEY`: a reference, not a value.
fn is_dotted_identifier(value: &str) -> bool {
    let mut parts = 0;
    for part in value.split('.') {
        let mut chars = part.chars();
        let ok = chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
        if !ok {
            return false;
        }
        parts += 1;
    }
    parts >= 2
}

/// `google_api_key`, `AUTH_TOKEN_KEY`, `session-token-v2`: a name in snake, screaming-snake or
/// kebab case (two or more parts, each a letter followed by letters and digits of one case).
/// Random values mix cases or lack separators.
fn is_cased_identifier(value: &str) -> bool {
    let lower = value.bytes().all(|b| !b.is_ascii_uppercase());
    let upper = value.bytes().all(|b| !b.is_ascii_lowercase());
    let mut parts = 0;
    for part in value.split(['_', '-']) {
        let mut bytes = part.bytes();
        let ok = bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
            && bytes.all(|b| b.is_ascii_alphanumeric());
        if !ok {
            return false;
        }
        parts += 1;
    }
    (lower || upper) && parts >= 2
}

/// Made of words rather than random characters: `auth_token`, `SuperSecretValue`,
/// `production_db_user_2024`, `/etc/app/credentials`.
///
/// The value is split into runs of letters at non-letters and camelCase boundaries. A run is a
/// word when it is 3 to 16 letters long, at least a fifth vowels (counting `y`) and has no more
/// than four consonants in a row. Identifiers and phrases are nearly all words; random text
/// splits into short runs (an upper-case letter starts a new run half the time) that rarely
/// are. So a value is word-like when at least half of it is letters, at least three quarters of
/// the letters are in words, and at most 40% of the letters are ones rare in English (`b f g j
/// k p q v w x y z`: about 14% of English letters, 46% of random ones).
///
/// Measured on random strings, this wrongly calls word-like about 1% of 16-character and
/// 0.1% of 32-character alphanumeric values (3–9% of lower-case-and-digit ones).
fn is_wordlike(value: &str) -> bool {
    let chars: Vec<char> = value.chars().collect();
    let mut letters = 0usize;
    let mut word_letters = 0usize;
    let mut rare = 0usize;
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_alphabetic() {
            i += 1;
            continue;
        }
        // One run: continues while letters follow, and breaks before an upper-case letter
        // that follows a lower-case one (`superSecret`) or that starts a capitalised word
        // after an upper-case run (`APIKey`).
        let start = i;
        i += 1;
        while i < chars.len() && chars[i].is_ascii_alphabetic() {
            let c = chars[i];
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(char::is_ascii_lowercase);
            if c.is_ascii_uppercase()
                && (prev.is_ascii_lowercase() || (prev.is_ascii_uppercase() && next_lower))
            {
                break;
            }
            i += 1;
        }
        let run = &chars[start..i];
        letters += run.len();
        rare += run.iter().filter(|&&c| is_rare_letter(c)).count();
        if is_word(run) {
            word_letters += run.len();
        }
    }
    letters * 2 >= chars.len() && word_letters * 4 >= letters * 3 && rare * 5 <= letters * 2
}

fn is_word(run: &[char]) -> bool {
    let is_vowel = |c: &char| matches!(c.to_ascii_lowercase(), 'a' | 'e' | 'i' | 'o' | 'u' | 'y');
    let mut consonants = 0;
    let mut max_consonants = 0;
    for c in run {
        if is_vowel(c) {
            consonants = 0;
        } else {
            consonants += 1;
            max_consonants = max_consonants.max(consonants);
        }
    }
    let vowels = run.iter().filter(|c| is_vowel(c)).count();
    (3..=16).contains(&run.len()) && vowels * 5 >= run.len() && max_consonants <= 4
}

/// Letters that are rare in English words (about 14% of letters in text) but make up 12 of
/// 26 letters of random text.
fn is_rare_letter(c: char) -> bool {
    matches!(
        c.to_ascii_lowercase(),
        'b' | 'f' | 'g' | 'j' | 'k' | 'p' | 'q' | 'v' | 'w' | 'x' | 'y' | 'z'
    )
}

/// Enough entropy for the value's length.
///
/// Shannon entropy cannot exceed log2(n) bits per character for n characters, and a random
/// string of length n over a 62-character alphabet averages about log2(n) − 0.2 for n ≤ 20. So:
///
/// - n < 12: at least three character classes (of lower, upper, digit, other) and nearly all
///   characters distinct (entropy ≥ log2(n) − 0.3): `Tr0ub4dor&3` passes, `password1` not;
/// - 12 ≤ n < 20: at least two classes and entropy ≥ min(3.5, log2(n) − 0.7) (≈ 2.9 at 12,
///   3.3 at 16), which random strings and hex pass while English-like strings fall short;
/// - n ≥ 20: entropy ≥ 3.5 bits per character, the usual threshold of secret scanners;
/// - hexadecimal values (at most 4 bits per character): 16 characters or more, digits and
///   letters, and entropy ≥ 3.0.
fn entropy_ok(value: &str, n: usize) -> bool {
    let h = shannon_entropy(value);
    let log_n = (n as f64).log2();
    let classes = char_classes(value);
    if is_hex(value) {
        // Hex carries at most 4 bits per character; random hex of 32 characters averages
        // about 3.65, so the general 3.5 would miss a third of real hex tokens.
        return n >= 16 && classes >= 2 && h >= ENTROPY_HEX.min(log_n - 0.7);
    }
    if n < 12 {
        classes >= 3 && h >= log_n - 0.3
    } else if n < 20 {
        classes >= 2 && h >= ENTROPY_LONG.min(log_n - 0.7)
    } else {
        h >= ENTROPY_LONG
    }
}

fn is_hex(value: &str) -> bool {
    value.bytes().all(|b| b.is_ascii_hexdigit())
}

/// How many of lower-case, upper-case, digit and other characters occur.
fn char_classes(value: &str) -> usize {
    let mut classes = [false; 4];
    for c in value.chars() {
        let i = if c.is_ascii_lowercase() {
            0
        } else if c.is_ascii_uppercase() {
            1
        } else if c.is_ascii_digit() {
            2
        } else {
            3
        };
        classes[i] = true;
    }
    classes.iter().filter(|&&b| b).count()
}

/// Shannon entropy of `s` in bits per character (Unicode scalar value).
pub(super) fn shannon_entropy(s: &str) -> f64 {
    let mut ascii = [0u32; 128];
    let mut other: Vec<(char, u32)> = Vec::new();
    let mut n = 0u32;
    for c in s.chars() {
        n += 1;
        if c.is_ascii() {
            ascii[c as usize] += 1;
        } else if let Some(slot) = other.iter_mut().find(|(k, _)| *k == c) {
            slot.1 += 1;
        } else {
            other.push((c, 1));
        }
    }
    if n == 0 {
        return 0.0;
    }
    let n = f64::from(n);
    ascii
        .iter()
        .copied()
        .chain(other.iter().map(|&(_, k)| k))
        .filter(|&k| k > 0)
        .map(|k| {
            let p = f64::from(k) / n;
            -p * p.log2()
        })
        .sum()
}

/// Decodes base64 in either alphabet (standard `+/` or URL-safe `-_`, RFC 4648 §4 and §5),
/// with or without `=` padding; `None` on any other character or an impossible length.
pub(super) fn base64_decode(s: &str) -> Option<Vec<u8>> {
    fn value(b: u8) -> Option<u32> {
        Some(u32::from(match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        }))
    }
    let bytes = s.trim_end_matches('=').as_bytes();
    if bytes.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut acc = 0u32;
        for (i, &b) in chunk.iter().enumerate() {
            acc |= value(b)? << (18 - 6 * i);
        }
        let decoded = [(acc >> 16) as u8, (acc >> 8) as u8, acc as u8];
        out.extend_from_slice(&decoded[..chunk.len() - 1]);
    }
    Some(out)
}

#[cfg(test)]
mod heuristics_tests {
    use super::*;

    #[test]
    fn splits_identifiers_into_words() {
        assert_eq!(split_words("dbPassword"), ["db", "password"]);
        assert_eq!(split_words("APIKey"), ["api", "key"]);
        assert_eq!(split_words("x-api-key"), ["x", "api", "key"]);
        assert_eq!(split_words("oauth2Token"), ["oauth2", "token"]);
        assert_eq!(
            split_words("AWS_SECRET_ACCESS_KEY"),
            ["aws", "secret", "access", "key"]
        );
    }

    #[test]
    fn sensitive_names() {
        for key in [
            "password",
            "DB_PASSWORD",
            "dbPassword",
            "db_pwd",
            "api_key",
            "apiKey",
            "x-api-key",
            "client_secret",
            "GITHUB_TOKEN",
            "authToken",
            "Authorization",
            "auth",
            "credentials",
            "signingKey",
            "clientsecret",
        ] {
            assert!(key_is_sensitive(key), "{key}");
        }
        for key in [
            "author",
            "tokenizer",
            "bypass",
            "compass",
            "PWD",
            "OLDPWD",
            "password_hash",
            "token_url",
            "auth_type",
            "secret_name",
            "access_key_id",
            "public_key",
            "max_tokens",
            "tokens",
            "token_count",
            "passwordHint",
        ] {
            assert!(!key_is_sensitive(key), "{key}");
        }
    }

    #[test]
    fn entropy_of_known_strings() {
        assert_eq!(shannon_entropy(""), 0.0);
        assert_eq!(shannon_entropy("aaaa"), 0.0);
        assert!((shannon_entropy("abcd") - 2.0).abs() < 1e-9);
        assert!((shannon_entropy("aabb") - 1.0).abs() < 1e-9);
    }

    #[test]
    fn wordlike_values() {
        for v in [
            "auth_token",
            "SuperSecretValue",
            "production_db_user_2024",
            "hello_world1",
            "passwordInput",
            "/etc/app/credentials",
            "refresh_token_cookie",
            "my-app-session-key",
            "X-Api-Key-Header",
            "UserAuthenticationToken",
            "access_token_expires_at",
            "Content-Security-Policy",
            "application/json",
            "github_personal_access",
        ] {
            assert!(is_wordlike(v), "{v}");
        }
        for v in ["q8Vx2LmT9pKz", "xKqPzTrwLmNbVcJh", "3f9a0c7e2b1d4f6a"] {
            assert!(!is_wordlike(v), "{v}");
        }
    }

    #[test]
    fn cased_identifiers() {
        for v in ["google_api_key", "AUTH_TOKEN_KEY", "session-token-v2"] {
            assert!(is_cased_identifier(v), "{v}");
        }
        for v in ["Google_api_key", "abc", "a__b", "x1-", "q8Vx_2LmT9"] {
            assert!(!is_cased_identifier(v), "{v}");
        }
    }

    #[test]
    fn numeric_literals() {
        for v in [
            "0xC00D1590_u32",
            "2150859184u32",
            "-2147207678i32",
            "4294901761",
            "1.5e-9",
            "0x80290126",
        ] {
            assert!(is_numeric_literal(v), "{v}");
        }
        let eth_like = format!(
            "0x{}",
            "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
        );
        for v in [eth_like.as_str(), "abc123", "u32", "0x"] {
            assert!(!is_numeric_literal(v), "{v}");
        }
    }

    #[test]
    fn base64() {
        assert_eq!(
            base64_decode("eyJhIjoxfQ").as_deref(),
            Some(&b"{\"a\":1}"[..])
        );
        assert_eq!(
            base64_decode("dXNlcjpwYXNz").as_deref(),
            Some(&b"user:pass"[..])
        );
        assert_eq!(base64_decode("dXNlcjo=").as_deref(), Some(&b"user:"[..]));
        assert_eq!(base64_decode("a"), None);
        assert_eq!(base64_decode("a.bc"), None);
    }
}
