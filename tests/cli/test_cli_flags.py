"""Bad flag values, generated from the declared flags of every subcommand (issue 40 item 2).

Every checked flag is declared once with ``irtbridge.cli._common.declare_flag`` (its argparse ``type`` and
``choices`` derived from an ``irtbridge._constraints`` constraint) and registered in ``_common.FLAGS``. For every
declared flag and each text its constraint refuses, and for every flag with choices, the parser (in-process, no
subprocess) must stop with exit status 2 and one line naming the flag: while the command line is read, before any
file is read or R starts. A flag that feeds a library parameter carries the same declaration as the parameter.
"""

from __future__ import annotations

import argparse
import importlib

import pytest

from irtbridge.cli import build_parser
from irtbridge.cli._common import FLAGS

PARSER = build_parser()


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    (group,) = [a for a in PARSER._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(group.choices)


SUBCOMMANDS = _subcommands()


def _filler(prog: str, action: argparse.Action) -> list[str]:
    """Arguments that satisfy a required positional or option (never checked: the parser stops at the bad flag);
    a declared input path gets a file that exists."""
    declared = FLAGS.get((prog, action.option_strings[0] if action.option_strings else action.dest))
    value = (str(next(iter(action.choices))) if action.choices else
             str(declared.constraint.example) if declared else "x")
    if action.nargs in ("?", "*"):
        return []
    return [value] if not action.option_strings else [action.option_strings[0], value]


def _action(sub: argparse.ArgumentParser, flag: str) -> argparse.Action:
    """The action of ``flag``: an option string, or a positional's name."""
    (action,) = [a for a in sub._actions if flag in a.option_strings or (not a.option_strings and a.dest == flag)]
    return action


def _argv(name: str, flag: str, text: str) -> list[str]:
    sub = SUBCOMMANDS[name]
    tested = _action(sub, flag)
    required = [a for a in sub._actions if (not a.option_strings or a.required) and a is not tested]
    for group in sub._mutually_exclusive_groups:
        if group.required and not any(flag in a.option_strings for a in group._group_actions):
            required.append(group._group_actions[0])
    argv = [name]
    for action in required:
        argv += _filler(sub.prog, action)
    if not tested.option_strings:  # a positional: the bad text in its place (no refused text starts with "-")
        return argv + [text]
    return argv + [f"{flag}={text}"]  # `=`: a text starting with "-" stays the flag's value


def _named(name: str, flag: str) -> str:
    """How argparse names the argument in its message: the flag, or a positional's metavar."""
    action = _action(SUBCOMMANDS[name], flag)
    return flag if action.option_strings else str(action.metavar or action.dest)


def _declared_cases() -> list[tuple[str, str, str]]:
    cases = []
    for (prog, flag), declared in sorted(FLAGS.items()):
        name = prog.split()[-1]
        assert name in SUBCOMMANDS, prog
        cases += [(name, flag, text) for text in declared.constraint.invalid_texts()]
    return cases


def _choice_cases() -> list[tuple[str, str, str]]:
    return [(name, action.option_strings[0], "__none_of_these__")
            for name, sub in sorted(SUBCOMMANDS.items()) for action in sub._actions
            if action.option_strings and action.choices and not isinstance(action.choices, dict)]


def _refused(argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as info:
        PARSER.parse_args(argv)
    assert info.value.code == 2, argv
    return capsys.readouterr().err.strip()


def test_every_subcommand_declares_its_checked_flags():
    # a flag typed by a bare int or float takes nan, inf, -1: it must be declared (argparse types from a constraint)
    loose = [(name, action.option_strings[0]) for name, sub in SUBCOMMANDS.items() for action in sub._actions
             if action.type in (int, float)]
    assert not loose, loose
    assert len({prog for prog, _ in FLAGS}) >= 15 and len(FLAGS) >= 40, sorted(FLAGS)



def test_every_input_path_is_declared_and_must_exist():
    # a positional is a path (a choice such as ingest's FORMAT aside): declared, so a missing input is one line
    # while the command line is read (issue 40 item 2: "paths that must exist")
    loose = [(name, a.dest) for name, sub in SUBCOMMANDS.items() for a in sub._actions
             if not a.option_strings and not a.choices and (sub.prog, a.dest) not in FLAGS]
    assert not loose, loose
    inputs = [d for d in FLAGS.values() if getattr(d.constraint, "must_exist", False)]
    assert len(inputs) >= 20, len(inputs)

@pytest.mark.parametrize("name, flag, text", _declared_cases() + _choice_cases(), ids=str)
def test_a_refused_flag_value_is_one_line_naming_the_flag(name, flag, text, capsys):
    err = _refused(_argv(name, flag, text), capsys)
    assert "\n" not in err and _named(name, flag) in err and "Traceback" not in err, err


@pytest.mark.parametrize("key", sorted(FLAGS), ids=" ".join)
def test_defaults_meet_their_declarations(key):
    declared = FLAGS[key]
    sub = SUBCOMMANDS[declared.command.split()[-1]]
    action = _action(sub, declared.flag)
    if action.default is not None:
        declared.constraint.check(action.default, declared.flag)


@pytest.mark.parametrize("key", sorted(k for k, d in FLAGS.items() if d.parameter), ids=" ".join)
def test_a_flag_and_the_parameter_it_feeds_share_one_declaration(key):
    declared = FLAGS[key]
    where, parameter = declared.parameter.split(":")
    module, function = where.rsplit(".", 1)
    fn = getattr(importlib.import_module(module), function)
    assert fn.__constraints__[parameter] == declared.constraint


def test_a_good_flag_value_is_read_as_the_library_reads_it():
    args = PARSER.parse_args(["tiny", __file__, "--out", "o", "--k", "7.0", "--seed", "3", "--threshold", "0.5"])
    assert (args.k, type(args.k), args.seed, args.threshold) == (7, int, 3, 0.5)
    assert PARSER.parse_args(["dims", __file__]).holdout == 0.1  # a default is not read as text
