//! Detection and redaction of credentials in text.
//!
//! Code retrieval hands snippets of a repository to an LLM. A snippet can contain a live
//! credential (a `.env` file, a test fixture, a config with a hard-coded password), and once it
//! has been sent it cannot be taken back. This module finds such credentials so that callers can
//! either hide them ([`redact`]) or warn about them ([`scan`], [`Finding`]) without ever repeating
//! the secret itself.
//!
//! # How detection works
//!
//! Every rule is one regular expression. All of them are compiled once (on first use) into a
//! [`regex::RegexSet`] plus one [`regex::Regex`] each. A search first runs the set over the text,
//! which says which rules can match at all; only those rules then run on their own to find
//! positions, and each raw match is checked by code that a regular expression cannot express
//! (token boundaries, entropy, placeholder and identifier heuristics, a decoded JWT header, the
//! `END` line of a PEM block). The regex crate guarantees linear-time matching, and every check
//! after it is bounded, so scanning a multi-megabyte file is linear as well.
//!
//! The rules, by [`SecretKind`]:
//!
//! | kind | what matches |
//! | --- | --- |
//! | [`PrivateKey`](SecretKind::PrivateKey) | a PEM / OpenSSH / PGP `-----BEGIN … PRIVATE KEY-----` block up to its `END` line, or to the end of its base64 body when the block is truncated |
//! | [`AwsAccessKeyId`](SecretKind::AwsAccessKeyId) | `AKIA`, `ASIA`, `ABIA`, `ACCA`, `A3T?` + 16 upper-case alphanumerics |
//! | [`AwsSecretAccessKey`](SecretKind::AwsSecretAccessKey) | 40 base64 characters assigned to `aws_secret_access_key`, `secretAccessKey`, `aws_secret`, … |
//! | [`GithubToken`](SecretKind::GithubToken) | `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` + 36 or more alphanumerics; `github_pat_` fine-grained tokens |
//! | [`GitlabToken`](SecretKind::GitlabToken) | `glpat-`, `gldt-`, `glrt-`, `glcbt-`, `glptt-`, `glft-`, `glimt-`, `gloas-`, `glagent-`, `glsoat-`, `glffct-` + 20 or more characters; legacy `GR1348941` runner registration tokens |
//! | [`SlackToken`](SecretKind::SlackToken) | `xoxb-`, `xoxp-`, `xoxa-`, `xoxr-`, `xoxs-`, `xoxo-`, `xoxe-` tokens and `xapp-` app-level tokens |
//! | [`SlackWebhook`](SecretKind::SlackWebhook) | `https://hooks.slack.com/services/T…/B…/…` (and `workflows/`, `triggers/`) |
//! | [`OpenAiKey`](SecretKind::OpenAiKey) | `sk-proj-`, `sk-svcacct-`, `sk-admin-` keys and legacy `sk-` + 48 alphanumerics (never `sk-ant-`) |
//! | [`AnthropicKey`](SecretKind::AnthropicKey) | `sk-ant-` keys (`sk-ant-api03-…`, `sk-ant-admin01-…`, …) |
//! | [`StripeKey`](SecretKind::StripeKey) | `sk_live_`, `sk_test_`, `rk_live_`, `rk_test_` + 24 or more alphanumerics; `whsec_` webhook signing secrets |
//! | [`GoogleApiKey`](SecretKind::GoogleApiKey) | `AIza` + 35 characters |
//! | [`Jwt`](SecretKind::Jwt) | three base64url segments whose first decodes to a JSON header with `"alg"` |
//! | provider tokens | the formats of `providers.rs`: Azure storage keys and SAS signatures, npm, `SendGrid`, Twilio, Mailgun, Hugging Face, `DigitalOcean`, `PyPI`, Telegram and Discord bots, Vault, age, `PuTTY` `.ppk` private sections, Google OAuth client secrets, `"Bearer …"` literals, Shopify, Databricks, Linear, Postman, Doppler, Grafana, New Relic, Sentry, Supabase, Groq/Replicate/Perplexity/xAI, Docker Hub, Mapbox, Square, Pulumi, Heroku, Terraform Cloud, Alibaba Cloud (one [`SecretKind`] each) |
//! | [`GenericSecret`](SecretKind::GenericSecret) | a value assigned to a name such as `password`, `secret`, `token`, `api_key`, `client_secret`, `auth` (`KEY = "v"`, `key: v`, `"key": "v"`, `KEY=v`, `--password v`, `<password>v</password>`, `key="ApiKey" value="v"`, `define('DB_PASSWORD', 'v')`, `"X-Api-Key: v"`) that passes an entropy test and is not a placeholder, type or reference; also the password part of `scheme://user:password@host` |
//!
//! Prefixed tokens must stand alone (no token character glued before or after) and have a
//! random-looking body: at least six distinct characters, no run of five equal ones (the
//! `…Token00000000` of documentation), no `EXAMPLE`. So `"ghp_" + "a" × 36` is not reported.
//!
//! # Generic secrets
//!
//! The name must contain a secret word (`DB_PASSWORD`, `dbPassword`, `x-api-key`,
//! `client_secret`) and must not end in a word that makes it about something else
//! (`password_hash`, `token_url`, `auth_type`, `access_key_id`). The value must be 8 to 1024
//! printable ASCII characters without spaces; not a placeholder (`changeme`, `<your-token>`,
//! `${VAR}`, `{{ … }}`, `xxxxx`, `****`, `example`, `dummy`, `test`, …), a reference
//! (`process.env.X`, `config.auth.token`, `getToken()`, `os.environ[…]`, `sys::FLAG`), a number
//! literal, a snake/kebab-case name or a run of English-like words; and it must carry enough
//! Shannon entropy for its length:
//!
//! | length | required |
//! | --- | --- |
//! | 8–11 | three character classes of lower, upper, digit, other, and entropy ≥ log2(n) − 0.3 (nearly all characters distinct) |
//! | 12–19 | two classes and entropy ≥ min(3.5, log2(n) − 0.7), about 2.9 at 12 and 3.3 at 16 |
//! | 20+ | entropy ≥ 3.5 bits per character |
//! | hex only | 16 or more characters, digits and letters, entropy ≥ 3.0 (hex has at most 4 bits) |
//!
//! Random alphanumeric values of 12 characters or more pass about 98% of the time; words,
//! identifiers and prose do not. An unquoted value shaped like an identifier
//! (`token: TokenType,`) counts only on a line that is a config entry (`KEY=value`, `key: value`
//! alone on its line, as in `.env`, YAML, INI) or inside a header string
//! (`"X-Api-Key: value"`). A URL's password needs no entropy (people choose them) but must not
//! be a placeholder, a default such as `postgres` or `guest`, or the user name repeated.
//!
//! A [`Finding`] never holds the secret: only its kind and where it is. Its `Debug` output shows
//! the position only, so findings can be logged freely.
//!
//! Overlapping matches are resolved so that the result never overlaps: the longest match wins,
//! and between matches of equal length the more specific rule wins (a `ghp_…` token assigned to
//! `token = "…"` is reported as a [`GithubToken`](SecretKind::GithubToken), not a
//! [`GenericSecret`](SecretKind::GenericSecret)). A match that only partly overlaps the winner
//! widens the winner's range instead of being dropped, so redaction never leaves part of a
//! flagged value in the clear.
//!
//! # Example
//!
//! ```
//! use context_engine_core::secrets::{redact, scan, SecretKind};
//!
//! // Built at runtime so that this file does not itself contain a credential.
//! let value = ["Zq7", "Lx2", "Vw9", "Pk4", "Tn8", "Hr3"].concat();
//! let code = format!("let user = \"bob\";\nlet api_key = \"{value}\";\n");
//!
//! let findings = scan(&code);
//! assert_eq!(findings.len(), 1);
//! assert_eq!(findings[0].kind, SecretKind::GenericSecret);
//! assert_eq!((findings[0].line, findings[0].column), (2, 16));
//!
//! let redacted = redact(&code);
//! assert_eq!(
//!     redacted.text,
//!     "let user = \"bob\";\nlet api_key = \"[REDACTED:generic_secret]\";\n"
//! );
//! ```

#[doc(hidden)]
#[cfg(any(test, feature = "test-support"))]
pub mod fakes;
mod generic;
mod pem;
mod providers;
#[cfg(test)]
mod recall;
mod rules;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use rules::Candidate;

/// The kind of credential a [`Finding`] is.
///
/// The order of the variants is the order in [`SecretKind::ALL`]; it carries no meaning beyond
/// making sorting deterministic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SecretKind {
    /// A PEM, OpenSSH or PGP private key block.
    PrivateKey,
    /// An AWS access key ID (`AKIA…`, `ASIA…`, …). Not a secret on its own, but it always
    /// travels with one and identifies the account.
    AwsAccessKeyId,
    /// An AWS secret access key, recognised only next to a keyword such as
    /// `aws_secret_access_key`: on its own it is an arbitrary 40-character base64 string.
    AwsSecretAccessKey,
    /// A GitHub token: classic, OAuth, user-to-server, server-to-server, refresh or fine-grained.
    GithubToken,
    /// A GitLab token (personal, deploy, runner, CI job, trigger, feed, OAuth secret, …).
    GitlabToken,
    /// A Slack bot, user, app-level, configuration or legacy token.
    SlackToken,
    /// A Slack incoming-webhook URL: the URL itself is the credential.
    SlackWebhook,
    /// An `OpenAI` API key.
    OpenAiKey,
    /// An Anthropic API key.
    AnthropicKey,
    /// A Stripe secret or restricted key (live or test) or a webhook signing secret.
    StripeKey,
    /// A Google API key.
    GoogleApiKey,
    /// A JSON Web Token: usually a bearer credential or a session.
    Jwt,
    /// A high-entropy value assigned to a secret-sounding name (`password`, `token`, `api_key`,
    /// …), or the password of a URL's user-info.
    GenericSecret,
    /// An Azure storage account key (`AccountKey=…` or assigned to a storage key name).
    AzureStorageKey,
    /// The signature of an Azure shared access signature URL (`sv=…&sig=…`).
    AzureSasToken,
    /// An npm access token (`npm_…`).
    NpmToken,
    /// A `SendGrid` API key (`SG.….…`).
    SendgridKey,
    /// A Twilio API key SID (`SK` + 32 hex digits).
    TwilioKey,
    /// A Mailgun private API key (`key-…`) or webhook signing key.
    MailgunKey,
    /// A Hugging Face user or organization token (`hf_…`, `api_org_…`).
    HuggingFaceToken,
    /// A `DigitalOcean` personal, OAuth or refresh token (`dop_v1_…`, `doo_v1_…`, `dor_v1_…`).
    DigitalOceanToken,
    /// A `PyPI` API token (`pypi-AgEIcHlwaS5vcmc…`).
    PypiToken,
    /// A Telegram bot token (`<bot id>:AA…`).
    TelegramBotToken,
    /// A Discord bot token or webhook URL.
    DiscordToken,
    /// A `HashiCorp` Vault service, batch or recovery token (`hvs.…`, `hvb.…`, `hvr.…`).
    VaultToken,
    /// An age encryption secret key (`AGE-SECRET-KEY-1…`).
    AgeSecretKey,
    /// A Google OAuth client secret (`GOCSPX-…`).
    GoogleOauthSecret,
    /// A `Bearer <token>` string literal, whatever the variable it is assigned to.
    BearerToken,
    /// A Shopify access, custom-app, private-app or shared secret (`shpat_…`, `shpca_…`, `shppa_…`, `shpss_…`).
    ShopifyToken,
    /// A Databricks personal access token (`dapi…`).
    DatabricksToken,
    /// A Linear API key or OAuth token (`lin_api_…`).
    LinearKey,
    /// A Postman API key (`PMAK-…`).
    PostmanKey,
    /// A Doppler token (`dp.pt.…`, `dp.st.…`, …).
    DopplerToken,
    /// A Grafana Cloud or service-account token (`glc_…`, `glsa_…`).
    GrafanaToken,
    /// A New Relic user, insert or browser key (`NRAK-…`, `NRII-…`, `NRJS-…`).
    NewRelicKey,
    /// A Sentry organization or user auth token (`sntrys_…`, `sntryu_…`).
    SentryToken,
    /// A Supabase access token or secret key (`sbp_…`, `sb_secret_…`).
    SupabaseToken,
    /// A Groq, Replicate, Perplexity or xAI API key (`gsk_…`, `r8_…`, `pplx-…`, `xai-…`).
    AiProviderKey,
    /// A Docker Hub personal or organization access token (`dckr_pat_…`, `dckr_oat_…`).
    DockerHubToken,
    /// A Mapbox secret access token (`sk.eyJ…`).
    MapboxToken,
    /// A Square access token or OAuth secret (`EAAA…`, `sq0atp-…`, `sq0csp-…`).
    SquareToken,
    /// A Pulumi access token (`pul-…`).
    PulumiToken,
    /// A Heroku API key (`HRKU-…`).
    HerokuKey,
    /// A Terraform Cloud / HCP Terraform API token (`….atlasv1.…`).
    TerraformToken,
    /// An Alibaba Cloud `AccessKey` ID (`LTAI…`).
    AlibabaKey,
}

impl SecretKind {
    /// Every kind, in declaration order.
    pub const ALL: [SecretKind; 45] = [
        SecretKind::PrivateKey,
        SecretKind::AwsAccessKeyId,
        SecretKind::AwsSecretAccessKey,
        SecretKind::GithubToken,
        SecretKind::GitlabToken,
        SecretKind::SlackToken,
        SecretKind::SlackWebhook,
        SecretKind::OpenAiKey,
        SecretKind::AnthropicKey,
        SecretKind::StripeKey,
        SecretKind::GoogleApiKey,
        SecretKind::Jwt,
        SecretKind::GenericSecret,
        SecretKind::AzureStorageKey,
        SecretKind::AzureSasToken,
        SecretKind::NpmToken,
        SecretKind::SendgridKey,
        SecretKind::TwilioKey,
        SecretKind::MailgunKey,
        SecretKind::HuggingFaceToken,
        SecretKind::DigitalOceanToken,
        SecretKind::PypiToken,
        SecretKind::TelegramBotToken,
        SecretKind::DiscordToken,
        SecretKind::VaultToken,
        SecretKind::AgeSecretKey,
        SecretKind::GoogleOauthSecret,
        SecretKind::BearerToken,
        SecretKind::ShopifyToken,
        SecretKind::DatabricksToken,
        SecretKind::LinearKey,
        SecretKind::PostmanKey,
        SecretKind::DopplerToken,
        SecretKind::GrafanaToken,
        SecretKind::NewRelicKey,
        SecretKind::SentryToken,
        SecretKind::SupabaseToken,
        SecretKind::AiProviderKey,
        SecretKind::DockerHubToken,
        SecretKind::MapboxToken,
        SecretKind::SquareToken,
        SecretKind::PulumiToken,
        SecretKind::HerokuKey,
        SecretKind::TerraformToken,
        SecretKind::AlibabaKey,
    ];

    /// A stable `snake_case` name, used in redaction markers (`[REDACTED:github_token]`) and
    /// suitable for logs and JSON.
    pub const fn as_str(self) -> &'static str {
        match self {
            SecretKind::PrivateKey => "private_key",
            SecretKind::AwsAccessKeyId => "aws_access_key_id",
            SecretKind::AwsSecretAccessKey => "aws_secret_access_key",
            SecretKind::GithubToken => "github_token",
            SecretKind::GitlabToken => "gitlab_token",
            SecretKind::SlackToken => "slack_token",
            SecretKind::SlackWebhook => "slack_webhook",
            SecretKind::OpenAiKey => "openai_key",
            SecretKind::AnthropicKey => "anthropic_key",
            SecretKind::StripeKey => "stripe_key",
            SecretKind::GoogleApiKey => "google_api_key",
            SecretKind::Jwt => "jwt",
            SecretKind::GenericSecret => "generic_secret",
            SecretKind::AzureStorageKey => "azure_storage_key",
            SecretKind::AzureSasToken => "azure_sas_token",
            SecretKind::NpmToken => "npm_token",
            SecretKind::SendgridKey => "sendgrid_key",
            SecretKind::TwilioKey => "twilio_key",
            SecretKind::MailgunKey => "mailgun_key",
            SecretKind::HuggingFaceToken => "huggingface_token",
            SecretKind::DigitalOceanToken => "digitalocean_token",
            SecretKind::PypiToken => "pypi_token",
            SecretKind::TelegramBotToken => "telegram_bot_token",
            SecretKind::DiscordToken => "discord_token",
            SecretKind::VaultToken => "vault_token",
            SecretKind::AgeSecretKey => "age_secret_key",
            SecretKind::GoogleOauthSecret => "google_oauth_secret",
            SecretKind::BearerToken => "bearer_token",
            SecretKind::ShopifyToken => "shopify_token",
            SecretKind::DatabricksToken => "databricks_token",
            SecretKind::LinearKey => "linear_key",
            SecretKind::PostmanKey => "postman_key",
            SecretKind::DopplerToken => "doppler_token",
            SecretKind::GrafanaToken => "grafana_token",
            SecretKind::NewRelicKey => "newrelic_key",
            SecretKind::SentryToken => "sentry_token",
            SecretKind::SupabaseToken => "supabase_token",
            SecretKind::AiProviderKey => "ai_provider_key",
            SecretKind::DockerHubToken => "dockerhub_token",
            SecretKind::MapboxToken => "mapbox_token",
            SecretKind::SquareToken => "square_token",
            SecretKind::PulumiToken => "pulumi_token",
            SecretKind::HerokuKey => "heroku_key",
            SecretKind::TerraformToken => "terraform_token",
            SecretKind::AlibabaKey => "alibaba_key",
        }
    }

    /// A short human-readable description, for warnings ("AWS access key ID").
    pub fn description(self) -> &'static str {
        match self {
            SecretKind::PrivateKey => "private key",
            SecretKind::AwsAccessKeyId => "AWS access key ID",
            SecretKind::AwsSecretAccessKey => "AWS secret access key",
            SecretKind::GithubToken => "GitHub token",
            SecretKind::GitlabToken => "GitLab token",
            SecretKind::SlackToken => "Slack token",
            SecretKind::SlackWebhook => "Slack webhook URL",
            SecretKind::OpenAiKey => "OpenAI API key",
            SecretKind::AnthropicKey => "Anthropic API key",
            SecretKind::StripeKey => "Stripe secret key",
            SecretKind::GoogleApiKey => "Google API key",
            SecretKind::Jwt => "JSON Web Token",
            SecretKind::GenericSecret => "generic secret",
            SecretKind::AzureStorageKey => "Azure storage account key",
            SecretKind::AzureSasToken => "Azure SAS token",
            SecretKind::NpmToken => "npm access token",
            SecretKind::SendgridKey => "SendGrid API key",
            SecretKind::TwilioKey => "Twilio API key",
            SecretKind::MailgunKey => "Mailgun API key",
            SecretKind::HuggingFaceToken => "Hugging Face token",
            SecretKind::DigitalOceanToken => "DigitalOcean token",
            SecretKind::PypiToken => "PyPI upload token",
            SecretKind::TelegramBotToken => "Telegram bot token",
            SecretKind::DiscordToken => "Discord bot token or webhook",
            SecretKind::VaultToken => "HashiCorp Vault token",
            SecretKind::AgeSecretKey => "age secret key",
            SecretKind::GoogleOauthSecret => "Google OAuth client secret",
            SecretKind::BearerToken => "bearer token",
            SecretKind::ShopifyToken => "Shopify access token",
            SecretKind::DatabricksToken => "Databricks token",
            SecretKind::LinearKey => "Linear API key",
            SecretKind::PostmanKey => "Postman API key",
            SecretKind::DopplerToken => "Doppler token",
            SecretKind::GrafanaToken => "Grafana token",
            SecretKind::NewRelicKey => "New Relic key",
            SecretKind::SentryToken => "Sentry token",
            SecretKind::SupabaseToken => "Supabase key",
            SecretKind::AiProviderKey => "AI provider API key",
            SecretKind::DockerHubToken => "Docker Hub token",
            SecretKind::MapboxToken => "Mapbox secret token",
            SecretKind::SquareToken => "Square token",
            SecretKind::PulumiToken => "Pulumi token",
            SecretKind::HerokuKey => "Heroku API key",
            SecretKind::TerraformToken => "Terraform Cloud token",
            SecretKind::AlibabaKey => "Alibaba Cloud access key ID",
        }
    }

    /// How specific the rule behind this kind is; on overlapping matches of equal length the
    /// higher value wins.
    const fn specificity(self) -> u8 {
        match self {
            SecretKind::PrivateKey => 4,
            SecretKind::GenericSecret => 0,
            SecretKind::AwsSecretAccessKey | SecretKind::BearerToken => 1,
            SecretKind::Jwt => 2,
            _ => 3,
        }
    }

    /// The text that replaces a secret of this kind in [`redact`]: `[REDACTED:<kind>]`.
    pub fn redaction_marker(self) -> String {
        format!("[REDACTED:{}]", self.as_str())
    }
}

impl fmt::Display for SecretKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One suspected secret: what it is and where, never the secret itself.
///
/// `Debug` prints only the kind and the position, so a `Finding` is safe to log.
#[derive(Clone, PartialEq, Eq)]
pub struct Finding {
    /// What kind of credential it looks like.
    pub kind: SecretKind,
    /// 1-based line on which the secret starts (lines are separated by `\n`).
    pub line: usize,
    /// 1-based column, in characters (Unicode scalar values), at which the secret starts.
    pub column: usize,
    /// Byte offset of the first byte of the secret in the scanned text.
    ///
    /// For an assignment (`password = "…"`) this is the start of the value, not of the name.
    pub start: usize,
    /// Byte offset one past the last byte of the secret in the scanned text.
    pub end: usize,
}

impl Finding {
    /// The byte range of the secret in the scanned text (`start..end`).
    pub fn range(&self) -> Range<usize> {
        self.start..self.end
    }
}

impl fmt::Debug for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Positions only: the secret must not reach logs through `{:?}`.
        f.debug_struct("Finding")
            .field("kind", &self.kind)
            .field("line", &self.line)
            .field("column", &self.column)
            .field("start", &self.start)
            .field("end", &self.end)
            .finish()
    }
}

/// The result of [`redact`]: the text with every secret replaced, and what was replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redacted<'a> {
    /// The redacted text; borrowed (unchanged) when nothing was found.
    pub text: Cow<'a, str>,
    /// What was replaced, with positions in the *original* text, sorted by `start`.
    pub findings: Vec<Finding>,
}

/// What one redaction replaced: the kind of secret and the 1-based line of the returned text
/// on which its marker starts; never the value. This is what every text-returning source
/// reports next to its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Redaction {
    /// What kind of credential was replaced.
    pub kind: SecretKind,
    /// 1-based line on which the `[REDACTED:<kind>]` marker starts.
    pub line: usize,
}

impl Finding {
    /// The report of this finding: kind and line.
    pub fn redaction(&self) -> Redaction {
        Redaction {
            kind: self.kind,
            line: self.line,
        }
    }
}

/// [`redact`], owned, with the report of what was replaced (kind and line each).
pub fn redact_reported(text: &str) -> (String, Vec<Redaction>) {
    let r = redact(text);
    let report = r.findings.iter().map(Finding::redaction).collect();
    (r.text.into_owned(), report)
}

/// Shifts the lines of a report by `offset` lines (for text that is a part of a larger text).
pub fn shift_lines(report: &mut [Redaction], offset: usize) {
    for r in report {
        r.line += offset;
    }
}

static BLOCK_BEGIN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(pem::BEGIN).expect("PEM BEGIN pattern compiles"));
static PPK_BEGIN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(providers::PPK_PRIVATE).expect("PPK pattern compiles"));

/// Lines `a..b` (0-based, end exclusive, `'\n'`-separated) of `text`, joined by `'\n'`, with
/// their secrets redacted as they read in the whole text, and the report (lines numbered in
/// `text`, 1-based).
///
/// A range that starts inside a private key block (a retrieval snippet or a line range that
/// begins in the middle of a PEM body) has no `BEGIN` line of its own, so redacting the range
/// alone would let the key's lines through. The block's start is therefore looked for before
/// the range (at most 64 KiB back), the range is redacted together with it, and only the
/// range's lines are returned. Redaction keeps line counts, so the lines stay aligned.
pub fn redact_lines(text: &str, a: usize, b: usize) -> (String, Vec<Redaction>) {
    let Some((start, end)) = line_span(text, a, b) else {
        return (String::new(), Vec::new());
    };
    let window_start =
        pem::open_block_start(text, start, &BLOCK_BEGIN, &PPK_BEGIN).unwrap_or(start);
    let skip = memchr::memchr_iter(b'\n', &text.as_bytes()[window_start..start]).count();
    let r = redact(&text[window_start..end]);
    let mut offset = 0;
    for _ in 0..skip {
        match memchr::memchr(b'\n', &r.text.as_bytes()[offset..]) {
            Some(i) => offset += i + 1,
            None => offset = r.text.len(),
        }
    }
    let first_line = a + 1;
    let report = r
        .findings
        .iter()
        .filter(|f| f.end > start - window_start)
        .map(|f| Redaction {
            kind: f.kind,
            line: (f.line + a - skip).max(first_line),
        })
        .collect();
    (r.text[offset..].to_owned(), report)
}

/// The byte span of lines `a..b` of `text` (the end without its `'\n'`); `None` when `a` is
/// past the last line or the range is empty.
fn line_span(text: &str, a: usize, b: usize) -> Option<(usize, usize)> {
    if b <= a {
        return None;
    }
    let mut line = 0;
    let mut start = if a == 0 { Some(0) } else { None };
    // A byte search: a snippet deep in a large file passes thousands of lines.
    for i in memchr::memchr_iter(b'\n', text.as_bytes()) {
        line += 1;
        if line == a {
            start = Some(i + 1);
        }
        if line == b {
            return start.map(|s| (s, i));
        }
    }
    start.map(|s| (s, text.len()))
}

/// The largest cut position at or before the byte offset `at` of `line` that does not fall
/// inside a secret: a line cut there can never leave a secret's first characters behind.
/// Used by every long-line cut ([`crate::fs_scope::truncate_long_lines`]), so that redaction
/// of the cut text has nothing partial to miss.
pub fn safe_cut(line: &str, at: usize) -> usize {
    scan(line)
        .iter()
        .find(|f| f.start < at && f.end > at)
        .map_or(at, |f| f.start)
}

/// The regular expression of every detection rule, in order. For benchmarks; not a stable
/// API.
#[doc(hidden)]
pub fn rule_patterns() -> Vec<&'static str> {
    rules::patterns()
}

/// Finds every suspected secret in `text`.
///
/// The findings are sorted by `start`, never overlap, and are the same for the same input.
pub fn scan(text: &str) -> Vec<Finding> {
    let (candidates, _) = detect(text);
    locate(text, candidates)
}

/// Whether `text` contains at least one suspected secret; same answer as
/// `!scan(text).is_empty()`, but stops at the first one and skips all work for text that no
/// rule's regular expression matches.
pub fn contains_secret(text: &str) -> bool {
    rules::any_candidate(text)
}

/// Replaces every suspected secret in `text` by `[REDACTED:<kind>]`.
///
/// Only the secret is replaced, the rest of the line stays: `api_key = "…"` becomes
/// `api_key = "[REDACTED:generic_secret]"`. A secret that spans lines (a PEM private key block)
/// is replaced by one marker followed by the same line breaks it contained, so the line numbers
/// of everything after it do not change. Text without secrets is returned borrowed.
///
/// Redacting the result again changes nothing.
pub fn redact(text: &str) -> Redacted<'_> {
    let (candidates, rendered) = detect(text);
    let text_out = match rendered {
        Some(rendered) => Cow::Owned(rendered.text),
        None => Cow::Borrowed(text),
    };
    Redacted {
        text: text_out,
        findings: locate(text, candidates),
    }
}

/// At most this many re-scans of the redacted text in [`detect`].
const MAX_PASSES: usize = 4;

/// The resolved candidates of `text`, and the text redacted accordingly (`None` when there is
/// nothing to redact).
///
/// Some matches are rejected only because of what is next to them: a token glued to the
/// `-----` of a PEM `END` line fails its boundary check, and once the block is redacted the
/// same token stands alone. So the redacted text is scanned again, and whatever turns up there
/// is mapped back to the original text and added, until the redacted text comes out clean
/// (at most [`MAX_PASSES`] times). The second scan only happens when something was found; it is
/// what makes redacting a redacted text a no-op.
fn detect(text: &str) -> (Vec<Candidate>, Option<Rendered>) {
    let mut found = resolve(rules::candidates(text));
    if found.is_empty() {
        return (found, None);
    }
    let mut rendered = render(text, &found);
    for _ in 0..MAX_PASSES {
        let extra = rules::candidates(&rendered.text);
        if extra.is_empty() {
            break;
        }
        found.extend(extra.into_iter().map(|c| rendered.to_original(c)));
        found = resolve(found);
        rendered = render(text, &found);
    }
    (found, Some(rendered))
}

/// A redacted text and how its byte positions map back to the original.
struct Rendered {
    text: String,
    /// `(redacted_start, original_start, original_end, is_marker)` for each piece of the
    /// redacted text, in order; a piece runs to the next piece's `redacted_start`.
    pieces: Vec<(usize, usize, usize, bool)>,
}

impl Rendered {
    /// The original range of a candidate found in the redacted text. A bound inside a marker
    /// maps to the edge of the secret the marker replaced, so the result covers it whole.
    fn to_original(&self, c: Candidate) -> Candidate {
        let piece = |pos: usize| {
            let i = self
                .pieces
                .partition_point(|p| p.0 <= pos)
                .saturating_sub(1);
            self.pieces[i]
        };
        let (red_start, orig_start, _, marker) = piece(c.start);
        let start = if marker {
            orig_start
        } else {
            orig_start + (c.start - red_start)
        };
        let (red_start, orig_start, orig_end, marker) = piece(c.end - 1);
        let end = if marker {
            orig_end
        } else {
            orig_start + (c.end - red_start)
        };
        Candidate {
            kind: c.kind,
            start,
            end,
        }
    }
}

/// `text` with each candidate (sorted, disjoint) replaced by its marker and line breaks.
fn render(text: &str, candidates: &[Candidate]) -> Rendered {
    let mut out = String::with_capacity(text.len());
    let mut pieces = Vec::with_capacity(candidates.len() * 2 + 1);
    let mut last = 0;
    for c in candidates {
        if last < c.start {
            pieces.push((out.len(), last, c.start, false));
            out.push_str(&text[last..c.start]);
        }
        pieces.push((out.len(), c.start, c.end, true));
        out.push_str("[REDACTED:");
        out.push_str(c.kind.as_str());
        out.push(']');
        // Keep the line breaks (as written, `\n` or `\r\n`) so later lines keep their numbers.
        let secret = &text[c.start..c.end];
        for (i, _) in secret.match_indices('\n') {
            if i > 0 && secret.as_bytes()[i - 1] == b'\r' {
                out.push('\r');
            }
            out.push('\n');
        }
        last = c.end;
    }
    if last < text.len() {
        pieces.push((out.len(), last, text.len(), false));
        out.push_str(&text[last..]);
    }
    Rendered { text: out, pieces }
}

/// Makes the candidates disjoint: longest first, then most specific, then leftmost wins.
///
/// A candidate contained in a winner is dropped. A candidate that only partly overlaps a
/// winner is not dropped: the winner's range grows to cover it (keeping the winner's kind), so
/// that nothing any rule flagged is left visible next to a redaction marker.
fn resolve(mut candidates: Vec<Candidate>) -> Vec<Candidate> {
    if candidates.len() <= 1 {
        return candidates;
    }
    candidates.sort_by(|a, b| {
        (b.end - b.start)
            .cmp(&(a.end - a.start))
            .then(b.kind.specificity().cmp(&a.kind.specificity()))
            .then(a.start.cmp(&b.start))
            .then(a.kind.cmp(&b.kind))
    });
    // start -> (end, kind) of the accepted, pairwise disjoint ranges.
    let mut accepted: BTreeMap<usize, (usize, SecretKind)> = BTreeMap::new();
    for c in candidates {
        // Accepted ranges overlapping [c.start, c.end): the last one starting at or before
        // c.start (if it reaches past c.start) and every one starting inside.
        let mut overlapping: Vec<(usize, usize, SecretKind)> = Vec::new();
        if let Some((&s, &(e, k))) = accepted.range(..=c.start).next_back() {
            if e > c.start {
                overlapping.push((s, e, k));
            }
        }
        overlapping.extend(
            accepted
                .range(c.start + 1..c.end)
                .map(|(&s, &(e, k))| (s, e, k)),
        );
        match overlapping.as_slice() {
            [] => {
                accepted.insert(c.start, (c.end, c.kind));
            }
            [(s, e, _)] if *s <= c.start && *e >= c.end => {} // contained: drop
            _ => {
                // Every overlapping range was accepted earlier, so it ranks higher than `c`;
                // the union keeps the kind of the highest-ranked one (the longest).
                let mut start = c.start;
                let mut end = c.end;
                let mut best: Option<(usize, SecretKind)> = None;
                for &(s, e, k) in &overlapping {
                    accepted.remove(&s);
                    start = start.min(s);
                    end = end.max(e);
                    let len = e - s;
                    let better = match best {
                        None => true,
                        Some((best_len, best_kind)) => {
                            (len, k.specificity(), std::cmp::Reverse(k))
                                > (
                                    best_len,
                                    best_kind.specificity(),
                                    std::cmp::Reverse(best_kind),
                                )
                        }
                    };
                    if better {
                        best = Some((len, k));
                    }
                }
                let kind = best.map_or(c.kind, |(_, k)| k);
                accepted.insert(start, (end, kind));
            }
        }
    }
    accepted
        .into_iter()
        .map(|(start, (end, kind))| Candidate { kind, start, end })
        .collect()
}

/// Turns sorted candidates into findings with 1-based line and character column, in one pass
/// over the text.
fn locate(text: &str, candidates: Vec<Candidate>) -> Vec<Finding> {
    let mut findings = Vec::with_capacity(candidates.len());
    let mut pos = 0; // byte offset up to which `line` and `line_start` are known
    let mut line = 1;
    let mut line_start = 0;
    let mut column_at = (0, 1); // (byte offset, its column) on the current line, a cache
    for c in candidates {
        let between = &text[pos..c.start];
        let newlines = between.bytes().filter(|&b| b == b'\n').count();
        if newlines > 0 {
            line += newlines;
            line_start = pos + between.rfind('\n').map_or(0, |i| i + 1);
            column_at = (line_start, 1);
        }
        let (from, col) = if column_at.0 >= line_start && column_at.0 <= c.start {
            column_at
        } else {
            (line_start, 1)
        };
        let column = col + text[from..c.start].chars().count();
        column_at = (c.start, column);
        pos = c.start;
        findings.push(Finding {
            kind: c.kind,
            line,
            column,
            start: c.start,
            end: c.end,
        });
    }
    findings
}
