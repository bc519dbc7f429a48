"""Every user-facing error text, in one table.

No public capture of the broker's invalid/ambiguous/incomplete input texts exists (reference
section 2), so those three are our own wording and can be swapped here for the real one later.
Engine refusals use the broker's own wording where it is known (`ERROR: Message VPN 'X' not found.`).
"""

from __future__ import annotations

from grammar import ParseError
from state_store.errors import EngineError

PARSE_ERRORS: dict[str, str] = {
    "invalid": "Invalid command input\n   -> Unknown command, or command not available in current context ({word})",
    "ambiguous": "Ambiguous command input\n   -> '{word}' could be: {candidates}",
    "incomplete": "Incomplete command input\n   -> Expected: {candidates}",
    "unterminated": "Incomplete command input\n   -> Unterminated quoted string",
    "invalid-value": "Invalid command input\n   -> Invalid value '{word}' for <{param}>: {reason}",
}

SHELL_ERRORS: dict[str, str] = {
    "access_denied": "ERROR: Permission denied: '{command}' requires {required} access; "
                     "user '{user}' has {actual}.",
    "unknown_target": "ERROR: No router named '{target}' in this lab.",
    "internal": "ERROR: Internal error while running the command; nothing was changed ({detail}).",
}

# Engine refusal codes -> text. Codes and parameters are listed in state_store/errors.py.
ENGINE_ERRORS: dict[str, str] = {
    "vpn_not_found": "ERROR: Message VPN '{vpn}' not found.",
    "queue_not_found": "ERROR: Queue '{queue}' not found in Message VPN '{vpn}'.",
    "router_down": "ERROR: Router '{router}' is down.",
    "spool_not_active": "ERROR: message-spool operational status is not AD-ACTIVE",
}

GENERIC_ENGINE_ERROR = "ERROR: {code_text}"


def parse_error_text(error: ParseError, prompt_width: int) -> str:
    """The caret line (aligned under the typed line, which follows a prompt) and the message."""
    caret = " " * (prompt_width + error.column) + "^"
    if error.reason == "unterminated quote":
        template = PARSE_ERRORS["unterminated"]
    else:
        template = PARSE_ERRORS[error.kind]
    body = template.format(
        word=error.word, candidates=" ".join(error.candidates) or "<cr>", reason=error.reason, param=error.param,
    )
    return f"{caret}\n{body}"


def shell_error_text(code: str, **params: object) -> str:
    return SHELL_ERRORS[code].format(**params)


def engine_error_text(error: EngineError) -> str:
    template = ENGINE_ERRORS.get(error.code)
    if template is None:
        detail = ", ".join(f"{k}={v}" for k, v in sorted(error.params.items()))
        return GENERIC_ENGINE_ERROR.format(code_text=error.code.replace("_", " ") + (f" ({detail})" if detail else ""))
    try:
        return template.format(**error.params)
    except KeyError:  # a template naming a parameter the engine did not send: still say something useful
        return GENERIC_ENGINE_ERROR.format(code_text=error.code.replace("_", " "))
