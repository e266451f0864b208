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
    "level", "encoding", "encoder", "decoder", "algorithm", "alg", "cipher", "string", "strings",
    "chars", "charset", "alphabet", "date", "md", "txt", "html", "htm", "rst", "py", "js", "ts",
    "rs", "go", "rb", "java", "css", "svg", "png", "str", "bits", "list", "ptr", "buf", "ops",
    "info", "ctx", "flags", "flag", "mask", "cnt", "num", "nr", "sz", "seq", "lock", "attr", "ref",
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

/// Where the secret of `text[start..end]` starts once an `Authorization` scheme (`Bearer `,
/// `Basic `, `Token `, `Bot `) and blanks are skipped, and whether the scheme was `Basic`.
pub(super) fn skip_scheme(text: &str, start: usize, end: usize) -> (usize, bool) {
    let value = &text[start..end];
    for scheme in ["bearer", "basic", "token", "bot"] {
        let Some(head) = value.get(..scheme.len()) else {
            continue;
        };
        let rest = &value[scheme.len()..];
        if head.eq_ignore_ascii_case(scheme) && rest.starts_with([' ', '\t']) {
            let trimmed = rest.trim_start();
            return (end - trimmed.len(), scheme == "basic");
        }
    }
    (start, false)
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

/// Shortest value the keyword rule takes under a password name (`Maple83$` is 8, the leak
/// threshold of the recall benchmark is 6 characters left in the clear).
pub(super) const KEYWORD_MIN_PASSWORD: usize = 6;
/// Shortest value the keyword rule takes under any other secret name (`token`, `api_key`):
/// shorter ones there are flags and names (`oauth2`, `basic`), not credentials.
pub(super) const KEYWORD_MIN_OTHER: usize = 8;

/// Words that make up placeholder values: a value made only of these (`your_api_key_here`,
/// `REPLACE_ME`, `changeme`, `secret`, `my-token`) is a placeholder; a value that merely contains
/// one next to anything else (`test1234`, `example-Xq9…`) is not.
#[rustfmt::skip]
const PLACEHOLDER_WORDS: &[&str] = &[
    "a", "abc", "access", "actual", "admin", "any", "api", "app", "auth", "authorization",
    "bar", "basic", "baz", "bearer", "blah", "bool", "boolean", "bytes", "change", "changeit",
    "changeme", "client", "confidential", "cred", "credential", "credentials", "current",
    "database", "db", "default", "demo", "dev", "dummy", "empty", "enter", "env", "example",
    "fake", "false", "fill", "fixme", "foo", "generate", "generated", "goes", "guest", "here",
    "hidden", "in", "insert", "int", "invalid", "key", "local", "masked", "me", "mock", "my",
    "new", "nil", "no", "none", "null", "number", "object", "off", "old", "on", "opensesame",
    "optional", "pass", "passphrase", "passwd", "password", "placeholder", "private", "provided",
    "put", "pwd", "qux", "random", "real", "redacted", "replace", "required", "root", "sample",
    "secret", "secretkey", "secrets", "sensitive", "set", "some", "str", "string", "stub",
    "super", "tbd", "test", "testing", "text", "the", "this", "todo", "token", "top", "true",
    "undefined", "unknown", "unset", "user", "username", "value", "with", "word", "xxx", "yes",
    "your",
];

/// Whether the value of a keyword assignment is a credential: under a name that says secret
/// (`password`, `token`, `api_key`, …) any literal value is one, whatever its entropy, unless
/// the whole value is a placeholder, a reference or a label:
///
/// - placeholders: empty or short, `changeme`, `password`, `your_api_key_here`, `xxx`, `****`,
///   `<…>`, `${VAR}`, `$VAR`, `%VAR%`, `%(x)s`, `%s`, `{{ x }}`, `{x}`, `#{x}`, `<%= … %>`,
///   `@x@`, a redaction marker;
/// - references: `os.environ[…]`, `process.env.X`, `config.db.password`, a function call,
///   `tokens[i]`, `sys::FLAG`, a code identifier (`next_token`, `TokenType`, `authHeader`);
/// - labels: one word of letters (`Passwort`, `Bearer`), a sentence, a URL, a path, a number
///   (under a name that is not a password's).
///
/// Values with blanks are passphrases only under a password name and only when they are not
/// prose ([`password_ok`]).
pub(super) fn keyword_value_ok(value: &str, password_key: bool, quoted: bool) -> bool {
    let n = value.chars().count();
    let min = if password_key {
        KEYWORD_MIN_PASSWORD
    } else {
        KEYWORD_MIN_OTHER
    };
    if n < min || n > MAX_LEN || value.chars().any(char::is_control) {
        return false;
    }
    if value.chars().any(char::is_whitespace) {
        return password_key && password_ok(value);
    }
    if is_whole_placeholder(value) || is_reference(value, quoted) || is_email(value) {
        return false;
    }
    // A character class or a pattern (`[A-Za-z0-9._~+/-]+=*`), not a value.
    if ["a-z", "A-Z", "0-9", "\\d", "\\w"]
        .iter()
        .any(|m| value.contains(m))
    {
        return false;
    }
    if value.contains("://") || value.contains("-----") || is_path(value) {
        return false;
    }
    if is_mostly_escapes(value) || is_mostly_percent_encoded(value) {
        return false;
    }
    if is_label_word(value, password_key) {
        return false;
    }
    if is_numeric_literal(value) && !(password_key && value.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
    // A version or a version range (`^5.2.5`, `>=1.0`, `v2.3.1`).
    let version = value.trim_start_matches(['^', '~', '>', '<', '=', 'v']);
    if version.contains('.') && version.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return false;
    }
    // Quoted, `password1` and `Secret2024!` are what people type; a name with a secret word
    // (`"userPassword"`, `"mypersonalaccesstoken123"`) is still a name.
    let stem = value
        .trim_end_matches(|c: char| c.is_ascii_digit() || "!@#$%&*?.".contains(c))
        .to_ascii_lowercase();
    let typed = quoted
        && stem.len() < value.len()
        && matches!(
            stem.as_str(),
            "password" | "passwd" | "pass" | "secret" | "token" | "admin"
        );
    if is_code_identifier(value) && (!typed || is_cased_identifier(value)) {
        return false;
    }
    true
}

/// The whole value is a placeholder (see [`keyword_value_ok`]).
fn is_whole_placeholder(value: &str) -> bool {
    let v = value;
    if v.starts_with("[REDACTED:") {
        return true;
    }
    let wrapped = |open: &str, close: &str| {
        v.len() >= open.len() + close.len() && v.starts_with(open) && v.ends_with(close)
    };
    // `<your-token>`, `{{ x }}`, `{password}`, `${VAR}`, `#{x}`, `<%= x %>`, `%VAR%`, `@x@`,
    // `[token]`, `(secret)`.
    if wrapped("<", ">")
        || wrapped("{", "}")
        || wrapped("${", "}")
        || wrapped("#{", "}")
        || wrapped("%", "%")
        || wrapped("@", "@")
        || wrapped("[", "]")
        || wrapped("(", ")")
        || has_template(v)
    {
        return true;
    }
    // `$VAR`, `$db_password`, `$(cmd)`, `$1`: an environment variable is upper case, a shell
    // or PHP variable lower-case words; `$Galaxy30` is a password.
    if let Some(rest) = v.strip_prefix('$') {
        let upper = rest
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
        let lower = rest
            .bytes()
            .all(|b| b.is_ascii_lowercase() || matches!(b, b'_' | b'.' | b':'));
        if rest.starts_with('(') || upper || lower {
            return true;
        }
    }
    // AWS's documented example keys (`…EXAMPLEKEY`, `…EXAMPLE`).
    if v.contains("EXAMPLE") {
        return true;
    }
    // `%s`, `%-20s`, `%08x`: a format directive alone.
    if let Some(rest) = v.strip_prefix('%') {
        if rest
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-+ #.*".contains(&b))
            && rest.len() <= 6
        {
            return true;
        }
    }
    // Filler: one character over and over (`xxxxxxxx`, `********`, `X-X-X-X`), runs of five,
    // or a keyboard sequence (`12345678`, `abcdefgh`).
    let mut chars = v
        .chars()
        .filter(|c| !matches!(c, '-' | '_' | '.' | ' ' | '/' | ':'));
    if let Some(first) = chars.next() {
        if chars.all(|c| c.eq_ignore_ascii_case(&first)) {
            return true;
        }
    }
    if has_repeated_run(v) || is_sequence(v) {
        return true;
    }
    is_placeholder_phrase(v)
}

/// A template expression inside the value: `${VAR}`, `${VAR:-x}`, `{{ x }}`, `<%= x %>`,
/// `%(x)s`, `#{x}`. Only complete ones count, so a random value with a `$` next to a `{` is
/// still a value.
fn has_template(v: &str) -> bool {
    let closes = |open: &str, close: &str| {
        v.match_indices(open)
            .any(|(i, _)| v[i + open.len()..].contains(close))
    };
    let variable = |open: &str| {
        v.match_indices(open).any(|(i, _)| {
            let rest = &v[i + open.len()..];
            let name = rest
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.'))
                .count();
            name > 0
                && rest[..name].split('.').all(is_name_part)
                && matches!(rest.as_bytes().get(name), Some(b'}' | b':' | b'-' | b'?'))
                && rest[name..].contains('}')
        })
    };
    variable("${")
        || variable("#{")
        || closes("{{", "}}")
        || closes("<%", "%>")
        || closes("\\(", ")")
        || has_format_directive(v)
        || {
            v.match_indices("%(").any(|(i, _)| {
                let rest = &v[i + 2..];
                rest.find(')').is_some_and(|j| {
                    rest[..j]
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_')
                        && rest
                            .as_bytes()
                            .get(j + 1)
                            .is_some_and(u8::is_ascii_alphabetic)
                })
            })
        }
}

/// A printf directive (`%s`, `%.*s`, `%d`, `%lu`, `%zu`, `%x`) at the start of the value or
/// after a character that is not a letter or digit, and followed by one or the end: a format
/// string (`"Authorization: %.*s…"`), not a value.
fn has_format_directive(v: &str) -> bool {
    let b = v.as_bytes();
    // With a length modifier (`%016llx`, `%lu`, `%zd`): anywhere.
    let long = b.iter().enumerate().any(|(i, &c)| {
        if c != b'%' {
            return false;
        }
        let rest = &b[i + 1..];
        let flags = rest.iter().take_while(|b| b"-+ #0".contains(b)).count();
        let width = rest[flags..]
            .iter()
            .take_while(|b| b.is_ascii_digit() || matches!(b, b'.' | b'*'))
            .count();
        let after = &rest[flags + width..];
        let modifier = ["ll", "l", "z"]
            .iter()
            .find(|m| after.starts_with(m.as_bytes()))
            .map_or(0, |m| m.len());
        modifier > 0 && after.get(modifier).is_some_and(|c| b"duxX".contains(c))
    });
    long || b.iter().enumerate().any(|(i, &c)| {
        if c != b'%' || (i > 0 && !matches!(b[i - 1], b' ' | b'=' | b':')) {
            return false;
        }
        let rest = &v[i + 1..];
        let spec = [
            "s", "d", "u", "x", ".*s", "ld", "lu", "zu", "lld", "llu", "i",
        ]
        .iter()
        .find(|d| rest.starts_with(*d));
        spec.is_some_and(|d| {
            d.len() > 1
                || rest.as_bytes().get(d.len()).is_none_or(|n| {
                    n.is_ascii_whitespace()
                        || matches!(n, b'"' | b'\'' | b'&' | b';' | b',' | b')' | b'\\')
                })
        })
    })
}

/// `user@host.com`: an address (anonymous FTP passwords, user names), not a secret: a local
/// part, `@`, and a lower-case domain with a dot and a top-level domain of letters.
fn is_email(value: &str) -> bool {
    let Some((local, domain)) = value.split_once('@') else {
        return false;
    };
    let tld = domain.rsplit('.').next().unwrap_or("");
    !local.is_empty()
        && local
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'+' | b'-'))
        && domain.contains('.')
        && domain
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'-'))
        && tld.len() >= 2
        && tld.bytes().all(|b| b.is_ascii_lowercase())
}

/// Every run of letters of `value` splits into [`PLACEHOLDER_WORDS`] and there is nothing but
/// separators between them: `your_api_key_here`, `REPLACE-ME`, `changeme`, `MySecretToken`.
fn is_placeholder_phrase(value: &str) -> bool {
    let mut any = false;
    for part in value.split(['_', '-', '.', ' ', '/', ':']) {
        if part.is_empty() {
            continue;
        }
        if !part.bytes().all(|b| b.is_ascii_alphabetic()) {
            return false;
        }
        let lower = part.to_ascii_lowercase();
        if !splits_into_placeholder_words(&lower) {
            return false;
        }
        any = true;
    }
    any
}

/// Word break over [`PLACEHOLDER_WORDS`] (`yourapikeyhere` → your api key here).
fn splits_into_placeholder_words(s: &str) -> bool {
    if s.len() > 64 {
        return false;
    }
    let b = s.as_bytes();
    let mut ok = vec![false; b.len() + 1];
    ok[0] = true;
    for end in 1..=b.len() {
        ok[end] = (0..end)
            .any(|start| ok[start] && PLACEHOLDER_WORDS.binary_search(&&s[start..end]).is_ok());
    }
    ok[b.len()]
}

/// Code, not a value: `os.environ[…]`, `process.env.X`, `config.db.password`, `getToken()`,
/// `tokens[i]`, `sys::FLAG`, `ENV.fetch(…)`.
fn is_reference(value: &str, quoted: bool) -> bool {
    let head_len = value
        .bytes()
        .take_while(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.' | b':'))
        .count();
    let head = &value[..head_len];
    let starts_like_name = head
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'$');
    // `host->h_cred`, `$this->token`, `->security`: a C, PHP or Perl expression.
    if value.starts_with("->") {
        return true;
    }
    if value.contains("->") {
        let path = value.trim_start_matches('$').replace("->", ".");
        let path = path.trim_end_matches([';', ',', ')']);
        if path.split('.').all(|p| !p.is_empty() && is_name_part(p)) {
            return true;
        }
    }
    // `meta:auth:gsasl:conn`: a name made of lower-case parts.
    if value.contains(':')
        && value.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b':' | b'_' | b'-')
        })
        && value
            .split(':')
            .all(|p| p.bytes().next().is_some_and(|b| b.is_ascii_lowercase()))
    {
        return true;
    }
    // `name(…)`, `name[…]`, `Token![…]`: a call, an index or a macro, whole, or cut by the
    // quote inside it (`os.environ[`, `os.getenv(`).
    let bang = usize::from(value.as_bytes().get(head_len) == Some(&b'!'));
    let head_len = head_len + bang;
    // An unfinished call (`htc_get_credit_padding(target->tgt_cred_sz,`, `Some(x::new(`)
    // when the name is clearly one: letters (digits only at its end), four or more of them
    // or with `_`, `.` or `::` in it.
    let opener = value.as_bytes().get(head_len).copied();
    let plain_head = head
        .trim_end_matches(|c: char| c.is_ascii_digit())
        .bytes()
        .all(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'.' | b':' | b'$'));
    let clear_name = plain_head && (head.len() >= 4 || head.contains(['_', '.', ':']));
    if starts_like_name
        && matches!(opener, Some(b'(' | b'['))
        && head.replace("::", ".").split('.').all(is_name_part)
    {
        // Quoted, a string is text: only a whole call of a clear name is code in it
        // (`"get_password()"`, `'vault.read(path)'`).
        if quoted {
            return clear_name && value.ends_with([')', ']']);
        }
        if value.ends_with([')', ']'])
            || head_len + 1 == value.len()
            || (opener == Some(b'(') && clear_name)
        {
            return true;
        }
    }
    let lower = value.to_ascii_lowercase();
    if [
        "process.env",
        "os.environ",
        "getenv",
        "env[",
        "env(",
        "env.",
        "secrets.",
    ]
    .iter()
    .any(|m| lower.starts_with(m))
    {
        return true;
    }
    bang == 0
        && head_len == value.len()
        && ((is_dotted_identifier(value) && value.split('.').all(is_name_part))
            || (value.contains("::")
                && value
                    .trim_end_matches(':')
                    .split("::")
                    .all(|p| !p.is_empty() && !p.contains(':') && p.split('.').all(is_name_part))))
}

/// A part of a dotted reference: one case (`db`, `SECRET_KEY`, `v2`) or camel-case words
/// (`dataSource`, `AppConfig`). Random text (`Xq9Lm`) mixes cases without forming words.
fn is_name_part(part: &str) -> bool {
    let name = part.strip_prefix('$').unwrap_or(part);
    if !name
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
    {
        return false;
    }
    let has_upper = part.bytes().any(|b| b.is_ascii_uppercase());
    let has_lower = part.bytes().any(|b| b.is_ascii_lowercase());
    if !(has_upper && has_lower) {
        return true;
    }
    // Mixed case: letters, then digits only at the end (`dataSource`, `Base64`, not `eld8M5J`).
    let letters = name.trim_end_matches(|c: char| c.is_ascii_digit());
    if !letters
        .bytes()
        .all(|b| b.is_ascii_alphabetic() || b == b'_')
    {
        return false;
    }
    split_words(part).iter().all(|w| {
        let letters: Vec<char> = w
            .trim_end_matches(|c: char| c.is_ascii_digit())
            .chars()
            .collect();
        let vowel = letters
            .iter()
            .any(|c| matches!(c.to_ascii_lowercase(), 'a' | 'e' | 'i' | 'o' | 'u' | 'y'));
        letters.iter().all(char::is_ascii_alphabetic)
            && (letters.len() == 1 || (letters.len() == 2 && vowel) || is_word(&letters))
    })
}

/// Whether an unquoted value in code is an expression rather than a literal: a reference,
/// a call, a code identifier or a placeholder.
pub(super) fn is_code_expression(value: &str) -> bool {
    is_reference(value, false) || is_code_identifier(value) || is_whole_placeholder(value)
}

/// `/etc/app/secret`, `./secrets/db`, `~/.pgpass`, `C:\keys\x`: a file, not its content.
fn is_path(value: &str) -> bool {
    let rest = value
        .strip_prefix("./")
        .or_else(|| value.strip_prefix("../"))
        .or_else(|| value.strip_prefix("~/"))
        .or_else(|| value.strip_prefix('/'));
    rest.is_some_and(|r| r.contains('/') || r.contains('.'))
        || (value.len() > 3 && value.as_bytes()[1] == b':' && value.as_bytes()[2] == b'\\')
}

/// `\x01\x02…`, `\u0041…`: escaped binary (test vectors), half or more escapes.
fn is_mostly_escapes(value: &str) -> bool {
    let escapes = value.matches('\\').count();
    escapes > 0 && escapes * 4 * 2 >= value.len()
}

/// One word of letters (`Passwort`, `Bearer`, `sunshine`, `SECRET`): a label or a name. Under a
/// name that is not a password's, also a lower-case word with up to two digits (`oauth2`,
/// `sha256` is three) or a word and a version (`v2`).
fn is_label_word(value: &str, password_key: bool) -> bool {
    let letters = value.trim_end_matches(|c: char| c.is_ascii_digit());
    let digits = value.len() - letters.len();
    if !letters.chars().all(char::is_alphabetic) || letters.is_empty() {
        return false;
    }
    if digits > 0 && (password_key || digits > 2) {
        return false;
    }
    let mut chars = letters.chars();
    let first = chars.next().unwrap_or('a');
    let rest: Vec<char> = chars.collect();
    let rest_lower = rest.iter().all(|c| !c.is_uppercase());
    let rest_upper = rest.iter().all(|c| !c.is_lowercase());
    (first.is_lowercase() && rest_lower) || (first.is_uppercase() && (rest_lower || rest_upper))
}

/// An identifier of code (`next_token`, `TOKEN_KEY`, `authHeader`, `TokenType`,
/// `userPassword2`): snake, kebab or screaming case, camel or Pascal case of two or more
/// words, or a name containing a secret word.
fn is_code_identifier(value: &str) -> bool {
    let bytes = value.as_bytes();
    let ident = bytes
        .first()
        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'));
    if !ident {
        return false;
    }
    // `__pydantic_private__`, `NR__DIRECTIVES`: dunder and private names too.
    let squeezed = value.trim_matches('_').replace("__", "_");
    if is_cased_identifier(value) || is_cased_identifier(&squeezed) {
        return true;
    }
    // `AVS_TKN_COEFF_0_S32`, `ioctl_v2_flags`: a constant or a snake-case name of one case.
    if value.contains('_')
        && (bytes
            .iter()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_')
            || bytes
                .iter()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_'))
    {
        return true;
    }
    let lower = value.to_ascii_lowercase();
    if [
        "password",
        "passwd",
        "secret",
        "token",
        "credential",
        "apikey",
        "auth",
    ]
    .iter()
    .any(|w| lower.contains(w))
    {
        return true;
    }
    // camelCase / PascalCase of two or more words, letters only: `sharedKey`, `TokenType`.
    let letters_only = bytes.iter().all(u8::is_ascii_alphabetic);
    let humps = bytes
        .windows(2)
        .filter(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
        .count();
    letters_only && humps >= 1 && split_words(value).iter().all(|w| w.len() >= 3)
}

/// The password of `scheme://user:password@host`. URL passwords are often short human-chosen
/// words, so no entropy is required; placeholders and well-known defaults are still skipped.
pub(super) fn url_password_ok(user: &str, password: &str) -> bool {
    const DEFAULTS: &[&str] = &[
        "pass", "pwd", "root", "admin", "guest", "postgres", "mysql", "redis", "user", "username",
        "pw", "passwd",
    ];
    let lower = password.to_ascii_lowercase();
    // Anonymous FTP takes an e-mail address as its password by convention.
    let anonymous = matches!(user.to_ascii_lowercase().as_str(), "anonymous" | "ftp");
    password.chars().count() >= 6
        && password != user
        && !anonymous
        && !DEFAULTS.contains(&lower.as_str())
        && !is_whole_placeholder(password)
        && !is_mostly_percent_encoded(password)
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
