"""solace-shell's broker state engine: SQLite (SQLAlchemy 2.x) models, LabStore, Engine facade.

Knows nothing about prompts or text: it returns dataclasses (``views``) and raises
``errors.EngineError(code, **params)``. Start at ``store.LabStore`` and ``engine.Engine``.
"""

from .errors import EngineError, LabFileError

__all__ = ["EngineError", "LabFileError"]
