//! Tests of the remote clients against local servers on 127.0.0.1 (see `test_server`).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use super::test_server::*;
use super::*;
use crate::ErrorKind;

const TOKEN: &str = "s3cr3t-t0ken-value-0123456789";
const ALPHA_REV: &str = "3e693325815c78dc2a5c0f85e27b0a9b88d271db";
const SECRET_FILE: &str =
    "const a = 1;\nconst token = \"ghp_R8sK2mQ9vX4tL7wN1pZ6cB3yH5jF0dG8eA2u\";\nconst b = 2;\n";
const SHA: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

fn read_alpha(rel: &str) -> Vec<u8> {
    std::fs::read(hound_dir().join("repos/alpha").join(rel)).unwrap()
}

fn alpha_tree() -> BTreeMap<String, Vec<u8>> {
    [
        "src/big.ts",
        "src/server.ts",
        "src/unicode.ts",
        "src/image.bin",
        "scripts/crlf.py",
        "scripts/notrail.py",
        "pkg/handler.go",
    ]
    .into_iter()
    .map(|p| (p.to_owned(), read_alpha(p)))
    .collect()
}

/// `acme/alpha` with default branch `trunk` (never `main`), a branch `feature/x` whose
/// `src/server.ts` differs, a tag `v1.0` and a commit; `acme/secret` is private.
fn fake_gitea() -> FakeGitea {
    let mut trunk = alpha_tree();
    trunk.insert("config/app.ts".into(), SECRET_FILE.as_bytes().to_vec());
    let mut feature = trunk.clone();
    feature.insert(
        "src/server.ts".into(),
        b"// feature branch\nline two\n".to_vec(),
    );
    let mut tag = trunk.clone();
    tag.insert("src/server.ts".into(), b"// tag v1.0\n".to_vec());
    let mut commit = trunk.clone();
    commit.insert("src/server.ts".into(), b"// at commit aaaa\n".to_vec());
    let alpha = FakeRepo::with_refs("trunk", trunk.clone(), [feature, tag, commit], SHA);
    let secret = FakeRepo::private_main(trunk);
    FakeGitea {
        token: TOKEN.into(),
        repos: [
            ("acme/alpha".to_owned(), alpha),
            ("acme/secret".to_owned(), secret),
        ]
        .into(),
    }
}

async fn gitea_server() -> Server {
    let fake = fake_gitea();
    Server::start(move |req| fake.handle(req)).await
}

fn gitea_client(url: &str, token: Option<&str>, timeout_ms: u64) -> GiteaClient {
    GiteaClient::new(GiteaConfig {
        base_url: url.to_owned(),
        token: token.map(|t| Token::new(t).unwrap()),
        timeout: Duration::from_millis(timeout_ms),
        max_bytes: DEFAULT_MAX_BYTES,
        ..GiteaConfig::default()
    })
    .unwrap()
}

fn hound_client(url: &str) -> HoundClient {
    HoundClient::new(HoundConfig {
        base_url: url.to_owned(),
        ..HoundConfig::default()
    })
    .unwrap()
}

fn request(file: &str, line: usize, context: usize, r#ref: Option<&str>) -> FileContextRequest {
    FileContextRequest {
        repo: "acme/alpha".into(),
        file: file.into(),
        line,
        context: Some(context),
        r#ref: r#ref.map(str::to_owned),
    }
}

fn assert_safe(e: &crate::Error) {
    assert!(
        !e.message().contains(TOKEN),
        "token in message: {}",
        e.message()
    );
    assert!(!format!("{e:?}").contains(TOKEN), "token in debug output");
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        assert!(!format!("{s:?} {s}").contains(TOKEN), "token in a source");
        source = s.source();
    }
}

/// A port nothing listens on.
async fn closed_port() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("http://127.0.0.1:{port}")
}

// ---------------------------------------------------------------------------------------------
// Hound

#[tokio::test]
async fn hound_search_urls_match_the_recorded_requests() {
    let client = hound_client("http://127.0.0.1:1");
    let searches: Vec<(&str, HoundSearch)> = vec![
        (
            "search_literal_ctx2",
            HoundSearch {
                query: "fetchUser".into(),
                context: Some(2),
                ..Default::default()
            },
        ),
        (
            "search_default_ctx",
            HoundSearch {
                query: "fetchUser".into(),
                ..Default::default()
            },
        ),
        (
            "search_ctx0",
            HoundSearch {
                query: "fetchUser".into(),
                repos: Some(vec!["alpha".into()]),
                context: Some(0),
                ..Default::default()
            },
        ),
        (
            "search_literal_flag",
            HoundSearch {
                query: "fetchUser(".into(),
                literal: true,
                ..Default::default()
            },
        ),
        (
            "search_regex",
            HoundSearch {
                query: r"func\s+\w*[Uu]ser\b".into(),
                context: Some(1),
                ..Default::default()
            },
        ),
        (
            "search_ignore_case",
            HoundSearch {
                query: "fetchuser".into(),
                ignore_case: true,
                context: Some(0),
                ..Default::default()
            },
        ),
        (
            "search_files_filter",
            HoundSearch {
                query: "TODO".into(),
                files: Some(r"\.ts$".into()),
                context: Some(1),
                ..Default::default()
            },
        ),
        (
            "search_exclude_files",
            HoundSearch {
                query: "TODO".into(),
                exclude_files: Some(r"\.(ts|go)$".into()),
                context: Some(1),
                ..Default::default()
            },
        ),
        (
            "search_repos_list_with_unknown",
            HoundSearch {
                query: "TODO".into(),
                repos: Some(vec!["beta".into(), "nosuch".into()]),
                context: Some(1),
                ..Default::default()
            },
        ),
        (
            "search_limit",
            HoundSearch {
                query: "needle".into(),
                repos: Some(vec!["alpha".into()]),
                limit: Some(3),
                context: Some(0),
                ..Default::default()
            },
        ),
        (
            "search_limit_zero_unlimited",
            HoundSearch {
                query: "item_0".into(),
                repos: Some(vec!["alpha".into()]),
                limit: Some(0),
                context: Some(0),
                ..Default::default()
            },
        ),
        (
            "search_rng",
            HoundSearch {
                query: "TODO".into(),
                paging: Some(Paging {
                    offset: 1,
                    limit: Some(1),
                }),
                context: Some(0),
                ..Default::default()
            },
        ),
        (
            "search_rng_past_end",
            HoundSearch {
                query: "TODO".into(),
                paging: Some(Paging {
                    offset: 5,
                    limit: None,
                }),
                context: Some(0),
                ..Default::default()
            },
        ),
        (
            "search_empty_query",
            HoundSearch {
                query: String::new(),
                repos: Some(vec!["beta".into()]),
                limit: Some(3),
                context: Some(0),
                ..Default::default()
            },
        ),
    ];
    for (name, search) in searches {
        let url = client.search_url(&search).unwrap();
        let case = case(name);
        let (_, query) = case.url.split_once('?').unwrap();
        let mut want = url_query(query);
        let mut got: Vec<(String, String)> = url
            .query_pairs()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        // Booleans are sent as `true`; the recordings use `true` or `1`, which Hound reads alike.
        for (k, v) in &mut want {
            if (k == "i" || k == "literal" || k == "stats") && v == "1" {
                *v = "true".into();
            }
        }
        want.sort();
        got.sort();
        assert_eq!(got, want, "{name}");
    }
}

#[tokio::test]
async fn hound_results_are_typed_from_the_recorded_bodies() {
    let server = Server::start(hound_handler()).await;
    let client = hound_client(&server.url());
    let r = client
        .search(&HoundSearch {
            query: "fetchUser".into(),
            context: Some(2),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(r.results.keys().collect::<Vec<_>>(), ["alpha", "beta"]);
    let alpha = &r.results["alpha"];
    assert_eq!(alpha.revision, ALPHA_REV);
    let handler = &alpha.matches[0];
    assert_eq!(handler.filename, "pkg/handler.go");
    assert_eq!(
        handler.matches[0].line,
        "\tuser := fetchUser(r.URL.Query().Get(\"id\"))"
    );
    assert_eq!(handler.matches[0].line_number, 7);
    assert_eq!(
        handler.matches[0].before,
        [
            "// TODO: add auth",
            "func GetUserHandler(w http.ResponseWriter, r *http.Request) {"
        ]
    );
    assert_eq!(handler.matches[0].after, ["\tw.Write([]byte(user))", "}"]);
    // `<` arrives escaped as \u003c and is decoded.
    let server_ts = alpha
        .matches
        .iter()
        .find(|f| f.filename == "src/server.ts")
        .unwrap();
    assert_eq!(
        server_ts.matches[0].line,
        "export async function fetchUser(id: string): Promise<User> {"
    );
    assert!(r.stats.is_none());

    // Every match of every recorded search body arrives: counted independently from the JSON.
    for c in hound_cases()
        .into_iter()
        .filter(|c| c.url.starts_with("/api/v1/search") && c.form.is_none())
    {
        let raw: serde_json::Value = serde_json::from_slice(&c.body).unwrap();
        let Some(results) = raw.get("Results") else {
            continue;
        };
        let want: usize = results
            .as_object()
            .unwrap()
            .values()
            .flat_map(|r| r["Matches"].as_array().unwrap())
            .map(|f| f["Matches"].as_array().unwrap().len())
            .sum();
        let parsed: HoundSearchResult = serde_json::from_slice(&c.body).unwrap();
        let got: usize = parsed
            .results
            .values()
            .flat_map(|r| &r.matches)
            .map(|f| f.matches.len())
            .sum();
        assert_eq!(got, want, "{}", c.name);
    }
}

#[tokio::test]
async fn hound_quirks_are_handled() {
    let server = Server::start(hound_handler()).await;
    let client = hound_client(&server.url());

    // HTTP 200 with {"Error": ...}: invalid_request, reason kept, pattern not echoed.
    let e = client
        .search(&HoundSearch {
            query: "fetchUser(".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    assert_eq!(
        e.message(),
        "Hound rejected the search: error parsing regexp: missing closing )"
    );
    let e = client
        .search(&HoundSearch {
            query: "TODO".into(),
            files: Some("(".into()),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);

    // ctx above Hound's cap is refused before any request; 20 is fine.
    let before = server.requests().len();
    let e = client
        .search(&HoundSearch {
            query: "x".into(),
            context: Some(21),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    assert_eq!(server.requests().len(), before);
    assert!(client
        .search_url(&HoundSearch {
            context: Some(20),
            ..Default::default()
        })
        .is_ok());

    // limit is per repository, and its being reached is reported.
    let r = client
        .search(&HoundSearch {
            query: "needle".into(),
            repos: Some(vec!["alpha".into()]),
            limit: Some(3),
            context: Some(0),
            ..Default::default()
        })
        .await
        .unwrap();
    let alpha = &r.results["alpha"];
    assert!(alpha.limit_reached);
    assert_eq!(alpha.files_with_match, 3);
    let r = client
        .search(&HoundSearch {
            query: "needle|TODO".into(),
            limit: Some(2),
            context: Some(0),
            ..Default::default()
        })
        .await
        .unwrap();
    for repo in r.results.values() {
        assert_eq!(
            repo.matches.iter().map(|f| f.matches.len()).sum::<usize>(),
            2
        );
        assert!(repo.limit_reached);
    }

    // Names are trimmed one by one (the server would silently drop " beta").
    let url = client
        .search_url(&HoundSearch {
            repos: Some(vec!["alpha".into(), " beta".into()]),
            ..Default::default()
        })
        .unwrap();
    assert!(url.query().unwrap().contains("repos=alpha%2Cbeta"));
    assert!(client
        .search_url(&HoundSearch {
            repos: Some(vec![]),
            ..Default::default()
        })
        .is_err());
    assert!(client
        .search_url(&HoundSearch {
            repos: Some(vec!["a,b".into()]),
            ..Default::default()
        })
        .is_err());

    // No match: an empty map.
    let r = client
        .search(&HoundSearch {
            query: "zzznomatchzzz".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(r.results.is_empty());

    // stats.
    let r = client
        .search(&HoundSearch {
            query: "TODO".into(),
            repos: Some(vec!["beta".into()]),
            stats: true,
            context: Some(0),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(r.stats.unwrap().files_opened, 3);
    assert_eq!(r.results["beta"].matches.len(), 3);

    // Edge files: CRLF kept as Hound sends it, generated flag, dotfile.
    let r = client
        .search(&HoundSearch {
            query: "needle".into(),
            repos: Some(vec!["alpha".into()]),
            files: Some("notrail|crlf|unicode|generated|hidden".into()),
            context: Some(1),
            ..Default::default()
        })
        .await
        .unwrap();
    let files = &r.results["alpha"].matches;
    assert_eq!(files[0].filename, ".hidden.cfg");
    assert!(
        files
            .iter()
            .find(|f| f.filename == "gen/generated.ts")
            .unwrap()
            .auto_generated
    );
    assert_eq!(
        files
            .iter()
            .find(|f| f.filename == "scripts/crlf.py")
            .unwrap()
            .matches[0]
            .line,
        "    return \"needle crlf\"\r"
    );
}

#[tokio::test]
async fn hound_repos_and_excludes() {
    let server = Server::start(hound_handler()).await;
    let client = hound_client(&server.url());
    let repos = client.repos().await.unwrap();
    assert_eq!(repos.keys().collect::<Vec<_>>(), ["alpha", "beta"]);
    let alpha = &repos["alpha"];
    assert_eq!(alpha.url, "https://git.example.test/acme/alpha");
    assert_eq!(alpha.display_name, "");
    assert_eq!(alpha.ms_between_poll, 30000);
    assert!(!alpha.vcs_config_set);
    assert_eq!(alpha.enable_poll_updates, None);
    assert_eq!(
        alpha.url_pattern.as_ref().unwrap().base_url,
        "{url}/blob/{rev}/{path}{anchor}"
    );
    let beta = &repos["beta"];
    assert_eq!(beta.display_name, "Beta Service");
    assert!(beta.vcs_config_set);
    assert_eq!(beta.enable_poll_updates, Some(false));
    assert_eq!(
        beta.url_pattern.as_ref().unwrap().base_url,
        "{url}/src/commit/{rev}/{path}{anchor}"
    );

    let e = client.excludes("nosuch").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);

    let excluded = client.excludes("alpha").await.unwrap();
    assert_eq!(
        excluded,
        [Excluded {
            filename: "src/image.bin".into(),
            reason: "Not a text file.".into()
        }]
    );
}

#[tokio::test]
async fn hound_not_ready_bad_json_and_oversized_bodies() {
    let server = Server::start(|req: &Seen| {
        match req
            .query()
            .iter()
            .find(|(k, _)| k == "q")
            .map(|(_, v)| v.as_str())
        {
            Some("ready") => Reply::new(503, "text/plain; charset=utf-8", "Hound is not ready.\n"),
            Some("json") => Reply::json(200, "{\"Results\": {\"alpha\": [1, 2"),
            Some("big") => Reply::Huge {
                total: 100 * 1024 * 1024,
                line: b"{\"Results\":{}}\n".to_vec(),
            },
            Some("500") => Reply::new(500, "text/plain", "boom"),
            _ if req.path() == "/api/v1/excludes" => match req.query()[0].1.as_str() {
                "gone" => Reply::json(404, "{\"Error\":\"No such repository: gone\"}\n"),
                _ => Reply::new(200, "application/json;charset=utf-8", ""),
            },
            _ => Reply::new(404, "text/plain", "404 page not found\n"),
        }
    })
    .await;
    let client = HoundClient::new(HoundConfig {
        base_url: server.url(),
        timeout: Duration::from_secs(10),
        max_bytes: 1 << 20,
    })
    .unwrap();
    let run = |q: &str| {
        let s = HoundSearch {
            query: q.into(),
            ..Default::default()
        };
        let c = client.clone();
        async move { c.search(&s).await.unwrap_err() }
    };
    let e = run("ready").await;
    assert_eq!(e.kind(), ErrorKind::Unavailable);
    assert!(e.message().contains("503"));
    assert_eq!(run("json").await.kind(), ErrorKind::Unavailable);
    let started = Instant::now();
    let e = run("big").await;
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    assert!(e.message().contains("maxBytes"));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(run("500").await.kind(), ErrorKind::Unavailable);
    let e = client.excludes("gone").await.unwrap_err();
    assert_eq!(
        (e.kind(), e.message()),
        (
            ErrorKind::InvalidRequest,
            "not found: Hound has no repository of that name"
        )
    );
    assert_eq!(client.excludes("empty").await.unwrap(), []);
}

#[test]
fn hound_emulation_reproduces_the_recorded_empty_query() {
    // The fallback tests rely on an emulated empty-query search; it must equal the recording.
    let c = case("search_empty_query");
    let (_, query) = c.url.split_once('?').unwrap();
    let body = hound_empty_query(&url_query(query)).unwrap();
    assert_eq!(
        String::from_utf8(body).unwrap(),
        String::from_utf8(c.body).unwrap()
    );
}

// ---------------------------------------------------------------------------------------------
// Gitea

#[tokio::test]
async fn gitea_raw_file_on_the_default_branch_and_refs() {
    let server = gitea_server().await;
    let client = gitea_client(&server.url(), Some(TOKEN), 5000);
    let big = client
        .get_raw_file("acme/alpha", "src/big.ts", None)
        .await
        .unwrap();
    assert_eq!(big.as_bytes(), read_alpha("src/big.ts"));
    let first = &server.requests()[0];
    assert_eq!(first.path(), "/api/v1/repos/acme/alpha/raw/src/big.ts");
    assert_eq!(
        first.header("authorization"),
        Some(&*format!("token {TOKEN}"))
    );

    let feature = client
        .get_raw_file("acme/alpha", "src/server.ts", Some("feature/x"))
        .await
        .unwrap();
    assert_eq!(feature, "// feature branch\nline two\n");
    let tag = client
        .get_raw_file("acme/alpha", "src/server.ts", Some("v1.0"))
        .await
        .unwrap();
    assert_eq!(tag, "// tag v1.0\n");
    let commit = client
        .get_raw_file("acme/alpha", "src/server.ts", Some(SHA))
        .await
        .unwrap();
    assert_eq!(commit, "// at commit aaaa\n");

    // Gitea itself would serve the default branch for these; the client refuses instead.
    for unknown in ["no-such-branch", "aaaaaaa"] {
        let before = server.requests().len();
        let e = client
            .get_raw_file("acme/alpha", "src/server.ts", Some(unknown))
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidRequest, "{unknown}");
        assert!(e.message().contains("default branch"));
        assert!(server.requests()[before..]
            .iter()
            .all(|r| !r.path().contains("/raw/")));
    }
    // A full SHA that does not exist: Gitea's 404.
    let e = client
        .get_raw_file("acme/alpha", "src/server.ts", Some(&"b".repeat(40)))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    assert!(e.message().starts_with("not found"));
}

#[tokio::test]
async fn gitea_context_names_the_ref_served() {
    let server = gitea_server().await;
    let client = gitea_client(&server.url(), Some(TOKEN), 5000);
    let r = remote_file_context_with(&request("src/big.ts", 150, 2, None), &client, None)
        .await
        .unwrap();
    assert_eq!((r.start_line, r.end_line), (148, 152));
    assert_eq!(r.lines[0], "export const item_148 = \"value 148\";");
    assert_eq!(
        r.lines[2],
        "export const needle_150 = \"needle 150\"; // needle twice"
    );
    assert_eq!(
        r.content,
        " 148 | export const item_148 = \"value 148\";\n 149 | export const item_149 = \"value 149\";\n>150 | export const needle_150 = \"needle 150\"; // needle twice\n 151 | export const needle_151 = \"needle 151\"; // needle twice\n 152 | export const item_152 = \"value 152\";\n"
    );
    assert_eq!(r.source, Source::Gitea);
    assert_eq!((r.r#ref.as_str(), r.ref_kind), ("trunk", RefKind::Branch));
    assert_eq!(
        r.url,
        format!(
            "{}/acme/alpha/src/branch/trunk/src/big.ts#L148-L152",
            server.url()
        )
    );
    assert!(server
        .requests()
        .iter()
        .any(|q| q.path() == "/api/v1/repos/acme/alpha"));

    let r = remote_file_context_with(
        &request("src/server.ts", 1, 3, Some("feature/x")),
        &client,
        None,
    )
    .await
    .unwrap();
    assert_eq!(r.lines, ["// feature branch", "line two"]);
    assert_eq!(r.total_lines, Some(2));
    assert_eq!(
        r.url,
        format!(
            "{}/acme/alpha/src/branch/feature/x/src/server.ts#L1-L2",
            server.url()
        )
    );
    let r = remote_file_context_with(&request("src/server.ts", 1, 0, Some("v1.0")), &client, None)
        .await
        .unwrap();
    assert_eq!(
        r.url,
        format!(
            "{}/acme/alpha/src/tag/v1.0/src/server.ts#L1-L1",
            server.url()
        )
    );
    let r = remote_file_context_with(&request("src/server.ts", 1, 0, Some(SHA)), &client, None)
        .await
        .unwrap();
    assert_eq!(
        (r.ref_kind, r.lines[0].as_str()),
        (RefKind::Commit, "// at commit aaaa")
    );
    assert_eq!(
        r.url,
        format!(
            "{}/acme/alpha/src/commit/{SHA}/src/server.ts#L1-L1",
            server.url()
        )
    );
}

#[tokio::test]
async fn gitea_context_edges() {
    let server = gitea_server().await;
    let client = gitea_client(&server.url(), None, 5000);
    let ctx = |file: &str, line, context| {
        let c = client.clone();
        let req = request(file, line, context, None);
        async move { remote_file_context_with(&req, &c, None).await }
    };
    let r = ctx("src/big.ts", 2, 5).await.unwrap();
    assert_eq!((r.start_line, r.end_line), (1, 7));
    let r = ctx("src/big.ts", 320, 5).await.unwrap();
    assert_eq!(
        (r.start_line, r.end_line, r.total_lines),
        (315, 320, Some(320))
    );
    let e = ctx("src/big.ts", 321, 5).await.unwrap_err();
    assert_eq!(
        (e.kind(), e.message()),
        (
            ErrorKind::InvalidRequest,
            "line 321 is past the end of the file (320 lines)"
        )
    );
    let e = ctx("src/big.ts", 400, 5).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    // CRLF: the CR is not part of the line.
    let r = ctx("scripts/crlf.py", 2, 0).await.unwrap();
    assert_eq!(r.lines, ["    return \"needle crlf\""]);
    // No newline at the end of the file.
    let r = ctx("scripts/notrail.py", 2, 5).await.unwrap();
    assert_eq!(r.lines.last().unwrap(), "    return \"needle at eof\"");
    // Non-ASCII.
    let r = ctx("src/unicode.ts", 1, 0).await.unwrap();
    assert_eq!(r.lines, ["// Grüße — ünïcödé needle line"]);
    // Binary.
    let e = ctx("src/image.bin", 1, 0).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    assert!(e.message().contains("binary"));
    let e = client
        .get_raw_file("acme/alpha", "src/image.bin", None)
        .await
        .unwrap_err();
    assert!(e.message().contains("binary"));
    // Missing file, directory, repo: the same safe 404.
    for (repo, file) in [
        ("acme/alpha", "nope.ts"),
        ("acme/alpha", "src"),
        ("acme/nope", "a.ts"),
    ] {
        let e = client.get_raw_file(repo, file, None).await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidRequest);
        assert!(e.message().starts_with("not found"));
    }
}

#[tokio::test]
async fn secrets_are_redacted_in_context_but_not_in_raw_files() {
    let server = gitea_server().await;
    let client = gitea_client(&server.url(), None, 5000);
    let r = remote_file_context_with(&request("config/app.ts", 2, 1, None), &client, None)
        .await
        .unwrap();
    assert_eq!(r.redacted, 1);
    assert_eq!(r.lines.len(), 3);
    assert_eq!(r.lines[1], "const token = \"[REDACTED:github_token]\";");
    // Reported by kind and file line (the window is lines 1-3).
    assert_eq!(
        r.redactions,
        vec![crate::secrets::Redaction {
            kind: crate::secrets::SecretKind::GithubToken,
            line: 2
        }]
    );
    assert!(!r.content.contains("ghp_R8sK"));
    assert!(r.warnings.iter().any(|w| w.contains("REDACTED")));
    let raw = client
        .get_raw_file("acme/alpha", "config/app.ts", None)
        .await
        .unwrap();
    assert_eq!(raw, SECRET_FILE);
}

#[tokio::test]
async fn gitea_auth_private_and_bad_token() {
    let server = gitea_server().await;
    let anonymous = gitea_client(&server.url(), None, 5000);
    let e = anonymous
        .get_raw_file("acme/secret", "src/big.ts", None)
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    assert!(e.message().contains("private"));
    let authed = gitea_client(&server.url(), Some(TOKEN), 5000);
    assert!(authed
        .get_raw_file("acme/secret", "src/big.ts", None)
        .await
        .is_ok());
    let wrong = gitea_client(&server.url(), Some("wrong-token"), 5000);
    let e = wrong
        .get_raw_file("acme/alpha", "src/big.ts", None)
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unauthorized);
    assert!(!e.message().contains("wrong-token"));
    let e = remote_file_context_with(&request("src/big.ts", 1, 1, None), &wrong, None)
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unauthorized);
    // Debug of the config never shows the token.
    let config = GiteaConfig {
        token: Some(Token::new(TOKEN).unwrap()),
        ..GiteaConfig::default()
    };
    assert!(!format!("{config:?}").contains(TOKEN));
}

#[tokio::test]
async fn input_validation() {
    let client = gitea_client("http://127.0.0.1:1", None, 1000);
    for repo in ["", "alpha", "a/b/c", "../x", "a/..", "a b/c", "/x"] {
        assert_eq!(
            client
                .get_raw_file(repo, "a", None)
                .await
                .unwrap_err()
                .kind(),
            ErrorKind::InvalidRequest,
            "{repo}"
        );
    }
    for file in ["", "/", "a/../b", "a//b", "./a", "a\0b"] {
        assert_eq!(
            client
                .get_raw_file("a/b", file, None)
                .await
                .unwrap_err()
                .kind(),
            ErrorKind::InvalidRequest,
            "{file:?}"
        );
    }
    for r in ["", "a b", "a..b", "x~1", "a:b", "/a", &"x".repeat(300)] {
        assert_eq!(
            client
                .get_raw_file("a/b", "f", Some(r))
                .await
                .unwrap_err()
                .kind(),
            ErrorKind::InvalidRequest,
            "{r:?}"
        );
    }
    for (line, context) in [(0, 1), (MAX_LINE + 1, 1), (5, MAX_CONTEXT_LINES + 1)] {
        let e = remote_file_context_with(&request("f", line, context, None), &client, None)
            .await
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    }
    for url in [
        "",
        "ftp://x",
        "http://user:pw@host",
        "http://h/?q=1",
        "not a url",
        "http://h/#f",
    ] {
        let e = GiteaClient::new(GiteaConfig {
            base_url: url.into(),
            ..GiteaConfig::default()
        })
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidRequest);
        assert!(!e.message().contains("pw"));
    }
    for token in ["", "  ", "a b", "tök", "a\nb"] {
        assert!(Token::new(token).is_err());
    }
}

// ---------------------------------------------------------------------------------------------
// Faults

#[tokio::test]
async fn faults_map_to_contract_codes_within_the_deadline() {
    let server = Server::start(|req: &Seen| match req.path() {
        p if p.ends_with("/hang.ts") => Reply::Hang,
        p if p.ends_with("/slow.ts") => Reply::Delayed(
            Duration::from_millis(150),
            Box::new(Reply::new(200, "text/plain; charset=utf-8", "slow\n")),
        ),
        p if p.ends_with("/slower.ts") => Reply::Delayed(
            Duration::from_secs(30),
            Box::new(Reply::new(200, "text/plain", "x\n")),
        ),
        p if p.ends_with("/500.ts") => Reply::json(500, "{\"message\":\"boom\"}"),
        p if p.ends_with("/502.ts") => Reply::new(502, "text/html", "<html>bad gateway</html>"),
        p if p.ends_with("/403.ts") => Reply::json(403, "{\"message\":\"forbidden\"}"),
        p if p.ends_with("/truncated.ts") => Reply::Truncated {
            declared: 10_000,
            body: b"a\nb\n".to_vec(),
        },
        p if p.ends_with("/huge.ts") => Reply::Huge {
            total: 100 * 1024 * 1024,
            line: b"0123456789 abcdefghij\n".to_vec(),
        },
        "/api/v1/repos/acme/alpha" => Reply::json(200, "{\"default_branch\":\"trunk\"}"),
        "/api/v1/repos/acme/badjson" => Reply::json(200, "{\"default_branch\": tru"),
        _ => Reply::json(404, "{\"message\":\"not found\"}"),
    })
    .await;
    let client = gitea_client(&server.url(), Some(TOKEN), 400);
    let raw = |file: &str| {
        let c = client.clone();
        let f = file.to_owned();
        async move { c.get_raw_file("acme/alpha", &f, None).await }
    };

    let started = Instant::now();
    let e = raw("hang.ts").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout);
    assert_eq!(e.message(), "Gitea did not answer within 400 ms");
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
    let started = Instant::now();
    assert_eq!(
        raw("slower.ts").await.unwrap_err().kind(),
        ErrorKind::Timeout
    );
    assert!(started.elapsed() < Duration::from_millis(1500));
    assert_eq!(raw("slow.ts").await.unwrap(), "slow\n");
    assert_eq!(
        raw("500.ts").await.unwrap_err().kind(),
        ErrorKind::Unavailable
    );
    assert_eq!(
        raw("502.ts").await.unwrap_err().kind(),
        ErrorKind::Unavailable
    );
    assert_eq!(
        raw("403.ts").await.unwrap_err().kind(),
        ErrorKind::Unauthorized
    );
    let e = raw("truncated.ts").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unavailable);
    assert!(e.message().contains("closed the connection"));
    let e = raw("huge.ts").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    assert!(e.message().contains("maxBytes"));

    // Lines 10-20 of the 100 MB body: read and stopped long before the end.
    let big = gitea_client(&server.url(), Some(TOKEN), 5000);
    let started = Instant::now();
    let r = remote_file_context_with(&request("huge.ts", 15, 5, None), &big, None)
        .await
        .unwrap();
    assert_eq!((r.start_line, r.end_line), (10, 20));
    assert!(r.lines.iter().all(|l| l == "0123456789 abcdefghij"));
    assert_eq!(r.total_lines, None);
    assert!(started.elapsed() < Duration::from_secs(3));
    // A window beyond the cap is refused, not read to the end.
    let capped = GiteaClient::new(GiteaConfig {
        base_url: server.url(),
        max_bytes: 1 << 20,
        ..GiteaConfig::default()
    })
    .unwrap();
    let e = remote_file_context_with(&request("huge.ts", 2_000_000, 0, None), &capped, None)
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    assert!(e.message().contains("maxBytes"));

    let e = remote_file_context_with(
        &FileContextRequest {
            repo: "acme/badjson".into(),
            ..request("a.ts", 1, 0, None)
        },
        &client,
        None,
    )
    .await
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unavailable);

    let down = gitea_client(&closed_port().await, Some(TOKEN), 2000);
    let e = down
        .get_raw_file("acme/alpha", "a.ts", None)
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unavailable);
    assert_safe(&e);
    // DNS failure (.invalid never resolves).
    let dns = gitea_client("http://nonexistent.invalid", Some(TOKEN), 5000);
    let e = dns
        .get_raw_file("acme/alpha", "a.ts", None)
        .await
        .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Unavailable | ErrorKind::Timeout),
        "{:?}",
        e.kind()
    );
    assert_safe(&e);
}

#[tokio::test]
async fn redirects_never_carry_the_token_to_another_port() {
    let other =
        Server::start(|_: &Seen| Reply::new(200, "text/plain; charset=utf-8", "elsewhere\n")).await;
    let target = format!("{}/landing.ts", other.url());
    let gitea = Server::start(move |req: &Seen| match req.path() {
        "/api/v1/repos/acme/alpha/raw/away.ts" => Reply::redirect(302, &target),
        "/api/v1/repos/acme/alpha/raw/here.ts" => {
            Reply::redirect(307, "/api/v1/repos/acme/alpha/raw/final.ts")
        }
        "/api/v1/repos/acme/alpha/raw/final.ts" => {
            Reply::new(200, "text/plain; charset=utf-8", "final\n")
        }
        "/api/v1/repos/acme/alpha/raw/loop.ts" => {
            Reply::redirect(302, "/api/v1/repos/acme/alpha/raw/loop.ts")
        }
        _ => Reply::json(404, "{}"),
    })
    .await;
    let client = gitea_client(&gitea.url(), Some(TOKEN), 5000);
    assert_eq!(
        client
            .get_raw_file("acme/alpha", "away.ts", None)
            .await
            .unwrap(),
        "elsewhere\n"
    );
    let landed = other.requests();
    assert_eq!(landed.len(), 1);
    assert_eq!(landed[0].header("authorization"), None);
    // Same origin: the token follows.
    assert_eq!(
        client
            .get_raw_file("acme/alpha", "here.ts", None)
            .await
            .unwrap(),
        "final\n"
    );
    let last = gitea.requests().last().unwrap().clone();
    assert_eq!(last.path(), "/api/v1/repos/acme/alpha/raw/final.ts");
    assert_eq!(
        last.header("authorization"),
        Some(&*format!("token {TOKEN}"))
    );
    let e = client
        .get_raw_file("acme/alpha", "loop.ts", None)
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unavailable);
    assert!(e.message().contains("redirected"));
}

#[tokio::test]
async fn concurrent_calls_are_independent() {
    let server = gitea_server().await;
    let client = gitea_client(&server.url(), Some(TOKEN), 10_000);
    let mut set = tokio::task::JoinSet::new();
    for i in 0..48usize {
        let c = client.clone();
        set.spawn(async move {
            let line = 1 + (i * 7) % 320;
            let r = remote_file_context_with(&request("src/big.ts", line, 1, None), &c, None)
                .await
                .unwrap();
            (line, r)
        });
    }
    let text = String::from_utf8(read_alpha("src/big.ts")).unwrap();
    let all: Vec<&str> = text.lines().collect();
    while let Some(joined) = set.join_next().await {
        let (line, r) = joined.unwrap();
        assert_eq!(r.lines, all[r.start_line - 1..r.end_line]);
        assert!(r.start_line <= line && line <= r.end_line);
    }
}

// ---------------------------------------------------------------------------------------------
// Fallback

#[tokio::test]
async fn fallback_rebuilds_the_same_lines_from_hound() {
    let gitea = gitea_server().await;
    let hound = Server::start(hound_handler()).await;
    let hound_c = hound_client(&hound.url());
    let live = gitea_client(&gitea.url(), Some(TOKEN), 5000);
    let down = gitea_client(&closed_port().await, Some(TOKEN), 2000);
    for (file, line, context) in [
        ("src/big.ts", 150, 2),
        ("src/big.ts", 3, 10),
        ("src/big.ts", 318, 5),
        ("scripts/crlf.py", 2, 3),
        ("scripts/notrail.py", 1, 4),
        ("src/unicode.ts", 2, 1),
    ] {
        let req = request(file, line, context, None);
        let want = remote_file_context_with(&req, &live, Some(&hound_c))
            .await
            .unwrap();
        assert_eq!(want.source, Source::Gitea);
        let got = remote_file_context_with(&req, &down, Some(&hound_c))
            .await
            .unwrap();
        assert_eq!(got.source, Source::Hound, "{file}");
        assert_eq!(got.lines, want.lines, "{file}:{line}");
        assert_eq!(got.content, want.content);
        assert_eq!(
            (got.start_line, got.end_line),
            (want.start_line, want.end_line)
        );
        assert_eq!(
            (got.r#ref.as_str(), got.ref_kind),
            (ALPHA_REV, RefKind::Commit)
        );
        assert!(got.url.ends_with(&format!(
            "/acme/alpha/src/commit/{ALPHA_REV}/{file}#L{}-L{}",
            got.start_line, got.end_line
        )));
        assert!(
            got.warnings[0].starts_with("Gitea could not be reached"),
            "{:?}",
            got.warnings
        );
    }
    // The fallback search is the empty query restricted to the one file, limit = last line.
    let search = hound
        .requests()
        .into_iter()
        .rfind(|r| r.path() == "/api/v1/search")
        .unwrap();
    let q: BTreeMap<String, String> = search.query().into_iter().collect();
    assert_eq!(q["q"], "");
    assert_eq!(q["repos"], "alpha");
    assert_eq!(q["files"], r"^src/unicode\.ts$");
    assert_eq!(q["limit"], "3");
    assert_eq!(q["ctx"], "0");
}

#[tokio::test]
async fn fallback_on_timeout_only_for_unavailable_and_timeout() {
    let hang = Server::start(|_: &Seen| Reply::Hang).await;
    let hound = Server::start(hound_handler()).await;
    let hound_c = hound_client(&hound.url());
    let slow = gitea_client(&hang.url(), Some(TOKEN), 300);
    let started = Instant::now();
    let r = remote_file_context_with(&request("src/big.ts", 200, 1, None), &slow, Some(&hound_c))
        .await
        .unwrap();
    assert_eq!(r.source, Source::Hound);
    assert_eq!(
        r.lines[1],
        "export const needle_200 = \"needle 200\"; // needle twice"
    );
    assert!(r.warnings[0].contains("did not answer within 300 ms"));
    assert!(started.elapsed() < Duration::from_secs(3));

    // 404 and 401 are answers, not outages: no fallback.
    let gitea = gitea_server().await;
    let before = hound.requests().len();
    let live = gitea_client(&gitea.url(), Some(TOKEN), 5000);
    let e = remote_file_context_with(&request("nope.ts", 1, 1, None), &live, Some(&hound_c))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    let wrong = gitea_client(&gitea.url(), Some("nope"), 5000);
    let e = remote_file_context_with(&request("src/big.ts", 1, 1, None), &wrong, Some(&hound_c))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unauthorized);
    assert_eq!(hound.requests().len(), before);

    // A requested full SHA that Hound did not index is not served from Hound.
    let e = remote_file_context_with(
        &request("src/big.ts", 1, 1, Some(SHA)),
        &slow,
        Some(&hound_c),
    )
    .await
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout);
    assert!(e.message().contains("Hound fallback failed too"));
    // A named ref is served with a warning.
    let r = remote_file_context_with(
        &request("src/big.ts", 1, 1, Some("trunk")),
        &slow,
        Some(&hound_c),
    )
    .await
    .unwrap();
    assert!(r.warnings[1].contains("trunk"));

    // Both down: Gitea's code, both reasons.
    let hound_down = hound_client(&closed_port().await);
    let e = remote_file_context_with(&request("src/big.ts", 1, 1, None), &slow, Some(&hound_down))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout);
    assert!(e.message().contains("Hound could not be reached"));
    assert_safe(&e);
    // Past the end, per Hound.
    let e = remote_file_context_with(&request("src/big.ts", 321, 0, None), &slow, Some(&hound_c))
        .await
        .unwrap_err();
    assert!(e.message().contains("past the end"));
    // Binary files are not in Hound's index.
    let e = remote_file_context_with(&request("src/image.bin", 1, 0, None), &slow, Some(&hound_c))
        .await
        .unwrap_err();
    assert!(e.message().contains("not indexed"));
}

// ---------------------------------------------------------------------------------------------
// Windows-style file paths: a repository path is `/`-separated on every host; a backslash is a
// character of a name, sent percent-encoded inside one URL segment, so `..\` never climbs.

#[test]
fn windows_style_file_paths_stay_inside_one_segment() {
    use super::host::check_path;
    assert_eq!(check_path("/src/a.ts").unwrap(), "src/a.ts");
    for bad in [
        "", "/", "a//b", "./a", "a/../b", "..", "a/.", "a\u{0}b", "a\nb",
    ] {
        assert!(check_path(bad).is_err(), "{bad:?}");
    }
    let base = reqwest::Url::parse("http://127.0.0.1:1/api/").unwrap();
    for (path, want) in [
        (r"..\..\secret.txt", "/api/raw/..%5C..%5Csecret.txt"),
        (r"src\lib.rs", "/api/raw/src%5Clib.rs"),
        (r"C:\Windows\win.ini", "/api/raw/C:%5CWindows%5Cwin.ini"),
        (r"\\?\C:\x", "/api/raw/%5C%5C%3F%5CC:%5Cx"),
        (r"a/..\b", "/api/raw/a/..%5Cb"),
    ] {
        let checked = check_path(path).unwrap();
        let url =
            super::http::join_segments(&base, std::iter::once("raw").chain(checked.split('/')));
        assert_eq!(url.path(), want, "{path:?}");
        assert!(
            url.path_segments().unwrap().all(|s| s != ".." && s != "."),
            "{path:?}"
        );
        assert_eq!(url.host_str(), Some("127.0.0.1"), "{path:?}");
    }
}
