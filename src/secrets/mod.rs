//! Interim stand-in for the `secrets` module, which another branch is finishing: the same API
//! (`scan` -> `Finding { kind, line, column, start, end }`) with only two detectors (GitHub
//! tokens, AWS access key ids), so the builders' FR-015 warnings work and are tested. On merge,
//! the real module replaces this file entirely.

use std::sync::OnceLock;

/// What kind of credential a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretKind {
    /// `ghp_` / `gho_` / `ghs_`... personal and app tokens.
    GithubToken,
    /// `AKIA...` access key ids.
    AwsAccessKeyId,
}

impl SecretKind {
    /// The kind's stable name.
    pub const fn as_str(self) -> &'static str {
        match self {
            SecretKind::GithubToken => "github_token",
            SecretKind::AwsAccessKeyId => "aws_access_key_id",
        }
    }
}

/// One suspected secret (the value itself is never stored).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What it looks like.
    pub kind: SecretKind,
    /// 1-based line.
    pub line: usize,
    /// 1-based column in characters.
    pub column: usize,
    /// Byte offset of its start.
    pub start: usize,
    /// Byte offset of its end.
    pub end: usize,
}

/// Every suspected secret in `text`, in order.
pub fn scan(text: &str) -> Vec<Finding> {
    static RE: OnceLock<regex::Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(r"\b(?:gh[pousr]_[A-Za-z0-9]{36}|AKIA[0-9A-Z]{16})\b").expect("valid")
    });
    re.find_iter(text)
        .map(|m| {
            let before = &text[..m.start()];
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            Finding {
                kind: if m.as_str().starts_with("gh") {
                    SecretKind::GithubToken
                } else {
                    SecretKind::AwsAccessKeyId
                },
                line: before.matches('\n').count() + 1,
                column: text[line_start..m.start()].chars().count() + 1,
                start: m.start(),
                end: m.end(),
            }
        })
        .collect()
}
