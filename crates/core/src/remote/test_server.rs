//! Local HTTP servers for the tests, on 127.0.0.1 only: a raw tokio server whose replies can be
//! ordinary, slow, never sent, truncated or huge; a Gitea that follows the fixture notes; and a
//! Hound that replays the recorded fixtures byte for byte and answers the fallback's
//! empty-query searches from the fixture repositories the way the real server does.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    /// Path and query, as sent.
    pub target: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }
    /// Decoded query pairs.
    pub fn query(&self) -> Vec<(String, String)> {
        match self.target.split_once('?') {
            Some((_, q)) => url_query(q),
            None => Vec::new(),
        }
    }
}

pub fn url_query(q: &str) -> Vec<(String, String)> {
    reqwest::Url::parse(&format!("http://x/?{q}"))
        .map(|u| {
            u.query_pairs()
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect()
        })
        .unwrap_or_default()
}

/// What the server does with a request.
pub enum Reply {
    /// A complete response.
    Full {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// The same after a delay.
    Delayed(Duration, Box<Reply>),
    /// Reads the request and never answers (the connection stays open).
    Hang,
    /// Declares `declared` bytes, sends `body` (shorter) and closes.
    Truncated { declared: usize, body: Vec<u8> },
    /// A `text/plain` body of `total` bytes made of `line` repeated, streamed.
    Huge { total: u64, line: Vec<u8> },
}

impl Reply {
    pub fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Reply {
        Reply::Full {
            status,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: body.into(),
        }
    }
    pub fn json(status: u16, body: &str) -> Reply {
        Reply::new(status, "application/json;charset=utf-8", body)
    }
    pub fn redirect(status: u16, location: &str) -> Reply {
        Reply::Full {
            status,
            headers: vec![("Location".into(), location.into())],
            body: Vec::new(),
        }
    }
}

type Handler = dyn Fn(&Seen) -> Reply + Send + Sync;

/// A running server; stops when dropped.
pub struct Server {
    pub port: u16,
    pub seen: Arc<Mutex<Vec<Seen>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Server {
    pub async fn start(handler: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let seen2 = seen.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let handler = handler.clone();
                let seen = seen2.clone();
                tokio::spawn(async move {
                    let _ = serve(stream, handler, seen).await;
                });
            }
        });
        Server { port, seen, task }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

async fn serve(
    mut stream: TcpStream,
    handler: Arc<Handler>,
    seen: Arc<Mutex<Vec<Seen>>>,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 4096];
    let head_end = loop {
        let n = stream.read(&mut tmp).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&tmp[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        if buf.len() > 1 << 16 {
            return Ok(());
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or("").split(' ');
    let method = first.next().unwrap_or("").to_owned();
    let target = first.next().unwrap_or("").to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let request = Seen {
        method,
        target,
        headers,
    };
    seen.lock().unwrap().push(request.clone());
    let mut reply = handler(&request);
    loop {
        match reply {
            Reply::Delayed(d, inner) => {
                tokio::time::sleep(d).await;
                reply = *inner;
            }
            Reply::Hang => {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                return Ok(());
            }
            Reply::Full {
                status,
                headers,
                body,
            } => {
                let mut head = format!(
                    "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n",
                    body.len()
                );
                for (k, v) in headers {
                    head.push_str(&format!("{k}: {v}\r\n"));
                }
                head.push_str("\r\n");
                stream.write_all(head.as_bytes()).await?;
                stream.write_all(&body).await?;
                return stream.shutdown().await;
            }
            Reply::Truncated { declared, body } => {
                let head = format!("HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {declared}\r\nConnection: close\r\n\r\n");
                stream.write_all(head.as_bytes()).await?;
                stream.write_all(&body).await?;
                return stream.shutdown().await;
            }
            Reply::Huge { total, line } => {
                let head = format!("HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {total}\r\nConnection: close\r\n\r\n");
                stream.write_all(head.as_bytes()).await?;
                let block: Vec<u8> = line
                    .iter()
                    .copied()
                    .cycle()
                    .take(64 * 1024 / line.len() * line.len())
                    .collect();
                let mut sent = 0u64;
                while sent < total {
                    let n = block.len().min((total - sent) as usize);
                    stream.write_all(&block[..n]).await?;
                    sent += n as u64;
                }
                return stream.shutdown().await;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Fixtures

pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/remote")
}

pub fn hound_dir() -> PathBuf {
    fixtures().join("hound")
}

/// One recorded Hound case.
#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    pub method: String,
    pub url: String,
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
    pub form: Option<String>,
}

pub fn hound_cases() -> Vec<Case> {
    let dir = hound_dir();
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("index.json")).unwrap()).unwrap();
    index["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Case {
            name: c["name"].as_str().unwrap().to_owned(),
            method: c["method"].as_str().unwrap().to_owned(),
            url: c["url"].as_str().unwrap().to_owned(),
            status: c["status"].as_u64().unwrap() as u16,
            content_type: c["content_type"].as_str().unwrap().to_owned(),
            body: std::fs::read(dir.join(c["file"].as_str().unwrap())).unwrap(),
            form: c["body"].as_str().map(str::to_owned),
        })
        .collect()
}

pub fn case(name: &str) -> Case {
    hound_cases().into_iter().find(|c| c.name == name).unwrap()
}

/// Sorted parameters, Hound's booleans (`true`, `1`, `fosho`, any case) spelled `true`.
fn sorted(pairs: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = pairs
        .into_iter()
        .map(|(k, v)| {
            let truthy = matches!(v.to_ascii_lowercase().as_str(), "true" | "1" | "fosho");
            if matches!(k.as_str(), "i" | "literal" | "stats") {
                (
                    k,
                    if truthy {
                        "true".into()
                    } else {
                        "false".into()
                    },
                )
            } else {
                (k, v)
            }
        })
        .collect();
    pairs.sort();
    pairs
}

#[derive(serde::Serialize)]
struct GoMatch<'a> {
    #[serde(rename = "Line")]
    line: &'a str,
    #[serde(rename = "LineNumber")]
    line_number: usize,
    #[serde(rename = "Before")]
    before: [&'a str; 0],
    #[serde(rename = "After")]
    after: [&'a str; 0],
}

#[derive(serde::Serialize)]
struct GoFile<'a> {
    #[serde(rename = "Filename")]
    filename: String,
    #[serde(rename = "Matches")]
    matches: Vec<GoMatch<'a>>,
    #[serde(rename = "AutoGenerated")]
    auto_generated: bool,
}

#[derive(serde::Serialize)]
struct GoRepo<'a> {
    #[serde(rename = "Matches")]
    matches: Vec<GoFile<'a>>,
    #[serde(rename = "FilesWithMatch")]
    files_with_match: usize,
    #[serde(rename = "Revision")]
    revision: String,
}

#[derive(serde::Serialize)]
struct GoResults<'a> {
    #[serde(rename = "Results")]
    results: BTreeMap<String, GoRepo<'a>>,
}

/// The indexed revision of each fixture repository.
pub fn revisions() -> BTreeMap<String, String> {
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(hound_dir().join("index.json")).unwrap()).unwrap();
    index["repos"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v["revision"].as_str().unwrap().to_owned()))
        .collect()
}

/// Encodes like Go's `encoding/json` for strings: `<`, `>`, `&` as `\u003c`...
fn go_json(value: &impl serde::Serialize) -> Vec<u8> {
    let s = serde_json::to_string(value).unwrap();
    s.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
        .into_bytes()
}

fn files_of(root: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.push(
                    p.strip_prefix(root)
                        .unwrap()
                        .to_string_lossy()
                        .replace('\\', "/"),
                );
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

/// Answers `q=` (empty: every line matches) with `ctx=0` from the fixture repositories, as
/// houndd does: index order, one match per line, `limit` per repo, binary files not indexed,
/// repos without a match omitted. `None` if the request is not such a search.
pub fn hound_empty_query(params: &[(String, String)]) -> Option<Vec<u8>> {
    let get = |k: &str| params.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    if get("q") != Some("") || get("ctx") != Some("0") {
        return None;
    }
    let revisions = revisions();
    let repos: Vec<String> = match get("repos").unwrap_or("") {
        "*" => revisions.keys().cloned().collect(),
        "" => Vec::new(),
        list => list
            .split(',')
            .filter(|r| revisions.contains_key(*r))
            .map(str::to_owned)
            .collect(),
    };
    let files_re = get("files").map(|f| regex::Regex::new(f).unwrap());
    let limit: usize = get("limit").and_then(|l| l.parse().ok()).unwrap_or(5000);
    let mut texts: Vec<(String, String, String)> = Vec::new();
    for repo in &repos {
        let root = hound_dir().join("repos").join(repo);
        for rel in files_of(&root) {
            if files_re.as_ref().is_some_and(|re| !re.is_match(&rel)) {
                continue;
            }
            let bytes = std::fs::read(root.join(&rel)).unwrap();
            let Ok(text) = String::from_utf8(bytes) else {
                continue;
            };
            if !text.contains('\0') {
                texts.push((repo.clone(), rel, text));
            }
        }
    }
    let mut results = BTreeMap::new();
    for repo in &repos {
        let mut files = Vec::new();
        let mut count = 0usize;
        for (_, rel, text) in texts.iter().filter(|(r, _, _)| r == repo) {
            if limit > 0 && count >= limit {
                break;
            }
            let mut lines: Vec<&str> = text.split('\n').collect();
            if text.ends_with('\n') || text.is_empty() {
                lines.pop();
            }
            let mut matches = Vec::new();
            for (i, line) in lines.into_iter().enumerate() {
                if limit > 0 && count >= limit {
                    break;
                }
                count += 1;
                matches.push(GoMatch {
                    line,
                    line_number: i + 1,
                    before: [],
                    after: [],
                });
            }
            if !matches.is_empty() {
                files.push(GoFile {
                    filename: rel.clone(),
                    matches,
                    auto_generated: repo == "alpha" && rel.starts_with("gen/"),
                });
            }
        }
        if !files.is_empty() {
            let files_with_match = files.len();
            results.insert(
                repo.clone(),
                GoRepo {
                    matches: files,
                    files_with_match,
                    revision: revisions[repo].clone(),
                },
            );
        }
    }
    let mut body = go_json(&GoResults { results });
    body.push(b'\n');
    Some(body)
}

/// A Hound that replays the recorded fixtures (matched on method, path and the set of
/// parameters) and answers empty-query searches from the repositories.
pub fn hound_handler() -> impl Fn(&Seen) -> Reply + Send + Sync + 'static {
    let cases = hound_cases();
    move |req: &Seen| {
        let params = sorted(req.query());
        for c in &cases {
            let (path, query) = c.url.split_once('?').unwrap_or((&c.url, ""));
            let case_params = sorted(url_query(query));
            if c.form.is_none()
                && c.method == req.method
                && path == req.path()
                && case_params == params
            {
                return Reply::Full {
                    status: c.status,
                    headers: vec![
                        ("Content-Type".into(), c.content_type.clone()),
                        ("Access-Control-Allow-Origin".into(), "*".into()),
                    ],
                    body: c.body.clone(),
                };
            }
        }
        if req.path() == "/api/v1/search" {
            if let Some(body) = hound_empty_query(&params) {
                return Reply::json(200, std::str::from_utf8(&body).unwrap());
            }
        }
        Reply::new(404, "text/plain; charset=utf-8", "404 page not found\n")
    }
}

// ---------------------------------------------------------------------------------------------
// Gitea

/// A file tree per ref (of the fake Gitea and the fake GitHub).
#[derive(Debug, Clone, Default)]
pub struct FakeRepo {
    pub default_branch: String,
    pub private: bool,
    pub branches: BTreeMap<String, Tree>,
    pub tags: BTreeMap<String, Tree>,
    pub commits: BTreeMap<String, Tree>,
}

impl FakeRepo {
    /// A public repository whose default branch `default` holds `trunk`, with a branch
    /// `feature/x`, a tag `v1.0` and the commit `sha`, each holding its own tree.
    pub fn with_refs(
        default: &str,
        trunk: Tree,
        [feature, tag, commit]: [Tree; 3],
        sha: &str,
    ) -> FakeRepo {
        FakeRepo {
            default_branch: default.into(),
            private: false,
            branches: [
                (default.to_owned(), trunk),
                ("feature/x".to_owned(), feature),
            ]
            .into(),
            tags: [("v1.0".to_owned(), tag)].into(),
            commits: [(sha.to_owned(), commit)].into(),
        }
    }

    /// A private repository with one branch, `main`, holding `tree`.
    pub fn private_main(tree: Tree) -> FakeRepo {
        FakeRepo {
            default_branch: "main".into(),
            private: true,
            branches: [("main".to_owned(), tree)].into(),
            ..FakeRepo::default()
        }
    }
}

/// A Gitea following the fixture notes: token auth (401 for a wrong token; a private repo
/// without access is 404), the repo/branches/tags API, and `/raw/*` with Gitea's ref
/// resolution, including the silent fallback to the default branch for unknown refs.
pub struct FakeGitea {
    pub token: String,
    pub repos: HashMap<String, FakeRepo>,
}

fn not_found() -> Reply {
    Reply::json(
        404,
        "{\"message\":\"not found\",\"url\":\"http://127.0.0.1/api/swagger\"}",
    )
}

impl FakeGitea {
    fn authed(&self, req: &Seen) -> Result<bool, Reply> {
        let Some(value) = req.header("authorization") else {
            return Ok(false);
        };
        let parts: Vec<&str> = value.split_whitespace().collect();
        if parts.len() == 2
            && (parts[0].eq_ignore_ascii_case("token") || parts[0].eq_ignore_ascii_case("bearer"))
            && parts[1] == self.token
        {
            return Ok(true);
        }
        Err(Reply::json(401, "{\"message\":\"invalid username, password or token\",\"url\":\"http://127.0.0.1/api/swagger\"}"))
    }

    pub fn handle(&self, req: &Seen) -> Reply {
        let authed = match self.authed(req) {
            Ok(a) => a,
            Err(reply) => return reply,
        };
        let path = req.path();
        let decoded: Vec<String> = path.split('/').map(percent_decode).collect();
        // ["", "api", "v1", "repos", owner, repo, ...]
        if decoded.len() < 6 || decoded[1] != "api" || decoded[2] != "v1" || decoded[3] != "repos" {
            return not_found();
        }
        let key = format!("{}/{}", decoded[4], decoded[5]);
        let Some(repo) = self.repos.get(&key) else {
            return not_found();
        };
        if repo.private && !authed {
            return not_found();
        }
        let rest = &decoded[6..];
        match rest.first().map(String::as_str) {
            None => Reply::json(
                200,
                &serde_json::json!({"full_name": key, "default_branch": repo.default_branch, "empty": false, "private": repo.private}).to_string(),
            ),
            Some("branches") => match repo.branches.get(&rest[1..].join("/")) {
                Some(_) => Reply::json(200, &serde_json::json!({"name": rest[1..].join("/")}).to_string()),
                None => not_found(),
            },
            Some("tags") => match repo.tags.get(&rest[1..].join("/")) {
                Some(_) => Reply::json(200, &serde_json::json!({"name": rest[1..].join("/")}).to_string()),
                None => not_found(),
            },
            Some("raw") => {
                let wildcard = rest[1..].join("/");
                let query = req.query();
                let r = query.iter().find(|(k, _)| k == "ref").map(|(_, v)| v.trim().to_owned());
                let joined = match &r {
                    Some(r) if !r.is_empty() => format!("{r}/{wildcard}"),
                    _ => wildcard.clone(),
                };
                let (tree, file) = match resolve(repo, &joined) {
                    Some(Some(found)) => found,
                    // A full-length SHA that is not a commit: "unable to find a git ref".
                    Some(None) => return Reply::json(404, "{\"message\":\"unable to find a git ref\",\"url\":\"http://127.0.0.1/api/swagger\"}"),
                    // Gitea's FIXME: anything else silently serves the default branch.
                    None => (&repo.branches[&repo.default_branch], wildcard.clone()),
                };
                match tree.get(&file) {
                    Some(bytes) => raw_reply(&file, bytes),
                    None => not_found(),
                }
            }
            _ => not_found(),
        }
    }
}

pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Gitea's prefix walk: shortest branch prefix, then tag, then a full-length SHA; `HEAD` is the
/// default branch.
pub type Tree = BTreeMap<String, Vec<u8>>;

/// `None`: no ref recognised; `Some(None)`: a full SHA that is not a commit.
#[allow(clippy::option_option)]
fn resolve<'a>(repo: &'a FakeRepo, joined: &str) -> Option<Option<(&'a Tree, String)>> {
    let segments: Vec<&str> = joined.split('/').collect();
    if segments[0] == "HEAD" {
        return Some(Some((
            &repo.branches[&repo.default_branch],
            segments[1..].join("/"),
        )));
    }
    for map in [&repo.branches, &repo.tags] {
        for i in 1..segments.len() {
            if let Some(tree) = map.get(&segments[..i].join("/")) {
                return Some(Some((tree, segments[i..].join("/"))));
            }
        }
    }
    let first = segments[0];
    if first.len() == 40
        && first
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    {
        return Some(
            repo.commits
                .get(first)
                .map(|tree| (tree, segments[1..].join("/"))),
        );
    }
    None
}

fn raw_reply(file: &str, bytes: &[u8]) -> Reply {
    let sample = &bytes[..bytes.len().min(1024)];
    let content_type = if sample.starts_with(b"\x89PNG") {
        "image/png"
    } else if sample.contains(&0) {
        "application/octet-stream"
    } else {
        "text/plain; charset=utf-8"
    };
    let base = file.rsplit('/').next().unwrap_or(file);
    Reply::Full {
        status: 200,
        headers: vec![
            ("Content-Type".into(), content_type.into()),
            ("X-Content-Type-Options".into(), "nosniff".into()),
            (
                "Content-Security-Policy".into(),
                "default-src 'none'; style-src 'unsafe-inline'; sandbox".into(),
            ),
            (
                "Content-Disposition".into(),
                format!("inline; filename=\"{base}\""),
            ),
            (
                "Access-Control-Expose-Headers".into(),
                "Content-Disposition".into(),
            ),
            (
                "ETag".into(),
                "\"0123456789abcdef0123456789abcdef01234567\"".into(),
            ),
            ("Cache-Control".into(), "private, max-age=300".into()),
            ("X-Gitea-Object-Type".into(), "file".into()),
        ],
        body: bytes.to_vec(),
    }
}
