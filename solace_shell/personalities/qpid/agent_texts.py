"""What a Qpid broker's management agent answers a refused method with, as the tools print it.

The broker (qpid-cpp 1.39.0) catches the exception its method threw and sends a QMF
``_exception`` whose ``_values`` map holds ``error_code`` 7 (STATUS_EXCEPTION) and
``error_text``, the exception's ``what()``: ``<prefix>: <message>`` for the framing exceptions
(``not-found``, ``invalid-argument``), and the message alone for ``qpid::Exception``.
Messages built with ``QPID_MSG`` end with the source location the broker was compiled from,
here the path an RPM build of qpid-cpp 1.39.0 gives (``/builddir/build/BUILD/...``).

``BrokerAgent._method`` (qpidtoollibs/broker.py) raises ``Exception("Exception from Agent: %r"
% _values)``: the repr of a Python 2 dict whose keys came as AMQP str8 (unicode) and whose text
came as vbin16 (a byte string), so ``{u'error_code': 7, u'error_text': '...'}``."""

from __future__ import annotations

SOURCE = "/builddir/build/BUILD/qpid-cpp-1.39.0/src/qpid/broker/"

# the agent's errors (state_store.qpid.errors.AGENT_ERRORS) as the broker words them
ERROR_TEXTS = {
    "exception": "{name}",
    "object-exists": "object already exists: {name}",
    "queue-not-found": "not-found: Queue not found: {name} (" + SOURCE + "QueueRegistry.cpp:176)",
    "exchange-not-found": "not-found: Exchange not found: {name} (" + SOURCE + "ExchangeRegistry.cpp:144)",
    "bind-no-queue": "not-found: Bind failed. No such queue: {name} (" + SOURCE + "Broker.cpp:1615)",
    "bind-default": "invalid-argument: Bind not allowed for default exchange (" + SOURCE + "Broker.cpp:1609)",
    "invalid-exchange-type": "Invalid exchange type: {name} (" + SOURCE + "Broker.cpp:895)",
}


def error_text(error: str, name: str) -> str:
    """The broker's ``what()`` for one of its refusals."""
    return ERROR_TEXTS[error].format(name=name)


def py2_bytes_repr(text: str) -> str:
    """Python 2's repr of a byte string (the same escapes as Python 3's bytes, without the b)."""
    return repr(text.encode("utf-8"))[1:]


def agent_exception(error: str, name: str) -> str:
    """The line a tool prints for the agent's refusal: ``Exception: Exception from Agent: {...}``
    (qpid-config prefixes ``Failed: ``)."""
    values = f"{{u'error_code': 7, u'error_text': {py2_bytes_repr(error_text(error, name))}}}"
    return f"Exception: Exception from Agent: {values}"
