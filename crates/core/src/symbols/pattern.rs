//! Name patterns with `*` (any run of characters, also none) and `?` (exactly one character),
//! matched case-insensitively against the whole name.

use crate::error::{Error, Result};

use super::MAX_PATTERN_CHARS;

/// A compiled name pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    lower: String,
    chars: Vec<char>,
}

impl Pattern {
    /// Compiles `pattern`.
    ///
    /// Errors (`invalid_request`): empty (or only whitespace), or longer than
    /// [`MAX_PATTERN_CHARS`] characters.
    pub fn new(pattern: &str) -> Result<Pattern> {
        let pattern = pattern.trim();
        if pattern.is_empty() {
            return Err(Error::invalid_request("name must not be empty"));
        }
        if pattern.chars().count() > MAX_PATTERN_CHARS {
            return Err(Error::invalid_request(format!(
                "name must be at most {MAX_PATTERN_CHARS} characters"
            )));
        }
        let lower = pattern.to_lowercase();
        Ok(Pattern {
            chars: lower.chars().collect(),
            lower,
        })
    }

    /// The pattern, lower-cased.
    pub fn literal_lower(&self) -> Option<String> {
        Some(self.lower.clone())
    }

    /// True if `name` matches, case-insensitively.
    pub fn matches(&self, name: &str) -> bool {
        self.matches_lower(&name.to_lowercase())
    }

    /// True if `lower` (an already lower-cased name) matches.
    pub fn matches_lower(&self, lower: &str) -> bool {
        // Iterative glob matching with one backtrack point: linear in practice, at worst
        // pattern length times name length.
        let p = &self.chars;
        let mut name = lower.chars();
        let s: Vec<char> = if p.iter().any(|&c| c == '*' || c == '?') {
            name.by_ref().collect()
        } else {
            return self.lower == lower;
        };
        let (mut pi, mut si) = (0usize, 0usize);
        let mut star: Option<(usize, usize)> = None;
        while si < s.len() {
            if pi < p.len() && (p[pi] == '?' || p[pi] == s[si]) {
                pi += 1;
                si += 1;
            } else if pi < p.len() && p[pi] == '*' {
                star = Some((pi, si));
                pi += 1;
            } else if let Some((sp, ss)) = star {
                pi = sp + 1;
                si = ss + 1;
                star = Some((sp, ss + 1));
            } else {
                return false;
            }
        }
        while pi < p.len() && p[pi] == '*' {
            pi += 1;
        }
        pi == p.len()
    }
}
