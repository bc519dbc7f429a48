"""Prompt text; the rule itself belongs to the grammar's description of levels."""

from grammar.prompts import prompt_text, shown_path

__all__ = ["prompt_text", "shown_path"]
