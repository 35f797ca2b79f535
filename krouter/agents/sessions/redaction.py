"""Redact secrets from imported text before it becomes a vault page.

Two layers (after whole private-key blocks; our vendor token rules run before the library's, because
they take a whole token where a library pattern may stop inside one):

1. detect-secrets (Yelp's scanner), with the plugins that look for one vendor's documented token
   format (AWS, Azure storage, GitHub, GitLab, Slack, Stripe, npm, PyPI, SendGrid, Twilio, Telegram,
   Mailchimp, ...) plus its keyword and URL-credential plugins. Its entropy plugins are left out: they
   flag commit hashes, UUIDs and digests, which transcripts are full of and which are not secrets. Only
   the plugins' matchers are used, never their verification (which would send the secret to the
   vendor): nothing leaves the machine.
2. Our own rules for what that leaves: vendor formats it does not know (Anthropic, OpenAI, Hugging
   Face, Docker, npm's ``npm_`` tokens, Shopify, DigitalOcean, Google, Atlassian), secrets that only
   their surroundings reveal (``Authorization: Basic``, ``password X`` in a .netrc line, ``mysql -pX``,
   ``curl -u user:X``, ``docker login -p X``, a URL password even with ``@`` in it, ``sig=`` in an
   Azure SAS URL, a JSON key like ``"SecretAccessKey"``), and ``name = value`` assignments whose name
   says secret (``PGPASSWORD``, ``DB_PASS``, ``client_secret``; a quoted value may hold spaces), and a
   secret named in a sentence, English or Chinese (``the admin password is X``, ``数据库密码：X``; in
   ``named_secrets.py``).

``redact_together`` redacts the texts of one session so that a value found to be a secret in one of
them is redacted in every other one too.

Each secret becomes ``[REDACTED:kind]``, a secret found by its name labelled by that name alike
wherever it was found (``named_secrets.kind_of``: an API key is ``api_key`` in ``api_key=X``,
``"apiKey": "X"`` and "my API key is X"). Placeholders and code (``password=None``,
``api_key = os.environ[...]``, ``${TOKEN}``) are left alone: a transcript about configuration stays
readable. Pattern-based redaction will miss some secrets; SECURITY.md says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from typing import Any

from krouter.agents.sessions.named_secrets import (
    CODE,
    GUARD,
    MIN_VALUE,
    NOT_SECRET,
    PLAIN,
    kind_of,
    looks_secret,
    names_a_setting,
    redact_prose,
)
from krouter.lazy_pattern import lazy_pattern

# The generation of these rules, recorded on every page an import writes (``pages.render``): bumped
# whenever they redact something they did not before, so that an older KRouter sharing the vault (an
# agent's install not yet upgraded) never re-imports a session over a page redacted by newer rules,
# writing back the secrets they took out. Pages of KRouter versions before the record are generation 1.
RULES_VERSION = 2

# ---------------------------------------------------------------------------------------------------
# Layer 1: detect-secrets.

# The vendor-format plugins: what they match is the token itself.
_DS_TOKEN_PLUGINS = (
    "AWSKeyDetector",
    "ArtifactoryDetector",
    "AzureStorageKeyDetector",
    "CloudantDetector",
    "DiscordBotTokenDetector",
    "GitHubTokenDetector",
    "GitLabTokenDetector",
    "IbmCloudIamDetector",
    "IbmCosHmacDetector",
    "JwtTokenDetector",
    "MailchimpDetector",
    "NpmDetector",
    "OpenAIDetector",
    "PypiTokenDetector",
    "SendGridDetector",
    "SlackDetector",
    "SoftlayerDetector",
    "SquareOAuthDetector",
    "StripeDetector",
    "TelegramBotTokenDetector",
    "TwilioKeyDetector",
)
# These report the secret value inside a longer match (``password = "x"``, ``://user:x@``).
_DS_VALUE_PLUGINS = ("KeywordDetector", "BasicAuthDetector")


@cache
def _plugins() -> tuple[list[tuple[str, re.Pattern[str]]], list[tuple[str | None, Any]]]:
    """(kind, pattern) of every token plugin, and (kind, plugin) of the value plugins; loaded once. The
    keyword plugin's kind is None: its values are labelled by the name they were given (``kind_of``)."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    by_name = {cls.__name__: cls for cls in get_mapping_from_secret_type_to_class().values()}
    patterns = [
        (_slug(by_name[name].secret_type), pattern)
        for name in _DS_TOKEN_PLUGINS
        if name in by_name
        for pattern in by_name[name].denylist
    ]
    values = [
        (None if name == "KeywordDetector" else _slug(by_name[name].secret_type), by_name[name]())
        for name in _DS_VALUE_PLUGINS
        if name in by_name
    ]
    return patterns, values


def _slug(secret_type: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", secret_type.lower()).strip("_")


# What a plugin's pattern cannot match without: the npm pattern (//.+/:_authToken=) backtracks over
# every "//" of a line, and a pasted line of a thousand URLs took seconds, minutes at a megabyte.
_NEEDS = {"npm_tokens": ":_authToken="}
_LONG_BLANKS = lazy_pattern(r"([ \t]{64,})")


def _library_pass(line: str, found: dict[str, str]) -> str:
    if _LONG_BLANKS.search(line):
        # One library pattern (IBM Cloud keys) backtracks over a run of blanks: "password" and 2,000
        # spaces took 71 s to import (a bug hunt). No label and value stand that far apart, so each
        # stretch between such runs is looked at on its own.
        pieces = _LONG_BLANKS.split(line)
        return "".join(p if _LONG_BLANKS.fullmatch(p) else _library_pass(p, found) for p in pieces)
    patterns, values = _plugins()
    for kind, pattern in patterns:
        if kind in _NEEDS and _NEEDS[kind] not in line:
            continue
        line = pattern.sub(_whole(kind, found), line)
    for kind, plugin in values:
        # analyze_string yields the raw values only: analyze_line would also try to verify them online.
        found_in = (v for piece in _windows(line) for v in plugin.analyze_string(piece))
        hits = {v for v in found_in if len(v) >= MIN_VALUE and not NOT_SECRET.match(v)}
        for value in sorted(hits, key=len, reverse=True):
            label = kind or _named_kind(line, value)
            found.setdefault(value, label)
            line = line.replace(value, f"[REDACTED:{label}]")
    return line


# The keyword plugin's patterns backtrack over every quote of a line: one pasted line of 80 KB of
# "password `x`" took 34 s to import (a bug hunt), the time growing with the square of the line. A name
# stands close to its value, so a long line is read in windows that overlap by more than a name and
# value take (at least _OVERLAP // 2), each cut at a space where one is near.
_WINDOW = 2000
_OVERLAP = 500


def _windows(line: str) -> Iterator[str]:
    """``line`` whole when it is short; otherwise overlapping stretches of it, at most _WINDOW long."""
    start = 0
    while len(line) - start > _WINDOW:
        end = start + _WINDOW
        blank = line.rfind(" ", end - _OVERLAP, end)
        end = blank if blank > 0 else end
        yield line[start:end]
        # The next one starts at a space in the first half of the overlap, else amid a word: a space
        # right before ``end`` (the one after "password =") left an overlap of two characters, and the
        # name and its value in no window together (a cold review).
        blank = line.find(" ", end - _OVERLAP, end - _OVERLAP // 2)
        start = blank + 1 if blank >= 0 else end - _OVERLAP
    yield line[start:]


# The names before a value, and how far back they are looked for: the keyword plugin's patterns put the
# name right before the value (``api_key = "``, ``"password": "``).
_IDENTIFIERS = lazy_pattern(r"[\w-]+")
_NAME_REACH = 200


def _named_kind(line: str, value: str) -> str:
    """The kind of a value the keyword plugin found on ``line``, by the last name before it: the plugin
    reports the value alone, and its one label ("secret_keyword") called ``api_key = "X"`` other than
    ``api_key=X`` and "my API key is X"."""
    at = max(line.find(value), 0)
    names = _IDENTIFIERS.findall(line[max(at - _NAME_REACH, 0) : at])
    return kind_of(names[-1]) if names else "secret"


def _whole(kind: str, found: dict[str, str]) -> Callable[[re.Match[str]], str]:
    """A substitution of the whole match by its marker, noting the match in ``found``."""

    def sub(m: re.Match[str]) -> str:
        found.setdefault(m.group(0), kind)
        return f"[REDACTED:{kind}]"

    return sub


# ---------------------------------------------------------------------------------------------------
# Layer 2: our rules. Vendor formats as each vendor documents its token prefixes.

_PRIVATE_KEY = lazy_pattern(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?"
    r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    re.S,
)
_TOKENS: list[tuple[str, re.Pattern[str]]] = [
    ("anthropic_key", lazy_pattern(r"\bsk-ant-[A-Za-z0-9_-]{16,}")),
    ("openai_key", lazy_pattern(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}")),
    ("stripe_key", lazy_pattern(r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}")),
    ("aws_access_key", lazy_pattern(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("github_token", lazy_pattern(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("gitlab_token", lazy_pattern(r"\bgl(?:pat|dt|rt|ptt|ft|imt|agent|oas|cbt|soat)-[A-Za-z0-9_-]{20,}")),
    ("slack_token", lazy_pattern(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    (
        "slack_webhook",
        lazy_pattern(r"(?<=://hooks\.slack\.com/)(?:services|workflows|triggers)/[A-Za-z0-9/_-]{20,}"),
    ),
    ("google_api_key", lazy_pattern(r"\bAIza[0-9A-Za-z_-]{35}")),
    ("google_oauth_secret", lazy_pattern(r"\bGOCSPX-[A-Za-z0-9_-]{20,}")),
    ("huggingface_token", lazy_pattern(r"\bhf_[A-Za-z0-9]{30,}")),
    ("npm_token", lazy_pattern(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("docker_token", lazy_pattern(r"\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}")),
    ("shopify_token", lazy_pattern(r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b")),
    ("digitalocean_token", lazy_pattern(r"\bdo[opr]_v1_[a-f0-9]{64}\b")),
    ("atlassian_token", lazy_pattern(r"\bATATT3[A-Za-z0-9_=-]{50,}")),
    ("sendgrid_key", lazy_pattern(r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}")),
    ("pypi_token", lazy_pattern(r"\bpypi-AgE[A-Za-z0-9_-]{50,}")),
    ("jwt", lazy_pattern(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
]

# How far along a line a command's flag is looked for (far past any real command's options): unbounded,
# every "mysql" or "curl" of a long line (minified JSON full of URLs) rescanned the rest of it, and a
# 1 MB line took minutes.
_ON_LINE = r"[^\n]{0,4000}?"

# (kind, pattern whose last group is the secret; every other group is kept). A kind of None: the kind
# its name gives the secret (``kind_of`` of the groups kept).
_CONTEXT: list[tuple[str | None, re.Pattern[str]]] = [
    ("bearer_token", lazy_pattern(rf"(?i)\b(bearer\s+){GUARD}([A-Za-z0-9._~+/=-]{{12,}})")),
    ("basic_auth", lazy_pattern(rf"(?i)\b(authorization\s*:\s*basic\s+){GUARD}([A-Za-z0-9+/=]{{8,}})")),
    # A .netrc entry: "machine host login user password secret".
    ("password", lazy_pattern(rf"(?i)(\blogin\s+\S+\s+password\s+){GUARD}(\S+)")),
    # mysql -pSECRET (no space: with a space, -p asks for the password).
    ("password", lazy_pattern(rf"(\bmysql(?:dump|admin|import|sh)?\b{_ON_LINE}\s-p){GUARD}([^\s-]\S*)")),
    (
        "password",
        lazy_pattern(
            rf"(\b(?:curl|wget|http(?!:))\b{_ON_LINE}\s(?:-u|--user)\s+['\"]?[^\s:'\"]+:){GUARD}([^\s'\"]+)"
        ),
    ),
    ("password", lazy_pattern(rf"(\bdocker\s+login\b{_ON_LINE}\s(?:-p|--password)[\s=]+){GUARD}(\S+)")),
    ("sas_signature", lazy_pattern(rf"([?&]sig=){GUARD}([^&\s\"'#]+)")),
    ("azure_key", lazy_pattern(rf"(?i)(\b(?:AccountKey|SharedAccessKey)=){GUARD}([^;\s\"']+)")),
    # A JSON key naming a secret, camelCase included ("SecretAccessKey", "SessionToken", "auth").
    (
        None,
        lazy_pattern(
            rf"(?i)(\"[A-Za-z0-9_-]*(?:secret|token|password|passwd|accesskey|accountkey|apikey|privatekey)"
            rf"[A-Za-z0-9_-]*\"\s*:\s*\"|\"auth\"\s*:\s*\"){GUARD}([^\"\s]{{8,}})(?=\")"
        ),
    ),
]
# scheme://user:password@host, the user possibly empty (redis://:pw@host) and the password possibly
# holding "@" (the last "@" before the host ends it). Run before the library, whose URL plugin stops at
# the first "@" and whose marker then kept this rule from taking the rest ("Summer@2024": "@2024" leaked).
_URL_PASSWORD = lazy_pattern(rf"(\b[a-z][a-z0-9+.-]*://[^\s:/@]*:){GUARD}([^\s/]+)(?=@[^\s@/]+)")
# An environment variable named ..._KEY (APP_KEY, ENCRYPTION_KEY, MASTER_KEY: the upper-case names of
# .env files and shells): its value, eight characters or more. Lower-case code names ending in key
# (sort_key, primary_key, cache_key) are not secrets.
_ENV_KEY = lazy_pattern(rf"\b((?:[A-Z0-9]+_)+KEY)([\"']?\s*[:=]\s*)([\"']?){GUARD}([^\s\"'`,;]{{8,}})")
# ... and its value quoted, spaces allowed ("APP_KEY": "...", ENCRYPTION_KEY='two words').
_ENV_KEY_QUOTED = lazy_pattern(
    rf"\b((?:[A-Z0-9]+_)+KEY)([\"']?\s*[:=]\s*)([\"']){GUARD}([^\"'\n]{{8,200}}?)(\3)"
)
# A bare "pass" is too common a word ("first pass: tokenize"): only with a prefix (DB_PASS, smtp-pass).
_NAME = (
    r"(?:(?:[a-z0-9]+[_-])*(?:password|passwd|pwd|passphrase|pgpassword|secret|token|api[_-]?key|"
    r"access[_-]?key|private[_-]?key|client[_-]?secret|credentials?)|(?:[a-z0-9]+[_-])+pass)(?:[_-][a-z0-9]+)*"
)
# name = "a quoted value, spaces allowed", then name = unquoted-value.
_QUOTED = lazy_pattern(rf"(?i)\b({_NAME})(\"?'?\s*[:=]\s*)([\"'`]){GUARD}([^\"'`\n]{{4,200}}?)(\3)")
# With a type between ("password: str = 'X'", "api_key: Optional[str] = 'X'"): a Python settings class
# or dataclass wrote its secret in clear (a review).
_TYPED = lazy_pattern(
    rf"(?i)\b({_NAME})(\s*:\s*&?[A-Za-z_][\w.\[\]|,<>& ]{{0,60}}?\s*=\s*)([\"'`]){GUARD}([^\"'`\n]{{4,200}}?)(\3)"
)
_ASSIGNMENT = lazy_pattern(rf"(?i)\b({_NAME})(\"?'?\s*[:=]\s*)([\"'`]?){GUARD}([^\s\"'`,;]{{4,}})")


def _keep_groups(kind: str | None, found: dict[str, str]) -> Callable[[re.Match[str]], str]:
    def sub(m: re.Match[str]) -> str:
        value = m.group(m.lastindex or 0)
        if NOT_SECRET.match(value):
            return m.group(0)
        kept = "".join(m.group(i) or "" for i in range(1, m.lastindex or 1))
        label = kind or kind_of(kept)
        found.setdefault(value, label)
        return f"{kept}[REDACTED:{label}]"

    return sub


def _assignment(found: dict[str, str]) -> Callable[[re.Match[str]], str]:
    def sub(m: re.Match[str]) -> str:
        value = m.group(4)
        if NOT_SECRET.match(value) or CODE.match(value) or names_a_setting(m.group(1)):
            return m.group(0)
        kind = kind_of(m.group(1))
        found.setdefault(value, kind)
        end = m.group(5) if m.re in (_TYPED, _QUOTED, _ENV_KEY_QUOTED) else ""
        return f"{m.group(1)}{m.group(2)}{m.group(3)}[REDACTED:{kind}]{end}"

    return sub


def redact(text: str) -> str:
    """Replace secret-looking strings with ``[REDACTED:kind]``; everything else is left as it was."""
    return _redact(text, {})


def redact_together(texts: Sequence[str]) -> list[str]:
    """Each text redacted, then, in all of them, every other occurrence of a value found to be a secret
    in any one: "password: X" in one turn and X alone in the next (or in the title) was written in clear
    beside its own redaction (a tester)."""
    found: dict[str, str] = {}
    out = [_redact(text, found) for text in texts]
    spread: dict[str, str] = {}
    for value, kind in found.items():
        # A value's sentence punctuation is not part of it. Only what looks like a secret (six characters
        # or more, letters and digits, no version, date, path or call): an assignment's value may be a
        # word or code ("password=postgres", "token = fetch_token(user)"), which the session writes
        # elsewhere as itself (a cold review: every "postgres" and "fetch_token(user" blanked).
        # Nor is Markdown's emphasis around it ("the password is **X**"): kept, X itself was left in
        # clear wherever else the session wrote it (a review).
        value = value.rstrip(".!?:)]}>*~").lstrip("*~")
        if looks_secret(value, bare=True) and not PLAIN.match(value) and "[REDACTED" not in value:
            spread.setdefault(value, kind)
    if not spread:
        return out
    # Only whole values: a secret inside a longer word or number is another string.
    every = re.compile(
        "|".join(
            rf"(?<![A-Za-z0-9]){re.escape(v)}(?![A-Za-z0-9])" for v in sorted(spread, key=len, reverse=True)
        )
    )
    return [every.sub(lambda m: f"[REDACTED:{spread[m.group(0)]}]", text) for text in out]


def _redact(text: str, found: dict[str, str]) -> str:
    """``redact``, noting each value it took, with its kind, in ``found``."""
    text = _PRIVATE_KEY.sub(_whole("private_key", found), text)
    # Our token rules first: they take a whole token where a library pattern may stop inside one.
    for kind, pattern in _TOKENS:
        text = pattern.sub(_whole(kind, found), text)
    text = _URL_PASSWORD.sub(_keep_groups("password", found), text)
    text = "".join(_library_pass(line, found) for line in text.splitlines(keepends=True))
    for kind, pattern in _CONTEXT:
        text = pattern.sub(_keep_groups(kind, found), text)
    assignment = _assignment(found)
    for pattern in (_ENV_KEY_QUOTED, _ENV_KEY, _TYPED, _QUOTED, _ASSIGNMENT):
        text = pattern.sub(assignment, text)
    return redact_prose(text, found)
