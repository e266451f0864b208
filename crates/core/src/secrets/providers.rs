//! Provider-specific token formats beyond the original table in [`super::rules`]: the cloud,
//! package-registry, messaging and AI providers of gitleaks' and GitHub secret scanning's
//! default rules that an agent's repository is likely to hold.
//!
//! The patterns are our own, written from the providers' documented token formats. Every one
//! has a fixed prefix or a fixed structure, is checked for token boundaries, and its random part
//! must pass [`generic::token_body_ok`] (enough distinct characters, no filler run, no
//! `EXAMPLE`), so lockfile hashes, UUIDs, git SHAs, base64 images and CSS colours do not match.

use super::generic;
use super::rules::{is_alnum, is_alnum_underscore, is_alnum_underscore_dash, Check, Rule};
use super::SecretKind;

/// A prefixed token: `boundary` and `valid` as in [`Check::Token`].
const fn token(
    kind: SecretKind,
    pattern: &'static str,
    boundary: fn(u8) -> bool,
    valid: fn(&str) -> bool,
) -> Rule {
    Rule {
        kind,
        pattern,
        check: Check::Token { boundary, valid },
    }
}

/// A value recognised by the name or structure around it: capture group 1 is the secret.
const fn keyed(kind: SecretKind, pattern: &'static str, valid: fn(&str) -> bool) -> Rule {
    Rule {
        kind,
        pattern,
        check: Check::Keyed { valid },
    }
}

/// Azure storage account keys: 64 random bytes, so 86 base64 characters and `==`, in a
/// connection string (`AccountKey=…`) or assigned to a storage/account key name.
const AZURE_STORAGE_KEY: &str = concat!(
    r"(?i:AccountKey=|(?:storage|account)[A-Za-z0-9_.-]{0,32}key[A-Za-z0-9_]{0,16}",
    r#"["']?\]?[ \t]*(?::=|=>|=|:)[ \t]*["'`]?)"#,
    r"([A-Za-z0-9+/]{86}==)",
);

/// An Azure shared access signature: the `sig=` of a query that also carries the `sv=`
/// service version (`?sv=2022-11-02&ss=b&…&sig=…%3D`).
const AZURE_SAS: &str = concat!(
    r"sv=[0-9]{4}-[0-9]{2}-[0-9]{2}[A-Za-z0-9=&%:._+-]{0,512}?",
    r"&sig=([A-Za-z0-9%+/]{30,}(?:%3[Dd]|=){0,2})",
);

/// A `PuTTY` private key file: the `Private-Lines: N` section and its `Private-MAC` line.
pub(super) const PPK_PRIVATE: &str = r"Private-Lines:[ \t]*[0-9]{1,4}[ \t]*\r?\n";

/// `Bearer <token>` written inside a string literal anywhere, e.g. assigned to a variable that
/// has no secret-sounding name (`const h = "Bearer …"`).
const BEARER: &str = r#"["'`](?i:bearer)[ \t]+([A-Za-z0-9._~+/-]{16,}=*)["'`]"#;

pub(super) const RULES: &[Rule] = &[
    keyed(
        SecretKind::AzureStorageKey,
        AZURE_STORAGE_KEY,
        valid_azure_key,
    ),
    keyed(SecretKind::AzureSasToken, AZURE_SAS, valid_sas),
    token(
        SecretKind::NpmToken,
        r"npm_[A-Za-z0-9]{36}",
        is_alnum_underscore,
        valid_after_underscore,
    ),
    token(
        SecretKind::SendgridKey,
        r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}",
        is_alnum_underscore_dash,
        valid_after_dot,
    ),
    token(
        SecretKind::TwilioKey,
        r"SK[0-9a-f]{32}",
        is_alnum,
        valid_after_2,
    ),
    token(
        SecretKind::MailgunKey,
        r"key-[0-9a-f]{32}",
        is_alnum_underscore_dash,
        valid_after_dash,
    ),
    token(
        SecretKind::MailgunKey,
        r"[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}",
        is_alnum_underscore_dash,
        valid_whole,
    ),
    token(
        SecretKind::HuggingFaceToken,
        r"(?:hf_|api_org_)[A-Za-z]{34}",
        is_alnum_underscore,
        valid_after_underscore,
    ),
    token(
        SecretKind::DigitalOceanToken,
        r"do[opr]_v1_[a-f0-9]{64}",
        is_alnum_underscore,
        valid_after_underscore,
    ),
    token(
        SecretKind::PypiToken,
        r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}",
        is_alnum_underscore_dash,
        valid_after_dash,
    ),
    token(
        SecretKind::TelegramBotToken,
        r"[0-9]{8,10}:AA[A-Za-z0-9_-]{33}",
        is_alnum_underscore_dash,
        valid_telegram,
    ),
    // `[MNO][A-Za-z0-9_-]{23,27}\.…` as one pattern makes the set's DFA remember where every
    // recent M, N or O was (an exponential state blow-up that cut the whole scan to 1 MB/s):
    // the pattern starts at the first dot and the ID segment is found by looking back.
    Rule {
        kind: SecretKind::DiscordToken,
        pattern: r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}",
        check: Check::DiscordBot,
    },
    token(
        SecretKind::DiscordToken,
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_-]{60,}",
        is_alnum_underscore_dash,
        valid_after_slash,
    ),
    token(
        SecretKind::VaultToken,
        r"hv[sbr]\.[A-Za-z0-9_-]{24,}",
        is_alnum_underscore_dash,
        valid_after_dot,
    ),
    token(
        SecretKind::AgeSecretKey,
        r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
        is_alnum_underscore_dash,
        valid_after_last_dash,
    ),
    Rule {
        kind: SecretKind::PrivateKey,
        pattern: PPK_PRIVATE,
        check: Check::PpkBlock,
    },
    token(
        SecretKind::GoogleOauthSecret,
        r"GOCSPX-[A-Za-z0-9_-]{28}",
        is_alnum_underscore_dash,
        valid_after_dash,
    ),
    keyed(SecretKind::BearerToken, BEARER, valid_bearer),
    // Further providers of gitleaks' and GitHub's default rules.
    token(
        SecretKind::ShopifyToken,
        r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
        is_alnum_underscore,
        valid_after_underscore,
    ),
    token(
        SecretKind::DatabricksToken,
        r"dapi[a-f0-9]{32}(?:-[0-9])?",
        is_alnum_underscore_dash,
        valid_after_4,
    ),
    token(
        SecretKind::LinearKey,
        r"lin_(?:api|oauth)_[A-Za-z0-9]{40}",
        is_alnum_underscore,
        valid_after_underscore,
    ),
    token(
        SecretKind::PostmanKey,
        r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}",
        is_alnum_underscore_dash,
        valid_after_dash,
    ),
    token(
        SecretKind::DopplerToken,
        r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}",
        is_alnum_underscore,
        valid_after_dot,
    ),
    token(
        SecretKind::GrafanaToken,
        r"(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,400}={0,2})",
        is_alnum_underscore,
        valid_after_underscore,
    ),
    token(
        SecretKind::NewRelicKey,
        r"NR(?:AK|II|JS)-[A-Za-z0-9]{27}",
        is_alnum_underscore_dash,
        valid_after_dash,
    ),
    token(
        SecretKind::SentryToken,
        r"(?:sntrys_eyJ[A-Za-z0-9+/=_-]{60,}|sntryu_[a-f0-9]{64})",
        is_alnum_underscore,
        valid_after_underscore,
    ),
    token(
        SecretKind::SupabaseToken,
        r"sb(?:p|_secret)_[A-Za-z0-9_-]{32,64}",
        is_alnum_underscore_dash,
        valid_after_last_underscore,
    ),
    token(
        SecretKind::AiProviderKey,
        r"(?:gsk_[A-Za-z0-9]{52}|r8_[A-Za-z0-9]{37}|pplx-[A-Za-z0-9]{48}|xai-[A-Za-z0-9]{80})",
        is_alnum_underscore_dash,
        valid_after_first_sep,
    ),
    token(
        SecretKind::DockerHubToken,
        r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}",
        is_alnum_underscore_dash,
        valid_after_last_underscore,
    ),
    token(
        SecretKind::MapboxToken,
        r"sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}",
        is_alnum_underscore_dash,
        valid_after_dot,
    ),
    token(
        SecretKind::SquareToken,
        r"(?:EAAA[A-Za-z0-9_-]{60}|sq0(?:atp|csp)-[A-Za-z0-9_-]{22,43})",
        is_alnum_underscore_dash,
        valid_after_first_sep,
    ),
    token(
        SecretKind::PulumiToken,
        r"pul-[a-f0-9]{40}",
        is_alnum_underscore_dash,
        valid_after_dash,
    ),
    token(
        SecretKind::HerokuKey,
        r"HRKU-(?:AA)?[A-Za-z0-9_-]{58,60}",
        is_alnum_underscore_dash,
        valid_after_dash,
    ),
    token(
        SecretKind::TerraformToken,
        r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}",
        is_alnum_underscore_dash,
        valid_after_last_dot,
    ),
    token(
        SecretKind::AlibabaKey,
        r"LTAI[A-Za-z0-9]{20}",
        is_alnum,
        valid_after_4,
    ),
];

fn valid_whole(token: &str) -> bool {
    generic::token_body_ok(token)
}

fn valid_after_2(token: &str) -> bool {
    generic::token_body_ok(&token[2..])
}

fn valid_after_4(token: &str) -> bool {
    generic::token_body_ok(&token[4..])
}

fn valid_after_underscore(token: &str) -> bool {
    generic::token_body_ok(token.split_once('_').map_or(token, |(_, b)| b))
}

fn valid_after_last_underscore(token: &str) -> bool {
    generic::token_body_ok(token.rsplit_once('_').map_or(token, |(_, b)| b))
}

fn valid_after_dash(token: &str) -> bool {
    generic::token_body_ok(token.split_once('-').map_or(token, |(_, b)| b))
}

fn valid_after_last_dash(token: &str) -> bool {
    generic::token_body_ok(token.rsplit_once('-').map_or(token, |(_, b)| b))
}

fn valid_after_dot(token: &str) -> bool {
    generic::token_body_ok(token.split_once('.').map_or(token, |(_, b)| b))
}

fn valid_after_last_dot(token: &str) -> bool {
    generic::token_body_ok(token.rsplit_once('.').map_or(token, |(_, b)| b))
}

fn valid_after_slash(token: &str) -> bool {
    generic::token_body_ok(token.rsplit_once('/').map_or(token, |(_, b)| b))
}

fn valid_after_first_sep(token: &str) -> bool {
    let i = token.find(['_', '-']).map_or(0, |i| i + 1);
    generic::token_body_ok(&token[i..])
}

fn valid_azure_key(value: &str) -> bool {
    generic::token_body_ok(value) && generic::shannon_entropy(value) >= 4.5
}

fn valid_sas(sig: &str) -> bool {
    generic::token_body_ok(sig) && generic::shannon_entropy(sig) >= 3.5
}

/// A bot ID of digits, then `:AA` and the random part.
fn valid_telegram(token: &str) -> bool {
    token
        .split_once(':')
        .is_some_and(|(_, b)| generic::token_body_ok(&b[2..]))
}

/// The start of a Discord bot token whose `.timestamp.hmac` tail starts at `dot`: the ID
/// segment before it (23 to 27 token characters, the first `M`, `N` or `O`, nothing glued
/// before), when the whole token is valid.
pub(super) fn discord_start(text: &str, dot: usize, end: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut start = dot;
    while start > 0 && dot - start <= 27 && is_alnum_underscore_dash(bytes[start - 1]) {
        start -= 1;
    }
    let len = dot - start;
    let glued = start > 0 && is_alnum_underscore_dash(bytes[start - 1]);
    ((23..=27).contains(&len)
        && !glued
        && matches!(bytes[start], b'M' | b'N' | b'O')
        && valid_discord(&text[start..end]))
    .then_some(start)
}

/// A Discord bot token's first segment is the bot's numeric user ID in base64.
fn valid_discord(token: &str) -> bool {
    let mut parts = token.split('.');
    let id = parts.next().and_then(generic::base64_decode);
    let Some(id) = id else { return false };
    (17..=20).contains(&id.len())
        && id.iter().all(u8::is_ascii_digit)
        && parts.next_back().is_some_and(generic::token_body_ok)
}

fn valid_bearer(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    generic::token_body_ok(value)
        && generic::shannon_entropy(value) >= 3.5
        && !["token", "your", "xxx", "<", "${"]
            .iter()
            .any(|m| lower.contains(m))
}
