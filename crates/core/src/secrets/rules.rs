//! The rule table, compiled once, and the code that turns raw regex matches into candidates.
//!
//! Each rule is a pattern plus a [`Check`] saying how a match is validated. The patterns avoid
//! `\b` (a Unicode word boundary would stop the lazy DFA on non-ASCII text); token boundaries are
//! checked on bytes after the match instead, which also lets each rule say which characters
//! count as "part of the token".

use std::ops::ControlFlow;
use std::sync::LazyLock;

use regex::{Regex, RegexSet};

use super::{generic, pem, providers, SecretKind};

/// A validated match: a kind and the byte range of the secret value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Candidate {
    pub kind: SecretKind,
    pub start: usize,
    pub end: usize,
}

/// How a raw match of a rule's pattern becomes a candidate.
#[derive(Clone, Copy)]
pub(super) enum Check {
    /// A prefixed token: the whole match is the secret. It must not be preceded or followed by
    /// a byte of `boundary` (the token's own alphabet), and `valid` must accept it.
    Token {
        boundary: fn(u8) -> bool,
        valid: fn(&str) -> bool,
    },
    /// The pattern finds a `BEGIN … PRIVATE KEY` line; [`pem`] finds the rest of the block.
    PemBlock,
    /// Keyword-anchored 40-character AWS secret; capture group 1 is the value.
    AwsSecret,
    /// A value found by the name or structure around it: capture group 1 is the secret, it
    /// must not run on into more token characters, and `valid` must accept it.
    Keyed { valid: fn(&str) -> bool },
    /// The pattern finds a `PuTTY` `Private-Lines: N` header; the block runs over the base64
    /// lines after it and the `Private-MAC` line.
    PpkBlock,
    /// The pattern finds the `.timestamp.hmac` tail of a Discord bot token; the ID segment is
    /// found before it ([`providers::discord_start`]).
    DiscordBot,
    /// `name <sep> value`; groups `key`, `dq`, `sq`, `bq`, `uq` (see [`ASSIGN`]).
    Assignment,
    /// A name and a value in a fixed syntax (`--flag value`, `<name>value</name>`,
    /// `key="name" value="…"`, `define('NAME', '…')`); groups `key` (the whole name) and
    /// `dq`, `sq` or `uq`.
    NamedValue,
    /// `scheme://user:password@`; groups `user`, `pass`.
    UrlPassword,
}

pub(super) struct Rule {
    pub(super) kind: SecretKind,
    pub(super) pattern: &'static str,
    pub(super) check: Check,
}

/// Secret-sounding names. Matched case-insensitively anywhere in an identifier; the
/// identifier as a whole is then judged by [`generic::key_is_sensitive`].
macro_rules! keyword {
    () => {
        r"(?:pass|pwd|secret|token|auth|cred|(?:api|access|private|signing|encryption|master|client|app)[_.-]?key)"
    };
}

/// `name = value` in its many spellings: `KEY = "v"`, `key: v`, `"key": "v"`, `KEY=v`,
/// `key := "v"`, `'key' => 'v'`, `config['key'] = 'v'`, `const KEY: &str = "v"`,
/// `Authorization: Bearer v`.
const ASSIGN: &str = concat!(
    r"(?i)(?P<key>",
    keyword!(),
    r"[A-Za-z0-9_.-]*)",
    // closing quote / bracket of the name
    r#"["']?\]?"#,
    // optional type annotation: `: &'static str`, `: String`, `: Option<String>`
    r"(?::[ \t]*&?(?:'static[ \t]+)?[A-Za-z_][A-Za-z0-9_<>\[\]:]*)?",
    // `(` for setters and builders: `setPassword("v")`, `.token('v')` (judged in
    // `keyed_value`: a quoted argument of a setter-like name only).
    r"[ \t]*(?::=|=>|=|:|\()[ \t]*",
    r#"(?:"(?P<dq>[^"\r\n]*)"|'(?P<sq>[^'\r\n]*)'|`(?P<bq>[^`\r\n]*)`"#,
    // An unquoted value runs to its real end: a blank, a quote, `;` (connection strings,
    // shell), `&` (query strings), `|`, `<` or a backslash; never to a `.`, `-`, `=` or `:`.
    // Trailing `,` `)` `]` `}` `>` of the surrounding code are dropped after the match.
    r#"|(?P<uq>(?:(?:bearer|basic|token)[ \t]+)?[^\s"'`,;&|(){}\[\]<>\\:=][^\s"'`;&|<\\]*))"#,
);

const CLI_FLAG: &str = concat!(
    r"--(?P<key>[A-Za-z0-9-]*(?i:pass|secret|token|auth|api-?key)[A-Za-z0-9-]*)",
    r#"(?:=|[ \t]+)(?:"(?P<dq>[^"\r\n]*)"|'(?P<sq>[^'\r\n]*)'"#,
    // After a blank a value cannot start with `-` (that is the next flag); after `=` it can.
    r#"|(?P<uq>[^\s"'`;&|()<>\\][^\s"'`;&|<>\\]*))"#,
);

const XML_ELEMENT: &str = concat!(
    r"<(?P<key>[A-Za-z0-9_.:-]*(?i:",
    keyword!(),
    r")[A-Za-z0-9_.:-]*)>[ \t]*(?P<uq>[^<\s]+)[ \t]*</",
);

/// .NET `appSettings` and HTML inputs: `<add key="ApiKey" value="…"/>`,
/// `<input name="password" value="…">`.
const XML_KEY_VALUE: &str = concat!(
    r#"(?i:key|name)[ \t]*=[ \t]*"(?P<key>[A-Za-z0-9_.:-]*(?i:"#,
    keyword!(),
    r#")[A-Za-z0-9_.:-]*)"[ \t]+(?i:value)[ \t]*=[ \t]*"(?P<dq>[^"\r\n]*)""#,
);

/// PHP constants: `define('DB_PASSWORD', '…');`.
const PHP_DEFINE: &str = concat!(
    r#"define\([ \t]*["'](?P<key>[A-Za-z0-9_]*(?i:"#,
    keyword!(),
    r#")[A-Za-z0-9_]*)["'][ \t]*,[ \t]*(?:"(?P<dq>[^"\r\n]*)"|'(?P<sq>[^'\r\n]*)')"#,
);

const URL_PASSWORD: &str = r#"[A-Za-z][A-Za-z0-9+.-]*://(?P<user>[^\s:/?#@"'`<>\[\]{}]*):(?P<pass>[^\s:/?#@"'`<>\[\]{}]+)@[A-Za-z0-9\[]"#;

const AWS_SECRET: &str = concat!(
    r"(?i)(?:(?:aws[_.-]?)?secret[_.-]?access[_.-]?key|aws[_.-]?secret(?:[_.-]?key)?)",
    r#"[A-Za-z0-9_.-]*["']?\]?[ \t]*(?::=|=>|=|:)[ \t]*["'`]?([A-Za-z0-9/+]{40})"#,
);

const RULES: &[Rule] = &[
    Rule {
        kind: SecretKind::PrivateKey,
        pattern: pem::BEGIN,
        check: Check::PemBlock,
    },
    Rule {
        kind: SecretKind::AwsAccessKeyId,
        pattern: r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}",
        check: Check::Token {
            boundary: is_alnum,
            valid: valid_aws_key_id,
        },
    },
    Rule {
        kind: SecretKind::AwsSecretAccessKey,
        pattern: AWS_SECRET,
        check: Check::AwsSecret,
    },
    Rule {
        kind: SecretKind::GithubToken,
        pattern: r"gh[pousr]_[A-Za-z0-9]{36,}",
        check: Check::Token {
            boundary: is_alnum_underscore,
            valid: valid_github,
        },
    },
    Rule {
        kind: SecretKind::GithubToken,
        pattern: r"github_pat_[A-Za-z0-9_]{60,}",
        check: Check::Token {
            boundary: is_alnum_underscore,
            valid: valid_github,
        },
    },
    Rule {
        kind: SecretKind::GitlabToken,
        pattern: r"(?:gl(?:pat|dt|rt|rtr|cbt|ptt|ft|imt|oas|agent|soat|ffct)-[A-Za-z0-9_-]{20,}(?:\.[0-9a-z]{9})?|GR1348941[A-Za-z0-9_-]{20,})",
        check: Check::Token {
            boundary: is_alnum_underscore_dash,
            valid: valid_after_dash,
        },
    },
    Rule {
        kind: SecretKind::SlackToken,
        pattern: r"(?:(?:xoxe\.)?xox[abeoprs]-[0-9]+-[A-Za-z0-9][A-Za-z0-9-]{8,}|xapp-[0-9]+-[A-Za-z0-9]+-[0-9]+-[A-Za-z0-9]+)",
        check: Check::Token {
            boundary: is_alnum_underscore_dash,
            valid: valid_slack_token,
        },
    },
    Rule {
        kind: SecretKind::SlackWebhook,
        pattern: r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/T[A-Za-z0-9]{6,}/[A-Za-z0-9_/-]{16,}",
        check: Check::Token {
            boundary: is_alnum_underscore_dash,
            valid: valid_slack_webhook,
        },
    },
    Rule {
        kind: SecretKind::OpenAiKey,
        pattern: r"sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{48})",
        check: Check::Token {
            boundary: is_alnum_underscore_dash,
            valid: valid_openai,
        },
    },
    Rule {
        kind: SecretKind::AnthropicKey,
        pattern: r"sk-ant-[A-Za-z0-9_-]{32,}",
        check: Check::Token {
            boundary: is_alnum_underscore_dash,
            valid: valid_after_dash,
        },
    },
    Rule {
        kind: SecretKind::StripeKey,
        pattern: r"(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{24,}|whsec_[A-Za-z0-9]{32,})",
        check: Check::Token {
            boundary: is_alnum_underscore,
            valid: valid_stripe,
        },
    },
    Rule {
        kind: SecretKind::GoogleApiKey,
        pattern: r"AIza[A-Za-z0-9_-]{35}",
        check: Check::Token {
            boundary: is_alnum_underscore_dash,
            valid: valid_google,
        },
    },
    Rule {
        kind: SecretKind::Jwt,
        pattern: r"eyJ[A-Za-z0-9_-]{15,}\.ey[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}",
        check: Check::Token {
            boundary: is_alnum_underscore_dash,
            valid: valid_jwt,
        },
    },
    Rule {
        kind: SecretKind::GenericSecret,
        pattern: ASSIGN,
        check: Check::Assignment,
    },
    Rule {
        kind: SecretKind::GenericSecret,
        pattern: CLI_FLAG,
        check: Check::NamedValue,
    },
    Rule {
        kind: SecretKind::GenericSecret,
        pattern: XML_ELEMENT,
        check: Check::NamedValue,
    },
    Rule {
        kind: SecretKind::GenericSecret,
        pattern: XML_KEY_VALUE,
        check: Check::NamedValue,
    },
    Rule {
        kind: SecretKind::GenericSecret,
        pattern: PHP_DEFINE,
        check: Check::NamedValue,
    },
    Rule {
        kind: SecretKind::GenericSecret,
        pattern: URL_PASSWORD,
        check: Check::UrlPassword,
    },
];

/// A rule's regex and the indices of its named groups (looking a group up by name on every
/// match costs more than the match itself in unoptimised builds).
struct CompiledRule {
    re: Regex,
    key: Option<usize>,
    quoted: [Option<usize>; 3],
    unquoted: Option<usize>,
    user: Option<usize>,
    pass: Option<usize>,
}

impl CompiledRule {
    fn new(pattern: &str) -> CompiledRule {
        // The patterns are constants covered by tests; failing to compile them is a bug.
        let re = Regex::new(pattern).expect("secret rule pattern compiles");
        let group = |name: &str| re.capture_names().position(|n| n == Some(name));
        CompiledRule {
            key: group("key"),
            quoted: [group("dq"), group("sq"), group("bq")],
            unquoted: group("uq"),
            user: group("user"),
            pass: group("pass"),
            re,
        }
    }
}

struct Compiled {
    set: RegexSet,
    each: Vec<CompiledRule>,
}

/// Every rule: the table above, then the provider formats of [`providers`].
fn all_rules() -> impl Iterator<Item = &'static Rule> {
    RULES.iter().chain(providers::RULES.iter())
}

/// Every rule's pattern, in order (for the redaction benchmark's per-rule timing).
pub(super) fn patterns() -> Vec<&'static str> {
    all_rules().map(|r| r.pattern).collect()
}

static ALL_RULES: LazyLock<Vec<&'static Rule>> = LazyLock::new(|| all_rules().collect());

/// The set holds the rules of [`RULES`] only. The provider formats run one regex each: every
/// one starts with a literal that the regex engine's prefilter finds at memory speed, while a
/// set of all 50-odd patterns was 5 to 10 times slower than the set of the first 19 (measured
/// with `examples/redaction_corpus.rs`, `PER_RULE=1`).
static COMPILED: LazyLock<Compiled> = LazyLock::new(|| Compiled {
    set: RegexSet::new(RULES.iter().map(|r| r.pattern)).expect("secret rule patterns compile"),
    each: all_rules().map(|r| CompiledRule::new(r.pattern)).collect(),
});

/// Every validated candidate of every rule, unresolved (they may overlap).
pub(super) fn candidates(text: &str) -> Vec<Candidate> {
    let compiled = &*COMPILED;
    let mut out = Vec::new();
    for index in compiled
        .set
        .matches(text)
        .iter()
        .chain(RULES.len()..compiled.each.len())
    {
        let _ = run_rule(index, &compiled.each[index], text, &mut |c| {
            out.push(c);
            ControlFlow::Continue(())
        });
    }
    out
}

/// Whether any rule yields at least one validated candidate.
pub(super) fn any_candidate(text: &str) -> bool {
    let compiled = &*COMPILED;
    let mut indices = compiled.set.matches(text).into_iter();
    let mut providers = RULES.len()..compiled.each.len();
    std::iter::from_fn(|| indices.next().or_else(|| providers.next())).any(|index| {
        run_rule(index, &compiled.each[index], text, &mut |_| {
            ControlFlow::Break(())
        })
        .is_break()
    })
}

/// How far [`is_config_line`] looks for the start and end of a line, in bytes.
const LINE_CONTEXT: usize = 256;

/// How a redaction marker starts; a marker's kind name (`github_token`) must not be read as
/// the name of an assignment when the text is scanned again.
const MARKER_OPEN: &str = "[REDACTED:";

type Emit<'f> = &'f mut dyn FnMut(Candidate) -> ControlFlow<()>;

// One arm per rule family: a table of matchers, each a few lines.
#[allow(clippy::too_many_lines)]
fn run_rule(index: usize, compiled: &CompiledRule, text: &str, emit: Emit<'_>) -> ControlFlow<()> {
    let rule = ALL_RULES[index];
    let re = &compiled.re;
    let kind = rule.kind;
    match rule.check {
        Check::Token { boundary, valid } => {
            for m in re.find_iter(text) {
                let before = m.start().checked_sub(1).map(|i| text.as_bytes()[i]);
                let after = text.as_bytes().get(m.end()).copied();
                if before.is_some_and(boundary) || after.is_some_and(boundary) {
                    continue;
                }
                if valid(m.as_str()) {
                    emit(Candidate {
                        kind,
                        start: m.start(),
                        end: m.end(),
                    })?;
                }
            }
        }
        Check::PemBlock => {
            pem::blocks(text, re, &mut |start, end| {
                emit(Candidate { kind, start, end })
            })?;
        }
        Check::Keyed { valid } => {
            for caps in re.captures_iter(text) {
                let Some(value) = caps.get(1) else { continue };
                let after = text.as_bytes().get(value.end()).copied();
                if after.is_some_and(|b| is_alnum(b) || b == b'/' || b == b'+') {
                    continue;
                }
                if valid(value.as_str()) {
                    emit(Candidate {
                        kind,
                        start: value.start(),
                        end: value.end(),
                    })?;
                }
            }
        }
        Check::DiscordBot => {
            for m in re.find_iter(text) {
                let after = text.as_bytes().get(m.end()).copied();
                if after.is_some_and(is_alnum_underscore_dash) {
                    continue;
                }
                if let Some(start) = providers::discord_start(text, m.start(), m.end()) {
                    emit(Candidate {
                        kind,
                        start,
                        end: m.end(),
                    })?;
                }
            }
        }
        Check::PpkBlock => {
            for m in re.find_iter(text) {
                let end = pem::ppk_block_end(text, m.end());
                if end > m.end() {
                    emit(Candidate {
                        kind,
                        start: m.start(),
                        end,
                    })?;
                }
            }
        }
        Check::AwsSecret => {
            for caps in re.captures_iter(text) {
                let Some(value) = caps.get(1) else { continue };
                let name_start = caps.get(0).map_or(0, |m| m.start());
                if text[..name_start].ends_with(MARKER_OPEN) {
                    continue;
                }
                let after = text.as_bytes().get(value.end()).copied();
                if after.is_some_and(|b| is_alnum(b) || b == b'/' || b == b'+') {
                    continue;
                }
                if generic::aws_secret_ok(value.as_str()) {
                    emit(Candidate {
                        kind,
                        start: value.start(),
                        end: value.end(),
                    })?;
                }
            }
        }
        Check::Assignment | Check::NamedValue => {
            for caps in re.captures_iter(text) {
                if let Some(c) = keyed_value(rule, compiled, text, &caps) {
                    emit(Candidate {
                        kind,
                        start: c.0,
                        end: c.1,
                    })?;
                }
            }
        }
        Check::UrlPassword => {
            for caps in re.captures_iter(text) {
                let user = compiled.user.and_then(|i| caps.get(i));
                let pass = compiled.pass.and_then(|i| caps.get(i));
                let (Some(user), Some(pass)) = (user, pass) else {
                    continue;
                };
                if generic::url_password_ok(user.as_str(), pass.as_str()) {
                    emit(Candidate {
                        kind,
                        start: pass.start(),
                        end: pass.end(),
                    })?;
                }
            }
        }
    }
    ControlFlow::Continue(())
}

/// The secret of one match of a keyword rule (`name = value`, `--flag value`,
/// `<name>value</name>`, …), or `None`.
///
/// A literal value (quoted; or unquoted on a config line, in a connection or query string,
/// an environment assignment, a command-line flag or an XML element) under a secret name is
/// judged by [`generic::keyword_value_ok`]: a credential whatever its entropy unless the whole
/// value is a placeholder or a reference. An unquoted value in code (`token = nextToken;`) is
/// an expression, so there only a value that looks random counts ([`generic::accept_value`]).
// One judgement in order (name, form, literal or code); splitting it would scatter the state.
#[allow(clippy::too_many_lines)]
fn keyed_value(
    rule: &Rule,
    compiled: &CompiledRule,
    text: &str,
    caps: &regex::Captures<'_>,
) -> Option<(usize, usize)> {
    let key = compiled.key.and_then(|i| caps.get(i))?;
    let quoted = compiled
        .quoted
        .iter()
        .find_map(|&g| g.and_then(|i| caps.get(i)));
    let unquoted = compiled.unquoted.and_then(|i| caps.get(i));
    let (value, quoted) = match (quoted, unquoted) {
        (Some(v), _) => (v, true),
        (None, Some(v)) => (v, false),
        (None, None) => return None,
    };
    let bytes = text.as_bytes();
    let assignment = matches!(rule.check, Check::Assignment);
    let key_start = if assignment {
        extend_identifier_back(text, key.start())
    } else {
        key.start()
    };
    let mut start = value.start();
    let mut raw_end = value.end();
    let mut quoted = quoted;
    // `password: PF4PsQ=MVS` in YAML reads to the regex as a name with a type annotation
    // (`password: Type = …`); a YAML entry has no blank before its `=`.
    if assignment {
        if let Some(whole) = yaml_value_behind_annotation(text, key_start, key.end(), start) {
            (start, raw_end) = whole;
            quoted = false;
        }
    }
    let mut end = raw_end;
    if !quoted {
        // `f(password=abc)`, `{token: abc, …}`: the code's punctuation is not the value's,
        // unless the value opened it (`${DB_PASSWORD}`).
        while end > start {
            let opener = match bytes[end - 1] {
                b',' => None,
                b')' => Some(b'('),
                b']' => Some(b'['),
                b'}' => Some(b'{'),
                b'>' => Some(b'<'),
                _ => break,
            };
            if opener.is_some_and(|o| text[start..end - 1].bytes().any(|b| b == o)) {
                break;
            }
            end -= 1;
        }
    }
    if end - start < generic::KEYWORD_MIN_PASSWORD {
        return None;
    }
    // `https://x-access-token:<value>@host` is URL user-info, judged by the URL rule;
    // `[REDACTED:github_token]: …` is our own marker, not a name.
    let before = &text[..key_start];
    // `@inquirer/password`, `src/auth/token`: a package or a path, not a name.
    if before.ends_with("://") || before.ends_with(MARKER_OPEN) || before.ends_with(['/', '@']) {
        return None;
    }
    let name = &text[key_start..key.end()];
    // `test "$pass" = "lib"`, `[ "${token}" = "x" ]`: a shell comparison of a variable.
    if before.ends_with('$') || before.ends_with("${") {
        let closing = bytes.get(key.end()).copied();
        if matches!(closing, Some(b'"' | b'}')) {
            return None;
        }
    }
    let value_open = if quoted { start - 1 } else { start };
    let sep = text[..value_open]
        .trim_end_matches([' ', '\t'])
        .as_bytes()
        .last();
    if sep == Some(&b'(') && !(quoted && is_setter(name)) {
        return None;
    }
    let embedded = assignment && is_embedded(text, key_start);
    // `Pwd=` of a connection string; `pwd` alone elsewhere is the working directory.
    let connection_pwd = embedded && name.eq_ignore_ascii_case("pwd");
    if !generic::key_is_sensitive(name) && !connection_pwd {
        return None;
    }
    let password_key = connection_pwd || generic::is_password_key(name);
    // A config line's value is everything up to the blank (YAML, `.env`, INI keep a trailing
    // `,` or `)`), once the value without it passed: `token: tokenFromRequest,` is code.
    let mut redact_end = end;
    if !quoted && end != raw_end && is_config_line(text, key_start, raw_end) {
        redact_end = raw_end;
    }
    let literal = quoted
        || !assignment
        || embedded
        || redact_end != end
        || is_config_line(text, key_start, end)
        || is_env_assignment(text, key_start, key.end(), start)
        || is_connection_string_tail(text, end)
        || is_header_string(text, key_start, key.end(), end);
    if literal {
        let (secret_start, basic) = generic::skip_scheme(text, start, end);
        // `Basic <base64 of user:password>` is judged by its password (in `accept_value`).
        if basic {
            return generic::accept_value(text, start, end);
        }
        return generic::keyword_value_ok(&text[secret_start..end], password_key, quoted)
            .then_some((secret_start, redact_end));
    }
    // Code: the value is an expression. Up to its first bracket, comma or angle (as an
    // operand ends), and only a random-looking one is a secret.
    if generic::is_code_expression(&text[start..end]) {
        return None;
    }
    let code_end = text[start..end]
        .find([',', '(', ')', '{', '}', '[', ']', '<', '>'])
        .map_or(end, |i| start + i);
    if code_end - start < generic::MIN_LEN || matches!(bytes.get(code_end), Some(b'(' | b'[')) {
        return None;
    }
    let (s, e) = generic::accept_value(text, start, code_end)?;
    // Shaped like an identifier (`token: TokenType`, `auth = authHeader`), it is a reference
    // unless an `Authorization` scheme came first.
    (s != start || !is_identifier(&text[s..e])).then_some((s, e))
}

/// When a match took `: Word` after the name as a type annotation (`password: Type = …`) but
/// the text is a YAML entry (`password: PF4PsQ=MVS`: no blank before the `=`), the range of
/// the whole entry's value, up to the next blank.
fn yaml_value_behind_annotation(
    text: &str,
    key_start: usize,
    key_end: usize,
    value_start: usize,
) -> Option<(usize, usize)> {
    let between = &text[key_end..value_start];
    let colon = between.find(':')?;
    let after_colon = &between[colon + 1..];
    let type_start = key_end + colon + 1 + (after_colon.len() - after_colon.trim_start().len());
    let sep = between.rfind(['=', ':']).map(|i| key_end + i)?;
    // An annotation was taken: something between the colon and the separator, no blank
    // right before the separator.
    // Not a path (`&ec::Seed`, `crate::Key`) nor a reference: YAML values do not start
    // with `&` and Rust paths hold `::`.
    if sep <= type_start
        || text.as_bytes()[sep - 1].is_ascii_whitespace()
        || text[type_start..].starts_with('&')
        || text[type_start..=sep].contains("::")
        || text.as_bytes().get(sep + 1) == Some(&b':')
    {
        return None;
    }
    let end = text[type_start..]
        .find(|c: char| c.is_whitespace())
        .map_or(text.len(), |i| type_start + i);
    (end > value_start && is_config_line(text, key_start, end)).then_some((type_start, end))
}

/// A name that takes a secret as its argument: a setter (`setPassword`, `withToken`,
/// `put_secret`) or a builder method named after the secret (`.password`, `.api_key`).
/// Getters, checks and hashes (`getSecret("name")`, `hashPassword(…)`) take other things.
fn is_setter(name: &str) -> bool {
    let method = name.rsplit('.').next().unwrap_or(name);
    let lower = method.to_ascii_lowercase();
    let lower = lower.trim_start_matches('_');
    ["set", "with", "put", "use"]
        .iter()
        .any(|p| lower.strip_prefix(p).is_some_and(generic::key_is_sensitive))
        || matches!(
            lower.replace(['_', '-'], "").as_str(),
            "password"
                | "passwd"
                | "passphrase"
                | "token"
                | "secret"
                | "apikey"
                | "authtoken"
                | "accesstoken"
                | "clientsecret"
                | "secretkey"
        )
}

/// Whether a name starting at `key_start` stands inside a string or a connection string, so
/// that what follows its `=` is text, not code: after `;`, `?` or `&` (`Server=x;Password=…`,
/// `?token=…`), or after an odd number of double quotes on its line (`"DB_PASSWORD=…"`).
fn is_embedded(text: &str, key_start: usize) -> bool {
    let from = pem::floor_char_boundary(text, key_start.saturating_sub(LINE_CONTEXT));
    let line = &text[from..key_start];
    let line = line.rfind('\n').map_or(line, |i| &line[i + 1..]);
    if line.trim_end().ends_with([';', '?', '&']) {
        return true;
    }
    line.bytes().filter(|&b| b == b'"').count() % 2 == 1
}

/// `Password=…;Timeout=30`: a `;` right after the value, then another `Key=`, as in a
/// connection string that starts with the password.
fn is_connection_string_tail(text: &str, value_end: usize) -> bool {
    let Some(rest) = text[value_end..].strip_prefix(';') else {
        return false;
    };
    let name = rest
        .bytes()
        .take(64)
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b' ' | b'_'))
        .count();
    name > 0 && rest.as_bytes().get(name) == Some(&b'=')
}

/// `PGPASSWORD=… psql`, `ENV DB_PASSWORD=…`: an upper-case name, `=` without blanks, and the
/// value right after: a shell or Dockerfile environment assignment, whatever follows.
fn is_env_assignment(text: &str, key_start: usize, key_end: usize, value_start: usize) -> bool {
    let bytes = text.as_bytes();
    value_start == key_end + 1
        && bytes.get(key_end) == Some(&b'=')
        && key_start
            .checked_sub(1)
            .is_none_or(|i| bytes[i].is_ascii_whitespace())
        && text[key_start..key_end]
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// The regex anchors an assignment at the keyword; the identifier may start earlier
/// (`DB_PASSWORD`, `x-api-key`, `githubToken`). Bounded, so a pathological run of identifier
/// characters cannot make this quadratic.
fn extend_identifier_back(text: &str, start: usize) -> usize {
    const MAX_BACK: usize = 64;
    let bytes = text.as_bytes();
    let mut i = start;
    while i > 0 && start - i < MAX_BACK {
        let b = bytes[i - 1];
        if b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-') {
            i -= 1;
        } else {
            break;
        }
    }
    i
}

fn is_identifier(s: &str) -> bool {
    let mut bytes = s.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'$')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
}

/// Whether the assignment whose name starts at `key_start` and whose value ends at
/// `value_end` is a whole config line: nothing before the name but indentation, `export`,
/// `set` or a YAML `-`, and nothing after the value but a `#` comment. Looks at most
/// [`LINE_CONTEXT`] bytes either way, so that a long line of assignments stays linear.
fn is_config_line(text: &str, key_start: usize, value_end: usize) -> bool {
    let from = pem::floor_char_boundary(text, key_start.saturating_sub(LINE_CONTEXT));
    let Some(before) = (match text[from..key_start].rfind('\n') {
        Some(i) => Some(&text[from + i + 1..key_start]),
        None if from == 0 => Some(&text[..key_start]),
        None => None,
    }) else {
        return false;
    };
    let before = before.trim().trim_end_matches(['"', '\'']);
    let to = pem::floor_char_boundary(text, value_end.saturating_add(LINE_CONTEXT));
    let after = text[value_end..to].trim_start_matches([' ', '\t', '\r']);
    matches!(before, "" | "export" | "set" | "-")
        && (after.is_empty() || after.starts_with(['\n', '#']))
}

/// Whether the assignment is an HTTP header written as one string: `"X-Api-Key: value"`,
/// `'Authorization: value'` (the quote before the name closes only after the value).
fn is_header_string(text: &str, key_start: usize, key_end: usize, value_end: usize) -> bool {
    let bytes = text.as_bytes();
    let Some(&quote) = key_start.checked_sub(1).map(|i| &bytes[i]) else {
        return false;
    };
    matches!(quote, b'"' | b'\'')
        && bytes.get(key_end) != Some(&quote)
        && bytes.get(value_end) == Some(&quote)
}

pub(super) fn is_alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

pub(super) fn is_alnum_underscore(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

pub(super) fn is_alnum_underscore_dash(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// `AKIAIOSFODNN7EXAMPLE` and friends are AWS's documented examples.
fn valid_aws_key_id(token: &str) -> bool {
    !token.ends_with("EXAMPLE") && generic::token_body_ok(&token[4..])
}

fn valid_github(token: &str) -> bool {
    // GitHub documents a maximum of 255 characters for its tokens.
    let body = token.strip_prefix("github_pat_").unwrap_or(&token[4..]);
    token.len() <= 255 && generic::token_body_ok(body)
}

fn valid_after_dash(token: &str) -> bool {
    let body = token.split_once('-').map_or(token, |(_, b)| b);
    generic::token_body_ok(body)
}

fn valid_slack_token(token: &str) -> bool {
    // Real Slack tokens always carry numeric team / user / app IDs; `xoxb-your-token-here`
    // does not.
    let body = token.split_once('-').map_or(token, |(_, b)| b);
    body.bytes().any(|b| b.is_ascii_digit()) && generic::token_body_ok(body)
}

fn valid_slack_webhook(url: &str) -> bool {
    generic::token_body_ok(after_last(url, '/'))
}

fn valid_openai(token: &str) -> bool {
    let body = &token[3..];
    let body = ["proj-", "svcacct-", "admin-"]
        .iter()
        .find_map(|p| body.strip_prefix(p))
        .unwrap_or(body);
    generic::token_body_ok(body)
}

fn valid_stripe(token: &str) -> bool {
    generic::token_body_ok(after_last(token, '_'))
}

fn valid_google(token: &str) -> bool {
    generic::token_body_ok(&token[4..])
}

/// A JWS always has an `alg` header parameter (RFC 7515 §4.1.1), so the first segment must
/// decode to JSON that names one.
fn valid_jwt(token: &str) -> bool {
    let header = token.split('.').next().unwrap_or_default();
    match generic::base64_decode(header) {
        Some(bytes) => bytes.first() == Some(&b'{') && bytes.windows(5).any(|w| w == b"\"alg\""),
        None => false,
    }
}

fn after_last(s: &str, c: char) -> &str {
    s.rsplit_once(c).map_or(s, |(_, b)| b)
}

#[cfg(test)]
mod rule_tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        let n = RULES.len() + providers::RULES.len();
        assert_eq!(COMPILED.each.len(), n);
        assert_eq!(COMPILED.set.len(), RULES.len());
    }
}
