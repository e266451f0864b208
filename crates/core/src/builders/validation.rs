//! Validation results (`ValidationOutput`, `ParsedError`) and a parser for the real output of
//! the usual checkers: `tsc`, `eslint` (stylish and unix formats), `rustc`/`cargo`/`clippy`,
//! `pytest`, `mypy` and `ruff` (concise and full formats).
//!
//! The parser reads line by line, strips ANSI colours, and keeps errors in the order they
//! appear. Lines it does not recognise are ignored, so mixed logs (a CI job running several
//! tools) parse too.

use std::sync::OnceLock;

use regex::Regex;

/// How serious a reported problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Fails the check.
    Error,
    /// Reported but does not fail.
    Warning,
    /// Additional information attached to another problem.
    Note,
}

impl Severity {
    /// `error`, `warning` or `note`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }

    /// Parses a severity word as the tools print it (`error`, `Error`, `warning`, `note`,
    /// `message`, `info`).
    pub fn parse(s: &str) -> Option<Severity> {
        match s.to_ascii_lowercase().as_str() {
            "error" | "fatal" | "failed" => Some(Severity::Error),
            "warning" | "warn" => Some(Severity::Warning),
            "note" | "info" | "message" | "help" => Some(Severity::Note),
            _ => None,
        }
    }
}

/// One problem reported by a validation tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedError {
    /// The file, as the tool printed it (relative to where it ran, or absolute).
    pub file: Option<String>,
    /// 1-based line.
    pub line: Option<usize>,
    /// 1-based column.
    pub column: Option<usize>,
    /// The message (first line).
    pub message: String,
    /// How serious it is.
    pub severity: Severity,
    /// The tool that reported it (`tsc`, `eslint`, `rustc`, `pytest`, `mypy`, `ruff`).
    pub tool: Option<String>,
    /// The tool's rule or error code (`TS2322`, `E0308`, `no-unused-vars`, `F401`...).
    pub code: Option<String>,
}

/// One stage of a validation run (a lint, a type check, a test run).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValidationStage {
    /// The stage's name (`lint`, `typecheck`, `test`).
    pub name: String,
    /// Whether the stage passed, when known.
    pub passed: Option<bool>,
    /// The problems it found.
    pub errors: Vec<ParsedError>,
    /// Its raw output; parsed with [`parse_validation_output`] when `errors` is empty.
    pub output: Option<String>,
}

/// The result of a validation run: its stages in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValidationOutput {
    /// The stages, in the order they ran.
    pub stages: Vec<ValidationStage>,
}

impl ValidationOutput {
    /// Every problem of every stage, each with its stage's name: the stage's `errors`, or
    /// when it has none, those parsed from its `output`.
    pub fn all_errors(&self) -> Vec<(String, ParsedError)> {
        let mut out = Vec::new();
        for stage in &self.stages {
            if !stage.errors.is_empty() {
                out.extend(stage.errors.iter().map(|e| (stage.name.clone(), e.clone())));
            } else if let Some(text) = &stage.output {
                out.extend(
                    parse_validation_output(text)
                        .into_iter()
                        .map(|e| (stage.name.clone(), e)),
                );
            }
        }
        out
    }
}

struct Patterns {
    ansi: Regex,
    tsc_paren: Regex,
    tsc_pretty: Regex,
    ruff_concise: Regex,
    colon_severity: Regex,
    eslint_unix: Regex,
    pytest_location: Regex,
    pytest_failed: Regex,
    rust_header: Regex,
    rust_noise: Regex,
    ruff_header: Regex,
    arrow: Regex,
    eslint_entry: Regex,
    eslint_file: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let re = |s: &str| Regex::new(s).expect("valid pattern");
        Patterns {
            ansi: re(r"\x1b\[[0-9;?]*[A-Za-z]"),
            tsc_paren: re(
                r"^(?P<file>[^\s(][^(]*)\((?P<line>\d+),(?P<col>\d+)\): (?P<sev>error|warning|message) (?P<code>TS\d+): (?P<msg>.*)$",
            ),
            tsc_pretty: re(
                r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+) - (?P<sev>error|warning|message) (?P<code>TS\d+): (?P<msg>.*)$",
            ),
            ruff_concise: re(
                r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]{1,4}\d{1,4}) (?:\[\*\] )?(?P<msg>.*)$",
            ),
            colon_severity: re(
                r"^(?P<file>[^\s:][^:]*):(?P<line>\d+)(?::(?P<col>\d+))?: (?P<sev>error|warning|note): (?P<msg>.*?)(?:  \[(?P<code>[a-z0-9-]+)\])?$",
            ),
            eslint_unix: re(
                r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): (?P<msg>.*) \[(?P<sev>Error|Warning)(?:/(?P<code>[^\]]+))?\]$",
            ),
            pytest_location: re(
                r"^(?P<file>[^\s:][^:]*\.py):(?P<line>\d+): (?P<exc>[A-Za-z_][\w.]*)$",
            ),
            pytest_failed: re(
                r"^(?P<kind>FAILED|ERROR) (?P<file>[^\s:]+\.py)(?:::(?P<test>\S+))?(?: - (?P<msg>.*))?$",
            ),
            rust_header: re(
                r"^(?P<sev>error|warning)(?:\[(?P<code>[A-Za-z0-9_:]+)\])?: (?P<msg>.*)$",
            ),
            rust_noise: re(
                r"^(?:aborting due to|could not compile|build failed|`[^`]*` \(.*\) generated \d+ warnings?|\d+ warnings? emitted|Some errors have detailed explanations|For more information about)",
            ),
            ruff_header: re(r"^(?P<code>[A-Z]{1,4}\d{2,4}) (?:\[\*\] )?(?P<msg>.+)$"),
            arrow: re(r"^\s*--> (?P<file>.+?):(?P<line>\d+):(?P<col>\d+)$"),
            eslint_entry: re(
                r"^\s+(?P<line>\d+):(?P<col>\d+)\s+(?P<sev>error|warning)\s+(?P<msg>.*?)(?:\s{2,}(?P<code>[@\w/-]+))?$",
            ),
            eslint_file: re(r"^(?:[A-Za-z]:)?[^\s:][^:]*\.[A-Za-z0-9]{1,10}$"),
        }
    })
}

enum Pending {
    Rust(ParsedError),
    Ruff(ParsedError),
}

fn num(s: Option<regex::Match<'_>>) -> Option<usize> {
    s.and_then(|m| m.as_str().parse().ok())
}

fn text(s: Option<regex::Match<'_>>) -> Option<String> {
    s.map(|m| m.as_str().to_owned())
}

/// Turns a tool's output into problems, in the order they appear. Recognises `tsc` (both
/// formats), `eslint` (stylish, unix), `rustc`/`cargo`/`clippy` (`error[E..]:` with its
/// `-->` location), `pytest` (traceback locations with their `E` lines, and `FAILED`/`ERROR`
/// summary lines not already covered), `mypy` and `ruff` (concise and full).
pub fn parse_validation_output(output: &str) -> Vec<ParsedError> {
    let p = patterns();
    let mut errors: Vec<ParsedError> = Vec::new();
    let mut pending: Option<Pending> = None;
    let mut eslint_file: Option<String> = None;
    let mut pytest_e_lines: Vec<String> = Vec::new();

    for raw in output.lines() {
        let stripped;
        let line = if raw.contains('\x1b') {
            stripped = p.ansi.replace_all(raw, "");
            stripped.as_ref()
        } else {
            raw
        };
        let line = line.trim_end();

        if let Some(pend) = pending.take() {
            if let Some(c) = p.arrow.captures(line) {
                let mut e = match pend {
                    Pending::Rust(e) | Pending::Ruff(e) => e,
                };
                e.file = text(c.name("file"));
                e.line = num(c.name("line"));
                e.column = num(c.name("col"));
                errors.push(e);
                continue;
            }
            if let Pending::Rust(e) = pend {
                // A rustc/cargo error without a location (a linker failure, a missing crate).
                errors.push(e);
            }
        }

        if let Some(c) = p
            .tsc_paren
            .captures(line)
            .or_else(|| p.tsc_pretty.captures(line))
        {
            errors.push(ParsedError {
                file: text(c.name("file")).map(|f| f.trim().to_owned()),
                line: num(c.name("line")),
                column: num(c.name("col")),
                message: c["msg"].to_owned(),
                severity: Severity::parse(&c["sev"]).unwrap_or(Severity::Error),
                tool: Some("tsc".into()),
                code: text(c.name("code")),
            });
            continue;
        }
        if let Some(c) = p.eslint_unix.captures(line) {
            errors.push(ParsedError {
                file: text(c.name("file")),
                line: num(c.name("line")),
                column: num(c.name("col")),
                message: c["msg"].to_owned(),
                severity: Severity::parse(&c["sev"]).unwrap_or(Severity::Error),
                tool: Some("eslint".into()),
                code: text(c.name("code")),
            });
            continue;
        }
        if let Some(c) = p.ruff_concise.captures(line) {
            errors.push(ParsedError {
                file: text(c.name("file")),
                line: num(c.name("line")),
                column: num(c.name("col")),
                message: c["msg"].to_owned(),
                severity: Severity::Error,
                tool: Some("ruff".into()),
                code: text(c.name("code")),
            });
            continue;
        }
        if let Some(c) = p.colon_severity.captures(line) {
            let file = c["file"].to_owned();
            let tool = if file.ends_with(".py") || file.ends_with(".pyi") {
                Some("mypy".to_owned())
            } else {
                None
            };
            errors.push(ParsedError {
                file: Some(file),
                line: num(c.name("line")),
                column: num(c.name("col")),
                message: c["msg"].to_owned(),
                severity: Severity::parse(&c["sev"]).unwrap_or(Severity::Error),
                tool,
                code: text(c.name("code")),
            });
            continue;
        }
        if let Some(c) = p.pytest_location.captures(line) {
            let message = if pytest_e_lines.is_empty() {
                c["exc"].to_owned()
            } else {
                pytest_e_lines.join(" ")
            };
            pytest_e_lines.clear();
            errors.push(ParsedError {
                file: text(c.name("file")),
                line: num(c.name("line")),
                column: None,
                message,
                severity: Severity::Error,
                tool: Some("pytest".into()),
                code: text(c.name("exc")),
            });
            continue;
        }
        if let Some(c) = p.pytest_failed.captures(line) {
            let file = c["file"].to_owned();
            let message = match (c.name("test"), c.name("msg")) {
                (Some(t), Some(m)) => format!("{} - {}", t.as_str(), m.as_str()),
                (Some(t), None) => t.as_str().to_owned(),
                (None, Some(m)) => m.as_str().to_owned(),
                (None, None) => c["kind"].to_owned(),
            };
            let detail = c.name("msg").map(|m| m.as_str().to_owned());
            // The traceback already gave this failure with its line: keep that one.
            let covered = detail.as_ref().is_some_and(|d| {
                errors.iter().any(|e| {
                    e.tool.as_deref() == Some("pytest")
                        && e.file.as_deref() == Some(file.as_str())
                        && e.line.is_some()
                        && e.message.contains(d.trim_start_matches("assert ").trim())
                })
            });
            if !covered {
                errors.push(ParsedError {
                    file: Some(file),
                    line: None,
                    column: None,
                    message,
                    severity: Severity::Error,
                    tool: Some("pytest".into()),
                    code: Some(c["kind"].to_owned()),
                });
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("E ") {
            let rest = rest.trim();
            if !rest.is_empty() && pytest_e_lines.len() < 20 {
                pytest_e_lines.push(rest.to_owned());
            }
            continue;
        }
        if let Some(c) = p.rust_header.captures(line) {
            if !p.rust_noise.is_match(&c["msg"]) {
                pending = Some(Pending::Rust(ParsedError {
                    file: None,
                    line: None,
                    column: None,
                    message: c["msg"].to_owned(),
                    severity: Severity::parse(&c["sev"]).unwrap_or(Severity::Error),
                    tool: Some("rustc".into()),
                    code: text(c.name("code")),
                }));
            }
            eslint_file = None;
            continue;
        }
        if let Some(c) = p.ruff_header.captures(line) {
            pending = Some(Pending::Ruff(ParsedError {
                file: None,
                line: None,
                column: None,
                message: c["msg"].to_owned(),
                severity: Severity::Error,
                tool: Some("ruff".into()),
                code: text(c.name("code")),
            }));
            continue;
        }
        if let Some(file) = &eslint_file {
            if let Some(c) = p.eslint_entry.captures(line) {
                errors.push(ParsedError {
                    file: Some(file.clone()),
                    line: num(c.name("line")),
                    column: num(c.name("col")),
                    message: c["msg"].to_owned(),
                    severity: Severity::parse(&c["sev"]).unwrap_or(Severity::Error),
                    tool: Some("eslint".into()),
                    code: text(c.name("code")),
                });
                continue;
            }
        }
        if p.eslint_file.is_match(line) {
            eslint_file = Some(line.to_owned());
        } else if line.is_empty() || !line.starts_with(char::is_whitespace) {
            if !line.is_empty() {
                eslint_file = None;
            }
            if line.starts_with("___") || line.starts_with("===") {
                pytest_e_lines.clear();
            }
        }
    }
    if let Some(Pending::Rust(e)) = pending {
        errors.push(e);
    }
    errors
}
