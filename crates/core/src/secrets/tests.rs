//! Tests of the public API.
//!
//! Every fake secret is assembled at runtime from a prefix and a pseudo-random body, so this
//! file holds no string that a secret scanner (GitHub push protection, gitleaks, …) would flag.

use std::borrow::Cow;

use proptest::prelude::*;

use super::*;
use crate::secrets::fakes;

// Deterministic pseudo-random strings and alphabets, shared with the fakes of the corpus.
use super::fakes::{alnum, b64 as base64_chars, b64url as base64url_chars, rnd, DIGITS, UPPER};

fn upper_alnum() -> String {
    [UPPER, DIGITS].concat()
}

/// Base64url without padding.
fn b64url_encode(bytes: &[u8]) -> String {
    fakes::base64(bytes, true)
}

// ---- fake secrets ----------------------------------------------------------------------

fn github_token(prefix: &str, seed: u64) -> String {
    format!("{}_{}", prefix, rnd(seed, 36, &alnum()))
}

fn github_fine_grained(seed: u64) -> String {
    format!(
        "{}{}_{}",
        "github_pat_",
        rnd(seed, 22, &alnum()),
        rnd(seed + 1, 59, &alnum())
    )
}

fn gitlab_token(prefix: &str, seed: u64) -> String {
    format!("{}-{}", prefix, rnd(seed, 20, &base64url_chars()))
}

fn slack_bot_token(seed: u64) -> String {
    format!(
        "{}-{}-{}-{}",
        "xoxb",
        rnd(seed, 11, DIGITS),
        rnd(seed + 1, 13, DIGITS),
        rnd(seed + 2, 24, &alnum())
    )
}

fn slack_webhook(seed: u64) -> String {
    format!(
        "https://{}/services/T{}/B{}/{}",
        "hooks.slack.com",
        rnd(seed, 8, &upper_alnum()),
        rnd(seed + 1, 10, &upper_alnum()),
        rnd(seed + 2, 24, &alnum())
    )
}

fn openai_project_key(seed: u64) -> String {
    format!(
        "{}-{}-{}{}{}",
        "sk",
        "proj",
        rnd(seed, 40, &base64url_chars()),
        ["T3Bl", "bkFJ"].concat(),
        rnd(seed + 1, 40, &base64url_chars())
    )
}

fn openai_legacy_key(seed: u64) -> String {
    format!("{}-{}", "sk", rnd(seed, 48, &alnum()))
}

fn anthropic_key(seed: u64) -> String {
    format!(
        "{}-{}-{}-{}AA",
        "sk",
        "ant",
        "api03",
        rnd(seed, 93, &base64url_chars())
    )
}

fn stripe_key(prefix: &str, seed: u64) -> String {
    format!("{}_{}", prefix, rnd(seed, 24, &alnum()))
}

fn google_api_key(seed: u64) -> String {
    format!(
        "{}{}",
        "AI",
        ["za", &rnd(seed, 35, &base64url_chars())].concat()
    )
}

fn aws_key_id(seed: u64) -> String {
    format!(
        "{}{}",
        "AK",
        ["IA", &rnd(seed, 16, &upper_alnum())].concat()
    )
}

fn aws_secret(seed: u64) -> String {
    rnd(seed, 40, &base64_chars())
}

fn jwt(seed: u64) -> String {
    let header = b64url_encode(br#"{"alg":"HS256","typ":"JWT"}"#);
    let payload = b64url_encode(br#"{"sub":"1234567890","name":"Jane Roe","iat":1516239022}"#);
    format!("{header}.{payload}.{}", rnd(seed, 43, &base64url_chars()))
}

fn pem_header(label: &str) -> String {
    format!("-----{} {}PRIVATE KEY-----", "BEGIN", label)
}

fn pem_footer(label: &str) -> String {
    format!("-----{} {}PRIVATE KEY-----", "END", label)
}

/// Base64 body lines of a fake key: `lines` full lines of 64 characters and a short last one.
fn pem_body(seed: u64, lines: usize) -> Vec<String> {
    let mut body: Vec<String> = (0..lines)
        .map(|i| rnd(seed + i as u64, 64, &base64_chars()))
        .collect();
    body.push(format!("{}==", rnd(seed + 99, 22, &base64_chars())));
    body
}

fn pem_block(label: &str, seed: u64, lines: usize, newline: &str) -> String {
    let mut all = vec![pem_header(label)];
    all.extend(pem_body(seed, lines));
    all.push(pem_footer(label));
    all.join(newline)
}

/// A random value for generic assignments.
fn generic_value(seed: u64, len: usize) -> String {
    rnd(seed, len, &alnum())
}

// ---- helpers ---------------------------------------------------------------------------

fn kinds(text: &str) -> Vec<SecretKind> {
    scan(text).into_iter().map(|f| f.kind).collect()
}

/// Asserts exactly one finding: its kind, its position and that it covers exactly `secret`.
fn assert_single(text: &str, kind: SecretKind, secret: &str, line: usize, column: usize) {
    let findings = scan(text);
    assert_eq!(findings.len(), 1, "{findings:?} in {text:?}");
    let f = &findings[0];
    assert_eq!(f.kind, kind, "{text:?}");
    assert_eq!(&text[f.range()], secret, "{text:?}");
    assert_eq!((f.line, f.column), (line, column), "{text:?}");
    assert!(contains_secret(text));
}

fn assert_clean(text: &str) {
    let findings = scan(text);
    assert!(findings.is_empty(), "unexpected {findings:?} in {text:?}");
    assert!(!contains_secret(text), "{text:?}");
    assert!(matches!(redact(text).text, Cow::Borrowed(_)));
}

// ---- kinds and API basics --------------------------------------------------------------

#[test]
fn kind_names_are_snake_case_and_unique() {
    let names: Vec<&str> = SecretKind::ALL.iter().map(|k| k.as_str()).collect();
    assert_eq!(names[0], "private_key");
    assert_eq!(names[1], "aws_access_key_id");
    assert_eq!(names[12], "generic_secret");
    for name in &names {
        assert!(
            name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
            "{name}"
        );
    }
    let mut sorted = names.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), names.len());
    assert_eq!(
        SecretKind::AwsAccessKeyId.description(),
        "AWS access key ID"
    );
    assert_eq!(SecretKind::Jwt.to_string(), "jwt");
    assert_eq!(
        SecretKind::GithubToken.redaction_marker(),
        "[REDACTED:github_token]"
    );
}

#[test]
fn empty_and_clean_text() {
    assert_clean("");
    assert_clean("fn main() {\n    println!(\"hello\");\n}\n");
    let r = redact("nothing to see");
    assert!(matches!(r.text, Cow::Borrowed("nothing to see")));
    assert!(r.findings.is_empty());
}

// ---- one true positive per rule --------------------------------------------------------

#[test]
fn private_key_block() {
    let block = pem_block("RSA ", 1, 5, "\n");
    let text = format!("# deploy key\nKEY = \"\"\"{block}\"\"\"\nprint(KEY)\n");
    assert_single(&text, SecretKind::PrivateKey, &block, 2, 10);
}

#[test]
fn private_key_block_variants() {
    for label in ["", "EC ", "DSA ", "OPENSSH ", "ENCRYPTED "] {
        let block = pem_block(label, 2, 3, "\n");
        assert_single(&block, SecretKind::PrivateKey, &block, 1, 1);
    }
    // PGP armor ends in BLOCK and has header fields and a blank line before the body.
    let body = pem_body(3, 4).join("\n");
    let pgp = format!(
        "-----{} PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n{body}\n-----{} PGP PRIVATE KEY BLOCK-----",
        "BEGIN", "END"
    );
    assert_single(&pgp, SecretKind::PrivateKey, &pgp, 1, 1);
}

#[test]
fn aws_access_key_id() {
    let key = aws_key_id(4);
    let text = format!("[default]\naws_access_key_id = {key}\n");
    assert_single(&text, SecretKind::AwsAccessKeyId, &key, 2, 21);
    for (i, prefix) in ["AS", "AB", "AC"].iter().enumerate() {
        let tail = if *prefix == "AC" { "CA" } else { "IA" };
        let key = format!("{prefix}{tail}{}", rnd(5 + i as u64, 16, &upper_alnum()));
        assert_eq!(kinds(&format!("id: {key}")), [SecretKind::AwsAccessKeyId]);
    }
}

#[test]
fn aws_secret_access_key() {
    let secret = aws_secret(6);
    for (text, column) in [
        (format!("aws_secret_access_key = {secret}"), 25),
        (format!("AWS_SECRET_ACCESS_KEY=\"{secret}\""), 24),
        (format!("  secretAccessKey: '{secret}',"), 21),
    ] {
        assert_single(&text, SecretKind::AwsSecretAccessKey, &secret, 1, column);
    }
    // Without a keyword, 40 base64 characters are nothing in particular.
    assert_clean(&format!("checksum = \"{secret}\""));
}

#[test]
fn github_tokens() {
    for (i, prefix) in ["ghp", "gho", "ghu", "ghs", "ghr"].iter().enumerate() {
        let token = github_token(prefix, 10 + i as u64);
        let text = format!("git clone https://github.com/o/r\nexport GH={token}\n");
        assert_single(&text, SecretKind::GithubToken, &token, 2, 11);
    }
    let fine = github_fine_grained(20);
    assert_single(
        &format!("token: {fine}"),
        SecretKind::GithubToken,
        &fine,
        1,
        8,
    );
}

#[test]
fn gitlab_tokens() {
    for (i, prefix) in ["glpat", "gldt", "glrt", "glptt", "glcbt", "glft", "gloas"]
        .iter()
        .enumerate()
    {
        let token = gitlab_token(prefix, 30 + i as u64);
        let text = format!("curl -H \"PRIVATE-TOKEN: {token}\" https://gitlab.example/api");
        assert_single(&text, SecretKind::GitlabToken, &token, 1, 25);
    }
}

#[test]
fn slack_token_and_webhook() {
    let token = slack_bot_token(40);
    assert_single(
        &format!("SLACK_BOT={token}"),
        SecretKind::SlackToken,
        &token,
        1,
        11,
    );
    let user = format!(
        "{}-{}-{}-{}-{}",
        "xoxp",
        rnd(41, 12, DIGITS),
        rnd(42, 12, DIGITS),
        rnd(43, 12, DIGITS),
        rnd(44, 32, "0123456789abcdef")
    );
    assert_eq!(kinds(&format!("t = '{user}'")), [SecretKind::SlackToken]);
    let hook = slack_webhook(45);
    let text = format!("notify:\n  url: {hook}\n");
    assert_single(&text, SecretKind::SlackWebhook, &hook, 2, 8);
}

#[test]
fn openai_keys() {
    let project = openai_project_key(50);
    assert_single(
        &format!("OPENAI_API_KEY={project}"),
        SecretKind::OpenAiKey,
        &project,
        1,
        16,
    );
    let legacy = openai_legacy_key(51);
    assert_single(
        &format!("client = OpenAI(api_key=\"{legacy}\")"),
        SecretKind::OpenAiKey,
        &legacy,
        1,
        26,
    );
    let service = format!("{}-{}-{}", "sk", "svcacct", rnd(52, 64, &base64url_chars()));
    assert_eq!(kinds(&service), [SecretKind::OpenAiKey]);
}

#[test]
fn anthropic_key_is_not_openai() {
    let key = anthropic_key(60);
    assert_single(
        &format!("ANTHROPIC_API_KEY=\"{key}\""),
        SecretKind::AnthropicKey,
        &key,
        1,
        20,
    );
    let admin = format!(
        "{}-{}-{}-{}AA",
        "sk",
        "ant",
        "admin01",
        rnd(61, 93, &alnum())
    );
    assert_eq!(kinds(&admin), [SecretKind::AnthropicKey]);
}

#[test]
fn stripe_keys() {
    for (i, prefix) in ["sk_live", "rk_live", "sk_test", "rk_test"]
        .iter()
        .enumerate()
    {
        let key = stripe_key(prefix, 70 + i as u64);
        assert_single(
            &format!("Stripe.api_key = '{key}'"),
            SecretKind::StripeKey,
            &key,
            1,
            19,
        );
    }
    // Publishable keys are public by design.
    assert_clean(&format!("const pk = '{}';", stripe_key("pk_live", 75)));
}

#[test]
fn google_api_key_in_url() {
    let key = google_api_key(80);
    let text = format!("<script src=\"https://maps.googleapis.com/maps/api/js?key={key}\">");
    assert_single(&text, SecretKind::GoogleApiKey, &key, 1, 58);
}

#[test]
fn json_web_token() {
    let token = jwt(90);
    let text = format!("fetch(url, {{\n  headers: {{ Authorization: `Bearer {token}` }},\n}});");
    assert_single(&text, SecretKind::Jwt, &token, 2, 37);
    // Three base64url segments whose header is not a JWS header are not a JWT.
    let not_header = b64url_encode(br#"{"name":"value","other":1}"#);
    let fake = format!(
        "{not_header}.{}.{}",
        b64url_encode(br#"{"a":1234567}"#),
        rnd(91, 43, &base64url_chars())
    );
    assert_clean(&fake);
}

#[test]
fn generic_assignments() {
    let v = generic_value(100, 24);
    let cases = [
        (format!("password = \"{v}\""), 13),
        (format!("DB_PASSWORD={v}"), 13),
        (format!("export API_TOKEN=\"{v}\""), 19),
        (format!("  client_secret: {v}"), 18),
        (format!("{{\"apiKey\": \"{v}\"}}"), 13),
        (format!("config['api_key'] = '{v}'"), 22),
        (format!("const API_KEY: &str = \"{v}\";"), 24),
        (format!("apiKey := \"{v}\""), 12),
        (format!("'db_pass' => '{v}',"), 15),
        (format!("mysql --password={v} db"), 18),
        (format!("login --token {v}"), 15),
        (format!("<password>{v}</password>"), 11),
        (format!("Authorization: Basic {v}"), 22),
        (format!("private val signingKey = \"{v}\""), 27),
        (format!("spring.datasource.password={v}"), 28),
        (
            format!("curl -H \"X-API-Key: {v}\" https://api.example.com"),
            21,
        ),
        (format!("<add key=\"ApiKey\" value=\"{v}\" />"), 26),
        (format!("define('DB_PASSWORD', '{v}');"), 24),
        (format!("headers = {{'Authorization': 'Token {v}'}}"), 36),
    ];
    for (text, column) in &cases {
        assert_single(text, SecretKind::GenericSecret, &v, 1, *column);
    }
}

#[test]
fn generic_short_password_with_mixed_classes() {
    let v = ["Tr0", "ub4", "dor&3"].concat();
    assert_single(
        &format!("password: \"{v}\""),
        SecretKind::GenericSecret,
        &v,
        1,
        12,
    );
}

#[test]
fn generic_hex_token_under_keyword() {
    let v = rnd(101, 32, "0123456789abcdef");
    assert_single(
        &format!("auth_token = \"{v}\""),
        SecretKind::GenericSecret,
        &v,
        1,
        15,
    );
}

#[test]
fn unquoted_values_count_only_on_config_lines() {
    let v = generic_value(105, 20);
    // `.env`, YAML and INI lines hold values; code holds references.
    for text in [
        format!("API_TOKEN={v}\n"),
        format!("  api_token: {v}   # rotated monthly\n"),
        format!("- SECRET={v}\n"),
    ] {
        assert_eq!(kinds(&text), [SecretKind::GenericSecret], "{text:?}");
    }
    for text in [
        format!("pub authKey: {v},\n"),
        format!("let token = {v};\n"),
        format!("call(password: {v})\n"),
    ] {
        assert_clean(&text);
    }
}

#[test]
fn basic_auth_is_judged_by_its_password() {
    let encode = |s: &str| {
        b64url_encode(s.as_bytes())
            .replace('-', "+")
            .replace('_', "/")
    };
    assert_clean(&format!("Authorization: Basic {}", encode("user:pass")));
    assert_clean(&format!(
        "Proxy-Authorization: Basic {}",
        encode("admin:admin")
    ));
    let password = generic_value(106, 14);
    let header = encode(&format!("deploy:{password}"));
    assert_single(
        &format!("Authorization: Basic {header}"),
        SecretKind::GenericSecret,
        &header,
        1,
        22,
    );
}

#[test]
fn password_in_url() {
    let pw = generic_value(110, 16);
    let text = format!("DATABASE_URL=postgres://app:{pw}@db.internal:5432/app");
    // The name DATABASE_URL is not secret-sounding; the URL's user-info is.
    assert_single(&text, SecretKind::GenericSecret, &pw, 1, 29);
}

// ---- overlaps ----------------------------------------------------------------------------

#[test]
fn specific_kind_wins_over_generic() {
    let token = github_token("ghp", 120);
    let text = format!("GITHUB_TOKEN=\"{token}\"");
    assert_single(&text, SecretKind::GithubToken, &token, 1, 15);

    let token = jwt(121);
    let text = format!("Authorization: Bearer {token}");
    assert_single(&text, SecretKind::Jwt, &token, 1, 23);

    let secret = aws_secret(122);
    let text = format!("aws_secret_access_key: \"{secret}\"");
    assert_single(&text, SecretKind::AwsSecretAccessKey, &secret, 1, 25);

    let token = github_token("ghs", 123);
    let text = format!("https://x-access-token:{token}@github.com/o/r.git");
    assert_single(&text, SecretKind::GithubToken, &token, 1, 24);
}

#[test]
fn several_secrets_sorted_and_disjoint() {
    let a = aws_key_id(130);
    let b = aws_secret(131);
    let c = slack_bot_token(132);
    let text = format!(
        "AWS_ACCESS_KEY_ID={a}\nAWS_SECRET_ACCESS_KEY={b}\n# notify\nSLACK={c} other={c}\n"
    );
    let findings = scan(&text);
    let got: Vec<(SecretKind, usize, usize)> = findings
        .iter()
        .map(|f| (f.kind, f.line, f.column))
        .collect();
    assert_eq!(
        got,
        [
            (SecretKind::AwsAccessKeyId, 1, 19),
            (SecretKind::AwsSecretAccessKey, 2, 23),
            (SecretKind::SlackToken, 4, 7),
            (SecretKind::SlackToken, 4, 14 + c.len()),
        ]
    );
    for pair in findings.windows(2) {
        assert!(pair[0].end <= pair[1].start);
    }
}

#[test]
fn column_counts_characters_not_bytes() {
    let token = github_token("ghp", 140);
    let text = format!("// clé de l'équipe → {token}");
    let f = &scan(&text)[0];
    assert_eq!(f.column, 22);
    assert_eq!(f.start, text.find("ghp").unwrap());
}

// ---- redaction -----------------------------------------------------------------------------

#[test]
fn redaction_keeps_the_rest_of_the_line() {
    let v = generic_value(150, 20);
    let token = github_token("ghp", 151);
    let text = format!("api_key = \"{v}\"\nuser = \"bob\"\ngh: {token} # ci\n");
    let r = redact(&text);
    assert_eq!(
        r.text,
        "api_key = \"[REDACTED:generic_secret]\"\nuser = \"bob\"\ngh: [REDACTED:github_token] # ci\n"
    );
    assert_eq!(r.findings.len(), 2);
    assert_eq!(&text[r.findings[0].range()], v);
    assert_eq!(&text[r.findings[1].range()], token);
}

#[test]
fn redaction_of_every_kind_has_its_marker() {
    for kind in SecretKind::ALL {
        for seed in [160, 161, 162] {
            for text in fakes::samples(kind, seed) {
                let line = format!("x {text}\ny");
                let r = redact(&line);
                assert_eq!(r.findings.len(), 1, "{kind:?}: {:?}", r.findings);
                assert_eq!(r.findings[0].kind, kind);
                assert!(r.text.contains(&kind.redaction_marker()), "{}", r.text);
                assert!(r.text.starts_with("x ") && r.text.ends_with("\ny"));
                assert_eq!(r.text.lines().count(), line.lines().count());
            }
        }
    }
}

#[test]
fn kinds_found_missing_in_review_are_caught() {
    // The kinds a review found missing (Azure storage keys to bearer tokens), each in the
    // context it was reported in; every other kind's first sample is held to the same bar.
    for kind in SecretKind::ALL {
        let text = &fakes::samples(kind, 7)[0];
        assert_eq!(kinds(text), vec![kind], "{text}");
    }
    let ppk = &fakes::samples(SecretKind::PrivateKey, 7)[1];
    let r = redact(ppk);
    assert_eq!(r.findings.len(), 1);
    assert!(r.text.contains("[REDACTED:private_key]"));
    // Only the private section goes; the public header stays.
    assert!(r.text.starts_with("PuTTY-User-Key-File-2: ssh-rsa"));
    for line in ppk.lines().skip_while(|l| !l.starts_with("Private-Lines")) {
        assert!(!r.text.contains(line), "{line}");
    }
}

#[test]
fn chosen_passwords_are_caught() {
    for value in [
        "test12345",
        "yourpass123",
        "Sommer2024!",
        "mein pässwort 2024",
        "contraseña123",
        "hunter12345",
    ] {
        for text in [
            format!("password = \"{value}\""),
            format!("DB_PASSWORD: '{value}'"),
            format!("\"dbPassword\": \"{value}\","),
        ] {
            assert_eq!(kinds(&text), vec![SecretKind::GenericSecret], "{text}");
        }
    }
    // Labels, prompts, messages and placeholders under a password name are not passwords.
    for value in [
        "Password",
        "Passwort",
        "Mot de passe",
        "Enter your password",
        "Must be at least 8 characters.",
        "your_password_here",
        "<password>",
        "${DB_PASSWORD}",
        "{{ .Values.password }}",
        "config.db.password",
        "DB_PASSWORD",
        "12345678",
        "aaaaaaaa1",
        // URL-encoding test data (the `url` crate's `urltestdata.json`).
        "pass%5B%7F",
    ] {
        assert_clean(&format!("password = \"{value}\"\n"));
    }
}

/// The keyword rule: under a secret name, a literal value is a secret whatever its entropy;
/// only a value that is a placeholder as a whole is left alone.
#[test]
fn keyword_values_are_secrets_whatever_their_entropy() {
    for value in [
        "Falcon5065",
        "Maple83$",
        "sunshine1987",
        "changeme123",
        "test1234test1234",
        "example-key-123456",
        "dummy-value-9876",
        "my.pass-word=42",
    ] {
        for text in [
            format!("DB_PASSWORD={value}\n"),
            format!("export PGPASSWORD={value}\n"),
            format!("      - POSTGRES_PASSWORD={value}\n"),
            format!("  password: {value}\n"),
            format!("spring.datasource.password={value}\n"),
            format!("password = {value}\n"),
            format!("<password>{value}</password>\n"),
            format!("Server=db;Database=app;User Id=app;Password={value};\n"),
            format!("mysql -u root --password={value} app\n"),
            format!("password = \"{value}\"\n"),
            format!("\"password\": \"{value}\",\n"),
            format!("<datasource password=\"{value}\" />\n"),
            format!("PGPASSWORD={value} psql -h db\n"),
        ] {
            let r = redact(&text);
            assert_eq!(
                r.findings.iter().map(|f| f.kind).collect::<Vec<_>>(),
                [SecretKind::GenericSecret],
                "{text}"
            );
            assert!(!r.text.contains(value), "{text} -> {}", r.text);
        }
    }
    // The whole value, never cut at `.`, `-`, `=` or `:`; up to `;`, a blank or a quote.
    let r = redact("Password=ab.cd-ef=gh:ij;Timeout=30\n");
    assert_eq!(r.text, "Password=[REDACTED:generic_secret];Timeout=30\n");
    let r = redact("Password=ab.cd-ef=gh;Timeout=30\n");
    assert_eq!(r.text, "Password=[REDACTED:generic_secret];Timeout=30\n");
    let r = redact("  api_token: Xy.9-z=Q:w  # rotated\n");
    assert_eq!(
        r.text,
        "  api_token: [REDACTED:generic_secret]  # rotated\n"
    );
}

/// Placeholders as a whole value, references and code are left alone.
#[test]
fn keyword_placeholders_and_references_are_left_alone() {
    for value in [
        "",
        "changeme",
        "password",
        "xxx",
        "xxxxxxxx",
        "****",
        "********",
        "<db-password>",
        "${DB_PASSWORD}",
        "${DB_PASSWORD:-}",
        "$DB_PASSWORD",
        "%(db_password)s",
        "{{ db_password }}",
        "os.environ['DB_PASSWORD']",
        "process.env.DB_PASSWORD",
        "get_password()",
        "vault.read(path)",
        "your_password_here",
        "REPLACE_ME",
        "Passwort",
    ] {
        for text in [
            format!("DB_PASSWORD={value}\n"),
            format!("  password: {value}\n"),
            format!("password = \"{value}\"\n"),
            format!("\"password\": \"{value}\",\n"),
        ] {
            assert_clean(&text);
        }
    }
    // Code: expressions and names under secret names.
    assert_clean("ClientTrafficSecret => \"CLIENT_TRAFFIC_SECRET_0\",\n");
    assert_clean(
        "token = next_token\nsecret = sharedKey\npassword = getpass\nauth = self.auth\n\
         token = tokens[i]\npass = renderPass.begin()\nsecret: SecretType\n",
    );
}

#[test]
fn provider_rules_leave_ordinary_data_alone() {
    assert_clean(concat!(
        "\"integrity\": \"sha512-Vh8SfiBPrSuDxaUrxPKNWrLbyqe3NeMMGKCdJ8fOyxdH6kA5shW+H7Cg5Il7S2bOXT0JzM9q2rSN6q8AnyhBQ==\",\n",
        "id = \"3f2b8c1e-9a4d-4e6f-b2a1-7c5d8e9f0a1b\"\n",
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8\n",
        "color: #1e90ff; background: #abcdef12;\n",
        "<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\">\n",
        "resolved \"https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz#b52d3ae1ee3aa0b2f4f5d9c5e5b8b0f3e4c2a1d0\"\n",
        "const header = \"Bearer \" + token;\n",
        "auth: `Bearer ${token}`,\n",
        "key-value store\n",
        "hvs.Description = 'vault';\n",
    ));
}

#[test]
fn redact_lines_starting_inside_a_key_block() {
    let key = pem_block("RSA ", 300, 6, "\n");
    let text = format!("fn before() {{}}\n{key}\nfn after() {{}}\n");
    let body: Vec<&str> = key.lines().skip(1).collect();
    // Every range that starts inside the block: no body line survives.
    for a in 2..=8 {
        let (out, report) = redact_lines(&text, a, 11);
        for line in &body {
            if line.len() > 10 && !line.starts_with("-----") {
                assert!(
                    !out.contains(line),
                    "range {a}..11 leaked a key line:\n{out}"
                );
            }
        }
        assert_eq!(out.split('\n').count(), 11 - a, "{out:?}");
        assert_eq!(
            report,
            vec![Redaction {
                kind: SecretKind::PrivateKey,
                line: a + 1
            }]
        );
        assert!(out.ends_with("fn after() {}"), "{out:?}");
    }
    // A range after the block is untouched; a range before it too.
    assert_eq!(
        redact_lines(&text, 10, 11),
        ("fn after() {}".to_owned(), vec![])
    );
    assert_eq!(
        redact_lines(&text, 0, 1),
        ("fn before() {}".to_owned(), vec![])
    );
    assert_eq!(redact_lines(&text, 40, 50), (String::new(), vec![]));
}

#[test]
fn safe_cut_never_splits_a_secret() {
    let token = github_token("ghp", 301);
    let line = format!("{} {token} tail", "a".repeat(1989));
    assert_eq!(safe_cut(&line, 2000), 1990);
    assert_eq!(safe_cut(&line, 1985), 1985);
    assert_eq!(safe_cut(&line, 2100), 2100);
}

#[test]
fn a_long_line_cut_leaves_no_prefix_of_a_secret() {
    // The 2000-character cut used to keep `ghp_` and a few characters.
    let value = generic_value(304, 30);
    for (pad, secret, part) in [
        (1990, github_token("ghp", 302), "ghp_".to_owned()),
        (1995, aws_key_id(303), "AKIA".to_owned()),
        (
            1985,
            format!("password = \"{value}\""),
            value[..4].to_owned(),
        ),
    ] {
        let line = format!("{} {secret} and more", "x".repeat(pad - 1));
        let n = crate::fs_scope::normalize_text(line.as_bytes(), 2000);
        let shown = redact(&n.text).text.into_owned();
        assert!(
            !shown.contains(&part),
            "{part} leaked: {}",
            &shown[pad - 10..]
        );
        assert!(shown.ends_with("..."));
    }
}

#[test]
fn pem_redaction_keeps_line_count() {
    let block = pem_block("OPENSSH ", 180, 6, "\n");
    let text = format!("before\nkey: |\n{block}\nafter = 1\nlast\n");
    let r = redact(&text);
    assert_eq!(r.text.lines().count(), text.lines().count());
    let expected = format!(
        "before\nkey: |\n[REDACTED:private_key]{}\nafter = 1\nlast\n",
        "\n".repeat(block.matches('\n').count())
    );
    assert_eq!(r.text, expected);
    let after_line = r.text.lines().position(|l| l == "after = 1");
    assert_eq!(after_line, text.lines().position(|l| l == "after = 1"));
}

#[test]
fn pem_redaction_keeps_crlf() {
    let block = pem_block("EC ", 190, 3, "\r\n");
    let text = format!("a\r\n{block}\r\nb\r\n");
    let r = redact(&text);
    assert_eq!(
        r.text,
        format!("a\r\n[REDACTED:private_key]{}\r\nb\r\n", "\r\n".repeat(5))
    );
}

#[test]
fn truncated_pem_block_is_redacted_to_the_end_of_its_body() {
    // A retrieval snippet cut in the middle of the key: no END line.
    let body = pem_body(200, 3);
    let text = format!("{}\n{}\n{}", pem_header("RSA "), body[0], body[1]);
    let findings = scan(&text);
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].range(), 0..text.len());
    assert_eq!(redact(&text).text, "[REDACTED:private_key]\n\n");

    // The body stops at the first line that is not key material.
    let text = format!(
        "{}\n{}\n{}\n}}\nfn next() {{}}\n",
        pem_header(""),
        body[0],
        body[1]
    );
    assert_eq!(
        redact(&text).text,
        "[REDACTED:private_key]\n\n\n}\nfn next() {}\n"
    );
}

#[test]
fn pem_in_escaped_string_literal() {
    let body = pem_body(210, 2).join("\\n");
    let literal = format!("{}\\n{body}\\n{}", pem_header("RSA "), pem_footer("RSA "));
    let text = format!("const KEY = \"{literal}\";\n");
    assert_single(&text, SecretKind::PrivateKey, &literal, 1, 14);
    assert_eq!(
        redact(&text).text,
        "const KEY = \"[REDACTED:private_key]\";\n"
    );
}

#[test]
fn pem_parsing_code_is_not_a_key() {
    let text = format!(
        "const BEGIN: &str = \"{}\";\nconst END: &str = \"{}\";\nfn parse(s: &str) -> bool {{ s.starts_with(BEGIN) }}\n",
        pem_header("RSA "),
        pem_footer("RSA ")
    );
    assert_clean(&text);
    assert_clean(&format!(
        "if line == \"{}\" {{\n    in_key = true;\n}}\n",
        pem_header("")
    ));
}

#[test]
fn already_redacted_text_stays_as_is() {
    let text = format!(
        "{}\napi_key = \"{}\"\nurl = https://u:{}@h/\n",
        pem_block("", 220, 2, "\n"),
        generic_value(221, 20),
        generic_value(222, 12)
    );
    let once = redact(&text);
    assert_eq!(once.findings.len(), 3);
    let twice = redact(&once.text);
    assert!(twice.findings.is_empty(), "{:?}", twice.findings);
    assert_eq!(twice.text, once.text);
}

// ---- false positives ----------------------------------------------------------------------

#[test]
fn hashes_uuids_and_fixtures_are_not_secrets() {
    let sha1 = rnd(300, 40, "0123456789abcdef");
    let sha256 = rnd(301, 64, "0123456789abcdef");
    let uuid = format!(
        "{}-{}-4{}-a{}-{}",
        rnd(302, 8, "0123456789abcdef"),
        rnd(303, 4, "0123456789abcdef"),
        rnd(304, 3, "0123456789abcdef"),
        rnd(305, 3, "0123456789abcdef"),
        rnd(306, 12, "0123456789abcdef")
    );
    let fixture = rnd(307, 120, &base64_chars());
    let integrity = format!("sha512-{}==", rnd(308, 86, &base64_chars()));
    let text = format!(
        "commit {sha1}\nMerge: {} {}\n\"digest\": \"sha256:{sha256}\",\nconst id = \"{uuid}\";\nrequest_id: {uuid}\nconst FIXTURE = \"{fixture}\";\n\"node_modules/x\": {{\n  \"resolved\": \"https://registry.npmjs.org/x/-/x-1.0.0.tgz\",\n  \"integrity\": \"{integrity}\"\n}}\n",
        &sha1[..7],
        &sha256[..7]
    );
    assert_clean(&text);
}

#[test]
fn type_declarations_and_references_are_not_secrets() {
    assert_clean(
        "interface Session {\n  token: string;\n  password?: string;\n  apiKey: string | undefined;\n}\n",
    );
    assert_clean("struct Login { password: String, token: Option<String> }\n");
    assert_clean("def login(password: str, token: str = None) -> bool:\n");
    assert_clean("const TOKEN_KEY = \"auth_token\";\nconst PASSWORD_FIELD = 'passwordInput';\n");
    assert_clean("token = getToken()\npassword = os.environ[\"DB_PASSWORD\"]\n");
    assert_clean("const secret = process.env.CLIENT_SECRET;\napi_key = settings.OPENAI_API_KEY\n");
    assert_clean("auth: this.authService.currentUser,\ntoken: tokenFromRequest,\n");
    assert_clean(
        "self.access_token = access_token\nlet authHeader = buildAuthorizationHeader(user);\n",
    );
    assert_clean(
        "password_hash = \"5f4dcc3b5aa765d61d8327deb882cf99e3b0c44298fc1c149afbf4c8996fb924\"\n",
    );
}

#[test]
fn placeholders_are_not_secrets() {
    for value in [
        "changeme",
        "<your-token>",
        "${DB_PASSWORD}",
        "{{ .Values.password }}",
        "$SECRET",
        "xxxxxxxxxxxxxxxxxxxx",
        "********************",
        "your_api_key_here",
        "aaaaaaaaaaaaaaaa",
        "1234567890123456",
        "%(password)s",
        "REPLACE_ME_WITH_REAL_KEY",
        "[REDACTED:generic_secret]",
    ] {
        assert_clean(&format!("api_key = \"{value}\"\n"));
        assert_clean(&format!("PASSWORD={value}\n"));
    }
    assert_clean("token: ${{ secrets.GITHUB_TOKEN }}\n");
    // AWS's documented example keys and low-entropy token bodies.
    assert_clean(&format!("{}{}", "AKIAIOSFODNN7", "EXAMPLE"));
    assert_clean(&format!(
        "aws_secret_access_key = {}/{}/{}",
        "wJalrXUtnFEMI", "K7MDENG", "bPxRfiCYEXAMPLEKEY"
    ));
    assert_clean(&format!("{}{}", "ghp_", "a".repeat(36)));
    assert_clean(&format!("{}{}", "xoxb-", "your-token-goes-here"));
}

#[test]
fn ordinary_code_is_not_secret() {
    assert_clean(
        r#"
import { AuthTokenService } from "../auth/token-service";
import authConfig from '@/config/auth';
use crate::auth::token::TokenManagerFactory;
from app.auth.tokens import refresh_token_pair

.button { color: #ff00aa; background: #1e90ff; border-color: #abcdef12; }
--auth-color: #336699;

const authenticationTokenRefreshHandlerFactory = createAuthenticationTokenRefreshHandlerFactory();
let passwordStrengthValidatorConfiguration = defaultPasswordStrengthValidatorConfiguration;

const docs = "https://example.com/docs/authentication/tokens?tab=api-keys#rotate";
fetch("https://api.example.com/v1/auth/token?grant_type=client_credentials");
git clone git@github.com:org/repo.git
postgres://localhost:5432/app

{
  "auth.login.title": "Sign in",
  "password_too_short": "Your password must be at least 12 characters long",
  "token_expired": "Your session has expired. Please sign in again.",
  "forgotPassword": "Forgot password?",
  "apiKeyLabel": "API key"
}
max_tokens = 4096
tokenizer = AutoTokenizer.from_pretrained("gpt2")
if password == confirm_password:
    pass
"#,
    );
}

/// Lines that matched a rule in real code bases during development, and must not.
#[test]
fn constants_signatures_and_messages_are_not_secrets() {
    assert_clean(
        "pub const NS_E_DRM_INVALID_SECURESTORE_PASSWORD: windows_sys::core::HRESULT = 0xC00D2751_u32 as _;\n\
         pub const EAP_E_USER_CREDENTIALS_REJECTED: u32 = 2150859184u32;\n\
         pub const GTHR_E_SECRET_NOT_FOUND: i32 = -2147218089i32;\n\
         fn LogonUserW(lpszusername : PCWSTR, lpszpassword : windows_sys::core::PCWSTR) -> BOOL;\n\
         const FLAGS_PASS = sys::IORING_MSG_RING_FLAGS_PASS;\n\
         pub GetToken: KspGetTokenFn,\n\
         export type TokenEncoding = 'o200k_base' | 'cl100k_base'\n\
         \"Unexpected_token_A_constructor_method_accessor_or_property_was_expected_1068\": \"意外的标记。应为构造函数、方法、访问器或属性。\",\n\
         auth: \"mypersonalaccesstoken123\",\n\
         SecretKind::GoogleApiKey => \"google_api_key\",\n\
         cvs://:pserver:anoncvs@sources.redhat.com:/cvs/src\n",
    );
    // Documentation placeholders with a real prefix and a filler body.
    assert_clean(&format!(
        "const auth = createTokenAuth(\"{}{}{}\");",
        "ghp_",
        "PersonalAccessToken0124567890",
        "0".repeat(8)
    ));
}

#[test]
fn urls_with_placeholder_credentials_are_not_secrets() {
    assert_clean("redis://localhost:6379/0\n");
    assert_clean("https://user:password@example.com/\n");
    assert_clean("postgres://postgres:postgres@localhost/db\n");
    assert_clean("amqp://guest:guest@rabbit:5672/\n");
    assert_clean("mongodb://admin:${MONGO_PASSWORD}@mongo:27017\n");
    assert_clean("https://Aladdin:opensesame@localhost:8080/\n");
    assert_clean("\"password\": \"%00%01%09%0A%0D%1F%20!%22%23\",\n");
}

// ---- properties of the API ---------------------------------------------------------------

#[test]
fn debug_of_a_finding_hides_the_secret() {
    let token = github_token("ghp", 400);
    let v = generic_value(401, 20);
    let text = format!("{token}\npassword={v}\n{}", pem_block("", 402, 2, "\n"));
    let findings = scan(&text);
    assert_eq!(findings.len(), 3);
    let debug = format!("{findings:?} {:?}", redact(&text));
    assert!(!debug.contains(&token));
    assert!(!debug.contains(&v));
    assert!(!debug.contains(&pem_body(402, 2)[0]));
    assert!(debug.contains("GithubToken"));
}

#[test]
fn scanning_is_deterministic() {
    let text = format!(
        "{}\n{} {}\npassword: '{}'\n{}",
        jwt(410),
        aws_key_id(411),
        stripe_key("sk_live", 412),
        generic_value(413, 18),
        pem_block("", 414, 3, "\n")
    );
    let first = scan(&text);
    assert_eq!(first.len(), 5);
    for _ in 0..5 {
        assert_eq!(scan(&text), first);
        assert_eq!(redact(&text).findings, first);
    }
}

#[test]
fn contains_secret_agrees_with_scan() {
    let samples = [
        String::new(),
        "token: string".to_string(),
        format!("password = \"{}\"", generic_value(420, 16)),
        format!("password = \"{}\"", "changeme"),
        pem_header("RSA "),
        pem_block("RSA ", 421, 2, "\n"),
        format!("{}{}", "ghp_", "a".repeat(36)),
        github_token("ghp", 422),
    ];
    for text in &samples {
        assert_eq!(contains_secret(text), !scan(text).is_empty(), "{text:?}");
    }
}

#[test]
fn large_input_of_ordinary_code_completes() {
    // About 5 MB of code with secret-sounding names but no secret. No timing assertion (that
    // would flake); it must simply finish, which a super-linear rule would not in practice.
    let chunk = r#"
export async function refreshAuthToken(client: HttpClient, token: string): Promise<Session> {
  const password = await readPassword(process.env.PASSWORD_FILE);
  const url = `https://api.example.com/v1/auth/token?user=${encodeURIComponent(user.id)}`;
  // sha: 3f2a9c0d1e4b5a6978c0d1e2f3a4b5c6d7e8f901
  if (!token || token.length < MIN_TOKEN_LENGTH) throw new AuthError("invalid token");
  return client.post(url, { body: JSON.stringify({ password, grant_type: "password" }) });
}
"#;
    let mut text = String::with_capacity(5 * 1024 * 1024 + chunk.len());
    while text.len() < 5 * 1024 * 1024 {
        text.push_str(chunk);
    }
    let clean_len = text.len();
    let token = github_token("ghp", 430);
    text.push_str(&token);

    assert!(!contains_secret(&text[..clean_len]));
    let findings = scan(&text);
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].kind, SecretKind::GithubToken);
    assert_eq!(findings[0].start, clean_len);
    assert_eq!(findings[0].line, text.lines().count());
}

// ---- property tests ----------------------------------------------------------------------

/// Fragments that make rule matches likely when concatenated at random.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("password".to_string()),
        Just("api_key".to_string()),
        Just("Token".to_string()),
        Just("auth".to_string()),
        Just("aws_secret_access_key".to_string()),
        Just(" = ".to_string()),
        Just(": ".to_string()),
        Just("=".to_string()),
        Just("\"".to_string()),
        Just("'".to_string()),
        Just("\n".to_string()),
        Just("\r\n".to_string()),
        Just(" ".to_string()),
        Just("--token ".to_string()),
        Just("<secret>".to_string()),
        Just("</secret>".to_string()),
        Just("https://u:".to_string()),
        Just("@host".to_string()),
        Just("Bearer ".to_string()),
        Just("Basic ".to_string()),
        Just("\"X-Api-Key: ".to_string()),
        Just("define('DB_PASSWORD', '".to_string()),
        Just("key=\"apiKey\" value=\"".to_string()),
        Just("export ".to_string()),
        Just("#".to_string()),
        Just("https://hooks.slack.com/services/T".to_string()),
        Just("sk-proj-".to_string()),
        Just("sk_live_".to_string()),
        Just("github_pat_".to_string()),
        Just("[REDACTED:github_token]".to_string()),
        Just("ghp_".to_string()),
        Just("sk-".to_string()),
        Just("sk-ant-".to_string()),
        Just("xoxb-".to_string()),
        Just("AKIA".to_string()),
        Just("AIza".to_string()),
        Just("glpat-".to_string()),
        Just("eyJ".to_string()),
        Just(".".to_string()),
        Just(pem_header("RSA ")),
        Just(pem_footer("RSA ")),
        Just("é→".to_string()),
        "[A-Za-z0-9]{1,64}",
        "[A-Za-z0-9+/=_-]{8,48}",
        any::<String>(),
    ]
}

fn check_invariants(text: &str) -> Result<(), TestCaseError> {
    let findings = scan(text);
    for f in &findings {
        prop_assert!(f.start < f.end && f.end <= text.len());
        prop_assert!(text.is_char_boundary(f.start) && text.is_char_boundary(f.end));
        let before = &text[..f.start];
        prop_assert_eq!(f.line, before.matches('\n').count() + 1);
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        prop_assert_eq!(f.column, text[line_start..f.start].chars().count() + 1);
    }
    for pair in findings.windows(2) {
        prop_assert!(pair[0].end <= pair[1].start);
    }
    prop_assert_eq!(contains_secret(text), !findings.is_empty());

    let once = redact(text);
    prop_assert_eq!(&once.findings, &findings);
    prop_assert_eq!(once.text.matches('\n').count(), text.matches('\n').count());
    let twice = redact(&once.text);
    prop_assert!(
        twice.findings.is_empty(),
        "new findings {:?} in {:?}",
        twice.findings,
        once.text
    );
    Ok(())
}

proptest! {
    // No failure persistence: the module must not write files outside `src/secrets`; cases
    // that once failed are kept as unit tests in `redaction_regressions` instead.
    // A fixed seed keeps CI reproducible: random fakes miss at a measured rate of about 1 in
    // 10,000 (a random body that happens to look like a word or a repeated run; BENCHMARKS.md,
    // secret redaction), which a random seed would turn into an occasional red CI run.
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x00C0_FFEE),
        ..ProptestConfig::default()
    })]

    #[test]
    fn line_span_is_the_span_of_the_lines_split_gives(
        text in "[a\né]{0,30}",
        a in 0usize..8,
        n in 0usize..4,
    ) {
        let b = a + n;
        let mut at = 0;
        let mut spans = Vec::new();
        for line in text.split('\n') {
            spans.push((at, at + line.len()));
            at += line.len() + 1;
        }
        let want = (b > a && a < spans.len()).then(|| (spans[a].0, spans[b.min(spans.len()) - 1].1));
        prop_assert_eq!(line_span(&text, a, b), want);
    }

    #[test]
    fn arbitrary_text_never_panics_and_redaction_is_stable(text in any::<String>()) {
        check_invariants(&text)?;
    }

    #[test]
    fn secret_shaped_text_keeps_the_invariants(parts in prop::collection::vec(fragment(), 0..40)) {
        check_invariants(&parts.concat())?;
    }

    #[test]
    fn an_inserted_fake_secret_never_leaks(
        kind in 0..SecretKind::ALL.len(),
        seed in 0u64..1_000_000,
        before in prop::sample::select(ORDINARY),
        after in prop::sample::select(ORDINARY),
    ) {
        let kind = SecretKind::ALL[kind];
        for sample in fakes::samples(kind, seed) {
            let text = format!("{before}\n{sample}\n{after}\n");
            let r = redact(&text);
            prop_assert!(r.findings.iter().any(|f| f.kind == kind), "{kind:?} missed in {text:?}");
            // No secret-looking token of the sample (12+ characters without blanks) is left.
            for part in sample.split(|c: char| c.is_whitespace() || "\"'();,=".contains(c)) {
                if part.len() >= 12 && crate::secrets::contains_secret(part) {
                    prop_assert!(!r.text.contains(part), "{part} left in {}", r.text);
                }
            }
            let again = redact(&r.text);
            prop_assert_eq!(again.text.as_ref(), r.text.as_ref());
        }
    }

    #[test]
    fn ordinary_lines_are_never_changed(lines in prop::collection::vec(prop::sample::select(ORDINARY), 0..30)) {
        let text = lines.join("\n");
        let r = redact(&text);
        prop_assert!(r.findings.is_empty(), "{:?}", r.findings);
        prop_assert!(matches!(r.text, Cow::Borrowed(_)));
    }
}

/// Ordinary source lines of this repository's kind (no secrets): the neighbours of the fake
/// secrets above.
const ORDINARY: &[&str] = &[
    "fn main() { println!(\"hello\"); }",
    "const token = await getToken(request);",
    "let password = prompt_password()?;",
    "export const API_URL = 'https://api.example.com/v1';",
    "    \"integrity\": \"sha512-Vh8SfiBPrSuDxaUrxPKNWrLbyqe3NeMMGKCdJ8fOyxdH6kA5shW+H7Cg5Il7S2bOXT0JzM9q2rSN6q8AnyhBQ==\",",
    "id: 3f2b8c1e-9a4d-4e6f-b2a1-7c5d8e9f0a1b",
    ".btn { color: #ff00aa; }",
    "# Authentication",
    "",
    "    return Err(Error::invalid_request(\"token must be a string\"));",
    "import { createHash } from 'node:crypto'",
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
];

/// The target: 0 false positives on 1,000+ ordinary source lines: this repository's own
/// code and docs, lockfile hashes (`Cargo.lock` checksums, npm `integrity`), UUIDs, git SHAs,
/// CSS colours and base64 images (`tests/fixtures/secrets/ordinary_lines.txt`).
#[test]
fn ordinary_lines_fixture_has_no_false_positives() {
    let text = include_str!("../../tests/fixtures/secrets/ordinary_lines.txt");
    assert!(text.lines().count() >= 1000);
    let findings = scan(text);
    let shown: Vec<(usize, SecretKind)> = findings.iter().map(|f| (f.line, f.kind)).collect();
    assert!(shown.is_empty(), "false positives at {shown:?}");
    for line in text.lines() {
        assert!(!contains_secret(line), "{line}");
    }
}
