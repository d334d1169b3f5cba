"""One error model: every exception p2php raises on purpose derives from ``P2phpError`` (issue 9).

The CLI prints a ``P2phpError`` as one line and lets anything else (a bug) show its traceback, so a
new exception class that forgot the root would turn a refusal into a crash report.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import p2php
from p2php.errors import P2phpError, UsageError

CONTROL_FLOW = {
    "p2php.session.records.Gap",  # a message from further ahead: parked, never seen by a caller
    "p2php.session.records.FaultError",  # carries a Fault inside the lockstep, caught there
    "p2php.terminal.Quit",  # the person typed q: the terminal's own loop ends
}


def _exception_classes() -> list[type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(p2php.__path__, "p2php."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, BaseException) and obj.__module__.startswith("p2php"):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return [cls for name, cls in sorted(found.items()) if name not in CONTROL_FLOW
            and not cls.__name__.startswith("_")]


def test_every_public_exception_has_the_root() -> None:
    classes = _exception_classes()
    assert len(classes) > 15
    missing = [f"{c.__module__}.{c.__qualname__}" for c in classes if not issubclass(c, P2phpError)]
    assert not missing, missing


def test_the_cli_prints_a_refusal_in_one_line_and_lets_a_bug_through(capsys: pytest.CaptureFixture[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from p2php import cli

    assert cli.main(["demo", "uno", "--peers", "1"]) == 2  # a refusal: one line, exit code 2
    err = capsys.readouterr().err
    assert err.startswith("p2php: ") and err.count("\n") == 1, err

    def broken(args: object) -> int:
        raise ValueError("a bug, not a refusal")

    parser = cli.build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    for action in parser._subparsers._group_actions:  # type: ignore[union-attr]
        action.choices["games"].set_defaults(func=broken)  # type: ignore[index]
    with pytest.raises(ValueError, match="a bug"):
        cli.main(["games"])


def test_bad_addresses_are_usage_errors() -> None:
    from p2php.bridge import parse_host_port
    from p2php.discovery import parse_target

    for bad in ("nohost", "host:99999", ":"):
        with pytest.raises(UsageError):
            parse_host_port(bad)
    with pytest.raises(UsageError):
        parse_target("host:port", 1234)


def test_refusal_codes_parse_what_the_network_sends() -> None:
    from p2php.errors import RefusalCode

    assert RefusalCode.parse("full") is RefusalCode.FULL and RefusalCode.FULL == "full"  # the wire word
    assert RefusalCode.parse("a-code-from-a-newer-peer") is RefusalCode.REFUSED
    assert RefusalCode.parse(7) is RefusalCode.REFUSED and RefusalCode.parse(None) is RefusalCode.REFUSED


def test_a_refused_hello_has_a_code_and_a_bounded_line_whatever_the_peer_put_in_it() -> None:
    from p2php.errors import RefusalCode
    from p2php.session.handshake import HandshakeRefused, LocalSecrets, check_hello, make_hello

    hello = make_hello(LocalSecrets(master=bytes(32)), 1, 3, "uno", {"x": "\x1b[2J" * 5000}, "\x1b[31m" + "m" * 10_000)
    with pytest.raises(HandshakeRefused) as refused:
        check_hello(hello, seat=1, players=3, game="uno", options={})
    assert refused.value.code is RefusalCode.OPTIONS
    line = str(refused.value)
    assert len(line) < 400 and "\x1b" not in line and "\n" not in line
