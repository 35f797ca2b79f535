"""Secrets known by their name (``redaction.py``'s rules that need no vendor format): the kind a name
gives a secret, the values that are no secret whatever their name says, and a secret named in a
sentence, English or Chinese (``the admin password is X``, ``the password for the staging db is X``,
``数据库密码：X``, ``密码设置为X``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from krouter.lazy_pattern import lazy_pattern

MIN_VALUE = 4  # a shorter "secret" is a word fragment: replacing it would garble the text around it
# A marker already there is no value to take again.
GUARD = r"(?!\[REDACTED)"
# Values of a secret-named field that are placeholders or code, not secrets.
NOT_SECRET = lazy_pattern(
    r"(?i)^(?:none|null|nil|true|false|str|string|int|bool|undefined|optional|required|"
    r"redacted|\*+|x+|\.\.\.|[$<{(\[].*|os\.environ.*|process\.env.*|env\(.*|getenv.*|"
    r"getpass\..*|input\(.*|https?://.*)$"
)
# What a name of a secret is followed by that is no secret: a version (v2.0.1), a date, a path (the key
# file "~/.ssh/id_rsa", not the key), a call or attribute (fetch_token(user)). A cold review had each
# redacted, then blanked wherever else the session wrote it.
PLAIN = lazy_pattern(
    r"(?i)^(?:v?\d+(?:\.\d+)+[\w.-]*|\d{4}[-/.]\d{1,2}[-/.]\d{1,2}\w*|.*[/\\].*|[a-z_][\w.]*\(.*)$"
)
# Code a secret's name is given rather than a value: a call or a subscript of a name with no digit or of
# a dotted one (get_token(), String::from(, config[, hashlib.sha256(), an attribute with no digit
# (self._token, settings.OPENAI_KEY), a Rust type (&str), a keyword (await). Taken, the marker garbled
# the code and, after a call's opening, left the quoted secret inside it in clear (a review).
# "Passw0rd(1)" is no call.
CODE = lazy_pattern(
    r"^(?:(?:[A-Za-z_][A-Za-z_.:]*|[A-Za-z_]\w*(?:[.:]+\w+)+)[(\[].*|[A-Za-z_]+(?:\.[A-Za-z_]+)+"
    r"|&'?[A-Za-z_]+|await|new|lambda|async)$"
)
# A name that says what a secret's setting is, not the secret (a review: token_count=1532,
# token_ttl=3600, token_type=Bearer, password_policy=strict, token_endpoint: /oauth/token, max_token=4096
# were redacted).
_SETTING_NAME = lazy_pattern(
    r"(?i)(?:^|[_-])(?:count|limit|length|len|size|ttl|type|policy|endpoint|url|uri|file|path|dir|name|header"
    r"|expiry|expires|expires[_-](?:in|at)|timeout|format|prefix|version|field|max|min)$|^(?:max|min|num)[_-]"
)
_SPREAD_MIN = 6


def names_a_setting(name: str) -> bool:
    """Whether an assignment's ``name`` is one of a secret's settings (``token_ttl``, ``max_token``)."""
    return bool(_SETTING_NAME.search(name.strip("\"' ")))


_PASSWORD_NAME = lazy_pattern(r"pass(?:word|wd|phrase|code)|pwd|(?:^|[_-])pass(?:$|[_-])|密码|口令")
_API_KEY_NAME = lazy_pattern(r"api[ _-]?key")
_TOKEN_NAME = lazy_pattern(r"token|令牌")


def kind_of(name: str) -> str:
    """The kind a redaction marker gives the secret found under ``name``: ``password``, ``api_key``,
    ``token`` or ``secret`` (keys, credentials, anything else). One answer wherever the secret was found
    (``api_key=X``, ``"apiKey": "X"``, ``my API key is X``): two helpers once labelled an API key
    ``token`` in an assignment and ``secret`` in a sentence."""
    low = name.lower()
    if _PASSWORD_NAME.search(low):
        return "password"
    if _API_KEY_NAME.search(low):
        return "api_key"
    return "token" if _TOKEN_NAME.search(low) else "secret"


def looks_secret(value: str, *, bare: bool) -> bool:
    """Whether ``value`` looks like a secret rather than a word: six characters or more, with a digit,
    and (when ``bare``: nothing but its place says it is one) with a letter too."""
    digit = any(c.isdigit() for c in value)
    letter = any(c.isalpha() for c in value)
    return len(value) >= _SPREAD_MIN and digit and (letter or not bare)


# A secret named in a sentence, in English or Chinese: "the admin password is X", "数据库密码：X",
# "口令是X", "db password X". Not 验证码: a one-time code is dead within minutes, and the word also
# means a CAPTCHA. Chinese has no spaces, so its names need no word boundary ("root密码=X").
# Not "token" or "secret" alone (an LLM's "the EOS token is 100257", "the secret is small PRs"); a
# client's, webhook's or signing secret, a bearer token and "pwd" are (a review found each left in clear).
_PROSE_NAME = (
    r"(?:\b(?:passwords?|passwd|pwd|passphrase|passcode|(?:api|secret|access|private)[ _-]?key|"
    r"(?:access|auth|api|bearer)[ _-]?token|(?:client|webhook|signing)[ _-]?secret)\b|密码|口令|密钥|秘钥|私钥|令牌)"
)
# A value: no space, quote, comma or semicolon, and no CJK character or full-width punctuation (which
# end it: "密码：X，root密码=Y" holds two).
_PROSE_VALUE = r"[^\s\"'`,;\u2000-\u206f\u3000-\u9fff\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]"
# A quote before the value; a backtick too (an agent writes "the password is `X`" as inline code).
_OPEN_QUOTE = r"[\"'`“‘「『]?"
# "is now", "was": a value said after a rotation ("the password is now X") or of the old one.
_IS = r"(?:\b(?:is|are|was|were)(?:[ \t]+(?:now|still|currently))?\b|是|为|為)"
# Labelled ("password: X", "密码：X", "密码为：X"): any value of four characters or more, as an assignment.
_PROSE_LABELLED = lazy_pattern(
    rf"(?i)({_PROSE_NAME})(\s*(?:{_IS}\s*)?[:=：＝]\s*{_OPEN_QUOTE}){GUARD}({_PROSE_VALUE}{{4,}})"
)
# Said ("password is X", "passwords are X", "口令是X") or only followed ("db password X"): the value must look like one
# (see _prose), or "the password is required" and "password policy" would lose a word.
_PROSE_SAID = lazy_pattern(rf"(?i)({_PROSE_NAME})(\s*{_IS}\s*{_OPEN_QUOTE}|\s+){GUARD}({_PROSE_VALUE}{{6,}})")
# Said or labelled a few words on ("the password for the staging db is X", "the API key for staging: X",
# "密码设置为X"), on one line and within one sentence: up to six words (no "is", "are", "was" among them, no
# sentence punctuation; a dot only inside a word, as in v2.0), or a few Chinese characters. The words
# must start as a secret's owner or its setting does (for, of, on, we, I, you, now, set, ...): a noun
# right after the name makes another thing of it, whose value is no secret ("the password hash is
# sha256", "the private key type is ed25519", "the password manager we use is 1Password", "密钥长度为
# 256bit", "密码哈希算法是 argon2id": a review found each redacted, and blanked all over the session).
# A word of them: a dot or an apostrophe only inside it (v2.0, alice's), or code in backticks (`staging`).
_GAP_WORD = r"(?:[^\s.,;!?:=：＝，。；！？\"'`]|\.(?=\w)|(?<=\w)'(?=\w)|`[^`\s]+`)+"
_GAP_LEAD = (
    r"(?:for|of|to|on|at|in|into|from|with|by|under|behind|inside|we|i|you|they|he|she|someone|my|your|our"
    r"|their|his|her|that|which|now|currently|still|here|there|today|again|also|just|then|used|set|given"
    r"|chosen|generated|created|issued|provided|assigned|configured|stored|saved|shared|sent|written"
    r"|entered|typed|changed|updated|rotated|copied|pasted)\b"
)
# 现在 (now), 已 (already), 设置 (set), 改 (changed), 被 (was) ...: not 长度, 类型, 哈希, 算法, 策略, 学.
_HAN_GAP = (
    r"(?:现在|目前|当前|如今|已经|已|还是|还|仍然|仍|依然|也|都|就|应该|应|默认|统一|暂定|暂时|临时|一律"
    r"|原来|本来|之前|以前|分别|被|设置|设定|设|修改|更改|更新|重置|变更|改|换){1,3}?"
)
_GAP = rf"(?:[ \t]+{_GAP_LEAD}(?:[ \t]+(?!(?:is|are|was|were)\b){_GAP_WORD}){{0,5}}?|{_HAN_GAP})"
_PROSE_GAPPED = lazy_pattern(
    rf"(?i)({_PROSE_NAME})({_GAP}[ \t]*(?:{_IS}[ \t]*[:=：＝]?|[:=：＝])[ \t]*{_OPEN_QUOTE})"
    rf"{GUARD}({_PROSE_VALUE}{{6,}})"
)


# A token or a secret someone owns ("my token is X", "our Hugging Face token is X", 我的GitHub token是X):
# alone the words name other things too (the EOS token, the secret of small PRs); owned, a credential.
# Its value must look like a random one (``_owned_value``): a cold review found "our token is ERC-20
# compliant", "my secret is GPT-4o" and "Python3" taken, and then blanked all over the session.
_OWNED_NAME = (
    r"(?:\b(?:my|your|our|their|his|her)[ \t]+(?:[\w-]+[ \t]+){0,2}(?:token|secret)\b"
    r"|(?:我|你|您|他|她|我们|你们|咱们|他们)的[ \t]*(?:[A-Za-z][\w-]*[ \t]*){0,2}(?:token|secret)(?![a-z]))"
)
_PROSE_OWNED = lazy_pattern(
    rf"(?i)({_OWNED_NAME})([ \t]*(?:{_IS}[ \t]*[:=：＝]?|[:=：＝])[ \t]*{_OPEN_QUOTE}){GUARD}({_PROSE_VALUE}{{8,}})"
)


# A word said of a value, not a value: base64-encoded, HS256-signed, ERC20-compliant, sha256-hashed.
_DESCRIBED = lazy_pattern(r"-[a-z]{3,}$")


def _owned_value(value: str) -> bool:
    """Whether an owned token's value looks like a random one: eight characters or more, with two
    letters and two digits at least (not a standard's or a model's name, ERC-20, GPT-4o), and no
    description ("my secret is base64-encoded": a second review found it blanked session-wide)."""
    letters = sum(c.isalpha() for c in value)
    digits = sum(c.isdigit() for c in value)
    return len(value) >= 8 and letters >= 2 and digits >= 2 and not _DESCRIBED.search(value)


def _prose(
    found: dict[str, str], *, said: bool, gapped: bool = False, owned: bool = False
) -> Callable[[re.Match[str]], str]:
    """The substitution for a secret named in a sentence; ``said``: the value must look like a secret
    (with a digit, six characters or more; after a bare space, or words away from its name, with a
    letter too: "the API key limit for our plan is 200000" is no secret)."""

    def sub(m: re.Match[str]) -> str:
        name, sep, raw = m.group(1), m.group(2), m.group(3)
        value = raw.rstrip(".!?:)]}>")
        tail = raw[len(value) :]
        if NOT_SECRET.match(value) or PLAIN.match(value) or CODE.match(value) or len(value) < MIN_VALUE:
            return m.group(0)
        if said and not looks_secret(value, bare=gapped or not sep.strip()):
            return m.group(0)
        if owned and not _owned_value(value):
            return m.group(0)
        kind = kind_of(name)
        found.setdefault(value, kind)
        return f"{name}{sep}[REDACTED:{kind}]{tail}"

    return sub


def redact_prose(text: str, found: dict[str, str]) -> str:
    """``text`` with every secret named in a sentence replaced by its marker, noting each value taken,
    with its kind, in ``found``."""
    text = _PROSE_LABELLED.sub(_prose(found, said=False), text)
    text = _PROSE_SAID.sub(_prose(found, said=True), text)
    text = _PROSE_OWNED.sub(_prose(found, said=True, owned=True), text)
    return _PROSE_GAPPED.sub(_prose(found, said=True, gapped=True), text)
