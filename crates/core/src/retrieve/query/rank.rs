//! Ranking: which files and chunks of an index answer a parsed prompt ([`Query`]).
//!
//! [`rank`] runs these steps, each a function below:
//! 1. [`select_terms`]: the prompt's terms the index knows, the rarest kept when there are many
//!    (a long bug report costs no more than a short one);
//! 2. [`Scores::add_term`]: per term, BM25F of every chunk (text and the names it defines) and
//!    BM25 of every file as a whole (the sum of its chunks), plus the path field;
//! 3. [`Scores::add_definitions`]: a term that names a defined symbol lifts the chunks and
//!    files that define it above those that only use it;
//! 4. [`Mentions`]: files the prompt names by path, file name, module path, or whose stem is
//!    one of the prompt's identifiers (compared in the pass of step 5);
//! 5. [`collect_hits`]: each file's score = (file BM25 + its best chunk + path + symbol +
//!    mention) × its [role](super::roles) factor, × up to 1.1 by its
//!    [centrality](super::central) for a one-line prompt ([`apply_central`], only for the files
//!    near the top); a file keeps its best chunk and a few more;
//! 6. the best files selected (ties by path: deterministic) and sorted; the others never
//!    get their chunks;
//! 7. [`exact_definitions`] (needs file text, so the caller runs it): for a short prompt that
//!    names a symbol, the top files that define exactly that name move up.
//!
//! Every part of a file's score is kept in its [`Signals`], which `explain` shows.

use super::prompt::normalize_name;
pub use super::prompt::Query;
use super::roles::{Role, Wanted};
use crate::retrieve::index::terms::prefetch;
use crate::retrieve::index::Index;

/// BM25 saturation and length normalization, chunk level.
pub(super) const K1_CHUNK: f32 = 1.2;
pub(super) const B_CHUNK: f32 = 0.75;
/// BM25 saturation and length normalization, file level.
pub(super) const K1_FILE: f32 = 1.2;
pub(super) const B_FILE: f32 = 0.5;
/// How much a definition's name counts over a mention in the text.
pub(super) const W_SYMBOL: f32 = 4.0;
/// Weight of the path field relative to the file's content score.
pub(super) const W_PATH: f32 = 1.2;
/// Weight of a file's best chunk in its score. Below the whole file's BM25 (weight 1): a file
/// whose chunks together match the prompt (the module that implements it) is better
/// evidence than one chunk that names most of its words once.
pub(super) const W_BEST_CHUNK: f32 = 0.4;
/// Weight of a definition of a prompt term, per unit of the term's weight × definition idf
/// (file level and chunk level).
pub(super) const W_DEFINES: f32 = 1.0;
pub(super) const W_DEFINES_CHUNK: f32 = 1.0;
/// Boosts, as multiples of the strongest term's idf, when the prompt names a file: by path,
/// by file name, by module path, by a stem equal to one of its identifiers.
const MENTION_PATH: f32 = 6.0;
const MENTION_NAME: f32 = 3.0;
const MENTION_MODULE: f32 = 2.0;
const MENTION_STEM: f32 = 1.5;
/// The share of [`MENTION_STEM`] a file named after a word of the question's complement
/// keeps ([`Query::complements`]).
const W_COMPLEMENT: f32 = 0.75;
/// Extra chunks of one file that may follow its best one.
const EXTRA_CHUNKS: usize = 2;
/// The fraction of the file's score an extra chunk gets (times its ratio to the best): a
/// file's second chunk comes after every file that scores more than a tenth of it, since a new
/// file is worth more to the reader than more of one already shown. Measured on the DEV sets
/// (0.3, 0.25, 0.2, 0.15, 0.1, 0.05): 0.15 down to 0.05 answer alike, each 0.3's answers but
/// three (fastapi/009 0.80 -> 0.82, pydantic-0055 and the held-out axios-0024 complete within
/// the 27k-token budget); 0.1 is the middle of that range.
const EXTRA_FRACTION: f32 = 0.1;
/// An extra chunk must score at least this fraction of the file's best chunk.
const EXTRA_MIN_RATIO: f32 = 0.5;
/// Weight of a phrase of the prompt that the index knows as a whole identifier ("reflection
/// equals" meeting `reflectionEquals`), relative to a prose word.
pub(crate) const W_PHRASE: f32 = 0.5;
/// How much a file's [centrality](super::central) (0 to 1) raises its score, for the prompts
/// [`wants_central`] picks: at most 10%, a tie-breaker between files the prompt matches alike.
/// Measured on the DEV sets (b1bcc25, percentiles): 0.15 or 0.2 → commits R@10 down.
pub(super) const W_CENTRAL: f32 = 0.1;
/// The factor of a file whose path names the side of a mechanism the prompt does not ask
/// about ([`Query::opposites`]: `client_middlewares.py` for "server-side middleware
/// execution"). Measured on the DEV sets (0.8): semble 0.8698 → 0.8703, one query
/// (aiohttp/005 0.62 → 0.85), commits and DEV-issue answered as before.
const W_OPPOSITE: f32 = 0.8;
/// Most distinct query terms used (long prompts keep their rarest terms, and those weighted
/// [`W_KEPT`] or more).
pub(crate) const MAX_QUERY_TERMS: usize = 64;
/// Most postings a synonym's term may have to be looked for ([`Query::synonyms`]): a
/// synonym is a weak hint at a fraction of its word's weight, and a common word of a large
/// tree ("error" in the Linux kernel: hundreds of thousands of chunks) costs a long walk on
/// every call for a part it can barely move. Trees of up to tens of thousands of chunks never
/// reach it. The crate's own tests use 64, so that a small tree can pass the bound.
pub(crate) const MAX_SYNONYM_POSTINGS: usize = if cfg!(test) { 64 } else { 1 << 16 };
/// A prompt term weighted at least this much is kept when a long prompt has more known terms
/// than [`MAX_QUERY_TERMS`], however common it is: a code identifier of the title (weight
/// 2.5 × 2), or a word or identifier the prompt repeats. Cutting to the rarest terms alone
/// dropped the subject of a bug report for its rare filler words ("`xr.where(...,
/// keep_attrs=True)` overwrites coordinate attributes" lost `where`, which nearly every
/// module of the project uses, to rarer words of the attributes it pasted).
/// Measured on the DEV sets (docs/benchmark-history.md): DEV-issue R@10 0.938 → 0.986 (MRR
/// 0.782 → 0.769), the second bug-report set 0.802 → 0.815, commits R@10 / MRR 0.885 / 0.743
/// → 0.888 / 0.742, one-line questions unchanged; leaving one repository out, 9 of 11 pick
/// this threshold.
pub(crate) const W_KEPT: f32 = 4.0;

/// The order in which a long prompt's terms survive the cut to [`MAX_QUERY_TERMS`], each
/// given as (weight, document frequency, position in the prompt): those weighted
/// [`W_KEPT`] or more first, then the rarest, ties by position.
pub(crate) fn kept_first(a: (f32, usize, usize), b: (f32, usize, usize)) -> std::cmp::Ordering {
    (b.0 >= W_KEPT)
        .cmp(&(a.0 >= W_KEPT))
        .then(a.1.cmp(&b.1))
        .then(a.2.cmp(&b.2))
}

/// The parts of a file's score (before the role factor, except `total`).
#[derive(Debug, Clone, Copy, PartialEq)]
#[allow(clippy::struct_excessive_bools)] // one flag per reading rule that `explain` reports
pub struct Signals {
    /// BM25 of the whole file's text.
    pub bm25: f32,
    /// The best chunk's BM25F (text and defined names), weighted.
    pub chunk: f32,
    /// Path field: directory and file names matching prompt terms.
    pub path: f32,
    /// Definitions of prompt terms in the file; more for the exact definition of a short
    /// prompt's symbol, or of a capitalized word of a longer prompt that only this file defines.
    pub symbol: f32,
    /// The prompt names the file (path, file name, module path or stem).
    pub mention: f32,
    /// The file's role.
    pub role: Role,
    /// The factor the role applies (1 for source and for roles the prompt asks for, 1.3 for
    /// declarations when it asks for types), times the side demotion ([`W_OPPOSITE`] for a
    /// file of the side the prompt does not ask about), the file's
    /// [centrality](super::central) prior (up to 1.1, one-line prompts) and the
    /// companion-header demotion.
    pub role_factor: f32,
    /// The file's score: the sum of the parts times the role factor (and the reference factor).
    pub total: f32,
    /// Why the file's role was not demoted though its role is one that is ([`RoleKept`]).
    pub role_kept: Option<RoleKept>,
    /// A line of the file (a string constant, mostly) holds an error message or quoted
    /// sentence of the prompt ([`message_strings`]); already counted in `total`.
    pub message: f32,
    /// How many of the top files import this one, for a longer prompt
    /// ([`refs`](super::refs)); 0 otherwise.
    pub referenced_by: u32,
    /// The factor those references applied, already counted in `total`; 1 otherwise.
    pub reference_factor: f32,
    /// The prompt's words for the file's role (`test`, `docs`...) are the project's own
    /// vocabulary ([`asked_roles`]), so they did not lift the role's demotion.
    pub role_unasked: bool,
    /// The file's stem is a word of a one-line question other than its subject, and the
    /// subject names a file too ([`Naming::Modifier`]): that stem's mention was not counted.
    pub modifier_stem: bool,
    /// The file's stem is a word after the first preposition of a one-line question (its
    /// complement, [`Query::complements`]): its stem mention counted [`W_COMPLEMENT`].
    pub complement_stem: bool,
    /// The file's stem is the project's name (its root folder's), a word of the prompt:
    /// that word names the project, not this file, and its stem mention was not counted.
    pub project_stem: bool,
    /// The file's stem is a form of the action of a one-line question whose agent is the
    /// project ("how curl *connects*": `connect.c`, [`Query::action`]): counted as a mention
    /// by the question's subject.
    pub action_stem: bool,
    /// The part of `bm25` and `path` that the general synonyms of the prompt's words gave
    /// ([`Query::synonyms`]: `remove` for "delete"), already counted in them; 0 otherwise
    /// (and when the ranking was not asked to explain: measuring it walks those terms again).
    pub synonym: f32,
    /// In a one-line question: the most of the question's words (their idf share) that one
    /// definition line of the file holds, when it holds two or more ([`definition_words`]);
    /// its factor, exp([`W_DEFINITION_WORDS`] × this), is already counted in `total`. 0
    /// otherwise, and for a file whose score is not within that factor of a neighbour's
    /// (its lines are not read: it could not move).
    pub definition_words: f32,
}

/// Why a file of a demoted role keeps the factor of source code for this prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoleKept {
    /// Its version folder (`v4/`) is the newest of several side by side: the current code,
    /// not an old copy.
    NewestVersion,
    /// A module of type declarations that defines the name a short prompt asks for.
    DefinesName,
}

impl RoleKept {
    /// The reason's name, as `explain` shows it.
    pub fn as_str(self) -> &'static str {
        match self {
            RoleKept::NewestVersion => "newest-version",
            RoleKept::DefinesName => "defines-name",
        }
    }
}

/// A ranked file and its chunks worth showing, best first.
#[derive(Debug, Clone)]
pub struct FileHit {
    /// File id in the index.
    pub file: u32,
    /// The file's score.
    pub score: f32,
    /// `(chunk id, snippet score)`, best first; the first has the file's score.
    pub chunks: Vec<(u32, f32)>,
    /// How the score was made.
    pub signals: Signals,
}

pub(crate) fn idf(n: f32, df: f32) -> f32 {
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// A prompt term the index knows.
#[derive(Debug, Clone, Copy)]
pub(super) struct Term {
    pub(super) id: u32,
    pub(super) weight: f32,
    /// Matched against paths only (a [`path_forms`] of a prompt word).
    pub(super) path_only: bool,
    /// Of the files whose path holds it, only those in a folder it names get its path field
    /// (its idf is still over every such path): the agent form of a prompt word that some
    /// path holds as it is ([`select_terms`]).
    pub(super) folder_only: bool,
    /// The term's idfs over a larger collection this index is ranked in ([`Collection`]);
    /// `None`: from the index's own counts.
    pub(super) shared: Option<SharedIdf>,
}

/// The idfs of a term over a [`Collection`]: of its chunks, of its files as wholes, of the
/// paths that name it, of the files that define it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SharedIdf {
    pub chunks: f32,
    pub files: f32,
    pub paths: f32,
    pub defs: f32,
}

/// The statistics of a collection an index is ranked as part of (the indexes of several
/// roots ranked as one, `retrieve::multi`): counts summed over all of it in place of the
/// index's own, so a term weighs the same in every root and scores compare across roots.
#[derive(Debug, Clone, Default)]
pub(crate) struct Collection {
    /// Live chunks and files of the whole collection (at least 1).
    pub n_chunks: f32,
    pub n_files: f32,
    /// Average chunk and file length, in tokens (at least 1).
    pub avg_chunk: f32,
    pub avg_file: f32,
    /// Strongest idf of any selected term that something matched (the unit of mention boosts).
    pub max_idf: f32,
    /// The query's terms selected over the whole collection (as [`select_terms`] selects them
    /// in one index), in ranking order: (term, weight, path only, folders only, idfs).
    pub terms: Vec<(String, f32, bool, bool, SharedIdf)>,
    /// The weight of each word of the prompt's messages over the collection
    /// ([`word_weight`]).
    pub word_weights: rustc_hash::FxHashMap<String, f32>,
}

impl Collection {
    /// The collection's terms that `index` knows, as that index numbers them.
    fn terms_in(&self, index: &Index) -> Vec<Term> {
        self.terms
            .iter()
            .filter_map(|(t, weight, path_only, folder_only, idfs)| {
                Some(Term {
                    id: index.terms.get(t.as_str())?,
                    weight: *weight,
                    path_only: *path_only,
                    folder_only: *folder_only,
                    shared: Some(*idfs),
                })
            })
            .collect()
    }
}

/// Step 1: the prompt's terms the index knows; when there are more than [`MAX_QUERY_TERMS`],
/// those weighted [`W_KEPT`] or more and then the rarest ([`kept_first`]), kept in prompt
/// order; then the prompt's phrases that the index knows as whole identifiers, at
/// [`W_PHRASE`].
pub(super) fn select_terms(index: &Index, query: &Query) -> Vec<Term> {
    let mut known: Vec<(Term, usize, usize)> = query
        .terms
        .iter()
        .enumerate()
        .filter_map(|(k, (t, w))| {
            let id = index.terms.get(t.as_str())?;
            let df = index.postings.len(id) + index.path_postings[id as usize].len();
            (df > 0).then_some((
                Term {
                    id,
                    weight: *w,
                    path_only: false,
                    folder_only: false,
                    shared: None,
                },
                df,
                k,
            ))
        })
        .collect();
    if known.len() > MAX_QUERY_TERMS {
        known.sort_by(|a, b| kept_first((a.0.weight, a.1, a.2), (b.0.weight, b.1, b.2)));
        known.truncate(MAX_QUERY_TERMS);
        known.sort_by_key(|t| t.2);
    }
    let mut out: Vec<Term> = known.into_iter().map(|t| t.0).collect();
    // Words no path holds as they are, through the path parts they are made from or
    // shortened to (`connection` meets `connect.c`, `utility` meets `StringUtils.java`), or
    // named after what does them (`matching` meets `matcher.go`). In a one-line prompt, a
    // word that some path holds still meets the folders named after its agent ("validated"
    // meets `validators/` though `validate_call.py` holds `validate`): [`folder_only`].
    for (t, w) in &query.terms {
        let in_paths = |id: u32| !index.path_postings[id as usize].is_empty();
        let held = index.terms.get(t.as_str()).is_some_and(in_paths);
        if held && query.lines > 1 {
            continue;
        }
        for (part, form_weight) in weighted_path_forms(t, &query.symbols) {
            if held && form_weight != W_AGENT_FORM {
                continue;
            }
            let Some(id) = index.terms.get(part.as_ref()) else {
                continue;
            };
            if held && !names_a_folder(index, id) {
                continue;
            }
            if in_paths(id) && !out.iter().any(|o| o.id == id) {
                out.push(Term {
                    id,
                    weight: w * form_weight,
                    path_only: true,
                    folder_only: held,
                    shared: None,
                });
            }
        }
    }
    // General synonyms of a one-line prompt's words ("delete" also meets `remove`), at a
    // fraction of their word's weight, unless their list is too long to be worth a walk.
    for (t, w) in &query.synonyms {
        let Some(id) = index.terms.get(t.as_str()) else {
            continue;
        };
        let postings = index.postings.len(id);
        let df = postings + index.path_postings[id as usize].len();
        if df > 0 && postings <= MAX_SYNONYM_POSTINGS && !out.iter().any(|o| o.id == id) {
            out.push(Term {
                id,
                weight: *w,
                path_only: false,
                folder_only: false,
                shared: None,
            });
        }
    }
    // Phrases the index knows as identifiers: rare by nature, so they are added after the
    // rarest-terms cut instead of competing in it.
    for p in &query.phrases {
        if let Some(id) = index.terms.get(p.as_str()) {
            if !out.iter().any(|t| t.id == id) {
                out.push(Term {
                    id,
                    weight: W_PHRASE,
                    path_only: false,
                    folder_only: false,
                    shared: None,
                });
            }
        }
    }
    out
}

/// Weight of a path part that a prompt word is made from or shortened to ([`path_forms`]),
/// relative to the word (its path field only). Above a path match of the word itself: such a
/// part names the concept in the tree's own words (`connect.c` for "connection"). Measured on
/// the DEV sets: 1.2 → semble 0.857, 1.5 → 0.859, 2 → 0.860, commits unchanged.
pub(crate) const W_PATH_FORM: f32 = 1.5;
/// Shortest stem left by a derivational ending (`servic` is not `serv`+`ic`).
const MIN_DERIVED_STEM: usize = 5;
/// Word endings that make a noun or adjective of a stem (`connect`+`ion`, `util`+`ity`,
/// `process`+`or`): a prompt word so made also matches the path part of its stem.
const DERIVED_ENDINGS: &[&str] = &[
    "ion", "ation", "ition", "ity", "ality", "ility", "or", "ator", "ic", "ment", "ance", "ence",
];
/// Common abbreviations in code paths, by the stem of the word they shorten (as the
/// tokenizer stems it): a prompt word starting with the stem also matches the abbreviation.
/// The second half of the list (from `statistic`) was written from common usage on
/// 2026-11-28 and measured on the DEV sets: "minify stylesheets" meets `CompressCss.hs`,
/// "page usage statistics" `command_stats.go`; `generat` → `gen` (a `test_gen.rs` over
/// serde's derive code) and `transaction` → `tx` (`tx.go` over `db.go` in bbolt) each cost
/// a question and are not on it.
const ABBREVIATIONS: &[(&str, &str)] = &[
    ("implement", "impl"),
    ("initializ", "init"),
    ("initialis", "init"),
    ("authent", "auth"),
    ("authoriz", "auth"),
    ("attribut", "attr"),
    ("parameter", "param"),
    ("configur", "config"),
    ("function", "func"),
    ("utilit", "util"),
    ("argument", "arg"),
    ("environment", "env"),
    ("director", "dir"),
    ("information", "info"),
    ("repositor", "repo"),
    ("allocat", "alloc"),
    ("synchron", "sync"),
    ("asynchron", "async"),
    ("iterat", "iter"),
    ("expression", "expr"),
    ("previous", "prev"),
    ("character", "char"),
    ("librar", "lib"),
    ("application", "app"),
    ("context", "ctx"),
    ("messag", "msg"),
    ("request", "req"),
    ("respons", "resp"),
    ("sourc", "src"),
    ("databas", "db"),
    ("command", "cmd"),
    ("temporar", "tmp"),
    ("document", "doc"),
    ("specification", "spec"),
    ("statistic", "stat"),
    ("stylesheet", "css"),
    ("certificat", "cert"),
    ("calculat", "calc"),
    ("manag", "mgr"),
    ("buffer", "buf"),
    ("number", "num"),
    ("memor", "mem"),
    ("object", "obj"),
    ("position", "pos"),
    ("pointer", "ptr"),
    ("referenc", "ref"),
    ("variabl", "var"),
    ("standard", "std"),
    ("packag", "pkg"),
    ("address", "addr"),
    ("connection", "conn"),
    ("javascript", "js"),
    ("extension", "ext"),
    ("definition", "def"),
    ("description", "desc"),
    ("sequenc", "seq"),
    ("string", "str"),
    ("length", "len"),
    ("imag", "img"),
    ("protocol", "proto"),
    ("websocket", "ws"),
    ("administrat", "admin"),
    ("develop", "dev"),
];

/// The path parts a prompt word (a term: lowercase, stemmed) may also name: its stem before
/// a derivational ending (at least [`MIN_DERIVED_STEM`] bytes), and the abbreviation of the
/// word it is. Not for the symbols of a short prompt (`symbols`): they are meant as typed.
pub(crate) fn path_forms<'a>(word: &'a str, symbols: &[String]) -> Vec<&'a str> {
    let mut out = Vec::new();
    if !word.is_ascii() || word.contains('_') || symbols.iter().any(|n| n == word) {
        return out;
    }
    for e in DERIVED_ENDINGS {
        if let Some(stem) = word.strip_suffix(e) {
            if stem.len() >= MIN_DERIVED_STEM && !out.contains(&stem) {
                out.push(stem);
            }
        }
    }
    for &(full, short) in ABBREVIATIONS {
        if word.starts_with(full) && !out.contains(&short) {
            out.push(short);
        }
    }
    out
}

/// Weight of a path part that names the agent of a prompt word ([`agent_forms`]), relative
/// to the word: as if the path held the word itself (no fitted weight). Measured with 1.5 and
/// 2: a commit's second gold file (pydantic, "Handle ... errors" meeting
/// `annotated_handlers.py`) and a held-out one left the top 10.
pub(crate) const W_AGENT_FORM: f32 = 1.0;
/// Shortest prompt word (a stem) given [`agent_forms`]: 4 takes `merg` to `merger` and `read`
/// to `reader`, and `pars` to every parser. Chosen by leave-one-repository-out over {off, 4,
/// 5} on the DEV sets: every fold picks 4 (semble 0.8850 -> 0.8852, semble-extra 0.8597 ->
/// 0.8696, the commit and bug-report sets answered as before).
const MIN_AGENT_STEM: usize = 4;

/// The path parts that name what does a prompt word (a term: lowercase, stemmed): its agent
/// noun, the component code names after the action (`match` → `matcher`, `recovery` →
/// `recoverer`, `regenerat` → `regenerator`, `format` → `formatter`). Not for a short
/// prompt's symbols: they are meant as typed.
pub(crate) fn agent_forms(word: &str, symbols: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    if !word.is_ascii()
        || word.len() < MIN_AGENT_STEM
        || word.contains('_')
        || symbols.iter().any(|n| n == word)
    {
        return out;
    }
    let base = word.strip_suffix('y').unwrap_or(word);
    let b = base.as_bytes();
    let vowel = |c: u8| matches!(c, b'a' | b'e' | b'i' | b'o' | b'u');
    let n = b.len();
    out.push(format!("{base}er"));
    out.push(format!("{base}or"));
    // A final consonant after one short vowel doubles: `format` → `formatter`.
    if n >= 3
        && !vowel(b[n - 1])
        && !matches!(b[n - 1], b'w' | b'x' | b'y')
        && vowel(b[n - 2])
        && !vowel(b[n - 3])
    {
        out.push(format!("{base}{}er", b[n - 1] as char));
    }
    out
}

/// [`path_forms`] at [`W_PATH_FORM`], then [`agent_forms`] at their weight: the path parts a
/// prompt word that no path holds also meets, with their weight relative to the word.
pub(crate) fn weighted_path_forms<'a>(
    word: &'a str,
    symbols: &[String],
) -> Vec<(std::borrow::Cow<'a, str>, f32)> {
    let mut out: Vec<(std::borrow::Cow<'a, str>, f32)> = path_forms(word, symbols)
        .into_iter()
        .map(|f| (std::borrow::Cow::Borrowed(f), W_PATH_FORM))
        .collect();
    for f in agent_forms(word, symbols) {
        if !out.iter().any(|(o, _)| *o == f) {
            out.push((std::borrow::Cow::Owned(f), W_AGENT_FORM));
        }
    }
    out
}

/// Whether file `f` lies in a folder whose name holds the term `id` (`validators/` for
/// `validator`), its own file name aside.
fn in_folder_named(index: &Index, f: u32, id: u32) -> bool {
    index.files[f as usize]
        .as_ref()
        .is_some_and(|m| dir_named(index, folder_of(&m.rel), id))
}

/// The folder part of a relative path (`""` at the root).
fn folder_of(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |d| d.0)
}

/// Whether a folder of `dir` (a relative folder path) is named by the term `id`.
fn dir_named(index: &Index, dir: &str, id: u32) -> bool {
    dir.split('/').any(|d| {
        crate::retrieve::tokenize::terms(d)
            .iter()
            .any(|x| index.terms.get(x) == Some(id))
    })
}

/// Whether some folder of the tree is named by the term `id` ([`in_folder_named`]).
pub(crate) fn names_a_folder(index: &Index, id: u32) -> bool {
    index.path_postings[id as usize]
        .iter()
        .any(|&f| in_folder_named(index, f, id))
}

/// The score accumulators of one query.
pub(super) struct Scores {
    pub(super) chunk: Vec<f32>,
    pub(super) bm25: Vec<f32>,
    pub(super) path: Vec<f32>,
    pub(super) symbol: Vec<f32>,
    pub(super) mention: Vec<f32>,
    /// Strongest idf of any term seen (the unit of mention boosts).
    pub(super) max_idf: f32,
    pub(super) n_chunks: f32,
    pub(super) n_files: f32,
    pub(super) avg_chunk: f32,
    pub(super) avg_file: f32,
    /// Scratch: per-file term frequency and the files touched by the current term.
    file_tf: Vec<f32>,
    /// Scratch: the per-file term frequency of the second half of the chunks when a term's
    /// postings are scored on two threads ([`Scores::add_terms`]); all zero between terms.
    file_tf_upper: Vec<f32>,
    touched: Vec<u32>,
    /// Files some of whose chunks a term scored (the others' chunk scores are all 0).
    chunked: Vec<bool>,
    /// Scratch: the current term's live postings as (chunk, chunk length, weighted tf), so
    /// its list is decoded and its chunks looked up once, not once per pass.
    hits: Vec<(u32, u32, f32)>,
    /// The live postings that define their term, as (chunk, file), recorded by
    /// [`Scores::add_term`] for [`Scores::add_definitions`] (term `k`'s are
    /// `defined[defined_ends[k - 1]..defined_ends[k]]`), so a term's list is decoded once, not
    /// three times: on a large tree a common word's list has hundreds of thousands of postings
    /// and almost none of them define it.
    defined: Vec<(u32, u32)>,
    defined_ends: Vec<usize>,
    /// The buffers of the two halves' [`score_postings`], kept from query to query.
    halves: [Half; 2],
}

/// Score vectors (chunk, bm25, path, symbol, mention, file tf, upper file tf), the
/// touched-files list, the chunked-files flags, the hits scratch and the halves' buffers.
type Buffers = (
    [Vec<f32>; 7],
    Vec<u32>,
    Vec<bool>,
    Vec<(u32, u32, f32)>,
    [Half; 2],
);

/// The score vectors of finished queries, reused by the next ones: on a large tree they take
/// megabytes, and allocating and freeing them on every query cost about a quarter of a warm
/// call (the allocator consolidating its free lists). One shared spare set rather than one per
/// thread: queries come from any of the host's worker threads, and four idle copies of the
/// kernel's buffers held ~45 MB.
static SPARE: std::sync::Mutex<Option<Buffers>> = std::sync::Mutex::new(None);

/// `n` zeros in `v`'s allocation.
fn zeroed(mut v: Vec<f32>, n: usize) -> Vec<f32> {
    v.clear();
    v.resize(n, 0.0);
    v
}

impl Drop for Scores {
    fn drop(&mut self) {
        let take = std::mem::take::<Vec<f32>>;
        let vectors = [
            take(&mut self.chunk),
            take(&mut self.bm25),
            take(&mut self.path),
            take(&mut self.symbol),
            take(&mut self.mention),
            take(&mut self.file_tf),
            take(&mut self.file_tf_upper),
        ];
        let (touched, chunked) = (&mut self.touched, &mut self.chunked);
        let spare = (
            vectors,
            std::mem::take(touched),
            std::mem::take(chunked),
            std::mem::take(&mut self.hits),
            std::mem::take(&mut self.halves),
        );
        if let Ok(mut slot) = SPARE.lock() {
            *slot = Some(spare);
        }
    }
}

impl Scores {
    pub(super) fn new(index: &Index) -> Scores {
        let n_chunks = index.live_chunks.max(1) as f32;
        let n_files = index.live_files.max(1) as f32;
        let files = index.files.len();
        let (
            [chunk, bm25, path, symbol, mention, file_tf, file_tf_upper],
            mut touched,
            mut chunked,
            mut hits,
            halves,
        ) = SPARE
            .lock()
            .ok()
            .and_then(|mut s| s.take())
            .unwrap_or_default();
        hits.clear();
        touched.clear();
        chunked.clear();
        chunked.resize(files, false);
        Scores {
            chunk: zeroed(chunk, index.chunks.len()),
            bm25: zeroed(bm25, files),
            path: zeroed(path, files),
            symbol: zeroed(symbol, files),
            mention: zeroed(mention, files),
            max_idf: 0.0,
            n_chunks,
            n_files,
            avg_chunk: (index.live_chunk_tokens as f32 / n_chunks).max(1.0),
            avg_file: (index.live_file_tokens as f32 / n_files).max(1.0),
            file_tf: zeroed(file_tf, files),
            // Kept all zero by its user: zeroed only when the number of files changed.
            file_tf_upper: if file_tf_upper.len() == files {
                file_tf_upper
            } else {
                zeroed(file_tf_upper, files)
            },
            touched,
            chunked,
            hits,
            defined: Vec::new(),
            defined_ends: Vec::new(),
            halves,
        }
    }

    /// Step 2 for all of `terms`, in order: [`Scores::add_term`] for each, or, when their
    /// lists are long and every chunk is alive, the same on two threads
    /// ([`Scores::add_terms_split`]).
    fn add_terms(&mut self, index: &Index, terms: &[Term]) {
        if splits(index, terms) {
            self.add_terms_split(index, terms);
        } else {
            for &t in terms {
                self.add_term(index, t);
            }
        }
    }

    /// [`Scores::add_term`] for each of `terms` with every chunk alive, the postings of the
    /// lower and the upper half of the chunk ids scored on two threads: each chunk's score
    /// gets the same additions in the same order (term by term) as on one thread, so the
    /// bits are the same. A file's term frequency is a sum of whole numbers (exact in an
    /// `f32` below 2^24), so the two halves' sums added give the one-thread sum; each term's
    /// file BM25, definitions and path field are then added in term order as before.
    fn add_terms_split<'i>(&mut self, index: &'i Index, terms: &[Term]) {
        let split = (index.chunks.len() / 2) as u32;
        let (n_chunks, avg_chunk) = (self.n_chunks, self.avg_chunk);
        let (lower, upper) = self.chunk.split_at_mut(split as usize);
        let (file_tf, file_tf_upper) = (&mut self.file_tf, &mut self.file_tf_upper);
        let run = |out: Half,
                   scores: &mut [f32],
                   file_tf: &mut [f32],
                   range: std::ops::Range<u32>,
                   resume: Option<Vec<Rest<'i>>>| {
            score_postings(
                index,
                terms,
                (n_chunks, avg_chunk),
                (scores, file_tf),
                range,
                out,
                resume,
            )
        };
        // Buffers kept from earlier queries: the second thread allocates nothing once they
        // are large enough (what a thread allocates stays in its own arena of the allocator).
        let [low_buffers, high_buffers] = std::mem::take(&mut self.halves);
        // The upper half goes to whichever thread takes it first: on a busy machine the
        // second thread may start late, and then the caller scores it too after its own half
        // (never slower than one thread but for the start of the other), each list from
        // where its lower half stopped: the second thread decodes the lower half's postings
        // only to pass over them, which the caller has done already.
        let upper_half = std::sync::Mutex::new(Some((high_buffers, upper, file_tf_upper)));
        let take_upper = |resume: Option<Vec<Rest<'i>>>| {
            let taken = upper_half.lock().ok().and_then(|mut h| h.take());
            taken.map(|(out, scores, file_tf)| run(out, scores, file_tf, split..u32::MAX, resume).0)
        };
        // A thread the system refuses to start (a process at its limit) leaves the upper
        // half to the caller.
        let (low, mine, helper) = std::thread::scope(|s| {
            let helper = std::thread::Builder::new().spawn_scoped(s, || take_upper(None));
            let (low, rests) = run(low_buffers, lower, file_tf, 0..split, None);
            let mine = take_upper(Some(rests));
            (
                low,
                mine,
                helper.ok().map(std::thread::ScopedJoinHandle::join),
            )
        });
        let high = match (mine, helper) {
            (Some(h), _) | (None, Some(Ok(Some(h)))) => h,
            (None, None | Some(Ok(None))) => {
                unreachable!("one of the two threads takes the upper half")
            }
            (None, Some(Err(panic))) => std::panic::resume_unwind(panic),
        };
        for (k, &term) in terms.iter().enumerate() {
            let defined = |h: &Half| {
                let from = if k == 0 { 0 } else { h.defined_ends[k - 1] };
                from..h.defined_ends[k]
            };
            // The list's order: the lower half's chunks, then the upper half's.
            self.defined.extend_from_slice(&low.defined[defined(&low)]);
            self.defined
                .extend_from_slice(&high.defined[defined(&high)]);
            self.defined_ends.push(self.defined.len());
            if !term.path_only && index.postings.len(term.id) > 0 {
                self.touched.clear();
                for h in [&low, &high] {
                    let from = if k == 0 { 0 } else { h.file_ends[k - 1] };
                    for &(f, tf) in &h.files[from..h.file_ends[k]] {
                        self.chunked[f as usize] = true;
                        let slot = &mut self.file_tf[f as usize];
                        if *slot == 0.0 {
                            self.touched.push(f);
                        }
                        *slot += tf;
                    }
                }
                self.add_files(index, term);
            }
            self.add_path(index, term, W_PATH);
        }
        self.halves = [low, high];
    }

    /// Step 2: one term's BM25F over chunks, BM25 over whole files, and the path field.
    fn add_term(&mut self, index: &Index, term: Term) {
        let w_path = W_PATH;
        self.touched.clear();
        self.hits.clear();
        let mut df_chunks = 0f32;
        let list = if term.path_only {
            crate::retrieve::index::terms::PostingIter::default()
        } else {
            index.postings.list(term.id)
        };
        let chunks = index.chunks.as_ptr();
        // With every chunk alive (no file removed since the last compaction, the usual warm
        // state) the term's chunk df is its list's length, known before the list is read: its
        // chunk scores are added in the one pass that decodes it, instead of being kept in
        // `hits` and added in a second pass. The same operations in the same order: the same
        // bits as the two-pass path below.
        if !term.path_only && index.live_chunks as usize == index.chunks.len() {
            let df = index.postings.len(term.id);
            if df > 0 {
                let idf_c = term
                    .shared
                    .map_or_else(|| idf(self.n_chunks, df as f32), |s| s.chunks);
                let (avg_chunk, weight) = (self.avg_chunk, term.weight);
                let (chunk_scores, chunked, defined, file_tf, touched) = (
                    &mut self.chunk,
                    &mut self.chunked,
                    &mut self.defined,
                    &mut self.file_tf,
                    &mut self.touched,
                );
                let score_at = chunk_scores.as_ptr();
                list.for_each_prefetched(
                    |p| {
                        prefetch(score_at.wrapping_add(p.chunk as usize));
                        Some(chunks.wrapping_add(p.chunk as usize))
                    },
                    |p| {
                        let c = &index.chunks[p.chunk as usize];
                        chunked[c.file as usize] = true;
                        if p.sym > 0 {
                            defined.push((p.chunk, c.file));
                        }
                        let tf = posting_tf(p);
                        chunk_scores[p.chunk as usize] +=
                            chunk_bm25(weight * idf_c, tf, c.len, avg_chunk);
                        let slot = &mut file_tf[c.file as usize];
                        if *slot == 0.0 {
                            touched.push(c.file);
                        }
                        *slot += tf;
                    },
                );
                self.defined_ends.push(self.defined.len());
                self.add_files(index, term);
            } else {
                self.defined_ends.push(self.defined.len());
            }
            self.add_path(index, term, w_path);
            return;
        }
        list.for_each_prefetched(
            |p| Some(chunks.wrapping_add(p.chunk as usize)),
            |p| {
                let c = &index.chunks[p.chunk as usize];
                if !c.alive {
                    return;
                }
                df_chunks += 1.0;
                self.chunked[c.file as usize] = true;
                if p.sym > 0 {
                    self.defined.push((p.chunk, c.file));
                }
                let tf = posting_tf(p);
                self.hits.push((p.chunk, c.len, tf));
                let slot = &mut self.file_tf[c.file as usize];
                if *slot == 0.0 {
                    self.touched.push(c.file);
                }
                *slot += tf;
            },
        );
        self.defined_ends.push(self.defined.len());
        if df_chunks > 0.0 {
            let idf_c = term
                .shared
                .map_or_else(|| idf(self.n_chunks, df_chunks), |s| s.chunks);
            for &(chunk, len, tf) in &self.hits {
                self.chunk[chunk as usize] +=
                    chunk_bm25(term.weight * idf_c, tf, len, self.avg_chunk);
            }
            self.add_files(index, term);
        }
        self.add_path(index, term, w_path);
    }

    /// The whole-file BM25 of a term whose postings [`Scores::add_term`] summed per file in
    /// `file_tf` (the files listed in `touched`), which it leaves all zero again.
    fn add_files(&mut self, index: &Index, term: Term) {
        let idf_f = term
            .shared
            .map_or_else(|| idf(self.n_files, self.touched.len() as f32), |s| s.files);
        self.max_idf = self.max_idf.max(idf_f);
        for &f in &self.touched {
            let tf = self.file_tf[f as usize];
            self.file_tf[f as usize] = 0.0;
            self.bm25[f as usize] += file_bm25(
                term.weight,
                idf_f,
                tf,
                index.file_lens[f as usize],
                self.avg_file,
            );
        }
    }

    /// The path field of a term: the files whose path holds it.
    pub(super) fn add_path(&mut self, index: &Index, term: Term, w_path: f32) {
        let paths = &index.path_postings[term.id as usize];
        // With every file live (the usual warm state) no path posting's file is looked up.
        let all_live = index.live_files as usize == index.files.len();
        let is_live = |f: u32| all_live || index.files[f as usize].is_some();
        let live = if all_live {
            paths.len()
        } else {
            paths.iter().filter(|&&f| is_live(f)).count()
        };
        if live > 0 {
            let idf_p = term
                .shared
                .map_or_else(|| idf(self.n_files, live as f32), |s| s.paths);
            self.max_idf = self.max_idf.max(idf_p);
            // Files of one folder come together in the list: its answer is kept for the next.
            let mut last: Option<(&str, bool)> = None;
            let mut in_folder = |f: u32| {
                let Some(m) = index.files[f as usize].as_ref() else {
                    return false;
                };
                let dir = folder_of(&m.rel);
                match last {
                    Some((d, named)) if d == dir => named,
                    _ => {
                        let named = dir_named(index, dir, term.id);
                        last = Some((dir, named));
                        named
                    }
                }
            };
            for &f in paths {
                if is_live(f) && (!term.folder_only || in_folder(f)) {
                    self.path[f as usize] += w_path * term.weight * idf_p;
                }
            }
        }
    }

    /// Step 3: a term that a chunk defines (it is, or is a part of, a name the chunk
    /// defines) lifts that chunk and its file, by the rarity of the definition: a name
    /// defined in one file is strong evidence, a word in many names is not.
    fn add_definitions(&mut self, k: usize, term: Term) {
        if term.path_only {
            return;
        }
        // The term's live postings with a definition, in list order, as `add_term` (the
        // `k`-th call) met them.
        let start = if k == 0 { 0 } else { self.defined_ends[k - 1] };
        let defined = &self.defined[start..self.defined_ends[k]];
        self.touched.clear();
        for &(_, file) in defined {
            // `file_tf` (all zero between terms) marks the files already listed.
            let seen = &mut self.file_tf[file as usize];
            if *seen == 0.0 {
                *seen = 1.0;
                self.touched.push(file);
            }
        }
        for &f in &self.touched {
            self.file_tf[f as usize] = 0.0;
            self.chunked[f as usize] = true;
        }
        if self.touched.is_empty() {
            return;
        }
        let idf_d = term
            .shared
            .map_or_else(|| idf(self.n_files, self.touched.len() as f32), |s| s.defs);
        for &(chunk, _) in defined {
            self.chunk[chunk as usize] += W_DEFINES_CHUNK * term.weight * idf_d;
        }
        for &f in &self.touched {
            self.symbol[f as usize] = self.symbol[f as usize].max(W_DEFINES * term.weight * idf_d);
        }
    }
}

/// A posting's term frequency in its chunk, a definition of the term counting
/// [`W_SYMBOL`] more.
#[inline]
pub(super) fn posting_tf(p: crate::retrieve::index::terms::Posting) -> f32 {
    f32::from(p.tf) + W_SYMBOL * f32::from(p.sym)
}

/// A chunk's BM25F part for a term: `weight_idf` (the term's weight times its chunk idf)
/// times the saturated `tf` of a chunk of `len` tokens. The one formula of every path that
/// scores chunks (one pass, two passes, two threads), so that they agree to the bit.
#[inline]
pub(super) fn chunk_bm25(weight_idf: f32, tf: f32, len: u32, avg_chunk: f32) -> f32 {
    let norm = K1_CHUNK * (1.0 - B_CHUNK + B_CHUNK * len as f32 / avg_chunk);
    weight_idf * tf * (K1_CHUNK + 1.0) / (tf + norm)
}

/// A file's BM25 part for a term of weight `weight` and file idf `idf_f` whose postings in
/// the file sum to `tf`, the file being `len` tokens long: the one formula of the exhaustive
/// and the pruned ranking, so that they agree to the bit.
#[inline]
pub(super) fn file_bm25(weight: f32, idf_f: f32, tf: f32, len: u32, avg_file: f32) -> f32 {
    let norm = K1_FILE * (1.0 - B_FILE + B_FILE * len as f32 / avg_file);
    weight * idf_f * tf * (K1_FILE + 1.0) / (tf + norm)
}

/// Whether [`Scores::add_terms`] scores the postings of `terms` on two threads: their lists
/// are long, the files have several chunks each, every chunk is alive, and this process may
/// run two threads at once.
fn splits(index: &Index, terms: &[Term]) -> bool {
    let postings: usize = terms
        .iter()
        .filter(|t| !t.path_only)
        .map(|t| index.postings.len(t.id))
        .sum();
    postings >= SPLIT_POSTINGS
        && index.chunks.len() >= SPLIT_CHUNKS_PER_FILE * index.files.len()
        && index.live_chunks as usize == index.chunks.len()
        && index.chunks.len() >= 2
        && threads() >= 2
}

/// Fewest postings (all the prompt's lists together) scored on two threads
/// ([`Scores::add_terms`]): below, starting a thread costs more than it saves.
const SPLIT_POSTINGS: usize = 50_000;

/// Fewest chunks a file on average for the postings to be scored on two threads: the
/// halves' per-file sums are merged on the caller's thread, and with about one chunk a file
/// (a tree of many small files) that merge takes as long as the half it saved (measured
/// through Node on 200,000 one-chunk files: about 1 ms a call slower; the kernel has 13).
pub(super) const SPLIT_CHUNKS_PER_FILE: usize = 4;

/// Threads this process may run at once (asked once: the answer reads the cgroup files).
fn threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// What [`score_postings`] found in its half of the chunks, per term: the files it touched
/// with their term frequency (term `k`'s are `files[file_ends[k - 1]..file_ends[k]]`) and
/// its postings that define the term, as (chunk, file), in list order.
#[derive(Default)]
struct Half {
    files: Vec<(u32, f32)>,
    file_ends: Vec<usize>,
    defined: Vec<(u32, u32)>,
    defined_ends: Vec<usize>,
    /// Scratch: the files the current term touched.
    touched: Vec<u32>,
}

/// Where a walk of a term's list over the chunks below a split stopped: the first posting at
/// or above the split and the list after it (`None`: the list ended below).
type Rest<'i> = Option<(
    crate::retrieve::index::terms::Posting,
    crate::retrieve::index::terms::PostingIter<'i>,
)>;

/// The chunk part of [`Scores::add_term`] (every chunk alive) for each of `terms` in order,
/// for the postings whose chunk is in `range` only: `scores` holds the chunk scores of
/// `range` (from its start), `file_tf` is all zero and is left so. `out`'s buffers are
/// reused. Also returns where each term's walk stopped past `range` ([`Rest`]). With
/// `resume` (what the walk of the chunks below `range` returned, `range` reaching the last
/// chunk) each list is walked from there rather than decoded from its start.
fn score_postings<'i>(
    index: &'i Index,
    terms: &[Term],
    (n_chunks, avg_chunk): (f32, f32),
    (scores, file_tf): (&mut [f32], &mut [f32]),
    range: std::ops::Range<u32>,
    mut out: Half,
    resume: Option<Vec<Rest<'i>>>,
) -> (Half, Vec<Rest<'i>>) {
    out.files.clear();
    out.file_ends.clear();
    out.defined.clear();
    out.defined_ends.clear();
    let mut touched = std::mem::take(&mut out.touched);
    touched.clear();
    let chunks = index.chunks.as_ptr();
    let offset = range.start as usize;
    // Where chunk `c`'s score is (`scores` starts at `range.start`): only prefetched.
    let score_at = scores.as_ptr().wrapping_sub(offset);
    let mut rests: Vec<Rest<'i>> = Vec::with_capacity(terms.len());
    let mut resume = resume.map(Vec::into_iter);
    for term in terms {
        let df = if term.path_only {
            0
        } else {
            index.postings.len(term.id)
        };
        // The term's place in `resume` is taken whatever its list.
        let from = resume.as_mut().map(|r| r.next().flatten());
        let mut rest = None;
        if df > 0 {
            let idf_c = term
                .shared
                .map_or_else(|| idf(n_chunks, df as f32), |s| s.chunks);
            let weight = term.weight;
            let mut add = |p: crate::retrieve::index::terms::Posting| {
                let c = &index.chunks[p.chunk as usize];
                if p.sym > 0 {
                    out.defined.push((p.chunk, c.file));
                }
                let tf = posting_tf(p);
                scores[p.chunk as usize - offset] +=
                    chunk_bm25(weight * idf_c, tf, c.len, avg_chunk);
                let slot = &mut file_tf[c.file as usize];
                if *slot == 0.0 {
                    touched.push(c.file);
                }
                *slot += tf;
            };
            // The posting's chunk score is asked for with its metadata: the scores of a
            // large index are megabytes too, and the walk adds to them in list order.
            let at = |p: crate::retrieve::index::terms::Posting| {
                prefetch(score_at.wrapping_add(p.chunk as usize));
                Some(chunks.wrapping_add(p.chunk as usize))
            };
            match from {
                // Resumed: the first posting at or above `range.start`, then the rest of
                // the list (`range` reaches the last chunk).
                Some(Some((first, list))) => {
                    add(first);
                    list.for_each_prefetched(at, add);
                }
                // Resumed from a list that ended below `range`.
                Some(None) => {}
                None => {
                    rest =
                        index
                            .postings
                            .list(term.id)
                            .for_each_prefetched_in(range.clone(), at, add);
                }
            }
        }
        rests.push(rest);
        for f in touched.drain(..) {
            out.files.push((f, file_tf[f as usize]));
            file_tf[f as usize] = 0.0;
        }
        out.file_ends.push(out.files.len());
        out.defined_ends.push(out.defined.len());
    }
    out.touched = touched;
    (out, rests)
}

/// Step 4: files the prompt names, by path or file name, by module path, or whose stem
/// equals one of its identifiers or word pairs: the prompt's keys, compared with each file's
/// in the pass of [`collect_hits`] (one pass over the files' metadata, not two).
pub(super) struct Mentions {
    names: Vec<u64>,
    /// The file names of the prompt's mentions.
    files: Vec<u64>,
    modules: Vec<u64>,
    /// The mention unit: the strongest idf of any term seen, at least 1.
    unit: f32,
    /// The question's action when its agent is the project ([`project_action`]).
    action: Vec<String>,
}

impl Mentions {
    /// The prompt's keys; `None` when it names no file.
    /// A question whose agent ([`Query::agent`]) is the project itself ([`project_name`])
    /// names no file by that word: "how zls traverses the AST" asks about the project's code,
    /// not about `zls.zig`.
    pub(super) fn of(index: &Index, scores: &Scores, query: &Query) -> Option<Mentions> {
        if query.mentions.is_empty() && query.modules.is_empty() && query.names.is_empty() {
            return None;
        }
        let keys = |list: &[String]| -> Vec<u64> { list.iter().map(|m| key(last(m))).collect() };
        let project = project_agent(index, query);
        let action = project_action(query, project.as_deref());
        Some(Mentions {
            names: query
                .names
                .iter()
                .filter(|n| project.as_deref() != Some(n.as_str()))
                .chain(action)
                .map(|n| key(n))
                .collect(),
            files: keys(&query.mentions),
            modules: keys(&query.modules),
            unit: scores.max_idf.max(1.0),
            action: action.to_vec(),
        })
    }

    /// Whether names are compared with the stem of a file of `keys` whose path field scored
    /// `path`: names match stems only of files whose path matched a prompt term.
    fn checks_names(&self, keys: &FileKeys, path: f32) -> bool {
        path > 0.0 && self.names.contains(&keys.stem)
    }

    /// Whether [`Mentions::score`] of a file of `keys` whose path field scored `path` can be
    /// above 0: only files with a key of a mention, module or name can match (see
    /// [`FileKeys`]).
    pub(super) fn may_name(&self, keys: &FileKeys, path: f32) -> bool {
        self.checks_names(keys, path)
            || self.files.contains(&keys.name)
            || self.modules.contains(&keys.module)
    }

    /// Whether a file whose path matched no prompt term can be named (by a mention or a
    /// module: a name matches only the stem of a file whose path matched).
    pub(super) fn any_file(&self) -> bool {
        !self.files.is_empty() || !self.modules.is_empty()
    }

    /// The mention score of a file whose path field scored `path`, and how it was named.
    pub(super) fn score(
        &self,
        meta: &crate::retrieve::index::FileMeta,
        query: &Query,
        path: f32,
    ) -> (f32, Naming) {
        if !self.may_name(&meta.keys, path) {
            return (0.0, Naming::Other);
        }
        let check_names = self.checks_names(&meta.keys, path);
        let rel = if meta
            .rel
            .bytes()
            .any(|b| !b.is_ascii() || b.is_ascii_uppercase())
        {
            std::borrow::Cow::Owned(meta.rel.to_lowercase())
        } else {
            std::borrow::Cow::Borrowed(meta.rel.as_str())
        };
        let (boost, naming) = mention_boost(&rel, query, check_names, &self.action);
        (boost * self.unit, naming)
    }
}

/// The files a one-line question's modifiers name ([`Naming::Modifier`]), as they are scored.
#[derive(Default)]
pub(super) struct Modifiers {
    /// (place in the scored files, file, its score without that mention).
    files: Vec<(usize, u32, f32)>,
    /// Whether the question's subject named a scored file.
    subject_named: bool,
}

impl Modifiers {
    /// Notes a scored file, at place `at`, named as `naming`; `rest` gives its score
    /// without the mention.
    fn note(&mut self, naming: Naming, at: usize, fid: u32, rest: impl FnOnce() -> f32) {
        self.subject_named |= naming == Naming::Subject;
        if naming == Naming::Modifier {
            self.files.push((at, fid, rest()));
        }
    }

    /// When the subject names a file, a file named after another of the question's words is
    /// not what it asks about ("task state and task result tracking": `tasks.ts`, not
    /// `state.ts`): its mention is dropped (its path and text still count). Returns those
    /// files, sorted.
    fn drop_mentions(self, scored: &mut Vec<(u32, f32)>, scores: &mut Scores) -> Vec<u32> {
        if !self.subject_named || self.files.is_empty() {
            return Vec::new();
        }
        let mut dropped = Vec::with_capacity(self.files.len());
        for (at, fid, rest) in self.files {
            scored[at].1 = rest;
            scores.mention[fid as usize] = 0.0;
            dropped.push(fid);
        }
        scored.retain(|s| s.1 > 0.0);
        dropped.sort_unstable();
        dropped
    }
}

/// How a file's stem is named by a one-line question's words ([`Query::subject`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Naming {
    /// By the question's subject, in either number.
    Subject,
    /// By another single word of the question (a modifier of the subject, most often:
    /// "task *state* and task result tracking"). When the subject names a file as well, such
    /// a mention is dropped ([`collect_hits`]).
    Modifier,
    /// Otherwise (by path, file name, module, identifier or word pair), or not at all.
    Other,
}

/// The strongest way `rel` (lowercase) is named by the prompt, as a multiple of the mention
/// unit; 0 if it is not. Only called for files whose [`FileKeys`] match the prompt's: a new
/// way to match must keep its key (or widen that filter in [`Mentions::score`]).
fn mention_boost(rel: &str, query: &Query, check_names: bool, action: &[String]) -> (f32, Naming) {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    for m in &query.mentions {
        let suffix = m.contains('/') && (ends_with_part(rel, m) || ends_with_part(m, rel));
        if rel == m || suffix {
            return (MENTION_PATH, Naming::Other);
        }
    }
    for m in &query.mentions {
        if name == m.rsplit('/').next().unwrap_or(m) {
            return (MENTION_NAME, Naming::Other);
        }
    }
    let stemless = rel.rsplit_once('.').map_or(rel, |(s, _)| s);
    for m in &query.modules {
        if stemless == m || ends_with_part(stemless, m) {
            return (MENTION_MODULE, Naming::Other);
        }
    }
    if check_names {
        let stem = stem_name(name);
        if query.names.contains(&stem) {
            let naming = if query.subject.contains(&stem) {
                Naming::Subject
            } else if query.words.contains(&stem) {
                Naming::Modifier
            } else {
                Naming::Other
            };
            return (MENTION_STEM * complement_share(&stem, query), naming);
        }
        if action.contains(&stem) {
            return (MENTION_STEM, Naming::Subject);
        }
    }
    (0.0, Naming::Other)
}

/// [`W_COMPLEMENT`] when `stem` is a word of the question's complement and not its subject
/// ("number parsing with defaults and *range* checks": `Range.java`), 1 otherwise. Of the
/// semble-style questions' top ten files named after such a word, 18 were answers and 50 not
/// (stem matches overall: 214 answers of 500).
fn complement_share(stem: &str, query: &Query) -> f32 {
    if is_complement(stem, query) {
        W_COMPLEMENT
    } else {
        1.0
    }
}

/// Whether the file at `rel` was named (`mention` > 0) after a word of the question's
/// complement, for `explain`.
fn complement_named(rel: &str, query: &Query, mention: f32) -> bool {
    mention > 0.0 && !query.complements.is_empty() && is_complement(&stem_name(last(rel)), query)
}

/// Folder names that hold a project's code rather than name the project: a root so named
/// (`zls/src`, `packages/vitest/src`) takes its name from the folder above.
const CODE_FOLDERS: &[&str] = &[
    "src", "lib", "libs", "source", "sources", "packages", "pkg", "include", "main", "app", "code",
];

/// The project's name as prompt names are normalized: its root folder's name (`zls`,
/// `telescopenvim`), or that of the nearest folder above it not named like a code folder
/// ([`CODE_FOLDERS`]); `None` if shorter than three characters.
pub(super) fn project_name(index: &Index) -> Option<String> {
    let name = index
        .scope
        .root()
        .ancestors()
        .take(4)
        .filter_map(|d| d.file_name()?.to_str())
        .find(|n| !CODE_FOLDERS.iter().any(|c| n.eq_ignore_ascii_case(c)))?;
    let name = normalize_name(name);
    (name.chars().count() >= 3).then_some(name)
}

/// The agent of the question ([`Query::agent`]) when it is the project ([`project_name`]):
/// that word names no file. The agent may be the name's first part, of
/// [`MIN_PROJECT_AGENT`] letters or more ("how bats formats" in `bats-core`, "how telescope
/// maps" in `telescope.nvim`).
pub(super) fn project_agent(index: &Index, query: &Query) -> Option<String> {
    let agent = query.agent.as_deref()?;
    let project = project_name(index)?;
    let first_part = agent.chars().count() >= MIN_PROJECT_AGENT && project.starts_with(agent);
    (project == agent || first_part).then(|| agent.to_owned())
}

/// Shortest agent taken for the first part of the project's name ([`project_agent`]).
const MIN_PROJECT_AGENT: usize = 4;

/// The forms of the question's action ([`Query::action`]: "how curl *connects*" →
/// `connect`, `connector`) when its agent is the project (`project`, [`project_agent`]): the
/// project's name names no file, and what it does is what the question asks about, so the
/// action names files as the subject does (`connect.c`, `formatter.bash`). Empty otherwise.
fn project_action<'q>(query: &'q Query, project: Option<&str>) -> &'q [String] {
    if project.is_some() {
        &query.action
    } else {
        &[]
    }
}

/// Whether the file at `rel` is named after the project, the agent of the question, whose
/// name names no file ([`Mentions::of`]), for `explain`.
fn project_named(rel: &str, query: &Query, project: Option<&str>) -> bool {
    let stem = stem_name(&last(rel).to_lowercase());
    project == Some(stem.as_str()) && query.names.contains(&stem)
}

/// Whether the file at `rel` is named by the action of a question whose agent is the project
/// ([`project_action`]), for `explain`.
fn action_named(rel: &str, query: &Query, project: Option<&str>) -> bool {
    let stem = stem_name(&last(rel).to_lowercase());
    project_action(query, project).contains(&stem)
}

fn is_complement(stem: &str, query: &Query) -> bool {
    query.complements.iter().any(|c| c == stem) && !query.subject.iter().any(|s| s == stem)
}

/// The stem of a file name (lowercase) as [`Query::names`] name files.
fn stem_name(name: &str) -> String {
    normalize_name(name.rsplit_once('.').map_or(name, |(s, _)| s))
}

fn key(part: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(part.as_bytes());
    h.finish()
}

/// The last `/`-separated part of `path`.
fn last(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Hashes of what [`mention_boost`] compares of a file, computed once when it is indexed:
/// [`Mentions::score`] looks further only at files with a key equal to one of the
/// prompt's (a mention matches by path or file name, so the file names are equal; a module
/// matches the path without extension, so its last parts are equal; a name matches the stem).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::retrieve) struct FileKeys {
    /// The file name (lowercase).
    name: u64,
    /// The last part of the path without its extension.
    module: u64,
    /// The stem, normalized as prompt names are.
    stem: u64,
}

impl FileKeys {
    /// The keys of a removed file's place in [`FileTable`] (never read).
    const NONE: FileKeys = FileKeys {
        name: 0,
        module: 0,
        stem: 0,
    };

    pub(in crate::retrieve) fn of(rel: &str) -> FileKeys {
        let rel = rel.to_lowercase();
        let name = last(&rel);
        FileKeys {
            name: key(name),
            module: key(last(rel.rsplit_once('.').map_or(rel.as_str(), |(s, _)| s))),
            stem: key(&stem_name(name)),
        }
    }
}

/// `s.ends_with(&format!("/{tail}"))`, without building the string (it runs for every file).
fn ends_with_part(s: &str, tail: &str) -> bool {
    s.len() > tail.len() && s.ends_with(tail) && s.as_bytes()[s.len() - tail.len() - 1] == b'/'
}

/// Keeps the best `max_files` of `scored` by `order` (score descending, ties by path), in
/// any order. The `max_files`-th best score is found first by score alone (no path is read for
/// the ties of a large tree where many files score alike); only the files at or above it can be
/// among the best, and only they are ordered with their paths.
fn select_best(
    scored: &mut Vec<(u32, f32)>,
    max_files: usize,
    order: impl Fn(&(u32, f32), &(u32, f32)) -> std::cmp::Ordering,
) {
    if scored.len() <= max_files {
        return;
    }
    if max_files > 0 {
        let (_, kth, _) = scored.select_nth_unstable_by(max_files - 1, |a, b| b.1.total_cmp(&a.1));
        let kth = kth.1;
        scored.retain(|s| s.1.total_cmp(&kth).is_ge());
        if scored.len() > max_files {
            scored.select_nth_unstable_by(max_files - 1, order);
        }
    }
    scored.truncate(max_files);
}

/// The factors of a file's score that do not come from its text: its role for this prompt
/// and the side demotion ([`W_OPPOSITE`]).
pub(super) struct Factors<'a> {
    index: &'a Index,
    query: &'a Query,
    /// The roles the prompt asks for here, and those it names in the project's own words
    /// ([`asked_roles`]).
    wanted: Wanted,
    unasked: Wanted,
    opposite: Vec<u32>,
    versions: VersionDirs,
}

impl<'a> Factors<'a> {
    pub(super) fn new(index: &'a Index, query: &'a Query) -> Factors<'a> {
        let (wanted, unasked) = asked_roles(index, query);
        Factors {
            index,
            query,
            wanted,
            unasked,
            opposite: opposite_files(index, query),
            versions: VersionDirs::default(),
        }
    }

    /// The side factor of file `fid`: [`W_OPPOSITE`] or 1.
    pub(super) fn side(&self, fid: u32) -> f32 {
        if self.opposite.binary_search(&fid).is_ok() {
            W_OPPOSITE
        } else {
            1.0
        }
    }

    fn kept(&self, meta: &crate::retrieve::index::FileMeta) -> Option<RoleKept> {
        role_kept(self.index, meta, &self.versions)
    }

    /// The role factor of a file ([`role_factor`]).
    pub(super) fn role(&self, meta: &crate::retrieve::index::FileMeta) -> f32 {
        role_factor(meta, self.query, self.wanted, self.kept(meta))
    }

    /// [`Factors::role`] of a file of role `role`, whose metadata `meta` gives (`None`: a
    /// removed file, factor 1): read only for the roles whose factor depends on the path
    /// (legacy, docs, config); any other role's factor is the role's.
    fn role_as<'m>(
        &self,
        role: Role,
        meta: impl FnOnce() -> Option<&'m crate::retrieve::index::FileMeta>,
    ) -> f32 {
        match role {
            Role::Legacy | Role::Docs | Role::Config => meta().map_or(1.0, |m| self.role(m)),
            _ => role.factor(self.wanted),
        }
    }

    /// The most any file's role and side factors multiply its score by for this prompt.
    pub(super) fn most(&self) -> f32 {
        Role::ALL
            .iter()
            .map(|r| r.factor(self.wanted))
            .fold(1.0, f32::max)
    }
}

/// Step 5 for one file: its score from its signals (`base`: file BM25, path field,
/// definitions and mentions) and factors; `None` for a file without any, or without a chunk
/// to show. The one expression of the exhaustive and the pruned ranking (equal to the bit).
#[inline]
pub(super) fn file_score(
    scores: &Scores,
    fid: u32,
    base: f32,
    meta: &crate::retrieve::index::FileMeta,
    factors: &Factors<'_>,
) -> Option<f32> {
    file_score_in(
        scores,
        fid,
        base,
        meta.chunks.clone(),
        || factors.role(meta),
        factors,
    )
}

/// [`file_score`] of a file whose chunks are `chunks` and whose role factor `role` gives
/// (asked only for a file that has a signal).
#[inline]
fn file_score_in(
    scores: &Scores,
    fid: u32,
    base: f32,
    chunks: std::ops::Range<u32>,
    role: impl FnOnce() -> f32,
    factors: &Factors<'_>,
) -> Option<f32> {
    let top = best_chunk(scores, chunks.clone());
    if base <= 0.0 && top == 0.0 {
        return None;
    }
    let score = (base + W_BEST_CHUNK * top) * role() * factors.side(fid);
    // A file without a matching chunk shows its first one: it needs one.
    (score.is_finite() && score > 0.0 && !chunks.is_empty()).then_some(score)
}

/// Steps 4 and 5 over every file: the mentions of the files the prompt names, and the score
/// of each file that has one; also the files whose mention was dropped
/// ([`Modifiers::drop_mentions`]), sorted.
fn scored_files(
    index: &Index,
    scores: &mut Scores,
    query: &Query,
    factors: &Factors<'_>,
) -> (Vec<(u32, f32)>, Vec<u32>) {
    // A query term can touch every file of a large tree: score each one without allocating,
    // select the best few, and sort only those.
    let mut scored: Vec<(u32, f32)> = Vec::new();
    let mentions = Mentions::of(index, scores, query);
    let any_named = mentions.as_ref().is_some_and(Mentions::any_file);
    let mut modifiers = Modifiers::default();
    let mut table = index
        .file_table
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let table = table.of(index);
    let meta_of = |fid: usize| index.files[fid].as_ref();
    for fid in 0..table.spans.len() {
        let base = scores.bm25[fid] + scores.path[fid] + scores.symbol[fid];
        // No signal at all (most files of a large tree): skipped.
        if base <= 0.0 && !scores.chunked[fid] && !any_named {
            continue;
        }
        let (start, end) = table.spans[fid];
        if start == REMOVED {
            continue;
        }
        // The metadata itself is read only for the few files it decides about.
        let (mention, naming) = match &mentions {
            Some(m) if m.may_name(&table.keys[fid], scores.path[fid]) => match meta_of(fid) {
                Some(meta) => m.score(meta, query, scores.path[fid]),
                None => continue,
            },
            _ => (0.0, Naming::Other),
        };
        scores.mention[fid] = mention;
        let named = base + mention;
        if named <= 0.0 && !scores.chunked[fid] {
            continue;
        }
        let role = || factors.role_as(table.roles[fid], || meta_of(fid));
        if let Some(score) = file_score_in(scores, fid as u32, named, start..end, role, factors) {
            let rest = || {
                meta_of(fid)
                    .and_then(|meta| file_score(scores, fid as u32, base, meta, factors))
                    .unwrap_or(0.0)
            };
            modifiers.note(naming, scored.len(), fid as u32, rest);
            scored.push((fid as u32, score));
        }
    }
    let dropped = modifiers.drop_mentions(&mut scored, scores);
    (scored, dropped)
}

/// A removed file's start in [`FileTable::spans`].
const REMOVED: u32 = u32::MAX;

/// What [`scored_files`] reads of every file, in dense arrays by file id, made once per
/// generation of the index (any file added or removed, or the chunks compacted, makes it
/// again): a common word touches most files of a large tree, and reading each one's whole
/// metadata (over a hundred bytes, the path elsewhere) streamed megabytes a query (the Linux
/// kernel: about a fifth of a warm query's time, where these arrays are 2.6 MB).
#[derive(Debug)]
pub(in crate::retrieve) struct FileTable {
    /// The index's change count the arrays are valid for.
    generation: u64,
    /// Per file: its chunks (start, end), or ([`REMOVED`], 0).
    spans: Vec<(u32, u32)>,
    /// Per file: its role (that of source code for a removed one).
    roles: Vec<Role>,
    /// Per file: its [`FileKeys`].
    keys: Vec<FileKeys>,
}

impl Default for FileTable {
    fn default() -> FileTable {
        FileTable {
            generation: u64::MAX,
            spans: Vec::new(),
            roles: Vec::new(),
            keys: Vec::new(),
        }
    }
}

impl FileTable {
    /// The table of `index` as it is now: kept, or made again.
    pub(in crate::retrieve) fn of(&mut self, index: &Index) -> &FileTable {
        if self.generation != index.generation || self.spans.len() != index.files.len() {
            self.spans.clear();
            self.roles.clear();
            self.keys.clear();
            for meta in &index.files {
                if let Some(m) = meta {
                    self.spans.push((m.chunks.start, m.chunks.end));
                    self.roles.push(m.role);
                    self.keys.push(m.keys);
                } else {
                    self.spans.push((REMOVED, 0));
                    self.roles.push(Role::Source);
                    self.keys.push(FileKeys::NONE);
                }
            }
            self.generation = index.generation;
        }
        self
    }
}

/// Steps 5 and 6: the files of `scored` (each with its score) get the centrality prior, the
/// best `max_files` (score, ties by path) are kept, and only they get their chunks. `dropped`:
/// the files whose mention was dropped ([`Modifiers::drop_mentions`]), sorted. Also returns
/// the files whose [centrality](super::central) prior was weighed, sorted.
fn collect_hits(
    index: &Index,
    scores: &Scores,
    query: &Query,
    factors: &Factors<'_>,
    (mut scored, dropped): (Vec<(u32, f32)>, Vec<u32>),
    (max_files, shown): (usize, usize),
) -> (Vec<FileHit>, Vec<u32>) {
    let side_factor = |fid: u32| factors.side(fid);
    let kept = |meta: &crate::retrieve::index::FileMeta| factors.kept(meta);
    let (wanted, unasked) = (factors.wanted, factors.unasked);
    let central = if wants_central(query) {
        apply_central(index, &mut scored, shown)
    } else {
        Vec::new()
    };
    let central_factor = |fid: u32| {
        central
            .binary_search_by_key(&fid, |c| c.0)
            .map_or(1.0, |i| central[i].1)
    };
    let path_of = |f: u32| index.files[f as usize].as_ref().map(|m| m.rel.as_str());
    let project = project_agent(index, query);
    let order = |a: &(u32, f32), b: &(u32, f32)| {
        b.1.total_cmp(&a.1)
            .then_with(|| path_of(a.0).cmp(&path_of(b.0)))
    };
    select_best(&mut scored, max_files, order);
    scored.sort_unstable_by(order);
    let weighed = central.iter().map(|c| c.0).collect();
    let hits = scored
        .into_iter()
        .filter_map(|(fid, score)| {
            let meta = index.files[fid as usize].as_ref()?;
            let f = fid as usize;
            let best = matching_chunks(scores, meta.chunks.clone());
            let top = best.first().map_or(0.0, |b| b.1);
            let role_kept = kept(meta);
            Some(FileHit {
                file: fid,
                score,
                chunks: shown_chunks(meta.chunks.clone(), &best, score),
                signals: Signals {
                    bm25: scores.bm25[f],
                    chunk: W_BEST_CHUNK * top,
                    path: scores.path[f],
                    symbol: scores.symbol[f],
                    mention: scores.mention[f],
                    role: meta.role,
                    role_factor: role_factor(meta, query, wanted, role_kept)
                        * side_factor(fid)
                        * central_factor(fid),
                    total: score,
                    role_kept,
                    message: 0.0,
                    referenced_by: 0,
                    reference_factor: 1.0,
                    role_unasked: unasked.asks(meta.role),
                    modifier_stem: dropped.binary_search(&fid).is_ok(),
                    complement_stem: complement_named(&meta.rel, query, scores.mention[f]),
                    project_stem: project_named(&meta.rel, query, project.as_deref()),
                    action_stem: scores.mention[f] > 0.0
                        && action_named(&meta.rel, query, project.as_deref()),
                    synonym: 0.0,
                    definition_words: 0.0,
                },
            })
        })
        .collect();
    (hits, weighed)
}

/// The files whose path names the side the prompt does not ask about and not the one it does
/// ([`Query::opposites`]), sorted. Empty for most prompts, and then costs nothing.
fn opposite_files(index: &Index, query: &Query) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    let files_of = |t: &str| {
        index
            .terms
            .get(t)
            .map_or(&[][..], |id| &index.path_postings[id as usize])
    };
    for (other, named) in &query.opposites {
        let other = files_of(other);
        if other.is_empty() {
            continue;
        }
        let mut named = files_of(named).to_vec();
        named.sort_unstable();
        out.extend(other.iter().filter(|f| named.binary_search(f).is_err()));
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The factor of a file's role for this prompt ([`Role::factor`]), except that a configuration
/// file the prompt names by its first name part is asked for: `vitest.config.ts` for "update
/// vitest to v4", `Cargo.toml` for "bump the cargo lock". Measured with the tool scripts made
/// config (`roles::is_tool_config`): it kept a hono commit's `vitest.config.ts` 4th, not 10th;
/// nothing else moved.
fn role_factor(
    meta: &crate::retrieve::index::FileMeta,
    query: &Query,
    wanted: Wanted,
    kept: Option<RoleKept>,
) -> f32 {
    if kept.is_some() {
        return 1.0;
    }
    let factor = meta.role.factor(wanted);
    // A change log or licence is asked for by its name, not by "docs": it quotes every bug
    // ever fixed, so a report matches it better than the code it is about.
    if meta.role == Role::Docs
        && factor >= 1.0
        && !wanted.prose
        && super::roles::is_project_prose_file(&meta.rel)
    {
        return Role::Docs.factor(Wanted::default());
    }
    if factor >= 1.0 || meta.role != Role::Config {
        return factor;
    }
    let name = last(&meta.rel).trim_start_matches('.');
    let first = name.split('.').next().unwrap_or(name);
    let mut named = false;
    crate::retrieve::tokenize::for_each_term(first, |t, whole| {
        named |= !whole && query.terms.iter().any(|(q, _)| q == t);
    });
    if named {
        1.0
    } else {
        factor
    }
}

/// The share of a project's source files whose text holds a word, from which on the word is
/// the project's own vocabulary ([`asked_roles`]): most of them.
const PROJECT_WORD_SHARE: f32 = 0.5;

/// The roles the prompt asks for ([`Query::wanted`]) less those all of whose words in the
/// prompt are the project's own vocabulary ([`project_word`]), and those. A test framework's
/// bug reports speak of tests, fixtures and `pytest` throughout, a documentation tool's of
/// docs and docstrings: they describe the code, and its tests and docs are not what they ask
/// for.
fn asked_roles(index: &Index, query: &Query) -> (Wanted, Wanted) {
    let mut wanted = query.wanted;
    let mut unasked = Wanted::default();
    let mut sources: Option<usize> = None;
    for g in 0..5u8 {
        let mut words = query.role_words.iter().filter(|w| w.1 == g).peekable();
        if words.peek().is_none() {
            continue;
        }
        if words.all(|w| project_word(index, &w.0, &mut sources)) {
            wanted.set(g, false);
            unasked.set(g, true);
        }
    }
    (wanted, unasked)
}

/// Whether `term` is the project's own vocabulary: a source file is named after it (a part of
/// its path: `fixtures.py`, the `_pytest/` package), or most of the source files
/// ([`PROJECT_WORD_SHARE`]) hold it. `sources` caches the number of source files.
fn project_word(index: &Index, term: &str, sources: &mut Option<usize>) -> bool {
    let Some(id) = index.terms.get(term) else {
        return false;
    };
    let source = |f: u32| {
        index.files[f as usize]
            .as_ref()
            .is_some_and(|m| m.role == Role::Source)
    };
    if index.path_postings[id as usize].iter().any(|&f| source(f)) {
        return true;
    }
    let n = *sources.get_or_insert_with(|| {
        index
            .files
            .iter()
            .flatten()
            .filter(|m| m.role == Role::Source)
            .count()
    });
    if n == 0 {
        return false;
    }
    let mut files: Vec<u32> = index
        .postings
        .list(id)
        .filter_map(|p| {
            let c = &index.chunks[p.chunk as usize];
            (c.alive && source(c.file)).then_some(c.file)
        })
        .collect();
    files.sort_unstable();
    files.dedup();
    files.len() as f32 >= PROJECT_WORD_SHARE * n as f32
}

/// Whether a file of a demoted role keeps the factor of source code for this prompt
/// ([`RoleKept`]): a file under the newest of several version folders side by side (`v3/`
/// and `v4/`: `v4/` is the current code). (A module of declarations that defines exactly the
/// name a short prompt asks for keeps it too: [`exact_definitions`] reads the definition.)
fn role_kept(
    index: &Index,
    meta: &crate::retrieve::index::FileMeta,
    versions: &VersionDirs,
) -> Option<RoleKept> {
    match meta.role {
        Role::Legacy if versions.newest(index, &meta.rel) => Some(RoleKept::NewestVersion),
        _ => None,
    }
}

/// The version number of a folder named `vN` (lowercase `v`, 1 to 3 digits), as
/// [`roles`](super::roles) reads such folders as legacy copies.
fn version_of(dir: &str) -> Option<u32> {
    let digits = dir.strip_prefix('v').or_else(|| dir.strip_prefix('V'))?;
    (!digits.is_empty() && digits.len() <= 3 && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// Most version numbers above and below a folder's that [`VersionDirs::newest`] looks for.
const VERSION_SPAN: u32 = 16;

/// Which version folders are the newest of their siblings, asked per query for the files of
/// the legacy role that match it (few), each folder once.
#[derive(Default)]
struct VersionDirs {
    /// Folder path (lowercase, `parent/vN`) → the newest of two or more version siblings.
    seen: std::cell::RefCell<rustc_hash::FxHashMap<String, bool>>,
}

impl VersionDirs {
    /// Whether `rel` is legacy only through a version folder that is the newest of two or
    /// more version folders in the same parent. Another legacy folder on the path (`compat/`,
    /// `legacy/`) or a lone version folder (`pydantic/v1/` beside the current package) keeps
    /// it legacy.
    fn newest(&self, index: &Index, rel: &str) -> bool {
        let lower = rel.to_ascii_lowercase();
        let Some((dirs, _)) = lower.rsplit_once('/') else {
            return false;
        };
        let mut found: Option<(usize, u32)> = None;
        let mut at = 0;
        for d in dirs.split('/') {
            if let Some(n) = version_of(d) {
                if found.is_some() {
                    return false;
                }
                found = Some((at, n));
            } else if super::roles::role_of(&format!("{d}/x.c")) == Role::Legacy {
                return false;
            }
            at += d.len() + 1;
        }
        let Some((start, n)) = found else {
            return false;
        };
        let end = start + dirs[start..].find('/').unwrap_or(dirs.len() - start);
        let folder = &dirs[..end];
        if let Some(&v) = self.seen.borrow().get(folder) {
            return v;
        }
        let parent = &dirs[..start];
        let exists = |m: u32| {
            let name = format!("v{m}");
            let Some(id) = index.terms.get(name.as_str()) else {
                return false;
            };
            let prefix = format!("{parent}{name}/");
            index.path_postings[id as usize].iter().any(|&f| {
                index.files[f as usize].as_ref().is_some_and(|m| {
                    let rel = m.rel.as_bytes();
                    rel.len() > prefix.len()
                        && rel[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
                })
            })
        };
        let newer = (n + 1..=n + VERSION_SPAN).any(exists);
        let older = !newer && (n.saturating_sub(VERSION_SPAN)..n).any(exists);
        let v = older && !newer;
        self.seen.borrow_mut().insert(folder.to_string(), v);
        v
    }
}

/// Whether a prompt gets the [centrality](super::central) prior: a one-line question or
/// search that names no file. A longer prompt (a commit message with its body, a bug
/// report) describes a change, which touches peripheral files as often as central ones, and
/// carries the words that find them.
fn wants_central(query: &Query) -> bool {
    query.lines <= 1 && query.mentions.is_empty()
}

/// Multiplies the scores of `scored` that the [centrality](super::central) prior can still
/// bring among the best `shown` by 1 + [`W_CENTRAL`] × their centrality, and returns those
/// factors by file id (sorted). Files are asked about best first (ties by path); once the
/// `shown`-th best score so far exceeds what the next file could reach (its score × (1 +
/// `W_CENTRAL`)), no later file can enter the best `shown`, so none is asked about: the prior
/// costs the files near the top (a few more than `shown`), not the tree.
fn apply_central(index: &Index, scored: &mut [(u32, f32)], shown: usize) -> Vec<(u32, f32)> {
    if shown == 0 || scored.is_empty() {
        return Vec::new();
    }
    // Only files above the `shown`-th score / (1 + W_CENTRAL) can be asked about: sorting
    // just those.
    let cut = if scored.len() > shown {
        let mut raw: Vec<f32> = scored.iter().map(|s| s.1).collect();
        let (_, kth, _) = raw.select_nth_unstable_by(shown - 1, |a, b| b.total_cmp(a));
        *kth / (1.0 + W_CENTRAL)
    } else {
        0.0
    };
    let path_of = |f: u32| index.files[f as usize].as_ref().map(|m| m.rel.as_str());
    let mut order: Vec<usize> = (0..scored.len()).filter(|&i| scored[i].1 >= cut).collect();
    order.sort_by(|&a, &b| {
        scored[b]
            .1
            .total_cmp(&scored[a].1)
            .then_with(|| path_of(scored[a].0).cmp(&path_of(scored[b].0)))
    });
    let mut out: Vec<(u32, f32)> = Vec::new();
    let mut central = index
        .central
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // The best `shown` scores so far, least first (positive finite floats order as their bits).
    let mut best: std::collections::BinaryHeap<std::cmp::Reverse<u32>> =
        std::collections::BinaryHeap::with_capacity(shown + 1);
    for i in order {
        let (fid, score) = scored[i];
        if best.len() == shown
            && best
                .peek()
                .is_some_and(|k| score * (1.0 + W_CENTRAL) < f32::from_bits(k.0))
        {
            break;
        }
        let factor = 1.0 + W_CENTRAL * central.of(index, fid);
        scored[i].1 = score * factor;
        out.push((fid, factor));
        best.push(std::cmp::Reverse(scored[i].1.to_bits()));
        if best.len() > shown {
            best.pop();
        }
    }
    out.sort_unstable_by_key(|c| c.0);
    out
}

/// The chunks of `range` that scored, best first (ties by chunk id).
fn matching_chunks(scores: &Scores, range: std::ops::Range<u32>) -> Vec<(u32, f32)> {
    let mut best: Vec<(u32, f32)> = range
        .filter_map(|c| {
            let s = scores.chunk[c as usize];
            (s > 0.0).then_some((c, s))
        })
        .collect();
    best.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    best
}

/// The best positive score of the chunks `range`, 0 if none.
fn best_chunk(scores: &Scores, range: std::ops::Range<u32>) -> f32 {
    scores.chunk[range.start as usize..range.end as usize]
        .iter()
        .fold(0.0f32, |m, &s| if s > m { s } else { m })
}

/// The chunks a file shows: its best at the file's score (its first chunk when only its path
/// or name matched), then up to [`EXTRA_CHUNKS`] more that score at least
/// [`EXTRA_MIN_RATIO`] of the best, at a fraction of the file's score.
fn shown_chunks(all: std::ops::Range<u32>, best: &[(u32, f32)], score: f32) -> Vec<(u32, f32)> {
    let mut chunks: Vec<(u32, f32)> = Vec::new();
    match best.first() {
        Some(&(c, _)) => chunks.push((c, score)),
        None if all.start < all.end => chunks.push((all.start, score)),
        None => return chunks,
    }
    let top = best.first().map_or(0.0, |b| b.1);
    for &(c, s) in best.iter().skip(1).take(EXTRA_CHUNKS) {
        if s >= EXTRA_MIN_RATIO * top {
            chunks.push((c, score * EXTRA_FRACTION * s / top));
        }
    }
    chunks
}

/// Most top files searched for the exact definition of a short prompt's symbol.
pub const EXACT_DEFINITION_FILES: usize = 20;
/// A file that defines exactly a symbol of a short prompt gains this fraction of the top
/// file's score; more when the file is also named after it (`SqlMapper.cs` among the partial
/// `SqlMapper.*.cs` files that all define the class).
const W_EXACT_DEFINITION: f32 = 1.0;
const W_EXACT_DEFINITION_NAMED: f32 = 1.5;
/// A file that alone (among the files searched) defines a capitalized word of a longer
/// prompt's prose, spelled as written ("how Applicative combines effects": `trait
/// Applicative`), gains this fraction of the top file's score: prose capitalizes more than
/// names, so less than a short prompt's symbol.
const W_CAPITAL_DEFINITION: f32 = 0.3;
/// Files ranked for a short symbol prompt, among which those named after the symbol are also
/// checked for its definition (a large defining file can rank below many small ones).
pub const EXACT_DEFINITION_CANDIDATES: usize = 100;

/// A definition spelled like the prompt's symbol only case-insensitively (`fn serialize` for
/// `Serialize`, `const vitest` for `Vitest`) counts this fraction of one spelled as typed.
const EXACT_CASE_LOOSE: f32 = 0.5;
/// Each column of a definition's indentation (up to 12) takes this fraction off: the
/// top-level definition of a name is the one meant, not a copy nested in a macro or a test.
const NESTED_PENALTY: f32 = 0.025;

/// How well `line` defines one of a short prompt's symbols, 0 to 1: spelled as typed or only
/// case-insensitively, at top level or nested. The last part of a dotted name counts
/// (`defmodule Plug.Conn` defines `Conn`).
fn definition_match(line: &str, query: &Query, c_family: bool) -> f32 {
    let Some(name) = crate::retrieve::index::chunk::definition_name(line, c_family) else {
        return 0.0;
    };
    let last = name.rsplit(['.', ':']).next().unwrap_or(name);
    let spelled = if query.symbol_words.iter().any(|w| w == last) {
        1.0
    } else if query.symbols.contains(&normalize_name(last)) {
        EXACT_CASE_LOOSE
    } else {
        return 0.0;
    };
    spelled * (1.0 - NESTED_PENALTY * crate::retrieve::index::chunk::indent(line).min(12) as f32)
}

/// Whether `line`, read as [`normalize_name`] reads it (letters and digits only, lower case),
/// contains `name` (already normalized): a necessary condition for the line to define it.
/// Non-ASCII names are always possible.
fn contains_normalized(line: &str, name: &str) -> bool {
    let name = name.as_bytes();
    if name.is_empty() || !name.is_ascii() || !line.is_ascii() {
        return true;
    }
    let line = line.as_bytes();
    // Only where the name's first character is (in either case) can it start: found by
    // memchr, not tried at every byte (this runs on every line of the top files).
    let first = name[0];
    let mut from = 0;
    while let Some(i) = memchr::memchr2(first, first.to_ascii_uppercase(), &line[from..]) {
        let start = from + i;
        if matches_at(line, start, name) {
            return true;
        }
        from = start + 1;
    }
    false
}

/// The lines of `text` (0-based number, text) for which [`contains_normalized`] holds for one
/// of `symbols`, in order. An ASCII text is searched whole for each symbol's first character
/// (a large file's lines are not visited one by one); any other is read line by line.
fn symbol_lines<'t>(text: &'t str, symbols: &[String]) -> Vec<(usize, &'t str)> {
    let searchable = |s: &String| !s.is_empty() && s.is_ascii();
    if !text.is_ascii() || !symbols.iter().all(searchable) {
        return text
            .split('\n')
            .enumerate()
            .filter(|(_, l)| symbols.iter().any(|s| contains_normalized(l, s)))
            .collect();
    }
    let bytes = text.as_bytes();
    let mut starts: Vec<usize> = Vec::new();
    for s in symbols {
        let name = s.as_bytes();
        let first = name[0];
        let mut from = 0;
        while let Some(i) = memchr::memchr2(first, first.to_ascii_uppercase(), &bytes[from..]) {
            let at = from + i;
            from = at + 1;
            if matches_at(bytes, at, name) {
                starts.push(at);
                // The line is a candidate: its other occurrences add nothing.
                from = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |k| at + k + 1);
            }
        }
    }
    starts.sort_unstable();
    let mut out = Vec::new();
    let (mut line, mut counted, mut next_line) = (0usize, 0usize, 0usize);
    for at in starts {
        if at < next_line {
            continue;
        }
        line += memchr::memchr_iter(b'\n', &bytes[counted..at]).count();
        counted = at;
        let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
        next_line = end;
        out.push((line, &text[start..end]));
    }
    out
}

/// Whether `name` (lowercase letters and digits) is spelled at `line[start..]`, reading only
/// letters and digits there and ignoring case, before the end of the line (`line` may be a
/// whole text).
fn matches_at(line: &[u8], start: usize, name: &[u8]) -> bool {
    let mut k = 0;
    for &b in &line[start..] {
        if b == b'\n' {
            return false;
        }
        if !b.is_ascii_alphanumeric() {
            if k == 0 {
                return false;
            }
            continue;
        }
        if b.to_ascii_lowercase() != name[k] {
            return false;
        }
        k += 1;
        if k == name.len() {
            return true;
        }
    }
    false
}

/// Step 7, for short prompts naming a symbol (`SqlMapper`, `Vitest`): among the top files
/// and the files named after the symbol, those with a definition of exactly that name (not
/// `SqlMapperAsync`, not a call) gain [`W_EXACT_DEFINITION`] of the top score
/// ([`W_EXACT_DEFINITION_NAMED`] when named after it), and show the chunk of that definition
/// first. The capitalized words of a longer prompt ([`Query::capitals`]) are looked for the
/// same way, spelled as written; the one file that defines such a word gains
/// [`W_CAPITAL_DEFINITION`]. Reads the text of at most [`EXACT_DEFINITION_FILES`] files plus
/// the named ones; the order stays deterministic (ties by path).
pub fn exact_definitions(index: &mut Index, query: &Query, hits: &mut [FileHit]) {
    let top = hits.first().map_or(0.0, |h| h.score);
    exact_definitions_in(index, query, hits, top, EXACT_DEFINITION_FILES);
}

/// [`exact_definitions`] for hits that are part of a longer ranking (several roots ranked as
/// one): `top` is the score of that ranking's best file, and `window` how many of `hits` are
/// among its best [`EXACT_DEFINITION_FILES`].
pub(crate) fn exact_definitions_in(
    index: &mut Index,
    query: &Query,
    hits: &mut [FileHit],
    top: f32,
    window: usize,
) {
    if (query.symbols.is_empty() && query.capitals.is_empty()) || hits.is_empty() {
        return;
    }
    let capital_names: Vec<String> = query.capitals.iter().map(|c| normalize_name(c)).collect();
    // What earlier calls of this generation found in these files for the same names: the
    // candidates of a symbol prompt are read once, not on every call.
    let mut memo = std::mem::take(&mut index.definitions);
    memo.begin(index.generation, query);
    // (hit, capital, match, line) for each file that defines a capital.
    let mut weak: Vec<(usize, usize, f32, usize)> = Vec::new();
    for (k, hit) in hits.iter_mut().enumerate() {
        let (named, named_capital) =
            index.files[hit.file as usize]
                .as_ref()
                .map_or((false, false), |m| {
                    let stem = stem_name(last(&m.rel));
                    (query.symbols.contains(&stem), capital_names.contains(&stem))
                });
        if k >= window && !named && !named_capital {
            continue;
        }
        let (best, best_weak) = if let Some(found) = memo.get(hit.file) {
            (found.best, found.weak.clone())
        } else {
            let c_family = index.files[hit.file as usize]
                .as_ref()
                .is_some_and(|m| crate::retrieve::index::chunk::is_c_family(&m.rel));
            let Some(text) = index.text(hit.file) else {
                continue;
            };
            let found = definitions_in_text(&text, query, c_family);
            let out = (found.best, found.weak.clone());
            memo.put(hit.file, found);
            out
        };
        for (c, &(m, line)) in best_weak.iter().enumerate() {
            if m > 0.0 {
                weak.push((k, c, m, line));
            }
        }
        if best.0 <= 0.0 {
            continue;
        }
        // A module of declarations that defines exactly the name asked for is its answer
        // (`ContextAdapter` and the `types.ts` that declares the interface): not demoted.
        let declares = index.files[hit.file as usize]
            .as_ref()
            .is_some_and(|m| m.role == Role::Declarations);
        let demoted = Role::Declarations.factor(query.wanted);
        if declares && demoted < 1.0 && !query.symbols.is_empty() {
            hit.score /= demoted;
            hit.signals.role_factor /= demoted;
            hit.signals.total = hit.score;
            for c in &mut hit.chunks {
                c.1 /= demoted;
            }
            hit.signals.role_kept = Some(RoleKept::DefinesName);
        }
        let bonus = if named {
            W_EXACT_DEFINITION_NAMED
        } else {
            W_EXACT_DEFINITION
        } * top
            * best.0;
        lift(index, hit, best.1, bonus);
    }
    index.definitions = memo;
    // A capital defined by one file only: a name defined in several (`module Rack`, a base
    // and its copy) says nothing about which of them is meant.
    for c in 0..query.capitals.len() {
        let mut defining = weak.iter().filter(|w| w.1 == c);
        if let (Some(&(k, _, m, line)), None) = (defining.next(), defining.next()) {
            lift(index, &mut hits[k], line, W_CAPITAL_DEFINITION * top * m);
        }
    }
    sort_hits(index, hits);
}

/// What [`exact_definitions_in`] reads of one file for one prompt's names: its best
/// definition of a symbol (match, 0-based line) and, for each capital, the same.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FileDefinitions {
    best: (f32, usize),
    weak: Vec<(f32, usize)>,
}

/// [`FileDefinitions`] of `text` (a file of the C family or not) for `query`'s symbols and
/// capitals.
fn definitions_in_text(text: &str, query: &Query, c_family: bool) -> FileDefinitions {
    let mut best = (0.0f32, 0usize);
    let weak = capital_definitions(text, &query.capitals, c_family);
    if !query.symbols.is_empty() {
        // Most lines name none of the symbols: the definition patterns read only those that do.
        for (i, l) in symbol_lines(text, &query.symbols) {
            let m = definition_match(l, query, c_family);
            if m > best.0 {
                best = (m, i);
            }
        }
    }
    FileDefinitions { best, weak }
}

/// Most bytes (roughly counted) kept by [`DefinitionMemo`]; past it, it starts afresh.
pub(crate) const DEFINITION_MEMO_BYTES: usize = 1024 * 1024;

/// What the definition steps ([`exact_definitions_in`], [`definition_words_in`]) found in the
/// files they read, by what the prompt asks for (its key) and by file id, for one generation
/// of the index: a file added, removed or changed (read again under a new generation)
/// empties it, so nothing is answered from a text that is not the indexed one. Bounded by
/// [`DEFINITION_MEMO_BYTES`].
#[derive(Debug)]
pub(crate) struct FileMemo<V> {
    generation: u64,
    bytes: usize,
    /// The key of the prompt being ranked (in `by_key`).
    current: String,
    by_key: rustc_hash::FxHashMap<String, rustc_hash::FxHashMap<u32, V>>,
}

impl<V> Default for FileMemo<V> {
    fn default() -> Self {
        FileMemo {
            generation: 0,
            bytes: 0,
            current: String::new(),
            by_key: rustc_hash::FxHashMap::default(),
        }
    }
}

/// What [`exact_definitions_in`] found, by the prompt's names.
pub(crate) type DefinitionMemo = FileMemo<FileDefinitions>;

/// Appends `s` to `key` with its length: no two different lists give the same key.
fn push_key(key: &mut String, s: &str) {
    key.push_str(&s.len().to_string());
    key.push(':');
    key.push_str(s);
}

impl<V> FileMemo<V> {
    /// Prepares for a prompt at `generation`, whose key `key` writes: forgets everything of
    /// another generation.
    fn begin_with(&mut self, generation: u64, key: impl FnOnce(&mut String)) {
        if self.generation != generation {
            self.clear();
            self.generation = generation;
        }
        self.current.clear();
        key(&mut self.current);
    }

    fn get(&self, fid: u32) -> Option<&V> {
        self.by_key.get(&self.current)?.get(&fid)
    }

    /// Keeps `v` for file `fid`, counted as `cost` bytes.
    fn put_costing(&mut self, fid: u32, v: V, cost: usize) {
        let key_cost = 64 + self.current.len();
        let mut need = cost;
        if !self.by_key.contains_key(&self.current) {
            need += key_cost;
        }
        if self.bytes + need > DEFINITION_MEMO_BYTES {
            self.clear();
            need = cost + key_cost;
            if need > DEFINITION_MEMO_BYTES {
                return;
            }
        }
        self.bytes += need;
        self.by_key
            .entry(self.current.clone())
            .or_default()
            .insert(fid, v);
    }

    fn clear(&mut self) {
        self.by_key.clear();
        self.bytes = 0;
    }

    /// Roughly the bytes it holds.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }
}

impl DefinitionMemo {
    /// Prepares for `query`'s names at `generation`.
    fn begin(&mut self, generation: u64, query: &Query) {
        self.begin_with(generation, |key| {
            for list in [&query.symbols, &query.symbol_words, &query.capitals] {
                key.push_str(&list.len().to_string());
                for s in list {
                    key.push(';');
                    push_key(key, s);
                }
                key.push('|');
            }
        });
    }

    fn put(&mut self, fid: u32, found: FileDefinitions) {
        let cost = 48 + found.weak.len() * std::mem::size_of::<(f32, usize)>();
        self.put_costing(fid, found, cost);
    }
}

/// For each of `capitals`, how well `text` defines it as written, 0 to 1 (at top level or
/// nested), and on which line (0-based). Only the lines holding the word are read, found by
/// a substring search over the whole text.
fn capital_definitions(text: &str, capitals: &[String], c_family: bool) -> Vec<(f32, usize)> {
    let mut out = vec![(0.0f32, 0usize); capitals.len()];
    let bytes = text.as_bytes();
    for (c, cap) in capitals.iter().enumerate() {
        let (mut line, mut counted, mut next_line) = (0usize, 0usize, 0usize);
        for hit in memchr::memmem::find_iter(bytes, cap.as_bytes()) {
            // Several hits on one line: the line was read at its first.
            if hit < next_line {
                continue;
            }
            line += memchr::memchr_iter(b'\n', &bytes[counted..hit]).count();
            counted = hit;
            let start = memchr::memrchr(b'\n', &bytes[..hit]).map_or(0, |i| i + 1);
            let end = memchr::memchr(b'\n', &bytes[hit..]).map_or(bytes.len(), |i| hit + i);
            next_line = end;
            let l = &text[start..end];
            let Some(name) = crate::retrieve::index::chunk::definition_name(l, c_family) else {
                continue;
            };
            if name.rsplit(['.', ':']).next() == Some(cap.as_str()) {
                let m =
                    1.0 - NESTED_PENALTY * crate::retrieve::index::chunk::indent(l).min(12) as f32;
                if m > out[c].0 {
                    out[c] = (m, line);
                }
            }
        }
    }
    out
}

/// Adds `bonus` (in the file's own units, before its role factor) to `hit` for the
/// definition on line `line` (0-based), whose chunk it shows first.
fn lift(index: &Index, hit: &mut FileHit, line: usize, bonus: f32) {
    lift_as(index, hit, line, bonus, |g| &mut g.symbol);
}

/// [`lift`], the bonus kept in the signal `field` picks.
fn lift_as(
    index: &Index,
    hit: &mut FileHit,
    line: usize,
    bonus: f32,
    field: fn(&mut Signals) -> &mut f32,
) {
    let line = line as u32 + 1;
    let Some(meta) = index.files[hit.file as usize].as_ref() else {
        return;
    };
    let Some(chunk) = meta.chunks.clone().find(|&c| {
        index.chunks[c as usize].start_line <= line && line <= index.chunks[c as usize].end_line
    }) else {
        return;
    };
    // In the file's own units (before its role factor): a test's copy gains less.
    *field(&mut hit.signals) += bonus;
    let bonus = bonus * hit.signals.role_factor;
    hit.score += bonus;
    hit.signals.total = hit.score;
    let old = hit.chunks.iter().position(|&(c, _)| c == chunk);
    if let Some(i) = old {
        hit.chunks.remove(i);
    }
    hit.chunks.insert(0, (chunk, hit.score));
    // The chunks it had shown first become extra chunks, scored as [`shown_chunks`] scores
    // them: at most [`EXTRA_FRACTION`] of the file's score, below the next files' best.
    for c in hit.chunks.iter_mut().skip(1) {
        c.1 = c.1.min(hit.score * EXTRA_FRACTION);
    }
    hit.chunks.truncate(1 + EXTRA_CHUNKS);
}

/// Most top files searched for the prompt's messages.
pub const MESSAGE_FILES: usize = 30;
/// A file with a line that holds a prompt's message gains this fraction of the top file's
/// score, times the share of the message's words it holds in one run.
const W_MESSAGE: f32 = 0.5;
/// Fewest words of a message a line must hold in one run, and the least share of the
/// message's weight ([`word_weight`]: its rare words count, `of` and `the` do not) the run
/// must hold.
const MIN_MESSAGE_RUN: usize = 3;
const MIN_MESSAGE_SHARE: f32 = 0.5;
/// Most lines of one file compared with a message (the lines holding its longest word).
const MAX_MESSAGE_LINES: usize = 256;

/// Step 8 (needs file text, so the caller runs it): a file among the top [`MESSAGE_FILES`]
/// with a line holding a run of a prompt's message (a pasted error, a quoted sentence:
/// [`Query::messages`]) moves up by the share of the message it holds, and shows that line's
/// chunk: a pasted error is usually a string constant of the file that raises it. Any line
/// counts, not only those with a quote character: a long message is often a multi-line string
/// whose text starts on the line after the quotes. Only the lines holding the message's
/// longest word are compared, word runs as the prompt's words (a placeholder such as
/// `%(limit)s` or `{}` where the prompt has a value ends a run, not the match). The lift is in
/// the file's own units, so a test, a changelog or a translation catalog that repeats the
/// message gains less.
pub fn message_strings(index: &mut Index, query: &Query, hits: &mut [FileHit]) {
    let top = hits.first().map_or(0.0, |h| h.score);
    message_strings_in(index, query, hits, top, MESSAGE_FILES, None);
}

/// [`message_strings`] for hits that are part of a longer ranking (several roots ranked as
/// one): `top` is the score of its best file, `window` how many of `hits` are among its best
/// [`MESSAGE_FILES`], and `collection` weighs the message words over all of it.
pub(crate) fn message_strings_in(
    index: &mut Index,
    query: &Query,
    hits: &mut [FileHit],
    top: f32,
    window: usize,
    collection: Option<&Collection>,
) {
    if query.messages.is_empty() || hits.is_empty() {
        return;
    }
    let weights: Vec<Vec<f32>> = query
        .messages
        .iter()
        .map(|m| {
            m.iter()
                .map(|w| match collection {
                    Some(c) => c.word_weights.get(w.as_str()).copied().unwrap_or(0.0),
                    None => word_weight(index, w),
                })
                .collect()
        })
        .collect();
    // Per hit: the best (share, line, message) it holds.
    let mut found: Vec<(usize, f32, usize, usize)> = Vec::new();
    for (k, hit) in hits.iter().enumerate().take(window) {
        let Some(text) = index.text(hit.file) else {
            continue;
        };
        let lower = text.to_ascii_lowercase();
        let mut best = (0.0f32, 0usize, 0usize);
        for (m, words) in query.messages.iter().enumerate() {
            let total: f32 = weights[m].iter().sum();
            let Some(longest) = words.iter().max_by_key(|w| w.len()) else {
                continue;
            };
            if total <= 0.0 {
                continue;
            }
            let bytes = lower.as_bytes();
            let (mut line, mut counted, mut next_line, mut seen) = (0usize, 0usize, 0usize, 0);
            for at in memchr::memmem::find_iter(bytes, longest.as_bytes()) {
                if at < next_line {
                    continue;
                }
                seen += 1;
                if seen > MAX_MESSAGE_LINES {
                    break;
                }
                line += memchr::memchr_iter(b'\n', &bytes[counted..at]).count();
                counted = at;
                let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
                let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
                next_line = end;
                let (from, run) = longest_run(words, &lower[start..end]);
                let share = weights[m][from..from + run].iter().sum::<f32>() / total;
                if run >= MIN_MESSAGE_RUN && share >= MIN_MESSAGE_SHARE && share > best.0 {
                    best = (share, line, m);
                }
            }
        }
        if best.0 > 0.0 {
            found.push((k, best.0, best.1, best.2));
        }
    }
    // A message held by several source files is a common phrase (`list index out of range`,
    // `object has no attribute`), not the constant of one of them: only a message one source
    // file holds lifts (its copies in tests, docs or catalogs do not count against it).
    let source: Vec<bool> = found
        .iter()
        .map(|f| {
            index.files[hits[f.0].file as usize]
                .as_ref()
                .is_some_and(|m| m.role == Role::Source)
        })
        .collect();
    let mut moved = false;
    for &(k, share, line, m) in &found {
        if !raises(index, query, &hits[k]) {
            continue;
        }
        let holders = found
            .iter()
            .zip(&source)
            .filter(|(f, s)| f.3 == m && **s)
            .count();
        if holders > 1 {
            continue;
        }
        lift_as(index, &mut hits[k], line, W_MESSAGE * top * share, |g| {
            &mut g.message
        });
        moved = true;
    }
    if moved {
        sort_hits(index, hits);
    }
}

/// Whether a file that holds a prompt's message may be the code that raises it, and so gain
/// [`message_strings`]'s lift: a source file, or a file of a role the prompt asks for (a
/// failing test's assertion). A translation catalog, a change log or a test the prompt does
/// not ask about quotes the message; it does not raise it.
fn raises(index: &Index, query: &Query, hit: &FileHit) -> bool {
    let role = hit.signals.role;
    match role {
        Role::Source | Role::Declarations => true,
        _ if !query.wanted.asks(role) || hit.signals.role_unasked => false,
        Role::Docs => {
            query.wanted.prose
                || !index.files[hit.file as usize]
                    .as_ref()
                    .is_some_and(|m| super::roles::is_project_prose_file(&m.rel))
        }
        _ => true,
    }
}

/// How much a word of a message tells which file holds it: the idf of its term over chunks, 0
/// for a word the index does not hold (a stop word, a value such as `500`).
fn word_weight(index: &Index, word: &str) -> f32 {
    let n = index.live_chunks.max(1) as f32;
    crate::retrieve::tokenize::terms(word)
        .iter()
        .filter_map(|t| index.terms.get(t.as_str()))
        .map(|id| idf(n, index.postings.len(id) as f32))
        .fold(0.0, f32::max)
}

/// Most top files whose definition lines [`definition_words`] reads: the first three, where
/// the first answer is decided (10 measured the same but for two questions, 0.8976 against
/// 0.8975, and cost about 1 ms of a one-line prompt's warm median).
pub const DEFINITION_WORDS_FILES: usize = 3;
/// A file's score is multiplied by exp(this × the share of the question's words one of its
/// definition lines holds): at most 3%, a tie-break among files the question matches about
/// as well. Measured on the DEV sets (2026-11-28): semble 0.8962 → 0.8976 (0.02: 0.8970,
/// 0.05: 0.8966, 0.1: 0.8947), semble-extra, the commit and bug-report sets unchanged but one
/// commit a place down; leaving one repository out, 38 of 39 folds pick 0.03 over {0, 0.02,
/// 0.03, 0.05}.
pub(crate) const W_DEFINITION_WORDS: f32 = 0.03;

/// Step 9 (needs file text, so the caller runs it): in a one-line question, each of the top
/// [`DEFINITION_WORDS_FILES`] files whose definition line (a line
/// [`definition_name`](crate::retrieve::index::chunk::definition_name) reads as one) holds
/// two or more of the question's words, by the engine's terms, moves up a little by the idf
/// share of the question's words the best such line holds: the question's words together
/// where something is defined, not scattered over the file. Only the files within that
/// factor of a neighbour are read (no other order can change).
pub fn definition_words(index: &mut Index, query: &Query, hits: &mut [FileHit]) {
    let scores: Vec<f32> = hits
        .iter()
        .take(DEFINITION_WORDS_FILES)
        .map(|h| h.score)
        .collect();
    let close = within_reach(&scores);
    definition_words_in(index, query, hits, &close, None);
}

/// Which of the best files' `scores` (best first, at most [`DEFINITION_WORDS_FILES`]) are
/// within exp([`W_DEFINITION_WORDS`]) of a neighbour's: the only ones
/// [`definition_words`] can move, and so the only ones it reads.
pub(crate) fn within_reach(scores: &[f32]) -> Vec<bool> {
    let reach = W_DEFINITION_WORDS.exp();
    (0..scores.len())
        .map(|k| {
            (k > 0 && scores[k - 1] <= scores[k] * reach)
                || (k + 1 < scores.len() && scores[k + 1] * reach >= scores[k])
        })
        .collect()
}

/// [`definition_words`] for hits that may be part of a longer ranking (several roots ranked
/// as one): `read[k]` says whether `hits[k]` is among that ranking's best
/// [`DEFINITION_WORDS_FILES`] and within reach of a neighbour there ([`within_reach`]), and
/// `collection` gives the terms' idfs over all of it.
pub(crate) fn definition_words_in(
    index: &mut Index,
    query: &Query,
    hits: &mut [FileHit],
    read: &[bool],
    collection: Option<&Collection>,
) {
    if query.lines != 1 || !read.contains(&true) {
        return;
    }
    let n = index.live_chunks.max(1) as f32;
    // The question's own terms (not its synonyms) with their idf over chunks, at most 64. The
    // project's name, when it is the question's agent, is not one: it names no file, and the
    // project's own prefix is on most of its definition lines (`struct Curl_easy *data`).
    let agent: Vec<String> = project_agent(index, query)
        .map(|a| crate::retrieve::tokenize::terms(&a))
        .unwrap_or_default();
    let mut terms: Vec<(&str, f32)> = Vec::new();
    for (t, _) in &query.terms {
        if terms.len() == 64 || terms.iter().any(|x| x.0 == t.as_str()) || agent.contains(t) {
            continue;
        }
        let idf_c = match collection {
            Some(c) => c
                .terms
                .iter()
                .find(|x| x.0 == *t && !x.2)
                .map(|x| x.4.chunks),
            None => index
                .terms
                .get(t.as_str())
                .map(|id| live_chunk_df(index, id))
                .filter(|&df| df > 0)
                .map(|df| idf(n, df as f32)),
        };
        if let Some(v) = idf_c {
            terms.push((t.as_str(), v));
        }
    }
    let total: f32 = terms.iter().map(|t| t.1).sum();
    if terms.len() < 2 || total <= 0.0 {
        return;
    }
    // What earlier calls of this generation found in these files for the same terms and
    // idfs: the files are read once, not on every call.
    let mut memo = std::mem::take(&mut index.definition_words);
    memo.begin_with(index.generation, |key| {
        for (t, v) in &terms {
            push_key(key, t);
            key.push_str(&v.to_bits().to_string());
            key.push(';');
        }
    });
    let mut moved = false;
    for (hit, _) in hits.iter_mut().zip(read).filter(|(_, &r)| r) {
        let best = if let Some(&best) = memo.get(hit.file) {
            best
        } else {
            let Some(best) = definition_words_of(index, hit.file, &terms) else {
                continue;
            };
            memo.put_costing(hit.file, best, 32);
            best
        };
        if best > 0.0 {
            let share = best / total;
            scale_hit(hit, (W_DEFINITION_WORDS * share).exp());
            hit.signals.definition_words = share;
            moved = true;
        }
    }
    index.definition_words = memo;
    if moved {
        sort_hits(index, hits);
    }
}

/// The most idf of `terms` that one definition line of file `fid` holds (two or more of
/// them), 0 if none; `None` if the file cannot be read.
fn definition_words_of(index: &mut Index, fid: u32, terms: &[(&str, f32)]) -> Option<f32> {
    let c_family = index.files[fid as usize]
        .as_ref()
        .is_some_and(|m| crate::retrieve::index::chunk::is_c_family(&m.rel));
    let text = index.text(fid)?;
    let mut best = 0.0f32;
    for line in text.lines() {
        if crate::retrieve::index::chunk::definition_name(line, c_family).is_none() {
            continue;
        }
        let mut seen = 0u64;
        crate::retrieve::tokenize::for_each_term(line, |t, _| {
            if let Some(k) = terms.iter().position(|x| x.0 == t) {
                seen |= 1 << k;
            }
        });
        if seen.count_ones() >= 2 {
            let held: f32 = terms
                .iter()
                .enumerate()
                .filter(|(k, _)| seen & (1 << k) != 0)
                .map(|(_, t)| t.1)
                .sum();
            best = best.max(held);
        }
    }
    Some(best)
}

/// How many live chunks hold term `id`: its list's length when every chunk is alive (the
/// usual warm state), counted otherwise, as the ranking counts it.
fn live_chunk_df(index: &Index, id: u32) -> usize {
    if index.live_chunks as usize == index.chunks.len() {
        return index.postings.len(id);
    }
    let mut df = 0usize;
    let chunks = index.chunks.as_ptr();
    index.postings.list(id).for_each_prefetched(
        |p| Some(chunks.wrapping_add(p.chunk as usize)),
        |p| {
            if index.chunks[p.chunk as usize].alive {
                df += 1;
            }
        },
    );
    df
}

/// The longest run of consecutive words of `words` that `line` (lowercase) holds as
/// consecutive words: where it starts in `words`, and its length.
fn longest_run(words: &[String], line: &str) -> (usize, usize) {
    let line_words: Vec<&str> = line
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let mut best = (0, 0);
    // Longest common substring over words; both sides are short.
    let mut prev = vec![0usize; line_words.len() + 1];
    let mut cur = vec![0usize; line_words.len() + 1];
    for (i, w) in words.iter().enumerate() {
        for (j, lw) in line_words.iter().enumerate() {
            cur[j + 1] = if w == lw { prev[j] + 1 } else { 0 };
            if cur[j + 1] > best.1 {
                best = (i + 1 - cur[j + 1], cur[j + 1]);
            }
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    best
}

/// Sorts hits by score, ties by path.
pub(super) fn sort_hits(index: &Index, hits: &mut [FileHit]) {
    let path_of = |h: &FileHit| {
        index.files[h.file as usize]
            .as_ref()
            .map(|m| m.rel.as_str())
    };
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| path_of(a).cmp(&path_of(b)))
    });
}

/// Ranks the files of `index` for `query`; at most `max_files` files, best first, ties broken
/// by path so that equal inputs always give the same order.
#[cfg_attr(not(test), allow(dead_code))] // only the tests call it
pub fn rank(index: &Index, query: &Query, max_files: usize) -> Vec<FileHit> {
    rank_shown(index, query, max_files, max_files)
}

/// [`rank`] for a caller that shows only the best `shown` of the files (the others are
/// candidates of [`exact_definitions`]): priors that only reorder the top are applied to the
/// files that can reach the best `shown`.
pub fn rank_shown(index: &Index, query: &Query, max_files: usize, shown: usize) -> Vec<FileHit> {
    rank_shown_in(index, query, max_files, shown, None)
}

/// [`rank_shown`] with the statistics of a larger `collection` the index is part of (see
/// [`Collection`]) instead of its own, when given.
pub(crate) fn rank_shown_in(
    index: &Index,
    query: &Query,
    max_files: usize,
    shown: usize,
    collection: Option<&Collection>,
) -> Vec<FileHit> {
    rank_with(
        index,
        query,
        max_files,
        shown,
        collection,
        default_pruning(),
    )
}

/// [`Pruning::Auto`], or [`Pruning::Exhaustive`] when the environment variable
/// `CONTEXT_ENGINE_RANKING` is `exhaustive` (or [`Pruning::Pruned`] when it is `pruned`): a
/// check for whoever measures or debugs the ranking (the results are the same), read once
/// per process.
fn default_pruning() -> Pruning {
    static CHOICE: std::sync::OnceLock<Pruning> = std::sync::OnceLock::new();
    *CHOICE.get_or_init(
        || match std::env::var("CONTEXT_ENGINE_RANKING").as_deref() {
            Ok("exhaustive") => Pruning::Exhaustive,
            Ok("pruned") => Pruning::Pruned,
            _ => Pruning::Auto,
        },
    )
}

/// How the candidate stage meets the postings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pruning {
    /// Every posting of every term scored (the reference the pruned ranking must equal).
    Exhaustive,
    /// Dynamic pruning ([`super::prune`]): only the files that can still reach the top.
    Pruned,
    /// Pruned when the prompt's lists are such that it pays ([`super::prune::worth_it`]),
    /// else exhaustive.
    Auto,
}

/// [`rank_shown_in`], the candidate stage chosen by `pruning`; every choice gives the same
/// files in the same order with the same scores. A ranking over a larger collection is
/// exhaustive: the pruning's bounds are made from the index's own statistics.
pub(crate) fn rank_with(
    index: &Index,
    query: &Query,
    max_files: usize,
    shown: usize,
    collection: Option<&Collection>,
    pruning: Pruning,
) -> Vec<FileHit> {
    let terms = match collection {
        Some(c) => c.terms_in(index),
        None => select_terms(index, query),
    };
    let mut scores = Scores::new(index);
    if let Some(c) = collection {
        scores.n_chunks = c.n_chunks;
        scores.n_files = c.n_files;
        scores.avg_chunk = c.avg_chunk;
        scores.avg_file = c.avg_file;
        scores.max_idf = c.max_idf;
    }
    let factors = Factors::new(index, query);
    // Twice the files asked for are selected, so that a demoted header's place can be
    // taken by the next file.
    let (wanted, shown) = (max_files.saturating_mul(2), shown.min(max_files));
    let pruned = collection.is_none()
        && super::prune::applies(&terms)
        && match pruning {
            Pruning::Exhaustive => false,
            Pruning::Pruned => true,
            Pruning::Auto => super::prune::worth_it(index, &terms),
        };
    let scored = if pruned {
        let central = wants_central(query) && shown > 0;
        super::prune::scored_files(
            index,
            query,
            &terms,
            &mut scores,
            &factors,
            super::prune::Keep {
                wanted,
                shown: if central { shown } else { 0 },
            },
        )
    } else {
        scores.add_terms(index, &terms);
        for (k, &t) in terms.iter().enumerate() {
            scores.add_definitions(k, t);
        }
        let scored = scored_files(index, &mut scores, query, &factors);
        #[cfg(test)]
        super::prune::note_scored(scored.0.len());
        scored
    };
    let (mut hits, weighed) =
        collect_hits(index, &scores, query, &factors, scored, (wanted, shown));
    if demote_companion_headers(index, &mut hits) {
        sort_hits(index, &mut hits);
        if wants_central(query) && central_after_demotion(index, &mut hits, &weighed, shown) {
            sort_hits(index, &mut hits);
        }
    }
    hits.truncate(max_files);
    synonym_parts(index, query, &terms, &scores, &mut hits);
    hits
}

/// Fills [`Signals::synonym`] of `hits`: for each of `terms` that is a synonym of a prompt
/// word ([`Query::synonyms`]), its file BM25 and path field in each hit's file, as
/// [`Scores::add_term`] added them to `bm25` and `path`.
fn synonym_parts(
    index: &Index,
    query: &Query,
    terms: &[Term],
    scores: &Scores,
    hits: &mut [FileHit],
) {
    if !query.explain || query.synonyms.is_empty() || hits.is_empty() {
        return;
    }
    let hit_files: rustc_hash::FxHashMap<u32, usize> =
        hits.iter().enumerate().map(|(k, h)| (h.file, k)).collect();
    for term in terms {
        let synonym = query.synonyms.iter().any(|(t, w)| {
            w.to_bits() == term.weight.to_bits() && index.terms.get(t.as_str()) == Some(term.id)
        });
        if !synonym || term.path_only {
            continue;
        }
        let mut files: rustc_hash::FxHashSet<u32> = rustc_hash::FxHashSet::default();
        let mut tf = vec![0f32; hits.len()];
        index.postings.list(term.id).for_each_prefetched(
            |_| None::<*const u8>,
            |p| {
                let c = &index.chunks[p.chunk as usize];
                if !c.alive {
                    return;
                }
                files.insert(c.file);
                if let Some(&k) = hit_files.get(&c.file) {
                    tf[k] += posting_tf(p);
                }
            },
        );
        let idf_f = term
            .shared
            .map_or_else(|| idf(scores.n_files, files.len() as f32), |s| s.files);
        let paths = &index.path_postings[term.id as usize];
        let live = paths
            .iter()
            .filter(|&&f| index.files[f as usize].is_some())
            .count();
        let idf_p = term
            .shared
            .map_or_else(|| idf(scores.n_files, live as f32), |s| s.paths);
        for (k, h) in hits.iter_mut().enumerate() {
            if tf[k] > 0.0 {
                h.signals.synonym += file_bm25(
                    term.weight,
                    idf_f,
                    tf[k],
                    index.file_lens[h.file as usize],
                    scores.avg_file,
                );
            }
            if paths.contains(&h.file) {
                h.signals.synonym += W_PATH * term.weight * idf_p;
            }
        }
    }
}

/// After companion headers were demoted, weighs the [centrality](super::central) prior of
/// the files of `hits` (sorted) that can now be among the best `shown` and were not weighed
/// before (`weighed`, sorted): a file that passes a demoted header must carry its prior as it
/// would if more files had been asked for, or the best files would depend on how many are
/// asked for (curl's `url.c`, 10th of 30 for "how a new easy handle is initialized", was
/// missing from the best 10 behind the header it had passed). True if any score changed.
fn central_after_demotion(
    index: &Index,
    hits: &mut [FileHit],
    weighed: &[u32],
    shown: usize,
) -> bool {
    let Some(kth) = shown
        .checked_sub(1)
        .and_then(|k| hits.get(k))
        .map(|h| h.score)
    else {
        return false;
    };
    let mut central = index
        .central
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut changed = false;
    for hit in hits.iter_mut() {
        if hit.score * (1.0 + W_CENTRAL) < kth {
            break;
        }
        if weighed.binary_search(&hit.file).is_ok() {
            continue;
        }
        let factor = 1.0 + W_CENTRAL * central.of(index, hit.file);
        if factor > 1.0 {
            scale_hit(hit, factor);
            changed = true;
        }
    }
    changed
}

/// A C/C++ header with its implementation beside it declares what the sources define: it
/// counts this fraction of its score. Beside it means a same-stem source file in its folder
/// (`mime.h` and `mime.c`), or a source file of its folder among the ranked files (`urldata.h`,
/// the structs of `url.c`, `transfer.c`...: a question about how something works is answered
/// by the code that does it, and its comments and fields match as many words).
const COMPANION_HEADER: f32 = 0.75;

/// Extensions of C, C++ and Objective-C source files (not headers).
const C_SOURCE_EXTENSIONS: [&str; 6] = ["c", "cc", "cpp", "cxx", "m", "mm"];

/// Whether `path` is a C, C++ or Objective-C source file (not a header).
fn is_c_source(path: &str) -> bool {
    path.rsplit_once('.')
        .is_some_and(|(_, e)| C_SOURCE_EXTENSIONS.contains(&e))
}

/// The folder of a relative path (`""` at the root).
fn folder(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Applies [`COMPANION_HEADER`] to the headers among `hits` with a source file beside them
/// (see there); true if any score changed. Headers without one (a header-only library, a
/// folder of shared headers) keep their score.
fn demote_companion_headers(index: &Index, hits: &mut [FileHit]) -> bool {
    let rel = |h: &FileHit| {
        index.files[h.file as usize]
            .as_ref()
            .map(|m| m.rel.as_str())
    };
    let mut source_folders: Vec<&str> = hits
        .iter()
        .filter_map(rel)
        .filter(|r| is_c_source(r))
        .map(folder)
        .collect();
    source_folders.sort_unstable();
    source_folders.dedup();
    let mut demoted: Vec<usize> = Vec::new();
    for (k, hit) in hits.iter().enumerate() {
        let Some(path) = rel(hit) else {
            continue;
        };
        let Some((stem, ext)) = path.rsplit_once('.') else {
            continue;
        };
        if !matches!(ext, "h" | "hh" | "hpp" | "hxx") {
            continue;
        }
        let beside = source_folders.binary_search(&folder(path)).is_ok()
            || C_SOURCE_EXTENSIONS
                .iter()
                .any(|e| index.by_path.contains_key(&format!("{stem}.{e}")));
        if beside {
            demoted.push(k);
        }
    }
    for &k in &demoted {
        scale_hit(&mut hits[k], COMPANION_HEADER);
    }
    !demoted.is_empty()
}

/// Multiplies a ranked file's score, its chunks' scores and its role factor (where `explain`
/// shows a factor applied after the signals) by `factor`.
fn scale_hit(hit: &mut FileHit, factor: f32) {
    hit.score *= factor;
    hit.signals.role_factor *= factor;
    hit.signals.total = hit.score;
    for c in &mut hit.chunks {
        c.1 *= factor;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `text` to `rel` under `root`, making its folders.
    fn write_file(root: &std::path::Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// The index of `root`, built, without a watcher (each test refreshes it itself).
    fn indexed(root: &std::path::Path) -> Index {
        let mut index = Index::new(crate::fs_scope::Scope::new(root).unwrap(), 1000);
        index.set_watching(false);
        index.refresh(&std::sync::atomic::AtomicUsize::new(0));
        index
    }

    /// A file's id, score bits and chunks (id, score bits).
    type Shown = (u32, u32, Vec<(u32, u32)>);

    /// What a ranking shows, exactly: each file's id, score bits and chunks.
    fn shown(hits: &[FileHit]) -> Vec<Shown> {
        hits.iter()
            .map(|h| {
                let chunks = h.chunks.iter().map(|c| (c.0, c.1.to_bits())).collect();
                (h.file, h.score.to_bits(), chunks)
            })
            .collect()
    }

    /// The exact definitions of a symbol prompt, with what earlier calls kept and with
    /// nothing kept (the files read again).
    fn exact_twice(index: &mut Index, query: &Query) -> (Vec<FileHit>, Vec<FileHit>) {
        let mut kept = rank(index, query, 20);
        exact_definitions(index, query, &mut kept);
        let saved = std::mem::take(&mut index.definitions);
        let mut read = rank(index, query, 20);
        exact_definitions(index, query, &mut read);
        index.definitions = saved;
        (kept, read)
    }

    /// A file edited to define the name a prompt asks for (and the one that defined it, edited
    /// to only call it) is answered from its new text by the next call: what earlier calls
    /// found is not kept across the change, and every call gives what reading the files
    /// again gives.
    #[test]
    fn an_edited_definition_is_seen_by_the_next_call() {
        let dir = tempfile::tempdir().unwrap();
        let write = |rel: &str, text: &str| write_file(dir.path(), rel, text);
        let defines = "int queue_flush(int queue)\n{\n\treturn drain(queue);\n}\n";
        let calls = "static int shutdown(int queue)\n{\n\tqueue_flush(queue);\n\tqueue_flush(queue);\n\treturn queue_flush(queue);\n}\n";
        write("src/alpha.c", defines);
        write("src/beta.c", calls);
        for f in 0..8 {
            write(
                &format!("src/other{f}.c"),
                &format!("int other{f}(int queue)\n{{\n\treturn queue_flush(queue) + {f};\n}}\n"),
            );
        }
        let mut index = indexed(dir.path());
        let query = Query::parse("queue_flush");
        let path =
            |index: &Index, h: &FileHit| index.files[h.file as usize].as_ref().unwrap().rel.clone();
        let (kept, read) = exact_twice(&mut index, &query);
        assert_eq!(shown(&kept), shown(&read));
        assert_eq!(path(&index, &kept[0]), "src/alpha.c");
        assert!(
            index.definitions.bytes() > 0,
            "the definitions found were kept"
        );
        // A second call answers from what was kept, the same.
        let (again, _) = exact_twice(&mut index, &query);
        assert_eq!(shown(&again), shown(&kept));
        // The definition moves to the other file (texts of another length: a new stamp).
        write("src/alpha.c", &format!("{calls}/* moved */\n"));
        write("src/beta.c", &format!("{defines}/* here now */\n"));
        assert!(index.refresh(&std::sync::atomic::AtomicUsize::new(0)) > 0);
        let (kept, read) = exact_twice(&mut index, &query);
        assert_eq!(shown(&kept), shown(&read));
        assert_eq!(path(&index, &kept[0]), "src/beta.c");
    }

    /// A one-line question's definition lines are read from a file's new text by the next
    /// call after an edit; before it, a second call gives what reading the files gives.
    #[test]
    fn definition_words_follow_an_edited_file() {
        let dir = tempfile::tempdir().unwrap();
        let write = |rel: &str, text: &str| write_file(dir.path(), rel, text);
        let plain = |f: usize| {
            format!("int helper{f}(int x)\n{{\n\treturn x + {f}; /* queue flush */\n}}\n")
        };
        for f in 0..6 {
            write(&format!("src/part{f}.c"), &plain(f));
        }
        let mut index = indexed(dir.path());
        let query = Query::parse("where is the queue flush done");
        let words = |index: &mut Index| {
            let mut hits = rank(index, &query, 20);
            let read = vec![true; hits.len()];
            definition_words_in(index, &query, &mut hits, &read, None);
            hits
        };
        let twice = |index: &mut Index| {
            let kept = words(index);
            let saved = std::mem::take(&mut index.definition_words);
            let read = words(index);
            index.definition_words = saved;
            (kept, read)
        };
        let moved = |hits: &[FileHit]| {
            hits.iter()
                .filter(|h| h.signals.definition_words > 0.0)
                .count()
        };
        let (kept, read) = twice(&mut index);
        assert_eq!(shown(&kept), shown(&read));
        assert_eq!(moved(&kept), 0);
        assert!(index.definition_words.bytes() > 0, "what was read was kept");
        // One file now defines the queue's flush on its definition line.
        write(
            "src/part2.c",
            "int queue_flush(int queue)\n{\n\treturn queue; /* flush */\n}\n",
        );
        assert!(index.refresh(&std::sync::atomic::AtomicUsize::new(0)) > 0);
        let (kept, read) = twice(&mut index);
        assert_eq!(shown(&kept), shown(&read));
        assert_eq!(moved(&kept), 1);
    }

    /// However many files and prompts are read, what is kept stays within its bound, and the
    /// last file put is still answered.
    #[test]
    fn kept_definitions_stay_within_their_bound() {
        let mut memo = DefinitionMemo::default();
        let mut most = 0;
        for p in 0..200 {
            let query = Query::parse(&format!("Frobnicate{p} with Widget{p} and Gadget{p}"));
            memo.begin(7, &query);
            for fid in 0..2_000u32 {
                let found = FileDefinitions {
                    best: (1.0, fid as usize),
                    weak: vec![(0.5, 3); query.capitals.len()],
                };
                memo.put(fid, found.clone());
                assert_eq!(memo.get(fid), Some(&found));
                most = most.max(memo.bytes());
                assert!(memo.bytes() <= DEFINITION_MEMO_BYTES);
            }
        }
        assert!(
            most > DEFINITION_MEMO_BYTES / 2,
            "the bound was reached: {most}"
        );
        // Another generation starts empty.
        let query = Query::parse("Frobnicate0");
        memo.begin(8, &query);
        assert_eq!(memo.bytes(), 0);
        assert_eq!(memo.get(0), None);
    }

    /// The table's arrays, to compare a kept table with one made afresh.
    fn table_of(t: &FileTable) -> (Vec<(u32, u32)>, Vec<Role>, Vec<FileKeys>) {
        (t.spans.clone(), t.roles.clone(), t.keys.clone())
    }

    /// Ranking through the dense file table gives what the files' own metadata gives: after
    /// files are removed, rewritten with more chunks and added, the kept table is made again,
    /// and a ranking reads the same spans, roles and keys as a table made from scratch.
    #[test]
    fn file_table_follows_every_added_removed_and_rewritten_file() {
        let dir = tempfile::tempdir().unwrap();
        let write = |rel: &str, text: &str| write_file(dir.path(), rel, text);
        let body = |name: &str, n: usize| -> String {
            (0..n)
                .map(|k| {
                    format!("int {name}_{k}(int queue) {{\n    return flush(queue, {k});\n}}\n\n")
                })
                .collect()
        };
        for f in 0..30 {
            write(
                &format!("src/queue{f}.c"),
                &body(&format!("queue{f}"), 1 + f % 4),
            );
        }
        write("docs/queue.md", "# Queue\n\nHow the queue is flushed.\n");
        write("config/queue.toml", "flush_queue = true\n");
        write("legacy/v1/queue.c", &body("old_queue", 2));
        let mut index = indexed(dir.path());
        let fresh = |index: &Index| table_of(FileTable::default().of(index));
        let query = Query::parse("flush the queue");
        let before = rank(&index, &query, 20);
        assert!(!before.is_empty());
        let kept = table_of(&index.file_table.lock().unwrap());
        assert_eq!(kept, fresh(&index));
        // Removed only: as many file ids as before, one of them empty now.
        std::fs::remove_file(dir.path().join("src/queue3.c")).unwrap();
        assert!(index.refresh(&std::sync::atomic::AtomicUsize::new(0)) > 0);
        assert_eq!(index.files.len(), kept.0.len());
        rank(&index, &query, 20);
        let kept_removed = table_of(&index.file_table.lock().unwrap());
        assert_ne!(
            kept_removed, kept,
            "the removal changed what the table holds"
        );
        assert_eq!(kept_removed, fresh(&index));
        let kept = kept_removed;
        // Rewritten with more chunks, and added.
        write("src/queue7.c", &body("queue7", 12));
        write("src/queue99.c", &body("queue99", 3));
        assert!(index.refresh(&std::sync::atomic::AtomicUsize::new(0)) > 0);
        let after = rank(&index, &query, 20);
        let kept_after = table_of(&index.file_table.lock().unwrap());
        assert_ne!(kept_after, kept, "the edits changed what the table holds");
        assert_eq!(kept_after, fresh(&index));
        // Equal to ranking the same index with a table made for it now.
        *index.file_table.lock().unwrap() = FileTable::default();
        let again = rank(&index, &query, 20);
        assert_eq!(after.len(), again.len());
        for (a, b) in after.iter().zip(&again) {
            assert_eq!((a.file, a.score.to_bits()), (b.file, b.score.to_bits()));
            assert_eq!(a.signals, b.signals);
        }
    }

    #[test]
    fn path_forms_are_stems_before_derivational_endings_and_abbreviations() {
        let none: &[String] = &[];
        assert_eq!(path_forms("connection", none), ["connect", "conn"]);
        assert_eq!(path_forms("statistic", none), ["statist", "stat"]);
        assert_eq!(path_forms("stylesheet", none), ["css"]);
        assert_eq!(path_forms("utility", none), ["util"]);
        assert_eq!(
            path_forms("implementation", none),
            ["implementat", "implement", "impl"]
        );
        assert_eq!(path_forms("configur", none), ["config"]);
        assert_eq!(path_forms("validation", none), ["validat", "valid"]);
        // Stems too short to be the word's, endings that are not derivational.
        assert!(path_forms("servic", none).is_empty());
        assert!(path_forms("router", none).is_empty());
        assert!(path_forms("header", none).is_empty());
        // A short prompt's symbol is meant as typed.
        assert!(path_forms("connection", &["connection".to_owned()]).is_empty());
        assert!(path_forms("generat", none).is_empty());
    }

    #[test]
    fn agent_forms_name_what_does_the_word() {
        let none: &[String] = &[];
        assert_eq!(
            agent_forms("format", none),
            ["formater", "formator", "formatter"]
        );
        assert!(agent_forms("match", none).contains(&"matcher".to_owned()));
        assert!(agent_forms("recovery", none).contains(&"recoverer".to_owned()));
        assert!(agent_forms("regenerat", none).contains(&"regenerator".to_owned()));
        assert!(agent_forms("validat", none).contains(&"validator".to_owned()));
        // Not doubled after two vowels or a w/x/y.
        assert_eq!(agent_forms("stream", none), ["streamer", "streamor"]);
        // Four letters are enough (`merg`, `read`); three are not.
        assert!(agent_forms("merg", none).contains(&"merger".to_owned()));
        assert!(agent_forms("read", none).contains(&"reader".to_owned()));
        // Too short a stem, a word with an underscore, or a short prompt's symbol.
        assert!(agent_forms("run", none).is_empty());
        assert!(agent_forms("snake_case", none).is_empty());
        assert!(agent_forms("format", &["format".to_owned()]).is_empty());
        // After the derivational forms, each once.
        let forms = weighted_path_forms("validation", none);
        assert_eq!(
            forms[0],
            (std::borrow::Cow::Borrowed("validat"), W_PATH_FORM)
        );
        let forms = weighted_path_forms("match", none);
        assert!(forms
            .iter()
            .any(|(f, w)| f == "matcher" && *w == W_AGENT_FORM));
    }

    proptest::proptest! {
        /// The memchr search finds a name exactly where trying every start does.
        #[test]
        fn contains_normalized_agrees_with_trying_every_start(
            line in "[ a-cA-C0-2_(){}]{0,40}",
            name in "[a-c0-2]{1,4}",
        ) {
            let every = (0..line.len()).any(|s| matches_at(line.as_bytes(), s, name.as_bytes()));
            proptest::prop_assert_eq!(contains_normalized(&line, &name), every);
        }
    }

    proptest::proptest! {
        /// Searching a whole text finds the lines that reading it line by line finds.
        #[test]
        fn symbol_lines_agree_with_reading_line_by_line(
            text in "[ a-cA-C0-2_\n(]{0,80}",
            names in proptest::collection::vec("[a-c0-2]{0,3}", 1..3),
        ) {
            let each: Vec<(usize, &str)> = text
                .split('\n')
                .enumerate()
                .filter(|(_, l)| names.iter().any(|s| contains_normalized(l, s)))
                .collect();
            proptest::prop_assert_eq!(symbol_lines(&text, &names), each);
        }

        /// And a text that is not ASCII is read line by line.
        #[test]
        fn symbol_lines_of_a_text_that_is_not_ascii(
            text in "[ aA1_\n(é]{0,40}",
            name in "[a1]{1,2}",
        ) {
            let names = [name];
            let each: Vec<(usize, &str)> = text
                .split('\n')
                .enumerate()
                .filter(|(_, l)| contains_normalized(l, &names[0]))
                .collect();
            proptest::prop_assert_eq!(symbol_lines(&text, &names), each);
        }
    }

    #[test]
    fn contains_normalized_reads_the_line_as_names_are_normalized() {
        let line = "static inline unsigned long copy_from_user(void *to,";
        assert!(contains_normalized(line, "copyfromuser"));
        assert!(contains_normalized(line, "copy"));
        assert!(contains_normalized("class SqlMapper {", "sqlmapper"));
        assert!(contains_normalized("def Sql_Mapper():", "sqlmapper"));
        assert!(!contains_normalized("int main(void) {", "copyfromuser"));
        assert!(!contains_normalized("copy_from_use", "copyfromuser"));
        // Never rules out what it cannot read as ASCII.
        assert!(contains_normalized("fn größe() {", "größe"));
        assert!(contains_normalized("anything", ""));
    }

    /// Every score array, list and unit of `scores` (exact bits).
    fn fingerprint(scores: &Scores) -> Vec<u64> {
        let mut out = Vec::new();
        for v in [
            &scores.chunk,
            &scores.bm25,
            &scores.path,
            &scores.symbol,
            &scores.file_tf,
            &scores.file_tf_upper,
        ] {
            out.push(v.len() as u64);
            out.extend(v.iter().map(|x| u64::from(x.to_bits())));
        }
        out.extend(scores.chunked.iter().map(|&b| u64::from(b)));
        out.extend(
            scores
                .defined
                .iter()
                .map(|&(c, f)| (u64::from(c) << 32) | u64::from(f)),
        );
        out.extend(scores.defined_ends.iter().map(|&e| e as u64));
        out.push(u64::from(scores.max_idf.to_bits()));
        out
    }

    /// Scoring the postings of the two halves of the chunks on two threads gives the bits of
    /// scoring them term by term on one, whatever the prompt and wherever the halves meet
    /// (files of several chunks are cut in two by the middle chunk).
    #[test]
    fn postings_scored_on_two_threads_equal_one_thread() {
        let dir = tempfile::tempdir().unwrap();
        let words = [
            "buffer", "queue", "flush", "device", "driver", "timeout", "read", "write", "lock",
            "page",
        ];
        for f in 0..120usize {
            let mut text = String::new();
            for k in 0..(3 + f % 7) {
                let a = words[(f + k) % words.len()];
                let b = words[(f * 3 + k * 7) % words.len()];
                text.push_str(&format!(
                    "/* {a} the {b} of the {a} */\nint {a}_{b}_{k}(int {b})\n{{\n"
                ));
                for l in 0..(2 + (f + k) % 9) {
                    text.push_str(&format!("    {b} = {a}({b}, {l}); /* {a} {b} {a} */\n"));
                }
                text.push_str("    return 0;\n}\n\n");
            }
            let dir_name = words[f % words.len()];
            std::fs::create_dir_all(dir.path().join(dir_name)).unwrap();
            std::fs::write(dir.path().join(format!("{dir_name}/f{f}.c")), text).unwrap();
        }
        let mut index = Index::new(crate::fs_scope::Scope::new(dir.path()).unwrap(), 1000);
        index.refresh(&std::sync::atomic::AtomicUsize::new(0));
        assert!(index.chunks.len() > 100);
        assert_eq!(index.live_chunks as usize, index.chunks.len());
        let middle = index.chunks.len() / 2;
        // The halves meet inside a file: the case where both threads count the same file.
        assert!((middle - 3..middle + 3).any(|c| index.chunks[c].file == index.chunks[c + 1].file));
        let prompts = [
            "flush the buffer queue",
            "device driver timeout",
            "read_write",
            "lock page buffer device driver queue flush",
            "queue/f3.c flush",
        ];
        let mut walked_on = 0;
        for prompt in prompts {
            let query = Query::parse(prompt);
            let terms = select_terms(&index, &query);
            assert!(!terms.is_empty(), "{prompt}");
            let mut one = Scores::new(&index);
            for &t in &terms {
                one.add_term(&index, t);
            }
            let one = fingerprint(&one);
            let mut two = Scores::new(&index);
            two.add_terms_split(&index, &terms);
            assert_eq!(fingerprint(&two), one, "{prompt}");
            // A real difference shows: a term scored twice changes the bits.
            let mut more = Scores::new(&index);
            more.add_terms_split(&index, &[terms.clone(), vec![terms[0]]].concat());
            assert_ne!(fingerprint(&more), one, "{prompt}");
            // The caller that scores the upper half after its own walks each list on from
            // where the lower half stopped: the same as the second thread decoding it from
            // its start, wherever the halves meet.
            let n = index.chunks.len() as u32;
            let stats = (two.n_chunks, two.avg_chunk);
            let half = |h: &Half| {
                let mut out: Vec<u64> = h
                    .files
                    .iter()
                    .map(|&(f, tf)| (u64::from(f) << 32) | u64::from(tf.to_bits()))
                    .collect();
                out.extend(h.file_ends.iter().map(|&e| e as u64));
                out.extend(
                    h.defined
                        .iter()
                        .map(|&(c, f)| (u64::from(c) << 32) | u64::from(f)),
                );
                out.extend(h.defined_ends.iter().map(|&e| e as u64));
                out
            };
            for split in [0, 1, n / 3, n / 2, n - 1, n] {
                let mut file_tf = vec![0f32; index.files.len()];
                let mut low = vec![0f32; split as usize];
                let (_, rests) = score_postings(
                    &index,
                    &terms,
                    stats,
                    (&mut low, &mut file_tf),
                    0..split,
                    Half::default(),
                    None,
                );
                assert_eq!(rests.len(), terms.len());
                let upper = || vec![0f32; (n - split) as usize];
                let (mut fresh, mut resumed) = (upper(), upper());
                let (a, _) = score_postings(
                    &index,
                    &terms,
                    stats,
                    (&mut fresh, &mut file_tf),
                    split..u32::MAX,
                    Half::default(),
                    None,
                );
                let (b, _) = score_postings(
                    &index,
                    &terms,
                    stats,
                    (&mut resumed, &mut file_tf),
                    split..u32::MAX,
                    Half::default(),
                    Some(rests),
                );
                assert_eq!(half(&b), half(&a), "{prompt} split at {split}");
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&resumed), bits(&fresh), "{prompt} split at {split}");
                assert!(file_tf.iter().all(|&x| x == 0.0));
                if !b.files.is_empty() && resumed.iter().any(|&x| x > 0.0) {
                    walked_on += 1;
                }
            }
        }
        // Lists were walked on from a split point (not only ones that ended below it).
        assert!(walked_on >= 10, "{walked_on}");
    }
}
