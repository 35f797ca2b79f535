"""A second cold review of redaction: what a secret's name is followed by a few words on is a secret only
when those words say whose it is or how it was set (a noun after the name makes another thing of it: "the
password hash is sha256"), and a secret written as inline code, in bold, or after "is now" or "was" is
redacted, wherever else the session writes it too."""

from __future__ import annotations

import pytest

from krouter.agents.sessions.redaction import redact, redact_together

SECRET = "Zx9kq2Lm77"


@pytest.mark.parametrize(
    "text",
    [
        "the password hash is sha256",
        "the password hashing algorithm is argon2id",
        "the private key type is ed25519",
        "the private key curve we use is secp256k1",
        "the password manager we use is 1Password",
        "the API key format is base64",
        "the access token TTL is 86400s",
        "the access token signing algorithm is ES256K",
        "the API key rotation schedule is Q3-2024",
        "the API key region is us-east-1",
        "the private key file is id_ed25519",
        "the password reset ticket is JIRA-4521",
        "the access token endpoint is oauth2",
        "the password min length is 12chars",
        "our password rotation period is 90days",
        "Our API key naming convention is proj_env_v2",
        "密钥长度为256bit",
        "密码哈希算法是 argon2id",
        "密钥类型为 ed25519",
    ],
)
def test_a_thing_named_after_a_secret_is_no_secret(text: str) -> None:
    """Each was redacted, and the word (sha256, ed25519, 1Password, us-east-1) then blanked wherever
    else the session wrote it: the words between the name and "is" began with a noun."""
    later = f"later: {text.split()[-1]}"
    assert redact_together([text, later]) == [text, later]


@pytest.mark.parametrize(
    "text",
    [
        f"the password is `{SECRET}`",
        f"the password for alice is `{SECRET}`",
        f"my API key is `{SECRET}`",
        f"数据库的密码现在是 `{SECRET}`",
        f"the password is now {SECRET}",
        f"the old password was {SECRET}",
    ],
)
def test_a_secret_in_backticks_or_said_after_is_now_or_was_is_redacted(text: str) -> None:
    """Inline code is how an agent writes a value, and "is now" how it says a rotated one: both were
    left in clear."""
    first, second = redact_together([text, f"logged in with {SECRET}"])
    assert SECRET not in first + second and "[REDACTED:" in first, (first, second)


@pytest.mark.parametrize(
    "text", [f"The password is **{SECRET}**", f"password: **{SECRET}**", f"the password is ~~{SECRET}~~"]
)
def test_a_secret_in_bold_is_redacted_wherever_else_the_session_writes_it(text: str) -> None:
    """The marker took "**X**"; X alone, in the next turn or later in the same one, stayed in clear."""
    first, second = redact_together([f"{text}, remember {SECRET}", f"then {SECRET} worked"])
    assert SECRET not in first + second, (first, second)


@pytest.mark.parametrize(
    "text",
    [
        "token_count=1532",
        '"token_count": 1532',
        "token_limit: 8192",
        "max_token=4096",
        "token_ttl=3600",
        "access_token_expires_in=3600",
        "token_type=Bearer",
        "token_expiry=2024-05-01",
        "password_policy=strict",
        "token_endpoint: /oauth/token",
        "password_file=/run/secrets/db",
        "secret_name=prod-db-password",
        "api_key_header=X-Api-Key",
        "token = get_token()",
        "token = self._token",
        "token = await client.fetch()",
        'password = config["db"]["password"]',
        "password = hashlib.sha256(pw).hexdigest()",
        "api_key = settings.OPENAI_KEY",
    ],
)
def test_a_secret_s_setting_or_code_given_its_name_is_left_as_written(text: str) -> None:
    """An agent's transcript is full of both: each was redacted, the code garbled ("password =
    [REDACTED:password]"db"]["password"]")."""
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (f'password: str = "{SECRET}"', "password"),
        (f'database_password: str = "{SECRET}"', "password"),
        (f"api_key: Optional[str] = '{SECRET}'", "api_key"),
        (f'let api_key: &str = "{SECRET}";', "api_key"),
        (f"password=Passw0rd({SECRET})", "password"),
        (f"secret_id={SECRET}", "secret"),
    ],
)
def test_a_typed_secret_is_redacted(text: str, kind: str) -> None:
    """A Python settings class or dataclass writes "password: str = 'X'": X was left in clear (and
    "Optional[str]" taken for the secret)."""
    out = redact(text)
    assert SECRET not in out and out.count(f"[REDACTED:{kind}]") == 1, out


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (f"the client secret is {SECRET}", "secret"),
        (f"the webhook secret for Stripe is {SECRET}", "secret"),
        (f"the bearer token is {SECRET}", "token"),
        (f"the root pwd is {SECRET}", "password"),
    ],
)
def test_a_client_secret_a_bearer_token_or_a_pwd_named_in_a_sentence_is_redacted(
    text: str, kind: str
) -> None:
    out = redact(text)
    assert SECRET not in out and out.count(f"[REDACTED:{kind}]") == 1, out


@pytest.mark.parametrize(
    "text", ["the EOS token is 100257", "the secret is small pull requests", "Run pwd; it prints /home/u2"]
)
def test_a_token_or_a_secret_alone_names_no_secret_in_a_sentence(text: str) -> None:
    assert redact(text) == text
