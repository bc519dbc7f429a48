"""The checks gfsh makes on a parsed command before sending it (its interceptors'
`preExecution`): ShowMetricsInterceptor and AlterRuntimeConfigCommand.AlterRuntimeInterceptor.
They run in gfsh, before the member authorizes anything, so their refusals come before an access
refusal; like every command error their text is a result section (a blank line follows it)."""

from __future__ import annotations

from state_store.errors import EngineError

from ...messages import engine_error_text
from .gfsh_layout import java_hash_set_order
from .gfsh_parser import Reading

MAX_CATEGORIES = 10       # invalid categories the lab lists (gfsh lists them all)

# ShowMetricsCommand's categories by what is given (ShowMetricsInterceptor checks against these)
SYSTEM_CATEGORIES = ("cache", "cluster", "diskstore", "query")
SYSTEM_REGION_CATEGORIES = ("callback", "cluster", "diskstore", "eviction", "partition", "region")
REGION_CATEGORIES = ("callback", "diskstore", "eviction", "partition", "region")
MEMBER_CATEGORIES = ("communication", "diskstore", "distribution", "eviction", "function", "jvm", "lock",
                     "member", "offheap", "region", "serialization", "transaction")
MEMBER_PORT_CATEGORIES = ("cacheserver", "communication", "diskstore", "distribution", "eviction", "function",
                          "jvm", "lock", "member", "notification", "offheap", "query", "region", "serialization",
                          "transaction")


def valid_categories(region: bool, member: bool, port: bool) -> tuple[str, ...]:
    """ShowMetricsInterceptor.getValidCategories: the categories that apply to what is given."""
    if region:
        return REGION_CATEGORIES if member else SYSTEM_REGION_CATEGORIES
    if member:
        return MEMBER_PORT_CATEGORIES if port else MEMBER_CATEGORIES
    return SYSTEM_CATEGORIES


LOG_LEVELS = ("OFF", "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE", "ALL", "SEVERE", "WARNING", "CONFIG",
              "FINE", "FINER", "FINEST", "NONE")   # Geode's LogLevel: log4j's names and its own


def intercepted(read: Reading) -> str | None:
    """The text of the refusal gfsh's interceptor gives a command before it is sent
    (ShowMetricsInterceptor, AlterRuntimeConfigCommand.AlterRuntimeInterceptor), or None."""
    v = read.values
    if read.handler == "geode.alter_runtime":
        level = v.get("log-level")
        if isinstance(level, str) and level.strip() and level.upper() not in LOG_LEVELS:
            return engine_error_text(_error("gfsh_invalid_log_level", level=level[:80]))
    if read.handler != "geode.show_metrics":
        return None
    file = v.get("file")
    if isinstance(file, str) and not file.endswith(".csv"):
        return engine_error_text(_error("gfsh_invalid_file_extension"))
    if v.get("region") is not None and v.get("port") is not None:
        return engine_error_text(_error("gfsh_metrics_region_port"))
    if v.get("port") is not None and v.get("member") is None:
        return engine_error_text(_error("gfsh_metrics_port_member"))
    asked = v.get("categories")
    if isinstance(asked, tuple):
        valid = valid_categories(v.get("region") is not None, v.get("member") is not None, v.get("port") is not None)
        bad = [c for c in java_hash_set_order([str(c) for c in asked]) if c not in valid]
        if bad:
            return "Invalid Categories\n" + "".join(c[:80] + "\n" for c in bad[:MAX_CATEGORIES])
    return None


def _error(code: str, **params: object) -> EngineError:
    return EngineError(code, **params)
