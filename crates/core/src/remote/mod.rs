//! Remote file context: source files read from a Gitea server or GitHub, with a Hound
//! code-search server as the fallback, for agents that work on repositories they have not
//! cloned (the design record `docs/design/adr-003-file-context-retrieval.md`).
//!
//! - [`GitHubClient`] reads files through GitHub's contents API (base64 JSON up to 1 MB, the
//!   raw media type above), resolves refs, looks up and remembers the default branch, and
//!   reports rate limits as `unavailable` with the reset time (notes in `github.rs`).
//! - The server URL, deadline and byte cap of every client are defaulted in one place
//!   (`settings`).
//! - [`HostClient`] is both code-host clients (`GiteaClient = HostClient<GiteaApi>`,
//!   `GitHubClient = HostClient<GitHubApi>`): ref resolution, the remembered default branch,
//!   whole files, line windows and web links are written once (`host.rs`); each host's module
//!   supplies only its API's differences (URLs, ref lookups, how a file's bytes are served).
//! - [`GiteaClient`] fetches a file through Gitea's raw-file API
//!   (`GET /api/v1/repos/{owner}/{repo}/raw/{path}?ref=...`, `Authorization: token ...`). A
//!   requested ref is first resolved against the API (branch, then tag; a full-length SHA is a
//!   commit), because Gitea silently serves the default branch for a ref it does not know;
//!   without a ref, the default branch is asked from the API, never assumed to be `main`.
//! - [`HoundClient`] is a faithful client of Hound's `/api/v1/search`, `/api/v1/repos` and
//!   `/api/v1/excludes`, with the server's quirks turned into typed results and errors;
//!   [`HoundClient::search_linked`] links results to the code host at the indexed revision by
//!   each repository's URL pattern, and [`hound_repo_key`] maps `owner/name` to Hound's keys.
//! - [`remote_file_context`] returns a numbered window of lines around one line of a remote file
//!   and a Gitea web link to exactly the ref that was served. Bodies are streamed: reading stops
//!   as soon as the last requested line has arrived, and never goes past a byte cap, so memory
//!   is bounded by the window (and the cap), not by the file. When Gitea is unavailable or times
//!   out, the same window is rebuilt from Hound (an empty query, which matches every line,
//!   restricted to the one file) and the result says so.
//!
//! All HTTP goes through `http`: rustls, an explicit connect timeout and one deadline for the
//! whole call (redirects and body included), redirects followed by hand so that the token is
//! only ever sent to the origin it was configured for, and error messages built here from the
//! status alone, so no token, URL or server text reaches a caller.

mod context;
mod gitea;
mod github;
mod host;
mod hound;
pub(crate) mod http;
mod lines;
mod settings;

#[cfg(test)]
mod github_tests;
#[cfg(test)]
mod hostile_tests;
#[cfg(test)]
mod test_server;
#[cfg(test)]
mod tests;

pub use context::{
    remote_file_context, remote_file_context_on, remote_file_context_with, CodeHost,
    FileContextRequest, FileContextResult, RemoteConfig, Source, DEFAULT_CONTEXT_LINES,
    MAX_CONTEXT_LINES, MAX_LINE,
};
pub use gitea::{GiteaApi, GiteaClient, GiteaConfig, DEFAULT_GITEA_URL};
pub use github::{GitHubApi, GitHubClient, GitHubConfig, DEFAULT_GITHUB_URL};
pub use host::{HostClient, HostConfig, RefKind, RepoName, ServedRef, Token};
pub use hound::{
    hound_repo_key, Excluded, HoundClient, HoundConfig, HoundFileMatch, HoundMatch, HoundRepo,
    HoundRepoResult, HoundSearch, HoundSearchResult, HoundStats, Paging, UrlPattern,
    DEFAULT_HOUND_URL, HOUND_LIMIT_CAP, HOUND_MAX_CONTEXT,
};
pub use settings::{DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS};
