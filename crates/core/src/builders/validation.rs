//! Validation results (`ValidationOutput`, `ParsedError`) and a parser for the real output of
//! the usual checkers: `tsc`, `eslint` (stylish and unix formats), `rustc`/`cargo`/`clippy`,
//! `pytest`, `mypy` and `ruff` (concise and full formats).
//!
//! The parser reads line by line, strips ANSI colours, and keeps errors in the order they
//! appear. Lines it does not recognise are ignored, so mixed logs (a CI job running several
//! tools) parse too.

use std::sync::OnceLock;

use regex::Regex;

use crate::syntax::Lang;

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

/// A problem of `tool` from a line pattern's named groups: `msg`, and where the pattern has
/// them `file`, `line`, `col`, `sev` (default error) and `code`.
fn captured(c: &regex::Captures<'_>, tool: &str) -> ParsedError {
    ParsedError {
        file: text(c.name("file")),
        line: num(c.name("line")),
        column: num(c.name("col")),
        message: c["msg"].to_owned(),
        severity: c
            .name("sev")
            .and_then(|s| Severity::parse(s.as_str()))
            .unwrap_or(Severity::Error),
        tool: Some(tool.into()),
        code: text(c.name("code")),
    }
}

/// How many of a file's traceback errors a pytest `FAILED` summary line is compared with, from
/// the first one not yet matched. pytest prints the summary in the order of the tracebacks,
/// so the match is nearly always the first candidate; the bound keeps thousands of summary
/// lines linear (8 MiB of `FAILED` lines took 37 s when each looked at every error).
const PYTEST_MATCH_WINDOW: usize = 64;

/// Turns a tool's output into problems, in the order they appear. Recognises `tsc` (both
/// formats), `eslint` (stylish, unix), `rustc`/`cargo`/`clippy` (`error[E..]:` with its
/// `-->` location), `pytest` (traceback locations with their `E` lines, and `FAILED`/`ERROR`
/// summary lines not already covered), `mypy` and `ruff` (concise and full).
///
/// Linear in the output: each line is tried against each format once, and the pytest summary
/// lookup is bounded ([`PYTEST_MATCH_WINDOW`]).
pub fn parse_validation_output(output: &str) -> Vec<ParsedError> {
    let mut parser = Parser::new();
    for raw in output.lines() {
        parser.line(raw);
    }
    parser.finish()
}

/// The parser's state between lines.
struct Parser {
    p: &'static Patterns,
    errors: Vec<ParsedError>,
    /// A rustc or ruff header waiting for its `-->` location line.
    pending: Option<Pending>,
    /// The file an eslint "stylish" block is about.
    eslint_file: Option<String>,
    /// The `E ` lines of the current pytest traceback.
    pytest_e_lines: Vec<String>,
    /// Per file, the indices in `errors` of pytest traceback errors with a line, and how many
    /// of them have been matched by `FAILED` lines already.
    pytest_tracebacks: std::collections::HashMap<String, (Vec<usize>, usize)>,
}

impl Parser {
    fn new() -> Parser {
        Parser {
            p: patterns(),
            errors: Vec::new(),
            pending: None,
            eslint_file: None,
            pytest_e_lines: Vec::new(),
            pytest_tracebacks: std::collections::HashMap::new(),
        }
    }

    fn finish(mut self) -> Vec<ParsedError> {
        if let Some(Pending::Rust(e)) = self.pending.take() {
            self.errors.push(e);
        }
        self.errors
    }

    /// One line of output: the first format that recognises it wins.
    fn line(&mut self, raw: &str) {
        let stripped;
        let line = if raw.contains('\x1b') {
            stripped = self.p.ansi.replace_all(raw, "");
            stripped.as_ref()
        } else {
            raw
        };
        let line = line.trim_end();
        let handled = self.location_of_pending(line)
            || self.tsc(line)
            || self.eslint_unix(line)
            || self.ruff_concise(line)
            || self.colon_severity(line)
            || self.pytest_location(line)
            || self.pytest_failed(line)
            || self.pytest_e_line(line)
            || self.rust_header(line)
            || self.ruff_header(line)
            || self.eslint_entry(line);
        if !handled {
            self.other_line(line);
        }
    }

    /// The `-->` line completing a pending rustc/ruff header; a rustc header without one is
    /// kept without a location (a linker failure, a missing crate).
    fn location_of_pending(&mut self, line: &str) -> bool {
        let Some(pend) = self.pending.take() else {
            return false;
        };
        if let Some(c) = self.p.arrow.captures(line) {
            let (Pending::Rust(mut e) | Pending::Ruff(mut e)) = pend;
            e.file = text(c.name("file"));
            e.line = num(c.name("line"));
            e.column = num(c.name("col"));
            self.errors.push(e);
            return true;
        }
        if let Pending::Rust(e) = pend {
            self.errors.push(e);
        }
        false
    }

    fn tsc(&mut self, line: &str) -> bool {
        let p = self.p;
        let Some(c) = p
            .tsc_paren
            .captures(line)
            .or_else(|| p.tsc_pretty.captures(line))
        else {
            return false;
        };
        self.errors.push(ParsedError {
            file: text(c.name("file")).map(|f| f.trim().to_owned()),
            ..captured(&c, "tsc")
        });
        true
    }

    fn eslint_unix(&mut self, line: &str) -> bool {
        let Some(c) = self.p.eslint_unix.captures(line) else {
            return false;
        };
        self.errors.push(captured(&c, "eslint"));
        true
    }

    fn ruff_concise(&mut self, line: &str) -> bool {
        let Some(c) = self.p.ruff_concise.captures(line) else {
            return false;
        };
        self.errors.push(ParsedError {
            severity: Severity::Error,
            ..captured(&c, "ruff")
        });
        true
    }

    /// `file:line[:col]: error|warning|note: message [code]` (mypy, gcc-style tools).
    fn colon_severity(&mut self, line: &str) -> bool {
        let Some(c) = self.p.colon_severity.captures(line) else {
            return false;
        };
        let file = c["file"].to_owned();
        let python = Lang::from_path(&file) == Some(Lang::Python);
        let tool = python.then(|| "mypy".to_owned());
        self.errors.push(ParsedError {
            file: Some(file),
            tool,
            ..captured(&c, "")
        });
        true
    }

    /// `path.py:12: AssertionError`: a traceback's location, with the `E ` lines before it as
    /// the message.
    fn pytest_location(&mut self, line: &str) -> bool {
        let Some(c) = self.p.pytest_location.captures(line) else {
            return false;
        };
        let message = if self.pytest_e_lines.is_empty() {
            c["exc"].to_owned()
        } else {
            self.pytest_e_lines.join(" ")
        };
        self.pytest_e_lines.clear();
        let file = c["file"].to_owned();
        self.pytest_tracebacks
            .entry(file.clone())
            .or_default()
            .0
            .push(self.errors.len());
        self.errors.push(ParsedError {
            file: Some(file),
            line: num(c.name("line")),
            column: None,
            message,
            severity: Severity::Error,
            tool: Some("pytest".into()),
            code: text(c.name("exc")),
        });
        true
    }

    /// `FAILED path.py::test - detail`: kept unless a traceback already gave this failure with
    /// its line.
    fn pytest_failed(&mut self, line: &str) -> bool {
        let Some(c) = self.p.pytest_failed.captures(line) else {
            return false;
        };
        let file = c["file"].to_owned();
        let message = match (c.name("test"), c.name("msg")) {
            (Some(t), Some(m)) => format!("{} - {}", t.as_str(), m.as_str()),
            (Some(t), None) => t.as_str().to_owned(),
            (None, Some(m)) => m.as_str().to_owned(),
            (None, None) => c["kind"].to_owned(),
        };
        let covered = c
            .name("msg")
            .is_some_and(|d| self.traceback_covers(&file, d.as_str()));
        if !covered {
            self.errors.push(ParsedError {
                file: Some(file),
                line: None,
                column: None,
                message,
                severity: Severity::Error,
                tool: Some("pytest".into()),
                code: Some(c["kind"].to_owned()),
            });
        }
        true
    }

    /// Whether one of the next [`PYTEST_MATCH_WINDOW`] unmatched tracebacks of `file` carries
    /// `detail`; the first match and those before it count as matched.
    fn traceback_covers(&mut self, file: &str, detail: &str) -> bool {
        let Some((indices, matched)) = self.pytest_tracebacks.get_mut(file) else {
            return false;
        };
        let needle = detail.trim_start_matches("assert ").trim();
        let errors = &self.errors;
        let found = indices
            .iter()
            .enumerate()
            .skip(*matched)
            .take(PYTEST_MATCH_WINDOW)
            .find(|(_, &i)| errors[i].message.contains(needle));
        match found {
            Some((k, _)) => {
                *matched = k + 1;
                true
            }
            None => false,
        }
    }

    fn pytest_e_line(&mut self, line: &str) -> bool {
        let Some(rest) = line.strip_prefix("E ") else {
            return false;
        };
        let rest = rest.trim();
        if !rest.is_empty() && self.pytest_e_lines.len() < 20 {
            self.pytest_e_lines.push(rest.to_owned());
        }
        true
    }

    /// `error[E0308]: message`, completed by a later `-->` line.
    fn rust_header(&mut self, line: &str) -> bool {
        let Some(c) = self.p.rust_header.captures(line) else {
            return false;
        };
        if !self.p.rust_noise.is_match(&c["msg"]) {
            self.pending = Some(Pending::Rust(ParsedError {
                file: None,
                line: None,
                column: None,
                ..captured(&c, "rustc")
            }));
        }
        self.eslint_file = None;
        true
    }

    /// `F401 [*] message` (ruff's full format), completed by a later `-->` line.
    fn ruff_header(&mut self, line: &str) -> bool {
        let Some(c) = self.p.ruff_header.captures(line) else {
            return false;
        };
        self.pending = Some(Pending::Ruff(ParsedError {
            file: None,
            line: None,
            column: None,
            severity: Severity::Error,
            ..captured(&c, "ruff")
        }));
        true
    }

    /// `  12:5  error  message  rule` under an eslint "stylish" file line.
    fn eslint_entry(&mut self, line: &str) -> bool {
        let Some(file) = &self.eslint_file else {
            return false;
        };
        let Some(c) = self.p.eslint_entry.captures(line) else {
            return false;
        };
        self.errors.push(ParsedError {
            file: Some(file.clone()),
            ..captured(&c, "eslint")
        });
        true
    }

    /// Any other line: an eslint file heading starts a block, other unindented text ends
    /// one, and a pytest section rule ends a traceback.
    fn other_line(&mut self, line: &str) {
        if self.p.eslint_file.is_match(line) {
            self.eslint_file = Some(line.to_owned());
        } else if line.is_empty() || !line.starts_with(char::is_whitespace) {
            if !line.is_empty() {
                self.eslint_file = None;
            }
            if line.starts_with("___") || line.starts_with("===") {
                self.pytest_e_lines.clear();
            }
        }
    }
}
