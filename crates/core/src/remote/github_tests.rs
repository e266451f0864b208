//! Tests of the GitHub client against a local server on 127.0.0.1 that answers as GitHub's
//! documented REST API does ("Repository contents", "Branches", "Git references", "Commits",
//! "Rate limits"): base64 JSON contents up to 1 MB, `encoding: "none"` above it with the bytes
//! behind the raw media type, 404 for unknown refs and private repositories, 401 for a bad
//! token, 403/429 rate limits with their headers.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;

use super::test_server::*;
use super::*;
use crate::ErrorKind;

const TOKEN: &str = "ghp_l0cal-test-t0ken-0123456789abcdef";
const SHA: &str = "0123456789abcdef0123456789abcdef01234567";
const ONE_MB: usize = 1024 * 1024;

/// GitHub as its REST documentation describes it, under the Enterprise prefix `/api/v3`.
struct FakeGitHub {
    repos: BTreeMap<String, FakeRepo>,
    /// Repository requests answered (`GET /repos/{owner}/{repo}`), to see the cache work.
    repo_lookups: Arc<AtomicUsize>,
}

fn gh_error(status: u16, message: &str) -> Reply {
    Reply::json(
        status,
        &serde_json::json!({
            "message": message,
            "documentation_url": "https://docs.github.com/rest",
            "status": status.to_string(),
        })
        .to_string(),
    )
}

/// Base64 as GitHub sends it: a newline after every 60 characters.
fn github_base64(bytes: &[u8]) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
    let mut out = String::new();
    for (i, c) in b64.chars().enumerate() {
        if i > 0 && i % 60 == 0 {
            out.push('\n');
        }
        out.push(c);
    }
    out.push('\n');
    out
}

impl FakeGitHub {
    fn handle(&self, req: &Seen) -> Reply {
        let authed = match req.header("authorization") {
            None => false,
            Some(v) => {
                let parts: Vec<&str> = v.split_whitespace().collect();
                if parts.len() == 2
                    && (parts[0] == "token" || parts[0] == "Bearer")
                    && parts[1] == TOKEN
                {
                    true
                } else {
                    return gh_error(401, "Bad credentials");
                }
            }
        };
        let path = req.path();
        let Some(rest) = path.strip_prefix("/api/v3/repos/") else {
            return gh_error(404, "Not Found");
        };
        let segments: Vec<String> = rest.split('/').map(decode).collect();
        if segments.len() < 2 {
            return gh_error(404, "Not Found");
        }
        let key = format!("{}/{}", segments[0], segments[1]);
        match key.as_str() {
            "acme/limited" => {
                return Reply::Full {
                    status: 403,
                    headers: vec![
                        ("Content-Type".into(), "application/json".into()),
                        ("x-ratelimit-limit".into(), "60".into()),
                        ("x-ratelimit-remaining".into(), "0".into()),
                        ("x-ratelimit-reset".into(), "1700000000".into()),
                    ],
                    body: br#"{"message":"API rate limit exceeded for 127.0.0.1."}"#.to_vec(),
                }
            }
            "acme/secondary" => {
                return Reply::Full {
                    status: 429,
                    headers: vec![
                        ("Content-Type".into(), "application/json".into()),
                        ("retry-after".into(), "60".into()),
                    ],
                    body: br#"{"message":"You have exceeded a secondary rate limit."}"#.to_vec(),
                }
            }
            "acme/forbidden" => return gh_error(403, "Resource not accessible by integration"),
            "acme/down" => return gh_error(503, "Service unavailable"),
            _ => {}
        }
        let Some(repo) = self.repos.get(&key) else {
            return gh_error(404, "Not Found");
        };
        if repo.private && !authed {
            return gh_error(404, "Not Found");
        }
        let rest = &segments[2..];
        let raw = req
            .header("accept")
            .is_some_and(|a| a.contains("application/vnd.github.raw"));
        match rest.first().map(String::as_str) {
            None => {
                self.repo_lookups.fetch_add(1, Ordering::SeqCst);
                Reply::json(
                    200,
                    &serde_json::json!({
                        "full_name": key, "private": repo.private,
                        "default_branch": repo.default_branch,
                    })
                    .to_string(),
                )
            }
            Some("branches") => match repo.branches.get(&rest[1..].join("/")) {
                Some(_) => Reply::json(
                    200,
                    &serde_json::json!({"name": rest[1..].join("/")}).to_string(),
                ),
                None => gh_error(404, "Branch not found"),
            },
            Some("git")
                if rest.get(1).map(String::as_str) == Some("ref")
                    && rest.get(2).map(String::as_str) == Some("tags") =>
            {
                match repo.tags.get(&rest[3..].join("/")) {
                    Some(_) => Reply::json(
                        200,
                        &serde_json::json!({"ref": format!("refs/tags/{}", rest[3..].join("/"))})
                            .to_string(),
                    ),
                    None => gh_error(404, "Not Found"),
                }
            }
            Some("commits") => {
                let wanted = rest[1..].join("/");
                match repo
                    .commits
                    .keys()
                    .find(|sha| wanted.len() >= 7 && sha.starts_with(&wanted))
                {
                    Some(sha) => Reply::json(200, &serde_json::json!({"sha": sha}).to_string()),
                    None => gh_error(422, &format!("No commit found for SHA: {wanted}")),
                }
            }
            Some("contents") => {
                let file = rest[1..].join("/");
                let query = req.query();
                let r = query
                    .iter()
                    .find(|(k, _)| k == "ref")
                    .map_or(repo.default_branch.clone(), |(_, v)| v.clone());
                let tree = repo
                    .branches
                    .get(&r)
                    .or_else(|| repo.tags.get(&r))
                    .or_else(|| repo.commits.get(&r));
                let Some(tree) = tree else {
                    return gh_error(404, &format!("No commit found for the ref {r}"));
                };
                if let Some(bytes) = tree.get(&file) {
                    if raw {
                        return Reply::new(
                            200,
                            "application/vnd.github.raw+json; charset=utf-8",
                            bytes.clone(),
                        );
                    }
                    let large = bytes.len() > ONE_MB;
                    return Reply::json(
                        200,
                        &serde_json::json!({
                            "type": "file", "name": file.rsplit('/').next(), "path": file,
                            "size": bytes.len(), "sha": "f".repeat(40),
                            "encoding": if large { "none" } else { "base64" },
                            "content": if large { String::new() } else { github_base64(bytes) },
                        })
                        .to_string(),
                    );
                }
                let prefix = format!("{file}/");
                let entries: Vec<_> = tree
                    .keys()
                    .filter(|k| k.starts_with(&prefix))
                    .map(|k| serde_json::json!({"type": "file", "path": k}))
                    .collect();
                if entries.is_empty() {
                    gh_error(404, "Not Found")
                } else {
                    Reply::json(200, &serde_json::Value::Array(entries).to_string())
                }
            }
            _ => gh_error(404, "Not Found"),
        }
    }
}

fn decode(s: &str) -> String {
    reqwest::Url::parse(&format!("http://x/{s}"))
        .ok()
        .and_then(|u| {
            u.path_segments()
                .and_then(|mut p| p.next().map(str::to_owned))
        })
        .map(|p| percent_decode(&p))
        .unwrap_or_default()
}

fn numbered(n: usize, prefix: &str) -> Vec<u8> {
    (1..=n)
        .map(|i| format!("{prefix} line {i}\n"))
        .collect::<String>()
        .into_bytes()
}

/// `acme/alpha` (default branch `trunk`, never `main`), `acme/private`.
async fn github() -> (Server, Arc<AtomicUsize>) {
    let mut trunk = Tree::new();
    trunk.insert("src/app.ts".into(), numbered(40, "trunk"));
    trunk.insert("src/crlf.py".into(), b"a = 1\r\nb = 2\r\n".to_vec());
    // Over 1 MB: GitHub answers `encoding: "none"` and the raw media type serves it.
    let big: Vec<u8> = (1..=60_000)
        .map(|i| format!("big file line {i:08}\n"))
        .collect::<String>()
        .into_bytes();
    assert!(big.len() > ONE_MB);
    trunk.insert("data/big.txt".into(), big);
    trunk.insert(
        "img/logo.png".into(),
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec(),
    );
    trunk.insert(
        "config/keys.ts".into(),
        b"const a = 1;\nconst key = \"ghp_R8sK2mQ9vX4tL7wN1pZ6cB3yH5jF0dG8eA2u\";\n".to_vec(),
    );
    let mut feature = trunk.clone();
    feature.insert("src/app.ts".into(), numbered(5, "feature"));
    let mut tag = trunk.clone();
    tag.insert("src/app.ts".into(), numbered(5, "tag"));
    let mut commit = trunk.clone();
    commit.insert("src/app.ts".into(), numbered(5, "commit"));
    let alpha = FakeRepo::with_refs("trunk", trunk.clone(), [feature, tag, commit], SHA);
    let private = FakeRepo::private_main(trunk);
    let lookups = Arc::new(AtomicUsize::new(0));
    let fake = FakeGitHub {
        repos: [
            ("acme/alpha".to_owned(), alpha),
            ("acme/private".to_owned(), private),
        ]
        .into(),
        repo_lookups: lookups.clone(),
    };
    (Server::start(move |req| fake.handle(req)).await, lookups)
}

fn client(server: &Server, token: Option<&str>) -> GitHubClient {
    GitHubClient::new(GitHubConfig {
        base_url: format!("{}/api/v3", server.url()),
        token: token.map(|t| Token::new(t).unwrap()),
        timeout: Duration::from_secs(5),
        max_bytes: DEFAULT_MAX_BYTES,
        ..GitHubConfig::default()
    })
    .unwrap()
}

fn req(
    repo: &str,
    file: &str,
    line: usize,
    context: usize,
    r#ref: Option<&str>,
) -> FileContextRequest {
    FileContextRequest {
        repo: repo.into(),
        file: file.into(),
        line,
        context: Some(context),
        r#ref: r#ref.map(str::to_owned),
    }
}

async fn context(c: &GitHubClient, r: &FileContextRequest) -> crate::Result<FileContextResult> {
    remote_file_context_on(r, CodeHost::GitHub(c), None).await
}

fn assert_no_token(e: &crate::Error) {
    assert!(!e.message().contains(TOKEN), "token in {}", e.message());
    assert!(!format!("{e:?}").contains(TOKEN));
}

#[tokio::test]
async fn github_context_from_base64_contents_on_the_default_branch() {
    let (server, lookups) = github().await;
    let c = client(&server, Some(TOKEN));
    let r = context(&c, &req("acme/alpha", "src/app.ts", 10, 2, None))
        .await
        .unwrap();
    assert_eq!(r.source, Source::GitHub);
    assert_eq!(r.source.as_str(), "github");
    assert_eq!((r.r#ref.as_str(), r.ref_kind), ("trunk", RefKind::Branch));
    assert_eq!((r.start_line, r.end_line), (8, 12));
    assert_eq!(
        r.lines,
        [
            "trunk line 8",
            "trunk line 9",
            "trunk line 10",
            "trunk line 11",
            "trunk line 12"
        ]
    );
    assert_eq!(r.content.lines().nth(2), Some(">10 | trunk line 10"));
    assert_eq!(r.total_lines, Some(40));
    // Web link under the Enterprise web root (the API's `/api/v3` removed).
    assert_eq!(
        r.url,
        format!("{}/acme/alpha/blob/trunk/src/app.ts#L8-L12", server.url())
    );
    assert!(!r.url.contains("api/v3"));

    // Every request carried the token and the API's JSON media type; the base64 form was enough.
    for seen in server.requests() {
        assert_eq!(
            seen.header("authorization"),
            Some(format!("token {TOKEN}").as_str())
        );
        assert_eq!(seen.header("accept"), Some("application/vnd.github+json"));
        assert_eq!(seen.header("x-github-api-version"), Some("2022-11-28"));
        assert!(!seen.target.contains(TOKEN));
    }

    // The default branch is looked up once and remembered.
    assert_eq!(lookups.load(Ordering::SeqCst), 1);
    let again = context(&c, &req("acme/alpha", "src/crlf.py", 1, 5, None))
        .await
        .unwrap();
    assert_eq!(again.lines, ["a = 1", "b = 2"]);
    assert_eq!(again.total_lines, Some(2));
    assert_eq!(lookups.load(Ordering::SeqCst), 1);

    // The whole file, too.
    let text = c
        .get_raw_file("acme/alpha", "src/crlf.py", None)
        .await
        .unwrap();
    assert_eq!(text, "a = 1\r\nb = 2\r\n");
}

#[tokio::test]
async fn files_over_one_megabyte_come_through_the_raw_media_type_streamed() {
    let (server, _) = github().await;
    let c = client(&server, None);
    let r = context(&c, &req("acme/alpha", "data/big.txt", 30_000, 1, None))
        .await
        .unwrap();
    assert_eq!(
        r.lines,
        [
            "big file line 00029999",
            "big file line 00030000",
            "big file line 00030001"
        ]
    );
    // Reading stopped after the window: the file's length is unknown.
    assert_eq!(r.total_lines, None);
    let contents: Vec<Seen> = server
        .requests()
        .into_iter()
        .filter(|s| s.path().contains("/contents/"))
        .collect();
    assert_eq!(contents.len(), 2);
    assert_eq!(
        contents[0].header("accept"),
        Some("application/vnd.github+json")
    );
    assert_eq!(
        contents[1].header("accept"),
        Some("application/vnd.github.raw+json")
    );
    assert!(contents[1]
        .target
        .ends_with("/contents/data/big.txt?ref=trunk"));

    let whole = c
        .get_raw_file("acme/alpha", "data/big.txt", None)
        .await
        .unwrap();
    assert_eq!(whole.lines().count(), 60_000);
    // The byte cap holds for the raw form too.
    let capped = GitHubClient::new(GitHubConfig {
        base_url: format!("{}/api/v3", server.url()),
        max_bytes: 2 * ONE_MB as u64 - 1,
        ..GitHubConfig::default()
    })
    .unwrap();
    assert!(capped
        .get_raw_file("acme/alpha", "data/big.txt", None)
        .await
        .is_ok());
    let tiny = GitHubClient::new(GitHubConfig {
        base_url: format!("{}/api/v3", server.url()),
        max_bytes: 1000,
        ..GitHubConfig::default()
    })
    .unwrap();
    let e = tiny
        .get_raw_file("acme/alpha", "data/big.txt", None)
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    assert!(e.message().contains("maxBytes"), "{}", e.message());
    assert_eq!(e.reason(), Some(crate::error::reason::TOO_LARGE));
}

#[tokio::test]
async fn refs_are_resolved_to_what_was_served() {
    let (server, _) = github().await;
    let c = client(&server, None);
    let cases = [
        ("feature/x", "feature/x", RefKind::Branch, "feature line 1"),
        ("v1.0", "v1.0", RefKind::Tag, "tag line 1"),
        (SHA, SHA, RefKind::Commit, "commit line 1"),
        // A short SHA is served by its full SHA.
        (&SHA[..10], SHA, RefKind::Commit, "commit line 1"),
        ("HEAD", "trunk", RefKind::Branch, "trunk line 1"),
    ];
    for (asked, served, kind, first) in cases {
        let r = context(&c, &req("acme/alpha", "src/app.ts", 1, 0, Some(asked)))
            .await
            .unwrap();
        assert_eq!((r.r#ref.as_str(), r.ref_kind), (served, kind), "{asked}");
        assert_eq!(r.lines, [first]);
        assert_eq!(
            r.url,
            format!("{}/acme/alpha/blob/{served}/src/app.ts#L1-L1", server.url())
        );
    }
    let e = context(&c, &req("acme/alpha", "src/app.ts", 1, 0, Some("nope")))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    assert!(e.message().starts_with("not found: ref"), "{}", e.message());
    assert_eq!(e.reason(), Some(crate::error::reason::NOT_FOUND));
}

#[tokio::test]
async fn not_found_directories_binaries_and_credentials() {
    let (server, _) = github().await;
    let anon = client(&server, None);
    let authed = client(&server, Some(TOKEN));
    let bad = client(&server, Some("ghp_wrong-token-value"));

    let e = context(&anon, &req("acme/alpha", "src/missing.ts", 1, 0, None))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    assert!(e.message().starts_with("not found"));
    assert_eq!(e.reason(), Some(crate::error::reason::NOT_FOUND));
    let e = context(&anon, &req("acme/alpha", "src", 1, 0, None))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    assert!(e.message().contains("directory"), "{}", e.message());
    let e = context(&anon, &req("acme/alpha", "img/logo.png", 1, 0, None))
        .await
        .unwrap_err();
    assert!(e.message().contains("binary"), "{}", e.message());
    let e = context(&anon, &req("acme/nothing", "a.ts", 1, 0, None))
        .await
        .unwrap_err();
    assert!(e.message().starts_with("not found: repository"));
    let e = context(&anon, &req("acme/alpha", "src/app.ts", 41, 0, None))
        .await
        .unwrap_err();
    assert!(e.message().contains("past the end"), "{}", e.message());

    // A private repository is "not found" without the token, readable with it.
    let e = context(&anon, &req("acme/private", "src/app.ts", 1, 0, None))
        .await
        .unwrap_err();
    assert!(e.message().starts_with("not found"));
    let r = context(&authed, &req("acme/private", "src/app.ts", 1, 0, None))
        .await
        .unwrap();
    assert_eq!(r.r#ref, "main");

    let e = context(&bad, &req("acme/alpha", "src/app.ts", 1, 0, None))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unauthorized);
    assert_no_token(&e);
    let e = context(&authed, &req("acme/forbidden", "src/app.ts", 1, 0, None))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unauthorized);

    // Secrets are redacted before the lines leave.
    let r = context(&anon, &req("acme/alpha", "config/keys.ts", 2, 1, None))
        .await
        .unwrap();
    assert_eq!(r.redacted, 1);
    assert!(!r.content.contains("ghp_R8sK2m"));
}

#[tokio::test]
async fn rate_limits_are_unavailable_with_the_reset_time() {
    let (server, _) = github().await;
    let c = client(&server, Some(TOKEN));
    let e = context(&c, &req("acme/limited", "a.ts", 1, 0, None))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unavailable);
    assert_eq!(
        e.message(),
        "GitHub rate limit exceeded (HTTP 403); it resets at 2023-11-14T22:13:20Z"
    );
    let e = context(&c, &req("acme/secondary", "a.ts", 1, 0, None))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unavailable);
    assert!(
        e.message()
            .starts_with("GitHub rate limit exceeded (HTTP 429); retry after 60 s (at 20"),
        "{}",
        e.message()
    );
    let e = context(&c, &req("acme/down", "a.ts", 1, 0, None))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unavailable);
    assert_no_token(&e);
}

#[tokio::test]
async fn the_token_never_follows_a_redirect_to_another_origin() {
    let elsewhere = Server::start(|_| Reply::json(200, r#"{"default_branch":"trunk"}"#)).await;
    let target = elsewhere.url();
    let moved =
        Server::start(move |_| Reply::redirect(301, &format!("{target}/api/v3/repos/acme/alpha")))
            .await;
    let c = client(&moved, Some(TOKEN));
    let _ = context(&c, &req("acme/alpha", "src/app.ts", 1, 0, None)).await;
    assert!(moved
        .requests()
        .iter()
        .all(|s| s.header("authorization").is_some()));
    let seen = elsewhere.requests();
    assert!(!seen.is_empty());
    assert!(seen.iter().all(|s| s.header("authorization").is_none()));
}

#[tokio::test]
async fn github_falls_back_to_hound_when_unavailable() {
    let hound = Server::start(hound_handler()).await;
    let hound = HoundClient::new(HoundConfig {
        base_url: hound.url(),
        ..HoundConfig::default()
    })
    .map(|c| (c, hound))
    .unwrap();
    // A GitHub that answers 503 to everything.
    let down = Server::start(|_| gh_error(503, "Service unavailable")).await;
    let c = client(&down, Some(TOKEN));
    let r = remote_file_context_on(
        &req("acme/alpha", "src/big.ts", 3, 1, None),
        CodeHost::GitHub(&c),
        Some(&hound.0),
    )
    .await
    .unwrap();
    assert_eq!(r.source, Source::Hound);
    assert_eq!(r.ref_kind, RefKind::Commit);
    assert!(
        r.url.starts_with(&format!(
            "{}/acme/alpha/blob/{}/src/big.ts#L2-L4",
            down.url(),
            r.r#ref
        )),
        "{}",
        r.url
    );
    assert!(
        r.warnings[0].starts_with("GitHub is unavailable (HTTP 503)"),
        "{:?}",
        r.warnings
    );
}

#[tokio::test]
async fn config_defaults_and_environment_are_shared() {
    let d = GitHubConfig::default();
    assert_eq!(d.base_url, DEFAULT_GITHUB_URL);
    assert_eq!(d.timeout, GiteaConfig::default().timeout);
    assert_eq!(d.max_bytes, HoundConfig::default().max_bytes);
    let c = GitHubClient::new(d).unwrap();
    assert_eq!(c.web_base_url(), "https://github.com/");
    for bad in ["ftp://x", "https://u:p@x", "not a url"] {
        let e = GitHubClient::new(GitHubConfig {
            base_url: bad.into(),
            ..GitHubConfig::default()
        })
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    }
    let e = GitHubClient::new(GitHubConfig {
        timeout: Duration::ZERO,
        ..GitHubConfig::default()
    })
    .unwrap_err();
    assert!(e.message().contains("timeout"));
    // Explicit values win without reading the environment.
    let c = GitHubConfig::from_env_with(
        Some("https://ghe.example.test/api/v3".into()),
        Some(TOKEN.into()),
        Some(Duration::from_millis(1234)),
        Some(77),
    )
    .unwrap();
    assert_eq!(c.base_url, "https://ghe.example.test/api/v3");
    assert!(c.token.is_some());
    assert_eq!((c.timeout, c.max_bytes), (Duration::from_millis(1234), 77));
    assert!(!format!("{c:?}").contains(TOKEN));
    let e = GitHubConfig::from_env_with(None, Some("bad token".into()), None, None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
}

// ---------------------------------------------------------------------------------------------
// Hound links and repository keys, against the recorded Hound fixtures.

fn repo(url: &str, pattern: Option<(&str, &str)>) -> HoundRepo {
    let mut value = serde_json::json!({"url": url});
    if let Some((base, anchor)) = pattern {
        value["url-pattern"] = serde_json::json!({"base-url": base, "anchor": anchor});
    }
    serde_json::from_value(value).unwrap()
}

#[tokio::test]
async fn hound_results_link_to_the_indexed_revision_by_each_url_pattern() {
    let server = Server::start(hound_handler()).await;
    let hound = HoundClient::new(HoundConfig {
        base_url: server.url(),
        ..HoundConfig::default()
    })
    .unwrap();
    let search = HoundSearch {
        query: "fetchUser".into(),
        context: Some(2),
        ..Default::default()
    };
    let revs = revisions();
    let r = hound.search_linked(&search).await.unwrap();
    assert_eq!(r.results.keys().collect::<Vec<_>>(), ["alpha", "beta"]);
    let handler = &r.results["alpha"].matches[0];
    assert_eq!(handler.filename, "pkg/handler.go");
    assert_eq!(
        handler.url.as_deref(),
        Some(
            format!(
                "https://git.example.test/acme/alpha/blob/{}/pkg/handler.go",
                revs["alpha"]
            )
            .as_str()
        )
    );
    assert_eq!(
        handler.matches[0].url.as_deref(),
        Some(
            format!(
                "https://git.example.test/acme/alpha/blob/{}/pkg/handler.go#L7",
                revs["alpha"]
            )
            .as_str()
        )
    );
    // beta's pattern is Gitea's: /src/commit/{rev}/.
    for (key, repo) in &r.results {
        assert_eq!(repo.revision, revs[key]);
        for file in &repo.matches {
            let url = file.url.as_deref().unwrap();
            assert!(!url.contains("/main/"), "{url}");
            assert!(url.contains(&revs[key]), "{url}");
            if key == "beta" {
                assert!(
                    url.starts_with("https://git.example.test/acme/beta/src/commit/"),
                    "{url}"
                );
            }
            for m in &file.matches {
                assert!(m
                    .url
                    .as_deref()
                    .unwrap()
                    .ends_with(&format!("#L{}", m.line_number)));
            }
        }
    }
    // The plain search has no links; the repository list is fetched once for many searches.
    let plain = hound.search(&search).await.unwrap();
    assert!(plain.results["alpha"].matches[0].url.is_none());
    hound.search_linked(&search).await.unwrap();
    let repo_calls = server
        .requests()
        .iter()
        .filter(|s| s.path() == "/api/v1/repos")
        .count();
    assert_eq!(repo_calls, 1);
}

#[tokio::test]
async fn hound_repository_keys_map_both_ways() {
    let server = Server::start(hound_handler()).await;
    let hound = HoundClient::new(HoundConfig {
        base_url: server.url(),
        ..HoundConfig::default()
    })
    .unwrap();
    assert_eq!(
        hound.repo_key("acme/alpha").await.unwrap().as_deref(),
        Some("alpha")
    );
    assert_eq!(
        hound.repo_key("ACME/Beta").await.unwrap().as_deref(),
        Some("beta")
    );
    assert_eq!(hound.repo_key("acme/gamma").await.unwrap(), None);
    assert_eq!(
        hound.repo_name("alpha").await.unwrap().as_deref(),
        Some("acme/alpha")
    );
    assert_eq!(
        hound.repo_name("beta").await.unwrap().as_deref(),
        Some("acme/beta")
    );
    assert_eq!(hound.repo_name("nope").await.unwrap(), None);
    assert_eq!(
        hound.repo_key("no-slash").await.unwrap_err().kind(),
        ErrorKind::InvalidRequest
    );
    assert_eq!(
        hound.repo_name(" ").await.unwrap_err().kind(),
        ErrorKind::InvalidRequest
    );

    // Key conventions beyond the clone URL: the exact name, `owner-name`, the bare name.
    let repos: BTreeMap<String, HoundRepo> = [
        ("acme/exact".to_owned(), repo("/srv/git/exact", None)),
        ("roctinam-matric".to_owned(), repo("/srv/git/matric", None)),
        ("plain".to_owned(), repo("/srv/git/plain", None)),
        (
            "by-url".to_owned(),
            repo("git@git.example.test:team/svc.git", None),
        ),
    ]
    .into();
    assert_eq!(
        hound_repo_key(&repos, "acme/exact").as_deref(),
        Some("acme/exact")
    );
    assert_eq!(
        hound_repo_key(&repos, "roctinam/matric").as_deref(),
        Some("roctinam-matric")
    );
    assert_eq!(
        hound_repo_key(&repos, "someone/plain").as_deref(),
        Some("plain")
    );
    assert_eq!(
        hound_repo_key(&repos, "team/svc").as_deref(),
        Some("by-url")
    );
    assert_eq!(hound_repo_key(&repos, "team/other"), None);
    assert_eq!(repos["by-url"].owner_repo().as_deref(), Some("team/svc"));
    assert_eq!(repos["plain"].owner_repo(), None);
}

#[test]
fn file_links_follow_hounds_ui_rules() {
    let rev = "0123456789abcdef0123456789abcdef01234567";
    let github = repo(
        "https://github.com/acme/alpha.git",
        Some(("{url}/blob/{rev}/{path}{anchor}", "#L{line}")),
    );
    assert_eq!(
        github.file_url(rev, "src/a b.ts", Some(12)).as_deref(),
        Some(format!("https://github.com/acme/alpha/blob/{rev}/src/a b.ts#L12").as_str())
    );
    assert_eq!(
        github.file_url(rev, "src/a.ts", None).as_deref(),
        Some(format!("https://github.com/acme/alpha/blob/{rev}/src/a.ts").as_str())
    );
    // Never a guessed branch: no revision, no link.
    assert_eq!(github.file_url("", "src/a.ts", Some(1)), None);
    // SSH and scp-like clone URLs have a web form; a local path has none.
    let ssh = repo("ssh://git@git.example.test:2222/team/svc.git", None);
    assert_eq!(
        ssh.file_url(rev, "x.go", Some(3)).as_deref(),
        Some(format!("https://git.example.test/team/svc/blob/{rev}/x.go#L3").as_str())
    );
    let scp = repo(
        "git@github.com:acme/alpha.git",
        Some((
            "{url}/src/commit/{rev}/{path}{anchor}",
            "#L{line}-{filename}",
        )),
    );
    assert_eq!(
        scp.file_url(rev, "lib/m.rs", Some(9)).as_deref(),
        Some(format!("https://github.com/acme/alpha/src/commit/{rev}/lib/m.rs#L9-m.rs").as_str())
    );
    assert_eq!(
        repo("/srv/git/local", None).file_url(rev, "a", Some(1)),
        None
    );
    assert_eq!(
        repo("file:///srv/git/local", None).file_url(rev, "a", Some(1)),
        None
    );
}
