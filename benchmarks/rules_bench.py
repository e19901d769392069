"""Benchmark of the rules core: exact tables from cold (expected score, shut chance, hint
policy, and the start position's distribution), and one run verified and analysed.

    python benchmarks/rules_bench.py [--repeat N]

Reports medians in milliseconds and, because machines are noisy, each figure as a
ratio to a fixed pure-Python reference workload timed in the same run (the time
to sort 200,000 fixed integers), so runs on different machines can be compared.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from service.rules import ruleset, solver
from service.rules.analysis import report
from service.rules.computers import EASY, play
from service.rules.dice import derive_dice
from service.rules.ruleset import Rules


def median_ms(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def cold_tables(rules: Rules) -> Callable[[], object]:
    def action() -> object:
        # Every cache the solver leans on, cleared: this is a process's first solve.
        solver.LOADED.clear()
        ruleset._roll_moves.cache.clear()
        ruleset._sets_by_sum.cache.clear()
        tables = solver.solve(rules)
        return tables.distribution(rules.start_position)

    return action


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()

    numbers = random.Random(7).sample(range(10**9), 200_000)
    reference = median_ms(lambda: sorted(numbers), args.repeat)

    standard = median_ms(cold_tables(Rules()), args.repeat)
    twelve = median_ms(cold_tables(Rules(tiles=12)), max(3, args.repeat // 3))
    twelve_one_die = median_ms(
        cold_tables(Rules(tiles=12, one_die="sum_le_6", move_rule="single")),
        max(3, args.repeat // 3),
    )

    rules = Rules()
    tables = solver.solve(rules)
    runs = []
    for n in range(500):
        sequence_id = f"daily/bench-{n}"
        dice = derive_dice(b"benchmark", sequence_id, rules.rolls)
        runs.append((dice, play(tables, EASY, rules.full, dice, f"player/{n}").moves, sequence_id))
    times = []
    for dice, moves, sequence_id in runs:
        start = time.perf_counter()
        report(rules, dice, moves, sequence_id)
        times.append(time.perf_counter() - start)
    analyse = statistics.median(times) * 1000
    analyse_p99 = sorted(times)[int(len(times) * 0.99)] * 1000

    # Everyone plays the Daily Dice: many runs on one sequence share its hindsight search
    # and its computer players.
    daily = derive_dice(b"benchmark", "daily/shared", rules.rolls)
    shared_runs = [play(tables, EASY, rules.full, daily, f"player/{n}").moves for n in range(500)]
    shared = []
    for moves in shared_runs:
        start = time.perf_counter()
        report(rules, daily, moves, "daily/shared")
        shared.append(time.perf_counter() - start)
    shared_median = statistics.median(shared) * 1000

    rows = [
        ("reference: sort 200k ints", reference, None),
        ("tables, standard rules, cold", standard, 50.0),
        ("tables, 12 tiles, cold", twelve, 1000.0),
        ("tables, 12 tiles, one die + single, cold", twelve_one_die, 1000.0),
        ("verify + analyse one run (median)", analyse, 1.0),
        ("verify + analyse one run (p99)", analyse_p99, None),
        ("verify + analyse, runs sharing a sequence (median)", shared_median, 1.0),
    ]
    print(f"{'measure':52} {'ms':>9} {'x reference':>12} {'target ms':>10}")
    for name, ms, target in rows:
        target_text = f"{target:10.1f}" if target else " " * 10
        print(f"{name:52} {ms:9.3f} {ms / reference:12.3f} {target_text}")


if __name__ == "__main__":
    main()
