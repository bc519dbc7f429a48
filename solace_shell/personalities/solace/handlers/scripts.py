"""`source script <name> [stop-on-error] [no-prompt]`: run a CLI script stored on the router.

The script's lines come from the router's script directory (the scenario's `cli_scripts`); the
session runs them after this command, framed as C17 shows (see Session._source).
"""

from __future__ import annotations

from ....handlers import Args, HandlerContext, handler
from ....results import RunScript
from .show_common import router_of


@handler("scripts.source")
def source_script(ctx: HandlerContext, args: Args) -> RunScript:
    lines = ctx.router_engine.cli_script(router_of(ctx), str(args["script-name"]))
    return RunScript(tuple(lines), bool(args.get("stop-on-error")), bool(args.get("no-prompt")))
