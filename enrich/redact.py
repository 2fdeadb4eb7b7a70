"""Keep secrets out of notes, logs and spans: redaction by key name and by value shape."""

from __future__ import annotations

import re

MASK = "[redacted]"

# Whole-word names only: hf_token, api_key, password are secrets; max_total_num_tokens is not.
_SECRET_KEY = re.compile(r"(?:^|_)(?:api_?key|access_?key|secret(?:_key)?|password|passwd|pwd|token|auth"
                         r"(?:_token)?|authorization|credentials?|cookie|session_?id|bearer)$", re.I)

_SECRET_VALUES = [
    re.compile(r"\bhf_[A-Za-z0-9]{20,}"),                     # Hugging Face tokens
    re.compile(r"\b(sk|pk|rk)-[A-Za-z0-9_-]{16,}"),           # OpenAI-style API keys
    re.compile(r"\b(ghp|gho|ghs|github_pat)_[A-Za-z0-9_]{20,}"),
    re.compile(r"\bAKIA[0-9A-Z]{16}\b"),                      # AWS access key ids
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),  # JWTs
]
_URL_CREDENTIALS = re.compile(r"(?P<scheme>[a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@", re.I)


def is_secret_key(name: str) -> bool:
    return bool(_SECRET_KEY.search(name))


def redact_text(text: str) -> str:
    text = _URL_CREDENTIALS.sub(lambda m: f"{m.group('scheme')}{MASK}@", text)
    for pattern in _SECRET_VALUES:
        text = pattern.sub(MASK, text)
    return text
