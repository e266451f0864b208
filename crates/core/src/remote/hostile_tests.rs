//! Property tests of every parser of what a code host or Hound sends back: a loopback
//! server answers each request with one generated response (a status and a body of random
//! bytes, or of JSON whose keys are the ones the clients look for, with values of any type),
//! and every client call over it must end, within its deadline, in a result or in one of the
//! contract's errors: never a panic, a hang or a value echoed into a message.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::{Map, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::*;
use crate::ErrorKind;

/// Keys the Gitea, GitHub and Hound clients read, so that generated JSON reaches past the
/// first type check.
const KEYS: &[&str] = &[
    "default_branch",
    "empty",
    "content",
    "encoding",
    "size",
    "type",
    "sha",
    "download_url",
    "Results",
    "Matches",
    "Filename",
    "Lines",
    "Line",
    "LineNumber",
    "Before",
    "After",
    "Revision",
    "FilesWithMatch",
    "Error",
    "url",
    "url-pattern",
    "base-url",
    "anchor",
    "vcs",
    "acme/alpha",
    "alpha",
];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "[ -~]{0,40}".prop_map(Value::String),
        // Base64-looking strings (file contents) and a line break now and then.
        "[A-Za-z0-9+/=\n]{0,120}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(
                (prop::sample::select(KEYS).prop_map(str::to_owned), inner),
                0..6
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..400),
        json_value().prop_map(|v| serde_json::to_vec(&v).unwrap()),
    ]
}

fn status() -> impl Strategy<Value = u16> {
    prop_oneof![
        4 => Just(200u16),
        1 => prop::sample::select(vec![201u16, 204, 301, 302, 400, 401, 403, 404, 409, 429, 500, 502, 503]),
    ]
}

/// Serves `status` and `body` to every request on 127.0.0.1 until the runtime ends; returns
/// the base URL.
async fn serve(status: u16, body: Vec<u8>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let body = body.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 64 * 1024 {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let response = format!(
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nLocation: /elsewhere\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
                let _ = stream.write_all(&body).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    url
}

const DEADLINE: Duration = Duration::from_secs(2);

fn request() -> FileContextRequest {
    FileContextRequest {
        repo: "acme/alpha".into(),
        file: "src/app.ts".into(),
        line: 2,
        context: Some(1),
        r#ref: None,
    }
}

/// An error of the contract whose message does not carry the generated body.
fn check<T>(result: &crate::Result<T>, body: &[u8], started: Instant) -> Result<(), TestCaseError> {
    prop_assert!(
        started.elapsed() < DEADLINE * 3,
        "took {:?}",
        started.elapsed()
    );
    if let Err(e) = result {
        prop_assert!(matches!(
            e.kind(),
            ErrorKind::InvalidRequest
                | ErrorKind::Unauthorized
                | ErrorKind::Unavailable
                | ErrorKind::Timeout
        ));
        prop_assert!(e.message().len() < 400, "long message: {}", e.message());
        let text = String::from_utf8_lossy(body);
        if text.len() >= 24 {
            prop_assert!(!e.message().contains(text.as_ref()), "the body came back");
        }
    }
    Ok(())
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 96,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x14),
        ..ProptestConfig::default()
    })]

    #[test]
    fn gitea_file_context_over_any_response(status in status(), body in body()) {
        let rt = runtime();
        let started = Instant::now();
        let result = rt.block_on(async {
            let url = serve(status, body.clone()).await;
            let client = GiteaClient::new(GiteaConfig {
                base_url: url,
                token: None,
                timeout: DEADLINE,
                max_bytes: 1 << 20,
                ..GiteaConfig::default()
            })
            .unwrap();
            remote_file_context_with(&request(), &client, None).await
        });
        check(&result, &body, started)?;
    }

    #[test]
    fn github_file_context_over_any_response(status in status(), body in body()) {
        let rt = runtime();
        let started = Instant::now();
        let result = rt.block_on(async {
            let url = serve(status, body.clone()).await;
            let config = RemoteConfig {
                github: Some(GitHubConfig {
                    base_url: url,
                    token: None,
                    timeout: DEADLINE,
                    max_bytes: 1 << 20,
                    ..GitHubConfig::default()
                }),
                ..RemoteConfig::default()
            };
            remote_file_context(&request(), config).await
        });
        check(&result, &body, started)?;
    }

    #[test]
    fn hound_search_and_repos_over_any_response(status in status(), body in body()) {
        let rt = runtime();
        let started = Instant::now();
        let (search, repos) = rt.block_on(async {
            let url = serve(status, body.clone()).await;
            let client = HoundClient::new(HoundConfig {
                base_url: url,
                timeout: DEADLINE,
                ..HoundConfig::default()
            })
            .unwrap();
            let search = client
                .search_linked(&HoundSearch {
                    query: "needle".into(),
                    ..HoundSearch::default()
                })
                .await;
            (search, client.repos().await)
        });
        check(&search, &body, started)?;
        check(&repos, &body, started)?;
    }
}
