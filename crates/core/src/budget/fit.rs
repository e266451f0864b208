//! Proportional truncation of named sections to a token budget (the context-builder spec's
//! `fit_to_budget`).
//!
//! # Algorithm
//!
//! 1. Count every section once with the counter (`T_i`). If `ΣT_i <= budget`, return the
//!    input unchanged.
//! 2. Work per section in *units*: tokens for [`Counter::Exact`], chars for
//!    [`Counter::Estimate`] (then `ceil(chars / 4) <= a` iff `chars <= 4a`, so the estimate is
//!    exact and additive). A truncated section is its first `k` lines, optionally the next line
//!    cut within at a char boundary followed by `"..."`, then one `"..."` marker line. Line
//!    costs are computed lazily, once per line, and only as far into a section as its
//!    allocation reaches, so a 10 MB input costs one counting pass plus the kept head.
//! 3. Each section has a minimum: its first `min_lines` lines (each line costing at most
//!    [`MIN_LINE_CAP_TOKENS`] for this purpose, so one huge line does not make the minimum huge)
//!    plus the marker, or the whole section if smaller.
//! 4. If the minimums fit, each section gets its minimum plus a share of the rest
//!    proportional to `T_i - min_i`. Line granularity leaves some of each share unused; that
//!    slack is redistributed among the still-truncated sections in proportion to what they are
//!    missing, for a few rounds, and what is left goes greedily to sections in descending size.
//! 5. If the minimums do not fit (spec acceptance scenario 3), sections are filled in
//!    descending original size (ties by input order), each up to its minimum, until the
//!    budget runs out; the rest become `""`, or a lone marker if one fits. `severe` is set.
//! 6. BPE counts are not additive (a prefix can tokenize differently from the sum of its
//!    lines), so the result is counted again exactly. While it is over budget, the largest
//!    truncated section's allocation is lowered by the excess and it is rebuilt. The result is
//!    therefore always within the budget by the same counter.

use std::cmp::Reverse;

use super::bpe::PrefixCounter;
use super::lines::{line_count, split_terminator, MARKER};
use super::tokens::{Counter, Encoding};
use super::truncate::MAX_LINE_CHARS;

/// The spec's default budget for `fit_to_budget` (32,000 tokens).
pub const DEFAULT_BUDGET: usize = 32_000;

/// Default [`FitOptions::min_lines`].
pub const DEFAULT_MIN_LINES: usize = 3;

/// When computing a section's minimum, a line costs at most this many tokens (chars / 4 for
/// the estimate); a longer first line is then cut within to fit the minimum.
pub const MIN_LINE_CAP_TOKENS: usize = 100;

/// Proportional redistribution rounds before the final greedy pass.
const MAX_ROUNDS: usize = 8;

/// What [`fit_to_budget`] changed (the spec's truncation `_metadata`, plus budget numbers).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TruncationMetadata {
    /// Always `true` when present.
    pub truncated: bool,
    /// Total lines of all input sections.
    pub original_lines: usize,
    /// Total input lines kept; marker lines excluded, a line cut within counts as kept.
    pub kept_lines: usize,
    /// Names of the changed sections, in input order.
    pub sections_affected: Vec<String>,
    /// Whether the budget could not hold the minimum content of every section (so sections
    /// were filled largest first and smaller ones emptied or reduced to a marker), or some
    /// non-empty section kept none of its content for any other reason (e.g. budget 0 with
    /// `min_lines` 0).
    pub severe: bool,
    /// The budget asked for.
    pub budget: usize,
    /// Sum of the sections' token counts before fitting.
    pub tokens_before: usize,
    /// Sum of the sections' token counts after fitting (always `<= budget`).
    pub tokens_after: usize,
}

/// Options of [`fit_to_budget`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FitOptions {
    /// How tokens are counted. Default `Exact(O200kBase)`.
    pub counter: Counter,
    /// Lines each section keeps at the least before any section gets more (see the module
    /// docs). 0 means no minimum: shares are purely proportional. Default
    /// [`DEFAULT_MIN_LINES`].
    pub min_lines: usize,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            counter: Counter::default(),
            min_lines: DEFAULT_MIN_LINES,
        }
    }
}

/// The result of [`fit_to_budget`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fitted {
    /// The sections, same keys in the same order as the input.
    pub sections: Vec<(String, String)>,
    /// `None` iff nothing changed.
    pub metadata: Option<TruncationMetadata>,
}

/// Truncates `sections` (name, content) so that the sum of `options.counter.count(content)`
/// is at most `budget`; names are not counted.
///
/// - At or under budget: the sections come back byte-identical and `metadata` is `None`.
/// - Otherwise every section gets a share of the budget proportional to its size, after a
///   per-section minimum; shares a section cannot use are redistributed (see the module docs
///   for the algorithm). A truncated section keeps its head; removed lines are replaced by one
///   `"..."` line at the end, and a single huge line (minified JSON) is cut within, at a char
///   boundary, with `"..."` appended. Markers count toward the budget.
/// - If the budget cannot hold every section's minimum, larger sections win (descending size,
///   ties by input order); smaller ones become `""` or a lone `"..."`, and `severe` is set.
///   Budget 0 empties every non-empty section.
/// - The result is verified with a final exact count, so it never exceeds `budget`
///   (stricter than the spec's 5% tolerance). Deterministic.
///
/// Kept lines keep their terminators; a marker line ends with `\n` unless the input section
/// did not end with a newline.
pub fn fit_to_budget(sections: &[(String, String)], budget: usize, options: &FitOptions) -> Fitted {
    let counter = options.counter;
    let tokens: Vec<usize> = sections.iter().map(|(_, c)| counter.count(c)).collect();
    let tokens_before = tokens.iter().fold(0usize, |a, &t| a.saturating_add(t));
    if tokens_before <= budget {
        return Fitted {
            sections: sections.to_vec(),
            metadata: None,
        };
    }

    let meter = Meter::new(counter, budget);
    let mut secs: Vec<Section<'_>> = sections
        .iter()
        .zip(&tokens)
        .map(|((_, text), &t)| Section::new(text, t, &meter))
        .collect();

    let mins: Vec<usize> = secs
        .iter_mut()
        .map(|s| s.min_tokens(&meter, options.min_lines))
        .collect();
    let sum_min = mins.iter().fold(0usize, |a, &m| a.saturating_add(m));

    // Larger sections first, ties by input order.
    let mut by_size: Vec<usize> = (0..secs.len()).collect();
    by_size.sort_by_key(|&i| (Reverse(tokens[i]), i));

    let short_of_minimum = sum_min > budget;
    if short_of_minimum {
        let mut remaining = budget;
        for &i in &by_size {
            let cost = secs[i].set_alloc(mins[i].min(remaining), &meter, options.min_lines);
            remaining -= cost;
        }
    } else {
        let rest = (budget - sum_min) as u128;
        let weight: u128 = secs
            .iter()
            .zip(&mins)
            .map(|(s, &m)| (s.tokens - m) as u128)
            .sum();
        for (s, &m) in secs.iter_mut().zip(&mins) {
            let share = rest * (s.tokens - m) as u128 / weight.max(1);
            s.set_alloc(m + share as usize, &meter, options.min_lines);
        }
        redistribute(&mut secs, budget, &meter, options.min_lines);
    }
    greedy_fill(&mut secs, &by_size, budget, &meter, options.min_lines);

    // Verify with the real counter; shrink the largest truncated section while over.
    let mut outputs: Vec<Option<String>> = secs.iter().map(Section::render).collect();
    let mut actual: Vec<usize> = secs
        .iter()
        .zip(&outputs)
        .map(|(s, o)| o.as_deref().map_or(s.tokens, |o| counter.count(o)))
        .collect();
    loop {
        let total: usize = actual.iter().sum();
        if total <= budget {
            break;
        }
        let excess = total - budget;
        let Some(i) = (0..secs.len())
            .filter(|&i| outputs[i].is_some() && actual[i] > 0)
            .max_by_key(|&i| (actual[i], Reverse(i)))
        else {
            break; // unreachable: whole sections alone fit, since their allocations did
        };
        let s = &mut secs[i];
        let lowered = s.alloc.min(s.cost).saturating_sub(excess);
        s.set_alloc(lowered, &meter, options.min_lines);
        outputs[i] = s.render();
        actual[i] = outputs[i].as_deref().map_or(0, |o| counter.count(o));
    }

    let mut meta = TruncationMetadata {
        truncated: true,
        budget,
        tokens_before,
        tokens_after: actual.iter().sum(),
        severe: short_of_minimum,
        ..TruncationMetadata::default()
    };
    let mut out = Vec::with_capacity(sections.len());
    for (((name, text), s), output) in sections.iter().zip(&secs).zip(outputs) {
        meta.original_lines += s.n_lines;
        meta.kept_lines += s.kept_lines();
        match output {
            None => out.push((name.clone(), text.clone())),
            Some(o) => {
                meta.severe |= s.lost_everything();
                meta.sections_affected.push(name.clone());
                out.push((name.clone(), o));
            }
        }
    }
    Fitted {
        sections: out,
        metadata: Some(meta),
    }
}

/// Hands the unused budget to truncated sections in proportion to what they miss, until a
/// round changes nothing.
fn redistribute(secs: &mut [Section<'_>], budget: usize, meter: &Meter, min_lines: usize) {
    for _ in 0..MAX_ROUNDS {
        let used: usize = secs.iter().map(|s| s.cost).sum();
        let slack = (budget - used) as u128;
        let open: Vec<usize> = (0..secs.len()).filter(|&i| secs[i].is_open()).collect();
        if slack == 0 || open.is_empty() {
            return;
        }
        let weight: u128 = open
            .iter()
            .map(|&i| (secs[i].tokens - secs[i].cost) as u128)
            .sum();
        let mut changed = false;
        for s in secs.iter_mut() {
            if s.is_open() {
                let share = slack * (s.tokens - s.cost) as u128 / weight.max(1);
                let before = s.cost;
                s.set_alloc(s.cost + share as usize, meter, min_lines);
                changed |= s.cost != before;
            }
        }
        if !changed {
            return;
        }
    }
}

/// Gives what is still unused to truncated sections one at a time, in `order`.
fn greedy_fill(
    secs: &mut [Section<'_>],
    order: &[usize],
    budget: usize,
    meter: &Meter,
    min_lines: usize,
) {
    let used: usize = secs.iter().map(|s| s.cost).sum();
    let mut slack = budget - used;
    for &i in order {
        let s = &mut secs[i];
        if slack == 0 {
            break;
        }
        if !s.is_open() {
            continue;
        }
        let before = s.cost;
        s.set_alloc(before + slack, meter, min_lines);
        slack = slack + before - s.cost;
        s.alloc = s.cost;
    }
}

/// Measures text in units (see the module docs).
struct Meter {
    counter: Counter,
    /// Units of `"..."` plus a newline: the suffix of a cut line, counted generously.
    cut_suffix: usize,
    /// The budget in units: no allocation is larger, so no line cost above it matters.
    budget_units: usize,
}

impl Meter {
    fn new(counter: Counter, budget: usize) -> Self {
        let mut meter = Meter {
            counter,
            cut_suffix: 0,
            budget_units: 0,
        };
        meter.cut_suffix = meter.units("...\n");
        meter.budget_units = meter.units_from_tokens(budget);
        meter
    }

    /// The units of a line, or `budget_units + 1` for any line costing more than the whole
    /// budget: such a line can only ever be cut, and counting stops early, so a 10 MB
    /// minified line is not counted a second time.
    fn line_units(&self, line: &str) -> usize {
        match self.counter {
            Counter::Exact(encoding) => encoding
                .tokenizer()
                .count_till_limit(line, self.budget_units)
                .unwrap_or(self.budget_units.saturating_add(1)),
            Counter::Estimate => line.chars().count(),
        }
    }

    fn units(&self, s: &str) -> usize {
        match self.counter {
            Counter::Exact(_) => self.counter.count(s),
            Counter::Estimate => s.chars().count(),
        }
    }

    fn tokens_from_units(&self, units: usize) -> usize {
        match self.counter {
            Counter::Exact(_) => units,
            Counter::Estimate => units.div_ceil(4),
        }
    }

    fn units_from_tokens(&self, tokens: usize) -> usize {
        match self.counter {
            Counter::Exact(_) => tokens,
            Counter::Estimate => tokens.saturating_mul(4),
        }
    }

    /// The longest prefix of `body` (a line without terminator) that fits in `max` units, as
    /// (byte length, units). Exact: whole pre-tokenizer pieces while they fit, then a prefix
    /// of the next piece (see [`piece_prefix`]); work is proportional to the prefix, not to
    /// the line.
    fn cut(&self, body: &str, max: usize) -> (usize, usize) {
        match self.counter {
            Counter::Estimate => {
                let len = super::lines::char_prefix(body, max).len();
                (len, body[..len].chars().count())
            }
            Counter::Exact(encoding) => {
                let bpe = encoding.tokenizer();
                let (mut end, mut used) = (0, 0);
                for piece in bpe.split(body) {
                    let c = bpe.count_piece(piece.as_bytes());
                    if used + c <= max {
                        used += c;
                        end += piece.len();
                        continue;
                    }
                    let (len, units) = piece_prefix(encoding, piece, max - used);
                    end += len;
                    used += units;
                    break;
                }
                (end, used)
            }
        }
    }
}

/// The longest prefix of `piece` (which costs more than `room` tokens) before the first char
/// whose prefix costs more than `room`, as (byte length, tokens); (0, 0) if none. The
/// byte-pair count of a prefix is not monotone in its length (a longer prefix can merge into
/// fewer tokens), hence the first overflowing char, not a search.
fn piece_prefix(encoding: Encoding, piece: &str, room: usize) -> (usize, usize) {
    let mut counter = PrefixCounter::new(encoding);
    let (mut best, mut best_units) = (0, 0);
    for (i, ch) in piece.char_indices() {
        let next = i + ch.len_utf8();
        let t = counter.push(&piece.as_bytes()[i..next]);
        if t > room {
            break;
        }
        (best, best_units) = (next, t);
    }
    (best, best_units)
}

/// How a section is cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    /// Unchanged.
    Whole,
    /// `""`.
    Empty,
    /// The first `lines` lines, then the first `cut` bytes of the next line's content plus
    /// `"..."` if `cut` is set, then a marker line if any line was removed.
    Head { lines: usize, cut: Option<usize> },
}

/// One section while it is being fitted.
struct Section<'a> {
    text: &'a str,
    /// `counter.count(text)`.
    tokens: usize,
    n_lines: usize,
    /// The marker line that ends a truncated section.
    marker: &'static str,
    marker_units: usize,
    /// Byte end of each line computed so far.
    line_ends: Vec<usize>,
    /// `prefix[j]` = units of the first `j` lines (`prefix[0] = 0`).
    prefix: Vec<usize>,
    /// Tokens allocated.
    alloc: usize,
    plan: Plan,
    /// Planned cost in tokens (`<= alloc`); exact for the estimate, a close upper estimate
    /// for BPE, checked at the end.
    cost: usize,
}

impl<'a> Section<'a> {
    fn new(text: &'a str, tokens: usize, meter: &Meter) -> Self {
        let marker = if text.ends_with('\n') {
            "...\n"
        } else {
            MARKER
        };
        Section {
            text,
            tokens,
            n_lines: line_count(text),
            marker,
            marker_units: meter.units(marker),
            line_ends: Vec::new(),
            prefix: vec![0],
            alloc: tokens,
            plan: Plan::Whole,
            cost: tokens,
        }
    }

    /// Whether it is truncated and might take more.
    fn is_open(&self) -> bool {
        self.plan != Plan::Whole && self.tokens > 0
    }

    /// Computes the cost of the next line.
    fn push_line(&mut self, meter: &Meter) {
        let start = self.line_ends.last().copied().unwrap_or(0);
        let end = match self.text[start..].find('\n') {
            Some(p) => start + p + 1,
            None => self.text.len(),
        };
        let units = meter.line_units(&self.text[start..end]);
        self.line_ends.push(end);
        self.prefix
            .push(self.prefix[self.prefix.len() - 1].saturating_add(units));
    }

    fn line(&self, j: usize) -> &'a str {
        let start = if j == 0 { 0 } else { self.line_ends[j - 1] };
        &self.text[start..self.line_ends[j]]
    }

    /// The minimum content in tokens (see the module docs).
    fn min_tokens(&mut self, meter: &Meter, min_lines: usize) -> usize {
        if self.tokens == 0 || min_lines == 0 {
            return 0;
        }
        let m = min_lines.min(self.n_lines);
        while self.line_ends.len() < m {
            self.push_line(meter);
        }
        let cap = meter.units_from_tokens(MIN_LINE_CAP_TOKENS);
        let mut units: usize = (0..m)
            .map(|j| (self.prefix[j + 1] - self.prefix[j]).min(cap))
            .sum();
        if m < self.n_lines {
            units += self.marker_units;
        }
        self.tokens.min(meter.tokens_from_units(units))
    }

    /// Sets the allocation and recomputes the plan; returns the planned cost.
    fn set_alloc(&mut self, alloc: usize, meter: &Meter, min_lines: usize) -> usize {
        self.alloc = alloc;
        let (plan, units) = self.plan_for(alloc, meter, min_lines);
        self.plan = plan;
        self.cost = match plan {
            Plan::Whole => self.tokens,
            Plan::Empty => 0,
            Plan::Head { .. } => meter.tokens_from_units(units),
        };
        self.cost
    }

    /// The largest head that fits in `alloc` tokens, with its cost in units.
    fn plan_for(&mut self, alloc: usize, meter: &Meter, min_lines: usize) -> (Plan, usize) {
        if alloc >= self.tokens {
            return (Plan::Whole, 0);
        }
        let limit = meter.units_from_tokens(alloc);
        if limit < self.marker_units {
            return (Plan::Empty, 0);
        }
        let avail = limit - self.marker_units;
        while self.prefix[self.prefix.len() - 1] <= avail && self.line_ends.len() < self.n_lines {
            self.push_line(meter);
        }
        // Lines 0..k fit; `alloc < tokens` here, so when all lines seem to fit (BPE is not
        // additive) drop the last one so that something is actually removed.
        let mut k = self.prefix.partition_point(|&p| p <= avail) - 1;
        if k >= self.n_lines {
            k = self.n_lines - 1;
        }
        let mut units = self.prefix[k] + self.marker_units;
        let mut cut = None;
        let (body, _) = split_terminator(self.line(k));
        let long = super::lines::has_more_chars_than(body, MAX_LINE_CHARS);
        let room = avail - self.prefix[k];
        if (k < min_lines || long) && room > meter.cut_suffix {
            let (len, cut_units) = meter.cut(body, room - meter.cut_suffix);
            if len > 0 {
                cut = Some(len);
                units += cut_units + meter.cut_suffix;
            }
        }
        (Plan::Head { lines: k, cut }, units)
    }

    /// The new text, or `None` if unchanged.
    fn render(&self) -> Option<String> {
        let Plan::Head { lines, cut } = self.plan else {
            return match self.plan {
                Plan::Empty => Some(String::new()),
                _ => None,
            };
        };
        let head_end = if lines == 0 {
            0
        } else {
            self.line_ends[lines - 1]
        };
        let mut out = String::with_capacity(head_end + 16);
        out.push_str(&self.text[..head_end]);
        match cut {
            Some(len) => {
                let (body, terminator) = split_terminator(self.line(lines));
                out.push_str(&body[..len]);
                out.push_str(MARKER);
                if lines + 1 < self.n_lines {
                    out.push('\n');
                    out.push_str(self.marker);
                } else {
                    out.push_str(terminator);
                }
            }
            None => out.push_str(self.marker),
        }
        Some(out)
    }

    /// Input lines kept.
    fn kept_lines(&self) -> usize {
        match self.plan {
            Plan::Whole => self.n_lines,
            Plan::Empty => 0,
            Plan::Head { lines, cut } => lines + usize::from(cut.is_some()),
        }
    }

    /// Whether a non-empty section kept none of its content.
    fn lost_everything(&self) -> bool {
        self.tokens > 0 && self.kept_lines() == 0
    }
}
