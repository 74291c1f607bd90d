"""The ``trample`` command line (SPEC §5): a thin layer over :mod:`trample.solver.interface.api`.

Exit status: 0 success (``validate``: legal), 1 ``validate`` found the assignment
illegal, 2 bad input or usage (one line on standard error, no traceback), 3 an internal
error (a bug: an answer failed trample's own check and was not printed).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Iterable, Sequence
from itertools import islice
from typing import Any, NoReturn

from trample.models.document.combat import brief_repr
from trample.models.document.errors import InputError, InternalError, TrampleError

EXIT_OK, EXIT_ILLEGAL, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
MAX_DOCUMENT_BYTES = 64 * 2**20
"""The largest document (or assignment, or game state) read from a file or stdin."""


class _Usage(Exception):
    pass


_read: list[dict[str, str]] = []
"""What this run read (each input's bytes, as text or base64): a bug report holds the
request itself, not a path or a ``-`` that cannot be read again."""
_options: dict[str, Any] = {}
"""The parsed options of this run, for a bug report."""


def _remember(what: str, source: str, data: bytes) -> None:
    import base64

    entry = {"what": what, "from": source}
    try:
        entry["text"] = data.decode("utf-8")
    except UnicodeDecodeError:
        entry["base64"] = base64.b64encode(data).decode("ascii")
    _read.append(entry)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("trample").strip()
        raise _Usage(f"{command + ': ' if command else ''}{message} (see --help)")


def _read_json(path: str, what: str) -> Any:
    from trample.solver.interface.protocol import decode

    name = "standard input" if path == "-" else path
    try:
        if path == "-":
            data = sys.stdin.buffer.read(MAX_DOCUMENT_BYTES + 1)
        else:
            with open(path, "rb") as f:
                data = f.read(MAX_DOCUMENT_BYTES + 1)
    except OSError as exc:
        raise _Usage(f"{what} {path}: {exc.strerror or exc}") from None
    _remember(what, path, data[:MAX_DOCUMENT_BYTES])
    if len(data) > MAX_DOCUMENT_BYTES:
        raise _Usage(f"{what} {name}: larger than {MAX_DOCUMENT_BYTES // 2**20} MiB, the "
                     "limit for one document")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _Usage(f"{what} {name}: not UTF-8 text") from None
    try:
        return decode(text)
    except (ValueError, RecursionError) as exc:
        raise _Usage(f"{what} {name}: not valid JSON: {exc}") from None


def _read_json_or_text(arg: str, what: str) -> Any:
    """A JSON argument given inline (``'{"action": ...}'``) or as a path."""
    if arg.lstrip().startswith(("{", "[")):
        from trample.solver.interface.protocol import decode

        try:
            return decode(arg)
        except (ValueError, RecursionError) as exc:
            raise _Usage(f"{what}: not valid JSON: {exc}") from None
    return _read_json(arg, what)


def _encode(obj: Any) -> str:
    from trample.solver.interface.protocol import encode

    try:
        return encode(obj)
    except ValueError:
        raise _Usage("the answer holds an integer of more than 100,000 digits: refused rather "
                     "than written out") from None


def _emit(obj: Any) -> None:
    sys.stdout.write(_encode(obj) + "\n")


def _emit_lines(items: Iterable[Any]) -> None:
    for item in items:
        sys.stdout.write(_encode(item) + "\n")
        sys.stdout.flush()


def _second(args: argparse.Namespace, path: str, what: str) -> Any:
    """A second JSON file of a command (the first is FILE); both cannot be -."""
    if path == "-" and args.file == "-":
        raise _Usage(f"{args.command}: FILE and the {what} cannot both be -")
    return _read_json(path, what)


def _index(raw: str) -> int:
    """An index of any size, written in decimal."""
    text = raw.strip()
    if not text.isdigit() or not text.isascii():
        raise InputError("index", f"must be a whole number, not {raw[:40]!r}")
    if len(text) > MAX_INDEX_DIGITS:
        raise InputError("index", f"has more than {MAX_INDEX_DIGITS:,} digits")
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return int(text)
    finally:
        sys.set_int_max_str_digits(limit)


MAX_INDEX_DIGITS = 100_000
"""The longest index ``unrank`` reads (as ``serve`` writes counts up to this many digits)."""


def _version() -> str:
    import trample  # its __init__ (solver/_root) reads the version pyproject.toml sets

    return str(getattr(trample, "__version__", "0+unknown"))


class _VersionAction(argparse.Action):
    # Like argparse's "version" action, but the version is looked up only when asked for.
    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print trample's version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        print(f"trample {_version()}")
        parser.exit()


ATTACKERS_DEFAULT = ("losses, deaths, survivals, planeswalker_deaths, battle_deaths, poison, "
                     "life_loss, loyalty_loss, defense_loss, life_gain")
BLOCKERS_DEFAULT = "life_kept, survivals, deaths, life_gain"
PLAN_DEFAULT = ATTACKERS_DEFAULT
BLOCKS_DEFAULT = ("losses, trade, planeswalker_deaths, battle_deaths, poison, life_loss, "
                  "loyalty_loss, defense_loss, life_gain")
"""The default objectives as ``--help`` names them (written out: the parser is built
without loading the solver; tests/test_cli.py holds them to the solver's own)."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = _Parser(
        prog="trample",
        description="Rules-exact combat damage assignment for Magic: The Gathering. "
                    "FILE is a combat/1 JSON document (a path, or - for standard input).",
        epilog="Exit status: 0 success, 1 validate found the assignment illegal, 2 bad "
               "input or usage, 3 internal error.")
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def command(name: str, text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=text, description=text)
        return p

    def file_argument(p: argparse.ArgumentParser, what: str = "combat") -> None:
        p.add_argument("file", metavar="FILE", help=f"{what} document, or - for stdin")

    def file_and_side(p: argparse.ArgumentParser) -> None:
        file_argument(p)
        p.add_argument("--side", choices=["attackers", "blockers"],
                       help="whose damage is assigned (default: the document's, else "
                            "attackers)")

    def objective_and_limit(p: argparse.ArgumentParser, default: str, stop: str,
                            found: str = "the best found") -> None:
        p.add_argument("--objective", metavar="T1,T2,...",
                       help=f"terms, first matters most (default{default})")
        p.add_argument("--time-limit", type=float, metavar="SECONDS",
                       help=f"stop {stop} and answer 'feasible' with {found} (default 60)")

    p = command("plan", "Both combat damage steps at once: the first-strike split that "
                "guarantees the best value over the whole combat.")
    file_argument(p)
    objective_and_limit(p, f": {PLAN_DEFAULT}", "the search",
                        "the best value guaranteed so far")

    p = command("solve", "The best legal assignment for the objective, lexicographically.")
    file_and_side(p)
    objective_and_limit(p, f" for attackers: {ATTACKERS_DEFAULT}; for blockers: "
                           f"{BLOCKERS_DEFAULT}", "the search after this long")

    def file_side_and_assignment(p: argparse.ArgumentParser) -> None:
        file_and_side(p)
        p.add_argument("assignment", nargs="?", metavar="ASSIGNMENT_FILE",
                       help="the assignment (default: the document's top-level "
                            "'assignment')")

    p = command("validate", "Whether an assignment is legal, and every rule it breaks.")
    file_side_and_assignment(p)

    p = command("count", "The exact number of distinct legal assignments.")
    file_and_side(p)
    p.add_argument("--fixed", metavar="FIXED_FILE",
                   help="count only those that agree with these entries (a JSON list of "
                        "{source, target, amount}; 0 fixes a pair to 0)")

    p = command("pairs", "The legal (source, recipient) pairs, in the order rank, unrank, "
                         "options and validate_many use.")
    file_and_side(p)

    p = command("rank", "The position of a legal assignment in enumerate's order.")
    file_side_and_assignment(p)

    p = command("unrank", "The legal assignment at a position of enumerate's order.")
    file_and_side(p)
    p.add_argument("index", metavar="INDEX", help="0 <= INDEX < count")

    p = command("options", "Every amount the next pair may take with a legal completion, "
                           "and how many completions each has.")
    file_and_side(p)
    p.add_argument("--fixed", metavar="FIXED_FILE",
                   help="entries already chosen (a JSON list of {source, target, amount})")
    p.add_argument("--pair", metavar="SOURCE,TARGET",
                   help="the pair (default: the first pair of 'pairs' not fixed)")

    p = command("project", "The legal assignment nearest a vector of amounts (L1), ties to "
                           "the default objective, then to enumerate's order.")
    file_and_side(p)
    p.add_argument("amounts", metavar="AMOUNTS_FILE",
                   help="a JSON list of {source, target, amount}, any numbers")
    p.add_argument("--time-limit", type=float, metavar="SECONDS",
                   help="stop the search after this long and answer the nearest found, "
                        "with \"status\": \"feasible\" (default 60)")

    p = command("enumerate", "Every legal assignment once, one JSON line each.")
    file_and_side(p)
    p.add_argument("--limit", type=int, metavar="N", help="stop after N assignments")

    p = command("sample", "Legal assignments drawn uniformly at random, independently.")
    file_and_side(p)
    p.add_argument("-n", type=int, default=1, metavar="N", help="how many (default 1)")
    p.add_argument("--seed", type=int, metavar="K", help="random seed (default 0)")

    p = command("blocks", "Block declarations of a board (SPEC §11): check one, list, count "
                          "or offer them, value them, or find the best.")
    blocks = p.add_subparsers(dest="blocks_command", metavar="WHAT", parser_class=_Parser)

    def board_command(name: str, text: str) -> argparse.ArgumentParser:
        q = blocks.add_parser(name, help=text, description=text)
        file_argument(q, "board")
        return q

    q = board_command("check", "Whether a block declaration is legal (509.1a-c), and every "
                               "rule it breaks.")
    q.add_argument("blocks", nargs="?", metavar="BLOCKS_FILE",
                   help="a JSON list of {blocker, attacker} (default: the board's top-level "
                        "'blocks')")
    board_command("pairs", "The possible (blocker, attacker) pairs, in declaration order.")
    q = board_command("count", "The exact number of legal block declarations.")
    q.add_argument("--fixed", metavar="FIXED_FILE",
                   help="count those that agree with this JSON object {blocker: [attackers]}")
    q = board_command("enumerate", "Every legal block declaration once, in declaration "
                                   "order, one JSON line each.")
    q.add_argument("--limit", type=int, metavar="N", help="stop after N declarations")
    q = board_command("options", "Every set of attackers a blocker can block in a legal "
                                 "declaration, with how many completions each has.")
    q.add_argument("--fixed", metavar="FIXED_FILE",
                   help="what some blockers block already (a JSON object {blocker: "
                        "[attackers]})")
    q.add_argument("--blocker", metavar="ID",
                   help="the blocker (default: the first of 'pairs' not fixed)")
    q = board_command("evaluate", "Each declaration's legality and its exact value (plan on "
                                  "the combat it makes).")
    q.add_argument("declarations", metavar="DECLARATIONS_FILE",
                   help="a JSON list of declarations (lists of {blocker, attacker})")
    objective_and_limit(q, f": {BLOCKS_DEFAULT}", "valuing")
    q = board_command("best", "The legal block declaration of least value for the attackers, "
                              "with plan's answer on it.")
    objective_and_limit(q, f": {BLOCKS_DEFAULT}", "the search")
    q.add_argument("--ties", action="store_true",
                   help="also count the legal declarations of that value")

    p = command("attack", "The best attack declaration of a board without attacks (SPEC "
                          "§11), the defenders' best block against it, and plan's answer.")
    file_argument(p, "board")
    objective_and_limit(p, f": {BLOCKS_DEFAULT}", "the search")
    p.add_argument("--ties", action="store_true",
                   help="also count the legal attack declarations of that value")

    p = command("serve", "A JSON-RPC 2.0 engine on standard input and output, one request "
                         "per line.")
    p.add_argument("--out-of-order", action="store_true",
                   help="answer each request as soon as it is ready (matched by id), not "
                        "in the order of the lines")
    p.add_argument("--workers", type=int, metavar="N",
                   help="threads answering out of order (default: the CPUs)")

    p = command("batch", "Answer a file of JSON-RPC requests (or bare combat documents, "
                         "meaning solve) in parallel: line i of OUT answers line i of IN, "
                         "as serve would ('null' where serve answers nothing).")
    p.add_argument("input", metavar="IN", help="JSON lines, or - for stdin")
    p.add_argument("output", metavar="OUT", help="where the answers go, or - for stdout")
    p.add_argument("--workers", type=int, metavar="N",
                   help="local processes (default: every core; 1 runs in this process); "
                        "with --ray, the CPUs of a local Ray")
    p.add_argument("--ray", nargs="?", const=True, metavar="ADDRESS",
                   help="run as Ray tasks: on a new local Ray, or on the cluster at ADDRESS "
                        "(write --ray=ADDRESS before IN, or --ray last); pip install "
                        "'.[ray]' in a clone of trample")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted batch: keep OUT's whole lines, answer the "
                        "rest of IN")
    p.add_argument("--force", action="store_true",
                   help="replace OUT when it is a file that already has content (without "
                        "--force or --resume, such an OUT is refused)")
    p.add_argument("--chunk-size", type=int, default=64, metavar="K",
                   help="lines per task (default 64)")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar on standard error")

    p = command("apply", "One transition of a JSON game state: the new state and the events. "
                         "Combat damage the action leaves open is chosen by the solver.")
    p.add_argument("state", metavar="STATE", help="game state JSON, or - for stdin")
    p.add_argument("action", metavar="ACTION",
                   help="action JSON (a file, or the JSON text itself), or - for stdin")
    p.add_argument("--objective", metavar="T1,T2,...", help="the attackers' objective")
    p.add_argument("--time-limit", type=float, metavar="SECONDS",
                   help="for each solve (default 60)")

    p = command("demo", "Solve a built-in combat and print the optimal split as a table.")
    p.add_argument("--json", action="store_true", help="print the solve result as JSON")
    p.add_argument("--game", action="store_true",
                   help="play a scripted game with the seed cards and print its log")
    return parser


def run(argv: Sequence[str]) -> int:
    """Run one command; the exit status."""
    from trample.solver.interface import api

    args = build_parser().parse_args(argv)
    _options.update(vars(args))
    if args.command is None:
        raise _Usage("a COMMAND is required (solve, validate, count, enumerate, "
                     "sample, plan, pairs, rank, unrank, options, project, blocks, attack, "
                     "serve, batch, apply, demo; see --help)")
    if args.command == "serve":
        from trample.solver.interface.serve import MAX_WORKERS, serve

        if args.workers is not None and not 1 <= args.workers <= MAX_WORKERS:
            raise _Usage(f"--workers: at least 1 and at most {MAX_WORKERS}, not {args.workers}")
        return serve(out_of_order=args.out_of_order, workers=args.workers)
    if args.command == "batch":
        from trample.solver.interface.batch import batch

        return batch(args.input, args.output, resume=args.resume, force=args.force,
                     workers=args.workers, ray=args.ray, chunk_size=args.chunk_size,
                     progress=not args.no_progress)
    if args.command == "demo":
        from trample.solver.interface import demo

        if args.game:
            from trample.solver.interface import demo_game

            print(demo_game.render())
        elif args.json:
            _emit(api.solve(demo.DEMO_COMBAT))
        else:
            print(demo.render(demo.DEMO_COMBAT))
        return EXIT_OK

    if args.command == "apply":
        from trample.solver.interface.game_loop import apply

        if args.state == "-" and args.action == "-":
            raise _Usage("apply: STATE and ACTION cannot both be -")
        state = _read_json(args.state, "game state")
        action = _read_json_or_text(args.action, "action")
        _emit(apply(state, action, objective=args.objective,
                    time_limit=args.time_limit))
        return EXIT_OK

    started = time.monotonic()  # solve's time limit counts reading the input
    if args.command == "blocks":
        return _blocks(args)
    document = _read_json(args.file, "combat document")
    if args.command == "attack":
        _emit(api.best_attack(document, objective=args.objective,
                              time_limit=args.time_limit, ties=args.ties or None))
    elif args.command == "plan":
        _emit(api.plan(document, objective=args.objective,
                       time_limit=args.time_limit))
    elif args.command == "solve":
        _emit(api.solve(document, side=args.side, objective=args.objective,
                        time_limit=args.time_limit, started=started))
    elif args.command == "validate":
        assignment = None
        if args.assignment is not None:
            if args.assignment == "-" and args.file == "-":
                raise _Usage("validate: FILE and ASSIGNMENT_FILE cannot both be -")
            assignment = _read_json(args.assignment, "assignment file")
        result = api.validate(document, assignment, side=args.side)
        _emit(result)
        return EXIT_OK if result["legal"] else EXIT_ILLEGAL
    elif args.command == "count":
        if args.fixed is not None:
            _emit(api.count_fixed(document, _second(args, args.fixed, "fixed file"),
                                  side=args.side))
        else:
            _emit(api.count(document, side=args.side))
    elif args.command == "pairs":
        _emit(api.pairs(document, side=args.side))
    elif args.command == "rank":
        raw = None if args.assignment is None else \
            _second(args, args.assignment, "assignment file")
        _emit(api.rank(document, raw, side=args.side))
    elif args.command == "unrank":
        _emit(api.unrank(document, _index(args.index), side=args.side))
    elif args.command == "options":
        fixed = None if args.fixed is None else _second(args, args.fixed, "fixed file")
        pair = None if args.pair is None else [t.strip() for t in args.pair.split(",", 1)]
        _emit(api.options(document, fixed, pair, side=args.side))
    elif args.command == "project":
        _emit(api.project(document, _second(args, args.amounts, "amounts file"),
                          side=args.side, time_limit=args.time_limit))
    elif args.command == "enumerate":
        _emit_lines(api.enumerate_assignments(document, side=args.side, limit=args.limit))
    elif args.command == "sample":
        _emit_lines(api.sample(document, side=args.side, n=args.n, seed=args.seed))
    return EXIT_OK


def _blocks(args: argparse.Namespace) -> int:
    """``trample blocks WHAT FILE ...`` (SPEC §11)."""
    from trample.solver.interface import api
    from trample.solver.interface.blocks_api import read_board, walk_blocks

    if args.blocks_command is None:
        raise _Usage("blocks: WHAT is required (check, pairs, count, enumerate, options, "
                     "evaluate, best; see trample blocks --help)")
    document = _read_json(args.file, "board")
    what = args.blocks_command
    if what == "check":
        raw = None if args.blocks is None else _second(args, args.blocks, "blocks file")
        result = api.check_blocks(document, raw)
        _emit(result)
        return EXIT_OK if result["legal"] else EXIT_ILLEGAL
    if what == "pairs":
        _emit(api.block_pairs(document))
    elif what == "count":
        fixed = None if args.fixed is None else _second(args, args.fixed, "fixed file")
        _emit(api.count_blocks(document, fixed))
    elif what == "enumerate":
        if args.limit is not None and args.limit < 0:
            raise _Usage("blocks enumerate: --limit must be at least 0")
        walk = walk_blocks(read_board(document))
        _emit_lines({"blocks": d} for d in islice(walk, args.limit))
    elif what == "options":
        fixed = None if args.fixed is None else _second(args, args.fixed, "fixed file")
        _emit(api.block_options(document, fixed if fixed is not None else {}, args.blocker))
    elif what == "evaluate":
        declared = _second(args, args.declarations, "declarations file")
        _emit(api.evaluate_blocks(document, declared, objective=args.objective,
                                  time_limit=args.time_limit))
    else:
        _emit(api.best_block(document, objective=args.objective,
                             time_limit=args.time_limit, ties=args.ties or None))
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``trample`` console script."""
    argv = sys.argv[1:] if argv is None else argv
    _read.clear()
    _options.clear()
    try:
        return run(argv)
    except InternalError as exc:
        print(f"trample: internal error: {exc}", file=sys.stderr)
        return EXIT_INTERNAL
    except (_Usage, TrampleError) as exc:  # bad input (InputError) or usage
        print(f"trample: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (e.g. `trample enumerate ... | head`): not an error.
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug: one line and a saved report, never a traceback
        from trample.solver.interface.bug_reports import bug_report_note

        note = bug_report_note("command line", {"argv": list(argv), "options": dict(_options),
                                                "inputs": list(_read)}, exc)
        print(f"trample: internal error: {type(exc).__name__}: {brief_repr(str(exc))}; "
              f"{note}", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
