"""The toolbar offers only what the user may do, and F2 leaves no prompt line behind."""

from __future__ import annotations

import io

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from solace_shell.lab import Lab
from solace_shell.repl import Repl
from solace_shell.toolbar import toolbar_text

F2 = "\x1bOQ"


def _toolbar(repl: Repl) -> str:
    return "".join(fragment[1] for fragment in repl._toolbar())


def test_the_f2_hint_only_for_users_who_may_open_the_console() -> None:
    assert toolbar_text("NY_Appliance1", "T+5s", "NY_Appliance1", console=False) == " NY_Appliance1 | T+5s "
    for user, offered in (("admin", True), ("monitor", False), ("operator", False)):
        lab = Lab.fresh(settings={"user": user})
        try:
            with create_pipe_input() as pipe:
                repl = Repl(lab, "NY_Appliance1", input=pipe, output=DummyOutput(), stdout=io.StringIO())
                assert ("F2 lab console / router" in _toolbar(repl)) is offered, user
        finally:
            lab.close()


def test_f2_erases_the_prompt_it_leaves_and_only_that_one() -> None:
    lab = Lab.fresh()
    try:
        with create_pipe_input() as pipe:
            repl = Repl(lab, "NY_Appliance1", input=pipe, output=DummyOutput(), stdout=io.StringIO())
            erased: list[bool] = []
            for prompt_session in repl._prompt_sessions.values():
                app = prompt_session.app
                original = app.exit

                def spy(*args: object, _original: object = original, _app: object = app, **kwargs: object) -> None:
                    erased.append(bool(getattr(_app, "erase_when_done", False)))
                    _original(*args, **kwargs)  # type: ignore[operator]

                app.exit = spy  # type: ignore[method-assign]
            pipe.send_text("show hostname\r" + F2 + "status\r" + F2)
            pipe.close()
            repl.run()
            # the two F2 exits erase their prompt; the accepted lines and the final EOF keep theirs
            assert erased.count(True) == 2
            assert all(not s.app.erase_when_done for s in repl._prompt_sessions.values())
    finally:
        lab.close()
