//! The one HTTP path of the remote clients.
//!
//! - One shared `reqwest` client (rustls, no OpenSSL), with a connect timeout and automatic
//!   redirects turned off: [`send`] follows redirects itself and attaches the credentials only
//!   while the URL stays on the origin (scheme, host and port) the caller configured. A redirect
//!   to another host or port gets no `Authorization` header.
//! - One [`Deadline`] per call covers connecting, every redirect hop and reading the body;
//!   when it passes the call fails with `timeout`, however the server behaves (a server that
//!   accepts and never answers, or trickles bytes).
//! - Bodies are read chunk by chunk with a byte cap ([`read_capped`]), or handed to a sink that
//!   can stop early ([`stream`]).
//! - Error messages are built here from the service name and the status only. The underlying
//!   `reqwest` error is kept as the private source with its URL removed.

use std::future::Future;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use reqwest::header::{HeaderValue, AUTHORIZATION, LOCATION};
use reqwest::{Response, StatusCode, Url};

use crate::error::{Error, Result};

/// How many redirects one call follows.
pub const MAX_REDIRECTS: usize = 5;

/// The connect timeout of the shared client; the call's own deadline still bounds it.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The shared client: built once, its connection pool reused by every call.
fn client() -> Result<&'static reqwest::Client> {
    static CLIENT: OnceLock<std::result::Result<reqwest::Client, String>> = OnceLock::new();
    CLIENT
        .get_or_init(|| {
            reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .connect_timeout(CONNECT_TIMEOUT)
                .user_agent(concat!("context-engine/", env!("CARGO_PKG_VERSION")))
                .build()
                .map_err(|e| e.without_url().to_string())
        })
        .as_ref()
        .map_err(|_| Error::internal("internal error: the HTTP client could not be initialised"))
}

/// A point in time by which a whole call must be done.
#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    at: Instant,
    total: Duration,
}

impl Deadline {
    /// A deadline `total` from now.
    pub fn after(total: Duration) -> Self {
        Deadline {
            at: Instant::now() + total,
            total,
        }
    }

    /// Time left (zero once passed).
    pub fn remaining(&self) -> Duration {
        self.at.saturating_duration_since(Instant::now())
    }

    /// Runs `fut`, failing with `timeout` when the deadline passes first.
    pub async fn run<T>(&self, service: &str, fut: impl Future<Output = Result<T>>) -> Result<T> {
        match tokio::time::timeout(self.remaining(), fut).await {
            Ok(result) => result,
            Err(_) => Err(self.elapsed(service)),
        }
    }

    /// The error for a passed deadline.
    pub fn elapsed(&self, service: &str) -> Error {
        Error::timeout(format!(
            "{service} did not answer within {} ms",
            self.total.as_millis()
        ))
    }
}

/// What a request authenticates with.
pub struct Auth<'a> {
    /// The full `Authorization` header value (e.g. `token abc`), marked sensitive.
    pub header: &'a HeaderValue,
}

/// A GET request: `url`, optional credentials, and the service name for error messages.
pub struct Get<'a> {
    /// Where to send it.
    pub url: Url,
    /// Credentials, sent only to `url`'s origin.
    pub auth: Option<Auth<'a>>,
    /// `Gitea` or `Hound`: names the server in messages.
    pub service: &'a str,
}

/// Sends `req`, following up to [`MAX_REDIRECTS`] redirects, and returns the final response
/// whatever its status. Transport failures become `unavailable` or `timeout`; the deadline is
/// not applied here (wrap the whole call in [`Deadline::run`]).
pub async fn send(req: Get<'_>, deadline: &Deadline) -> Result<Response> {
    send_with(req, &[], deadline).await
}

/// [`send`] with extra request headers (e.g. `Accept`), sent on every hop.
pub async fn send_with(
    req: Get<'_>,
    headers: &[(reqwest::header::HeaderName, HeaderValue)],
    deadline: &Deadline,
) -> Result<Response> {
    let client = client()?;
    let origin = req.url.origin();
    let mut url = req.url;
    for _ in 0..=MAX_REDIRECTS {
        let mut builder = client.get(url.clone()).timeout(deadline.remaining());
        for (name, value) in headers {
            builder = builder.header(name, value.clone());
        }
        if let Some(auth) = &req.auth {
            if url.origin() == origin {
                builder = builder.header(AUTHORIZATION, auth.header.clone());
            }
        }
        let response = builder
            .send()
            .await
            .map_err(|e| transport_error(e, req.service, deadline))?;
        let status = response.status();
        if !status.is_redirection() || status == StatusCode::NOT_MODIFIED {
            return Ok(response);
        }
        let next = response
            .headers()
            .get(LOCATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|loc| url.join(loc).ok())
            .filter(|u| matches!(u.scheme(), "http" | "https"));
        match next {
            Some(next) => url = next,
            None => {
                return Err(Error::unavailable(format!(
                    "{} answered with a redirect (HTTP {}) without a usable location",
                    req.service,
                    status.as_u16()
                )))
            }
        }
    }
    Err(Error::unavailable(format!(
        "{} redirected more than {MAX_REDIRECTS} times",
        req.service
    )))
}

/// Maps a `reqwest` failure to a safe error; the source keeps the cause without its URL.
pub fn transport_error(e: reqwest::Error, service: &str, deadline: &Deadline) -> Error {
    let error = if e.is_timeout() {
        deadline.elapsed(service)
    } else if e.is_connect() {
        Error::unavailable(format!(
            "{service} could not be reached (connection refused, DNS failure or TLS error)"
        ))
    } else if e.is_body() || e.is_decode() {
        Error::unavailable(format!(
            "{service} closed the connection before the whole response arrived"
        ))
    } else {
        Error::unavailable(format!("{service} could not be reached"))
    };
    error.with_source(e.without_url())
}

/// Reads the whole body, failing with `too_large()` as soon as it exceeds `cap` bytes (the
/// declared `Content-Length` is checked before anything is read).
pub async fn read_capped(
    mut response: Response,
    cap: u64,
    service: &str,
    deadline: &Deadline,
    too_large: impl FnOnce() -> Error,
) -> Result<Vec<u8>> {
    if response.content_length().is_some_and(|n| n > cap) {
        return Err(too_large());
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| transport_error(e, service, deadline))?
    {
        if body.len() as u64 + chunk.len() as u64 > cap {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Feeds the body chunk by chunk to `sink` until it returns `true` (done) or the body ends.
/// Returns whether the sink stopped early. Dropping the response then closes the connection,
/// so the rest of a large body is never transferred into memory.
pub async fn stream(
    mut response: Response,
    service: &str,
    deadline: &Deadline,
    mut sink: impl FnMut(&[u8]) -> Result<bool>,
) -> Result<bool> {
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| transport_error(e, service, deadline))?
    {
        if sink(&chunk)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The error for an unexpected status: 401/403 `unauthorized`, 408/429/5xx `unavailable`,
/// other 4xx `invalid_request`. (404 is the caller's to explain.)
pub fn status_error(status: StatusCode, service: &str) -> Error {
    let code = status.as_u16();
    match code {
        401 | 403 => Error::unauthorized(format!(
            "{service} refused the credentials (HTTP {code}); check the token"
        )),
        408 | 429 | 500..=599 => {
            Error::unavailable(format!("{service} is unavailable (HTTP {code})"))
        }
        400..=499 => {
            Error::invalid_request(format!("{service} rejected the request (HTTP {code})"))
        }
        _ => Error::unavailable(format!("{service} answered with unexpected HTTP {code}")),
    }
}

/// Checks that `base` is a usable server URL: http or https, a host, no credentials, no query
/// or fragment. Returns it with a trailing slash so paths can be appended.
pub fn parse_base_url(base: &str, name: &str) -> Result<Url> {
    let bad = || {
        Error::invalid_request(format!(
            "{name} must be an http:// or https:// URL without credentials, query or fragment"
        ))
    };
    let mut url = Url::parse(base.trim()).map_err(|_| bad())?;
    if !matches!(url.scheme(), "http" | "https")
        || url.host().is_none()
        || !url.username().is_empty()
        || url.password().is_some()
        || url.query().is_some()
        || url.fragment().is_some()
    {
        return Err(bad());
    }
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url)
}

/// `base` with `segments` appended, each percent-encoded as one path segment.
pub fn join_segments<'a>(base: &Url, segments: impl IntoIterator<Item = &'a str>) -> Url {
    let mut url = base.clone();
    if let Ok(mut path) = url.path_segments_mut() {
        path.pop_if_empty().extend(segments);
    }
    url
}
