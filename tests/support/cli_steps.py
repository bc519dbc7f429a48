"""Steps shared by the command tests: run lines that must succeed, or must be refused cleanly."""

from __future__ import annotations


def go(session, *lines):
    """Run lines that must succeed silently (config commands print nothing); returns the session."""
    for line in lines:
        outcome = session.execute(line)
        assert outcome.ok, (line, outcome.text)
        assert outcome.text == "", (line, outcome.text)
    return session


def refused(lab, session, line, kind="engine"):
    """The line is refused; nothing in the lab and nothing in the prompt changed."""
    before, prompt = lab.store.dump(), session.prompt
    outcome = session.execute(line)
    assert not outcome.ok, line
    assert outcome.error_kind == kind, (line, outcome)
    assert lab.store.dump() == before
    assert session.prompt == prompt
    return outcome
