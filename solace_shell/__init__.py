"""The Solace CLI emulator: sessions, handlers, renderers, REPL, scripts and transcripts."""

__version__ = "0.1.0"
