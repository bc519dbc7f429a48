"""Command-line entry points (click): the shell, scripts, one-shot commands, replay and grading.

Heavy imports (prompt_toolkit, the transcript machinery) happen inside the branch that needs them,
and the methods the data classes are given are compiled once (`dataclass_code`), so
`solace-shell -c "show hostname"` starts fast.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from . import collector
from .dataclass_code import install as install_dataclass_code
from .ssh import DEFAULT_LISTEN, DEFAULT_PORT

if TYPE_CHECKING:
    from .lab import Lab

install_dataclass_code()  # before the lab's modules create their classes (see dataclass_code)

DEFAULT_DB_ENV = "SOLACE_SHELL_DB"
PASSWORD_ENV = "SOLACE_SHELL_PASSWORD"
LOGIN_DELAY_ENV = "SOLACE_SHELL_LOGIN_DELAY"  # seconds after a failed login (default 1; tests use 0)


def default_db_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "solace-shell" / "lab.sqlite"


def _fail(message: str, code: int = 2) -> NoReturn:
    click.echo(f"solace-shell: {message}", err=True)
    sys.exit(code)


def _open_lab(db: str | None, user: str, ask_password: bool, scenario: str | None = None) -> tuple[Lab, Path]:
    from state_store.errors import LabFileError, ScenarioError

    from .lab import Lab, UnknownUser, shell_grammar
    from .registries import RegistryError

    try:  # before any lab file is created: a broken installation changes nothing
        shell_grammar()
    except RegistryError as exc:
        _fail(f"this installation does not fit together ({len(exc.problems)} problem(s)):\n"
              + "\n".join(exc.problems))
    path = Path(db) if db else default_db_path()
    created = not path.exists()
    if scenario and not created:
        _fail(f"lab {path} already exists; --scenario only builds a new lab "
              "(choose another --db, or use `lab> reset <scenario>` inside the shell)")
    if created and not db:  # the default lab's directory is ours to make; a --db one is not
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            _fail(f"cannot create the directory of the default lab {path.parent}: {exc.strerror or exc} "
                  f"(choose a lab file with --db or {DEFAULT_DB_ENV})")
    if scenario:
        from state_store.scenario_files import resolve_scenario

        found = resolve_scenario(scenario)
        if found is None:
            _fail(f"scenario '{scenario}' not found (give a YAML file or a bundled scenario name: "
                  f"{', '.join(_bundled_scenarios())})")
        scenario = str(found)
    try:
        lab = Lab.open(path, user=user, scenario=scenario)
    except ScenarioError as exc:
        _fail(f"scenario {exc.path} has {len(exc.problems)} problem(s):\n" + "\n".join(exc.problems))
    except LabFileError as exc:
        _fail(f"cannot open lab {exc.path}: {exc.problem}")
    except UnknownUser as exc:
        if ask_password:  # the same question, the same work and the same answer as a wrong password
            _password_ok(None, user)
            _login_failed(user)
        _fail(f"no CLI user '{exc.name}' in lab {path}")
    if created:
        click.echo(f"solace-shell: created lab database {path}", err=True)
    if ask_password and not _password_ok(lab, user):
        lab.close()
        _login_failed(user)
    return lab, path


def _login_failed(user: str) -> NoReturn:
    """One answer for an unknown user and a wrong password, after a pause that makes guessing slow."""
    import time

    try:
        delay = float(os.environ.get(LOGIN_DELAY_ENV, "1"))
    except ValueError:
        delay = 1.0
    time.sleep(min(max(delay, 0.0), 10.0))
    _fail(f"login failed for CLI user '{user}'")


def _password_ok(lab: Lab | None, user: str) -> bool:
    """Like logging in over ssh: ask at a terminal, else take SOLACE_SHELL_PASSWORD. With no lab
    (an unknown user) the password is still asked for and checked against nothing."""
    password = os.environ.get(PASSWORD_ENV)
    if password is None:
        if not sys.stdin.isatty():
            _fail(f"CLI user '{user}' needs a password: set {PASSWORD_ENV} when not at a terminal")
        import getpass

        password = getpass.getpass("Password: ")
    if lab is None:
        from state_store.passwords import verify_password

        return verify_password(password, None)
    with lab.store.transaction() as engine:
        return engine.verify_password(user, password)


def _settings(lab: Lab) -> dict[str, str]:
    with lab.store.transaction() as engine:
        settings: dict[str, str] = engine.settings()
    return settings


def _script_text(data: bytes, source: str) -> str:
    from .script import ScriptDecodeError, decode_script

    try:
        return decode_script(data)
    except ScriptDecodeError as exc:
        _fail(f"{source}:{exc.line}: not valid UTF-8 (byte offset {exc.offset})")


def _check_commands(commands: tuple[str, ...]) -> None:
    """Arguments that were not valid UTF-8 reach Python as lone surrogates: one clear line."""
    for number, command in enumerate(commands, 1):
        if any("\udc80" <= ch <= "\udcff" for ch in command):
            _fail(f"-c argument {number} is not valid UTF-8")


def _bundled_scenarios() -> list[str]:
    """The bundled scenarios' names, default first (for --help)."""
    from state_store.scenario_files import ROOT_DIR

    return sorted((p.stem for p in ROOT_DIR.glob("*.yaml")), key=lambda name: (name != "default", name))


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", envvar=DEFAULT_DB_ENV, type=click.Path(),  # checked by state_store.lab_file
              help=f"Lab database file (default: {default_db_path()}; env {DEFAULT_DB_ENV}).")
@click.option("--user", help="Log in as this lab-defined CLI user (asks for its password; "
              f"{PASSWORD_ENV} when not at a terminal). Without it: the built-in admin, like cli -A.")
@click.option("--router", help="The router to start at (default: the lab's first router), or `lab` for the lab "
              "console (lab administrators only).")
@click.option("--scenario", help="Build a new lab file from this scenario (a YAML file, or a bundled scenario "
              f"name: {', '.join(_bundled_scenarios())}) instead of the default two-site lab.")
@click.option("-s", "--script", type=click.Path(exists=True, dir_okay=False),
              help="Run a CLI script file, echoing each line after the prompt (like cli -A -s).")
@click.option("-c", "--command", "commands", multiple=True, help="Run one command and exit (repeatable).")
@click.option("--record", type=click.Path(dir_okay=False), help="Record the interactive session as a transcript.")
@click.option("--vi", is_flag=True, help="vi editing keys in the interactive shell.")
@click.version_option(package_name="solace-shell", prog_name="solace-shell")
@click.pass_context
def main(ctx: click.Context, db: str | None, user: str | None, router: str | None, scenario: str | None,
         script: str | None,
         commands: tuple[str, ...], record: str | None, vi: bool) -> None:
    """A stateful emulator of the Solace PubSub+ broker CLI with a two-site replication lab."""
    if ctx.invoked_subcommand is not None:
        return
    _check_commands(commands)
    script_text: str | None = None
    if script:
        from state_store.user_files import SCRIPT_MAX_BYTES, FileRefused, read_bytes
        try:
            data = read_bytes(script, SCRIPT_MAX_BYTES)
        except FileRefused as refused:
            _fail(f"cannot read script {refused}")
        script_text = _script_text(data, script)
    elif not commands and not sys.stdin.isatty():
        # `solace-shell < file`, a pipe: a script, as `-s` runs it (no terminal, no control codes)
        from state_store.user_files import SCRIPT_MAX_BYTES
        data = sys.stdin.buffer.read(SCRIPT_MAX_BYTES + 1)
        if len(data) > SCRIPT_MAX_BYTES:
            _fail(f"<stdin>: too large: more than {SCRIPT_MAX_BYTES:,} bytes (the limit of a script)")
        script_text = _script_text(data, "<stdin>")
    if record and (script_text is not None or commands):
        _fail("--record records an interactive session; it cannot be used with -s, -c or piped input")
    one_shot = script_text is not None or bool(commands)   # the process ends with them (collector.py)
    if one_shot:
        collector.frozen_at_exit()
    with collector.paused(freeze=one_shot):  # what the start builds lives as long as the process
        lab, path = _open_lab(db, user or "admin", ask_password=user is not None, scenario=scenario)
    try:
        start = router or lab.start_target()
        if start not in lab.targets():
            _fail(f"no router named '{start}' in this lab (routers: {', '.join(lab.targets())})")
        from .lab import EntryRefused
        try:  # before a banner, a script line or a recording: the one check of every way in
            lab.enter(start)
        except EntryRefused as refused:
            _fail(str(refused), 1)
        if script_text is not None:
            from .banner import script_banner
            from .script import run_script, script_lines
            # `cli -A -s` framing is the router CLI's: a lab of HA systems only has none
            sys.exit(run_script(lab, start, script_lines(script_text), sys.stdout,
                                banner=script_banner(_settings(lab)) if lab.routers() else ""))
        if commands:
            from .script import run_commands
            sys.exit(run_commands(lab, start, commands, sys.stdout))
        from .banner import interactive_banner
        from .repl import history_path_for, run_repl
        recorder = None
        if record:
            from .transcript.record import Recorder, RecordRefused, check_fresh
            try:
                check_fresh(lab, scenario)
            except RecordRefused as refused:
                _fail(f"cannot record on lab {path}: {refused}")
            try:
                recorder = Recorder.open(Path(record), scenario=scenario, lab_path=path)
            except RecordRefused as refused:
                _fail(str(refused))
        click.echo(lab.banner(interactive_banner(_settings(lab)) if lab.routers() else ""), nl=False)
        try:
            code = run_repl(lab, start, history_path=history_path_for(path), recorder=recorder,
                            editing_mode="vi" if vi else "emacs")
        finally:
            if recorder is not None:
                recorder.close()
        sys.exit(code)
    finally:
        lab.close()
        if one_shot:
            collector.thawed()


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--accept", is_flag=True, help="Rewrite the expected output of failing commands in place.")
@click.option("--json", "json_out", is_flag=True, help="Print one JSON result per command.")
def replay(paths: tuple[str, ...], accept: bool, json_out: bool) -> None:
    """Replay golden transcripts against a fresh lab each; exit 0 only if all pass."""
    from .transcript.runner import run_replay_command

    sys.exit(run_replay_command([Path(p) for p in paths], accept, json_out, sys.stdout))


@main.command()
@click.option("--runbook", "runbook", required=True, metavar="NAME|FILE",
              help="A bundled runbook (e.g. controlled-failover) or a runbook file.")
@click.argument("paths", nargs=-1, required=True, type=click.Path(), metavar="TRANSCRIPT...")
@click.option("--json", "json_out", is_flag=True, help="Print one JSON object per transcript.")
def grade(runbook: str, paths: tuple[str, ...], json_out: bool) -> None:
    """Grade transcripts against a runbook: each step done or how it went wrong, with what it cost;
    exit 0 only if all pass (1: one failed, 2: a file could not be used)."""
    from .grading.command import run_grade_command

    sys.exit(run_grade_command(runbook, [Path(p) for p in paths], json_out, sys.stdout, sys.stderr))


@main.command()
@click.option("--listen", default=DEFAULT_LISTEN, show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT, show_default=True,
              help="SSH port of the lab's first router; the others follow in lab order, except a router "
                   "with its own ssh_port in the scenario (0: any free ports).")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Server processes sharing the ports (a classroom: one per core).")
@click.option("--worker", is_flag=True, hidden=True)  # one of the processes `--workers` starts
@click.pass_context
def serve(ctx: click.Context, listen: str, port: int, workers: int, worker: bool) -> None:
    """Serve the lab over SSH: each router on its own port; lab users log in with their password or
    an SSH key the scenario gives them. The routers served follow `lab> reset`."""
    import logging

    from .ssh.server import run_server

    params = ctx.find_root().params
    lab, path = _open_lab(params["db"], "admin", ask_password=False, scenario=params["scenario"])
    routers = len(list(lab.routers()))
    lab.close()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    logging.getLogger("asyncssh").setLevel(logging.WARNING)
    if workers > 1 and not worker:
        from .ssh.workers import run_workers
        sys.exit(run_workers(path, listen, port, workers, routers, sys.stdout))
    sys.exit(run_server(path, listen, port, sys.stdout, reuse_port=worker))


@main.group(name="class")
def class_group() -> None:
    """A class: every trainee (or team) in a lab of their own, the trainer above them all
    (docs/class.md)."""


CLASS_DB_ENV = "SOLACE_SHELL_CLASS_DB"  # `--db` of the class commands (a URL's password kept off `ps`)
_CLASS_DB = click.option("--db", "db", type=click.Path(file_okay=False), envvar=CLASS_DB_ENV, show_envvar=True,
                         help="The class directory (labs and record; default: beside the class file), or "
                              "a PostgreSQL URL (postgresql+psycopg://USER:PASSWORD@HOST/DB) every host shares.")


@class_group.command(name="example")
def class_example() -> None:
    """Print an example class file to start from (a class of four, commented)."""
    from importlib import resources

    click.echo(resources.files("solace_shell.classroom").joinpath("example.yaml").read_text(encoding="utf-8"),
               nl=False)


@class_group.command(name="serve")
@click.argument("class_file", metavar="CLASS.yaml")
@_CLASS_DB
@click.option("--listen", default=DEFAULT_LISTEN, show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT, show_default=True,
              help="SSH port of the first router; the others follow (0: any free ports).")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Server processes sharing the ports (one per core).")
@click.option("--worker", is_flag=True, hidden=True)  # one of the processes `--workers` starts
@click.option("--db-fd", type=click.IntRange(0), default=None, hidden=True)  # a worker's --db, through a pipe
@click.option("--web-port", type=click.IntRange(0, 65535), default=None,
              help="Also serve the trainer's class view in a browser on this port (0: any free port).")
@click.option("--web-cert", type=click.Path(exists=True, dir_okay=False), default=None,
              help="TLS certificate (PEM) for the class view; with --web-key.")
@click.option("--web-key", type=click.Path(exists=True, dir_okay=False), default=None,
              help="TLS private key (PEM) for the class view; with --web-cert.")
def class_serve(class_file: str, db: str | None, listen: str, port: int, workers: int, worker: bool,
                db_fd: int | None, web_port: int | None, web_cert: str | None, web_key: str | None) -> None:
    """Serve the class over SSH: trainees land in their own lab, trainers in the class console."""
    import logging

    from .classroom.commands import serve

    if db_fd is not None:  # a worker: the parent's --db (a URL with its password) comes through a pipe
        from .ssh.workers import read_secret

        try:
            db = read_secret(db_fd)
        except (OSError, UnicodeDecodeError) as exc:
            _fail(f"cannot read the class database's URL from descriptor {db_fd}: {exc}")

    web = None
    if (web_cert is None) != (web_key is None):
        raise click.UsageError("--web-cert and --web-key go together")
    if web_cert is not None and web_port is None:
        raise click.UsageError("--web-cert needs --web-port")
    if web_port is not None:
        from pathlib import Path

        from .classroom.web.options import WebOptions

        web = WebOptions(web_port, Path(web_cert) if web_cert else None, Path(web_key) if web_key else None)

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    logging.getLogger("asyncssh").setLevel(logging.WARNING)
    sys.exit(serve(class_file, db, listen, port, workers, sys.stdout, worker, web, env_drop=(CLASS_DB_ENV,)))


@class_group.command(name="grades")
@click.argument("class_file", metavar="CLASS.yaml")
@_CLASS_DB
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), help="Write a row per trainee and step.")
@click.option("--json", "json_out", is_flag=True, help="Print the grades as one JSON object.")
def class_grades(class_file: str, db: str | None, csv_path: str | None, json_out: bool) -> None:
    """Grade every trainee's record against the class's runbook."""
    from .classroom.commands import grades

    sys.exit(grades(class_file, db, csv_path, json_out, sys.stdout))


@class_group.command(name="export")
@click.argument("class_file", metavar="CLASS.yaml")
@click.argument("trainee")
@_CLASS_DB
def class_export(class_file: str, trainee: str, db: str | None) -> None:
    """Print a trainee's lab record as a transcript with timing (what grade and replay read)."""
    from .classroom.commands import export

    sys.exit(export(class_file, db, trainee, sys.stdout))


if __name__ == "__main__":  # pragma: no cover
    main()
