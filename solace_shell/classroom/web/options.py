"""How the trainer's class view is served (`class serve --web-port N [--web-cert F --web-key F]`):
plain data, so the class's commands and server name it without importing the web stack."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class WebOptions:
    port: int
    cert: Path | None = None
    key: Path | None = None
