"""The ``shutbox`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import msgspec

from service.rules.ruleset import MOVE_RULE_VALUES, ONE_DIE_VALUES, SCORING_VALUES, Rules
from service.rules.solver import solution


def _tile_list(text: str) -> list[int]:
    try:
        return [int(part) for part in text.replace(",", " ").split()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of tiles: {text!r}") from None


def _rules_from(args: argparse.Namespace) -> Rules:
    start = [tile for chunk in args.start for tile in chunk] if args.start else None
    raw = {
        "tiles": args.tiles,
        "one_die": args.one_die,
        "move_rule": args.move_rule,
        "scoring": args.scoring,
        "start": start,
    }
    return msgspec.convert(raw, Rules)


def _solve(args: argparse.Namespace) -> int:
    try:
        rules = _rules_from(args)
    except msgspec.ValidationError as error:
        print(f"shutbox solve: {error}", file=sys.stderr)
        return 2
    figures = solution(rules)
    if args.json:
        sys.stdout.write(msgspec.json.encode(figures).decode() + "\n")
        return 0
    start = ", ".join(map(str, rules.start)) if rules.start else f"1..{rules.tiles}"
    print(
        f"Rules: {rules.tiles} tiles, start {start}, one die {rules.one_die}, "
        f"move rule {rules.move_rule}, scoring {rules.scoring}"
    )
    print(f"Expected score under the optimum: {figures.expected_score:.4f}")
    print(f"Best shut chance:                 {figures.p_shut:.4%}")
    print(
        f"Hint policy (shut chance first):  {figures.hint_policy.p_shut:.4%} shut, "
        f"expected score {figures.hint_policy.expected_score:.4f}"
    )
    print("Final-score distribution under the optimum:")
    for score, probability in figures.distribution.items():
        print(f"  {score:>6}  {probability:8.4%}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="shutbox", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    solve = commands.add_parser("solve", help="exact figures of a rules variant's start position")
    solve.add_argument("--tiles", type=int, default=9, help="tiles 1..N (2..12, default 9)")
    solve.add_argument("--one-die", choices=ONE_DIE_VALUES, default="never")
    solve.add_argument("--move-rule", choices=MOVE_RULE_VALUES, default="any")
    solve.add_argument("--scoring", choices=SCORING_VALUES, default="sum")
    solve.add_argument(
        "--start", type=_tile_list, nargs="+", help="tiles open at the start, e.g. 4,5,6,7,8,9"
    )
    solve.add_argument("--json", action="store_true", help="print the figures as JSON")
    solve.set_defaults(handler=_solve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handler = args.handler
    result: int = handler(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
