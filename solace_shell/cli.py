"""Command-line entry points (click): the shell, scripts, one-shot commands and replay.

Heavy imports (prompt_toolkit, the transcript machinery) happen inside the branch that needs them,
so `solace-shell -c "show hostname"` starts fast.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NoReturn

import click

DEFAULT_DB_ENV = "SOLACE_SHELL_DB"
PASSWORD_ENV = "SOLACE_SHELL_PASSWORD"


def default_db_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "solace-shell" / "lab.sqlite"


def _fail(message: str, code: int = 2) -> NoReturn:
    click.echo(f"solace-shell: {message}", err=True)
    sys.exit(code)


def _open_lab(db: str | None, user: str, ask_password: bool, scenario: str | None = None):
    from state_store.errors import LabFileError
    from state_store.scenario import ScenarioError

    from .lab import Lab, UnknownUser

    path = Path(db) if db else default_db_path()
    created = not path.exists()
    if scenario and not created:
        _fail(f"lab {path} already exists; --scenario only builds a new lab "
              "(choose another --db, or use `lab> reset <scenario>` inside the shell)")
    if created:
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        lab = Lab.open(path, user=user, scenario=scenario)
    except ScenarioError as exc:
        _fail(f"scenario {exc.path} has {len(exc.problems)} problem(s):\n" + "\n".join(exc.problems))
    except LabFileError as exc:
        _fail(f"cannot open lab {exc.path}: {exc.problem}")
    except UnknownUser as exc:
        _fail(f"no CLI user '{exc.name}' in lab {path}")
    if created:
        click.echo(f"solace-shell: created lab database {path}", err=True)
    if ask_password and not _password_ok(lab, user):
        lab.close()
        _fail(f"login failed for CLI user '{user}'")
    return lab, path


def _password_ok(lab, user: str) -> bool:
    """Like logging in over ssh: ask at a terminal, else take SOLACE_SHELL_PASSWORD."""
    password = os.environ.get(PASSWORD_ENV)
    if password is None:
        if not sys.stdin.isatty():
            _fail(f"CLI user '{user}' needs a password: set {PASSWORD_ENV} when not at a terminal")
        import getpass

        password = getpass.getpass("Password: ")
    with lab.store.transaction() as engine:
        return engine.verify_password(user, password)


def _banner(lab) -> str:
    from .banner import start_banner

    with lab.store.transaction() as engine:
        return start_banner(engine.settings())


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", envvar=DEFAULT_DB_ENV, type=click.Path(dir_okay=False),
              help=f"Lab database file (default: {default_db_path()}; env {DEFAULT_DB_ENV}).")
@click.option("--user", help="Log in as this lab-defined CLI user (asks for its password; "
              f"{PASSWORD_ENV} when not at a terminal). Without it: the built-in admin, like cli -A.")
@click.option("--router", help="The router to start at (default: the lab's first router).")
@click.option("--scenario", type=click.Path(exists=True, dir_okay=False),
              help="Build a new lab file from this scenario (YAML) instead of the default two-site lab.")
@click.option("-s", "--script", type=click.Path(exists=True, dir_okay=False),
              help="Run a CLI script file, echoing each line after the prompt (like cli -A -s).")
@click.option("-c", "--command", "commands", multiple=True, help="Run one command and exit (repeatable).")
@click.option("--record", type=click.Path(dir_okay=False), help="Record the interactive session as a transcript.")
@click.option("--vi", is_flag=True, help="vi editing keys in the interactive shell.")
@click.pass_context
def main(ctx: click.Context, db: str | None, user: str | None, router: str | None, scenario: str | None,
         script: str | None,
         commands: tuple[str, ...], record: str | None, vi: bool) -> None:
    """A stateful emulator of the Solace PubSub+ broker CLI with a two-site replication lab."""
    if ctx.invoked_subcommand is not None:
        return
    lab, path = _open_lab(db, user or "admin", ask_password=user is not None, scenario=scenario)
    try:
        start = router or lab.routers()[0]
        if start not in lab.routers():
            _fail(f"no router named '{start}' in this lab (routers: {', '.join(lab.routers())})")
        if script:
            text = Path(script).read_text(encoding="utf-8", errors="replace")
            from .script import run_script
            sys.exit(run_script(lab, start, text.splitlines(), sys.stdout))
        if commands:
            from .script import run_commands
            sys.exit(run_commands(lab, start, commands, sys.stdout))
        from .repl import history_path_for, run_repl
        click.echo(_banner(lab))
        recorder = None
        if record:
            from .transcript.record import Recorder
            recorder = Recorder.open(Path(record))
        try:
            code = run_repl(lab, start, history_path=history_path_for(path), recorder=recorder,
                            editing_mode="vi" if vi else "emacs")
        finally:
            if recorder is not None:
                recorder.close()
        sys.exit(code)
    finally:
        lab.close()


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--accept", is_flag=True, help="Rewrite the expected output of failing commands in place.")
@click.option("--json", "json_out", is_flag=True, help="Print one JSON result per command.")
def replay(paths: tuple[str, ...], accept: bool, json_out: bool) -> None:
    """Replay golden transcripts against a fresh lab each; exit 0 only if all pass."""
    from .transcript.runner import run_replay_command

    sys.exit(run_replay_command([Path(p) for p in paths], accept, json_out, sys.stdout))


@main.command()
@click.option("--listen", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=2222, show_default=True,
              help="SSH port of the lab's first router; the others follow in lab order (0: any free ports).")
@click.pass_context
def serve(ctx: click.Context, listen: str, port: int) -> None:
    """Serve the lab over SSH: each router on its own port; lab users log in with their password."""
    import logging

    from .ssh.server import run_server

    params = ctx.find_root().params
    lab, path = _open_lab(params["db"], "admin", ask_password=False, scenario=params["scenario"])
    lab.close()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    logging.getLogger("asyncssh").setLevel(logging.WARNING)
    sys.exit(run_server(path, listen, port, sys.stdout))


if __name__ == "__main__":  # pragma: no cover
    main()
