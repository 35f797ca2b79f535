"""Import redaction (issue #15 item 3): a corpus of realistic secret shapes must not leak, and prose
must come through untouched. Every secret is made up at run time from a seeded generator in its
vendor's documented shape, so no real-looking token sits in this file."""

from __future__ import annotations

import base64
import random
import string
import subprocess
import sys

import pytest

from krouter.agents.sessions.redaction import redact, redact_together


def fake(alphabet: str, n: int, seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(n))


U, L, D = string.ascii_uppercase, string.ascii_lowercase, string.digits
AN, HEX = U + L + D, "0123456789abcdef"
B64, URLSAFE = AN + "+/", AN + "_-"


def shapes() -> dict[str, tuple[str, str]]:
    """kind -> (text holding the secret, the secret)."""
    s: dict[str, tuple[str, str]] = {}

    def add(kind: str, text: str, secret: str) -> None:
        s[kind] = (text.format(s=secret), secret)

    add("aws_access_key_id", "export AWS_ACCESS_KEY_ID={s}", "AKIA" + fake(U + D, 16, 1))
    add("aws_cli_json_secret", '{{"AccessKeyId": "ASIAXXX", "SecretAccessKey": "{s}",', fake(B64, 40, 2))
    add("aws_cli_json_session", '    "SessionToken": "{s}",', "IQoJb3JpZ2luX2Vj" + fake(B64, 280, 3))
    add("aws_credentials_file", "[default]\naws_secret_access_key = {s}\n", fake(B64, 40, 4))
    add("aws_env_secret", "AWS_SECRET_ACCESS_KEY={s} aws s3 ls", fake(B64, 40, 5))
    add("redis_url_no_user", "REDIS_URL=redis://:{s}@cache.internal:6379/0", fake(AN, 18, 6))
    add("url_password_with_at", "postgres://app:{s}@db.example.com:5432/app", "pa@" + fake(AN, 10, 7))
    add(
        "basic_auth_header",
        "curl -H 'Authorization: Basic {s}' https://api.example.com",
        base64.b64encode(b"deploy:" + fake(AN, 14, 8).encode()).decode(),
    )
    add("pgpassword_env", "PGPASSWORD={s} psql -h db.internal -U app", fake(AN, 16, 9) + "!")
    add("db_pass_env", "DB_PASS={s}", fake(AN, 14, 10))
    add("mysql_p_flag", "mysql -u root -p{s} production", "S3" + fake(AN, 12, 11))
    add("password_multiword", 'password = "{s}"', "correct horse battery staple")
    add(
        "azure_account_key",
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={s};EndpointSuffix=core.windows.net",
        fake(B64, 86, 12) + "==",
    )
    add("netrc_password", "machine api.example.com login deploy password {s}", fake(AN, 20, 13))
    add(
        "slack_webhook",
        "POST to https://hooks.slack.com/services/{s} for alerts",
        "T" + fake(U + D, 8, 14) + "/B" + fake(U + D, 10, 15) + "/" + fake(AN, 24, 16),
    )
    add("npm_token", "npm config set //registry.npmjs.org/:_authToken {s}", "npm_" + fake(AN, 36, 17))
    add("npmrc_auth_token", "//registry.npmjs.org/:_authToken={s}", "npm_" + fake(AN, 36, 18))
    add("huggingface_token", "HF_TOKEN is {s} (read scope)", "hf_" + fake(U + L, 34, 19))
    add(
        "sendgrid_key",
        "the SendGrid key {s} was rotated",
        "SG." + fake(URLSAFE, 22, 20) + "." + fake(URLSAFE, 43, 21),
    )
    add("docker_pat", "docker login -u acme -p {s}", "dckr_pat_" + fake(URLSAFE, 27, 22))
    add(
        "docker_config_auth",
        '{{"auths": {{"registry.example.com": {{"auth": "{s}"}}}}}}',
        base64.b64encode(b"ci:" + fake(AN, 20, 23).encode()).decode(),
    )
    add("github_classic", "git clone https://x:{s}@github.com/acme/repo", "ghp_" + fake(AN, 36, 24))
    add("github_fine_grained", "token {s}", "github_pat_11" + fake(U + D, 20, 25) + "_" + fake(AN, 59, 26))
    add("gitlab_pat", "Private-Token: {s}", "glpat-" + fake(URLSAFE, 20, 27))
    add("anthropic_key", "ANTHROPIC_API_KEY={s}", "sk-ant-api03-" + fake(URLSAFE, 93, 28))
    add("openai_key", "the key {s} works", "sk-proj-" + fake(URLSAFE, 48, 29))
    add("stripe_live", "stripe.api_key = '{s}'", "sk_live_" + fake(AN, 24, 30))
    add(
        "slack_bot",
        "SLACK_BOT_TOKEN {s}",
        "xoxb-" + fake(D, 12, 31) + "-" + fake(D, 12, 32) + "-" + fake(AN, 24, 33),
    )
    add("google_api_key", "maps key {s}", "AIza" + fake(URLSAFE, 35, 34))
    add(
        "jwt",
        "Cookie: session={s}",
        "eyJhbGciOiJIUzI1NiJ9." + fake(URLSAFE, 40, 35) + "." + fake(URLSAFE, 43, 36),
    )
    add(
        "rsa_private_key",
        "-----BEGIN RSA PRIVATE KEY-----\n{s}\n-----END RSA PRIVATE KEY-----",
        "MIIEow" + fake(B64, 58, 37),
    )
    add(
        "openssh_private_key",
        "-----BEGIN OPENSSH PRIVATE KEY-----\n{s}\n(cut off)",
        "b3BlbnNzaC1rZXktdjEAAAAA" + fake(B64, 40, 38),
    )
    add("bearer_header", "Authorization: Bearer {s}", fake(URLSAFE, 40, 39))
    add("password_assignment", "password={s}", fake(AN, 10, 40))
    add("api_key_json", '"api_key": "{s}"', fake(AN, 32, 41))
    add("twilio_auth_token", "TWILIO_AUTH_TOKEN={s}", fake(HEX, 32, 42))
    add("pypi_token", "twine upload -p {s} dist/*", "pypi-AgEIcHlwaS5vcmc" + fake(URLSAFE, 120, 43))
    add("telegram_bot_token", "bot token {s}", fake(D, 10, 44) + ":AA" + fake(URLSAFE, 33, 45))
    add("mailchimp_key", "mailchimp {s}", fake(HEX, 32, 46) + "-us12")
    add("shopify_token", "X-Shopify-Access-Token: {s}", "shpat_" + fake(HEX, 32, 47))
    add("digitalocean_token", "doctl auth init -t {s}", "dop_v1_" + fake(HEX, 64, 48))
    add("google_oauth_secret", "client secret {s}", "GOCSPX-" + fake(URLSAFE, 28, 49))
    add("curl_user_password", "curl -u admin:{s} https://ci.example.com", fake(AN, 14, 50))
    add("client_secret_yaml", "client_secret: {s}", fake(URLSAFE, 30, 51))
    add("x_api_key_header", "-H 'X-API-Key: {s}'", fake(AN, 32, 52))
    add("mongodb_srv", "mongodb+srv://app:{s}@cluster0.abcde.mongodb.net/db", fake(AN, 16, 53))
    add("amqp_url", "amqp://guest:{s}@rabbit.internal:5672/", fake(AN, 12, 54))
    add(
        "azure_sas_sig",
        "https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&se=2025-01-01&sp=r&sig={s}",
        fake(AN, 40, 55) + "%3D",
    )
    add(
        "django_secret_key",
        "SECRET_KEY = 'django-insecure-{s}'",
        fake(AN + "!@#$%^&*(-_=+)", 50, 56).replace("'", ""),
    )
    add("atlassian_token", "jira token {s}", "ATATT3xFfGF0" + fake(URLSAFE, 180, 57))
    add(
        "heroku_api_key",
        "HEROKU_API_KEY={s}",
        f"{fake(HEX, 8, 58)}-{fake(HEX, 4, 59)}-{fake(HEX, 4, 60)}-{fake(HEX, 4, 61)}-{fake(HEX, 12, 62)}",
    )
    # A cold review: upper-case ..._KEY variables, and a URL password whose first part the library took.
    add("app_key_env", "APP_KEY=base64:{s}", fake(B64, 32, 63))
    add("encryption_key_env", "ENCRYPTION_KEY={s}", fake(HEX, 32, 64))
    add("master_key_yaml", "MASTER_KEY: {s}", fake(AN, 24, 65))
    add("url_password_word_at", "postgres://app:{s}@db.example.com/x", "Summer@2024")
    add("app_key_json", '{{"APP_KEY": "{s}"}}', fake(AN, 16, 66))
    add("encryption_key_quoted_words", "ENCRYPTION_KEY='{s}'", "s3cr3t value with space")
    return s


SHAPES = shapes()
PROSE = [
    "We rotate the database password every 90 days; ask Mara for the current one.",
    "The token budget for a reply is 2048, and max_tokens: 4096 in the config.",
    "Set the password: see the team vault entry named Prod DB.",
    "Commit 3f786850e387550fdab836ed7e6dc881de23001b fixed the login bug.",
    "Request id 123e4567-e89b-12d3-a456-426614174000 timed out at 10:42.",
    "Images are pinned by digest sha256:9b2a6c8f4f5e3d2c1b0a99887766554433221100ffeeddccbbaa998877665544.",
    "Our docs live at https://docs.example.com/guide/install#step-2 and http://localhost:8080/api.",
    "Email mara@example.com or ping @sam on Slack; the channel is #ops-alerts.",
    "password = getpass.getpass()  # never hard-code it",
    "api_key = os.environ['API_KEY'] is how the client reads it.",
    "mysql -p prompts for the password; -P 3306 sets the port.",
    "The secret to good reviews is small pull requests.",
    "Authorization: Basic auth is disabled on the public endpoint.",
    "Use `git log --oneline` and `npm install --save-dev typescript` to set up.",
    "The AWS region is eu-west-1 and the bucket is acme-backups-prod.",
    "我们用 PostgreSQL 作为主数据库，密码每季度轮换。",
    "Token counts: input_tokens=1532 output_tokens=211.",
    "Keys are stored in HashiCorp Vault under secret/data/prod.",
    "The JWT library validates the exp claim; tokens expire after 15 minutes.",
    "Base64 of 'hello' is aGVsbG8= which is not a secret.",
    "Run `psql -h db.internal -U app` and type the password when asked.",
    "postgres://db.example.com:5432/app has no credentials in it.",
    "Our Slack workspace is acme.slack.com; webhooks are configured in the admin panel.",
    "The hf_transfer package speeds up downloads; SG is short for Singapore.",
    "TODO: password reset flow, secret santa on Friday, token ring network history.",
    "The table's sort_key = created_at_ms and partition_key: tenant_id; PRIMARY_KEY=id.",
]


def leaked(out: str, secret: str) -> bool:
    """The secret, any word of it, or any 8 characters of it still in the output."""
    if secret in out or any(len(w) >= 4 and w in out for w in secret.split()):
        return True
    return any(secret[i : i + 8] in out for i in range(max(1, len(secret) - 7)) if secret[i : i + 8].strip())


def test_the_corpus_is_large_enough() -> None:
    assert len(SHAPES) >= 40


@pytest.mark.parametrize("kind", sorted(SHAPES))
def test_secret_shape_is_redacted(kind: str) -> None:
    text, secret = SHAPES[kind]
    out = redact(text)
    assert not leaked(out, secret), out
    assert "[REDACTED:" in out


@pytest.mark.parametrize("text", PROSE)
def test_prose_is_left_intact(text: str) -> None:
    assert redact(text) == text


def test_surroundings_are_kept_so_the_transcript_still_reads() -> None:
    assert (
        redact(SHAPES["url_password_with_at"][0])
        == "postgres://app:[REDACTED:password]@db.example.com:5432/app"
    )
    assert redact(SHAPES["mysql_p_flag"][0]) == "mysql -u root -p[REDACTED:password] production"
    assert redact("first pass: tokenize the text; bypass: everything") == (
        "first pass: tokenize the text; bypass: everything"
    )


def test_redaction_never_reaches_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    # detect-secrets can verify a found secret with its vendor; we use its matchers only.
    import requests

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("redaction tried to reach the network")

    monkeypatch.setattr(requests.Session, "request", refuse)
    for text, _secret in SHAPES.values():
        redact(text)


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("token: 'abcd1234efgh' more", "token: '[REDACTED:token]' more"),
        ("MY_APP_KEY = 'open sesame 42'", "MY_APP_KEY = '[REDACTED:secret]'"),
        ('SIGNING_KEY: "two words here"', 'SIGNING_KEY: "[REDACTED:secret]"'),
    ],
)
def test_a_quoted_secret_keeps_its_closing_quote(text: str, redacted: str) -> None:
    """The closing quote is kept by the rule that matched a quoted value; told apart by which pattern
    matched, it was lost once the patterns were compiled on first use (a cold review)."""
    assert redact(text) == redacted


SECRET, OTHER = "Zx9kq2Lm77", "Qw3rTy8877"


@pytest.mark.parametrize(
    "text",
    [
        f"数据库密码：{SECRET}",
        f"root密码={SECRET}",
        f"密码: {SECRET}",
        f"口令是{SECRET}",
        f"数据库密码 {SECRET}",
        f"私钥为 {SECRET}",
        f"令牌：{SECRET}。",
        f"密码是“{SECRET}”",
        f"password: {SECRET}",
        f"the admin password is {SECRET}",
        f"PASSWORD IS {SECRET}",
        f"db password {SECRET}",
        f"the password is {SECRET}.",
        f"api key is {SECRET}",
        f"password：{SECRET}",
    ],
)
def test_a_secret_named_in_prose_english_or_chinese_is_redacted(text: str) -> None:
    """A tester: 数据库密码：X, 口令是X and "the admin password is X" were written in clear."""
    out = redact(text)
    assert SECRET not in out and "[REDACTED:" in out, out


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (f"the password for the staging db is {SECRET}", "password"),
        (f"my API key for openai is {SECRET}", "api_key"),
        (f"the API key for staging: {SECRET}", "api_key"),
        (f"the password for root is '{SECRET}'.", "password"),
        (f"The access token for the v2.0 deploy job is {SECRET}", "token"),
        (f"the passwords for both boxes are {SECRET}", "password"),
        (f"数据库的密码现在是 {SECRET}", "password"),
        (f"密码设置为{SECRET}", "password"),
        (f"root 用户的密码已改为 {SECRET}。", "password"),
        # Words that say whose it is or how it was set (a second review's cases).
        (f"the password I set for staging is {SECRET}", "password"),
        (f"the API key you gave me is {SECRET}", "api_key"),
        (f"the password now is {SECRET}", "password"),
        (f"The password for alice's account is {SECRET}", "password"),
        (f"the password for the `staging` db is {SECRET}", "password"),
        (f"数据库的密码已经被重置为 {SECRET}", "password"),
        (f"令牌已更新为 {SECRET}", "token"),
    ],
)
def test_a_secret_a_few_words_after_its_name_is_redacted(text: str, kind: str) -> None:
    """A known miss: words between the secret's name and "is" (or ":", 是, 为) left it in clear. They
    must say whose it is or how it was set (``test_redaction_review``: a noun makes another thing of it)."""
    out = redact(text)
    assert SECRET not in out and out.count(f"[REDACTED:{kind}]") == 1, out


@pytest.mark.parametrize(
    "text",
    [
        "the password policy is documented in the wiki",
        "the api key rotation for prod is weekly",
        "the password for version 2 is v2.0.1",
        "the password for the db is 2024-05-01",
        "the private key for deploys is ~/.ssh/deploy_ed25519",
        "the access token for the job is fetch_token(job42)",
        "the api key limit for our plan is 200000",
        f"the password for the db. It is {SECRET}",
        f"the password for prod, as I said, is {SECRET}",
        f"the password for the long list of some other words here is {SECRET}",
        f"password reset\nthe link is {SECRET}",
        "密码学课程为 AES256",
    ],
)
def test_words_after_a_secrets_name_leave_prose_alone(text: str) -> None:
    """What follows a few words on is a secret only when it looks like one (letters and digits, no
    version, date, path or call) and the name is in the same sentence, six words away or nearer."""
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (f"api_key={SECRET}", "api_key"),
        (f"export OPENAI_API_KEY={SECRET}", "api_key"),
        (f"api_key = '{SECRET}'", "api_key"),
        (f'{{"apiKey": "{SECRET}"}}', "api_key"),
        (f"-H 'X-API-Key: {SECRET}'", "api_key"),
        (f"my API key is {SECRET}", "api_key"),
        (f"api key: {SECRET}", "api_key"),
        (f"access_token={SECRET}", "token"),
        (f"the access token is {SECRET}", "token"),
        (f"private_key={SECRET}", "secret"),
        (f"the private key is {SECRET}", "secret"),
        (f'password = "{SECRET}"', "password"),
        (f"the password is {SECRET}", "password"),
        # "token" and "secret" alone name other things too; owned, they are credentials (the fourth
        # bug hunt found "my token is X" left in clear).
        (f"my token is {SECRET}", "token"),
        (f"our GitHub token is now {SECRET}", "token"),
        (f"My Hugging Face token is {SECRET}", "token"),
        (f"我的token是{SECRET}", "token"),
        (f"我的GitHub token是{SECRET}", "token"),
        (f"您的token是{SECRET}", "token"),
        (f"their secret was '{SECRET}'", "secret"),
    ],
)
def test_a_secret_is_labelled_by_its_name_alike_in_an_assignment_and_in_prose(text: str, kind: str) -> None:
    """Two helpers labelled an API key apart: a token in "api_key=X", a secret in "my API key is X"
    (and the library's keyword plugin "secret_keyword" in "api_key = 'X'")."""
    out = redact(text)
    assert SECRET not in out and out.count(f"[REDACTED:{kind}]") == 1, out


@pytest.mark.parametrize(
    "text",
    [
        "the password policy is strict",
        "The password is required and the password is wrong twice.",
        "密码要求至少 12 位",
        "密码是否正确要看日志；密码为空时报错。",
        "The password reset flow sends a link; passwords expire after 90 days.",
        "密码学课程：RSA 与 AES",
        "令牌桶限流 100 次每秒，密钥对放在 Vault 里。",
        "password 2FA is on for every admin",
        "the api key rotation is weekly",
        "my token is expired, and my token is valid until Friday",
        "Our secret is small PRs; my token count is 1532; the EOS token is 100257.",
        "my tokens are gpt4o-mini and my favourite token is <eos>",
        "我的tokenizer是jieba0.42",
        # An owned token's value must look random (a cold review: these were blanked session-wide).
        "Our token is ERC-20 compliant. My secret is GPT-4o; our secret is Python3 everywhere.",
        "Their EOS token is 100257, and my token is 2FA-protected.",
        "My secret is base64-encoded in the k8s manifest; our token is HS256-signed, not RS256.",
    ],
)
def test_prose_about_secrets_is_left_alone(text: str) -> None:
    assert redact(text) == text


def test_a_secret_found_once_is_redacted_everywhere_in_the_session() -> None:
    """The tester's "redacted once, left in clear next to it": password: X took X, "is X" left it."""
    first, second = redact_together([f"ok, password: {SECRET}", f"later I typed {SECRET} and {OTHER}"])
    assert SECRET not in first + second and OTHER in second
    assert redact_together([f"the build {SECRET}2 passed"]) == [f"the build {SECRET}2 passed"]


def _redacted_apart(line: str, check: str) -> None:
    """Redact the line ``line`` (Python) makes and assert ``check`` of ``out`` in a process of its own,
    so that a hang fails the test, not the suite."""
    code = f"from krouter.agents.sessions.redaction import redact\nout = redact({line})\nassert {check}, out[-60:]\n"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_a_long_run_of_blanks_after_a_secret_word_is_read_at_once() -> None:
    """A bug hunt: "password" followed by a few thousand spaces held an import for minutes (a library
    pattern backtracking over the blanks)."""
    _redacted_apart(
        "'password' + ' ' * 20000 + 'x\\nmy password: Zx9kq2Lm77'",
        "out.startswith('password ') and out.endswith('my password: [REDACTED:password]')",
    )


def test_a_long_line_of_quoted_values_is_read_in_bounded_time() -> None:
    """A bug hunt: one pasted 80 KB line of "password `x`" took 34 s (this one: minutes), the time
    growing with the square of the line (the keyword plugin backtracking over every quote)."""
    _redacted_apart(
        "'password `x` ' * 16000 + 'the password is \"Qw8rT5yU2iO\" ' + 'password `x` ' * 16000"
        " + '\\nmy password: Zx9kq2Lm77'",
        "'Qw8rT5yU2iO' not in out and out.endswith('my password: [REDACTED:password]')",
    )


@pytest.mark.parametrize("at", range(1400, 2600, 37))
def test_a_secret_anywhere_in_a_long_line_is_redacted(at: int) -> None:
    # A long line is read in overlapping windows: a name and its value astride a window's edge are
    # whole in the next one.
    words = "we paid the invoice " * 200
    cut = words.rfind(" ", 0, at) + 1
    line = f'{words[:cut]}and api_key = "Zx9kq2Lm77Pq" {words[cut:]}'
    assert "Zx9kq2Lm77Pq" not in redact(line)


@pytest.mark.parametrize("name", ["password", "pwd", "api_key", "secret"])
def test_a_secret_after_a_long_run_with_no_space_is_redacted(name: str) -> None:
    """A cold review: a window cut at the space after "password =" began the next one at the space
    after the name, two characters back, and the value was in no window with its name."""
    for at in (1960, 1980, 1990):
        line = "a" * at + f'{name} = "Zq8vLm2Rt7Kx"' + "b" * 100
        assert "Zq8vLm2Rt7Kx" not in redact(line), (name, at)


@pytest.mark.parametrize(
    ("turns", "later"),
    [
        (["token = fetch_token(user)", "def fetch_token(user): ..."], "def fetch_token(user): ..."),
        (["access_token: response.json", "see response.json"], "see response.json"),
        (["password=postgres", "user postgres, db postgres"], "user postgres, db postgres"),
        (
            ["password: secret", 'So "secret" is not a great password.'],
            'So "secret" is not a great password.',
        ),
        (["password v2.0.1 works", "pip install foo==v2.0.1"], "pip install foo==v2.0.1"),
        (["Private key: /home/u/.ssh/id_rsa", "cat /home/u/.ssh/id_rsa.pub"], "cat /home/u/.ssh/id_rsa.pub"),
    ],
)
def test_only_what_looks_like_a_secret_is_redacted_elsewhere_in_the_session(
    turns: list[str], later: str
) -> None:
    """A cold review: every value an assignment took was blanked across the session, words and code
    included ("def [REDACTED:token]): ..."), and versions, paths and dates after a secret's name were
    taken for secrets."""
    assert redact_together(turns)[1] == later
    assert redact_together(["my password: hunter2XYZ", "hunter2XYZ again"])[1] == "[REDACTED:password] again"
