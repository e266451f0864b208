//! Fake credentials of every [`SecretKind`], for tests and the redaction benchmark.
//!
//! Each is assembled at runtime from split prefixes and a pseudo-random body, so that no source
//! file holds a literal that a secret scanner (GitHub push protection, gitleaks) would flag, and
//! none is a real credential. Not part of the supported API.

use super::SecretKind;

/// Upper-case letters.
pub const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
/// Lower-case letters.
pub const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
/// Decimal digits.
pub const DIGITS: &str = "0123456789";
const HEX: &str = "0123456789abcdef";

/// Letters and digits.
pub fn alnum() -> String {
    [UPPER, LOWER, DIGITS].concat()
}

/// The standard base64 alphabet.
pub fn b64() -> String {
    [UPPER, LOWER, DIGITS, "+/"].concat()
}

/// The base64url alphabet.
pub fn b64url() -> String {
    [UPPER, LOWER, DIGITS, "-_"].concat()
}

/// A deterministic pseudo-random string of `len` characters from `alphabet` (xorshift).
pub fn rnd(seed: u64, len: usize, alphabet: &str) -> String {
    crate::test_rng::Xorshift::seeded(seed).chars(len, alphabet)
}

/// Standard base64 (with `=` padding) or base64url (without) of `bytes`.
pub fn base64(bytes: &[u8], url: bool) -> String {
    let alphabet: Vec<char> = if url { b64url() } else { b64() }.chars().collect();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let mut acc = 0u32;
        for (i, &b) in chunk.iter().enumerate() {
            acc |= u32::from(b) << (16 - 8 * i);
        }
        for i in 0..=chunk.len() {
            out.push(alphabet[((acc >> (18 - 6 * i)) & 63) as usize]);
        }
        if !url {
            for _ in chunk.len()..3 {
                out.push('=');
            }
        }
    }
    out
}

/// `a` + `b`: keeps prefixes out of the source as one literal.
fn p(a: &str, b: &str) -> String {
    [a, b].concat()
}

fn pem(seed: u64) -> String {
    let label = p("PRIVATE ", "KEY");
    let mut lines = vec![format!("-----{} RSA {label}-----", "BEGIN")];
    for i in 0..4 {
        lines.push(rnd(seed + i, 64, &b64()));
    }
    lines.push(format!("{}==", rnd(seed + 9, 22, &b64())));
    lines.push(format!("-----{} RSA {label}-----", "END"));
    lines.join("\n")
}

fn ppk(seed: u64) -> String {
    let mut lines = vec![
        format!("{}: ssh-rsa", p("PuTTY-User-", "Key-File-2")),
        "Encryption: none".to_owned(),
        "Comment: rsa-key-20240101".to_owned(),
        "Public-Lines: 2".to_owned(),
        rnd(seed, 64, &b64()),
        format!("{}=", rnd(seed + 1, 23, &b64())),
        format!("{}: 3", p("Private-", "Lines")),
    ];
    for i in 0..2 {
        lines.push(rnd(seed + 2 + i, 64, &b64()));
    }
    lines.push(format!("{}==", rnd(seed + 5, 22, &b64())));
    lines.push(format!(
        "{}: {}",
        p("Private-", "MAC"),
        rnd(seed + 6, 40, HEX)
    ));
    lines.join("\n")
}

/// One or more fake secrets of `kind`, each in a typical context (an assignment, a URL, a
/// config line), different for each `seed`. Every text holds exactly one secret.
// One arm per secret kind: a table of samples.
#[allow(clippy::too_many_lines)]
pub fn samples(kind: SecretKind, seed: u64) -> Vec<String> {
    let s = seed;
    let an = alnum();
    match kind {
        SecretKind::PrivateKey => vec![pem(s), ppk(s)],
        SecretKind::AwsAccessKeyId => vec![format!(
            "aws_access_key_id = {}",
            p("AK", &p("IA", &rnd(s, 16, &p(UPPER, DIGITS))))
        )],
        SecretKind::AwsSecretAccessKey => {
            vec![format!("aws_secret_access_key={}", rnd(s, 40, &b64()))]
        }
        SecretKind::GithubToken => vec![format!("GH_TOKEN={}", p("gh", &p("p_", &rnd(s, 36, &an))))],
        SecretKind::GitlabToken => vec![format!("token: {}", p("glp", &p("at-", &rnd(s, 20, &an))))],
        SecretKind::SlackToken => vec![format!(
            "SLACK={}-{}-{}-{}",
            p("xo", "xb"),
            rnd(s, 11, DIGITS),
            rnd(s + 1, 13, DIGITS),
            rnd(s + 2, 24, &an)
        )],
        SecretKind::SlackWebhook => vec![format!(
            "url = \"https://{}/services/T{}/B{}/{}\"",
            p("hooks.sl", "ack.com"),
            rnd(s, 8, &p(UPPER, DIGITS)),
            rnd(s + 1, 10, &p(UPPER, DIGITS)),
            rnd(s + 2, 24, &an)
        )],
        SecretKind::OpenAiKey => vec![format!("OPENAI={}", p("sk-", &rnd(s, 48, &an)))],
        SecretKind::AnthropicKey => vec![format!(
            "key = '{}{}AA'",
            p("sk-an", "t-api03-"),
            rnd(s, 93, &b64url())
        )],
        SecretKind::StripeKey => vec![format!("stripe({})", p("sk_li", &p("ve_", &rnd(s, 24, &an))))],
        SecretKind::GoogleApiKey => vec![format!(
            "https://maps.example.com/api?key={}",
            p("AI", &p("za", &rnd(s, 35, &b64url())))
        )],
        SecretKind::Jwt => {
            let header = base64(br#"{"alg":"HS256","typ":"JWT"}"#, true);
            let payload = base64(br#"{"sub":"1234567890","iat":1516239022}"#, true);
            vec![format!(
                "session = {header}.{payload}.{}",
                rnd(s, 43, &b64url())
            )]
        }
        SecretKind::GenericSecret => vec![
            format!("client_secret = \"{}\"", rnd(s, 30, &an)),
            format!("DB_PASSWORD = \"test{}\"", rnd(s, 5, DIGITS)),
            format!(
                "password: \"mein pässwort {}\"",
                rnd(s, 4, DIGITS)
            ),
        ],
        SecretKind::AzureStorageKey => vec![format!(
            "DefaultEndpointsProtocol=https;AccountName=acct;{}={}==;EndpointSuffix=core.windows.net",
            p("Account", "Key"),
            rnd(s, 86, &b64())
        )],
        SecretKind::AzureSasToken => vec![format!(
            "https://acct.blob.core.windows.net/c?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2030-01-01T00:00:00Z&{}={}%3D",
            p("si", "g"),
            rnd(s, 43, &an)
        )],
        SecretKind::NpmToken => vec![format!(
            "//registry.npmjs.org/:_authToken={}",
            p("np", &p("m_", &rnd(s, 36, &an)))
        )],
        SecretKind::SendgridKey => vec![format!(
            "SENDGRID = '{}.{}.{}'",
            p("S", "G"),
            rnd(s, 22, &b64url()),
            rnd(s + 1, 43, &b64url())
        )],
        SecretKind::TwilioKey => vec![format!("twilio.sid = {}", p("S", &p("K", &rnd(s, 32, HEX))))],
        SecretKind::MailgunKey => vec![format!("mg = \"{}\"", p("ke", &p("y-", &rnd(s, 32, HEX))))],
        SecretKind::HuggingFaceToken => {
            vec![format!("HF_TOKEN={}", p("h", &p("f_", &rnd(s, 34, &p(UPPER, LOWER)))))]
        }
        SecretKind::DigitalOceanToken => {
            vec![format!("do = \"{}\"", p("dop", &p("_v1_", &rnd(s, 64, HEX))))]
        }
        SecretKind::PypiToken => vec![format!(
            "password = {}{}",
            p("pypi-AgEI", "cHlwaS5vcmc"),
            rnd(s, 70, &b64url())
        )],
        SecretKind::TelegramBotToken => vec![format!(
            "bot = Bot(\"{}:{}{}\")",
            rnd(s, 10, DIGITS).replace('0', "7"),
            p("A", "A"),
            rnd(s + 1, 33, &b64url())
        )],
        SecretKind::DiscordToken => {
            let id = format!("1{}", rnd(s, 17, DIGITS));
            vec![format!(
                "client.run('{}.{}.{}')",
                base64(id.as_bytes(), true),
                rnd(s + 1, 6, &b64url()),
                rnd(s + 2, 38, &b64url())
            )]
        }
        SecretKind::VaultToken => vec![format!(
            "VAULT_TOKEN={}",
            p("hv", &p("s.", &rnd(s, 90, &b64url())))
        )],
        SecretKind::AgeSecretKey => vec![p(
            "AGE-SECRET-",
            &p("KEY-1", &rnd(s, 58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")),
        )],
        SecretKind::GoogleOauthSecret => vec![format!(
            "\"client_secret\": \"{}\"",
            p("GOC", &p("SPX-", &rnd(s, 28, &b64url())))
        )],
        SecretKind::BearerToken => vec![format!(
            "const h = \"{} {}\";",
            p("Bear", "er"),
            rnd(s, 40, &an)
        )],
        SecretKind::ShopifyToken => vec![format!("shop = '{}'", p("shp", &p("at_", &rnd(s, 32, HEX))))],
        SecretKind::DatabricksToken => {
            vec![format!("host_token = {}", p("da", &p("pi", &rnd(s, 32, HEX))))]
        }
        SecretKind::LinearKey => vec![format!("LINEAR={}", p("lin_", &p("api_", &rnd(s, 40, &an))))],
        SecretKind::PostmanKey => vec![format!(
            "postman: {}-{}-{}",
            p("PM", "AK"),
            rnd(s, 24, HEX),
            rnd(s + 1, 34, HEX)
        )],
        SecretKind::DopplerToken => {
            vec![format!("DOPPLER={}", p("dp.", &p("pt.", &rnd(s, 43, &an))))]
        }
        SecretKind::GrafanaToken => vec![format!(
            "grafana = \"{}_{}_{}\"",
            p("gl", "sa"),
            rnd(s, 32, &an),
            rnd(s + 1, 8, HEX)
        )],
        SecretKind::NewRelicKey => vec![format!("NR={}", p("NR", &p("AK-", &rnd(s, 27, &p(UPPER, DIGITS)))))],
        SecretKind::SentryToken => vec![format!("SENTRY={}", p("sntr", &p("yu_", &rnd(s, 64, HEX))))],
        SecretKind::SupabaseToken => vec![format!("SUPABASE={}", p("sb", &p("p_", &rnd(s, 40, HEX))))],
        SecretKind::AiProviderKey => vec![format!("GROQ={}", p("gs", &p("k_", &rnd(s, 52, &an))))],
        SecretKind::DockerHubToken => {
            vec![format!("docker login -p {}", p("dckr", &p("_pat_", &rnd(s, 27, &an))))]
        }
        SecretKind::MapboxToken => vec![format!(
            "mapbox = '{}{}.{}'",
            p("sk.e", "yJ"),
            rnd(s, 60, &b64url()),
            rnd(s + 1, 22, &b64url())
        )],
        SecretKind::SquareToken => vec![format!("square = {}", p("EA", &p("AA", &rnd(s, 60, &b64url()))))],
        SecretKind::PulumiToken => vec![format!("PULUMI={}", p("pu", &p("l-", &rnd(s, 40, HEX))))],
        SecretKind::HerokuKey => vec![format!("HEROKU={}", p("HR", &p("KU-", &rnd(s, 60, &b64url()))))],
        SecretKind::TerraformToken => vec![format!(
            "token = \"{}.{}.{}\"",
            rnd(s, 14, &an),
            p("atl", "asv1"),
            rnd(s + 1, 67, &an)
        )],
        SecretKind::AlibabaKey => vec![format!("ak = {}", p("LT", &p("AI", &rnd(s, 20, &an))))],
    }
}
